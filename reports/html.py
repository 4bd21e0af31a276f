"""One self-contained, interactive HTML file: every text escaped, nothing fetched.

Tables sort by a click on a header and narrow by the box above them and by
the page filter (room, stakes, days); charts are drawn by plotly.js, inlined
from the plotly wheel and run once the rest of the page is drawn (vector, hover
values, resized to a phone); every hand
a table names opens the replayer.  Player names, table cells and chart text
go through :func:`html.escape` or JSON escaped for a script element.  CSV
exports (here and ``--format csv``) neutralise cells a spreadsheet would run
as a formula.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import orjson
import pandas as pd

from ofc_stats.safe_text import csv_cell, csv_field, csv_text, html_text
from ofc_stats.wording import plus, signed
from reports.base import Report
from reports.explore import pack as pack_page_data
from reports.live_figures import (
    fantasy_text,
    figures,
    fouls_text,
    regret_figures,
    regret_text,
    royalties_text,
    royalty_figures,
)
from reports.page import css, script
from reports.replay import pack

PERCENT_COLUMNS = {"rate", "share", "explained_rate", "optimal"}  # shares of 1, shown as %
CHART_DATA = {"cumulative", "over_time"}  # one row per hand: CSV export only
MAX_ROWS = 500  # rows put in the page per table; the export link has them all
HEADERS = {
    "low": "95% low",
    "high": "95% high",
    "money_low": "money 95% low",
    "money_high": "money 95% high",
    "n": "hands",
    "hand_key": "hand",
    "street_name": "street",
    "vs_baseline": "vs your average",
    "vs_others": "vs others",
    "mean_otherwise": "mean otherwise",
    "others_otherwise": "others' mean otherwise",
}
DAY_COLUMNS = ("day", "start", "played_at")
# A summary table's rows of signed points (a ``measure`` and its ``value``): written with
# their sign, as the summary's lines and the live summary write them ("+1.19", not "1.19").
SIGNED_MEASURES = {
    "net points",
    "points per hand",
    "95% interval, low",
    "95% interval, high",
    "points per hand without royalties",
}


@cache
def plotly_js() -> str:
    """plotly.js as the plotly wheel ships it (no network, ever)."""
    from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

    script: str = get_plotlyjs()
    return script


def _plain(value: object) -> object:
    """JSON-ready: NaN and infinities as null, NumPy scalars as Python numbers."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:  # most values: at once
        return value
    if isinstance(value, float) and kind is float:
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def script_json(value: object, plain: bool = False) -> str:
    """JSON that cannot end its <script> element or start markup.

    ``plain``: the value holds Python numbers, texts, lists, dicts and NumPy arrays only
    (the page data, hundreds of thousands of numbers; NaN in an array is null): no walk
    through it first.  orjson writes what :func:`json.dumps` would (compact, UTF-8 kept)
    in a tenth of the time; what it refuses (a lone surrogate, a key that is not a text)
    goes to :mod:`json`.
    """
    ready = value if plain else _plain(value)
    try:
        text = orjson.dumps(
            ready,
            default=str,
            option=orjson.OPT_PASSTHROUGH_DATETIME
            | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_SERIALIZE_NUMPY,
        ).decode()
    except TypeError:  # orjson.JSONEncodeError
        text = json.dumps(
            ready,
            ensure_ascii=False,
            allow_nan=False,
            default=_json_default,
            separators=(",", ":"),
        )
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _json_default(value: object) -> object:
    """What :mod:`json` cannot write itself: a NumPy array as a list (NaN as null), else text."""
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    return str(value)


def frame_csv(frame: pd.DataFrame) -> str:
    """A report table as CSV (:func:`ofc_stats.safe_text.csv_text`: formulas and a lone CR safe).

    Columns of numbers, times and texts are turned into fields a column at a time, as
    csv_text turns each cell (a sessions table has 10,000 rows); a table with any
    other column goes through csv_text.
    """
    names = [str(c) for c in frame.columns]
    kinds = [_csv_kind(frame.iloc[:, at]) for at in range(frame.shape[1])]
    if not kinds or "" in kinds:
        return csv_text(names, frame.itertuples(index=False))
    fields = [_csv_fields(frame.iloc[:, at], kind) for at, kind in enumerate(kinds)]
    lines = [",".join(row) + "\n" for row in zip(*fields, strict=True)]
    return csv_text(names, []) + "".join(lines)


