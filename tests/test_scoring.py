"""Scoring one hand: hand-computed expectations for every rule of RULES.md §3-§6."""

from __future__ import annotations

import pytest

from ofc_stats.engine.board import Board
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import MajorityBonus, Scoring
from ofc_stats.engine.scoring import score_board, score_hand, settle
from ofc_stats.errors import HandError


def board(text: str) -> Board:
    top, middle, bottom = (part.strip() for part in text.split("/"))
    return Board.parse(top, middle, bottom)


# A beats B on every row; neither has a royalty under the american table.
A = board("Kc 7d 2h / 9c 9d 4h 5s 6c / Jc Jd 3h 3s 8c")  # K-high, pair 9, two pair J3
B = board("Qd 8h 2c / 8s 8d 4d 5d 7s / Tc Td 2d 2s 6d")  # Q-high, pair 8, two pair T2
B_TIED_TOP = board("Kd 7h 2s / 8s 8d 4d 5d 7s / Tc Td 2d 3d 6d")  # same K-7-2 top
FOULED = board("Qs Qh 5c / Qd Qc 4s 3d 2h / Ks Kd Kh 9h 9d")  # QQ5 over QQ432
FLUSH_BOTTOM = board("2c 3c 4c / Ac Ad 7h 8h 9s / Tc Jc 8c 6c 7c")  # bottom flush: 4


# Full house 777-44 over quad eights: any top row below it stays unfouled.
STRONG_MIDDLE_BOTTOM = "7d 7c 7h 4d 4s / 8h 8c 8d 8s 3d"

PINEAPPLE = get_ruleset("pineapple")
CLASSIC = get_ruleset("classic")
TWO_FOUR = PINEAPPLE.with_options(name="two-four", scoring=Scoring.TWO_FOUR)


@pytest.mark.parametrize(
    ("ruleset", "expected"),
    [
        (PINEAPPLE, 6),  # american: 3 rows + 3 scoop bonus
        (CLASSIC, 6),  # classic: 2 a row, no bonus
        (TWO_FOUR, 4),  # two-four: 3 rows + 1 majority
    ],
)
def test_scoop(ruleset, expected: int) -> None:
    result = score_hand([A, B], ruleset)
    assert result.net == (expected, -expected)
    assert result.points == ((0, expected), (-expected, 0))


@pytest.mark.parametrize(
    ("ruleset", "expected"),
    [
        (PINEAPPLE, 2),  # 2 rows won, top tied: no scoop bonus
        (CLASSIC, 4),
        (TWO_FOUR, 3),  # 2 rows + 1 majority
    ],
)
def test_a_tied_row_blocks_the_scoop(ruleset, expected: int) -> None:
    assert score_hand([A, B_TIED_TOP], ruleset).net == (expected, -expected)


def test_two_four_majority_bonus_options_differ_on_one_win_and_two_ties() -> None:
    # Same top as A, same middle pair of 9s with the same kickers? Use a board that
    # ties A on top and middle and loses the bottom.
    tie = board("Kh 7s 2d / 9h 9s 4c 5c 6h / Tc Td 2c 2s 8d")
    more_rows = score_hand([A, tie], TWO_FOUR)
    two_rows = score_hand([A, tie], TWO_FOUR.with_options(majority_bonus=MajorityBonus.TWO_ROWS))
    assert more_rows.net == (2, -2)  # 1 row + 1 for winning more rows
    assert two_rows.net == (1, -1)  # 1 row; one win is not two of three


def test_fouled_board_loses_scoop_and_pays_royalties() -> None:
    # FLUSH_BOTTOM is live with a 4-point bottom flush: 6 for the scoop + 4.
    result = score_hand([FOULED, FLUSH_BOTTOM], PINEAPPLE)
    assert result.boards[0].fouled and not result.boards[1].fouled
    assert result.boards[0].royalties.total == 0  # QQ on top earns nothing when fouled
    assert result.net == (-10, 10)
    # classic scoring: 3 rows × 2 = 6, plus the classic bottom flush (4).
    assert score_hand([FOULED, FLUSH_BOTTOM], CLASSIC).net == (-10, 10)
    # rows-only foul policy: no scoop bonus, 3 + 4.
    rows_only = PINEAPPLE.with_options(foul_policy="rows-only")
    assert score_hand([FOULED, FLUSH_BOTTOM], rows_only).net == (-7, 7)


def test_two_fouled_boards_score_zero_against_each_other() -> None:
    other_foul = board("As Ah 2d / Kc 8s 3c 4d 5s / 6h 7h 8d Ac Ad")  # AA over K-high
    three = board("Jh Tc 6s / 9c 9s 4h 5h 6c / Jc Jd 3h 3s 8c")
    result = score_hand([FOULED, other_foul, three], PINEAPPLE)
    assert result.boards[0].fouled and result.boards[1].fouled
    assert result.points[0][1] == 0 and result.points[1][0] == 0
    assert result.points[2][0] == 6 and result.points[2][1] == 6
    assert result.net == (-6, -6, 12)


