"""The SwC layout fold for many seats at once: every changed ``d`` string of a block parsed and
folded with NumPy, card by card, instead of one Python call per string.

A seat's layouts, in the order the fold would apply them, are folded here
when they are *ordinary*: each text is ``ids-T-M-B`` as ``swc_fast.fold``
reads it without help (canonical distinct ids below 52, ``T <= 3``, ``M, B
<= 5``, at least ``T + M + B`` ids), a card that reaches a row stays in that
row in every later layout and is never active again, and a card that leaves
the active cards without reaching a row (a discard) never shows again.  Then
what ``fold`` does step by step has a closed form: a card is placed on the
first step it shows in a row, a card is discarded on the step it is gone,
the street is the row count of that step's layout (no Fantasyland jump yet),
and within a step placed cards go in the order of the active cards before
it.  A seat that is not ordinary is flagged; its hand is read the usual way.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
DASH, SEMI, ZERO = ord("-"), ord(";"), ord("0")
_NO_BEFORE = 99  # fold's sort key of a placed card that was not active before
# Seats x steps the dense tables of :func:`fold` may span (64 cards each: 16 MiB a table).
# A block holds a few hundred seats of about 20 layouts each; a capture that repeats one
# seat's layout thousands of times is folded line by line instead (swc_block checks).
MAX_CELLS = 1 << 18


class Folded(NamedTuple):
    """Per seat (index ``0..seats-1``) and per stored card, what the fold leaves.

    Cards come in row order: by seat, destination (top, middle, bottom,
    discard), then as the row grew; ``move`` is each card's place in its
    seat's placements (the order ``fold`` appended them).
    """

    odd: Bools  # seats the closed form does not cover
    fantasy: Bools  # a step placed more than five cards
    seen_active: Bools
    placed: Ints  # cards in rows after the last layout
    active: Ints  # active cards of the last layout
    seat: Ints  # per card
    destination: Ints
    street: Ints
    card: Ints
    move: Ints


class Layouts(NamedTuple):
    """The ids of many ``d`` texts, one entry per id (texts in order), and each text's counts."""

    odd: Bools  # per text: not an ordinary ``ids-T-M-B``
    text: Ints  # per id: its text
    position: Ints  # per id: its place in the text's ids
    card: Ints
    rows: Ints  # per text: T + M + B (ids in rows)
    bounds: Ints  # per text: (T, T + M) as a (texts, 2) array
    ids: Ints  # per text: how many ids


