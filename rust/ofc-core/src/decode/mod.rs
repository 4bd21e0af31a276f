//! Import decoders: app JSON ([`app`]), the open format ([`open`]) and fpdb rows ([`fpdb`]) read
//! straight into the dataset's stored columns.
//!
//! The readable readers in `parsers/` (records, one hand at a time) are the
//! definition.  A decoder here takes a block of whole lines, decodes each
//! hand with serde into typed structs that borrow from the input (`Cow` where
//! a string may hold an escape), checks everything `records.validate_hand`
//! checks, and appends the hand to plain vectors: per hand, per seat, per
//! placed card, with strings as Arrow-style offsets and bytes.  Python wraps
//! those vectors as Arrow arrays without copying them (`from_buffers`,
//! `DictionaryArray.from_arrays`), so no `arrow` crate is needed here: the
//! stored layout is a handful of primitive and list columns, and the vectors
//! cross into NumPy by move.
//!
//! Whatever a decoder cannot read or judge exactly as the definition would
//! (a wrong type, an odd spelling, a refused hand, a layout it does not know)
//! is not guessed at: its lines come back as a [`Unit`] for the readable
//! reader, in file order, so it is read (or quarantined with its reason) by
//! the definition and never lost.

pub mod app;
pub mod fpdb;
pub mod open;
pub mod swc;
mod text;

use std::borrow::Cow;
use std::collections::HashMap;

use md5::{Digest, Md5};

pub use text::{Card, Obj, Text};

/// Destinations as the stored dictionary orders them (`engine.board.DESTINATIONS`).
pub const DESTINATIONS: [&str; 4] = ["top", "middle", "bottom", "discard"];
const DISCARD: u8 = 3;
const ROW_SIZES: [usize; 3] = [3, 5, 5];
/// Seats and streets are stored as int8 (`records.SMALL_INT`).
const SMALL_INT: i64 = 127;
/// Characters of an id or a name (`records.MAX_ID`).
const MAX_ID: usize = 1_000;

/// Whether a text holds more than [`MAX_ID`] characters (Python's len: code points).
fn too_long(text: &str) -> bool {
    text.len() > MAX_ID && text.chars().count() > MAX_ID
}
/// The largest hand text a decoder reads itself; a longer one is the definition's.
pub const MAX_HAND_BYTES: usize = 1 << 20;

/// A ruleset as the definition resolves a hand's rule text: its preset, seat limit and deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    pub index: u32,
    pub max_seats: u32,
    pub deck: u32,
}

/// What the caller's resolver says of one rule text: (preset name, max seats, deck size).
pub type Resolved = Option<(String, u32, u32)>;

/// Rule texts of one file, each resolved once (the caller asks the definition).
#[derive(Default)]
pub struct Presets {
    known: HashMap<String, Option<Preset>>,
    /// Preset names by [`Preset::index`].
    pub names: Vec<String>,
}

impl Presets {
    pub fn get(&mut self, text: &str, resolve: &mut dyn FnMut(&str) -> Resolved) -> Option<Preset> {
        if let Some(found) = self.known.get(text) {
            return *found;
        }
        let found = resolve(text).map(|(name, max_seats, deck)| {
            let index = match self.names.iter().position(|n| *n == name) {
                Some(at) => at,
                None => {
                    self.names.push(name);
                    self.names.len() - 1
                }
            };
            Preset {
                index: index as u32,
                max_seats,
                deck,
            }
        });
        self.known.insert(text.to_owned(), found);
        found
    }
}

/// One placed card: the street it came on, the card, its destination (index into [`DESTINATIONS`]).
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    pub street: i64,
    pub card: u8,
    pub destination: u8,
}

/// One seat as the definition's `SeatRecord` holds it.
#[derive(Debug, Default)]
pub struct SeatIn<'a> {
    pub position: i64,
    pub player: Cow<'a, str>,
    pub player_id: Option<Cow<'a, str>>,
    pub hero: bool,
    pub in_fantasy: bool,
    pub rows: [Vec<u8>; 3],
    /// In the record's order; None: the room hid them.
    pub discards: Option<Vec<u8>>,
    pub placements: Vec<Placed>,
    pub points: Option<f64>,
    pub money: Option<f64>,
    pub stack: Option<f64>,
}

