"""A decoded SwC block folded as columns: its hands found, its resends dropped, its seats'
layouts folded by :mod:`parsers.swc_vector`, in a few passes over the whole block.

The lines of a block are grouped into hands as the per-line fold groups them
(a new hand id on a table closes the table's hand): a hand that began in an
earlier block, or that is still open at the block's end, is left to the
per-line fold (:class:`Plan` says which lines, and where a hand it holds
closes); every hand wholly inside the block is folded here.  A block whose
grouping is not plain (a hand id that comes back on its table, a late line
of a closed hand, ids that are not integers) returns None and is folded line
by line.  Which snapshots are new states is ``parsers/swc_keys.py``'s.
"""

from __future__ import annotations

from functools import partial
from itertools import chain
from operator import attrgetter, is_not, itemgetter
from typing import Any, NamedTuple

import msgspec
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from parsers import fast_json, swc_keys, swc_vector
from parsers.base import BAD_INPUT
from parsers.swc_fast import (
    DECODER,
    DEEP_LINE,
    FANTASY_BYTES,
    FRAME,
    SKIP,
    Block,
    LineMsg,
    SeatMsg,
    archived,
    json_alike,
)
from parsers.swc_fold import (
    FRAME_PREFIX,
    PINEAPPLE_CODES,
    UNKNOWN_TABLE,
    Hand,
    Tables,
    fantasy_names,
)

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
_NONE_SEAT = SeatMsg()
_GI, _TI, _SEATS, _SS = (attrgetter(name) for name in ("gi", "ti", "s", "ss"))
_PAYLOAD, _EVENTS = attrgetter("payload"), attrgetter("events")
_IS_SET = partial(is_not, None)
_N, _D, _P = (attrgetter(name) for name in ("n", "d", "p"))
_LATE_CODES = np.array(sorted({*PINEAPPLE_CODES, 76}), dtype=np.int64)


class Inner(NamedTuple):
    """The hands a block holds whole, in the order they close, folded."""

    table_id: list[str]
    hand_id: list[str]
    code: Ints
    line: Ints  # each hand's first line number
    captured_at: list[str | None]
    raw_text: pa.Array  # string
    odd: Bools  # hands to read through the record path
    seat_hand: Ints  # per stored seat
    position: Ints  # the seat's index in its hand
    player: list[str]
    hero: Bools
    in_fantasy: Bools
    points: pa.Array  # float64, null where not reported
    card_seat: Ints  # per card, row order (swc_vector.Folded)
    destination: Ints
    street: Ints
    card: Ints
    move: Ints


class Plan(NamedTuple):
    """How one block is folded: which lines by the per-line fold, which hands here."""

    lines: list[int]  # block line indices the per-line fold reads, in order
    closes: list[tuple[int, str]]  # (line index, table): a hand open before closes there
    inner: Inner
    inner_close: list[int]  # the line index where each inner hand closes


def messages(block: Block) -> list[LineMsg] | None:
    """Each line's proxy message (a raw archive record's unwrapped); None if one needs json."""
    records = block.messages
    payloads = list(map(_PAYLOAD, records))
    if payloads.count(msgspec.UNSET) == len(records):
        return records
    batch = _unwrapped(records, payloads)
    if batch is not None:
        return batch
    out = []
    for record in records:
        if record.payload is msgspec.UNSET:
            out.append(record)
            continue
        carried = archived(record)
        if carried is None:
            return None
        out.append(carried)
    return out


def _unwrapped(records: list[LineMsg], payloads: list[Any]) -> list[LineMsg] | None:
    """``archived`` for a whole block: its frames decoded in one msgspec call, the messages
    in them in another; None where one text might not decode alone as it does joined (a
    line break in it, an error anywhere): then record by record."""
    unset = msgspec.UNSET
    wanted = [
        i
        for i, (record, payload) in enumerate(zip(records, payloads, strict=True))
        if payload is not unset
        and record.message_type == "GameState"
        and isinstance(payload, str)
        and payload.startswith(FRAME_PREFIX)
    ]
    decoded = _each_alone(FRAME, [payloads[i][len(FRAME_PREFIX) :] for i in wanted])
    if decoded is None:
        return None
    kept = [
        (i, text)
        for i, (name, text) in zip(wanted, decoded, strict=True)
        if name == "proxy-message"
    ]
    texts = [text for _, text in kept]
    for text in texts:
        if len(text) >= DEEP_LINE and not json_alike(text.encode("utf-8", "surrogatepass")):
            return None
    inner = _each_alone(DECODER, texts)
    if inner is None:
        return None
    out = [
        record if payload is unset else SKIP
        for record, payload in zip(records, payloads, strict=True)
    ]
    for (i, _), message in zip(kept, inner, strict=True):
        if message.t == "GameState" and message.gameState is not None:
            out[i] = message
    return out


