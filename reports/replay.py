"""One hand as people look at it: every seat street by street, final boards, points.

:func:`hand_details` reads a few hands by key (the report's named hands, or
``ofc-stats hand KEY``) into plain JSON-ready dicts: cards as text ("Qs"),
seats as stored (from 0, as every table and CSV counts them), streets numbered
from 1, the engine's numbers beside the room's.  Street placements come from
each seat's board streets and discards, and only the batch files holding the
hands are read (:meth:`OfcData.pick_hands`); an unfinished board (no board
streets) takes its streets from those batches' placements, as the room recorded
them, and a seat whose streets are unknown shows its final board only.  Where the hand
was graded (``ofc-stats grade``) each street carries its ``grade``: what was
played, the best play, the expected loss and the values of a few candidates (the
:data:`TOP_CANDIDATES` best by expected value, and the play made and the best play
where they are not among them; ``top=EVERY_CANDIDATE``, as ``ofc-stats hand`` asks,
every candidate the rollouts valued).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ofc_stats.engine.cards import format_card
from ofc_stats.errors import UnknownHand
from ofc_stats.store.views import OfcData

ROWS = ("top", "middle", "bottom")
ROW_SLICES = {"top": slice(0, 3), "middle": slice(3, 8), "bottom": slice(8, 13)}

HANDS_SQL = """
SELECT hand_key, format, room, table_id, room_hand_id, played_at, ruleset, seat_count, stakes,
       currency
FROM picked_hands WHERE hand_key IN (SELECT unnest($keys))
"""

SEATS_SQL = """
SELECT s.hand_key, s.hand_id, s.seat, s.player, coalesce(s.player_id, s.player) AS account, s.hero,
       s.in_fantasy, s.fantasy_cards, s.top, s.middle, s.bottom, s.board_streets, s.discards,
       s.reported_points, s.reported_money, r.status, r.fouled, r.royalty_top,
       r.royalty_middle, r.royalty_bottom, r.royalties, r.net, r.net_capped, r.fantasy_entry,
       r.fantasy_stays, t.description AS top_name, m.description AS middle_name,
       b.description AS bottom_name
FROM picked_seats s LEFT JOIN picked_results r USING (hand_key, seat)
LEFT JOIN row_classes t ON t.cards = 3 AND t.class = r.top_class
LEFT JOIN row_classes m ON m.cards = 5 AND m.class = r.middle_class
LEFT JOIN row_classes b ON b.cards = 5 AND b.class = r.bottom_class
WHERE s.hand_key IN (SELECT unnest($keys))
ORDER BY s.hand_key, s.seat
"""

GRADES_SQL = """
SELECT hand_key, seat, street, kind, status, chosen_play, best_play, loss, loss_se
FROM grades WHERE hand_key IN (SELECT unnest($keys))
"""

TOP_CANDIDATES = 3  # candidates a graded street carries besides the play made and the best
EVERY_CANDIDATE = 1 << 20  # more than any street has: every candidate the rollouts valued

# A candidate's value as measured: the best's minus its signed gap (grader version 7 on),
# so a play the rollouts put above the best within their noise shows above it, as the
# regret report's close calls show it; `ev` itself is capped at the best's (the loss).
CANDIDATES_SQL = """
SELECT hand_key, seat, street, play, value, se, chosen, best, value > best_value + 1e-9 FROM (
    SELECT *, row_number() OVER (PARTITION BY hand_key, seat, street
                                 ORDER BY value DESC NULLS LAST, candidate) AS rank
    FROM (
        SELECT hand_key, seat, street, candidate, play, se, chosen, best,
               coalesce(best_value - gap, ev) AS value, best_value
        FROM (
            SELECT *, max(ev) FILTER (WHERE best)
                          OVER (PARTITION BY hand_key, seat, street) AS best_value
            FROM grade_candidates WHERE hand_key IN (SELECT unnest($keys))
        )
    )
) WHERE (rank <= $top AND value IS NOT NULL) OR chosen OR best
ORDER BY hand_key, seat, street, rank
"""

VERSUS_SQL = """
SELECT hand_key, seat, opponent, points FROM picked_versus
WHERE hand_key IN (SELECT unnest($keys))
"""


def cards_text(cards: Sequence[int] | None) -> list[str]:
    return [format_card(int(c)) for c in cards or () if c is not None and c >= 0]


def streets_of(seat: dict[str, Any]) -> list[dict[str, Any]]:
    """The seat's streets (1-based) with the cards each put in each row and discarded."""
    rows = {row: list(seat[row] or ()) for row in ROWS}
    board = rows["top"] + rows["middle"] + rows["bottom"]
    raw = seat["board_streets"]
    discards = [int(c) for c in seat["discards"] or () if c is not None]
    if raw is None or len(board) != 13 or any(b == 255 for b in raw):
        return []
    street_of = np.frombuffer(bytes(raw), dtype=np.uint8)
    count = int(street_of.max()) + 1
    out = []
    for street in range(count):
        placed = {
            row: cards_text(
                [
                    c
                    for c, s in zip(rows[row], street_of[ROW_SLICES[row]], strict=True)
                    if s == street
                ]
            )
            for row in ROWS
        }
        if len(discards) == count - 1 and street >= 1:
            dropped = cards_text([discards[street - 1]])
        elif len(discards) != count - 1 and street == count - 1:
            dropped = cards_text(discards)  # Fantasyland: every discard at the one street
        else:
            dropped = []
        out.append({"street": street + 1, **placed, "discards": dropped})
    return out


