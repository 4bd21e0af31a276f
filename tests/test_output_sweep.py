"""Issue 30, item 14: unwritable outputs and bad options are one line and a non-zero exit.

The sweep: every command that writes a file given a folder, a file where a
folder goes, a path through a file, a full disk (a 64 KiB tmpfs in a child's
own mount namespace, so no root is needed) and, for standard output, ``/dev/full``; and the
numbers a new user typed that overflowed or never ended.  No traceback, one
``Error:`` line, exit status non-zero, and no output file left cut short.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from parsers.open_format import dumps
from tests.builders import sim_records

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sweep")
    source = folder / "hands.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in sim_records(8, seed=5)))
    import_paths([source], folder / "data")
    recompute(folder / "data")
    return folder / "data"


# A full disk without root: a 64 KiB tmpfs mounted in a mount namespace of a child
# (`unshare --user --map-root-user` makes the child root of a namespace of its own, which
# an unprivileged user may create where the kernel allows user namespaces, as Debian's
# does; the same command as root).  The sweep runs in that child; the tmpfs goes with it.
NAMESPACE = ["unshare", "--user", "--map-root-user", "--mount"]
MOUNT_AND_RUN = 'mount -t tmpfs -o size=64k tmpfs "$1" && exec "$2" -c "$3" "$1" "$4"'
CHILD = (
    "import sys; from pathlib import Path; from tests.test_output_sweep import full_disk_sweep; "
    "full_disk_sweep(Path(sys.argv[2]), Path(sys.argv[1]))"
)


def _one_line_error(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert not (result.exception and not isinstance(result.exception, SystemExit)), (
        args,
        repr(result.exception),
    )
    assert result.exit_code != 0, (args, result.output)
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, (args, result.output)
    return errors[0]


def test_bad_options_are_refused_in_one_line(data: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "r.html")
    cases = [
        ["players", "--data", str(data), "--limit", "1e24"],
        ["players", "--data", str(data), "--limit", "1" + "0" * 24],
        ["sql", "--data", str(data), "--limit", "1e23", "SELECT 1"],
        ["sql", "--data", str(data), "--limit", "1" + "0" * 23, "SELECT 1"],
        ["sql", "--data", str(data), "SELECT cast('x' AS int)"],
        ["sql", "--data", str(data), "SELECT 1/0::int, error('boom')"],
        ["sql", "--data", str(data), "SELECT * FROM no_such_table"],
        ["sql", "--data", str(data), "-p", "n:int=1e23", "SELECT $n"],
        ["sql", "--data", str(data), "-p", "n:int=" + "9" * 50, "SELECT $n"],
        ["report", "--data", str(data), "--session-gap", "1e20", "--out", out],
        ["report", "--data", str(data), "--session-gap", "1" + "0" * 20, "--out", out],
        ["simulate", "--hands", "1e23", "--out", str(tmp_path / "s.jsonl")],
        ["simulate", "--hands", "1" + "0" * 23, "--out", str(tmp_path / "s.jsonl")],
        ["simulate", "--hands", "5", "--seed", "-1", "--out", str(tmp_path / "s.jsonl")],
        ["simulate", "--hands", "5", "--seed", "9" * 30, "--out", str(tmp_path / "s.jsonl")],
        ["simulate", "--hands", "5", "--stack", "nan", "--out", str(tmp_path / "s.jsonl")],
        ["simulate", "--hands", "5", "--players", "9" * 20, "--out", str(tmp_path / "s.jsonl")],
        ["audit", "--data", str(data), "--max-gap", "inf"],
        ["grade", "--data", str(data), "--seed", "9" * 30],
    ]
    for args in cases:
        _one_line_error(args)
    assert not (tmp_path / "s.jsonl").exists()


def test_unwritable_outputs_are_refused_before_the_work(data: Path, tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    plain = tmp_path / "plain"
    plain.write_text("x")
    d = str(data)
    cases = {
        "report into a folder": ["report", "--data", d, "--out", str(folder)],
        "report png into a file": ["report", "--data", d, "--format", "png", "--out", str(plain)],
        "report under a file": ["report", "--data", d, "--out", str(plain / "r.html")],
        "report in /proc": ["report", "--data", d, "--out", "/proc/x"],
        "audit into a folder": ["audit", "--data", d, "--out", str(folder)],
        "audit under a file": ["audit", "--data", d, "--out", str(plain / "a.csv")],
        "write-rules into a file": [
            "audit",
            "--data",
            d,
            "--guess-rules",
            "--write-rules",
            str(plain),
        ],
        "simulate into a folder": ["simulate", "--hands", "3", "--out", str(folder)],
        "simulate under a file": ["simulate", "--hands", "3", "--out", str(plain / "s.jsonl")],
        "hand into a folder": ["hand", "--data", d, "1", "--out", str(folder)],
        "import into a file": ["import", "--data", str(plain), str(plain)],
    }
    for name, args in cases.items():
        line = _one_line_error(args)
        assert "Traceback" not in line, name
    assert plain.read_text() == "x" and list(folder.iterdir()) == []


def test_a_full_disk_is_one_line_and_leaves_no_cut_file(data: Path, tmp_path: Path) -> None:
    mount = tmp_path / "full"
    mount.mkdir()
    probe = subprocess.run([*NAMESPACE, "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace here: {probe.stderr.decode().strip()}")
    done = subprocess.run(
        [*NAMESPACE, "sh", "-c", MOUNT_AND_RUN, "sh", str(mount), sys.executable, CHILD, str(data)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["full: 5 commands, one line each, nothing left"]


def full_disk_sweep(data: Path, full_disk: Path) -> None:
    """In the child, with ``full_disk`` a fresh 64 KiB tmpfs: fill it, then every command
    that writes there says "No space left" in one line and leaves no cut file."""
    filler = full_disk / "filler"
    with contextlib.suppress(OSError), open(filler, "wb") as handle:
        handle.write(b"x" * (1 << 20))  # fill it: every write after this one fails
    assert os.statvfs(full_disk).f_bavail == 0 and filler.stat().st_size < 1 << 20  # full
    d = str(data)
    cases = [
        ["report", "--data", d, "--out", str(full_disk / "r.html")],
        ["report", "--data", d, "--format", "csv", "--out", str(full_disk / "csv")],
        ["simulate", "--hands", "50", "--out", str(full_disk / "s.jsonl")],
        ["audit", "--data", d, "--out", str(full_disk / "a.csv")],
        ["import", "--data", str(full_disk / "d"), str(ROOT / "data" / "sim-open.jsonl")],
    ]
    for args in cases:
        line = _one_line_error(args)
        assert "No space left" in line, (args, line)
    left = sorted(p.name for p in full_disk.iterdir() if p.is_file())
    assert left == ["filler"], left  # nothing cut short left behind
    print(f"full: {len(cases)} commands, one line each, nothing left")


@pytest.mark.parametrize(
    "args",
    [
        ["sql", "SELECT * FROM hands"],
        ["players"],
        ["audit", "--out", "-", "--quiet"],
        ["hand", "KEY"],
    ],
    ids=["sql", "players", "audit", "hand"],
)
def test_standard_output_on_a_full_disk(data: Path, args: list[str]) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    key = Dataset(data).read("hands", ["hand_key"])["hand_key"][0].as_py()
    rest = [key if arg == "KEY" else arg for arg in args[1:]]
    command = [sys.executable, "-m", "ofc_stats", args[0], "--data", str(data), *rest]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            command, stdout=full, stderr=subprocess.PIPE, text=True, env=env, check=False
        )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert [line for line in done.stderr.splitlines() if line.strip()] == [
        line for line in done.stderr.splitlines() if line.startswith("Error:")
    ], done.stderr
    assert "No space left" in done.stderr
