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

A count pattern is evidence only where the format records enough to tell a
timeout from a free choice ("both cards to the bottom" matches it too):
``flaggable`` is true for the formats of :data:`DEAL_ORDER_FORMATS`, which
record every street's cards in the order dealt, and ``timeout`` is
``pattern_match AND flaggable``, so reports never count an unflaggable
street.  ``pattern_match`` keeps the order-free match for base-rate studies
(``ofc_stats.audit.timeouts``).

The rule lives in two SQL macros, :data:`TIMEOUT_MACROS`, which the view uses
and so do reports that read a seat's stored mask instead of its placements
(``reports.decisions``): ``records_deal_order(format)`` and
``flagged_timeouts(format, timeout_streets)``, the stored bits where the
format can tell a timeout, else none.
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
_LISTED = ", ".join(f"'{name}'" for name in DEAL_ORDER_FORMATS)  # our constants, no user text
TIMEOUT_MACROS = (
    f"CREATE OR REPLACE MACRO records_deal_order(format) AS coalesce(format IN ({_LISTED}), false)",
    "CREATE OR REPLACE MACRO flagged_timeouts(format, timeout_streets) AS "
    "CASE WHEN records_deal_order(format) THEN coalesce(timeout_streets, 0) ELSE 0 END",
)


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
    records_deal_order(h.format) AS flaggable,
    ((flagged_timeouts(h.format, x.timeout_streets) >> f.street) & 1) = 1 AS flagged,
    (3 - f.top_before) + (5 - f.middle_before) + (5 - f.bottom_before) = r.placed
      OR (f.top_before < 3)::INT + (f.middle_before < 5)::INT + (f.bottom_before < 5)::INT <= 1
      AS forced
  FROM filled f
  JOIN {hands} h USING (hand_key)
  LEFT JOIN {results} x USING (hand_key, seat)
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