def _each_alone(decoder: msgspec.json.Decoder[Any], texts: list[str]) -> list[Any] | None:
    """Each text decoded, all in one call of ``decode_lines``; None unless that surely gives
    what decoding each alone gives (no text holds a line break, none fails)."""
    if not texts:
        return []
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        return None
    try:
        decoded = decoder.decode_lines(joined)
    except (msgspec.DecodeError, ValueError):
        return None
    return decoded if len(decoded) == len(texts) else None


def plan(tables: Tables, block: Block) -> Plan | None:
    """The block's hands as the per-line fold would group them; None: fold it line by line."""
    found = messages(block)
    if found is None:
        return None
    states = [m.gameState if m.t == "GameState" else None for m in found]
    if None in states:
        index = [i for i, state in enumerate(states) if state is not None]
        shown = [states[i] for i in index]
    else:
        index, shown = list(range(len(states))), states
    if not index:
        return None
    try:
        gi_array = pa.array(list(map(_GI, shown)), pa.int64())
        ti_array = pa.array(list(map(_TI, shown)))
    except (ValueError, TypeError, OverflowError, pa.ArrowException):
        return None
    if ti_array.type not in (pa.int64(), pa.string(), pa.null()):
        return None
    gi = np.asarray(gi_array.fill_null(0), dtype=np.int64)
    real = gi != 0  # a falsy gi: the line is passed over
    encoded = ti_array.dictionary_encode(null_encoding="encode")
    names = [UNKNOWN_TABLE if v is None else str(v) for v in encoded.dictionary.to_pylist()]
    if len(set(names)) != len(names):  # "__unknown_table__" spelled out and left out
        return None
    table = np.asarray(encoded.indices, dtype=np.int64)
    line = np.asarray(index, dtype=np.int64)[real]
    table, gi = table[real], gi[real]
    if not len(line):
        return None
    # Runs of one hand id on one table, in line order within each table.
    order = np.argsort(table, kind="stable")
    t_sorted, g_sorted = table[order], gi[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = (t_sorted[1:] != t_sorted[:-1]) | (g_sorted[1:] != g_sorted[:-1])
    run_sorted = np.cumsum(starts) - 1
    run = np.empty(len(order), dtype=np.int64)
    run[order] = run_sorted
    run_table, run_gi, run_first = t_sorted[starts], g_sorted[starts], line[order][starts]
    pairs = np.lexsort((run_gi, run_table))
    if (
        (run_table[pairs][1:] == run_table[pairs][:-1]) & (run_gi[pairs][1:] == run_gi[pairs][:-1])
    ).any():
        return None  # a hand id back on its table after another
    run_ti = [names[t] for t in run_table.tolist()]
    run_hand = [str(g) for g in run_gi.tolist()]
    closed = tables.closed
    if any((t, g) in closed for t, g in zip(run_ti, run_hand, strict=True)):
        return None
    runs = len(run_table)
    last = np.ones(runs, dtype=bool)
    last[:-1] = run_table[1:] != run_table[:-1]
    first = np.ones(runs, dtype=bool)
    first[1:] = run_table[1:] != run_table[:-1]
    by_line = np.zeros(runs, dtype=bool)  # runs the per-line fold reads
    by_line[last] = True
    closes: list[tuple[int, str]] = []
    for r in np.flatnonzero(first).tolist():
        hand = tables.open_hands.get(run_ti[r])
        if hand is None:
            continue
        if hand.gi == run_hand[r]:
            by_line[r] = True  # it goes on from the last block
            if not last[r]:
                closes.append((int(run_first[r + 1]), run_ti[r]))
        else:
            closes.append((int(run_first[r]), run_ti[r]))
            later = r + 1  # the open hand's late lines after another hand: passed over
            while later < runs and not first[later]:
                if run_hand[later] == hand.gi:
                    return None
                later += 1
    inner_runs = np.flatnonzero(~by_line)
    close_at = run_first[np.minimum(inner_runs + 1, runs - 1)]
    emit = np.argsort(close_at, kind="stable")
    inner_runs, close_at = inner_runs[emit], close_at[emit]
    for r in inner_runs.tolist():
        closed.add((run_ti[r], run_hand[r]))
    per_line = line[by_line[run]].tolist()
    rank = np.full(runs, -1, dtype=np.int64)
    rank[inner_runs] = np.arange(len(inner_runs))
    hand_of = rank[run]
    inner = _fold(
        block,
        found,
        states,
        [run_ti[r] for r in inner_runs.tolist()],
        [run_hand[r] for r in inner_runs.tolist()],
        line,
        hand_of,
    )
    if inner is None:
        for r in inner_runs.tolist():
            closed.discard((run_ti[r], run_hand[r]))
        return None
    return Plan(per_line, sorted(closes), inner, close_at.tolist())


def _gather(values: list[Any], at: list[int]) -> list[Any]:
    """``[values[i] for i in at]`` in one C call."""
    if len(at) < 2:
        return [values[i] for i in at]
    return list(itemgetter(*at)(values))


def _fold(
    block: Block,
    found: list[LineMsg],
    all_states: list[Any],
    table_ids: list[str],
    hand_ids: list[str],
    line: Ints,
    hand_of: Ints,
) -> Inner | None:
    """The inner hands (``hand_of[i]`` >= 0: line ``line[i]``'s hand) folded; None if the
    block's fields are not of the kinds compared here."""
    count = len(table_ids)
    keep = hand_of >= 0
    order = np.lexsort((line[keep], hand_of[keep]))
    lines, hands = line[keep][order], hand_of[keep][order]
    picked = lines.tolist()
    states = _gather(all_states, picked)
    hand_first = np.searchsorted(hands, np.arange(count))
    text = _raw_texts(block, lines, hands, count)

    seat_lists = list(map(_SEATS, states))
    if None in seat_lists:
        seat_lists = [s or () for s in seat_lists]
    per_line = np.fromiter(map(len, seat_lists), np.int64, len(states))
    if len(per_line) and int(per_line.max()) > swc_keys.MAX_SEATS:
        return None
    flat: list[SeatMsg | None] = list(chain.from_iterable(seat_lists))
    absent = np.zeros(len(flat), dtype=bool)
    if None in flat:
        absent = np.fromiter((s is None for s in flat), bool, len(flat))
        flat = [_NONE_SEAT if s is None else s for s in flat]
    n, d, p = list(map(_N, flat)), list(map(_D, flat)), list(map(_P, flat))
    try:
        player = pa.array(n, pa.string())
        layout = pa.array(d, pa.string())
    except (ValueError, TypeError, pa.ArrowException):
        return None  # a name or a layout that is not text (the fold compares it as it is)
    line_of_seat = np.repeat(np.arange(len(states)), per_line)
    seat_first = np.cumsum(per_line) - per_line
    position = np.arange(len(flat)) - seat_first[line_of_seat]
    shows = list(map(_SS, states))
    showdown = np.flatnonzero(np.fromiter(map(_IS_SET, shows), bool, len(shows))).tolist()
    hc = {i: shows[i].hc for i in showdown}  # a few lines a hand
    distinct = swc_keys.distinct(block, lines, states, hands, per_line, position, absent, d, hc)

    # The roster: the hand's first snapshot's seats, those with a name; a seat's data
    # counts where its name is the roster's.
    first_line = hand_first
    roster_size = per_line[first_line]
    seat_base = np.cumsum(roster_size) - roster_size
    hand_of_seat = hands[line_of_seat]
    roster_entry = line_of_seat == first_line[hand_of_seat]
    roster_at = np.flatnonzero(roster_entry)
    names = player.take(pa.array(roster_at))
    named = ~absent[roster_at] & np.asarray(
        pc.fill_null(pc.greater(pc.binary_length(names), 0), False)
    )
    at = seat_base[hand_of_seat[roster_entry]] + position[roster_entry]
    roster_named = np.zeros(int(roster_size.sum()) + 1, dtype=bool)  # (one past: no seat)
    roster_named[at] = named
    name_at = np.zeros(int(roster_size.sum()) + 1, dtype=np.int64)
    name_at[at] = roster_at
    inside = position < roster_size[hand_of_seat]
    seat = np.where(inside, seat_base[hand_of_seat] + position, len(roster_named) - 1)
    valid = inside & distinct[line_of_seat] & ~absent & roster_named[seat]
    expected = player.take(pa.array(name_at[seat]))
    valid &= np.asarray(pc.fill_null(pc.equal(player, expected), False))
    roster_code = np.where(roster_named[:-1], 0, -1)

    points = pa.array(p, pa.float64()) if flat else pa.array([], pa.float64())
    has_points = valid & np.asarray(points.is_valid())
    last_points = np.full(len(roster_code), -1, dtype=np.int64)
    np.maximum.at(last_points, seat[has_points], np.flatnonzero(has_points))

    shown_d = valid & np.asarray(pc.fill_null(pc.greater(pc.binary_length(layout), 0), False))
    entries = np.flatnonzero(shown_d)
    entries = entries[np.argsort(seat[entries], kind="stable")]
    texts = layout.take(pa.array(entries))
    changed = np.ones(len(entries), dtype=bool)
    if len(entries) > 1:
        same_text = np.asarray(pc.equal(texts[1:], texts[:-1]))
        changed[1:] = (seat[entries][1:] != seat[entries][:-1]) | ~same_text
    entries = entries[changed]
    firsts = _gather(all_states, lines[first_line].tolist())
    codes_of_hand = np.array([state.gt for state in firsts], dtype=np.int64)
    late = np.isin(codes_of_hand, _LATE_CODES)
    seat_count = len(roster_code)
    hand_by_seat = np.repeat(np.arange(count), roster_size)
    changes = np.bincount(seat[entries], minlength=seat_count)
    if seat_count * (int(changes.max(initial=0)) + 2) > swc_vector.MAX_CELLS:
        return None  # a seat of very many layouts: the fold's dense tables would be large
    parsed = swc_vector.parse(texts.filter(pa.array(changed)))
    folded = swc_vector.fold(parsed, seat[entries], seat_count, late[hand_by_seat])

    settled = np.zeros(count, dtype=bool)
    for i, value in hc.items():
        if distinct[i] and isinstance(value, str) and value.strip():
            settled[hands[i]] = True
    fantasy: dict[int, Hand] = {}
    events = list(map(_EVENTS, _gather(found, picked)))
    for i in np.flatnonzero(np.fromiter(map(len, events), np.int64, len(events)) > 4).tolist():
        raw = bytes(events[i])
        if distinct[i] and (FANTASY_BYTES in raw or b"\\u" in raw):
            holder = fantasy.setdefault(int(hands[i]), Hand("", "", 0, 0, None, []))
            try:
                decoded = fast_json.loads(raw.decode("utf-8"))
                fantasy_names(holder, decoded if isinstance(decoded, list) else [])
            except BAD_INPUT:
                return None  # the per-line fold quarantines the line

    stored_at = np.flatnonzero(roster_code >= 0)
    player_names = player.take(pa.array(name_at[stored_at])).to_pylist()
    in_fantasy = folded.fantasy[stored_at].copy()
    for hand, holder in fantasy.items():
        for j in np.flatnonzero(hand_by_seat[stored_at] == hand).tolist():
            in_fantasy[j] |= player_names[j] in holder.fantasy_names
    reported = np.where(settled[hand_by_seat] & (last_points >= 0), last_points, -1)[stored_at]
    point_values = points.take(pa.array(np.maximum(reported, 0))) if len(flat) else points
    point_values = pc.if_else(pa.array(reported >= 0), point_values, pa.scalar(None, pa.float64()))
    odd = np.bincount(hand_by_seat[folded.odd], minlength=count) > 0
    cards_seen = (folded.placed + folded.active)[stored_at] > 0
    odd |= np.bincount(hand_by_seat[stored_at][cards_seen], minlength=count) == 0
    renumber = np.full(seat_count, -1, dtype=np.int64)
    renumber[stored_at] = np.arange(len(stored_at))
    card_seat = renumber[folded.seat]
    kept = card_seat >= 0
    stored_hand = hand_by_seat[stored_at]
    within = np.arange(len(stored_at)) - np.searchsorted(stored_hand, stored_hand)
    return Inner(
        table_id=table_ids,
        hand_id=hand_ids,
        code=codes_of_hand,
        line=lines[first_line] + block.first,
        captured_at=[block.messages[i].captured_at for i in lines[first_line].tolist()],
        raw_text=text,
        odd=odd,
        seat_hand=stored_hand,
        position=within,
        player=player_names,
        hero=folded.seen_active[stored_at],
        in_fantasy=in_fantasy,
        points=point_values,
        card_seat=card_seat[kept],
        destination=folded.destination[kept],
        street=folded.street[kept],
        card=folded.card[kept],
        move=folded.move[kept],
    )


def _raw_texts(block: Block, lines: Ints, hands: Ints, count: int) -> pa.Array:
    """Each hand's lines (in order) as one text: runs of consecutive lines copied at once."""
    ends = np.asarray(block.ends, dtype=np.int64)
    starts = np.concatenate(([0], ends[:-1]))
    data = block.text.encode("utf-8") if isinstance(block.text, str) else block.text
    new = np.ones(len(lines), dtype=bool)
    new[1:] = (lines[1:] != lines[:-1] + 1) | (hands[1:] != hands[:-1])
    last = np.ones(len(lines), dtype=bool)
    last[:-1] = new[1:]
    seg_start, seg_end = starts[lines[new]], ends[lines[last]]
    if len(seg_start) == count and (seg_start[1:] == seg_end[:-1]).all():
        # A hand a run, the runs end to end (one table): the texts are the block's bytes.
        offsets = np.append(seg_start, seg_end[-1:]).astype(np.int32) if count else [0]
        return pa.StringArray.from_buffers(
            count, pa.py_buffer(np.asarray(offsets, np.int32)), pa.py_buffer(data)
        )
    view = memoryview(data)
    joined = b"".join(
        [view[a:b] for a, b in zip(seg_start.tolist(), seg_end.tolist(), strict=True)]
    )
    sizes = np.bincount(hands[new], weights=seg_end - seg_start, minlength=count).astype(np.int64)
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(sizes, out=offsets[1:])
    return pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(joined))
