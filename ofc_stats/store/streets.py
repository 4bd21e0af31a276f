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
text by the ``recorded_timeouts`` view.  ``flaggable`` is true for the formats
of :data:`TIMEOUT_FORMATS`, and ``timeout`` is a recorded timeout on a free
street; ``pattern_match`` keeps the auto-placement match for base-rate
studies and to check a recorded timeout against the rule
(``ofc_stats.audit.timeouts``).

The rule lives in SQL macros, :data:`TIMEOUT_MACROS`: ``records_deal_order(format)``
(the formats that keep the order cards came in) and ``records_timeouts(format)``;
``flagged_timeouts(format, recorded)``, which reports apply to a seat's
recorded bits (:data:`RECORDED_BITS_SQL`), never to its stored auto-placement
bits: those alone never tell a timeout.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from ofc_stats.engine.presets import PRESETS
from ofc_stats.engine.rules import Variant

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
# Per seat, the bits of the streets recorded as timeouts (bit s: street s), for a report to
# join by (hand_id, seat) and pass to ``flagged_timeouts``.
RECORDED_BITS_SQL = (
    "SELECT hand_id, seat, bit_or((1 << street)::SMALLINT) AS recorded_timeouts "
    "FROM recorded_timeouts GROUP BY hand_id, seat"
)
# Every street a hand's text records as timed out: (hand_key, hand_id, seat, street).  Only
# hands whose text names a timeout are parsed.
RECORDED_TIMEOUTS_SQL = f"""
WITH docs AS (
  SELECT hand_id, hand_key, raw_text::JSON AS doc FROM {{hands}}
  WHERE format IN ({_TOLD}) AND contains(raw_text, '"timeout"')
), seat_docs AS (
  SELECT hand_id, hand_key, unnest(json_extract(doc, '$.seats[*]')) AS seat_doc,
         generate_subscripts(json_extract(doc, '$.seats[*]'), 1) - 1 AS seat
  FROM docs
), street_docs AS (
  SELECT hand_id, hand_key, seat, unnest(json_extract(seat_doc, '$.streets[*]')) AS street_doc,
         generate_subscripts(json_extract(seat_doc, '$.streets[*]'), 1) - 1 AS street
  FROM seat_docs
)
SELECT hand_key, hand_id, seat::TINYINT AS seat, street::TINYINT AS street
FROM street_docs WHERE json_extract(street_doc, '$.timeout') = 'true'::JSON
"""


def rule_tables(connection: duckdb.DuckDBPyConnection) -> None:
    """Register ``ruleset_variants``, ``street_rules`` (cards placed per street) and
    the timeout macros."""
    for macro in TIMEOUT_MACROS:
        connection.sql(macro)
    variants = pa.table(
        {
            "ruleset": list(PRESETS),
            "variant": [str(r.variant) for r in PRESETS.values()],
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
  SELECT f.*, ((x.timeout_streets >> f.street) & 1) = 1 AS pattern_match,
    records_timeouts(h.format) AS flaggable,
    t.street IS NOT NULL AS flagged,
    (3 - f.top_before) + (5 - f.middle_before) + (5 - f.bottom_before) = r.placed
      OR (f.top_before < 3)::INT + (f.middle_before < 5)::INT + (f.bottom_before < 5)::INT <= 1
      AS forced
  FROM filled f
  JOIN {hands} h USING (hand_key)
  LEFT JOIN {results} x USING (hand_key, seat)
  LEFT JOIN recorded_timeouts t USING (hand_key, seat, street)
  LEFT JOIN ruleset_variants v ON v.ruleset = h.ruleset
  LEFT JOIN street_rules r ON r.variant = v.variant AND r.street = f.street
)
SELECT hand_key, seat::TINYINT AS seat, street::TINYINT AS street, cards::TINYINT AS cards,
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