def _csv_kind(column: pd.Series) -> str:
    """NumPy's kind of a column of numbers (iubf), times (M) or texts (U); '' for another."""
    if isinstance(column.dtype, np.dtype):
        return column.dtype.kind if column.dtype.kind in "iubfM" else ""
    return "U" if pd.api.types.is_string_dtype(column.dtype) else ""


def _csv_fields(column: pd.Series, kind: str) -> list[str]:
    """One column's CSV fields, each as csv_text writes the cell."""
    if kind in "iub":  # str() of a number or a bool: never quoted
        return list(map(str, column.to_numpy().tolist()))
    if kind == "f":  # NaN is empty
        return ["" if math.isnan(v) else str(v) for v in column.to_numpy().tolist()]
    if kind == "M":  # each pandas Timestamp as str() writes it, NaT empty
        return ["" if v is pd.NaT else str(v) for v in column]
    return ["" if pd.isna(v) else csv_field(str(csv_cell(v))) for v in column]  # texts


def _missing(value: object) -> bool:
    if value is None or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def header(column: str) -> str:
    return HEADERS.get(column, column.replace("_", " "))


def cell(column: str, value: object, percent_ci: bool) -> str:
    """One number style: thousands separators, 2 decimals, rates as percents."""
    if _missing(value):
        return "–"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, float | np.floating):
        number = float(value)
        if column in PERCENT_COLUMNS or (percent_ci and column in ("low", "high")):
            return f"{number:.1%}"
        if "money" in column:
            return f"{number:,.2f}"  # money always in cents, so a column lines up
        if number.is_integer() and abs(number) < 1e12 and column != "stakes":
            return f"{int(number):,}"
        return f"{number:,.2f}"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, pd.Timestamp | datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _sort_value(value: object) -> str | None:
    if _missing(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return "1" if value else "0"
    if isinstance(value, int | float | np.integer | np.floating):
        return repr(float(value))
    if isinstance(value, pd.Timestamp | datetime | date):
        return value.isoformat()
    return None


def _day(value: object) -> str | None:
    if _missing(value):
        return None
    if isinstance(value, pd.Timestamp | datetime | date):
        return value.isoformat()[:10]
    return None


def table_html(
    frame: pd.DataFrame, name: str, title: str, caption: str = "", replays: Iterable[str] = ()
) -> str:
    """A sortable, filterable table with an export link; hands link to the replayer."""
    linked = set(replays)
    if "street_name" in frame.columns and "street" in frame.columns:
        frame = frame.drop(columns="street")  # SQL's 0-4; people read "street 1" to "street 5"
    percent_ci = "rate" in frame.columns
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        for c in frame.columns
    ]
    heads = "".join(
        f'<th data-type="{"num" if num else "text"}" class="{"num" if num else "text"}">'
        f"{html.escape(header(str(c)))}</th>"
        for c, num in zip(frame.columns, numeric, strict=True)
    )
    columns = [str(c) for c in frame.columns]
    rows = []
    for record in frame.head(MAX_ROWS).itertuples(index=False):
        values = dict(zip(columns, record, strict=True))
        attrs = ""
        if "room" in values and not _missing(values["room"]):
            attrs += f' data-room="{html.escape(str(values["room"]))}"'
        if "stakes" in values and not _missing(values["stakes"]):
            attrs += f' data-stakes="{html.escape(cell("stakes", values["stakes"], False))}"'
        for column in DAY_COLUMNS:
            day = _day(values.get(column))
            if day:
                attrs += f' data-day="{day}"'
                break
        cells = []
        measure = str(values.get("measure", ""))
        points = measure in SIGNED_MEASURES
        money = measure.startswith("money ")  # "money won (USD)": cents and sign, always
        for column, value, num in zip(columns, record, numeric, strict=True):
            text = cell(column, value, percent_ci)
            if money and column == "value" and not _missing(value):
                text = signed(float(value), 2)  # as the script's plusNum(m, 2)
            elif points and column == "value":
                text = plus(text, value)
            shown = html_text(text)
            sort = _sort_value(value)
            data = f' data-v="{html.escape(sort)}"' if sort is not None else ""
            css = "" if num else ' class="text"'
            css += f' data-label="{html.escape(header(column))}"'  # a phone shows it by the value
            if column == "hand_key" and str(value) in linked:
                target = html.escape("#hand=" + quote(str(value), safe=""))
                shown = f'<a class="hand" href="{target}">{shown}</a>'
            cells.append(f"<td{data}{css}>{shown}</td>")
        rows.append(f"<tr{attrs}>{''.join(cells)}</tr>")
    notes = f'<p class="caption">{html_text(caption)}</p>' if caption else ""
    if len(frame) > MAX_ROWS:
        notes += (
            f'<p class="caption">The first {MAX_ROWS:,} of {len(frame):,} rows are shown; '
            "the export has them all.</p>"
        )
    export = "data:text/csv;charset=utf-8," + quote(frame_csv(frame))
    filename = html.escape(f"{name}.csv")
    wide = " wide" if len(columns) > 6 else ""  # a whole row of the grid: no sideways scroll
    few = " few" if len(columns) <= 3 else ""  # stays a table on a phone
    return (
        f'<div class="table-block card{wide}" id="table-{html.escape(name)}">'
        f"<h3>{html_text(title)}</h3>{notes}"
        '<div class="table-tools"><input class="filter" type="search" placeholder="filter rows"'
        f' aria-label="filter {html.escape(title)}"><span class="count"></span>'
        f'<a download="{filename}" href="{export}">export CSV</a></div>'
        f'<div class="scroll"><table class="data{few}"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></div>"
    )


