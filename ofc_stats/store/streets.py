"""Street summaries in SQL over the placements table: the ``streets`` view.

Computed when queried.  Its ``timeout`` flag is read from the stored results
(:func:`ofc_stats.core.timeout.timeout_mask` computes it in the core from each
seat's ``board_streets``), so the rule has one implementation.

A *street* row counts where one seat's cards went on one street and how full
each row was before it.  A street is a possible timeout (RULES.md §2) when its
rows got exactly what the room's auto-placement gives: fill the bottom, then
the middle, then the top, with the variant's number of placed cards, on a
street where the rows left a choice (a *forced* street is never flagged).  The
check compares counts, not card order, because most rooms record no order;
discards are ignored because most rooms hide opponents' discards.

A count pattern, or even the deal order, is no evidence of a timeout: a free
choice such as "both cards to the bottom" matches the auto-placement too (on
the simulator's timeout-free hands, 22% of free streets did).  A street is
flagged only where the format records the timeout itself: the open format's
street ``"timeout": true`` (docs/format.md), read from each hand's stored
text once, when the hand is scored (:func:`recorded_bits`, stored per seat as
``results.recorded_timeouts``; the ``recorded_timeouts`` view lists its bits).
``flaggable`` is true for the formats of :data:`TIMEOUT_FORMATS`, and ``timeout`` is a
recorded timeout on a free street; ``pattern_match`` keeps the auto-placement match for base-rate
studies and to check a recorded timeout against the rule
(``ofc_stats.audit.timeouts``).

``forced`` is :func:`ofc_stats.engine.timeout.forced_street` written in SQL (a street
places the plan's cards when it holds the plan's dealt cards, else every card it holds),
held equal to the definition on random placements by ``tests/test_streets_forced.py``.
It is not read from a core-computed column as ``timeout`` is: the view judges every
street in ``placements``, an unfinished board's too, and the core's mask reads
``seats.board_streets``, which an unfinished board lacks.

The rule lives in SQL macros, :data:`TIMEOUT_MACROS`: ``records_deal_order(format)``
(the formats that keep the order cards came in) and ``records_timeouts(format)``;
``flagged_timeouts(format, recorded)``, which reports apply to a seat's
recorded bits (``results.recorded_timeouts``), never to its stored auto-placement
bits (``results.timeout_streets``): those alone never tell a timeout.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.presets import PRESETS
from ofc_stats.engine.rules import Variant
from ofc_stats.store.rulesets import kept_rulesets

# Formats that record the order cards were dealt within a street (docs/format.md): the
# open format and its columnar twin.  The apps' JSON keeps only each card's street, SWC
# captures list rows in id order, fpdb has no deal order: none can tell a timeout.
DEAL_ORDER_FORMATS = ("open", "open-columnar")
# Formats that record a timeout itself: the open format's street "timeout": true.
TIMEOUT_FORMATS = ("open",)
_LISTED = ", ".join(f"'{name}'" for name in DEAL_ORDER_FORMATS)  # our constants, no user text
_TOLD = ", ".join(f"'{name}'" for name in TIMEOUT_FORMATS)
TIMEOUT_MACROS = (
    f"CREATE OR REPLACE MACRO records_deal_order(format) AS coalesce(format IN ({_LISTED}), false)",
    f"CREATE OR REPLACE MACRO records_timeouts(format) AS coalesce(format IN ({_TOLD}), false)",
    "CREATE OR REPLACE MACRO flagged_timeouts(format, recorded) AS "
    "CASE WHEN records_timeouts(format) THEN coalesce(recorded, 0) ELSE 0 END",
)
# Every street the stored results record as timed out, one row each: (hand_key, hand_id,
# seat, street), from each seat's bits (``results.recorded_timeouts``, bit s: street s < 15).
RECORDED_TIMEOUTS_SQL = """
SELECT hand_key, hand_id, seat, street::TINYINT AS street
FROM (SELECT hand_key, hand_id, seat, recorded_timeouts, unnest(range(15)) AS street
      FROM {results} WHERE recorded_timeouts <> 0)