/// One hand as the definition's `HandRecord` holds it (its seats in the record's order).
#[derive(Debug)]
pub struct HandIn<'a> {
    pub room: Cow<'a, str>,
    pub table_id: Cow<'a, str>,
    pub room_hand_id: Cow<'a, str>,
    pub rules_text: Option<Cow<'a, str>>,
    pub preset: Preset,
    pub played_at: Option<i64>,
    pub stakes: Option<f64>,
    pub currency: Option<Cow<'a, str>>,
    pub seats: Vec<SeatIn<'a>>,
}

/// A string column: Arrow's offsets and bytes, and which rows hold a value.
#[derive(Debug)]
pub struct Strings {
    pub offsets: Vec<i32>,
    pub data: Vec<u8>,
    pub valid: Vec<bool>,
}

impl Default for Strings {
    fn default() -> Self {
        Strings {
            offsets: vec![0],
            data: Vec::new(),
            valid: Vec::new(),
        }
    }
}

impl Strings {
    fn push(&mut self, text: &str) {
        self.data.extend_from_slice(text.as_bytes());
        self.offsets.push(self.data.len() as i32);
        self.valid.push(true);
    }

    fn push_opt(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.push(text),
            None => {
                self.offsets.push(self.data.len() as i32);
                self.valid.push(false);
            }
        }
    }
}

/// A list-of-int8 column: offsets and values, and which rows hold a list.
#[derive(Debug)]
pub struct Lists {
    pub offsets: Vec<i32>,
    pub values: Vec<i8>,
    pub valid: Vec<bool>,
}

impl Default for Lists {
    fn default() -> Self {
        Lists {
            offsets: vec![0],
            values: Vec::new(),
            valid: Vec::new(),
        }
    }
}

impl Lists {
    fn push(&mut self, cards: Option<&[u8]>) {
        if let Some(cards) = cards {
            self.values.extend(cards.iter().map(|&c| c as i8));
        }
        self.offsets.push(self.values.len() as i32);
        self.valid.push(cards.is_some());
    }
}

/// A nullable float column.
#[derive(Debug, Default)]
pub struct Floats {
    pub values: Vec<f64>,
    pub valid: Vec<bool>,
}

impl Floats {
    fn push(&mut self, value: Option<f64>) {
        self.values.push(value.unwrap_or(0.0));
        self.valid.push(value.is_some());
    }
}

/// The stored columns of the hands a block decoded (`store/schema.py` names them).
#[derive(Debug, Default)]
pub struct Columns {
    // hands
    pub line: Vec<i64>,
    pub offset: Vec<i64>,
    pub hand_key: Strings,
    pub room: Strings,
    pub table_id: Strings,
    pub room_hand_id: Strings,
    pub rules_text: Strings,
    pub preset: Vec<i32>,
    pub played_at: Vec<i64>,
    pub played_at_valid: Vec<bool>,
    pub stakes: Floats,
    pub currency: Strings,
    pub raw_text: Strings,
    pub seat_count: Vec<i8>,
    pub complete: Vec<bool>,
    /// 16 hex digits a hand.
    pub fingerprint: Vec<u8>,
    // seats
    pub seat_hand: Vec<i32>,
    pub seat: Vec<i8>,
    pub player: Strings,
    pub player_id: Strings,
    pub hero: Vec<bool>,
    pub in_fantasy: Vec<bool>,
    pub fantasy_cards: Vec<i8>,
    pub fantasy_cards_valid: Vec<bool>,
    pub top: Lists,
    pub middle: Lists,
    pub bottom: Lists,
    /// 13 bytes a seat.
    pub board: Vec<u8>,
    pub board_valid: Vec<bool>,
    pub board_streets: Vec<u8>,
    pub board_streets_valid: Vec<bool>,
    pub discards: Lists,
    pub points: Floats,
    pub money: Floats,
    pub stack: Floats,
    // placements
    pub card_hand: Vec<i32>,
    pub card_seat: Vec<i8>,
    pub street: Vec<i8>,
    pub card: Vec<i8>,
    pub destination: Vec<i8>,
}