def _options(values: set[str], label: str, ident: str) -> str:
    if not values:
        return ""
    options = "".join(
        f'<option value="{html.escape(v)}">{html_text(v)}</option>' for v in sorted(values)
    )
    return (
        f'<label>{label} <select id="{ident}"><option value="">all</option>{options}'
        "</select></label>"
    )


def page_filter(reports: Sequence[Report]) -> str:
    """The bar of room, stakes and day filters, from the values the tables hold."""
    rooms: set[str] = set()
    stakes: set[str] = set()
    for report in reports:
        for key, frame in report.tables.items():
            if key in CHART_DATA:
                continue
            if "room" in frame.columns:
                rooms |= {str(v) for v in frame["room"].dropna().head(MAX_ROWS)}
            if "stakes" in frame.columns:
                stakes |= {cell("stakes", v, False) for v in frame["stakes"].dropna()}
    return (
        '<form class="filters" onsubmit="return false" aria-label="page filter">'
        "<strong>Filter the tables:</strong>"
        + _options(rooms, "room", "f-room")
        + _options(stakes, "stakes", "f-stakes")
        + '<label>from <input type="date" id="f-from"></label>'
        '<label>to <input type="date" id="f-to"></label>'
        '<button type="button" id="f-reset">clear</button></form>'
    )


LIVE_SECTIONS = ("results", "sessions", "hands", "ledger")  # recomputed by the page's script
FIXED = (
    "The filter bar does not change this section: it covers all the hands of this report "
    "({scope}). For fewer, make the report with its options (ofc-stats report --room, "
    "--since, --until, --seats, --opponent)."
)


def _stakes_options(live: dict[str, Any]) -> list[tuple[str, str]]:
    """(value, label) of each stakes and currency the hands hold, smallest stakes first."""
    hands = live["hands"]
    stakes = np.asarray(hands["stakes"], dtype=np.float64)  # a missing one is NaN
    kept = ~np.isnan(stakes)
    distinct = set(zip(stakes[kept].tolist(), np.asarray(hands["cur"])[kept].tolist(), strict=True))
    pairs = {(stake, live["currencies"][c]) for stake, c in distinct}
    return [
        (f"{stake!r}|{currency}", f"{stake:,.2f}".rstrip("0").rstrip(".") + f" {currency}".rstrip())
        for stake, currency in sorted(pairs)
    ]


