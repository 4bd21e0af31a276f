"""What a robustness probe of every command left: each refusal one line and the right exit.

A closed output pipe stops every command alike (exit 141, nothing said);
``report --allow-empty`` writes an empty page on a dataset with no hand; an
unreadable file is one line; options that mean nothing alone are refused; an
empty ruleset file is refused by every command that takes one; ``--read-only``
names the statement it refuses as written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.cli.text import READER_GONE
from ofc_stats.store.read_only import statement_name

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "open" / "three_hands.jsonl"
HAND = (
    '{"boards": [{"top": "Qs Qh 5c", "middle": "Qd Qc 4s 3d 2h", "bottom": "Ks Kd Kh 9h 9d"}, '
    '{"top": "2c 3c 4c", "middle": "Ac Ad 7h 8h 9s", "bottom": "Tc Jc 8c 6c 7c"}]}'
)
DEAL = '{"cards": "Ah Kh Qh Jh Th 9s 9d 9c 5s 5d 3c 3d 2s Qd"}'


def run(*args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=stdin)


def error_lines(result) -> list[str]:  # type: ignore[no-untyped-def]
    return result.stderr.splitlines()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("leftovers") / "data"
    done = run("import", "--quiet", "--data", str(root), str(SAMPLE))
    assert done.exit_code == 0, done.output
    return root


# --- 1. a closed pipe: every command stops the same way ------------------------------------


def _into_closed_pipe(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """``ofc-stats ARGS`` writing into a pipe nobody reads any more (``| head -0`` whose
    head has already gone: every write fails, not only those after a race is lost)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-c", "from ofc_stats.cli import run; run()", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=300,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "args",
    [
        ["report", "--data", "{data}", "--out", "{tmp}/r.html"],
        ["report", "--data", "{data}", "--out", "/dev/stdout"],
        ["audit", "--data", "{data}", "--quiet"],
        ["audit", "--data", "{data}", "--quiet", "--out", "-"],
        ["players", "--data", "{data}"],
        ["sql", "--data", "{data}", "--format", "csv", "SELECT * FROM hands"],
        ["grade", "--data", "{data}", "--quiet", "--rollouts", "4", "--workers", "1"],
        ["hand", "--data", "{data}", "1"],
        ["hand", "--data", "{data}", "1", "--out", "/dev/stdout"],
        ["score", "{tmp}/hands.jsonl"],
        ["solve-fantasy", "{tmp}/deals.jsonl"],
        ["check", "--data", "{data}"],
        ["import", "--quiet", "--data", "{tmp}/new", str(SAMPLE)],
        ["--help"],
        ["players", "--help"],
    ],
    ids=lambda args: " ".join(a for a in args if "{" not in a and "/" not in a),
)
def test_a_closed_pipe_stops_every_command_quietly_with_141(
    dataset: Path, tmp_path: Path, args: list[str]
) -> None:
    # Click's handler and the group's exited 1 (a failure, to `set -o pipefail` and to
    # `&&`) and `audit --out -` left its rows to Python's flush at exit: exit 120 and two
    # lines "Exception ignored ... BrokenPipeError".  141 = 128 + SIGPIPE, as `yes | head`.
    (tmp_path / "hands.jsonl").write_text(HAND + "\n")
    (tmp_path / "deals.jsonl").write_text(DEAL + "\n")
    given = [a.format(data=dataset, tmp=tmp_path) for a in args]
    done = _into_closed_pipe(given)
    assert (done.returncode, done.stderr.decode()) == (READER_GONE, "")


def test_the_work_before_the_closed_pipe_is_kept(tmp_path: Path) -> None:
    # import stores its hands before it prints: the reader going away costs none of them.
    data = tmp_path / "data"
    done = _into_closed_pipe(["import", "--quiet", "--data", str(data), str(SAMPLE)])
    assert done.returncode == READER_GONE
    count = run("sql", "--data", str(data), "--format", "csv", "SELECT count(*) AS n FROM hands")
    assert count.stdout == "n\n3\n"


# --- 2. report --allow-empty on a dataset with no hand -------------------------------------