PLACED_SQL = """
SELECT hand_id, seat, street, card, destination::VARCHAR FROM {source}
WHERE hand_id IN (SELECT unnest($ids)) ORDER BY hand_id, seat, street
"""


def placed_streets(
    data: OfcData, seats: Sequence[tuple[int, int]]
) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """The streets of seats whose board holds none (an unfinished board: the room
    recorded its streets card by card, in ``placements``), by (hand_id, seat)."""
    ids = sorted({hand_id for hand_id, _ in seats})
    if not ids:
        return {}
    wanted = set(seats)
    source = data.batch_source("placements", [(i, i) for i in ids])
    out: dict[tuple[int, int], dict[int, dict[str, list[int]]]] = {}
    for hand_id, seat, street, card, destination in data.sql(
        PLACED_SQL.format(source=source), {"ids": ids}
    ).fetchall():
        if (hand_id, seat) not in wanted:
            continue
        streets = out.setdefault((hand_id, seat), {})
        rows = streets.setdefault(int(street), {row: [] for row in (*ROWS, "discards")})
        rows["discards" if destination == "discard" else destination].append(int(card))
    return {
        key: [
            {"street": street + 1, **{row: cards_text(cards) for row, cards in rows.items()}}
            for street, rows in sorted(streets.items())
        ]
        for key, streets in out.items()
    }


