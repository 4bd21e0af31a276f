"""Jokers (joker54): the whole board read at once, hand-computed cases."""

from ofc_stats.engine.board import Board
from ofc_stats.engine.cards import format_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rank import Category
from ofc_stats.engine.scoring import score_board, score_hand

JOKER = get_ruleset("joker-pineapple")


def board(text: str) -> Board:
    top, middle, bottom = (part.strip() for part in text.split("/"))
    return Board.parse(top, middle, bottom)


def test_joker_never_copies_a_card_on_the_board() -> None:
    # The royal needs Ts, which sits on the top row; no straight flush is left,
    # so the joker makes the best flush: A-K-Q-J-9 of spades (4 on the bottom).
    result = score_board(board("Ts 2c 3d / 4c 4d 5h 6s 8c / As Ks Qs Js X1"), JOKER)
    assert format_cards(result.board.bottom) == "As Ks Qs Js 9s"
    assert result.ranks[2].category == Category.FLUSH
    assert result.royalties.bottom == 4


def test_joker_completes_a_royal_when_it_can() -> None:
    result = score_board(board("2c 3d 4h / 5c 5d 6h 7s 9c / As Ks Qs Js X1"), JOKER)
    assert format_cards(result.board.bottom) == "As Ks Qs Js Ts"
    assert result.royalties.bottom == 25


def test_joker_avoids_the_foul_before_chasing_royalties() -> None:
    # An ace on top would make AA (9) but AA over a middle pair of kings fouls.
    # The best unfouled reading is a king: KK2 (8 points) under KK754.
    result = score_board(board("X1 Kd 2c / Kc Kh 4d 5s 7c / As Ad Ac 8h 8d"), JOKER)
    assert not result.fouled
    assert result.ranks[0].top_pattern == "KK"
    assert result.royalties.top == 8 and result.royalties.bottom == 6
    assert result.fantasyland.qualifies and result.fantasyland.cards == 15  # KK: 15


def test_two_jokers_take_the_strongest_unfouled_rows() -> None:
    # Any pair above deuces on top fouls the middle pair of deuces, so every
    # legal reading pays nothing on top; the tie-break then wants the strongest
    # top that stays under 22-9-8-7: the pair of deuces, kicker 5.
    result = score_board(board("X1 X2 5c / 2c 2d 7h 8s 9c / Tc Jd Qh Kd Ac"), JOKER)
    assert not result.fouled
    top = result.ranks[0]
    assert top.category == Category.PAIR and top.ranks == (0, 3)
    assert result.royalties.total == 2  # the broadway bottom straight


def test_two_jokers_in_different_rows_never_stand_for_the_same_card() -> None:
    # Both jokers want the A of hearts alone: the top one for AA (9 points), the
    # bottom one for the royal flush (25).  The top one takes another ace.
    result = score_board(board("X1 Ac 2d / 3c 3d 3h 8s 8c / Kh Qh Jh Th X2"), JOKER)
    cards = result.board.cards
    assert len(set(cards)) == 13
    assert format_cards(result.board.bottom) == "Kh Qh Jh Th Ah"
    assert result.royalties.top == 9 and result.royalties.bottom == 25


def test_joker_boards_score_against_each_other() -> None:
    a = board("X1 Kd 2c / Kc Kh 4d 5s 7c / As Ad Ac 8h 8d")
    b = board("3c 4c 6d / 9c 9d Th Js 2s / 5c 5d 5h Qc X2")
    result = score_hand([a, b], JOKER)
    assert sum(result.net) == 0
    # b's joker makes 5-5-5-5 (quads, 10) or a full house; quads is more.
    assert result.boards[1].royalties.bottom == 10
