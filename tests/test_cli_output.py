"""What the commands print, exactly: seat numbers, escapes, and the short forms a person reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import run, small_dataset


def test_hand_numbers_seats_as_every_table_does(tmp_path: Path) -> None:
    """Alice (stored seat 0): QQ top 7 + 9-high straight 4 + A-high flush 4 = 15
    royalties, Bob fouled: 6 for the scoop + 15 = +21; she is seat 0 here as in sql."""
    data = str(small_dataset(tmp_path))
    text = run("hand", "open:test:T1:1", "--data", data)
    assert text.exit_code == 0, text.output
    assert text.stdout == (
        "hand open:test:T1:1 (room id 1)\n"
        "test · table T1 · 2026-03-01 20:02:00 · pineapple-progressive\n"
        "\n"
        "seat 0: Alice\n"
        "  streets: unknown (final board only)\n"
        "  top    Qs Qd 2c        pair of Qs\n"
        "  middle 5h 6d 7c 8s 9h  straight 9-high\n"
        "  bottom 2h 7h Th Jh Ah  flush A-high\n"
        "  royalties 15 (top 7, middle 4, bottom 4)\n"
        "  points +21 (engine)\n"
        "  against seat 1: +21\n"
        "  earns Fantasyland (14 cards)\n"
        "\n"
        "seat 1: Bob\n"
        "  streets: unknown (final board only)\n"
        "  top    Ac Kd 3s        A-high\n"
        "  middle 4c 4d 4h Js Ks  three 4s\n"
        "  bottom 5c 5d 6c 8d 9c  pair of 5s\n"
        "  fouled: no royalties\n"
        "  points -21 (engine)\n"
        "  against seat 0: -21\n"
        "\n"
        "audit:\n"
        "  nothing found in this hand\n"
    )
    stored = run(
        "sql",
        "SELECT seat, player FROM seats WHERE hand_key = $k ORDER BY seat",
        "-p",
        "k=open:test:T1:1",
        "--data",
        data,
        "--format",
        "csv",
    )
    assert stored.stdout == "seat,player\n0,Alice\n1,Bob\n"
    hand = json.loads(run("hand", "open:test:T1:1", "--data", data, "--format", "json").stdout)
    assert [(s["seat"], s["player"], s["versus"]) for s in hand["seats"]] == [
        (0, "Alice", {"1": 21.0}),
        (1, "Bob", {"0": -21.0}),
    ]


# --- control characters: escaped for a person, kept exact for a program -------------------

CONTROLS = (
    "SELECT chr(27) || '[31mX' || chr(7) || 'Y' || chr(10) || 'Z' || chr(13) || 'W' "
    "|| chr(155) || 'Q' AS v, 'a' || chr(9) || 'b' || chr(127) AS t"
)
RAW = "\x1b[31mX\x07Y\nZ\rW\x9bQ"  # what CONTROLS' v holds


def test_sql_table_shows_every_control_as_an_escape_on_one_line(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    result = run("sql", CONTROLS, "--data", data)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "v                          t\n"  # 25 characters of escapes, two spaces, then t
        "\\x1b[31mX\\x07Y\\nZ\\rW\\x9bQ  a\\tb\\x7f\n"
    )


def test_sql_table_rounds_a_double_s_noise_and_json_keeps_every_digit(tmp_path: Path) -> None:
    """0.1 + 0.2 is 0.30000000000000004 as a double: a person reads 0.3, a program the double."""
    data = str(small_dataset(tmp_path))
    query = "SELECT 0.1::DOUBLE + 0.2::DOUBLE AS x, 5::DOUBLE AS y"
    table = run("sql", query, "--data", data)
    assert table.stdout == "  x    y\n0.3  5.0\n"
    exact = run("sql", query, "--data", data, "--format", "json")
    assert json.loads(exact.stdout) == [{"x": 0.30000000000000004, "y": 5.0}]


def test_sql_infinity_and_nan_are_not_null_and_null_is_never_none(tmp_path: Path) -> None:
    """1/0 is inf in DuckDB: the table and CSV show inf, -inf and nan as DuckDB does (the
    table said None); NULL is NULL in the table, an empty CSV field, null in JSON."""
    data = str(small_dataset(tmp_path))
    query = "SELECT 1/0 AS p, -1/0 AS m, 'nan'::DOUBLE AS n, NULL AS z, -2.5::DOUBLE AS d"
    table = run("sql", query, "--data", data)
    assert table.exit_code == 0, table.output
    assert table.stdout == "  p     m    n  z        d\ninf  -inf  nan  NULL  -2.5\n"
    csv = run("sql", query, "--data", data, "--format", "csv")
    assert csv.stdout == "p,m,n,z,d\ninf,-inf,nan,,-2.5\n"  # -inf is a number, not a formula
    plain = run("sql", "SELECT 1/0", "--data", data)
    assert "None" not in plain.stdout and plain.stdout.splitlines()[1].strip() == "inf"
    as_json = run("sql", query, "--data", data, "--format", "json")
    assert json.loads(as_json.stdout) == [{"p": None, "m": None, "n": None, "z": None, "d": -2.5}]


def test_sql_csv_to_a_pipe_keeps_the_data_byte_exact(tmp_path: Path) -> None:
    """No ANSI stripped, a CR or LF quoted (the csv module leaves a lone CR bare)."""
    import csv
    import io

    data = str(small_dataset(tmp_path))
    result = run("sql", CONTROLS, "--data", data, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout == f'v,t\n"{RAW}",a\tb\x7f\n'
    assert list(csv.reader(io.StringIO(result.stdout, newline=""))) == [
        ["v", "t"],
        [RAW, "a\tb\x7f"],
    ]
    formula = run(
        "sql", "SELECT '=1+1' AS \"=h\", chr(13) || 'x' AS r", "--data", data, "--format", "csv"
    )
    assert formula.stdout == "'=h,r\n'=1+1,\"'\rx\"\n"  # a leading CR starts a formula too


def test_sql_csv_to_a_terminal_escapes_controls_as_the_table_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ofc_stats.cli.sql
    import ofc_stats.cli.text

    for module in (ofc_stats.cli.sql, ofc_stats.cli.text):
        monkeypatch.setattr(module, "stdout_is_terminal", lambda: True)
    data = str(small_dataset(tmp_path))
    result = run("sql", CONTROLS, "--data", data, "--format", "csv")
    assert result.stdout == "v,t\n\\x1b[31mX\\x07Y\\nZ\\rW\\x9bQ,a\\tb\\x7f\n"


def test_sql_json_escapes_what_a_terminal_would_obey_and_reads_back_the_same(
    tmp_path: Path,
) -> None:
    """JSON escapes C0 by itself; DEL, C1 and U+2028/U+2029 are escaped too (still JSON)."""
    data = str(small_dataset(tmp_path))
    query = CONTROLS + ", chr(8232) || chr(8233) AS s"
    result = run("sql", query, "--data", data, "--format", "json")
    assert result.stdout == (
        '[{"v": "\\u001b[31mX\\u0007Y\\nZ\\rW\\u009bQ", "t": "a\\tb\\u007f", '
        '"s": "\\u2028\\u2029"}]\n'
    )
    assert json.loads(result.stdout) == [{"v": RAW, "t": "a\tb\x7f", "s": "\u2028\u2029"}]
    lines = run("sql", query, "--data", data, "--format", "json", "--nl").stdout
    assert lines == result.stdout[1:-2] + "\n"


def hostile_dataset(tmp_path: Path) -> Path:
    from tests.builders import hand_record, seat_record, write_dataset

    evil = seat_record(0, "Al\x1b]0;pwned\x07\nice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob\x9b2J", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    return write_dataset(tmp_path, [hand_record(1, (evil, bob))])


def test_players_and_hand_print_hostile_names_escaped(tmp_path: Path) -> None:
    data = str(hostile_dataset(tmp_path))
    players = run("players", "--data", data)
    assert players.exit_code == 0, players.output
    # person is 23 characters escaped (2 + 4 + 8 + 4 + 2 + 3), accounts right-aligned in 8
    assert players.stdout == (
        "person                   accounts  names                    hands  hero_hands  rooms"
        "  first_seen  last_seen\n"
        "Al\\x1b]0;pwned\\x07\\nice         1  Al\\x1b]0;pwned\\x07\\nice      1           0  test"
        "   2026-03-01  2026-03-01\n"
        "Bob\\x9b2J                       1  Bob\\x9b2J                    1           0  test"
        "   2026-03-01  2026-03-01\n"
    )
    hand = run("hand", "1", "--data", data).stdout
    assert "seat 0: Al\\x1b]0;pwned\\x07\\nice\n" in hand and "seat 1: Bob\\x9b2J\n" in hand
    assert not any(c in hand.replace("\n", "") for c in "\x1b\x07\x9b")
    as_json = run("hand", "1", "--data", data, "--format", "json").stdout
    assert '"player": "Bob\\u009b2J"' in as_json and "\x9b" not in as_json
    assert json.loads(as_json)["seats"][0]["player"] == "Al\x1b]0;pwned\x07\nice"


def test_import_prints_a_hostile_file_name_escaped(tmp_path: Path) -> None:
    path = tmp_path / "x\x1b[31m\ny.hh"
    path.write_text("hello\n", encoding="utf-8")
    data = tmp_path / "data"
    result = run("import", "--data", str(data), str(path))
    assert result.exit_code == 1, result.output  # nothing readable: an error, no dataset left
    assert result.stdout == (
        "files: 1 (1 skipped)\n"
        "hands: 0 seen, 0 stored, 0 duplicates, 0 quarantined\n"
        f"  skipped {tmp_path}/x\\x1b[31m\\ny.hh: unknown format; "
        "known formats: app-json, fpdb, open, swc, swc-chat\n"
    )
    assert result.stderr == "Error: nothing to import: no readable file in the paths given\n"
    assert not data.exists()


# --- small things a new user tripped on ------------------------------------------------


def test_sql_refuses_nl_without_json_and_a_zero_limit(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    nl = run("sql", "SELECT 1 AS a", "--data", data, "--nl")
    assert nl.exit_code == 2 and nl.stderr.startswith("Error: --nl goes with --format json (see '")
    zero = run("sql", "SELECT 1 AS a", "--data", data, "--limit", "0")
    assert zero.exit_code == 2 and "'--limit': 0 is not in the range x>=1." in zero.stderr
    one = run("sql", "SELECT seat FROM seats ORDER BY seat", "--data", data, "--limit", "1")
    assert one.stdout == "seat\n   0\n"


def test_players_hero_on_a_dataset_without_hero_seats_says_so(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    result = run("players", "--data", data, "--hero")
    assert result.exit_code == 0
    assert result.stdout == "(no hero seat is marked in this dataset; `players` lists everyone)\n"


def test_players_hero_says_how_many_more_the_limit_left_out(tmp_path: Path) -> None:
    """Defect: `players --hero` cut its list at --limit with no "… more" line (51 hero
    accounts, 50 rows).  Three hero accounts (one hand each, each the hero of it) and a
    fourth player never hero: --hero --limit 2 shows two and 1 more; without --hero, 2 more."""
    from tests.builders import hand_record, seat_record, write_dataset

    heroes = ["Ann", "Bea", "Cy"]
    hands = [
        hand_record(
            i,
            (
                seat_record(0, name, "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah", hero=True),
                seat_record(1, "Dan", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c"),
            ),
        )
        for i, name in enumerate(heroes)
    ]
    data = str(write_dataset(tmp_path, hands))
    hero = run("players", "--data", data, "--hero", "--limit", "2")
    assert hero.exit_code == 0, hero.output
    assert hero.stdout.splitlines()[-1] == "… 1 more; --limit N shows more"
    everyone = run("players", "--data", data, "--limit", "2")
    assert everyone.stdout.splitlines()[-1] == "… 2 more; --limit N shows more"
    assert "more" not in run("players", "--data", data, "--hero").stdout


def test_hand_id_reused_in_one_room_lists_what_tells_the_hands_apart(tmp_path: Path) -> None:
    """Two hands of room test, table T1, both room id 7, two minutes apart: the second
    is stored under hand_key~<fingerprint>; the id alone names neither."""
    from dataclasses import replace
    from datetime import datetime

    from tests.builders import hand_record, seat_record, write_dataset

    alice = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    first = replace(hand_record(7, (alice, bob)), played_at=datetime(2026, 3, 1, 20, 0))
    swapped = (replace(bob, seat=0), replace(alice, seat=1))
    second = replace(hand_record(7, swapped), played_at=datetime(2026, 3, 1, 20, 2))
    data = str(write_dataset(tmp_path, [first, second]))
    keys = run(
        "sql", "SELECT hand_key FROM hands ORDER BY played_at", "--data", data, "--format", "csv"
    )
    plain, fingerprinted = keys.stdout.splitlines()[1:]
    result = run("hand", "7", "--data", data)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: hand id '7' names 2 hands (format open, room test, table T1); they differ in "
        "played at; give one hand_key:\n"
        f"  {plain}  (played at 2026-03-01 20:00:00)\n"
        f"  {fingerprinted}  (played at 2026-03-01 20:02:00)\n"
    )
    assert run("hand", fingerprinted, "--data", data).exit_code == 0


def test_every_out_file_makes_its_folder_and_says_where_it_wrote(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    page = tmp_path / "new" / "deeper" / "hand.txt"
    hand = run("hand", "open:test:T1:1", "--data", data, "--out", str(page))
    assert hand.exit_code == 0, hand.output
    assert hand.stdout == f"hand open:test:T1:1: {page}\n"
    assert page.read_text(encoding="utf-8").startswith("hand open:test:T1:1 (room id 1)\n")
    hands = tmp_path / "sim" / "out.jsonl"
    sim = run("simulate", "--hands", "2", "--seed", "1", "--quiet", "--out", str(hands))
    assert sim.exit_code == 0, sim.output
    assert f"\nwrote {hands} (tables " in sim.stdout and len(hands.read_text().splitlines()) == 2
    for command in ("hand", "simulate", "report"):  # made on purpose, so --help says so
        assert "(missing folders are made)" in " ".join(run(command, "--help").stdout.split())
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    refused = run("hand", "open:test:T1:1", "--data", data, "--out", str(blocked / "x.txt"))
    assert refused.exit_code == 1 and refused.stderr.startswith(
        f"Error: Could not open file '{blocked / 'x.txt'}': "
    )
    assert "Traceback" not in refused.output


def test_a_second_import_counts_the_files_it_skips_and_verbose_names_them(
    tmp_path: Path,
) -> None:
    """app-json and open samples, imported once, then again: both skipped, one line."""
    source = Path(__file__).parent / "data"
    files = [str(source / "app-json" / "two_hands.hh"), str(source / "open" / "three_hands.jsonl")]
    data = str(tmp_path / "data")
    assert run("import", "--quiet", "--data", data, *files).exit_code == 0
    again = run("import", "--quiet", "--no-recompute", "--data", data, *files)
    assert again.exit_code == 0
    assert again.stdout == (
        "files: 2 (2 skipped)\n"
        "hands: 0 seen, 0 stored, 0 duplicates, 0 quarantined\n"
        "  2 files already imported (same content), skipped (--verbose names them)\n"
        f"dataset: {data}\n"
    )
    named = run("import", "--quiet", "--no-recompute", "--verbose", "--data", data, *files)
    assert named.exit_code == 0
    assert named.stdout.splitlines()[2:4] == [
        f"  skipped {files[0]}: already imported (same content)",
        f"  skipped {files[1]}: already imported (same content)",
    ]


def test_every_data_option_reads_directory_in_help() -> None:
    """`--data DIRECTORY` in every command's help (import's said TEXT)."""
    from ofc_stats.cli.main import main
    from ofc_stats.cli.reference import _commands

    helps = {path: text for path, text in _commands(main, None, "ofc-stats") if "--data" in text}
    assert "ofc-stats import" in helps and "ofc-stats players alias" in helps
    for path, text in helps.items():
        assert "--data DIRECTORY" in text, path


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), RuntimeError("Query interrupted")])
def test_ctrl_c_is_one_line_saying_what_is_kept_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stop: BaseException
) -> None:
    """Ctrl-C in Python, or inside a DuckDB query (which raises "Query interrupted"), is
    the shell's 130 and one line, not click's "Aborted!" and 1 or a RuntimeError."""
    import ofc_stats.store.forget

    def interrupted(*args: object, **kwargs: object) -> None:
        raise stop

    monkeypatch.setattr(ofc_stats.store.forget, "forget", interrupted)
    result = run("forget", "--data", str(tmp_path), "x.hh")
    assert result.exit_code == 130
    assert result.output == (
        "Error: interrupted: what was committed before is kept; run the command again to go on\n"
    )


def test_import_of_a_reused_hand_id_says_how_to_find_the_hand(tmp_path: Path) -> None:
    """The import's line named a placeholder (`hand_key~<fingerprint>`) and no hand; now it
    gives the command that lists them, and that command runs and finds the second hand."""
    import shlex
    from dataclasses import replace
    from datetime import datetime

    from parsers.open_format import dumps
    from tests.builders import hand_record, seat_record

    alice = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    first = replace(hand_record(7, (alice, bob)), played_at=datetime(2026, 3, 1, 20, 0))
    swapped = (replace(bob, seat=0), replace(alice, seat=1))
    second = replace(hand_record(7, swapped), played_at=datetime(2026, 3, 1, 20, 2))
    source = tmp_path / "hands.jsonl"
    source.write_text(dumps(first) + "\n" + dumps(second) + "\n", encoding="utf-8")
    data = str(tmp_path / "data")
    result = run("import", "--data", data, str(source))
    assert result.exit_code == 0, result.output
    (line,) = [text for text in result.stdout.splitlines() if "reused another" in text]
    assert "<fingerprint>" not in line
    command = shlex.split(line.split("`")[1])
    assert command[:4] == ["ofc-stats", "sql", "--data", data]
    listed = run(*command[1:], "--format", "csv")
    assert listed.exit_code == 0, listed.output
    rows = listed.stdout.splitlines()[1:]
    assert len(rows) == 1 and rows[0].startswith("open:test:T1:7~") and rows[0].endswith(",2")


def test_sql_csv_writes_booleans_and_times_as_duckdb_does(tmp_path: Path) -> None:
    """An analyst's find: booleans came out as Python's True/False and times with a T,
    unlike DuckDB's own CSV (and the report's CSV times)."""
    data = str(small_dataset(tmp_path))
    result = run(
        "sql", "SELECT true AS t, false AS f, TIMESTAMP '2021-03-30 06:17:23' AS at",
        "--data", data, "--format", "csv",
    )  # fmt: skip
    assert result.stdout == "t,f,at\ntrue,false,2021-03-30 06:17:23\n"