/// Why [`Columns::push`] leaves a hand to the definition: `validate_hand` would refuse it.
fn storable(hand: &HandIn<'_>) -> bool {
    let Preset {
        max_seats, deck, ..
    } = hand.preset;
    // serde_json reads the integer -0 as -0.0, where Python's json gives 0 (0.0 as a float)
    let minus_zero = |x: &Option<f64>| x.is_some_and(|x| x == 0.0 && x.is_sign_negative());
    let seat_numbers = hand
        .seats
        .iter()
        .flat_map(|s| [&s.points, &s.money, &s.stack]);
    if minus_zero(&hand.stakes) || seat_numbers.into_iter().any(minus_zero) {
        return false;
    }
    if hand.seats.len() < 2 || hand.seats.len() > max_seats as usize {
        return false;
    }
    let ids = [&hand.room, &hand.table_id, &hand.room_hand_id];
    let names = hand
        .seats
        .iter()
        .flat_map(|s| [Some(&s.player), s.player_id.as_ref()]);
    if ids.into_iter().chain(names.flatten()).any(|t| too_long(t)) {
        return false;
    }
    let mut seen: u64 = 0;
    let mut positions: u128 = 0;
    for seat in &hand.seats {
        if !(0..=SMALL_INT).contains(&seat.position) {
            return false;
        }
        let bit = 1u128 << seat.position;
        if positions & bit != 0 {
            return false;
        }
        positions |= bit;
        for (row, size) in seat.rows.iter().zip(ROW_SIZES) {
            if row.len() > size {
                return false;
            }
        }
        let dealt = seat
            .rows
            .iter()
            .flatten()
            .chain(seat.discards.iter().flatten());
        for &card in dealt {
            if u32::from(card) >= deck || card >= 64 || seen & (1u64 << card) != 0 {
                return false;
            }
            seen |= 1u64 << card;
        }
        for placed in &seat.placements {
            if !(0..=SMALL_INT).contains(&placed.street) || u32::from(placed.card) >= deck {
                return false;
            }
        }
    }
    true
}

fn hex16(digest: &[u8]) -> [u8; 16] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 16];
    for (i, byte) in digest[..8].iter().enumerate() {
        out[2 * i] = HEX[(byte >> 4) as usize];
        out[2 * i + 1] = HEX[(byte & 15) as usize];
    }
    out
}

fn write_ids(text: &mut Vec<u8>, cards: &[u8]) {
    for (i, card) in cards.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        if *card >= 10 {
            text.push(b'0' + card / 10);
        }
        text.push(b'0' + card % 10);
    }
}

