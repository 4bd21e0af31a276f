"""The auditor's figures on the real app samples, written as docs/audit-figures.md.

    .venv/bin/python bench/audit_figures.py [--samples DIR] [--out docs/audit-figures.md]

Imports the samples into a temporary dataset, then per app (room):

* **before**: ``ofc-stats audit`` against each hand's named ruleset (rake and
  short-stack settlement inferred), the audit a user gets with no rules file;
* **after**: ``ofc-stats audit --guess-rules --write-rules DIR`` then
  ``ofc-stats audit --rules DIR``: every room and rule string audited with
  the options inferred from its own hands;

hands and money explained in both, the field verdicts, every inferred option
with the hands that support and contradict it, the rake and settlement, the
timeout evidence, and the hero's ledger.  Figures are counts, so the run is
repeatable (no timing in the file but the run's own seconds).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from record import record  # noqa: E402

from ofc_stats.audit.holdout import CRITERION  # noqa: E402
from ofc_stats.audit.infer import infer_rules  # noqa: E402
from ofc_stats.audit.ledger import ledger, ledger_lines  # noqa: E402
from ofc_stats.audit.points import AuditReport, audit  # noqa: E402
from ofc_stats.audit.rules_book import RulesBook, book_results  # noqa: E402
from ofc_stats.audit.rules_file import write_rule_files  # noqa: E402
from ofc_stats.store.importer import import_paths  # noqa: E402
from ofc_stats.store.recompute import recompute  # noqa: E402
from ofc_stats.store.views import OfcData, open_dataset  # noqa: E402

CHECKS = ("points", "fantasy", "money")


def per_room(report: AuditReport) -> pd.DataFrame:
    """The audit summary summed per room: hands, checked, matching, and each check's counts."""
    columns = ["hands", "checked", "matching"]
    columns += [f"{c}_{k}" for c in CHECKS for k in ("checked", "matching")]
    frame = report.summary.groupby("room")[columns].sum()
    rows = report.mismatches.groupby("room").size().rename("mismatch_rows")
    return frame.join(rows).fillna({"mismatch_rows": 0}).astype(int)


def _share(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} ({part / whole:.1%})" if whole else "–"


def comparison(before: pd.DataFrame, after: pd.DataFrame) -> Iterable[str]:
    yield "| app | measure | named rules (before) | inferred rules file (after) |"
    yield "|---|---|---|---|"
    for room in before.index:
        b, a = before.loc[room], after.loc[room]
        # a hand no check could look at (no points, money or earlier hand) is not explained
        yield f"| {room} | hands checked | {_share(b.checked, b.hands)} | " + (
            f"{_share(a.checked, a.hands)} |"
        )
        yield f"| {room} | checked hands explained | {_share(b.matching, b.checked)} | " + (
            f"{_share(a.matching, a.checked)} |"
        )
        for check in CHECKS:
            checked, matching = f"{check}_checked", f"{check}_matching"
            if b[checked] or a[checked]:
                name = "money hands explained" if check == "money" else f"{check} hands explained"
                yield (
                    f"| {room} | {name} | {_share(b[matching], b[checked])} | "
                    f"{_share(a[matching], a[checked])} |"
                )
        yield f"| {room} | mismatch rows | {b.mismatch_rows:,} | {a.mismatch_rows:,} |"


def by_class(report: AuditReport) -> Iterable[str]:
    classes = report.mismatches.groupby(["room", "class"]).size()
    for (room, klass), count in classes.items():
        yield f"- {room} · {klass}: {count:,} rows"