def live_filter(live: dict[str, Any]) -> str:
    """The filter bar the page's script applies to every live section."""
    rooms = "".join(
        f'<option value="{html.escape(r)}">{html_text(r)}</option>' for r in live["rooms"] if r
    )
    stakes = "".join(
        f'<option value="{html.escape(v)}">{html.escape(label)}</option>'
        for v, label in _stakes_options(live)
    )
    seats = "".join(
        f'<option value="{n}">{n}-handed</option>'
        for n in sorted({int(n) for n in live["hands"]["seats"] if n is not None})
    )
    opponents = "".join(
        f'<option value="{html.escape(o)}"></option>' for o in sorted(live["opponents"])
    )
    return (
        '<form class="filters" onsubmit="return false" aria-label="page filter">'
        "<strong>Filter the page:</strong>"
        f'<label>room <select id="f-room"><option value="">all</option>{rooms}</select></label>'
        f'<label>stakes <select id="f-stakes"><option value="">all</option>{stakes}'
        "</select></label>"
        '<label>from <input type="date" id="f-from"></label>'
        '<label>to <input type="date" id="f-to"></label>'
        f'<label>seats <select id="f-seats"><option value="">all</option>{seats}</select></label>'
        '<label>opponent <input id="f-opponent" list="f-opponents" size="12" '
        f'autocomplete="off"></label><datalist id="f-opponents">{opponents}</datalist>'
        '<button type="button" id="f-reset">clear</button>'
        '<span id="f-status" class="caption" aria-live="polite"></span></form>'
    )


# Sections whose headline figures follow the filter bar (reports/live_figures.py; the
# script redraws the line); their tables, charts and notes stay over every hand.
LIVE_FIGURES: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "fouls": ("live-fouls", lambda live: fouls_text(figures(live["hands"]))),
    "fantasyland": ("live-fantasy", lambda live: fantasy_text(figures(live["hands"]))),
    "royalties": ("live-royalties", lambda live: royalties_text(royalty_figures(live))),
    "regret": ("live-regret", lambda live: regret_text(regret_figures(live))),
}
FOR_FEWER = (
    "For fewer, make the report with its options (ofc-stats report --room, --since, "
    "--until, --seats, --opponent)."
)
PART_FIXED = (
    "The filter bar changes the line above only: the notes, tables and charts below cover "
    "all the hands of this report ({scope}). " + FOR_FEWER
)
# Why a section, or the rest of one, cannot follow the filter bar in the page.
FIXED_WHY = {
    "decisions": (
        "The filter bar does not change this section: it covers all the hands of this "
        "report ({scope}). It sets your hands beside other players' hands (a sample of the "
        "whole dataset, under the report's options), which the page does not carry. " + FOR_FEWER
    ),
    "regret": (
        "The filter bar changes the line above only: the named leaks' verdicts (clear or "
        "not), the replay, the close calls, notes and tables below cover all the hands of "
        "this report ({scope}). A verdict needs the grader's replays of whole hands, which "
        "the page does not carry. " + FOR_FEWER
    ),
}
ALL_HANDS = '<strong class="all-hands">All hands.</strong> '
KEPT = '<span class="kept"></span>'  # the script says how many hands the bar keeps
SUMMARY_FIXED = (
    "The filter bar changes the line above only: the lines below cover all the hands of "
    "this report ({scope}); the Fouls, Fantasyland, Royalties and Regret sections' first "
    "lines follow the filter bar."
)


def _fixed(text: str) -> str:
    """A note that what follows covers every hand of the report, whatever the bar keeps."""
    return f'<p class="card fixed">{ALL_HANDS}{html.escape(text)}{KEPT}</p>'


def _follows(key: str, live: dict[str, Any]) -> bool:
    """Whether the section's first line follows the filter bar: regret's only where some
    hand of the page is graded (else its one note says why none is, for every hand)."""
    if key not in LIVE_FIGURES:
        return False
    if key == "regret":
        return bool((~np.isnan(np.asarray(live["hands"]["sloss"], dtype=np.float64))).any())
    return True