def test_royalties_paid_win_or_lose_and_settled_as_difference() -> None:
    # A (no royalties) against a middle flush (8) and a bottom full house (6):
    # A wins the top (K > J) and loses middle and bottom: rows -1, royalties -14.
    flushy = board("Js 5h 3c / 2d 4d 6d Td Qd / Ac Ad As 7c 7s")
    result = score_hand([A, flushy], PINEAPPLE)
    assert result.boards[1].royalties == type(result.boards[1].royalties)(0, 8, 6)
    assert result.net == (-1 - 14, 1 + 14)


AMERICAN_CASES = [
    ("6s 6h 2c", "top", 1),
    ("Ts Th 2c", "top", 5),
    ("Qs Qh 2c", "top", 7),
    ("As Ah 2c", "top", 9),
    ("2s 2h 2c", "top", 10),
    ("As Ah Ac", "top", 22),
    ("5s 5h 2c", "top", 0),
]


@pytest.mark.parametrize(("top", "row", "points"), AMERICAN_CASES)
def test_top_royalties(top: str, row: str, points: int) -> None:
    strong = board(f"{top} / {STRONG_MIDDLE_BOTTOM}")
    result = score_board(strong, PINEAPPLE)
    assert not result.fouled  # even AAA stays under a full-house middle
    assert result.royalties.top == points


@pytest.mark.parametrize(
    ("middle", "bottom", "american", "classic"),
    [
        # (middle, bottom): (mid, bottom) royalties under american and classic tables
        ("7d 7c 7h Kd 2d", "Ah Kh Qh Jh Th", (2, 25), (2, 15)),  # trips / royal
        ("3d 4c 5h 6d 7s", "9h Th Jh Qh Kh", (4, 15), (4, 10)),  # straight / SF
        ("2d 5d 9d Jd Kd", "Ac As Ad Ah 3c", (8, 10), (8, 8)),  # flush / quads
        ("7d 7c 7h Kd Ks", "Jc Js Jd 4h 4c", (12, 6), (12, 6)),  # full house / FH
        ("9d 9c 9h 9s 2d", "Td Tc Th Ts 4c", (20, 10), (16, 8)),  # quads / quads
        ("4s 5s 6s 7s 8s", "9c Tc Jc Qc Kc", (30, 15), (20, 10)),  # SF / SF
        ("Td Jd Qd Kd Ad", "Tc Jc Qc Kc Ac", (50, 25), (30, 15)),  # royal / royal
        ("2d 4c 5h 6d 8s", "Ac Ad 2h 3h 9h", (0, 0), (0, 0)),  # high card / pair
        ("2d 2c 5h 5d 8s", "4c 5c 6h 7h 3s", (0, 2), (0, 2)),  # two pair / straight
        ("2d 2c 2h 5d 8s", "Ac 2s 3c 4d 5s", (2, 2), (2, 2)),  # trips / wheel straight
    ],
)
def test_middle_and_bottom_royalty_tables(
    middle: str, bottom: str, american: tuple[int, int], classic: tuple[int, int]
) -> None:
    b = board(f"{_spare_top(middle, bottom)} / {middle} / {bottom}")
    for ruleset, expected in ((PINEAPPLE, american), (CLASSIC, classic)):
        result = score_board(b, ruleset)
        assert not result.fouled, str(b)
        assert (result.royalties.middle, result.royalties.bottom) == expected


def _spare_top(middle: str, bottom: str) -> str:
    """A 3-card high-card top that uses none of the other rows' cards."""
    used = set((middle + " " + bottom).split())
    pool = ["2s", "3s", "4d", "6h", "7s", "8d", "9s", "2h", "3h", "4s"]
    spare = [c for c in pool if c not in used]
    ranks = []
    top = []
    for card in spare:
        if card[0] not in ranks:
            ranks.append(card[0])
            top.append(card)
        if len(top) == 3:
            break
    return " ".join(top)


@pytest.mark.parametrize(
    ("ruleset", "top", "cards"),
    [
        ("pineapple", "Qs Qh 2c", 14),
        ("pineapple", "As Ah 2c", 14),
        ("classic", "Qs Qh 2c", 13),
        ("turbo", "Ks Kh 2c", 13),
        ("pineapple-progressive", "Qs Qh 2c", 14),
        ("pineapple-progressive", "Ks Kh 2c", 15),
        ("pineapple-progressive", "As Ah 2c", 16),
        ("pineapple-progressive", "2s 2h 2c", 17),
        ("pineapple-ultimate", "As Ah 2c", 16),
        ("pineapple-tournament", "Qs Qh 2c", 13),
        ("pineapple-tournament", "As Ah 2c", 15),
        ("pineapple-tournament", "3s 3h 3c", 16),
        ("pineapple", "Js Jh Ac", None),  # JJ does not qualify
    ],
)
def test_fantasyland_entry_cards(ruleset: str, top: str, cards: int | None) -> None:
    b = board(f"{top} / {STRONG_MIDDLE_BOTTOM}")
    outcome = score_board(b, get_ruleset(ruleset)).fantasyland
    assert outcome.qualifies is (cards is not None)
    assert outcome.cards == cards
    assert not outcome.stays