/// `records.fingerprint_of`: md5 of ``player US top|middle|bottom|discards`` per seat,
/// joined by ``;``, its first 16 hex digits.
pub fn fingerprint(seats: &[SeatIn<'_>], text: &mut Vec<u8>) -> [u8; 16] {
    text.clear();
    for (i, seat) in seats.iter().enumerate() {
        if i > 0 {
            text.push(b';');
        }
        text.extend_from_slice(seat.player.as_bytes());
        text.push(0x1f);
        for row in &seat.rows {
            write_ids(text, row);
            text.push(b'|');
        }
        write_ids(text, seat.discards.as_deref().unwrap_or(&[]));
    }
    hex16(&Md5::digest(&text[..]))
}

impl Columns {
    fn reserve(&mut self, bytes: usize) {
        let hands = bytes / 900 + 1;
        let (seats, cards) = (hands * 4, hands * 48);
        self.raw_text.data.reserve(bytes);
        for column in [
            &mut self.raw_text,
            &mut self.hand_key,
            &mut self.room_hand_id,
            &mut self.room,
            &mut self.table_id,
            &mut self.rules_text,
            &mut self.currency,
        ] {
            column.offsets.reserve(hands);
            column.valid.reserve(hands);
        }
        self.hand_key.data.reserve(hands * 32);
        self.fingerprint.reserve(hands * 16);
        for column in [&mut self.line, &mut self.offset, &mut self.played_at] {
            column.reserve(hands);
        }
        self.preset.reserve(hands);
        self.seat_count.reserve(hands);
        self.stakes.values.reserve(hands);
        for column in [
            &mut self.played_at_valid,
            &mut self.stakes.valid,
            &mut self.complete,
        ] {
            column.reserve(hands);
        }
        self.seat_hand.reserve(seats);
        for column in [&mut self.seat, &mut self.fantasy_cards] {
            column.reserve(seats);
        }
        for column in [&mut self.player, &mut self.player_id] {
            column.offsets.reserve(seats);
            column.valid.reserve(seats);
        }
        for column in [&mut self.points, &mut self.money, &mut self.stack] {
            column.values.reserve(seats);
            column.valid.reserve(seats);
        }
        for column in [
            &mut self.hero,
            &mut self.in_fantasy,
            &mut self.fantasy_cards_valid,
            &mut self.board_valid,
            &mut self.board_streets_valid,
        ] {
            column.reserve(seats);
        }
        self.player.data.reserve(seats * 16);
        for list in [
            &mut self.top,
            &mut self.middle,
            &mut self.bottom,
            &mut self.discards,
        ] {
            list.offsets.reserve(seats);
            list.valid.reserve(seats);
            list.values.reserve(seats * 5);
        }
        self.board.reserve(seats * 13);
        self.board_streets.reserve(seats * 13);
        self.card_hand.reserve(cards);
        for column in [
            &mut self.card_seat,
            &mut self.street,
            &mut self.card,
            &mut self.destination,
        ] {
            column.reserve(cards);
        }
    }

    pub fn hands(&self) -> usize {
        self.line.len()
    }

    /// Append a hand the definition would store; false (nothing appended) if it would refuse it.
    pub fn push(
        &mut self,
        format: &str,
        hand: &HandIn<'_>,
        line: i64,
        offset: i64,
        raw: &str,
        scratch: &mut Vec<u8>,
    ) -> bool {
        if !storable(hand) {
            return false;
        }
        let index = self.line.len() as i32;
        self.line.push(line);
        self.offset.push(offset);
        scratch.clear();
        for (i, part) in [format, &hand.room, &hand.table_id, &hand.room_hand_id]
            .iter()
            .enumerate()
        {
            if i > 0 {
                scratch.push(b':');
            }
            scratch.extend_from_slice(part.as_bytes());
        }
        self.hand_key.data.extend_from_slice(scratch);
        self.hand_key.offsets.push(self.hand_key.data.len() as i32);
        self.hand_key.valid.push(true);
        self.room.push(&hand.room);
        self.table_id.push(&hand.table_id);
        self.room_hand_id.push(&hand.room_hand_id);
        self.rules_text.push_opt(hand.rules_text.as_deref());
        self.preset.push(hand.preset.index as i32);
        self.played_at.push(hand.played_at.unwrap_or(0));
        self.played_at_valid.push(hand.played_at.is_some());
        self.stakes.push(hand.stakes);
        self.currency.push_opt(hand.currency.as_deref());
        self.raw_text.push(raw);
        self.seat_count.push(hand.seats.len() as i8);
        let complete = hand
            .seats
            .iter()
            .all(|s| s.rows.iter().map(Vec::len).eq(ROW_SIZES));
        self.complete.push(complete);
        let print = fingerprint(&hand.seats, scratch);
        self.fingerprint.extend_from_slice(&print);
        for seat in &hand.seats {
            self.push_seat(index, seat);
        }
        true
    }

    /// [`Columns::push`], with the placements table in the hand's own order (`moves`: seat
    /// index and placement, as the definition lists them) rather than seat by seat.
    pub fn push_ordered(
        &mut self,
        format: &str,
        hand: &HandIn<'_>,
        moves: &[(usize, Placed)],
        line: i64,
        raw: &str,
        scratch: &mut Vec<u8>,
    ) -> bool {
        let cards = self.card_hand.len();
        if !self.push(format, hand, line, 0, raw, scratch) {
            return false;
        }
        let index = self.line.len() as i32 - 1;
        self.card_hand.truncate(cards);
        self.card_seat.truncate(cards);
        self.street.truncate(cards);
        self.card.truncate(cards);
        self.destination.truncate(cards);
        for &(seat, p) in moves {
            self.card_hand.push(index);
            self.card_seat.push(hand.seats[seat].position as i8);
            self.street.push(p.street as i8);
            self.card.push(p.card as i8);
            self.destination.push(p.destination as i8);
        }
        true
    }

    fn push_seat(&mut self, hand: i32, seat: &SeatIn<'_>) {
        let position = seat.position as i8;
        self.seat_hand.push(hand);
        self.seat.push(position);
        self.player.push(&seat.player);
        self.player_id.push_opt(seat.player_id.as_deref());
        self.hero.push(seat.hero);
        self.in_fantasy.push(seat.in_fantasy);
        let dealt: usize = seat.rows.iter().map(Vec::len).sum::<usize>()
            + seat.discards.as_ref().map_or(0, Vec::len);
        let fantasy = seat.in_fantasy && seat.discards.is_some();
        self.fantasy_cards
            .push(if fantasy { dealt as i8 } else { 0 });
        self.fantasy_cards_valid.push(fantasy);
        self.top.push(Some(&seat.rows[0]));
        self.middle.push(Some(&seat.rows[1]));
        self.bottom.push(Some(&seat.rows[2]));
        let complete = seat.rows.iter().map(Vec::len).eq(ROW_SIZES);
        // store/rows.py: a board card's street is its last non-discard placement's (255 if
        // none); no board streets for a seat with no such placement.  Discards go in the
        // street of their last discard placement (99 if none), stable.  Cards are below 64
        // (storable checked them against the deck).
        let mut row_street = [255u8; 64];
        let mut discard_street = [99u8; 64];
        let mut placed = false;
        for p in &seat.placements {
            let street = p.street.min(255) as u8;
            if p.destination == DISCARD {
                discard_street[p.card as usize] = street;
            } else {
                row_street[p.card as usize] = street;
                placed = true;
            }
        }
        let mut board = [0u8; 13];
        let mut streets = [0u8; 13];
        if complete {
            for (slot, &card) in seat.rows.iter().flatten().enumerate() {
                board[slot] = card;
                streets[slot] = row_street[card as usize];
            }
        }
        self.board.extend_from_slice(&board);
        self.board_valid.push(complete);
        self.board_streets.extend_from_slice(if complete && placed {
            &streets
        } else {
            &[0; 13]
        });
        self.board_streets_valid.push(complete && placed);
        match &seat.discards {
            Some(cards) => {
                let start = self.discards.values.len();
                self.discards.values.extend(cards.iter().map(|&c| c as i8));
                let sorted = &mut self.discards.values[start..];
                if !sorted.is_sorted_by_key(|&c| discard_street[c as usize]) {
                    sorted.sort_by_key(|&c| discard_street[c as usize]); // stable
                }
                self.discards
                    .offsets
                    .push(self.discards.values.len() as i32);
                self.discards.valid.push(true);
            }
            None => self.discards.push(None),
        }
        self.points.push(seat.points);
        self.money.push(seat.money);
        self.stack.push(seat.stack);
        for p in &seat.placements {
            self.card_hand.push(hand);
            self.card_seat.push(position);
            self.street.push(p.street as i8);
            self.card.push(p.card as i8);
            self.destination.push(p.destination as i8);
        }
    }
}

/// What a block of lines became, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Decoded hands `start..stop` (indices into the block's [`Columns`]).
    Hands { start: usize, stop: usize },
    /// Bytes `start..stop` of the block, whole lines from line number `line`: the definition's.
    Lines {
        start: usize,
        stop: usize,
        line: i64,
    },
}