LIVE_PARTS = {
    "results": '<div id="live-results"></div><div class="card period-tools"><label>group by '
    '<select id="period-by"><option value="day">day</option><option value="week">week</option>'
    '</select></label></div><div id="live-periods"></div>',
    "sessions": '<div id="live-sessions"></div>',
    "hands": '<div class="card hb-tools"><label>search <input id="hb-search" type="search" '
    'placeholder="opponent, room, day, hand"></label>'
    '<label><input type="checkbox" id="hb-foul"> fouls</label>'
    '<label><input type="checkbox" id="hb-fl"> Fantasyland</label>'
    '<label><input type="checkbox" id="hb-graded"> graded</label>'
    '<label>sort by <select id="hb-sort"><option value="newest">date, newest first</option>'
    '<option value="oldest">date, oldest first</option><option value="room">room</option>'
    '<option value="opponent">opponent</option><option value="lowest">points, lowest first'
    '</option><option value="highest">points, highest first</option>'
    '<option value="foul">fouls first</option><option value="fl">Fantasyland first</option>'
    '<option value="loss">graded loss, largest first</option></select></label></div>'
    '<div id="live-browser"></div>',
    "ledger": '<div id="live-ledger"></div>',
}


def _opponents_section(live: dict[str, Any]) -> str:
    options = "".join(
        f'<option value="{html.escape(o)}">{html_text(o)}</option>'
        for o in sorted(live["opponents"], key=str.lower)
    )
    return (
        '<section id="opponents"><h2>Opponents</h2><div id="live-opponents"></div>'
        '<div class="card"><label>opponent <select id="opponent-pick"><option value="">'
        f"choose one</option>{options}</select></label></div>"
        '<div id="live-opponent"></div></section>'
    )


def shared_text(shared: dict[str, Any]) -> str:
    """The warning when the player's accounts met at a table, and the choice it offers."""
    if not shared:
        return ""
    choice = (
        "each is counted once: one seat stands for the hand, with the points and money of "
        "all your seats summed (what they won from each other cancels), and none of your "
        "accounts is ever an opponent; --self-play skip leaves these hands out"
        if shared["choice"] == "once"
        else "they are left out (--self-play skip); --self-play once counts each once"
    )
    return (
        f"Your accounts met at a table: {', '.join(shared['accounts'])} sat in the same "
        f"{shared['hands']:,} hands; {choice}."
    )


def _shared_warning(shared: dict[str, Any]) -> str:
    text = shared_text(shared)
    return f'<p class="card warning" role="alert">{html_text(text)}</p>' if text else ""


def replayer_block(
    hands: dict[str, dict[str, Any]],
    standalone: str | None = None,
    order: Sequence[str] = (),
) -> str:
    """The replayer and its hands (:func:`reports.replay.pack`).

    A report page carries them gzipped, in base64 (a tenth of the JSON's size), and its
    script inflates them with the browser's DecompressionStream once the page is drawn;
    ``hand-index`` names the hands carried (positions in ``order``, the live data's
    hand keys, as runs ``[start, end)``, and the other keys), so a table links them
    before the data is in.  A single hand's page (``standalone``) carries it as JSON.
    """
    attr = f' data-standalone="{html.escape(standalone)}"' if standalone else ""
    box = (
        f'<div id="replayer"{attr} hidden><div class="panel" role="dialog" '
        'aria-label="hand replayer"></div></div>'
    )
    packed = script_json(pack(hands))
    if standalone:
        return box + f'<script type="application/json" id="hand-data">{packed}</script>'
    index = script_json(hand_index(hands, order))
    return f'{box}<script type="application/json" id="hand-index">{index}</script>' + gzip_script(
        "hand-data", packed
    )


def gzip_script(ident: str, text: str, level: int = 9) -> str:
    """``text`` (JSON from :func:`script_json`) gzipped, in base64, in a script element the
    page's script inflates with the browser's DecompressionStream (``readPacked`` in
    ``assets/report.js``): the replayer's hands and the filter bar's data.  The JSON
    inside stays escaped as :func:`script_json` wrote it; base64 holds no markup."""
    zipped = base64.b64encode(gzip.compress(text.encode(), compresslevel=level, mtime=0))
    return (
        f'<script type="application/gzip-base64" id="{html.escape(ident)}">'
        f"{zipped.decode('ascii')}</script>"
    )


