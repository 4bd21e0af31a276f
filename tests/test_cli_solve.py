"""`ofc-stats solve-fantasy`, with exact expected output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ofc_stats.cli.main import main

# Royal flush on the bottom (25, and a repeat: quads or better), 999-55 in the
# middle (12), 33Q on top (0); 2s thrown.  See tests/test_fantasy_solver.py.
ROYAL = '{"cards": "Ah Kh Qh Jh Th 9s 9d 9c 5s 5d 3c 3d 2s Qd"}'
ROYAL_SET = (
    '{"top": "Qd 3d 3c", "middle": "9s 9d 9c 5s 5d", "bottom": "Ah Kh Qh Jh Th", '
    '"discards": "2s", "royalties": 37, "stays": true, "value": %s}\n'
)


def run(*args: str, stdin: str | bytes | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=stdin)


def test_one_json_line_per_deal() -> None:
    result = run("solve-fantasy", "--stay-value", "10", "-", stdin=ROYAL + "\n")
    assert result.exit_code == 0
    assert result.stdout == ROYAL_SET % "47"


def test_auto_stay_value_is_the_published_figure_for_the_repeat() -> None:
    # pineapple-progressive repeats with 14 cards: 10.23 points (fantasy_value.PUBLISHED).
    result = run("solve-fantasy", stdin=ROYAL)
    assert result.stdout == ROYAL_SET % "47.23"
    # No repeat under the standard rules: the set is valued by its royalties.
    plain = run("solve-fantasy", "--rules", "pineapple", stdin=ROYAL)
    assert plain.stdout == (ROYAL_SET % "37").replace('"stays": true', '"stays": false')


def test_table_format() -> None:
    result = run(
        "solve-fantasy", "--format", "table", "--stay-value", "0", stdin=ROYAL + "\n" + ROYAL
    )
    assert result.exit_code == 0
    block = (
        "deal at line {}: 14 cards, stay value 0\n"
        "  top       Qd 3d 3c\n"
        "  middle    9s 9d 9c 5s 5d\n"
        "  bottom    Ah Kh Qh Jh Th\n"
        "  discards  2s\n"
        "  royalties 37, stays yes, value 37\n"
    )
    assert result.stdout == block.format(1) + "\n" + block.format(2)


def test_bad_lines_are_reported_and_the_rest_solved(tmp_path: Path) -> None:
    deals = tmp_path / "deals.jsonl"
    deals.write_text(
        "\n".join(
            [
                ROYAL,
                "{not json",
                '{"deal": "As Kd"}',
                ROYAL.replace("Qd", "Zz"),
                ROYAL.replace("Qd", "Ah"),
                ROYAL.replace('"}', ' Ac"}'),
                ROYAL.replace("Qd", "X1"),
                "",
                ROYAL,
            ]
        ),
        encoding="utf-8",
    )
    result = run("solve-fantasy", "--rules", "pineapple", "--stay-value", "0", str(deals))
    assert result.exit_code == 1
    assert result.stdout == (ROYAL_SET % "37").replace("true", "false") * 2
    name = str(deals)
    assert result.stderr.splitlines() == [
        f"{name}:2: not JSON: Expecting property name enclosed in double quotes at column 2",
        f'{name}:3: expected an object with "cards": "As Kd Qh ..."',
        f"{name}:4: bad card 'Zz': expected rank and suit like 'As'",
        f"{name}:5: duplicate card Ah",
        f"{name}:6: 15 cards; ruleset pineapple deals 14 in Fantasyland",
        f"{name}:7: joker X1 in the standard52 deck, which has no jokers "
        "(jokers need the joker54 deck)",
        "6 lines could not be solved",
    ]


def test_progressive_takes_every_count_it_deals() -> None:
    fifteen = ROYAL.replace('"}', ' Ac"}')
    result = run("solve-fantasy", "--rules", "progressive", "--stay-value", "0", stdin=fifteen)
    assert result.exit_code == 0
    assert '"discards": "Qd 2s"' in result.stdout  # the top kicker: 33A beats 33Q
    eighteen = ROYAL.replace('"}', ' Ac As Ad Kc"}')
    bad = run("solve-fantasy", "--rules", "progressive", stdin=eighteen)
    assert (
        bad.stderr.splitlines()[0]
        == "-:1: 18 cards; ruleset pineapple-progressive deals 14, 15, 16 or 17 in Fantasyland"
    )


def test_a_bad_stay_value_is_a_usage_error() -> None:
    result = run("solve-fantasy", "--stay-value", "lots", stdin=ROYAL)
    assert result.exit_code == 2
    assert "'lots' is not a number of points or 'auto'" in result.stderr


def test_binary_input_is_one_line_and_a_bad_line_is_counted(tmp_path: Path) -> None:
    """Not UTF-8 at all: refused in one line; one line that is not UTF-8: that line only."""
    binary = tmp_path / "deals.bin"
    binary.write_bytes(b"\xcb\x80\xff\n" + ROYAL.encode() + b"\n")
    result = run("solve-fantasy", str(binary))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {binary}: not UTF-8 text (invalid start byte at byte 2 on line 1); "
        "JSON Lines expected\n"
    )
    utf16 = run("solve-fantasy", "-", stdin=b"\xff\xfe{}\n")
    assert utf16.exit_code == 1
    assert utf16.stderr == "Error: -: UTF-16 text, not UTF-8: save it as UTF-8\n"
    mixed = run("solve-fantasy", "--stay-value", "10", stdin=ROYAL.encode() + b"\n\xcb\n")
    assert mixed.exit_code == 1
    assert mixed.stdout == ROYAL_SET % "47"
    assert mixed.stderr.splitlines() == [
        "-:2: line is not UTF-8 (invalid continuation byte at byte 0)",
        "1 line could not be solved",
    ]