/// One block decoded: its hands, the units in file order, and where the undecoded rest begins.
#[derive(Debug, Default)]
pub struct Block {
    pub columns: Columns,
    pub units: Vec<Unit>,
    /// Per decoded hand: the bytes and first line of its text with the blank lines before it.
    pub span_start: Vec<i64>,
    pub span_stop: Vec<i64>,
    pub span_line: Vec<i64>,
    /// Bytes of the block read (the rest waits for more of the file), and their lines.
    pub consumed: usize,
    pub consumed_lines: i64,
}

/// Builds a [`Block`]: decoded hands and the definition's lines between them.
pub(crate) struct Walk {
    pub block: Block,
    /// Where the lines not yet in a unit begin (byte, line number), and whether any is not blank.
    gap: (usize, i64),
    gap_text: bool,
}

impl Walk {
    /// A walk over a block of `bytes` (the columns sized for it up front: hands of about a
    /// kilobyte, four seats and 45 cards each).
    pub fn new(first_line: i64, bytes: usize) -> Self {
        let mut block = Block::default();
        block.columns.reserve(bytes);
        Walk {
            block,
            gap: (0, first_line),
            gap_text: false,
        }
    }

    /// A line the definition reads (`blank`: it holds nothing).
    pub fn other(&mut self, blank: bool) {
        self.gap_text |= !blank;
    }