def parse(texts: pa.Array) -> Layouts:
    """Every text read as ``swc_fast.fold`` reads the usual ones; the others flagged ``odd``.

    Each character is classed once: the tail must be ``-T-M-B`` (one digit
    each), the head only digits and ``;`` with no empty item, each item one
    digit or two without a leading zero, below 52, and no id twice.  Counts
    per text are differences of running sums at the texts' bounds.
    """
    count = len(texts)
    _, offset_buffer, data = texts.buffers()
    offsets = np.frombuffer(offset_buffer, np.int32)[texts.offset : texts.offset + count + 1]
    offsets = offsets.astype(np.int64)
    raw = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    raw = np.concatenate([raw[offsets[0] : offsets[-1]], np.zeros(8, np.uint8)])  # 8 spare
    starts, ends = offsets[:-1] - offsets[0], offsets[1:] - offsets[0]
    lengths = ends - starts
    odd = lengths < 7
    head_end = np.where(odd, starts, ends - 6)
    chars = raw[head_end[:, None] + np.arange(6)]
    digits = chars[:, 1::2].astype(np.int64) - ZERO
    odd |= (chars[:, 0::2] != DASH).any(axis=1)
    odd |= (digits < 0).any(axis=1) | (digits[:, 0] > 3) | (digits[:, 1:] > 5).any(axis=1)
    bounds = np.zeros(len(raw) + 1, dtype=np.int8)
    if (lengths > 0).all():  # then each text starts at its own index
        bounds[starts] += 1
        bounds[head_end] -= 1
    else:
        np.add.at(bounds, starts, 1)
        np.add.at(bounds, head_end, -1)
    head = np.cumsum(bounds[:-1], dtype=np.int8) > 0
    digit = head & (raw >= ZERO) & (raw <= ZERO + 9)
    semi = head & (raw == SEMI)
    item_start = digit.copy()
    item_start[1:] &= ~digit[:-1]  # a digit after a non-digit (";", or the text before)
    # Three counts per text from one running sum: 21 bits each (a text is far shorter),
    # differences taken modulo 2**64.
    packed = item_start.astype(np.uint64)
    packed |= (head & ~digit & ~semi).astype(np.uint64) << np.uint64(21)
    packed |= semi.astype(np.uint64) << np.uint64(42)
    total = np.zeros(len(raw) + 1, dtype=np.uint64)
    np.cumsum(packed, out=total[1:])
    counts = total[head_end] - total[starts]
    field = np.uint64((1 << 21) - 1)
    items = (counts & field).astype(np.int64)
    odd |= ((counts >> np.uint64(21)) & field) > 0  # a character not a digit or ";"
    odd |= ((counts >> np.uint64(42)) & field).astype(np.int64) + 1 != items  # an empty item
    at = np.flatnonzero(item_start)
    second = digit[at + 1]  # (the spare bytes keep these in range)
    third = second & digit[at + 2]
    tens = raw[at].astype(np.int64) - ZERO
    card = np.where(second, tens * 10 + raw[at + 1].astype(np.int64) - ZERO, tens)
    text = np.repeat(np.arange(count), items)
    bad_item = third | (second & (tens == 0)) | (card >= 52)
    odd[text[bad_item]] = True
    first_item = np.cumsum(items) - items
    position = np.arange(len(at)) - first_item[text]
    top, middle, bottom = digits[:, 0], digits[:, 1], digits[:, 2]
    rows = top + middle + bottom
    odd |= rows > items
    # No id twice: one bit per id, OR-ed over each text, counts its distinct ids.
    if len(at):
        bits = np.left_shift(np.uint64(1), np.clip(card, 0, 63).astype(np.uint64))
        some = items > 0
        ored = np.bitwise_or.reduceat(bits, np.minimum(first_item[some], len(at) - 1))
        odd[np.flatnonzero(some)[np.bitwise_count(ored) != items[some]]] = True
    return Layouts(odd, text, position, card, rows, np.stack([top, top + middle], 1), items)


