"""The command line, with exact expected output."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ofc_stats.cli.main import main

HAND = (
    '{"boards": [{"top": "Qs Qh 5c", "middle": "Qd Qc 4s 3d 2h", "bottom": "Ks Kd Kh 9h 9d"}, '
    '{"top": "2c 3c 4c", "middle": "Ac Ad 7h 8h 9s", "bottom": "Tc Jc 8c 6c 7c"}], '
    '"stacks": [6, 100]}'
)
SAMPLE = Path(__file__).parent.parent / "data" / "sample-hands.jsonl"


def run(*args: str, stdin: str | bytes | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=stdin)


def test_score_json_line() -> None:
    result = run("score", "-", stdin=HAND + "\n")
    assert result.exit_code == 0
    assert result.stdout == (
        '{"net": [-10, 10], "net_capped": [-6, 6], "points": [[0, -10], [10, 0]], '
        '"boards": [{"fouled": true, "royalties": {"top": 0, "middle": 0, "bottom": 0, '
        '"total": 0}, "fantasyland": {"qualifies": false, "cards": null, "stays": false, '
        '"repeat_cards": null}}, {"fouled": false, "royalties": {"top": 0, "middle": 0, '
        '"bottom": 4, "total": 4}, "fantasyland": {"qualifies": false, "cards": null, '
        '"stays": false, "repeat_cards": null}}]}\n'
    )


def test_score_table() -> None:
    result = run("score", "--format", "table", stdin=HAND)
    assert result.exit_code == 0
    assert result.stdout == (
        "hand at line 1\n"
        "seat  top       middle          bottom          foul  royalties  fantasyland  net  capped\n"
        "0     Qs Qh 5c  Qd Qc 4s 3d 2h  Ks Kd Kh 9h 9d  FOUL  0 (0/0/0)  -            -10  -6\n"
        "1     2c 3c 4c  Ac Ad 7h 8h 9s  Tc Jc 8c 6c 7c        4 (0/0/4)  -            +10  +6\n"
    )


def test_bad_lines_are_reported_and_the_rest_scored() -> None:
    lines = "\n".join(
        [
            HAND,
            '{"boards": [{"top": "Qs Qs 5c", "middle": "2c 3c 4c 5c 7d", "bottom": "Ah Kh Qh Jh 9h"},'
            ' {"top": "2d 3d 4d", "middle": "2s 3s 4s 5s 7c", "bottom": "As Ks Qd Jd 9d"}]}',
            "{not json",
            '{"boards": [{"top": "Zz 2c 3c", "middle": "", "bottom": ""}]}',
            "",
            HAND.replace("Qs Qh 5c", "Qs Qh 5c 6c"),
            HAND,
        ]
    )
    result = run("score", stdin=lines)
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 2
    assert result.stderr.splitlines() == [
        "-:2: duplicate card 5c Qs on one board",
        "-:3: not JSON: Expecting property name enclosed in double quotes at column 2",
        "-:4: bad card 'Zz': expected rank and suit like 'As'",
        "-:6: top row has 4 cards, needs 3",
        "4 lines could not be scored",
    ]


def test_input_that_is_not_utf8_text_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """A binary file or UTF-16 text is refused in one line naming it, not a decode traceback."""
    binary = tmp_path / "picture.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xcb\n")
    result = run("score", str(binary))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {binary}: not UTF-8 text (invalid start byte at byte 0 on line 1); "
        "JSON Lines expected\n"
    )
    utf16 = run("score", "-", stdin=b"\xff\xfe{}\n")
    assert utf16.exit_code == 1
    assert utf16.stderr == "Error: -: UTF-16 text, not UTF-8: save it as UTF-8\n"
    table = run("score", "--format", "table", "-", stdin=b"\x00\x01\x02\n")
    assert table.exit_code == 1
    assert table.stderr == "Error: -: not UTF-8 text (a NUL byte on line 1); JSON Lines expected\n"


def test_a_line_that_is_not_utf8_is_a_bad_line_and_the_rest_are_scored() -> None:
    """One Latin-1 line among UTF-8 ones (a UTF-8 byte-order mark first is fine)."""
    lines = b"\xef\xbb\xbf" + HAND.encode() + b'\n{"note": "caf\xe9"}\n' + HAND.encode() + b"\r\n"
    for output in ("json", "table"):
        result = run("score", "--format", output, "-", stdin=lines)
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            "-:2: line is not UTF-8 (invalid continuation byte at byte 13)",
            "1 line could not be scored",
        ]
        scored = result.stdout.splitlines()
        if output == "json":
            assert len(scored) == 2
        else:
            assert [line for line in scored if line.startswith("hand")] == [
                "hand at line 1",
                "hand at line 3",
            ]


def test_a_hand_history_shows_ten_bad_lines_then_counts_and_names_its_format() -> None:
    """An app .hh file is not `score` input: ten of its 62 lines, a count, and `import`."""
    history = Path(__file__).parent / "data" / "app-json" / "two_hands.hh"
    result = run("score", str(history))
    assert result.exit_code == 1
    errors = result.stderr.splitlines()
    assert len(errors) == 13
    assert errors[0] == (
        f"{history}:1: not JSON: Expecting property name enclosed in double quotes at column 1"
    )
    assert all(line.startswith(f"{history}:") for line in errors[:10])
    assert errors[10:] == [
        "… and 52 more",
        "62 lines could not be scored",
        f"{history}: looks like a hand history (format app-json); read it with `ofc-stats import`",
    ]
    plain = run("score", "-", stdin="{not json\n" * 11)
    assert plain.stderr.splitlines()[10:] == ["… and 1 more", "11 lines could not be scored"]


def test_rules_option_takes_names_and_files(tmp_path: Path) -> None:
    classic = run("score", "--rules", "CLASSIC", stdin=HAND)
    assert json.loads(classic.stdout)["net"] == [-10, 10]  # 6 rows + classic flush 4
    room = tmp_path / "room.toml"
    room.write_text('extends = "pineapple"\nfoul_policy = "rows-only"\n', encoding="utf-8")
    custom = run("score", "--rules", str(room), stdin=HAND)
    assert json.loads(custom.stdout)["net"] == [-7, 7]
    bad = run("score", "--rules", "nope", stdin=HAND)
    assert bad.exit_code == 2
    assert "unknown ruleset 'nope'" in bad.stderr


def test_seat_count_is_checked_against_the_ruleset() -> None:
    four = json.loads(HAND)
    four["boards"] = four["boards"] * 2
    four.pop("stacks")
    result = run("score", stdin=json.dumps(four))
    assert result.exit_code == 1
    assert "-:1: 4 seats; this ruleset seats 2 to 3" in result.stderr


def test_sample_file_scores_cleanly() -> None:
    result = run("score", str(SAMPLE))
    assert result.exit_code == 0
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) == 5
    assert all(sum(r["net"]) == 0 for r in records)
    assert records[4]["net"] == [47, -36, -11]
    assert records[4]["net_capped"] == [30, -12, -18]


def test_rules_listing_and_detail() -> None:
    listing = run("rules")
    assert listing.exit_code == 0
    first = listing.stdout.splitlines()[0].split()
    assert first[:3] == ["pineapple", "pineapple", "standard52,"]
    detail = run("rules", "progressive")
    assert "fantasy: progressive" in detail.stdout
    assert "  entry_cards: QQ=14, KK=15, AA=16, 222=17" in detail.stdout
    assert "  repeat: top=222 middle=- bottom=four_of_a_kind combine=any" in detail.stdout
    # The majority bonus is two-four's alone: shown there, never under american scoring.
    assert "majority_bonus" not in detail.stdout


def test_rules_detail_shows_the_majority_bonus_only_where_it_is_paid(tmp_path: Path) -> None:
    rules = tmp_path / "two_four.toml"
    rules.write_text('extends = "pineapple"\nscoring = "two-four"\nmajority_bonus = "two-rows"\n')
    lines = run("rules", str(rules)).stdout.splitlines()
    assert lines[lines.index("scoring: two-four") + 2] == "majority_bonus: two-rows"


DATA = Path(__file__).parent / "data"


def test_run_summaries_count_in_words_with_thousands_separators() -> None:
    """'1 batch', never '1 batch(es)'; '3,099 seats' beside '3,099 graded seat-hands'."""
    from collections import Counter

    from ofc_stats.grade.replay import SeatReplay
    from ofc_stats.grade.replay_store import ReplaySummary
    from ofc_stats.grade.run import GradeSummary
    from ofc_stats.store.recompute import RecomputeSummary

    again = RecomputeSummary(batches=1, up_to_date=1, statuses=Counter(scored=1))
    assert again.lines() == [
        "recomputed: 0 hands in 1 batch, 1 batch already up to date",
        "  scored: 1 seat",
    ]
    many = RecomputeSummary(batches=3, up_to_date=0, hands=12_345, statuses=Counter(scored=1234))
    assert many.lines() == [
        "recomputed: 12,345 hands in 3 batches, 0 batches already up to date",
        "  scored: 1,234 seats",
    ]
    graded = GradeSummary(batches=1, up_to_date=2, hands=1, decisions=1, fantasy_sets=1_001)
    assert graded.lines()[0] == (
        "graded: 1 street decision and 1,001 Fantasyland sets in 1 hand, 1 batch; "
        "2 batches already up to date"
    )
    seat = SeatReplay("k", 0, "p", (), (), 1.0, 0.0, 2)  # played otherwise from street 3
    replayed = ReplaySummary(batches=1, up_to_date=1, seats=[seat] * 3099)
    assert replayed.lines()[0] == "replayed: 3,099 seats in 1 batch; 1 batch already up to date"
    # the advice won 1 point on each seat: +100 per 100 hands, on the claimed loss's scale
    won = (
        "  won by the advice on the players' own cards: +100 ± 0 per 100 hands over the play "
        "made (3,099 hands)"
    )
    assert replayed.lines()[1] == won
    # A player's find: "+0 ± 0" where the advice never played otherwise, and nothing at all
    # on a second run (every replay stored): both said in words, the stored ones marked.
    same = SeatReplay("k", 0, "p", (), (), 0.0, 0.0, None)
    never = ReplaySummary(batches=1, seats=[same] * 114, player="Ann")
    assert never.lines()[1] == (
        "  the advice never played otherwise than Ann on these 114 hands: nothing to realise"
    )
    stored = ReplaySummary(up_to_date=1, seats=[], player="Ann", stored=[(1.0, True), (3.0, True)])
    assert stored.lines()[1] == (
        "  won by the advice on Ann's own cards: +200 ± 100 per 100 hands over the play made "
        "(2 hands) (stored)"
    )


def test_import_command_summary(tmp_path: Path) -> None:
    data = tmp_path / "ofc-data"
    first = run("import", "--data", str(data), str(DATA / "app-json" / "two_hands.hh"))
    assert first.exit_code == 0, first.output
    assert first.stdout == (
        "files: 1 (0 skipped)\n"
        "hands: 2 seen, 2 stored, 0 duplicates, 0 quarantined\n"
        "recomputed: 2 hands in 1 batch, 0 batches already up to date\n"
        "  scored: 4 seats\n"
        f"dataset: {data}\n"
    )
    again = run("import", "--data", str(data), str(DATA / "app-json" / "two_hands.hh"))
    assert again.stdout.splitlines()[:3] == [
        "files: 1 (1 skipped)",
        "hands: 0 seen, 0 stored, 0 duplicates, 0 quarantined",
        f"  skipped {DATA / 'app-json' / 'two_hands.hh'}: already imported (same content)",
    ]


def test_import_command_reports_quarantine_on_stderr(tmp_path: Path) -> None:
    result = run("import", "--data", str(tmp_path / "d"), str(DATA / "app-json" / "bad.hh"))
    assert result.exit_code == 0
    assert "hands: 7 seen, 1 stored, 0 duplicates, 6 quarantined" in result.stdout
    assert "  quarantined 1 × truncated JSON" in result.stdout
    assert (
        f"{DATA / 'app-json' / 'bad.hh'}:113 (hand big-top): seat 1: top row has 4 cards: player 'ana'"
        in result.stderr
    )


def test_import_summary_groups_reasons_by_kind_not_by_seat_or_player(tmp_path: Path) -> None:
    """The summary counts kinds of refusal: no file, line, seat or player name in a group.

    bad.hh's hands are refused for a bad card (seat 0), a card twice, a top
    row of four (seat 1, player "ana"), an unknown rule string, one seat and
    a truncated object; the stored reasons keep their seat and player.
    """
    result = run("import", "--data", str(tmp_path / "d"), str(DATA / "app-json" / "bad.hh"))
    groups = [line for line in result.stdout.splitlines() if line.startswith("  quarantined")]
    assert groups == [
        "  quarantined 1 × bad card 'Zz'",
        "  quarantined 1 × duplicate card",
        "  quarantined 1 × top row has 4 cards",
        "  quarantined 1 × unknown rule string 'crazy_pineapple_9000'; import it wit...",
        "  quarantined 1 × 1 seat; pineapple-ultimate seats 2 to 3",
        "  quarantined 1 × truncated JSON",
    ]
    # the place is said once: the file and line lead, the reason names the seat
    bad = DATA / "app-json" / "bad.hh"
    assert (
        f"{bad}:37 (hand bad-card): seat 0: bad card 'Zz': expected rank and suit like 'As'\n"
        in result.stderr
    )


def test_a_joker_in_a_ruleset_without_jokers_is_named_as_such(tmp_path: Path) -> None:
    hand = json.loads((DATA.parent.parent / "data" / "sim-open.jsonl").read_text().splitlines()[0])
    hand["seats"][1]["streets"][0]["cards"][0] = "Xx"  # a joker, in plain pineapple
    path = tmp_path / "joker.jsonl"
    path.write_text(json.dumps(hand) + "\n")
    result = run("import", "--data", str(tmp_path / "d"), str(path))
    assert "hands: 1 seen, 0 stored, 0 duplicates, 1 quarantined" in result.stdout
    assert f"  quarantined 1 × joker X1, but {hand['ruleset']}" in result.stdout
    assert f"{path}:1 (hand {hand['hand_id']}): seat 1: joker X1, but" in result.stderr


def test_import_command_rejects_an_unknown_format(tmp_path: Path) -> None:
    result = run("import", "--format", "pdf", "--data", str(tmp_path), str(DATA / "app-json"))
    assert result.exit_code == 2
    assert (
        "unknown format 'pdf'; known formats: app-json, fpdb, open, swc, swc-chat" in result.stderr
    )


def test_formats_listing() -> None:
    result = run("formats")
    assert [line.split()[0] for line in result.stdout.splitlines()] == [
        "app-json",
        "fpdb",
        "open",
        "swc",
        "swc-chat",
    ]


# --- sql: SQL types kept on the way out -----------------------------------------------

TYPES_QUERY = (
    "SELECT INTERVAL 3 DAY + INTERVAL 2 HOUR AS i, 1.25::DECIMAL(10, 2) AS d, "
    "DATE '2026-03-01' AS day, '\\x01\\xff'::BLOB AS b, [1, NULL] AS l, {'a': 1} AS s, "
    "MAP {'k': 2} AS m, NULL::INTEGER AS n, 'a9ba5ca6-0e0e-4e6e-9e8e-0a0b0c0d0e0f'::UUID AS u"
)


def small_dataset(tmp_path: Path) -> Path:
    from tests.builders import hand_record, seat_record, write_dataset

    alice = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    return write_dataset(tmp_path, [hand_record(1, (alice, bob)), hand_record(2, (alice, bob))])


def test_sql_json_is_one_array_of_every_type_and_nl_is_json_lines(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    result = run("sql", TYPES_QUERY, "--data", data, "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [
        {
            "i": "P3DT2H",
            "d": 1.25,
            "day": "2026-03-01",
            "b": "\\x01ff",
            "l": [1, None],
            "s": {"a": 1},
            "m": {"k": 2},
            "n": None,
            "u": "a9ba5ca6-0e0e-4e6e-9e8e-0a0b0c0d0e0f",
        }
    ]
    lines = run(
        "sql",
        "SELECT seat FROM seats ORDER BY hand_key, seat",
        "--data",
        data,
        "--format",
        "json",
        "--nl",
    ).output
    assert lines == '{"seat": 0}\n{"seat": 1}\n{"seat": 0}\n{"seat": 1}\n'


def test_sql_table_prints_integers_with_nulls_as_integers_and_no_raw_blob(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    query = "SELECT CASE WHEN seat = 1 THEN 7 END AS maybe, board FROM seats ORDER BY hand_key, seat LIMIT 2"
    out = run("sql", query, "--data", data).output.splitlines()
    assert out[0].split() == ["maybe", "board"] and out[1].split()[0] == "NULL"
    assert out[2].split()[0] == "7"  # not 7.0
    assert "b'" not in "".join(out) and out[1].split()[1].startswith("\\x")


def test_sql_binds_text_unless_a_type_is_given(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    query = "SELECT $p AS p, typeof($p) AS t, $n + 1 AS n"
    result = run("sql", query, "--data", data, "-p", "p=007", "-p", "n:int=7", "--format", "csv")
    assert result.output == "p,t,n\n007,VARCHAR,8\n"
    bad = run("sql", query, "--data", data, "-p", "n:int=seven")
    assert bad.exit_code == 2 and "'seven' is not an integer" in bad.output
    formula = run("sql", "SELECT '=1+1' AS f, -3 AS g", "--data", data, "--format", "csv").output
    assert formula == "f,g\n'=1+1,-3\n"  # a formula neutralised, a negative number kept


def test_a_bad_query_is_one_line_with_duckdbs_hint(tmp_path: Path) -> None:
    """DuckDB's message and its "Did you mean" hint on one line, its caret drawing of where
    in the query (LINE 1: ... ^^^) dropped: every error is one line and exit status 1."""
    data = str(small_dataset(tmp_path))
    missing = run("sql", "SELECT * FROM nosuch", "--data", data)
    assert missing.exit_code == 1
    assert missing.output.count("\n") == 1, missing.output
    assert "SQL error: Catalog Error: Table with name nosuch does not exist!" in missing.output
    assert "Did you mean" in missing.output
    typo = run("sql", "SELEC 1", "--data", data)
    assert typo.exit_code == 1 and typo.output.count("\n") == 1, typo.output
    assert 'syntax error at or near "SELEC"' in typo.output and "^" not in typo.output


def test_boards_view_and_card_macros_give_cards_as_text(tmp_path: Path) -> None:
    data = str(small_dataset(tmp_path))
    query = (
        "SELECT b.top, b.middle, b.bottom, board_text(s.board) AS board, card_text(52) AS joker "
        "FROM boards b JOIN seats s USING (hand_key, seat) WHERE b.player = 'Alice' LIMIT 1"
    )
    row = json.loads(run("sql", query, "--data", data, "--format", "json").output)[0]
    assert row == {
        "top": "Qs Qd 2c",
        "middle": "5h 6d 7c 8s 9h",
        "bottom": "2h 7h Th Jh Ah",
        "board": "Qs Qd 2c 5h 6d 7c 8s 9h 2h 7h Th Jh Ah",
        "joker": "X1",
    }


# --- hand: one hand as text, JSON or a page ---------------------------------------------


def test_hand_command_shows_boards_points_and_fails_on_unknown_keys(tmp_path: Path) -> None:
    """Alice QQ / 9-high straight / A-high flush (7 + 4 + 4) against Bob's foul: +21."""
    data = str(small_dataset(tmp_path))
    key = json.loads(
        run(
            "sql", "SELECT min(hand_key) AS k FROM hands", "--data", data, "--format", "json"
        ).output
    )[0]["k"]
    text = run("hand", key, "--data", data)
    assert text.exit_code == 0, text.output
    assert "  top    Qs Qd 2c        pair of Qs" in text.output
    assert "  royalties 15 (top 7, middle 4, bottom 4)" in text.output
    assert "  points +21 (engine)" in text.output and "  fouled: no royalties" in text.output
    assert "streets: unknown (final board only)" in text.output
    by_room_id = json.loads(run("hand", "1", "--data", data, "--format", "json").output)
    assert by_room_id["key"] == key and by_room_id["seats"][1]["versus"] == {"0": -21.0}
    page = tmp_path / "hand.html"
    html = run("hand", key, "--data", data, "--format", "html", "--out", str(page))
    assert html.exit_code == 0 and 'data-standalone="' in page.read_text()
    missing = run("hand", "nope", "--data", data)
    assert missing.exit_code == 1 and "no hand 'nope'" in missing.output