@pytest.fixture(scope="module")
def no_hands(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset whose one hand was refused: it exists (its quarantine row) but holds no hand."""
    folder = tmp_path_factory.mktemp("no-hands")
    bad = folder / "bad.jsonl"
    line = SAMPLE.read_text().splitlines()[0]
    bad.write_text(line.replace('"cards":["', '"cards":["Zz","', 1) + "\n")
    data = folder / "data"
    refused = run("import", "--quiet", "--data", str(data), str(bad))
    assert refused.exit_code == 1 and (data / "dataset.json").exists(), refused.output
    return data


@pytest.mark.parametrize("extra", [[], ["--hero"]])
def test_allow_empty_writes_the_empty_page_of_a_dataset_with_no_hand(
    no_hands: Path, tmp_path: Path, extra: list[str]
) -> None:
    # It exited 1, "the dataset has no hands yet", though --allow-empty asked for the page
    # whatever matched (a watch's page, a nightly job's): nobody to choose is no hand.
    out = tmp_path / "r.html"
    done = run("report", "--data", str(no_hands), "--out", str(out), "--allow-empty", *extra)
    assert done.exit_code == 0, done.output
    assert done.stdout == (
        f"report for you (the hero): {out} "
        "(empty: no scored hand of you (the hero) matches all hands)\n"
    )
    assert "<title>OFC report: you (the hero)" in out.read_text()


def test_without_allow_empty_and_for_a_name_nobody_has_the_report_is_refused(
    no_hands: Path, tmp_path: Path
) -> None:
    out = str(tmp_path / "r.html")
    plain = run("report", "--data", str(no_hands), "--out", out)
    assert plain.exit_code == 1
    assert error_lines(plain) == ["Error: the dataset has no hands yet; import some first"]
    # a typo is not an empty page: a name is looked up, as --room and --opponent are
    named = run("report", "--data", str(no_hands), "--out", out, "--player", "Bob", "--allow-empty")
    assert named.exit_code == 1 and "no player 'Bob'" in named.stderr
    assert not Path(out).exists()


def test_an_empty_page_of_filters_says_it_is_empty(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "csv"
    done = run(
        "report", "--data", str(dataset), "--out", str(out), "--format", "csv",
        "--since", "2030-01-01", "--allow-empty",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert done.stdout.endswith(
        f"for you (the hero, 2 accounts) in {out} (empty: no scored hand of you (the hero, "
        "2 accounts) matches since 2030-01-01)\n"
    )


# --- 3. a file that cannot be read ---------------------------------------------------------

MEM = Path("/proc/self/mem")  # a regular file by stat, an I/O error at offset 0


@pytest.mark.skipif(not MEM.exists(), reason="no /proc/self/mem")
def test_a_lone_unreadable_file_is_one_line(tmp_path: Path) -> None:
    # It said the reason, then "the one hand seen was refused" of a hand nobody saw.
    done = run("import", "--data", str(tmp_path / "data"), str(MEM))
    assert done.exit_code == 1
    assert len(error_lines(done)) == 1
    assert error_lines(done)[0].startswith(
        "Error: nothing stored: /proc/self/mem: unreadable file:"
    )
    assert "Input/output error" in done.stderr


@pytest.mark.skipif(not MEM.exists(), reason="no /proc/self/mem")
def test_several_unreadable_files_are_named_once_each(tmp_path: Path) -> None:
    done = run("import", "--data", str(tmp_path / "data"), str(MEM), str(MEM))
    assert done.exit_code == 1
    lines = error_lines(done)
    assert lines[-1] == (
        "Error: nothing stored: none of the 2 files could be read "
        "(named above and in the quarantine table)"
    )
    assert all(line.startswith("/proc/self/mem: unreadable file:") for line in lines[:-1])


@pytest.mark.skipif(not MEM.exists(), reason="no /proc/self/mem")
def test_an_unreadable_file_costs_no_hand_of_the_others(tmp_path: Path) -> None:
    # As a quarantined hand does: named on stderr, kept in the quarantine table, and the
    # run a success since it stored what could be read (a watched folder with one bad
    # file is not a failure on every look).
    data = tmp_path / "data"
    done = run("import", "--data", str(data), str(MEM), str(SAMPLE))
    assert done.exit_code == 0, done.output
    assert len(error_lines(done)) == 1 and done.stderr.startswith("/proc/self/mem: unreadable")
    count = run("sql", "--data", str(data), "--format", "csv", "SELECT count(*) AS n FROM hands")
    assert count.stdout == "n\n3\n"


# --- 4, 5. an option that means something only beside another ------------------------------


def test_solve_fantasy_refuses_data_beside_a_fixed_stay_value(dataset: Path) -> None:
    # --data only estimates what --stay-value auto takes: with 5 it was silently unused.
    done = run("solve-fantasy", "--data", str(dataset), "--stay-value", "5", stdin=DEAL)
    assert done.exit_code == 2 and done.stdout == ""
    assert error_lines(done) == [
        "Error: --data goes with --stay-value auto: it estimates the repeat's value, which "
        "--stay-value 5 fixes (see 'main solve-fantasy --help')"
    ]
    auto = run("solve-fantasy", "--data", str(dataset), "--stay-value", "auto", stdin=DEAL)
    assert auto.exit_code == 0 and '"stays": true' in auto.stdout


def test_import_refuses_interval_without_watch(tmp_path: Path) -> None:
    for interval in ("2", "5"):  # the default's value too: it was given
        done = run("import", "--data", str(tmp_path / "data"), "--interval", interval, str(SAMPLE))
        assert done.exit_code == 2
        assert error_lines(done) == [
            "Error: --interval goes with --watch: how often a watch looks "
            "(see 'main import --help')"
        ]
    assert not (tmp_path / "data").exists()


def test_audit_refuses_alias_without_player(dataset: Path) -> None:
    done = run("audit", "--data", str(dataset), "--alias", "Me")
    assert done.exit_code == 2
    assert error_lines(done) == [
        "Error: --alias LABEL goes with --player: it names their sum (see 'main audit --help')"
    ]


# --- 6. an empty ruleset file --------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n  \n", "# only a comment\n"])
@pytest.mark.parametrize(
    "args",
    [
        ["score", "--rules", "{rules}", "{hands}"],
        ["solve-fantasy", "--rules", "{rules}", "{deals}"],
        ["import", "--rules", "{rules}", "--data", "{tmp}/new", str(SAMPLE)],
        ["audit", "--data", "{data}", "--rules", "{rules}"],
        ["audit", "--data", "{data}", "--rules", "{folder}"],
        ["simulate", "--hands", "1", "--rules", "{rules}", "--out", "{tmp}/sim.jsonl"],
        ["rules", "{rules}"],
    ],
    ids=lambda args: args[0] if isinstance(args, list) else repr(args),
)
def test_an_empty_ruleset_file_is_refused_naming_it(
    dataset: Path, tmp_path: Path, args: list[str], text: str
) -> None:
    # It read as plain pineapple under the file's name: every hand scored and audited by
    # rules nobody chose (a file cut short, a redirect that failed).
    folder = tmp_path / "rules"
    folder.mkdir()
    rules = folder / "mine.toml"
    rules.write_text(text)
    (tmp_path / "hands.jsonl").write_text(HAND + "\n")
    (tmp_path / "deals.jsonl").write_text(DEAL + "\n")
    fill = {"rules": rules, "folder": folder, "data": dataset, "tmp": tmp_path}
    fill |= {"hands": tmp_path / "hands.jsonl", "deals": tmp_path / "deals.jsonl"}
    done = run(*(a.format(**fill) for a in args))
    assert done.exit_code == 2 and done.stdout == ""
    (line,) = error_lines(done)
    assert f'{rules}: empty: a ruleset file sets at least extends = "NAME"' in line
    assert not (tmp_path / "new").exists() and not (tmp_path / "sim.jsonl").exists()


def test_a_ruleset_file_of_one_setting_is_taken(tmp_path: Path) -> None:
    rules = tmp_path / "mine.toml"
    rules.write_text('extends = "pineapple"\n')
    done = run("rules", str(rules))
    assert done.exit_code == 0 and done.stdout.startswith("name: mine\n")


# --- 7. --read-only names what it refuses ----------------------------------------------------


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("install httpfs", "INSTALL"),  # DuckDB files it as a LOAD
        ("FORCE INSTALL httpfs", "FORCE INSTALL"),
        ("load httpfs", "LOAD"),
        ("/* a comment */ -- and another\n checkpoint", "CHECKPOINT"),  # a CALL to DuckDB
        ("use memory", "USE"),  # a SET to DuckDB
        ("update extensions", "UPDATE EXTENSIONS"),  # no name in duckdb's Python module
        ("WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", "INSERT"),
    ],
)
def test_read_only_names_the_statement_refused(dataset: Path, query: str, named: str) -> None:
    done = run("sql", "--data", str(dataset), "--read-only", query)
    assert done.exit_code == 1
    assert error_lines(done) == [
        f"Error: --read-only runs queries that read (SELECT, EXPLAIN): {named} refused"
    ]


def test_statement_name_without_a_keyword_is_duckdbs_kind() -> None:
    assert statement_name("(((", "SELECT") == "SELECT"
    assert statement_name("", None) == "this statement"


# --- 8. more odd inputs --------------------------------------------------------------------


@pytest.mark.skipif(not MEM.exists(), reason="no /proc/self/mem")
@pytest.mark.parametrize("command", ["score", "solve-fantasy"])
def test_an_input_the_system_cannot_read_is_named(command: str) -> None:
    # It said only "Error: Input/output error".
    done = run(command, str(MEM))
    assert done.exit_code == 1
    assert error_lines(done) == ["Error: /proc/self/mem: Input/output error"]


def test_a_folder_as_a_ruleset_is_named_as_one(tmp_path: Path) -> None:
    # It was "unknown ruleset '/tmp/...'" and every preset's name.
    done = run("score", "--rules", str(tmp_path), stdin=HAND)
    assert done.exit_code == 2
    assert error_lines(done) == [
        f"Error: Invalid value for --rules: {tmp_path}: a folder; give a ruleset name or one "
        ".toml file (see 'main score --help')"
    ]


@pytest.mark.parametrize(
    "query",
    [
        "EXPLAIN ANALYZE COPY (SELECT 'gone') TO '{data}/dataset.json' (HEADER false)",
        "/* x */ explain (analyze, format json) copy (select 1) to '{data}/dataset.json'",
        "EXPLAIN ANALYSE INSERT INTO t VALUES (1)",
    ],
)
def test_read_only_refuses_a_write_inside_explain_analyze(tmp_path: Path, query: str) -> None:
    # EXPLAIN ANALYZE runs the statement it explains: a COPY into the dataset's own folder
    # (the one place --read-only lets DuckDB write) overwrote dataset.json.
    data = tmp_path / "data"
    assert run("import", "--quiet", "--data", str(data), str(SAMPLE)).exit_code == 0
    kept = (data / "dataset.json").read_bytes()
    done = run("sql", "--data", str(data), "--read-only", query.format(data=data))
    assert done.exit_code == 1
    (line,) = error_lines(done)
    assert line.endswith("refused (EXPLAIN ANALYZE would run it)")
    assert (data / "dataset.json").read_bytes() == kept


@pytest.mark.parametrize(
    "query",
    ["EXPLAIN SELECT 1", "explain analyze from hands", "EXPLAIN (FORMAT json) SELECT * FROM hands"],
)
def test_read_only_runs_an_explain_of_a_query_that_reads(dataset: Path, query: str) -> None:
    done = run("sql", "--data", str(dataset), "--read-only", query)
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize(
    ("args", "option", "what"),
    [
        (["hand", "--data", "{data}", "1", "--out", "-"], "--out", "file"),
        (["report", "--data", "{data}", "--out", "-"], "--out", "file"),
        (["report", "--data", "{data}", "--out", "-", "--format", "csv"], "--out", "folder"),
        (["simulate", "--hands", "1", "--out", "-"], "--out", "file"),
        (
            ["import", "--watch", "--data", "{tmp}/new", "--report", "-", "{tmp}"],
            "--report",
            "file",
        ),
    ],
)
def test_a_dash_where_only_audit_reads_it_as_stdout_is_refused(
    dataset: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    option: str,
    what: str,
) -> None:
    # `audit --out -` is stdout; hand, report and simulate wrote a file called '-' in the
    # current folder, and a watch's --report - was only found out after its first import.
    monkeypatch.chdir(tmp_path)
    done = run(*(a.format(data=dataset, tmp=tmp_path) for a in args))
    assert done.exit_code == 2 and done.stdout == ""
    (line,) = error_lines(done)
    assert line.startswith(
        f"Error: {option} - is not stdout here: {option} names a {what} (./- for one called '-')"
    )
    assert not (tmp_path / "-").exists() and not (tmp_path / "new").exists()
