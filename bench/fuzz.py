"""A longer fuzz search than the test suite's: new corpus seeds, then Hypothesis on the parsers.

    .venv/bin/python bench/fuzz.py --minutes 10

Two fifths of the time imports corpus files made with seeds 1, 2, ... (the
suite uses seed 0) and checks every promise of ``tests/fuzz/run.py``; two
fifths give each parser bytes and JSON that Hypothesis makes up (with the
shrinking it does on a failure) and check that parsing never raises and that
every hand it yields passes ``validate_hand`` and fits the dataset's columns;
the last fifth runs ``tests/fuzz/places.py`` with seeds 1, 2, ...: mutated
rules files, randomly damaged datasets and file-system oddities.
Prints what it tried and every distinct failure it found, and records the
corpus files a minute and the failures of each phase.

    .venv/bin/python bench/fuzz.py --corpus            # the whole seed-0 corpus, timed

``--corpus`` instead imports every file of the seed-0 corpus with two rounds
of mutations (``tests/fuzz/corpus.py``; the suite imports one round), each in
its own dataset, and records how many kept every promise and the slowest
file's import (goal: all of them, none over 60 s).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from record import record  # noqa: E402

from ofc_stats.engine.presets import get_ruleset  # noqa: E402
from ofc_stats.errors import OfcError  # noqa: E402
from ofc_stats.records import HandRecord, validate_hand  # noqa: E402
from ofc_stats.store.rows import hands_table  # noqa: E402
from parsers.registry import REGISTRY, get_parser  # noqa: E402
from tests.fuzz.corpus import corpus  # noqa: E402
from tests.fuzz.places import damage_round, filesystem_round, rules_round  # noqa: E402
from tests.fuzz.run import CASE_SECONDS, Totals, run  # noqa: E402

TEXT_FORMATS = ("app-json", "open", "swc", "swc-chat")
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


def corpus_phase(seconds: float) -> tuple[Totals, int]:
    """Corpus seeds 1, 2, ... until the time is up; the totals and the seeds run."""
    totals = Totals()
    deadline = time.monotonic() + seconds
    seed = 0
    while time.monotonic() < deadline:
        seed += 1
        part = run(corpus(seed=seed, rounds=1))
        totals.files += part.files
        totals.hands_seen += part.hands_seen
        for name in ("tracebacks", "unaccounted", "lost", "changed", "disagree", "unexplained"):
            getattr(totals, name).extend(getattr(part, name))
        totals.reasons.update(part.reasons)
    return totals, seed


def whole_corpus(seed: int, rounds: int) -> None:
    """Every file of one corpus, one at a time: the files that kept every promise, the slowest."""
    cases = list(corpus(seed=seed, rounds=rounds))
    kept = accounted = 0
    slowest = (0.0, "")
    failures: list[str] = []
    started = time.monotonic()
    for case in cases:
        begun = time.monotonic()
        part = run([case])
        took = time.monotonic() - begun
        slowest = max(slowest, (took, case.name))
        failures += part.failures
        kept += not part.failures
        accounted += not (part.tracebacks or part.unaccounted or part.lost)
    elapsed = time.monotonic() - started
    print(f"corpus seed {seed}, {rounds} round(s): {len(cases)} files in {elapsed:.0f} s")
    print(f"  every hand accounted for: {accounted} of {len(cases)}")
    print(f"  every promise kept: {kept} of {len(cases)}")
    print(f"  slowest file: {slowest[0]:.1f} s ({slowest[1]})")
    for failure in failures:
        print(f"  FAIL {failure}")
    record(
        "fuzz",
        "corpus files with every hand accounted for",
        figure=accounted,
        unit="files",
        reference=len(cases),
        reference_name=f"files in the seed-{seed} corpus, {rounds} rounds",
        goal="all of them",
        met=accounted == len(cases),
        note="stored + duplicate + quarantined = seen, untouched hands stored, no traceback",
    )
    record(
        "fuzz",
        "corpus files keeping every promise",
        figure=kept,
        unit="files",
        reference=len(cases),
        reference_name=f"files in the seed-{seed} corpus, {rounds} rounds",
        goal="all of them",
        met=kept == len(cases),
    )
    record(
        "fuzz",
        "slowest corpus file, import + forced re-import",
        figure=slowest[0],
        unit="s",
        reference=float(CASE_SECONDS),
        reference_name="the promise's bound",
        goal="≤ 60 s",
        met=slowest[0] <= CASE_SECONDS,
        note=slowest[1],
    )
    sys.exit(1 if failures else 0)


def _items(format_name: str, data: bytes) -> list[object]:
    parser = get_parser(format_name)()
    return list(parser.parse(io.BufferedReader(io.BytesIO(data)), "fuzz"))  # type: ignore[arg-type]


def _storable(item: object) -> None:
    """A hand a parser yields must be refused by validate_hand or fit every column."""
    if not isinstance(item, HandRecord):
        return
    try:
        validate_hand(item, get_ruleset(item.ruleset))
    except OfcError:
        return
    hands_table([item], "fuzz")


def _template(format_name: str) -> dict[str, object]:
    """A real record of the format, as JSON, for Hypothesis to poke values into."""
    from parsers.app_json import hand_to_app_object
    from parsers.open_format import hand_to_json
    from tests.handgen import random_records

    record = random_records(1, seed=5)[0]
    return hand_to_app_object(record) if format_name == "app-json" else hand_to_json(record)


def _bytes_check(format_name: str, counter: list[int]) -> Callable[[], None]:
    @settings(max_examples=200, deadline=None, database=None)
    @given(data=st.binary(max_size=3000))
    def check(data: bytes) -> None:
        counter[0] += 1
        for item in _items(format_name, data):
            _storable(item)

    return check  # type: ignore[no-any-return]


def _json_check(format_name: str, counter: list[int]) -> Callable[[], None]:
    template = _template(format_name) if format_name in ("app-json", "open") else {}
    indent = 4 if format_name == "app-json" else None

    @settings(
        max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(key=st.sampled_from(sorted(template) or ["x"]), value=JSON)
    def check(key: str, value: object) -> None:
        counter[0] += 1
        text = json.dumps(dict(template, **{key: value}), indent=indent)
        for item in _items(format_name, (text + "\n").encode()):
            _storable(item)

    return check  # type: ignore[no-any-return]


def hypothesis_phase(seconds: float, failures: Counter[str]) -> int:
    """Hypothesis on each text parser, raw bytes and edited records; the examples tried."""
    counter = [0]
    per_check = seconds / (2 * len(TEXT_FORMATS))
    for format_name in TEXT_FORMATS:
        for make in (_bytes_check, _json_check):
            check = make(format_name, counter)
            deadline = time.monotonic() + per_check
            while time.monotonic() < deadline:
                try:
                    check()
                except Exception as error:
                    where = traceback.format_exception(error)[-2].strip().splitlines()[0]
                    failures[
                        f"{format_name}: {type(error).__name__}: {str(error)[:80]} at {where}"
                    ] += 1
    return counter[0]


def places_phase(seconds: float, failures: Counter[str]) -> int:
    """Rules files, damaged datasets and file-system oddities, seed after seed; seeds run."""
    deadline = time.monotonic() + seconds
    seed = 0
    while time.monotonic() < deadline:
        seed += 1
        for place in (rules_round, damage_round, filesystem_round):
            with tempfile.TemporaryDirectory(prefix="ofc-fuzz-") as folder:
                for failure in place(seed, Path(folder)):
                    failures[failure] += 1
    return seed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--corpus", action="store_true", help="time every file of one corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.corpus:
        whole_corpus(args.seed, args.rounds)
    seconds = args.minutes * 60
    started = time.monotonic()
    totals, seeds = corpus_phase(seconds * 0.4)
    failures: Counter[str] = Counter()
    examples = hypothesis_phase(seconds * 0.4, failures)
    places: Counter[str] = Counter()
    place_seeds = places_phase(seconds * 0.2, places)
    elapsed = time.monotonic() - started
    print(f"fuzz: {elapsed / 60:.1f} min, formats {', '.join(sorted(REGISTRY))}")
    print(f"corpus: seeds 1-{seeds}; {totals.line()}")
    print(f"  {totals.files / max(elapsed * 0.4, 1e-9) * 60:.0f} files/min")
    for failure in totals.failures:
        print(f"  FAIL {failure}")
    print(
        f"hypothesis: {examples} examples on {len(TEXT_FORMATS)} parsers (bytes and JSON), "
        f"{sum(failures.values())} failure(s), {len(failures)} distinct"
    )
    for failure, count in failures.most_common():
        print(f"  FAIL {count} x {failure}")
    print(
        f"places: seeds 1-{place_seeds} of rules files, damaged datasets and file-system "
        f"oddities; {sum(places.values())} failure(s)"
    )
    for failure, count in places.most_common():
        print(f"  FAIL {count} x {failure}")
    record(
        "fuzz",
        "corpus files a minute",
        figure=totals.files / max(elapsed * 0.4, 1e-9) * 60,
        unit="files/min",
        goal="no failure",
        met=not totals.failures,
        note=f"{len(totals.failures)} failure(s) in {totals.files} files, seeds 1-{seeds}",
    )
    record(
        "fuzz",
        "Hypothesis examples on the text parsers",
        figure=examples,
        unit="examples",
        goal="no failure",
        met=not failures,
        note=f"{sum(failures.values())} failure(s), {len(failures)} distinct",
    )
    record(
        "fuzz",
        "seeds of rules files, damaged datasets and file-system oddities",
        figure=place_seeds,
        unit="seeds",
        goal="no failure",
        met=not places,
        note=f"{sum(places.values())} failure(s)",
    )
    sys.exit(1 if totals.failures or failures or places else 0)


if __name__ == "__main__":
    main()
