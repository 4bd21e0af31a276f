"""Row ranking: exhaustive counts, the shared 3/5-card scale, the definition == the core's classes."""

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from ofc_stats.core.tables import classify_five, classify_three, tables
from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.rank import Category, rank_row
from ofc_stats.errors import BoardError


def keys_five(cards: np.ndarray) -> np.ndarray:
    """The core's key of each 5-card row (its class's key)."""
    return tables().key5[classify_five(cards)]


def keys_three(cards: np.ndarray) -> np.ndarray:
    return tables().key3[classify_three(cards)]


def key(text: str) -> int:
    return rank_row(parse_cards(text)).key


@pytest.fixture(scope="module")
def all_five() -> np.ndarray:
    return np.fromiter(combinations(range(52), 5), dtype=np.dtype((np.int8, 5)))


def test_exhaustive_five_card_counts(all_five: np.ndarray) -> None:
    assert len(all_five) == 2_598_960
    keys = keys_five(all_five)
    categories = Counter((keys // 14**5).tolist())
    assert categories == {
        Category.STRAIGHT_FLUSH: 40,
        Category.FOUR_OF_A_KIND: 624,
        Category.FULL_HOUSE: 3_744,
        Category.FLUSH: 5_108,
        Category.STRAIGHT: 10_200,
        Category.THREE_OF_A_KIND: 54_912,
        Category.TWO_PAIR: 123_552,
        Category.PAIR: 1_098_240,
        Category.HIGH_CARD: 1_302_540,
    }
    assert len(np.unique(keys)) == 7_462
    classes = classify_five(all_five)
    assert classes.min() == 0 and classes.max() == 7_461
    royal_class = classify_five(np.array([parse_cards("Ts Js Qs Ks As")]))[0]
    assert int((classes == royal_class).sum()) == 4


def test_exhaustive_three_card_counts() -> None:
    rows = np.fromiter(combinations(range(52), 3), dtype=np.dtype((np.int8, 3)))
    assert len(rows) == 22_100
    scalar = Counter(rank_row(row.tolist()).category for row in rows)
    assert scalar == {
        Category.THREE_OF_A_KIND: 52,
        Category.PAIR: 3_744,
        Category.HIGH_CARD: 18_304,
    }
    core = keys_three(rows)
    assert core.tolist() == [rank_row(row.tolist()).key for row in rows]
    assert len(np.unique(core)) == 455


def test_the_definition_equals_the_core_on_random_rows() -> None:
    rng = np.random.default_rng(20261129)
    deals = np.argsort(rng.random((100_000, 52)), axis=1)[:, :8]
    five = keys_five(deals[:, :5])
    three = keys_three(deals[:, 5:])
    for row, k in zip(deals[:, :5].tolist(), five.tolist(), strict=True):
        assert rank_row(row).key == k
    for row, k in zip(deals[:, 5:].tolist(), three.tolist(), strict=True):
        assert rank_row(row).key == k


def test_classes_are_dense_and_ascending() -> None:
    t = tables()
    assert np.all(np.diff(t.key5) > 0) and np.all(np.diff(t.key3) > 0)
    assert len(t.rank5) == 7_462 and len(t.rank3) == 455
    assert [r.key for r in t.rank5] == t.key5.tolist()


def test_wheel_is_the_lowest_straight() -> None:
    wheel = key("Ah 2c 3d 4s 5h")
    assert rank_row(parse_cards("Ah 2c 3d 4s 5h")).ranks == (3,)  # five-high
    assert wheel < key("2c 3d 4s 5h 6h")
    assert wheel > key("Ah Ad Ac Kd Qs")  # still beats any trips
    assert key("Ah 2h 3h 4h 5h") < key("2h 3h 4h 5h 6h")  # steel wheel lowest SF
    assert rank_row(parse_cards("Qh Kh Ah 2h 3h")).category == Category.FLUSH  # no wrap


@pytest.mark.parametrize(
    ("top", "middle", "top_is_higher"),
    [
        ("Qs Qh 5d", "Qc Qd 4s 3h 2c", True),  # RULES.md §3: foul
        ("Qs Qh 4d", "Qc Qd 4s 3h 2c", False),  # all top cards tie: equal, no foul
        ("As Kh Qd", "Ac Kd Qs 3h 2c", False),  # AKQ vs AKQ32: equal
        ("As Kh Qd", "Ac Kd Js 3h 2c", True),  # third card decides
        ("Ks Kh Kd", "Qc Qd Qs 3h 2c", True),  # top trips over lower middle trips
        ("2s 2h 2d", "3c 3d 3s 4h 5c", False),
        ("Ks Kh Kd", "2c 2d 3s 3h 4c", True),  # trips beat two pair
        ("As Ah Kd", "Ac Ad Ks Qh Jc", False),
        ("As Ah Kd", "Ac Ad Qs Jh Tc", True),
    ],
)
def test_top_against_middle_on_one_scale(top: str, middle: str, top_is_higher: bool) -> None:
    assert (key(top) > key(middle)) is top_is_higher


def test_rank_row_rejects_bad_rows() -> None:
    with pytest.raises(BoardError):
        rank_row(parse_cards("As Kd"))
    with pytest.raises(BoardError):
        rank_row(parse_cards("As As Kd"))
    with pytest.raises(BoardError):
        rank_row(parse_cards("X1 As Kd"))


def test_three_card_classes_in_the_core() -> None:
    rows = np.array([parse_cards("2c 2d 2h"), parse_cards("Ac Kd Qh"), parse_cards("As Ad 2c")])
    classes = classify_three(rows)
    assert classes[0] > classes[2] > classes[1]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Qs Qh 5d", "pair of Qs"),
        ("7s 7h 7d", "three 7s"),
        ("Ah 2c 3d 4s 5h", "straight 5-high"),
        ("Th Jh Qh Kh Ah", "royal flush"),
        ("9c 9d 9h 4s 4c", "full house 9s over 4s"),
        ("2c 7d 9h Js Kc", "K-high"),
    ],
)
def test_rows_describe_themselves_for_people(text: str, name: str) -> None:
    assert rank_row(parse_cards(text)).describe() == name


def test_top_limit_table_equals_key_comparison_for_every_pair() -> None:
    t = tables()
    tops = np.arange(len(t.key3))[:, None]
    middles = np.arange(len(t.key5))[None, :]
    by_table = tops > t.top_limit[middles]
    by_keys = t.key3[tops] > t.key5[middles]
    assert np.array_equal(by_table, by_keys)