def hand_index(hands: Iterable[str], order: Sequence[str]) -> dict[str, list[Any]]:
    """The carried hand keys: ``at``, runs ``[start, end)`` of positions in ``order``,
    and ``keys``, those not in ``order`` (a report's carried hands are mostly the newest
    of the live data's: a run or two)."""
    where = {key: at for at, key in enumerate(order)}
    spots = sorted(where[k] for k in hands if k in where)
    runs: list[list[int]] = []
    for at in spots:
        if runs and runs[-1][1] == at:
            runs[-1][1] = at + 1
        else:
            runs.append([at, at + 1])
    return {"at": runs, "keys": [k for k in hands if k not in where]}


def head(title: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html_text(title)}</title><style>{css()}</style>"
        f"<script>{script()}</script></head><body>"
    )


def plotly_block() -> str:
    """plotly.js as text the page's script runs once the rest of the page is drawn (most of
    the time to open the page is plotly.js starting: the summary, filters and tables do not
    wait for it).  A ``</script`` in its strings would end the element: written ``<\\/script``,
    the same string in JavaScript (the wheel's plotly.js has none)."""
    text = plotly_js().replace("</script", "<\\/script")
    return f'<script type="text/plain" id="plotly-js">{text}</script>'


OPPONENTS_AFTER = "hands"  # the live page's opponents section follows this one