    /// The hand just pushed to the columns spans bytes `start..stop` from line `line`.
    pub fn hand(&mut self, start: usize, stop: usize, line: i64, lines: i64) {
        let (mut span_start, mut span_line) = self.gap;
        if self.gap_text {
            self.block.units.push(Unit::Lines {
                start: self.gap.0,
                stop: start,
                line: self.gap.1,
            });
            span_start = start;
            span_line = line;
        }
        let index = self.block.columns.hands() - 1;
        match self.block.units.last_mut() {
            Some(Unit::Hands { stop, .. }) => *stop = index + 1,
            _ => self.block.units.push(Unit::Hands {
                start: index,
                stop: index + 1,
            }),
        }
        self.block.span_start.push(span_start as i64);
        self.block.span_stop.push(stop as i64);
        self.block.span_line.push(span_line);
        self.gap = (stop, line + lines);
        self.gap_text = false;
    }

    /// The block is read up to byte `stop` (line number `line`); what follows waits.
    pub fn finish(mut self, stop: usize, line: i64, first_line: i64) -> Block {
        if stop > self.gap.0 {
            self.block.units.push(Unit::Lines {
                start: self.gap.0,
                stop,
                line: self.gap.1,
            });
        }
        self.block.consumed = stop;
        self.block.consumed_lines = line - first_line;
        self.block
    }
}

/// The lines of a block as the import lane numbers them: its newlines, and one more when
/// it does not end with one (a last line without its newline); a 4 MB block in about a
/// tenth of a millisecond.
pub fn count_lines(data: &[u8]) -> usize {
    count_bytes(data, |b| b == b'\n') + usize::from(!data.ends_with(b"\n"))
}

/// The bytes of `data` that `hit` picks, counted under 256 at a time into a byte, which
/// the compiler vectorises (a `usize` count widens every byte).
#[inline]
fn count_bytes(data: &[u8], hit: impl Fn(u8) -> bool) -> usize {
    data.chunks(255)
        .map(|chunk| usize::from(chunk.iter().fold(0u8, |n, &b| n + u8::from(hit(b)))))
        .sum()
}

/// Lines of a block: (start, end without the newline, end with it).
pub(crate) fn lines(data: &[u8]) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= data.len() {
            return None;
        }
        let start = at;
        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |p| at + p);
        at = (end + 1).min(data.len());
        Some((start, end, at))
    })
}

/// Nesting a decoder reads itself: Python's json refuses a document nested about 1,000
/// deep (RecursionError, at a depth that depends on its stack), serde_json skips unknown
/// fields at any depth; a deeper hand is the definition's to judge.
pub const MAX_DEPTH: usize = 100;

/// Whether `text` (one JSON document) opens no more than [`MAX_DEPTH`] arrays and objects
/// inside one another (brackets inside strings do not count).  Linear in the text; a text
/// with fewer brackets than that in all is shallow without a scan.
pub fn shallow(text: &str) -> bool {
    let bytes = text.as_bytes();
    // a plain count vectorises; a hand has dozens of brackets, each a stop for memchr2
    let opened = count_bytes(bytes, |b| b == b'[' || b == b'{');
    if opened <= MAX_DEPTH {
        return true;
    }
    if memchr::memchr(b'\\', bytes).is_none() {
        return shallow_unescaped(bytes);
    }
    deep_scan(bytes)
}

