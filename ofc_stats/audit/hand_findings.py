"""What the audit finds in one hand, for `ofc-stats hand`: read from what is stored.

The whole audit (``ofc-stats audit``) judges every hand, and some of its
judgements need the whole room (is its points field this hand's points at
all, what rake does it take).  One hand is shown from what is stored, under
each hand's own ruleset; only a points difference has the hand scored again
(under the rule changes the audit tries, to name its cause):

* **points**: the audit's points check on this hand alone (:func:`.points.hand_points`):
  each seat whose reported points differ from the recomputed ones, under the
  class of the rule change that explains it (points, caps, royalties, foul); a room
  whose points field the audit would not read as points (:mod:`.fields`'
  verdict, from the room's agreement, zero-sum hands and correlation) is said
  so once instead;
* **money**: each seat the room paid otherwise than the rules, from the stored
  ledger (``ledger``, priced by ``ofc-stats recompute``, so by every import, batch by
  batch); the hand's batch's ledger file priced before its results changed (or
  missing) is not read, and the line says so;
* **Fantasyland**: whether this hand was dealt Fantasyland as the previous hand
  at the table earned (the ``fantasy`` view, as the audit's Fantasyland check);
* **timeouts**: the streets the hand's text records as timed out
  (``recorded_timeouts``), each checked against the auto-placement rule.

The lines hold players' names: the caller shows them through ``terminal_safe``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ofc_stats.audit.explain import fantasy_text
from ofc_stats.audit.fields import EPS, FieldVerdict
from ofc_stats.audit.ledger import hand_ledger_is_current
from ofc_stats.audit.points import hand_points
from ofc_stats.store.views import LEDGER_TOLERANCE, OfcData

# The room's points field as fields.field_verdicts measures it (agreement, zero-sum hands,
# correlation with the points), over that one room's seats only.
ROOM_FIELD_SQL = f"""
WITH s AS (
  SELECT hand_key, seat_count, reported_points AS field, net_capped,
         sum(reported_points) OVER (PARTITION BY hand_key) AS field_sum,
         count(reported_points) OVER (PARTITION BY hand_key) AS field_seats
  FROM seat_results WHERE status = 'scored' AND room = $room
)
SELECT count(*) AS seat_rows, count(DISTINCT hand_key) AS hands,
       avg((abs(field - net_capped) <= {EPS})::INT) AS agree,
       (SELECT avg((abs(field_sum) <= {EPS})::INT)
          FROM (SELECT DISTINCT hand_key, field_sum FROM s WHERE field_seats = seat_count))
         AS zero_sum,
       corr(field, net_capped) AS corr_points
FROM s WHERE field IS NOT NULL
"""
MONEY_SQL = """
SELECT seat, player, currency, money_paid, money_rules, rules
FROM ledger WHERE hand_key = $k ORDER BY seat
"""
FANTASY_SQL = """
SELECT f.*, h.ruleset, t.description AS top_description
FROM fantasy f JOIN hands h USING (hand_key)
LEFT JOIN seat_results s USING (hand_key, seat)
LEFT JOIN row_classes t ON t.cards = 3 AND t.class = s.top_class
WHERE f.format = $format AND f.room = $room AND f.table_id IS NOT DISTINCT FROM $table
  AND f.next_hand_key = $k AND f.status = 'scored' AND f.next_link = 'next'
  AND f.seconds_to_next <= $gap
ORDER BY f.next_seat
"""
# Whether Fantasyland can be at stake in the hand: a seat of it is in Fantasyland, or a
# hand at its table in the MAX_GAP_MINUTES before it earned or kept Fantasyland.  The
# fantasy view links hands over a whole table's history; when nothing is at stake the
# check cannot find anything, and this scan of one table's recent seats is much cheaper.
AT_STAKE_SQL = """
SELECT coalesce(bool_or(s.in_fantasy AND s.hand_key = $k)
                OR bool_or(earns_fantasy(s.fantasy_entry, s.fantasy_stays) AND s.hand_key <> $k),
                false)
FROM seat_results s, (SELECT format, room, table_id, played_at FROM hands WHERE hand_key = $k) h
WHERE s.format = h.format AND s.room = h.room AND s.table_id IS NOT DISTINCT FROM h.table_id
  AND s.played_at BETWEEN h.played_at - to_seconds($gap) AND h.played_at
"""
TIMEOUTS_SQL = """
SELECT r.seat, s.player, r.street, st.pattern_match
FROM recorded_timeouts r
JOIN seats s USING (hand_key, seat)
LEFT JOIN streets st USING (hand_key, seat, street)
WHERE r.hand_key = $k ORDER BY r.seat, r.street
"""
MAX_GAP_MINUTES = 15.0  # the audit's default: a later hand is the next one within this


@dataclass(frozen=True)
class Finding:
    check: str  # the audit's class (points, caps, royalties, foul), money, Fantasyland, timeout
    seat: int | None  # None: about the hand or its room
    player: str
    text: str

    def line(self) -> str:
        who = f"seat {self.seat} ({self.player}): " if self.seat is not None else ""
        return f"{self.check}: {who}{self.text}"


def hand_findings(data: OfcData, hand_key: str) -> list[Finding]:
    """The audit's findings for one stored hand, each check in turn (empty: none)."""
    found = _points(data, hand_key)
    found += _money(data, hand_key)
    found += _fantasy(data, hand_key)
    found += _timeouts(data, hand_key)
    return found