def contents(reports: Sequence[Report], live: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The page's sections in order, (id, title): the nav links each, whichever are built."""
    sections = []
    for report in reports:
        sections.append((report.key, report.title))
        if live is not None and report.key == OPPONENTS_AFTER:
            sections.append(("opponents", "Opponents"))
    return sections


def render(
    player: str,
    scope: str,
    reports: Sequence[Report],
    summary: Sequence[str],
    generated: datetime | None = None,
    live: dict[str, Any] | None = None,
    carried: dict[str, dict[str, Any]] | None = None,
) -> str:
    """The whole page as a string.

    With ``live`` (:func:`reports.explore.page_data`) the results, sessions,
    hands and ledger are recomputed in the page for the filter bar, an
    opponents section is added, the fouls, Fantasyland, royalties and regret
    sections' first lines follow the bar (:data:`LIVE_FIGURES`), and every
    other part says, "All hands.", that the bar does not change it (and why,
    where the page cannot: :data:`FIXED_WHY`); ``carried`` is more replayer
    data (hand_key -> hand) the hand browser opens.
    """
    when = (generated or datetime.now()).strftime("%Y-%m-%d %H:%M")
    name = html_text(player)
    nav = "".join(
        f'<a href="#{key}">{html.escape(title)}</a>' for key, title in contents(reports, live)
    )
    replays: dict[str, dict[str, Any]] = {}
    for report in reports:
        replays.update(report.replays)
    replays.update(carried or {})
    charts: dict[str, Any] = {}
    graded = any(r.key == "regret" and "by_decision" in r.tables for r in reports)
    # Only graded decisions measure points lost; the street-decision table describes results.
    heading = "Summary: where you lose expected points" if graded else "Summary"
    parts = [
        head(f"OFC report: {player}"),
        page_filter(reports) if live is None else live_filter(live),
        "<main>",
        f"<h1>OFC report: {name}</h1>",
        f'<p class="meta">{html_text(scope)} · made {when} by ofc-stats</p>',
        f"<nav>{nav}</nav>",
        _shared_warning(live.get("shared", {})) if live else "",
        f'<section id="summary"><h2>{heading}</h2><div class="card">',
        '<p id="live-headline"></p>' if live else "",
        f'<p class="fixed filtered-only">{html.escape(SUMMARY_FIXED.format(scope=scope))}</p>'
        if live
        else "",
        '<ul class="leaks">',
        *(f"<li>{html_text(line)}</li>" for line in summary),
        "</ul></div></section>",
    ]
    for report in reports:
        parts.append(f'<section id="{report.key}"><h2>{html.escape(report.title)}</h2>')
        is_live = live is not None and report.key in LIVE_SECTIONS
        if is_live:
            parts.append(f'<div class="live-only" hidden>{LIVE_PARTS[report.key]}</div>')
            parts.append('<div class="static">')
        elif live is not None and _follows(report.key, live):
            ident, text = LIVE_FIGURES[report.key]
            parts.append(f'<p class="card live-figure" id="{ident}">{html_text(text(live))}</p>')
            parts.append(_fixed(FIXED_WHY.get(report.key, PART_FIXED).format(scope=scope)))
        elif live is not None:
            why = FIXED_WHY.get(report.key, FIXED) if report.key != "regret" else FIXED
            parts.append(_fixed(why.format(scope=scope)))
        for note in report.notes:
            parts.append(f'<p class="card">{html_text(note)}</p>')
        parts.append('<div class="grid">')
        for key, chart in report.figures.items():
            ident = f"chart-{report.key}-{key}"
            charts[ident] = chart.plotly()
            label = html.escape(f"{chart.title} (chart)")
            parts.append(
                f'<div class="card"><div class="chart" id="{ident}" '
                f'aria-label="{label}"></div></div>'
            )
        for key, frame in report.tables.items():
            if key in CHART_DATA or frame.empty:
                continue
            parts.append(
                table_html(
                    frame,
                    f"{report.key}-{key}",
                    key.replace("_", " ").capitalize(),
                    report.captions.get(key, ""),
                    replays if key in report.hands else (),
                )
            )
        parts.append("</div>")
        if is_live:
            parts.append("</div>")
        parts.append("</section>")
        if live is not None and report.key == OPPONENTS_AFTER:
            parts.append(_opponents_section(live))
    parts.append("</main>")
    parts.append(f'<script type="application/json" id="chart-data">{script_json(charts)}</script>')
    if live is not None:  # reports.explore: plain columns, packed; level 6: 10x faster than 9
        parts.append(gzip_script("live-data", script_json(pack_page_data(live), plain=True), 6))
    parts.append(replayer_block(replays, order=live["hands"]["key"] if live else ()))
    parts.append(plotly_block())
    parts.append("</body></html>")
    return "\n".join(parts)


def hand_page(hand: dict[str, Any]) -> str:
    """One hand's replayer as its own page (``ofc-stats hand KEY --format html``)."""
    title = f"OFC hand {hand.get('room_hand_id') or hand['key']}"
    return "\n".join(
        [
            head(title),
            replayer_block({hand["key"]: hand}, standalone=hand["key"]),
            "</body></html>",
        ]
    )


NOTES_CSV = "notes.csv"  # beside the csv tables: what the page says above and under them


def write_files(folder: Path, reports: Sequence[Report], kind: str) -> list[Path]:
    """Each chart (png/svg) or table (csv) as its own file; the paths written.

    CSV also gets :data:`NOTES_CSV`: each section's notes and each table's caption, as
    the page shows them (what a table leaves out, such as hands not scored, is said
    there, not in the table), so the files read alone are no less honest than the page.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    if kind == "csv":
        path = folder / NOTES_CSV
        path.write_text(notes_csv(reports), encoding="utf-8")
        written.append(path)
    for report in reports:
        if kind == "csv":
            for key, frame in report.tables.items():
                path = folder / f"{report.key}-{key}.csv"
                path.write_text(frame_csv(frame), encoding="utf-8")
                written.append(path)
        else:
            for key, chart in report.figures.items():
                path = folder / f"{report.key}-{key}.{kind}"
                chart.figure().savefig(path, format=kind, dpi=110)
                written.append(path)
    return written


def notes_csv(reports: Sequence[Report]) -> str:
    """The sections' notes (``file`` empty) and the tables' captions (``file`` names the
    table's CSV file), one row each, in page order.

    >>> report = Report("results", "Results", notes=["=1+1 hands"])
    >>> report.tables["summary"], report.captions["summary"] = pd.DataFrame(), "per hand"
    >>> print(notes_csv([report]), end="")
    section,file,note
    results,,'=1+1 hands
    results,results-summary.csv,per hand
    """
    rows = []
    for report in reports:
        rows += [(report.key, "", note) for note in report.notes]
        rows += [
            (report.key, f"{report.key}-{key}.csv", caption)
            for key, caption in report.captions.items()
            if key in report.tables
        ]
    return csv_text(["section", "file", "note"], rows)