def fold(layouts: Layouts, seat: Ints, seats: int, pineapple: Bools) -> Folded:
    """The closed form of ``fold`` over each seat's layouts (``seat[i]``: text i's seat,
    texts grouped by seat in the order they are applied); ``pineapple`` per seat.

    No sort of the cards: a (seat, card) pair and a (seat, step, card) triple
    index dense tables (a block holds a few hundred seats), so counts are
    ``bincount`` and lookups are gathers.
    """
    count = len(seat)
    step = np.arange(count) - np.searchsorted(seat, seat)  # each text's step in its seat
    steps = np.bincount(seat, minlength=seats)
    odd = np.zeros(seats, dtype=bool)
    odd[seat[layouts.odd]] = True
    text, position = layouts.text, layouts.position
    card = np.clip(layouts.card, 0, 63)  # (ids past 51 are in odd texts)
    owner, when = seat[text], step[text]
    in_rows = layouts.rows[text]
    row = (position >= layouts.bounds[text, 0]).astype(np.int64)
    row += position >= layouts.bounds[text, 1]
    row = np.where(position < in_rows, row, 3)
    span = int(steps.max()) + 2 if seats else 2
    pair = owner * 64 + card  # one card of one seat
    pairs = seats * 64
    # Rows: a card in a row is there, in that row, on every step from its first on.  Its
    # steps are distinct, so they are exactly first..last when none is before
    # ``steps - times seen``.
    in_row = row < 3
    seen = np.bincount(pair[in_row], minlength=pairs)
    first_row = np.repeat(steps, 64) - seen  # the step it reached its row, if it did
    # Those steps include the seat's last: the row there is the row every step.
    final = when == steps[owner] - 1
    final_row = np.full(pairs, 9, dtype=np.int64)
    final_row[pair[final]] = row[final]  # (a card once a layout, in ordinary texts)
    bad = in_row & ((when < first_row[pair]) | (row != final_row[pair]))
    bad |= ~in_row & (seen[pair] > 0) & (when >= first_row[pair])  # active again
    # Discards: an active card missing from the next layout, never to show again.
    slot = (owner * span + when) * 64 + card  # a card of one step
    shown = np.zeros(seats * span * 64 + 64, dtype=bool)
    shown[slot] = True
    active = row == 3
    gone = active & (when + 1 < steps[owner]) & ~shown[slot + 64]
    last_seen = np.zeros(pairs, dtype=np.int64)
    np.maximum.at(last_seen, pair, when)
    bad |= gone & (last_seen[pair] > when)
    odd[owner[bad]] = True

    # Placements: a card on the first step it shows in a row, after the active cards
    # of the step before in their order.
    placed = in_row & (when == first_row[pair])
    rank = position - in_rows  # an active card's place among the active cards
    before_rank = np.full(seats * span * 64 + 64, _NO_BEFORE, dtype=np.int8)
    before_rank[slot[active] + 64] = rank[active]  # looked up a step later
    events = np.concatenate([np.flatnonzero(placed), np.flatnonzero(gone)])
    is_gone = np.arange(len(events)) >= len(events) - int(gone.sum())
    step_of = when[events] + is_gone  # a card is gone on the step after it was active
    seat_of = owner[events]
    order_in_step = np.where(is_gone, rank[events], before_rank[slot[events]])
    within = position[events]
    destination = np.where(is_gone, 3, row[events])
    cards = layouts.card[events]

    # The street of each step: its layout's row count, 0 once a step placed six or more.
    step_index = seat_of * span + step_of
    per_step = np.bincount((owner * span + when)[placed], minlength=seats * span)
    fantasy_by = np.cumsum((per_step > 5).reshape(seats, span), axis=1) > 0
    fantasy = fantasy_by[:, -1] if seats else np.zeros(0, bool)
    text_of_step = np.zeros(seats * span, dtype=np.int64)
    text_of_step[seat * span + step] = np.arange(count)
    counted = layouts.rows[text_of_step[step_index]]
    street = np.where(pineapple[seat_of], (counted - 4) // 2, counted - 5)
    street = np.where(fantasy_by.ravel()[step_index] | (counted <= 5), 0, street)

    # Each card's place among its seat's placements, and the cards in row order.
    moves_key = (((step_index * 2 + is_gone) * 128 + order_in_step) * 64) + within
    move_order = np.argsort(moves_key)
    move = np.empty(len(move_order), dtype=np.int64)
    move[move_order] = np.arange(len(move_order))
    rows_key = ((seat_of * 4 + destination) * span + step_of) * 64 + within
    row_order = np.argsort(rows_key)
    seat_sorted = seat_of[row_order]
    first_move = np.zeros(seats + 1, dtype=np.int64)
    np.cumsum(np.bincount(seat_of, minlength=seats), out=first_move[1:])
    move = move[row_order] - first_move[seat_sorted]

    last_text = np.searchsorted(seat, np.arange(seats), side="right") - 1
    has = steps > 0
    final_rows = np.where(has, layouts.rows[np.maximum(last_text, 0)], 0)
    final_active = np.where(has, layouts.ids[np.maximum(last_text, 0)] - final_rows, 0)
    seen_active = np.zeros(seats, dtype=bool)
    seen_active[seat[layouts.ids > layouts.rows]] = True
    return Folded(
        odd,
        fantasy,
        seen_active,
        final_rows,
        final_active,
        seat_sorted,
        destination[row_order],
        street[row_order],
        cards[row_order],
        move,
    )