def _number(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if number != number else number


def _rounded(value: object) -> float | None:
    """A candidate's value to the 2 decimals the page and `ofc-stats hand` show: rounded
    once, here (to 3 and then by the page's toFixed(2), 14.27481 showed 14.28 on the page
    and 14.27 in `hand`), and each digit is page weight.

    >>> _rounded(14.27481), _rounded(-0.004), _rounded(None)
    (14.27, 0.0, None)
    """
    number = _number(value)
    return None if number is None else round(number, 2) + 0.0  # no -0.0


def hand_details(
    data: OfcData, keys: Sequence[str], ids: Sequence[int] = (), top: int = TOP_CANDIDATES
) -> dict[str, dict[str, Any]]:
    """hand_key -> the hand as a JSON-ready dict (see the module doc).

    ``ids``, the same hands' ``hand_id`` when the caller has them, spare a
    scan of every stored key to find the files that hold them; ``top``: how many of a
    graded street's candidates it carries besides the play made and the best (a page of
    many hands carries a few, one hand every valued one).
    """
    wanted = {"keys": list(dict.fromkeys(keys))}
    if not wanted["keys"]:
        return {}
    if ids:
        data.pick_hands(ids=ids)
    else:
        data.pick_hands(wanted["keys"])
    hands: dict[str, dict[str, Any]] = {}
    relation = data.sql(HANDS_SQL, wanted)
    for values in relation.fetchall():
        row = dict(zip(relation.columns, values, strict=True))
        played = row["played_at"]
        hands[row["hand_key"]] = {
            "key": row["hand_key"],
            "room": row["room"],
            "table": row["table_id"],
            "room_hand_id": row["room_hand_id"],
            "played_at": None if played is None else str(played)[:19],
            "ruleset": row["ruleset"],
            "stakes": _number(row["stakes"]),
            "currency": row["currency"] or None,
            "seats": [],
        }
    versus: dict[tuple[str, int], dict[int, float]] = {}
    for key, seat, opponent, points in data.sql(VERSUS_SQL, wanted).fetchall():
        versus.setdefault((key, int(seat)), {})[int(opponent)] = float(points)
    graded: dict[tuple[str, int, int], dict[str, Any]] = {}
    for key, seat_no, street, kind, status, chosen, best, loss, se in data.sql(
        GRADES_SQL, wanted
    ).fetchall():
        graded[(key, int(seat_no), int(street))] = {
            "kind": kind,
            "status": status,
            "played": chosen,
            "best": best,
            "loss": _number(loss),
            "loss_se": _number(se),
            "candidates": [],
        }
    for key, seat_no, street, play, ev, se, chosen, best, above in data.sql(
        CANDIDATES_SQL, {**wanted, "top": top}
    ).fetchall():
        grade = graded.get((key, int(seat_no), int(street)))
        if grade is not None:  # the values of the plays as measured, highest first
            grade["candidates"].append(
                {
                    "play": play,
                    "ev": _rounded(ev),
                    "se": _rounded(se),
                    "chosen": bool(chosen),
                    "best": bool(best),
                    # measured above the best play within the noise: a close call, not a loss
                    "above_best": bool(above),
                }
            )
    relation = data.sql(SEATS_SQL, wanted)
    columns = relation.columns
    seat_rows = [dict(zip(columns, values, strict=True)) for values in relation.fetchall()]
    streets = {(int(s["hand_id"]), int(s["seat"])): streets_of(s) for s in seat_rows}
    unfinished = [k for k, found in streets.items() if not found]
    streets |= placed_streets(data, unfinished)
    for seat in seat_rows:
        hand = hands.get(seat["hand_key"])
        if hand is None:
            continue
        number = int(seat["seat"])
        key = seat["hand_key"]
        opponents = versus.get((key, number), {})
        hand["seats"].append(
            {
                "seat": number,  # the stored seat, as every table, view and CSV counts it
                "player": seat["player"],
                "account": seat["account"],
                "hero": bool(seat["hero"]),
                "in_fantasy": bool(seat["in_fantasy"]),
                "fantasy_cards": seat["fantasy_cards"],
                "rows": {row: cards_text(seat[row]) for row in ROWS},
                "names": {row: seat[f"{row}_name"] for row in ROWS},
                "streets": [
                    {
                        **street,
                        "grade": graded.get((seat["hand_key"], number, street["street"] - 1)),
                    }
                    for street in streets[(int(seat["hand_id"]), number)]
                ],
                "discards": cards_text(seat["discards"]),
                "status": seat["status"],
                "fouled": seat["fouled"],
                "royalties": {
                    "top": seat["royalty_top"],
                    "middle": seat["royalty_middle"],
                    "bottom": seat["royalty_bottom"],
                    "total": seat["royalties"],
                },
                "net": seat["net"],
                "net_capped": _number(seat["net_capped"]),
                "reported_points": _number(seat["reported_points"]),
                "reported_money": _number(seat["reported_money"]),
                "fantasy_entry": seat["fantasy_entry"],
                "fantasy_stays": seat["fantasy_stays"],
                "versus": {str(o): p for o, p in sorted(opponents.items())},
            }
        )
    return hands


def find_hand(data: OfcData, key: str, top: int = TOP_CANDIDATES) -> dict[str, Any]:
    """One hand by its ``hand_key`` or the room's hand id (when that is unique); ``top`` as
    :func:`hand_details` takes it."""
    found = hand_details(data, [key], top=top)
    if key in found:
        return found[key]
    matches = [
        str(r[0])
        for r in data.sql(
            "SELECT hand_key FROM hands WHERE room_hand_id = $k LIMIT 6", {"k": key}
        ).fetchall()
    ]
    if len(matches) == 1:
        return hand_details(data, matches, top=top)[matches[0]]
    if matches:
        raise UnknownHand(
            f"hand id {key!r} is in several rooms; give one hand_key: {', '.join(matches[:5])}"
        )
    raise UnknownHand(f"no hand {key!r} in this dataset (give a hand_key or the room's hand id)")


PACKED_VERSION = 1  # the layout :func:`pack` writes and the page's script reads (unpack)


def pack(hands: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """:func:`hand_details`' hands in the lean layout the report page carries.

    The page's script (``unpack`` in ``assets/report.js``) rebuilds exactly these dicts.
    A hand and a seat are arrays in a fixed order, not objects that repeat their key names;
    every text that repeats (room, table, ruleset, currency, player, account, row names,
    statuses, graded plays) is written once in ``s`` and named by its index; cards (always
    two characters, :func:`format_card`) are one text a row, rows apart by ``|``; streets
    are one text each, ``top|middle|bottom|discards``, and a seat's rows and discards are
    null where they are its streets' cards in street order (nearly always).  On the real
    samples a fifth of the size of the dicts as JSON, and a half once both are gzipped.

    ``{"v": 1, "s": [text, ...], "h": [hand, ...]}`` where a hand is
    ``[key, room, table, room_hand_id, played_at, ruleset, stakes, currency, [seat, ...]]``
    and a seat ``[seat, player, account, hero, in_fantasy, fantasy_cards, rows, names,
    streets, discards, status, fouled, royalties, net, net_capped, reported_points,
    reported_money, fantasy_entry, fantasy_stays, versus, grades]``: hero and in_fantasy
    0 or 1, names the three rows' ``[top, middle, bottom]``, royalties ``[top, middle,
    bottom, total]``, versus ``[opponent, points, ...]`` flat, grades null when no street
    was graded else one per street (null or ``[kind, status, played, best, loss,
    loss_se, candidates]``, candidates ``[play, ev, se, flags, ...]`` flat, flags 1 for
    the play made plus 2 for the best).  Texts from ``s`` are null where the value is.
    """
    texts: dict[str, int] = {}

    def text(value: str | None) -> int | None:
        if value is None:
            return None
        return texts.setdefault(value, len(texts))

    packed = []
    for hand in hands.values():
        seats = []
        for seat in hand["seats"]:
            streets = seat["streets"]
            grades = [street["grade"] for street in streets]
            rows = "|".join(_cards(seat["rows"][row]) for row in ROWS)
            discards = _cards(seat["discards"])
            if streets:  # null: the streets' cards in street order, as nearly always
                placed = "|".join(_cards([c for s in streets for c in s[row]]) for row in ROWS)
                dropped = _cards([c for s in streets for c in s["discards"]])
            seats.append(
                [
                    seat["seat"],
                    text(seat["player"]),
                    text(seat["account"]),
                    int(seat["hero"]),
                    int(seat["in_fantasy"]),
                    seat["fantasy_cards"],
                    None if streets and rows == placed else rows,
                    [text(seat["names"][row]) for row in ROWS],
                    [
                        "|".join(_cards(street[part]) for part in (*ROWS, "discards"))
                        for street in streets
                    ],
                    None if streets and discards == dropped else discards,
                    text(seat["status"]),
                    seat["fouled"],
                    [seat["royalties"][part] for part in (*ROWS, "total")],
                    seat["net"],
                    seat["net_capped"],
                    seat["reported_points"],
                    seat["reported_money"],
                    seat["fantasy_entry"],
                    seat["fantasy_stays"],
                    [n for o, p in seat["versus"].items() for n in (int(o), p)],
                    [_grade(g, text) for g in grades] if any(grades) else None,
                ]
            )
        packed.append(
            [
                hand["key"],
                text(hand["room"]),
                text(hand["table"]),
                hand["room_hand_id"],
                hand["played_at"],
                text(hand["ruleset"]),
                hand["stakes"],
                text(hand["currency"]),
                seats,
            ]
        )
    return {"v": PACKED_VERSION, "s": list(texts), "h": packed}


def _cards(cards: Sequence[str]) -> str:
    joined = "".join(cards)
    if len(joined) != 2 * len(cards):  # format_card writes two characters: never seen
        raise ValueError(f"a card is not two characters: {cards!r}")
    return joined


def _grade(
    grade: dict[str, Any] | None, text: Callable[[str | None], int | None]
) -> list[Any] | None:
    if grade is None:
        return None
    return [
        text(grade["kind"]),
        text(grade["status"]),
        text(grade["played"]),
        text(grade["best"]),
        grade["loss"],
        grade["loss_se"],
        [
            n
            for c in grade.get("candidates") or ()
            for n in (
                text(c["play"]),
                c["ev"],
                c["se"],
                int(c["chosen"]) + 2 * int(c["best"]) + 4 * int(c["above_best"]),
            )
        ],
    ]
