"""The fuzz suite's new places (issue 30): rules files, datasets on disk, file-system oddities.

Each ``*_round(seed, folder)`` makes its inputs from ``seed`` and returns the
failures it found (an empty list: every promise held):

* rules files: a valid TOML file mutated byte by byte (cut, flipped, NUL,
  huge numbers, deep nesting, names with paths); reading one is a ruleset or
  one ``OfcError``, and an import under one writes nothing outside ``--data``;
* datasets on disk: random files of a small dataset cut or overwritten;
  ``check`` and every reading command answer in one line, never a traceback;
* file-system oddities in an input folder (FIFOs, dangling and looping
  links, a link to a device, empty and binary files): the import ends, names
  each as skipped, and for every file stored + duplicate + quarantined
  (+ cut, left for later) = seen.
"""

from __future__ import annotations

import os
import random
import shutil
import traceback
from pathlib import Path

from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.engine.ruleset_toml import ruleset_from_text
from ofc_stats.errors import OfcError
from ofc_stats.store.check import scan
from ofc_stats.store.importer import import_paths
from parsers.open_format import dumps
from tests.handgen import random_records

RULES = (
    'extends = "pineapple"\nname = "club-rules"\n'
    "[royalties.middle]\nflush = 8\n[royalties.bottom]\nflush = 4\n"
    "[fantasy]\nentry = 12\ncards = 14\n"
)
NASTY = [
    b"\0",
    b"\xff\xfe",
    b"9" * 40,
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b'"../../../victim/config"',
    b'"/etc/x"',
    b"-1",
    b"1e308",
    b'""',
    b"\n[royalties.top]\n",
    b"\xc3\x28",
]


def _mutate(text: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(text) + 1)
    choice = rng.randrange(4)
    if choice == 0:
        return text[:at]
    if choice == 1:
        return text[:at] + rng.choice(NASTY) + text[at:]
    if choice == 2:
        end = min(len(text), at + rng.randrange(1, 12))
        return text[:at] + rng.choice(NASTY) + text[end:]
    return text[:at] + bytes([rng.randrange(256)]) + text[at + 1 :]


def _crash(where: str, error: BaseException) -> str:
    last = traceback.format_exception(error)[-2].strip().splitlines()[0]
    return f"{where}: {type(error).__name__}: {str(error)[:80]} at {last}"


def rules_round(seed: int, folder: Path, cases: int = 40) -> list[str]:
    """Mutated rules files: read (one OfcError at worst), then used by an import."""
    rng = random.Random(seed)
    failures = []
    source = folder / "hands.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in random_records(2, seed=seed)))
    for case in range(cases):
        data = _mutate(RULES.encode(), rng)
        try:
            ruleset_from_text(data.decode("utf-8", "surrogateescape"), "fuzz.toml")
        except OfcError:
            pass
        except Exception as error:
            failures.append(_crash(f"rules {case} {data[:60]!r}", error))
            continue
        room = folder / f"rules-{case}"
        room.mkdir()
        (room / "club.toml").write_bytes(data)
        before = sorted(p.name for p in folder.iterdir())
        done = CliRunner().invoke(
            main,
            [
                *("import", "--quiet", "--data", str(room / "data")),
                *("--rules", str(room / "club.toml"), str(source)),
            ],
        )
        if done.exception is not None and not isinstance(done.exception, SystemExit):
            failures.append(_crash(f"import --rules {case} {data[:60]!r}", done.exception))
        after = sorted(p.name for p in folder.iterdir())
        if after != before:
            failures.append(f"rules {case}: wrote outside --data: {set(after) ^ set(before)}")
    return failures


def _dataset(folder: Path, seed: int) -> Path:
    for part in range(2):
        source = folder / f"in-{part}.jsonl"
        records = random_records(3, seed=seed * 10 + part)
        source.write_text("".join(dumps(r) + "\n" for r in records) + "{cut\n")
        import_paths([source], folder / "data")
    return folder / "data"


def damage_round(seed: int, folder: Path, cases: int = 6) -> list[str]:
    """A file of a dataset cut or overwritten at random: one line from every command."""
    rng = random.Random(seed)
    (folder / "whole").mkdir()
    whole = _dataset(folder / "whole", seed)
    failures = []
    for case in range(cases):
        data = folder / f"damaged-{case}"
        shutil.copytree(whole, data)
        files = sorted(p for p in data.rglob("*") if p.is_file() and ".index" not in p.parts)
        target = rng.choice(files)
        content = target.read_bytes()
        at = rng.randrange(len(content) + 1)
        if rng.random() < 0.5:
            target.write_bytes(content[:at])
        else:
            target.write_bytes(content[:at] + os.urandom(rng.randrange(1, 64)) + content[at:])
        where = f"damage {case} ({target.relative_to(data)} at {at})"
        try:
            scan(data)
        except OfcError:
            pass
        except Exception as error:
            failures.append(_crash(f"{where}: check", error))
        for args in (
            ["check", "--data", str(data)],
            ["sql", "--data", str(data), "SELECT count(*) FROM seat_results"],
            ["players", "--data", str(data)],
            ["import", "--quiet", "--data", str(data), str(folder / "whole" / "in-0.jsonl")],
        ):
            done = CliRunner().invoke(main, args)
            if done.exception is not None and not isinstance(done.exception, SystemExit):
                failures.append(_crash(f"{where}: {args[0]}", done.exception))
            elif done.exit_code != 0:
                errors = [ln for ln in done.output.splitlines() if ln.startswith("Error:")]
                if args[0] != "check" and len(errors) != 1:
                    failures.append(f"{where}: {args[0]} said {done.output[:200]!r}")
    return failures


def filesystem_round(seed: int, folder: Path) -> list[str]:
    """An input folder of oddities beside good files: each named, every hand accounted for."""
    rng = random.Random(seed)
    inputs = folder / "inputs"
    inputs.mkdir()
    good = inputs / "good.jsonl"
    good.write_text("".join(dumps(r) + "\n" for r in random_records(3, seed=seed)))
    odd: dict[str, str] = {}
    os.mkfifo(inputs / "pipe.zip")
    odd["pipe.zip"] = "FIFO"
    os.symlink(inputs / "nowhere", inputs / "dangling.jsonl")
    odd["dangling.jsonl"] = "dangling"
    os.symlink(inputs / "loop-b", inputs / "loop-a")
    os.symlink(inputs / "loop-a", inputs / "loop-b")
    odd["loop-a"] = ""
    if os.path.exists("/dev/null"):
        os.symlink("/dev/null", inputs / "device.jsonl")
        odd["device.jsonl"] = "device"
    (inputs / "empty.jsonl").write_bytes(b"")
    (inputs / "noise.bin").write_bytes(bytes(rng.randrange(256) for _ in range(512)))
    cut = good.read_text()
    (inputs / "cut.jsonl").write_text(cut[: rng.randrange(1, len(cut))])
    failures = []
    try:
        summary = import_paths([inputs], folder / "data")
    except Exception as error:
        return [_crash("filesystem import", error)]
    named = {Path(f.path).name: f.skipped or "" for f in summary.files}
    for name, kind in odd.items():
        if name not in named or not named[name]:
            failures.append(f"filesystem: {name} not named as skipped ({named.get(name)!r})")
        elif kind and kind not in named[name]:
            failures.append(f"filesystem: {name} skipped as {named[name]!r}, not {kind}")
    for file in summary.files:
        if file.accounted != file.hands_seen:
            failures.append(f"filesystem: {file.path}: {file.hands_seen} seen, {file.accounted}")
    return failures