def lines(title: str, items: Iterable[str]) -> list[str]:
    return ["", f"## {title}", "", *items]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=Path("../shared/samples/apps"))
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "audit-figures.md")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ofc-audit-figures-") as tmp:
        data = Path(tmp) / "data"
        samples = args.samples if args.samples.is_absolute() else ROOT / args.samples
        summary = import_paths([samples], data)
        recompute(data)
        rules_dir = Path(tmp) / "rules"
        with open_dataset(str(data)) as db:
            before = audit(db)
            inferred = infer_rules(db)
            written = write_rule_files(inferred, rules_dir)
            book = RulesBook.load(str(rules_dir))
            after = audit(db, book=book)
            heroes = _hero_ledger(db, book)
        files = {p.name: p.read_text(encoding="utf-8") for p in written}
    seconds = time.perf_counter() - started
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    out = [
        "# The auditor's audit on the real app samples",
        "",
        f"Written by `.venv/bin/python bench/audit_figures.py` (commit {commit}, "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {seconds:.0f} s) from "
        f"`{_shown(args.samples)}`: {summary.stored:,} hands stored, "
        f"{summary.quarantined:,} quarantined.  *Before* is `ofc-stats audit` against each "
        "hand's named ruleset (rake and short-stack settlement inferred); *after* is "
        "`ofc-stats audit --guess-rules --write-rules DIR` then `ofc-stats audit --rules DIR`, "
        "each room and rule string audited with the options inferred from its own hands.",
    ]
    out += lines(
        "Hands and money explained, per app", comparison(per_room(before), per_room(after))
    )
    out += lines("Mismatch rows left after, by class", by_class(after))
    out += lines(
        "Field verdicts",
        (f"- {v.describe()}" for v in (*before.fields, *before.money_fields)),
    )
    evidence = []
    for group in inferred.groups:
        evidence.append(f"### {group.room} · `{group.rules_text}` ({group.hands:,} hands)")
        evidence.append("")
        evidence += [f"- {e.describe()}" for e in group.evidence]
        evidence.append("")
    out += lines("Inferred rules, option by option, with their support", evidence)
    out += lines(
        "Rake and short-stack settlement (after)",
        [
            *(f"- rake {r.describe()}" for r in after.rakes),
            *(f"- short stacks {s.describe()}" for s in after.settlements),
        ],
    )
    out += lines(
        "Money rules out of sample (before: rules inferred from the hands)", _holdout_lines(before)
    )
    out += lines("Money mismatches across the seats of a hand (before)", _pattern_lines(before))
    out += lines("Timeouts", (f"- {line.strip()}" for e in before.timeouts for line in e.lines()))
    out += lines("The hero's ledger (`ofc-stats audit --player hero --rules DIR`)", heroes)
    out += lines(
        "Rules files written",
        (f"- `{name}` ({len(text.splitlines())} lines)" for name, text in sorted(files.items())),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {args.out} in {seconds:.0f} s")
    explained = {name: per_room(r).sum() for name, r in (("before", before), ("after", after))}
    share = {k: 100 * v.matching / v.checked if v.checked else 0.0 for k, v in explained.items()}
    print(
        f"checked hands explained, every app: {share['after']:.1f}% with the inferred rules, "
        f"{share['before']:.1f}% with the named ones"
    )
    record(
        "audit_figures",
        "checked hands explained on the real samples, inferred rules files",
        figure=share["after"],
        unit="%",
        reference=share["before"],
        reference_name="each hand's named ruleset",
        note=f"{int(explained['after'].matching):,} of {int(explained['after'].checked):,} hands",
    )
    held = before.holdouts
    hands = sum(h.hands for h in held)
    if hands:
        outside = 100 * sum(h.out_of_sample for h in held) / hands
        inside = 100 * sum(h.in_sample for h in held) / hands
        record(
            "audit_figures",
            "money hands explained out of sample (rules inferred on the other date half)",
            figure=outside,
            unit="%",
            reference=inside,
            reference_name="rules inferred on all the hands",
            goal="within 1 point of in sample",
            met=inside - outside <= 1.0,
            note=f"{hands:,} money hands",
        )


def _holdout_lines(report: AuditReport) -> list[str]:
    """Per room and currency: hands explained by rules inferred on the other date half against
    rules inferred on all, and the total, under the criterion said once above them."""
    held = report.holdouts
    hands = sum(h.hands for h in held)
    inside = sum(h.in_sample for h in held)
    outside = sum(h.out_of_sample for h in held)
    return [
        f"- the criterion: {CRITERION}",
        *(f"- {h.describe()}" for h in held),
        f"- all rooms: {outside:,} of {hands:,} money hands explained out of sample, "
        f"{inside:,} in sample ({inside - outside:,} fewer); "
        f"{sum(h.holds for h in held)} of {len(held)} rooms hold",
    ]


def _pattern_lines(report: AuditReport) -> list[str]:
    """The money rows per named pattern (the cause), and the hands behind each."""
    money = report.mismatches[report.mismatches["class"] == "money"]
    rows = money.groupby("cause").agg(rows=("seat", "size"), hands=("hand_key", "nunique"))
    return [f"- {cause}: {r.rows} rows, {r.hands} hands" for cause, r in rows.iterrows()]


def _hero_ledger(db: OfcData, book: RulesBook) -> list[str]:
    """The hero's ledger as `audit --player hero --rules DIR` prints it."""
    with db.rescored(book_results(db, book)) as scored:
        book_rows = ledger(scored, ["hero"], rules=book.money_for)
    return [f"- {line.strip()}" for line in ledger_lines(book_rows)]


def _shown(path: Path) -> str:
    return str(path) if not path.is_absolute() else path.name


if __name__ == "__main__":
    main()
