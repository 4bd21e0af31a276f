"""`ofc-stats score --format json` end to end on arrays: text in, the core scores, text out.

Lines in the usual shape (rows like ``"Qs Qd 5c"``: cards of two ASCII
characters one space apart) become card ids in one NumPy pass per chunk;
results are written from the result arrays, each distinct board result or
number formatted once per chunk.  Any other line, and any line the fast
reading finds wrong, goes through :func:`score_io.parse_hand`, the definition,
so errors read exactly as they always did.  ``tests/test_batch.py`` proves the
output equal, line for line, to ``json.dumps`` of :func:`score_io.result_record`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ofc_stats.cli.score_io import (
    CHUNK,
    HandInput,
    LineError,
    SeatOptions,
    parse_hand,
    seat_options,
)
from ofc_stats.core.scoring import BatchResult, repeated_cards, score_batch
from ofc_stats.engine.board import BOARD_SIZE
from ofc_stats.engine.cards import RANK_CHARS, SUIT_CHARS
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import HandError, OfcError

_RANKS = np.full(256, -1, np.int16)
_RANKS[np.frombuffer(RANK_CHARS.encode(), np.uint8)] = np.arange(len(RANK_CHARS))
_SUITS = np.full(256, -1, np.int16)
_SUITS[np.frombuffer(SUIT_CHARS.encode(), np.uint8)] = np.arange(len(SUIT_CHARS))
SEAT_TEXT = 3 * BOARD_SIZE  # 13 cards of two characters, each followed by " " or "|"


@dataclass
class _Chunk:
    """What each line of a chunk became, and its hands' seats as text."""

    texts: list[str]  # per seat: its rows as "top|middle|bottom|" (filler for a slow hand)
    options: list[SeatOptions]  # per hand
    slow: dict[int, HandInput]  # hand index -> read by parse_hand
    order: list[int | LineError]  # per line: its hand index, or its error
    lines: list[int]  # per hand: its line number


def _defaults(seats: int) -> SeatOptions:
    return (None, (False,) * seats, (0,) * seats)


_DEFAULTS = {seats: _defaults(seats) for seats in range(2, 5)}


def _fast_seats(data: Any, max_seats: int) -> list[str] | None:
    """Each seat's rows as ``top|middle|bottom|``, or None when the hand is not read here.

    Nothing is checked but the shape: whatever is not two-character cards one
    space apart fails the character check of :func:`_card_ids`.
    """
    try:
        boards = data["boards"]
        if not 2 <= len(boards) <= max_seats:
            return None
        return [f"{b['top']}|{b['middle']}|{b['bottom']}|" for b in boards]
    except (TypeError, KeyError, IndexError):
        return None


def _read(numbered: list[tuple[int, str]], ruleset: Ruleset, source: str) -> _Chunk:
    chunk = _Chunk([], [], {}, [], [])
    decode = _DECODER.decode
    max_seats = ruleset.max_seats
    for number, text in numbered:
        seats = options = None
        try:
            data = decode(text)
            seats = _fast_seats(data, max_seats)
            if seats is not None:
                count = len(seats)
                options = _DEFAULTS[count] if len(data) == 1 else seat_options(data, count, "")
        except (ValueError, RecursionError, HandError):
            seats = None
        if seats is None or options is None:
            try:
                hand = parse_hand(text, number, ruleset, source)
            except OfcError as error:
                chunk.order.append(LineError(number, str(error)))
                continue
            chunk.slow[len(chunk.lines)] = hand
            chunk.texts.extend(_FILLER for _ in hand.boards)
            options = (hand.stacks, hand.in_fantasy, hand.fantasy_cards)
        else:
            chunk.texts.extend(seats)
        chunk.options.append(options)
        chunk.order.append(len(chunk.lines))
        chunk.lines.append(number)
    return chunk


_DECODER = json.JSONDecoder()  # what json.loads uses, without its checks per call
_FILLER = "?" * SEAT_TEXT  # a seat read elsewhere: never clean


