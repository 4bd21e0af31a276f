"""Two replays of the same seats, paired seat by seat, on each half and on all seats.

    .venv/bin/python bench/replay_pair.py BASE.json NEW.json

Each file is a ``bench/replay.py --seats-json`` output; NEW may replay one half only
(``--half``), paired on its own seats.  Printed per half (the tuning
half where settings are chosen, the holdout where they are reported; docs/grading.md)
and on all seats: each run's gain a seat-hand and the paired difference NEW − BASE,
mean ± SE, and each run's fouls and Fantasyland entries beside the players'; where both
files carry the grader's claim a seat (``claimed``), each run's claimed loss, realised −
claimed, and the paired difference of the claims, NEW − BASE.  The rule
adopts NEW only if that difference passes 2 SE on the tuning half.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def mean_se(values: list[float]) -> str:
    """Mean ± standard error of the mean."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return f"{mean:+.2f} ± {math.sqrt(var / n):.2f}"


def rates(run: dict[tuple[str, int], dict], keys: list, who: str) -> str:  # type: ignore[type-arg]
    """The foul and Fantasyland-entry rates of the bot's (or the players') boards."""
    n = len(keys)
    fouls = sum(run[k][who]["fouls"] for k in keys) / n
    entries = sum(run[k][who]["entries"] for k in keys) / n
    return f"{fouls:.1%} / {entries:.1%}"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: replay_pair.py BASE.json NEW.json", file=sys.stderr)
        return 2
    try:
        base, new = (
            {(r["hand_key"], r["seat"]): r for r in json.loads(Path(p).read_text())} for p in argv
        )
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not new.keys() <= base.keys():
        print("error: NEW replays seats BASE does not", file=sys.stderr)
        return 2
    for half in ("tune", "holdout", None):
        keys = [k for k in new if half is None or new[k]["half"] == half]
        if not keys:
            continue
        print(
            f"{half or 'all':8} {len(keys):5} seats: "
            f"base {mean_se([base[k]['gain'] for k in keys])}"
            f", new {mean_se([new[k]['gain'] for k in keys])}"
            f", new − base {mean_se([new[k]['gain'] - base[k]['gain'] for k in keys])}"
            f"; fouls / FL entries: base {rates(base, keys, 'bot')}, new {rates(new, keys, 'bot')}"
            f", players {rates(base, keys, 'players')}"
        )
        if all("claimed" in base[k] and "claimed" in new[k] for k in keys):
            print(
                f"{'':14} claimed: base {mean_se([base[k]['claimed'] for k in keys])}"
                f", new {mean_se([new[k]['claimed'] for k in keys])}"
                f", new − base {mean_se([new[k]['claimed'] - base[k]['claimed'] for k in keys])}"
                "; realised − claimed: base "
                f"{mean_se([base[k]['gain'] - base[k]['claimed'] for k in keys])}"
                f", new {mean_se([new[k]['gain'] - new[k]['claimed'] for k in keys])}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
