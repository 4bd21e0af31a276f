"""The maximum loss per hand (``max_loss``), inferred where the hands can show it.

A cap on what a seat can lose shows as losses that stop at one value while
the rules, uncapped, would take more.  The candidate is the largest loss the
data shows per room and rule string; every hand is rescored without a cap
and with that one, and only hands where the two differ (a seat that would
lose more than the candidate) count, for or against.  When no hand would
lose more than the largest loss seen, the data cannot tell a cap from none:
the option is reported as not inferable, and the file keeps the named rules.
So it is when fewer than :data:`MIN_SUPPORT` hands stop at the candidate:
where the evidence is the losers' money, a short stack that paid all it had
stops at its stack, not at a cap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ofc_stats.audit.evidence import Evidence, HandOrder, Shown, candidates, pick, setter
from ofc_stats.engine.rules import Ruleset
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

NOT_INFERABLE = "not inferable from these hands"
MIN_SUPPORT = 3  # hands that must stop at the cap: one short stack that paid its all is not a cap


def largest_losses(frames: Iterable[pd.DataFrame]) -> dict[tuple[str, str], int]:
    """Per (room, rule string): the largest whole-point loss the data shows, if any, over
    the seats of ``frames`` (a batch's each, :meth:`Shown.batches`, read one at a time)."""
    worst: dict[tuple[str, str], float] = {}
    for shown in frames:
        losses = shown[shown["shown"] < 0]
        lowest = losses.groupby(["room", "rules_text"])["shown"].min()
        for (room, text), loss in zip(lowest.index.tolist(), (-lowest).tolist(), strict=True):
            key = (str(room), str(text))
            worst[key] = max(worst.get(key, 0.0), float(loss))
    return {
        key: round(loss)
        for key, loss in sorted(worst.items())
        if loss >= 1 and np.isclose(loss, round(loss))
    }


def infer_max_loss(
    data: OfcData,
    shown: Shown,
    current: dict[str, Ruleset],
    bases: Mapping[tuple[str, str], Ruleset],
    order: HandOrder,
) -> dict[tuple[str, str], Evidence]:
    """``max_loss`` evidence per (room, rule string) of ``bases``.

    ``shown`` reads each seat's points as far as the data tells, a batch at a time;
    ``current`` the rulesets inferred so far, by stored name, rescored with
    each candidate.
    """
    worst = largest_losses(frame for _, frame in shown.batches(data))
    values = {"none": setter("max_loss", None)}
    values |= {str(n): setter("max_loss", n) for n in sorted(set(worst.values()))}
    found = candidates(data, shown, "max_loss", values, current, order) if worst else {}
    out = {}
    for key, base in bases.items():
        default = "none" if base.max_loss is None else str(base.max_loss)
        largest = worst.get(key)
        if largest is None:
            out[key] = Evidence("max_loss", "", 0, 0, note=f"{NOT_INFERABLE}: no loss shown")
            continue
        mine = {v: s for v, s in found.get(key, {}).items() if v in ("none", str(largest))}
        evidence = pick("max_loss", mine, default)
        if not evidence.support and not evidence.contradict:
            note = f"{NOT_INFERABLE}: no hand would lose more than the largest loss seen, {largest}"
            evidence = Evidence("max_loss", "", 0, 0, note=note)
        elif evidence.value != "none" and evidence.support < MIN_SUPPORT:
            note = (
                f"{NOT_INFERABLE}: only {plural(evidence.support, 'hand')} "
                f"{'stops' if evidence.support == 1 else 'stop'} at {largest} "
                f"and {evidence.contradict:,} "
                f"{'does' if evidence.contradict == 1 else 'do'} not "
                "(a short stack paying its all looks the same)"
            )
            evidence = Evidence("max_loss", "", 0, 0, note=note)
        out[key] = evidence
    return out


def max_loss_value(evidence: Evidence | None, base: Ruleset) -> int | None:
    """The ``max_loss`` a ruleset file gets from the evidence (the named rules' when none)."""
    if evidence is None or not evidence.value:
        return base.max_loss
    return None if evidence.value == "none" else int(evidence.value)