def test_fouled_queens_do_not_enter_fantasyland() -> None:
    outcome = score_board(FOULED, get_ruleset("pineapple-progressive")).fantasyland
    assert not outcome.qualifies and outcome.cards is None


@pytest.mark.parametrize(
    ("ruleset", "text", "stays", "repeat_cards"),
    [
        # trips on top: stays in progressive/unlimited/ultimate, never in tournament/standard
        ("pineapple-progressive", "5s 5h 5c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d", True, 14),
        ("pineapple-unlimited", "5s 5h 5c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d", True, 14),
        ("pineapple-ultimate", "5s 5h 5c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d", True, 16),
        ("pineapple-tournament", "5s 5h 5c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d", False, None),
        ("pineapple", "5s 5h 5c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d", False, None),
        # quads on the bottom alone is enough (any of the two)
        ("pineapple-progressive", "As Ah 2c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d", True, 14),
        # a full house in the middle alone is not
        ("pineapple-progressive", "As Ad 2c / 7d 7c 7h Kd Ks / Qh Qc Qd 3h 3s", False, None),
        # a straight flush bottom is "quads or better"
        ("pineapple-progressive", "2s 3h 4c / 7d 7c 7h Kd Ks / 9h Th Jh Qh Kh", True, 14),
    ],
)
def test_fantasyland_repeat(ruleset: str, text: str, stays: bool, repeat_cards: int | None) -> None:
    outcome = score_board(board(text), get_ruleset(ruleset), True, 16).fantasyland
    assert outcome.stays is stays
    assert outcome.repeat_cards == repeat_cards
    assert not outcome.qualifies  # a Fantasyland hand never "enters" again


def test_ultimate_repeat_count_unknown_without_the_played_count() -> None:
    b = board("5s 5h 5c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d")
    outcome = score_board(b, get_ruleset("pineapple-ultimate"), True, None).fantasyland
    assert outcome.stays and outcome.repeat_cards is None


def test_strict_repeat_rule_needs_all_three_rows() -> None:
    from ofc_stats.engine.rules import STRICT_REPEAT, fantasy_preset

    fantasy = fantasy_preset("progressive", PINEAPPLE.variant)
    strict = PINEAPPLE.with_options(
        fantasy=type(fantasy)(fantasy.mode, fantasy.entry_cards, STRICT_REPEAT, 14)
    )
    trips_top_only = board("5s 5h 5c / 7d 7c 7h Kd 2s / 8h 8c 8d 8s 3d")  # middle only trips
    all_three = board("5s 5h 5c / 7d 7c 7h Kd Ks / 8h 8c 8d 8s 3d")
    assert not score_board(trips_top_only, strict, True).fantasyland.stays
    assert score_board(all_three, strict, True).fantasyland.stays


def test_settlement_order_with_short_stacks() -> None:
    # p[0][1] = 10, p[0][2] = -15, p[1][2] = -12; stacks 5, 20, 3 (seat 2 = button).
    points = [[0, 10, -15], [-10, 0, -12], [15, 12, 0]]
    # (0,1): 1 pays 10 of 20 -> stacks 15,10,3.  (0,2): 0 pays all 15 -> 0,10,18.
    # (1,2): 1 owes 12, has 10 -> 0,0,28.
    assert settle(PINEAPPLE, points, [5, 20, 3]) == (-5.0, -20.0, 25.0)
    # without stacks the caps do nothing
    assert settle(PINEAPPLE, points, None) == (-5.0, -22.0, 27.0)
    # the same points with stack_cap off ignore the stacks
    assert settle(PINEAPPLE.with_options(stack_cap=False), points, [5, 20, 3]) == (
        -5.0,
        -22.0,
        27.0,
    )


def test_max_loss_per_hand() -> None:
    points = [[0, 10, -15], [-10, 0, -12], [15, 12, 0]]
    capped = PINEAPPLE.with_options(max_loss=8)
    # (0,1): 1 pays 8 (its limit).  (0,2): 0 has +8, may lose 16 more: pays 15.
    # (1,2): 1 is at -8 already: pays 0.
    assert settle(capped, points, None) == (-7.0, -8.0, 15.0)


def test_cap_limits_what_a_winner_collects() -> None:
    result = score_hand([FOULED, FLUSH_BOTTOM], PINEAPPLE, stacks=[6, 100])
    assert result.net == (-10, 10)
    assert result.net_capped == (-6.0, 6.0)


def test_hand_validation() -> None:
    with pytest.raises(HandError, match="seats"):
        score_hand([A], PINEAPPLE)
    with pytest.raises(HandError, match="seat 0 and seat 1"):
        score_hand([A, A], PINEAPPLE)
    c = board("Jh 8s 4d / 2h 2c 6h 7d 9h / Qc Qd 5c 5h Ah")
    d = board("Th 9d 3s / Ac 4c 6s 7c 9s / Ks Kh 6d 3d Qh")
    with pytest.raises(HandError, match="2 to 3"):
        score_hand([A, B, c, d], PINEAPPLE)  # Pineapple seats at most 3
    with pytest.raises(HandError, match="stacks"):
        score_hand([A, B], PINEAPPLE, stacks=[1])