WHERE (recorded_timeouts >> street) & 1 = 1
"""
TIMEOUT_MARK = '"timeout"'  # a hand whose text lacks it records no timeout: not parsed


def recorded_bits(
    formats: pa.ChunkedArray | pa.Array,
    texts: pa.ChunkedArray | pa.Array,
    hand_of_row: npt.NDArray[np.int64],
    seat_of_row: npt.NDArray[np.integer],
) -> npt.NDArray[np.int16]:
    """Per seat row, the streets its hand's text records as timed out (bit s: street s < 15).

    ``formats`` and ``texts`` are the hands' (one row each); ``hand_of_row`` is
    each seat row's hand (a position in them) and ``seat_of_row`` its seat
    number, the index of the seat in the text's ``seats``.  Only hands of a
    format that records timeouts (:data:`TIMEOUT_FORMATS`) whose text names one
    are parsed; a street counts when its ``"timeout"`` is ``true`` itself.  A
    text that is no JSON object records none.
    """
    out = np.zeros(len(hand_of_row), np.int16)
    if not len(formats):
        return out
    told = pc.is_in(formats, value_set=pa.array(TIMEOUT_FORMATS, pa.string()))
    marked = pc.and_(
        pc.fill_null(told, False), pc.fill_null(pc.match_substring(texts, TIMEOUT_MARK), False)
    )
    hands = np.flatnonzero(np.asarray(marked.to_numpy(zero_copy_only=False), bool))
    if not len(hands):
        return out
    keys, bits = [], []
    for hand, text in zip(hands.tolist(), pc.take(texts, pa.array(hands)).to_pylist(), strict=True):
        for seat, mask in _seat_bits(text).items():
            keys.append(hand * 256 + seat)
            bits.append(mask)
    if not keys:
        return out
    known = np.asarray(keys, np.int64)
    order = np.argsort(known)
    known, values = known[order], np.asarray(bits, np.int16)[order]
    wanted = np.asarray(hand_of_row, np.int64) * 256 + np.asarray(seat_of_row, np.int64)
    at = np.minimum(np.searchsorted(known, wanted), len(known) - 1)
    hit = known[at] == wanted
    out[hit] = values[at[hit]]
    return out


def _seat_bits(text: str | None) -> dict[int, int]:
    """Seat index -> bits of its streets whose ``"timeout"`` is ``true``, in one hand's text."""
    try:
        doc = json.loads(text or "")
    except ValueError:
        return {}
    seats = doc.get("seats") if isinstance(doc, dict) else None
    out: dict[int, int] = {}
    for seat, seat_doc in enumerate(seats if isinstance(seats, list) else ()):
        streets = seat_doc.get("streets") if isinstance(seat_doc, dict) else None
        mask = 0
        for street, street_doc in enumerate(streets if isinstance(streets, list) else ()):
            if isinstance(street_doc, dict) and street_doc.get("timeout") is True and street < 15:
                mask |= 1 << street
        if mask and seat < 256:
            out[seat] = mask
    return out


def rule_tables(connection: duckdb.DuckDBPyConnection, root: str | Path) -> None:
    """Register ``ruleset_variants`` (every preset and every ruleset the dataset at ``root``
    keeps as a file), ``street_rules`` (cards placed per street) and the timeout macros.

    A kept ruleset missing here would leave its hands' streets without their variant, and
    the ``forced`` rule below without its cards placed: forced streets taken for free ones.
    """
    for macro in TIMEOUT_MACROS:
        connection.sql(macro)
    rulesets = {**kept_rulesets(root), **PRESETS}  # a preset's name is never shadowed
    variants = pa.table(
        {
            "ruleset": list(rulesets),
            "variant": [str(r.variant) for r in rulesets.values()],
        }
    )
    streets: dict[str, list[object]] = {"variant": [], "street": [], "dealt": [], "placed": []}
    for variant in Variant:
        for number, (dealt, placed) in enumerate(variant.streets):
            streets["variant"].append(str(variant))
            streets["street"].append(number)
            streets["dealt"].append(dealt)
            streets["placed"].append(placed)
    connection.register("ruleset_variants", variants)
    connection.register("street_rules", pa.table(streets))


STREETS_SQL = """
WITH counts AS (
  SELECT hand_key, seat, street,
    count(*) AS cards,
    count(*) FILTER (WHERE destination = 'top') AS to_top,
    count(*) FILTER (WHERE destination = 'middle') AS to_middle,
    count(*) FILTER (WHERE destination = 'bottom') AS to_bottom,
    count(*) FILTER (WHERE destination = 'discard') AS discarded
  FROM {placements}
  GROUP BY hand_key, seat, street
), filled AS (
  SELECT *,
    coalesce(sum(to_top) OVER earlier, 0) AS top_before,
    coalesce(sum(to_middle) OVER earlier, 0) AS middle_before,
    coalesce(sum(to_bottom) OVER earlier, 0) AS bottom_before
  FROM counts
  WINDOW earlier AS (PARTITION BY hand_key, seat ORDER BY street
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), expected AS (
  SELECT f.*, h.hand_id, ((x.timeout_streets >> f.street) & 1) = 1 AS pattern_match,
    records_timeouts(h.format) AS flaggable,
    ((x.recorded_timeouts >> f.street) & 1) = 1 AS flagged,
    (3 - f.top_before) + (5 - f.middle_before) + (5 - f.bottom_before)
        = CASE WHEN f.cards = r.dealt THEN r.placed ELSE f.cards END
      OR (f.top_before < 3)::INT + (f.middle_before < 5)::INT + (f.bottom_before < 5)::INT <= 1
      AS forced
  FROM filled f
  JOIN {hands} h USING (hand_key)
  LEFT JOIN {results} x USING (hand_key, seat)
  LEFT JOIN ruleset_variants v ON v.ruleset = h.ruleset
  LEFT JOIN street_rules r ON r.variant = v.variant AND r.street = f.street
)
SELECT hand_key, hand_id, seat::TINYINT AS seat, street::TINYINT AS street,
  cards::TINYINT AS cards,
  to_top::TINYINT AS to_top, to_middle::TINYINT AS to_middle,
  to_bottom::TINYINT AS to_bottom, discarded::TINYINT AS discarded,
  top_before::TINYINT AS top_before, middle_before::TINYINT AS middle_before,
  bottom_before::TINYINT AS bottom_before,
  coalesce(forced, false) AS forced,
  coalesce(pattern_match, false) AS pattern_match,
  coalesce(flaggable AND NOT coalesce(forced, false), false) AS flaggable,
  coalesce(flagged AND NOT coalesce(forced, false), false) AS timeout
FROM expected
"""
