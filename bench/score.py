"""`ofc-stats score` speed: JSON Lines of finished hands scored end to end, against a floor.

    .venv/bin/python bench/score.py [--hands 1000000] [--repeat 3] [--reference /work/main]

Writes ``--hands`` random 3-seat pineapple hands (every 4th with stacks),
then times, each in a child process so start-up is left out, interleaved and
repeated (medians):

* **floor**: ``json.loads`` of every line of the same file, nothing else;
* **score**: ``ofc-stats score FILE`` (JSON out, written to /dev/null): the
  compiled core end to end, arrays in and text out;
* **record path**: the per-hand path the command took before (``parse_hand``
  into Board objects, ``result_record`` dicts, ``json.dumps``), on a tenth
  of the lines;
* **reference**: with ``--reference``, ``ofc-stats score`` of that checkout
  (e.g. the commit before), in the same run.

Each step gives wall and CPU rates (user + system, every thread): on a shared
host CPU time follows the other sessions' load less than wall time does.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402

CHILD = r"""
import json, os, sys, time
mode, path, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
from ofc_stats.cli.main import main
from ofc_stats.cli.score_io import score_stream
from ofc_stats.engine.presets import get_ruleset
with open(path, encoding="utf-8") as handle:
    lines = [line for _, line in zip(range(limit), handle)]
times = os.times()
start = time.perf_counter()
if mode == "floor":
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            json.loads(line)
    hands = sum(1 for _ in open(path, encoding="utf-8"))
elif mode == "score":
    sys.stdout = open(os.devnull, "w")
    main(["score", path], standalone_mode=False)
    sys.stdout.close()
    sys.stdout = sys.__stdout__
    hands = sum(1 for _ in open(path, encoding="utf-8"))
else:
    start = time.perf_counter()
    ruleset = get_ruleset("pineapple")
    for item in score_stream(lines, ruleset, path):
        json.dumps(item[1], separators=(", ", ": "))
    hands = len(lines)
seconds = time.perf_counter() - start
cpu = sum(os.times()[:2]) - sum(times[:2])
print(json.dumps({"seconds": seconds, "cpu": cpu, "hands": hands}))
"""


def write_hands(path: Path, hands: int, seed: int = 1) -> None:
    """Random finished boards (fouls and all), the way `score` reads them."""
    from ofc_stats.engine.cards import format_cards

    names = np.array([format_cards([card]) for card in range(52)])
    rng = np.random.default_rng(seed)
    with open(path, "w", encoding="utf-8") as out:
        for start in range(0, hands, 100_000):
            count = min(100_000, hands - start)
            decks = rng.permuted(np.tile(np.arange(52), (count, 1)), axis=1)[:, :39]
            text = names[decks]
            for row, cards in enumerate(text.tolist()):
                boards = [
                    {
                        "top": " ".join(cards[s * 13 : s * 13 + 3]),
                        "middle": " ".join(cards[s * 13 + 3 : s * 13 + 8]),
                        "bottom": " ".join(cards[s * 13 + 8 : s * 13 + 13]),
                    }
                    for s in range(3)
                ]
                hand: dict[str, object] = {"boards": boards}
                if (start + row) % 4 == 0:
                    hand["stacks"] = [30, 30, 30]
                out.write(json.dumps(hand) + "\n")


def run(mode: str, path: Path, limit: int, checkout: Path = ROOT) -> dict[str, float]:
    return run_child(CHILD, mode, str(path), str(limit), cwd=checkout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", type=Path, default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-score-"))
    try:
        path = work / "hands.jsonl"
        write_hands(path, args.hands)
        size = path.stat().st_size / 2**20
        print(f"{args.hands:,} hands, {size:,.0f} MiB of JSON Lines")
        modes = ["floor", "score", "record"] + (["reference"] if args.reference else [])
        runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
        for _ in range(args.repeat):  # interleaved, so host noise hits each mode alike
            for mode in runs:
                if mode == "reference":
                    runs[mode].append(run("score", path, 1, args.reference))
                else:
                    runs[mode].append(run(mode, path, max(1, args.hands // 10)))
        rates = {
            mode: (
                statistics.median(r["hands"] / r["seconds"] for r in results),
                statistics.median(r["hands"] / max(r["cpu"], 1e-9) for r in results),
            )
            for mode, results in runs.items()
        }
        labels = {
            "floor": "floor: json.loads of each line",
            "score": "ofc-stats score (core)",
            "record": "record path (before), 1/10",
            "reference": f"ofc-stats score of {args.reference}",
        }
        floor_wall, floor_cpu = rates["floor"]
        print(f"\n{'step':44} {'hands/s':>9} {'× floor':>8} {'hands/CPU-s':>12} {'× floor':>8}")
        for mode, (wall, cpu) in rates.items():
            print(
                f"{labels[mode]:44} {wall:9,.0f} {floor_wall / wall:8.2f} "
                f"{cpu:12,.0f} {floor_cpu / cpu:8.2f}"
            )
        if args.reference:
            print(f"score / reference, CPU: {rates['score'][1] / rates['reference'][1]:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
