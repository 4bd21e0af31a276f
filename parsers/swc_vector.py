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
    digit or two without a leading zero, below 52, and no id twice.
    """
    count = len(texts)
    _, offset_buffer, data = texts.buffers()
    offsets = np.frombuffer(offset_buffer, np.int32)[texts.offset : texts.offset + count + 1]
    offsets = offsets.astype(np.int64)
    raw = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    raw = raw[offsets[0] : offsets[-1]]
    starts, ends = offsets[:-1] - offsets[0], offsets[1:] - offsets[0]
    lengths = ends - starts
    odd = lengths < 7
    tail = np.where(odd, 7, lengths)[:, None] - np.arange(6, 0, -1) + starts[:, None]
    tail = np.where(odd[:, None], 0, tail)
    chars = raw[tail] if len(raw) else np.zeros((count, 6), np.uint8)
    digits = chars[:, 1::2].astype(np.int64) - ZERO
    odd |= (chars[:, 0::2] != DASH).any(axis=1)
    odd |= (digits < 0).any(axis=1) | (digits[:, 0] > 3) | (digits[:, 1:] > 5).any(axis=1)
    owner = np.repeat(np.arange(count), lengths)
    within = np.arange(len(raw)) - np.repeat(starts, lengths)
    head = within < (lengths - 6)[owner]
    digit = (raw >= ZERO) & (raw <= ZERO + 9)
    semi = raw == SEMI
    odd |= np.bincount(owner[head & ~digit & ~semi], minlength=count) > 0
    before_semi = np.zeros(len(raw), dtype=bool)
    before_semi[1:] = semi[:-1]
    first = head & digit & ((within == 0) | before_semi)
    items = np.bincount(owner[first], minlength=count)
    odd |= np.bincount(owner[head & semi], minlength=count) + 1 != items  # an empty item
    at = np.flatnonzero(first)
    second = np.zeros(len(at), dtype=bool)
    inside = at + 1 < len(raw)
    second[inside] = (head & digit)[at[inside] + 1] & (owner[at[inside] + 1] == owner[at[inside]])
    third = np.zeros(len(at), dtype=bool)
    inside = at + 2 < len(raw)
    third[inside] = (head & digit)[at[inside] + 2] & (owner[at[inside] + 2] == owner[at[inside]])
    third &= second  # a third digit of the same item
    tens = raw[at].astype(np.int64) - ZERO
    ones = np.where(second, raw[np.minimum(at + 1, len(raw) - 1)].astype(np.int64) - ZERO, 0)
    card = np.where(second, tens * 10 + ones, tens)
    text = owner[at]
    bad_item = third | (second & (tens == 0)) | (card >= 52)
    odd |= np.bincount(text[bad_item], minlength=count) > 0
    first_item = np.cumsum(items) - items
    position = np.arange(len(at)) - first_item[text]
    top, middle, bottom = digits[:, 0], digits[:, 1], digits[:, 2]
    rows = top + middle + bottom
    odd |= rows > items
    keys = np.sort(text * 64 + np.clip(card, 0, 63))
    twice = keys[1:][keys[1:] == keys[:-1]] >> 6
    odd[twice] = True
    return Layouts(odd, text, position, card, rows, np.stack([top, top + middle], 1), items)


def fold(layouts: Layouts, seat: Ints, seats: int, pineapple: Bools) -> Folded:
    """The closed form of ``fold`` over each seat's layouts (``seat[i]``: text i's seat,
    texts grouped by seat in the order they are applied); ``pineapple`` per seat."""
    count = len(seat)
    step = np.arange(count) - np.searchsorted(seat, seat)  # each text's step in its seat
    steps = np.bincount(seat, minlength=seats)
    odd = np.bincount(seat[layouts.odd], minlength=seats) > 0
    text, position, card = layouts.text, layouts.position, layouts.card
    owner, when = seat[text], step[text]
    bounds = layouts.bounds[text]
    row = np.where(position < bounds[:, 0], 0, np.where(position < bounds[:, 1], 1, 2))
    row = np.where(position < layouts.rows[text], row, 3)
    span = int(steps.max()) + 2 if seats else 2
    key = owner * 64 + np.clip(card, 0, 63)  # one card of one seat
    # Rows: a card in a row is there, in that row, on every step from its first on.
    in_row = row < 3
    order = np.lexsort((when, key))
    k_sorted, in_row_sorted = key[order], in_row[order]
    start = np.ones(len(order), dtype=bool)
    start[1:] = k_sorted[1:] != k_sorted[:-1]
    group = np.cumsum(start) - 1
    groups = int(group[-1]) + 1 if len(group) else 0
    rows_of = np.bincount(group, weights=in_row_sorted, minlength=groups).astype(np.int64)
    first_row_step = np.full(groups, span, dtype=np.int64)
    np.minimum.at(first_row_step, group[in_row_sorted], when[order][in_row_sorted])
    last_step = np.zeros(groups, dtype=np.int64)
    np.maximum.at(last_step, group, when[order])
    group_seat = k_sorted[start] >> 6
    placed_rows = rows_of > 0
    bad = placed_rows & (rows_of != steps[group_seat] - first_row_step)
    row_min = np.full(groups, 9, dtype=np.int64)
    row_max = np.full(groups, -1, dtype=np.int64)
    np.minimum.at(row_min, group[in_row_sorted], row[order][in_row_sorted])
    np.maximum.at(row_max, group[in_row_sorted], row[order][in_row_sorted])
    bad |= placed_rows & (row_min != row_max)
    late_active = ~in_row_sorted & (when[order] >= first_row_step[group])
    bad |= np.bincount(group[late_active], minlength=groups) > 0
    card_group = np.empty(len(order), dtype=np.int64)
    card_group[order] = group

    # Discards: an active card missing from the next layout, never to show again.
    slot = (owner * span + when) * 64 + np.clip(card, 0, 63)  # a card of one step
    slots = np.sort(slot)
    active = row == 3
    nxt = slot + 64  # the same card a step later
    found = np.searchsorted(slots, nxt)
    present = (found < len(slots)) & (slots[np.minimum(found, len(slots) - 1)] == nxt)
    gone = active & (when + 1 < steps[owner]) & ~present
    bad_gone = gone & (last_step[card_group] > when)
    odd |= np.bincount(group_seat[bad], minlength=seats) > 0
    odd |= np.bincount(owner[bad_gone], minlength=seats) > 0

    # Placements: a card on the first step it shows in a row.
    placed = in_row & (when == first_row_step[card_group])
    active_slot = np.sort(slot[active])
    active_rank = (position - layouts.rows[text])[active][np.argsort(slot[active])]
    before = np.full(len(slot), _NO_BEFORE, dtype=np.int64)
    if len(active_slot):
        earlier = slot - 64  # the same card a step before
        found = np.minimum(np.searchsorted(active_slot, earlier), len(active_slot) - 1)
        hit = (active_slot[found] == earlier) & (when > 0)
        before = np.where(hit, active_rank[found], _NO_BEFORE)
    before_gone = position - layouts.rows[text]

    step_of = np.concatenate([when[placed], when[gone] + 1])
    seat_of = np.concatenate([owner[placed], owner[gone]])
    is_gone = np.concatenate([np.zeros(int(placed.sum()), bool), np.ones(int(gone.sum()), bool)])
    rank = np.concatenate([before[placed], before_gone[gone]])
    within = np.concatenate([position[placed], position[gone]])
    destination = np.concatenate([row[placed], np.full(int(gone.sum()), 3)])
    cards = np.concatenate([card[placed], card[gone]])

    # The street of each step: its layout's row count, 0 once a step placed six or more.
    step_index = seat_of * span + step_of
    per_step = np.bincount(
        (owner * span + when)[placed], minlength=seats * span
    )  # cards placed per (seat, step)
    jump = (per_step > 5).reshape(seats, span)
    fantasy_by = np.cumsum(jump, axis=1) > 0
    fantasy = fantasy_by[:, -1] if seats else np.zeros(0, bool)
    text_of_step = np.full(seats * span, -1, dtype=np.int64)
    text_of_step[seat * span + step] = np.arange(count)
    in_rows = layouts.rows[text_of_step[step_index]]
    late = pineapple[seat_of]
    street = np.where(late, (in_rows - 4) // 2, in_rows - 5)
    street = np.where(fantasy_by.ravel()[step_index] | (in_rows <= 5), 0, street)

    move_order = np.lexsort((within, rank, is_gone, step_of, seat_of))
    move = np.empty(len(move_order), dtype=np.int64)
    move[move_order] = np.arange(len(move_order))
    row_order = np.lexsort((rank * is_gone, within, step_of, destination, seat_of))
    move = move[row_order]
    first_move = np.searchsorted(seat_of[move_order], np.arange(seats))
    seat_sorted = seat_of[row_order]
    move -= first_move[seat_sorted]

    last_text = np.searchsorted(seat, np.arange(seats), side="right") - 1
    has = steps > 0
    final_rows = np.where(has, layouts.rows[np.maximum(last_text, 0)], 0)
    final_active = np.where(has, layouts.ids[np.maximum(last_text, 0)] - final_rows, 0)
    seen = np.bincount(seat[layouts.ids > layouts.rows], minlength=seats) > 0
    return Folded(
        odd,
        fantasy,
        seen,
        final_rows,
        final_active,
        seat_sorted,
        destination[row_order],
        street[row_order],
        cards[row_order],
        move,
    )
