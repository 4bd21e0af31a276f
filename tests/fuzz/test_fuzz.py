"""The fuzz suite: every corpus file imported, every promise of the import checked.

About 290 files in about a minute (``bench/fuzz.py --minutes N`` searches
longer, with other seeds and Hypothesis).
"""

from __future__ import annotations

from tests.fuzz.corpus import corpus
from tests.fuzz.run import run


def test_no_malformed_file_crashes_loses_or_doubles_a_hand() -> None:
    cases = list(corpus(seed=0, rounds=1))
    assert len(cases) > 250  # every base, every mutation
    totals = run(cases)
    print(totals.line())
    assert totals.files == len(cases)
    assert totals.tracebacks == []
    assert totals.unaccounted == []
    assert totals.lost == []
    assert totals.changed == []
    assert totals.disagree == []
    assert totals.unexplained == []
    # The corpus really is broken in all the ways it claims: each family refused.
    reasons = " | ".join(totals.reasons)
    for family in (
        "nested too deep to read",
        "is not a character",
        "is out of range",
        "unreadable file",
        "wrong encoding",
        "not an object",
        "hand result line without scores",
        "street N is out of range",  # the summary groups numbers away
        "rules must be a string",
    ):
        assert family in reasons, family