/// [`shallow`] byte by byte (its branches cost about 2 ns a byte of a hand).
fn deep_scan(bytes: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &byte in bytes {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// One bit a byte of `word` equal to `byte`, byte 0 the lowest (exact, no carries).
pub(crate) fn bits(word: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let t = word ^ (0x0101_0101_0101_0101 * u64::from(byte));
    let zero = !(((t & LOW7) + LOW7) | t | LOW7);
    ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// [`shallow`] of a text with no backslash, 64 bytes at a time.  In JSON each quote of
/// such a text opens or closes a string, so a block's strings are the running parity of
/// its quotes, and its depth is at most the depth before it plus the brackets it opens
/// outside them; a block that could go deeper is judged by [`deep_scan`].  (A text that
/// is not JSON is refused by the decoder, shallow or not.)
fn shallow_unescaped(bytes: &[u8]) -> bool {
    // "[" | 0x20 is "{", "]" | 0x20 is "}": one comparison finds both
    const FOLD: u64 = 0x2020_2020_2020_2020;
    let (mut depth, mut open) = (0i64, 0u64); // open: all ones when a string is open
    let mut blocks = bytes.chunks_exact(64);
    let mut tail = [b' '; 64];
    tail[..blocks.remainder().len()].copy_from_slice(blocks.remainder());
    for block in (&mut blocks).chain([&tail[..]]) {
        let (mut quotes, mut opens, mut closes) = (0u64, 0u64, 0u64);
        for (at, word) in block.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            quotes |= bits(word, b'"') << (8 * at);
            opens |= bits(word | FOLD, b'{') << (8 * at);
            closes |= bits(word | FOLD, b'}') << (8 * at);
        }
        let mut strings = quotes; // bit i: an odd count of quotes up to byte i
        for shift in [1, 2, 4, 8, 16, 32] {
            strings ^= strings << shift;
        }
        strings ^= open;
        open = 0u64.wrapping_sub(strings >> 63);
        let opens = i64::from((opens & !strings).count_ones());
        if depth + opens > MAX_DEPTH as i64 {
            return deep_scan(bytes);
        }
        depth += opens - i64::from((closes & !strings).count_ones());
    }
    true
}

/// Whether a line holds only what Python's ``bytes.strip`` removes.
pub(crate) fn blank(line: &[u8]) -> bool {
    line.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// Microseconds since 1970 of a valid civil date and time (None if there is no such moment).
pub(crate) fn micros(y: i64, m: i64, d: i64, hh: i64, mm: i64, ss: i64, us: i64) -> Option<i64> {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 || d > days_in[m as usize - 1] {
        return None;
    }
    if hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    // days from civil (Howard Hinnant's algorithm)
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000_000 + ss * 1_000_000 + us)
}

/// `n` ASCII digits at `at` as a number.
pub(crate) fn digits(text: &[u8], at: usize, n: usize) -> Option<i64> {
    let part = text.get(at..at + n)?;
    part.iter().try_fold(0i64, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + i64::from(b - b'0'))
    })
}

/// A card as ``parse_card`` reads its common spellings (``As``, ``td``, ``10h``); None for any
/// other (a joker, a suit symbol), which the definition reads instead.
pub(crate) fn card_of(text: &[u8]) -> Option<u8> {
    let (rank, suit) = match text {
        [r, s] => (*r, *s),
        [b'1', b'0', s] => (b'T', *s),
        _ => return None,
    };
    let (rank, suit) = (RANK_OF[rank as usize], SUIT_OF[suit as usize]);
    (rank != NONE && suit != NONE).then(|| rank * 4 + suit)
}