def _points(data: OfcData, key: str) -> list[Finding]:
    rows = hand_points(data, key)  # the audit's own check: its causes and words
    if rows.empty:
        return []
    room = str(rows["room"].iloc[0])
    verdict = _room_field(data, room)
    if verdict is not None and not verdict.measures:
        return [
            Finding(
                "points",
                None,
                "",
                f"the room's points differ from the rules on {len(rows)} seat(s), but "
                f"{room}'s `result` field is not this hand's points (it agrees on "
                f"{verdict.agree:.1%} of its seats): the audit leaves it out",
            )
        ]
    return [
        Finding(str(row["class"]), int(row["seat"]), str(row["player"]), str(row["explanation"]))
        for row in rows.to_dict("records")
    ]


def _room_field(data: OfcData, room: str) -> FieldVerdict | None:
    """The room's points-field verdict from its agreement, zero-sum hands and correlation."""
    row = data.df(ROOM_FIELD_SQL, {"room": room}).iloc[0]
    if not row["seat_rows"]:
        return None

    def number(value: Any) -> float:
        return math.nan if value is None or value != value else float(value)

    return FieldVerdict(
        room=room,
        field="reported_points",
        name="result",
        rows=int(row["seat_rows"]),
        hands=int(row["hands"]),
        agree=number(row["agree"]),
        zero_sum=number(row["zero_sum"]),
        corr_points=number(row["corr_points"]),
        corr_money=math.nan,
        tried={},
        change_is_points=0.0,
    )


def _money(data: OfcData, key: str) -> list[Finding]:
    paid = data.sql(
        "SELECT count(*) FROM seats WHERE hand_key = $k AND reported_money IS NOT NULL", {"k": key}
    )
    if not paid.fetchall()[0][0]:
        return []
    hand_id = data.sql("SELECT hand_id FROM hands WHERE hand_key = $k", {"k": key}).fetchall()
    if not hand_id or not hand_ledger_is_current(data, int(hand_id[0][0])):
        text = (
            "not checked here: the ledger was not priced for the stored hands "
            "(`ofc-stats recompute` prices it, as every import does)"
        )
        return [Finding("money", None, "", text)]
    out = []
    for seat in data.df(MONEY_SQL, {"k": key}).to_dict("records"):
        rules = seat["money_rules"]
        if rules is None or rules != rules:
            continue
        difference = float(seat["money_paid"]) - float(rules)
        if abs(difference) <= LEDGER_TOLERANCE:
            continue
        unit = f" {seat['currency']}" if seat["currency"] else ""
        text = (
            f"the room paid {float(seat['money_paid']):+g}{unit}, the rules give "
            f"{float(rules):+g}{unit} ({seat['rules']})"
        )
        out.append(Finding("money", int(seat["seat"]), str(seat["player"]), text))
    return out


def _fantasy(data: OfcData, key: str) -> list[Finding]:
    where = data.sql("SELECT format, room, table_id FROM hands WHERE hand_key = $k", {"k": key})
    rows = where.fetchall()
    if not rows:
        return []
    fmt, room, table = rows[0]
    at_stake = data.sql(AT_STAKE_SQL, {"k": key, "gap": MAX_GAP_MINUTES * 60}).fetchall()
    if not at_stake[0][0]:
        return []
    params = {"k": key, "format": fmt, "room": room, "table": table, "gap": MAX_GAP_MINUTES * 60}
    out = []
    for row in data.df(FANTASY_SQL, params).to_dict("records"):
        rules_fl, room_fl = bool(row["rules_fantasy"]), bool(row["room_fantasy"])
        cards = _cards(row["room_cards"]), _cards(row["rules_cards"])
        kind = ""
        if rules_fl != room_fl:
            kind = "repeat" if bool(row["in_fantasy"]) else "fantasy_entry"
        elif rules_fl and None not in cards and cards[0] != cards[1]:
            kind = "fantasy_cards"
        if kind:
            text = fantasy_text(kind, row)
            out.append(Finding("Fantasyland", int(row["next_seat"]), str(row["player"]), text))
    return out


def _cards(value: Any) -> int | None:
    return None if value is None or value != value else int(value)


def _timeouts(data: OfcData, key: str) -> list[Finding]:
    out = []
    for row in data.df(TIMEOUTS_SQL, {"k": key}).to_dict("records"):
        rule = row["pattern_match"]
        if rule is None or rule != rule:  # no placements stored for that street
            how = "its placement is not stored"
        elif bool(rule):
            how = "placed as the auto-placement rule says"
        else:
            how = "not placed as the auto-placement rule says"
        text = f"street {int(row['street']) + 1} recorded as timed out; {how}"
        out.append(Finding("timeout", int(row["seat"]), str(row["player"]), text))
    return out