def _card_ids(texts: list[str]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """(seats, 13) card ids of the seat texts, and which seats read cleanly.

    A clean seat is exactly ``"Qs Qd 5c|2h 3h 4h 5h 6h|7c 8c 9c Tc Jc|"``: ranks
    and suits known, a space after each card but the last of a row, ``|`` there.
    """
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    sized = lengths == SEAT_TEXT
    if not sized.all():
        texts = [t if ok else _FILLER for t, ok in zip(texts, sized.tolist(), strict=True)]
    joined = "".join(texts).encode("ascii", "replace")
    chars = np.frombuffer(joined, np.uint8).reshape(len(texts), BOARD_SIZE, 3)
    ranks, suits = _RANKS[chars[:, :, 0]], _SUITS[chars[:, :, 1]]
    clean = ((ranks >= 0) & (suits >= 0)).all(axis=1)
    clean &= (chars[:, :, 2] == _SEPARATORS).all(axis=1) & sized
    return (ranks * 4 + suits).astype(np.int8), clean


_SEPARATORS = np.full(BOARD_SIZE, ord(" "), np.uint8)
_SEPARATORS[[2, 7, 12]] = ord("|")  # after the last card of top, middle, bottom


def score_lines(
    lines: Iterable[str], ruleset: Ruleset, source: str = "-", chunk: int = CHUNK
) -> Iterator[str | LineError]:
    """JSON result lines and line errors, in input order."""
    numbered: list[tuple[int, str]] = []
    for number, text in enumerate(lines, start=1):
        if text.strip():
            numbered.append((number, text))
        if len(numbered) >= chunk:
            yield from _score_chunk(numbered, ruleset, source)
            numbered = []
    if numbered:
        yield from _score_chunk(numbered, ruleset, source)


def _score_chunk(
    numbered: list[tuple[int, str]], ruleset: Ruleset, source: str
) -> Iterator[str | LineError]:
    chunk = _read(numbered, ruleset, source)
    count = len(chunk.lines)
    seat_counts = np.fromiter((len(o[1]) for o in chunk.options), np.int64, count)
    width = int(seat_counts.max()) if count else 2
    starts = np.zeros(count, dtype=np.int64)
    np.cumsum(seat_counts[:-1], out=starts[1:])
    cards, clean = _card_ids(chunk.texts)
    for hand, parsed in chunk.slow.items():
        for seat, board in enumerate(parsed.boards):
            cards[starts[hand] + seat] = board.cards
            clean[starts[hand] + seat] = True
    seated = np.arange(width) < seat_counts[:, None]
    rows = np.where(seated, starts[:, None] + np.arange(width), 0)  # (hands, width) seats
    boards = cards[rows] if count else np.zeros((0, width, BOARD_SIZE), np.int8)
    hand_clean = np.logical_and.reduceat(clean, starts) if count else np.zeros(0, bool)
    hand_clean &= ~repeated_cards(boards, seated)  # read cards are 0..51: in any deck
    errors: dict[int, LineError] = {}
    text_of = dict(numbered)
    for hand in np.flatnonzero(~hand_clean).tolist():
        if hand in chunk.slow:
            continue
        line = chunk.lines[hand]  # a card that did not read, or twice: the definition says why
        try:
            parsed = parse_hand(text_of[line], line, ruleset, source)
        except OfcError as error:
            errors[hand] = LineError(line, str(error))
            continue
        boards[hand, : len(parsed.boards)] = [board.cards for board in parsed.boards]
    keep = np.flatnonzero(~np.isin(np.arange(count), list(errors)))
    texts = _results_text(boards[keep], seated[keep], [chunk.options[i] for i in keep], ruleset)
    position = dict(zip(keep.tolist(), texts, strict=True))
    for item in chunk.order:
        if isinstance(item, LineError):
            yield item
        else:
            yield errors[item] if item in errors else position[item]


def _results_text(
    boards: npt.NDArray[np.int8],
    seated: npt.NDArray[np.bool_],
    options: list[SeatOptions],
    ruleset: Ruleset,
) -> list[str]:
    """Score the hands and write one JSON line each (the layout of ``json.dumps``)."""
    if not len(options):
        return []
    shape = seated.shape
    in_fantasy = np.zeros(shape, bool)
    fantasy_cards = np.zeros(shape, np.int8)
    stacks = np.full(shape, np.nan)
    for row, (hand_stacks, flags, counts) in enumerate(options):
        if hand_stacks is not None or any(flags) or any(counts):
            seats = len(flags)
            in_fantasy[row, :seats] = flags
            fantasy_cards[row, :seats] = counts
            if hand_stacks is not None:
                stacks[row, :seats] = hand_stacks
    result = score_batch(
        np.where(seated[:, :, None], boards, np.arange(BOARD_SIZE, dtype=np.int8)),
        ruleset,
        seated=seated,
        in_fantasy=in_fantasy,
        fantasy_cards=fantasy_cards,
        stacks=stacks,
        check=False,
    )
    counts = seated.sum(axis=1)
    out: list[str] = [""] * len(options)
    for seats in np.unique(counts).tolist():
        members = np.flatnonzero(counts == seats)
        for row, text in zip(members.tolist(), _texts(result, members, seats), strict=True):
            out[row] = text
    return out


def _texts(result: BatchResult, members: npt.NDArray[np.int64], seats: int) -> list[str]:
    """The JSON lines of the hands ``members``, all with ``seats`` seats."""
    net = result.net[members, :seats]
    points = result.points[members, :seats, :seats].reshape(len(members), -1)
    numbers = _formatted(np.concatenate([net, points], axis=1).astype(np.float64))
    capped = _formatted(result.net_capped[members, :seats])
    boards = _board_texts(result, members, seats)
    args = np.concatenate([numbers[:, :seats], capped, numbers[:, seats:], boards], axis=1)
    template = _template(seats)
    return [template % tuple(row) for row in args.tolist()]


def _template(seats: int) -> str:
    listed = ", ".join(["%s"] * seats)
    points = ", ".join(["[" + listed + "]"] * seats)
    return (
        f'{{"net": [{listed}], "net_capped": [{listed}], "points": [{points}], '
        f'"boards": [{listed}]}}'
    )


def _formatted(values: npt.NDArray[np.float64]) -> npt.NDArray[np.object_]:
    """Each number as json.dumps writes :func:`score_io._number` of it, formatted once."""
    unique, inverse = np.unique(values, return_inverse=True)
    texts = np.array([_number_text(v) for v in unique.tolist()] or [""], dtype=object)
    formatted: npt.NDArray[np.object_] = texts[inverse.reshape(values.shape)]
    return formatted


def _number_text(value: float) -> str:
    if not math.isfinite(value):
        return json.dumps(value)
    if value.is_integer():
        return str(int(value))
    return repr(round(value, 6))


def _board_texts(
    result: BatchResult, members: npt.NDArray[np.int64], seats: int
) -> npt.NDArray[np.object_]:
    """(hands, seats) board objects: each distinct board result formatted once."""
    qualifies = result.fantasy_qualifies[members, :seats]
    stays = result.fantasy_stays[members, :seats]
    repeat = result.repeat_cards[members, :seats].astype(np.int64)
    fields = [
        result.fouled[members, :seats].astype(np.int64),
        result.royalty_top[members, :seats].astype(np.int64),
        result.royalty_middle[members, :seats].astype(np.int64),
        result.royalty_bottom[members, :seats].astype(np.int64),
        qualifies.astype(np.int64),
        np.where(qualifies, result.fantasy_cards[members, :seats], -1).astype(np.int64),
        stays.astype(np.int64),
        np.where(stays & (repeat > 0), repeat, -1).astype(np.int64),
    ]
    code = np.zeros(qualifies.shape, np.int64)
    for field in fields:  # each fits in 8 bits: royalties < 128, card counts < 20
        code = (code << 8) | (field & 255)
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    flat = [f.reshape(-1)[first].tolist() for f in fields]
    texts = np.array(
        [_board_text(*values) for values in zip(*flat, strict=True)] or [""], dtype=object
    )
    boards: npt.NDArray[np.object_] = texts[inverse.reshape(code.shape)]
    return boards


def _board_text(
    fouled: int,
    top: int,
    middle: int,
    bottom: int,
    qualifies: int,
    cards: int,
    stays: int,
    repeat: int,
) -> str:
    return (
        f'{{"fouled": {_BOOL[fouled]}, "royalties": {{"top": {top}, "middle": {middle}, '
        f'"bottom": {bottom}, "total": {top + middle + bottom}}}, "fantasyland": '
        f'{{"qualifies": {_BOOL[qualifies]}, "cards": {cards if cards >= 0 else "null"}, '
        f'"stays": {_BOOL[stays]}, "repeat_cards": {repeat if repeat >= 0 else "null"}}}}}'
    )


_BOOL = ("false", "true")