const NONE: u8 = 0xff;
/// A rank's index by its letter (either case), [`NONE`] for other bytes.
const RANK_OF: [u8; 256] = {
    let mut table = [NONE; 256];
    let ranks = b"23456789TJQKA";
    let mut i = 0;
    while i < ranks.len() {
        table[ranks[i] as usize] = i as u8;
        table[ranks[i].to_ascii_lowercase() as usize] = i as u8;
        i += 1;
    }
    table
};
/// A suit's index by its letter (either case), [`NONE`] for other bytes.
const SUIT_OF: [u8; 256] = {
    let mut table = [NONE; 256];
    let suits = b"cdhs";
    let mut i = 0;
    while i < suits.len() {
        table[suits[i] as usize] = i as u8;
        table[suits[i].to_ascii_uppercase() as usize] = i as u8;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_documents_are_the_definitions() {
        let deep = |n: usize| format!("{{\"a\": {}{}}}", "[".repeat(n), "]".repeat(n));
        assert!(shallow(&deep(99))); // 99 arrays in one object: 100 deep
        assert!(!shallow(&deep(100)));
        // brackets in a string open nothing
        assert!(shallow(&format!("{{\"a\": \"{}\"}}", "[".repeat(500))));
        // 200 arrays side by side are 2 deep
        assert!(shallow(&format!("[{}]", "[],".repeat(199) + "[]")));
    }

    #[test]
    fn a_text_with_no_backslash_is_judged_as_byte_by_byte() {
        // JSON-like texts 0 to 150 deep, strings of brackets between, over block edges
        let mut stream = crate::rng::Stream::new(&[2026]);
        let mut next = |n: u64| stream.below(n as usize) as u64;
        let mut deep = 0;
        for _ in 0..5_000 {
            let (most, mut depth, mut text) = (next(150), 0, String::new());
            for _ in 0..next(600) {
                match next(6) {
                    0 | 1 if depth < most => {
                        text.push(if next(2) == 0 { '[' } else { '{' });
                        depth += 1;
                    }
                    2 if depth > 0 => {
                        text.push(']');
                        depth -= 1;
                    }
                    3 => {
                        let inside: String = (0..next(9))
                            .map(|_| ['[', ']', '{', '}', 'a'][next(5) as usize])
                            .collect();
                        text += &format!("\"{inside}\"");
                    }
                    _ => text.push('1'),
                }
            }
            let bytes = text.as_bytes();
            assert_eq!(shallow_unescaped(bytes), deep_scan(bytes), "{text}");
            deep += usize::from(!deep_scan(bytes));
        }
        assert!(deep > 50, "{deep} deep texts: both answers are tried");
    }

    #[test]
    fn cards_as_parse_card_reads_them() {
        // rank index * 4 + suit index: A = 12, s = 3 -> 51; T = 8, d = 1 -> 33; 2c = 0
        assert_eq!(card_of(b"As"), Some(51));
        assert_eq!(card_of(b"10d"), Some(33));
        assert_eq!(card_of(b"tD"), Some(33));
        assert_eq!(card_of(b"2c"), Some(0));
        assert_eq!(card_of(b"X1"), None);
        assert_eq!(card_of(b"1s"), None);
    }

    #[test]
    fn count_lines_as_the_lane_counts_them() {
        assert_eq!(count_lines(b""), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        let long: Vec<u8> = (0..100_000u32)
            .map(|i| if i % 7 == 0 { b'\n' } else { b'x' })
            .collect();
        let newlines = long.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(count_lines(&long), newlines + 1);
    }

    #[test]
    fn micros_of_dates() {
        // 2026-01-01 is 20454 days after 1970-01-01 (56 years, 14 leap days: 56*365+14)
        assert_eq!(
            micros(2026, 1, 1, 0, 0, 0, 0),
            Some(20_454 * 86_400_000_000)
        );
        assert_eq!(micros(1970, 1, 1, 0, 0, 1, 5), Some(1_000_005));
        assert!(micros(2024, 2, 29, 0, 0, 0, 0).is_some());
        assert_eq!(micros(2023, 2, 29, 0, 0, 0, 0), None);
        assert_eq!(micros(2023, 1, 1, 0, 0, 60, 0), None);
    }

    #[test]
    fn fingerprint_text_and_digest() {
        let seat = |player: &'static str, top: Vec<u8>, discards| SeatIn {
            player: player.into(),
            rows: [top, vec![], vec![]],
            discards,
            ..SeatIn::default()
        };
        let seats = [
            seat("a", vec![51, 3], Some(vec![10])),
            seat("b", vec![], None),
        ];
        let mut text = Vec::new();
        let print = fingerprint(&seats, &mut text);
        assert_eq!(text, b"a\x1f51,3|||10;b\x1f|||");
        // hashlib.md5(b"a\x1f51,3|||10;b\x1f|||").hexdigest()[:16]
        assert_eq!(&print, b"b34c23a57b406eae");
    }
}
