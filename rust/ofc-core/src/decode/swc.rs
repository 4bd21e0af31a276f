//! SwC Poker browser captures (`parsers/swc.py` is the definition): GameState snapshots
//! folded into hands per table, straight into the stored columns.
//!
//! Unlike the other formats a capture line is no hand: a hand is the fold of
//! many lines, interleaved across tables, so no line can be left to the
//! definition on its own.  Instead the decoder *stops* at the first line it
//! is unsure of (a type, a spelling or a hand the definition would read
//! otherwise or refuse), before changing anything for it, and hands the
//! definition what it needs to go on exactly as if it had read the file
//! from the start: the hands it closed (their late lines are ignored) and
//! every line of the hands still open.  The hands it emitted before are
//! those the definition would have emitted, in the same order.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

use memchr::memmem::Finder;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize as Derive;
use serde_json::value::RawValue;

use super::{
    bits, blank, lines, shallow, Block, Columns, HandIn, Obj, Placed, Presets, Resolved, SeatIn,
    DISCARD, MAX_HAND_BYTES,
};

pub const FORMAT: &str = "swc";
/// An archive record's payload key (the searcher built once: built a line, it cost a
/// capture's decode ~1% of its instructions).
static PAYLOAD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"payload\""));
const ROOM: &str = "SwC";
const UNKNOWN_TABLE: &str = "__unknown_table__";
const FRAME_PREFIX: &str = "42/poker/,";
/// An archive record's payload text that starts with the frame prefix, as the line holds it.
const FRAMED: &str = "\"42/poker/,";
const FANTASY_TEXT: &str = "is in fantasy land";
/// Game types played as Pineapple (the street rule's): `swc.PINEAPPLE_CODES` and 76.
const PINEAPPLE: [i64; 4] = [74, 75, 76, 77];

/// A fast hash of the lines and keys one file holds (FxHash's multiply-rotate, 8 bytes at a
/// time): not for untrusted keys of a long-lived table, but a file's own lines cost no
/// more than their count (a colliding key is compared in full).
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        // two words a step, in two lanes (a state key is some 40 words: half the chain)
        let mut pairs = bytes.chunks_exact(16);
        if pairs.len() > 0 {
            let mut other = Fx(self.0 ^ 0x9e37_79b9_7f4a_7c15);
            for pair in &mut pairs {
                self.add(word(pair, 0));
                other.add(word(pair, 8));
            }
            self.add(other.0);
        }
        let mut chunks = pairs.remainder().chunks_exact(8);
        for chunk in &mut chunks {
            self.add(word(chunk, 0));
        }
        for &byte in chunks.remainder() {
            self.add(u64::from(byte));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxBuild = BuildHasherDefault<Fx>;

/// Any JSON value, as far as the definition looks at it.
#[derive(Debug, Clone, Default, PartialEq)]
enum Val<'a> {
    #[default]
    Absent,
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(Cow<'a, str>),
    /// An array or an object.
    Other,
}

struct ValVisitor;

impl<'de> Visitor<'de> for ValVisitor {
    type Value = Val<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Val::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Val::Int(i128::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Val::Int(i128::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Val::Float(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Val::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Val::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Val::Str(Cow::Owned(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Val::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Val::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Val::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Val::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Val<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValVisitor)
    }
}

/// One field of a state key written to the key's bytes: the definition's tuple key holds
/// only ints, strings and None (where tuple equality is text equality), so a tag and the
/// value's text tell keys apart exactly; any other value makes it a JSON text key, which
/// this decoder leaves to the definition (Err).
fn put_atom(key: &mut Vec<u8>, value: &Val<'_>) -> Result<(), ()> {
    match value {
        Val::Absent | Val::Null => key.push(0),
        Val::Int(i) => {
            key.push(1);
            key.extend_from_slice(&i.to_le_bytes());
        }
        Val::Str(s) => {
            key.push(2);
            key.extend_from_slice(&(s.len() as u64).to_le_bytes());
            key.extend_from_slice(s.as_bytes());
        }
        _ => return Err(()),
    }
    Ok(())
}

/// A seat that is no object (the key's ``None`` seat).
const NO_SEAT: u8 = 3;

/// Events: the dealer lines (``table-msg``) that say a player is in Fantasyland.
#[derive(Debug, Default)]
struct Events(Vec<String>);

impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EventsVisitor;
        impl<'de> Visitor<'de> for EventsVisitor {
            type Value = Events;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("events")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Events, A::Error> {
                let mut texts = Vec::new();
                while let Some(Event(text)) = seq.next_element::<Event>()? {
                    texts.extend(text);
                }
                Ok(Events(texts))
            }
            // anything but a list is no events (``events if isinstance(events, list) else []``)
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Events, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Events::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Events, E> {
                Ok(Events::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Events, E> {
                Ok(Events::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Events, E> {
                Ok(Events::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Events, E> {
                Ok(Events::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Events, E> {
                Ok(Events::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Events, E> {
                Ok(Events::default())
            }
        }
        d.deserialize_any(EventsVisitor)
    }
}

/// One event: its ``table-msg`` when that is a text naming Fantasyland (the last of the key).
struct Event(Option<String>);

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EventVisitor;
        impl<'de> Visitor<'de> for EventVisitor {
            type Value = Event;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event, A::Error> {
                let mut text = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "table-msg" {
                        text = match map.next_value::<Val<'de>>()? {
                            Val::Str(s) => Some(s.into_owned()),
                            _ => None,
                        };
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Event(text.filter(|t| t.contains(FANTASY_TEXT))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Event, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Event(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Event, E> {
                Ok(Event(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Event, E> {
                Ok(Event(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Event, E> {
                Ok(Event(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Event, E> {
                Ok(Event(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Event, E> {
                Ok(Event(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Event, E> {
                Ok(Event(None))
            }
        }
        d.deserialize_any(EventVisitor)
    }
}

#[derive(Derive)]
struct SeatData<'a> {
    #[serde(default, borrow)]
    n: Val<'a>,
    #[serde(default, borrow)]
    c: Val<'a>,
    #[serde(default, borrow)]
    b: Val<'a>,
    #[serde(default, borrow)]
    d: Val<'a>,
    #[serde(default, borrow)]
    p: Val<'a>,
}

#[derive(Derive)]
struct TableData<'a> {
    #[serde(default, borrow)]
    c: Val<'a>,
    #[serde(default, borrow)]
    p: Val<'a>,
}

#[derive(Derive)]
struct Showdown<'a> {
    #[serde(default, borrow)]
    hc: Val<'a>,
}

#[derive(Derive)]
struct State<'a> {
    #[serde(default, borrow)]
    gi: Val<'a>,
    #[serde(default, borrow)]
    gt: Val<'a>,
    #[serde(default, borrow)]
    ti: Val<'a>,
    #[serde(default, borrow)]
    ts: Val<'a>,
    #[serde(default, borrow)]
    d: Option<Obj<TableData<'a>>>,
    #[serde(default, borrow)]
    s: Option<Vec<Option<Obj<SeatData<'a>>>>>,
    #[serde(default, borrow)]
    ss: Option<Obj<Showdown<'a>>>,
}

/// A field's JSON text as the line holds it (None: the field is absent; `null` is text).
#[derive(Default)]
struct RawText<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for RawText<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(|raw| RawText(Some(raw)))
    }
}

/// A capture line: a decoded proxy message, or an fpdb-3 archive record (``payload``,
/// kept as its escaped text: most lines are folded from it without unescaping it twice).
#[derive(Derive)]
struct Message<'a> {
    #[serde(default, borrow)]
    payload: RawText<'a>,
    #[serde(default, borrow)]
    message_type: Val<'a>,
    #[serde(default, borrow)]
    captured_at: Val<'a>,
    #[serde(default, borrow)]
    t: Val<'a>,
    #[serde(default, borrow, rename = "gameState")]
    game_state: Option<Obj<State<'a>>>,
    #[serde(default)]
    events: Events,
}

/// ``str.isspace`` of one character (Rust's White_Space and the four separators 0x1c-0x1f).
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// A seat's rows (top, middle, bottom) and its cards dealt but not placed.
type Layout = ([Vec<u8>; 3], Vec<u8>);

/// A seat ``d`` string as ``parse_layout`` reads it: None if no cards show; Err if an item is
/// no plain run of digits (``int`` reads more spellings: the definition's).
#[cfg(test)]
fn layout(text: &str) -> Result<Option<Layout>, ()> {
    let mut out = Layout::default();
    Ok(layout_into(text, &mut Vec::new(), &mut out)?.then_some(out))
}

/// A plain run of digits as ``int`` reads it (saturating: a count past any row is as good).
fn number(item: &[u8]) -> Result<u64, ()> {
    if item.is_empty() || !item.iter().all(u8::is_ascii_digit) {
        return Err(());
    }
    Ok(item.iter().fold(0u64, |n, b| {
        n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    }))
}

/// [`layout`] into `out`, its buffers (and `ids`) reused: Ok(false) if no cards show.
/// (Read as bytes: ``-`` and ``;`` are ASCII, so a UTF-8 text splits alike.)
fn layout_into(text: &str, ids: &mut Vec<u64>, out: &mut Layout) -> Result<bool, ()> {
    let bytes = text.as_bytes();
    let dash = memchr::memchr(b'-', bytes).unwrap_or(bytes.len());
    ids.clear();
    let mut id: Option<u64> = None; // the item being read (None: empty so far)
    for &byte in &bytes[..dash] {
        match byte {
            b'0'..=b'9' => {
                let n = id.unwrap_or(0).saturating_mul(10);
                id = Some(n.saturating_add(u64::from(byte - b'0')));
            }
            b';' => ids.extend(id.take()), // an empty item is skipped
            _ => return Err(()),
        }
    }
    ids.extend(id);
    let mut parts = bytes[(dash + 1).min(bytes.len())..].split(|&b| b == b'-');
    let counts = match (dash < bytes.len()).then(|| [parts.next(), parts.next(), parts.next()]) {
        Some([Some(top), Some(middle), Some(bottom)]) => {
            if [top, middle, bottom].iter().any(|c| c.is_empty()) {
                return Ok(false); // int("") is a ValueError: no layout
            }
            Some([number(top)?, number(middle)?, number(bottom)?])
        }
        _ => None,
    };
    if ids.is_empty() {
        return Ok(false);
    }
    let card = |ids: &[u64], into: &mut Vec<u8>| {
        into.clear();
        for &id in ids {
            if id < 52 {
                into.push(id as u8);
            }
        }
    };
    let (rows, active) = out;
    let Some([top, middle, bottom]) = counts else {
        rows.iter_mut().for_each(Vec::clear);
        card(ids, active);
        return Ok(true);
    };
    let cap = |n: u64| n.min(ids.len() as u64) as usize;
    let (first, second, third) = (
        cap(top),
        cap(top.saturating_add(middle)),
        cap(top.saturating_add(middle).saturating_add(bottom)),
    );
    card(&ids[..first], &mut rows[0]);
    card(&ids[first.min(second)..second], &mut rows[1]);
    card(&ids[second.min(third)..third], &mut rows[2]);
    card(&ids[third..], active);
    Ok(true)
}

/// Whether [`layout`] reads `text` (Err where it would), without building the rows.
fn readable(text: &str) -> Result<(), ()> {
    // the usual shape at a glance: ids and ';' up to the first '-', then counts and '-'
    let bytes = text.as_bytes();
    let dash = memchr::memchr(b'-', bytes).unwrap_or(bytes.len());
    if bytes[..dash]
        .iter()
        .all(|&b| b.is_ascii_digit() || b == b';')
        && bytes[dash..]
            .iter()
            .all(|&b| b.is_ascii_digit() || b == b'-')
    {
        return Ok(());
    }
    let digits = |item: &str| !item.is_empty() && item.bytes().all(|b| b.is_ascii_digit());
    let mut parts = text.split('-');
    let head = parts.next().unwrap_or("");
    if !head.split(';').all(|i| i.is_empty() || digits(i)) {
        return Err(());
    }
    let counts: [Option<&str>; 3] = [parts.next(), parts.next(), parts.next()];
    let [Some(top), Some(middle), Some(bottom)] = counts else {
        return Ok(());
    };
    if [top, middle, bottom].iter().any(|c| c.is_empty()) {
        return Ok(());
    }
    if [top, middle, bottom].iter().all(|c| digits(c)) {
        Ok(())
    } else {
        Err(())
    }
}

/// ``added_cards``: the cards of `new` not in `old` (multiset difference, as Counter orders
/// it), into `out` (cleared first).
fn added_cards(new: &[u8], old: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut distinct = 0u64;
    if new.iter().all(|&c| {
        let fresh = distinct & (1 << c) == 0;
        distinct |= 1 << c;
        fresh
    }) {
        out.extend(new.iter().copied().filter(|c| !old.contains(c)));
        return;
    }
    let mut order: Vec<u8> = Vec::new();
    let mut count = [0i32; 64];
    for &c in new {
        if count[c as usize] == 0 {
            order.push(c);
        }
        count[c as usize] += 1;
    }
    for &c in old {
        count[c as usize] -= 1;
    }
    for c in order {
        for _ in 0..count[c as usize].max(0) {
            out.push(c);
        }
    }
}

/// One seat of the roster as the fold grows it (``swc.Seat``).
#[derive(Debug, Default, Clone)]
struct Seat {
    name: String,
    rows: [Vec<u8>; 3],
    active: Vec<u8>,
    seen_active: bool,
    discards: Vec<u8>,
    placements: Vec<Placed>,
    fantasy: bool,
    points: Option<f64>,
    last_d: Option<String>,
}

impl Seat {
    /// A new seat of the roster named `name`, in a closed hand's seat (its buffers kept).
    fn reset(&mut self, name: &str) {
        self.name.clear();
        self.name.push_str(name);
        self.rows.iter_mut().for_each(Vec::clear);
        self.active.clear();
        self.seen_active = false;
        self.discards.clear();
        self.placements.clear();
        self.fantasy = false;
        self.points = None;
        if let Some(last_d) = &mut self.last_d {
            last_d.clear(); // (as None: the fold compares it with non-empty texts only)
        }
    }
}

/// A hand's time, from its first line's ``captured_at``.
#[derive(Debug, Clone, Copy)]
enum Captured {
    None,
    At(i64),
    /// A value ``played_at`` may read otherwise than this decoder (or fail on).
    Unsure,
}

/// An open hand (``swc.Hand``): its lines kept for its raw text and for the definition.
#[derive(Debug)]
struct Hand {
    gi: String,
    ti: String,
    code: i64,
    start_line: i64,
    captured: Captured,
    seats: Vec<Option<Seat>>,
    text: String,
    /// Each line's number and where its text begins in `text`.
    line_at: Vec<(i64, usize)>,
    /// State keys seen (see [`put_atom`]).
    keys: Keys,
    snapshots: u64,
    settled: bool,
    fantasy_names: Vec<String>,
    last: Last,
}

/// One seat of a snapshot, ready to fold (borrowed from the line).
struct SeatSnap<'a> {
    /// ``n`` when it is a string: the roster's name if non-empty, compared at fold time.
    n: Option<Cow<'a, str>>,
    is_dict: bool,
    points: Option<f64>,
    /// A non-empty ``d`` string (checked to read as ``parse_layout`` would).
    d: Option<Cow<'a, str>>,
    /// Where a ``d`` string without escapes sits in the line and in the state key.
    d_at: Option<DAt>,
}

/// A seat's ``d`` string: its text between the quotes in the line, its atom in the key.
#[derive(Debug, Clone, Copy)]
struct DAt {
    text: (usize, usize),
    key: (usize, usize),
}

/// A hand's state keys end to end in one buffer, found by their hash (no allocation a key).
#[derive(Debug, Default)]
struct Keys {
    bytes: Vec<u8>,
    /// Per key: where it begins and ends in `bytes`, and the next key of its hash (or MAX).
    spans: Vec<(usize, usize, u32)>,
    first: HashMap<u64, u32, FxBuild>,
}

impl Keys {
    /// Empty again, its memory kept.
    fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
        self.first.clear();
    }

    /// Adds `key`; false if it was there already.
    fn insert(&mut self, key: &[u8]) -> bool {
        let mut hasher = Fx::default();
        hasher.write(key);
        let index = self.spans.len() as u32;
        match self.first.entry(hasher.finish()) {
            Entry::Vacant(entry) => {
                entry.insert(index);
            }
            Entry::Occupied(entry) => {
                let mut at = *entry.get() as usize;
                loop {
                    let (start, end, next) = self.spans[at];
                    if &self.bytes[start..end] == key {
                        return false;
                    }
                    if next == u32::MAX {
                        break;
                    }
                    at = next as usize;
                }
                self.spans[at].2 = index;
            }
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(key);
        self.spans.push((start, self.bytes.len(), u32::MAX));
        true
    }
}

/// A hand's last snapshot line, as far as the next line may differ from it only inside
/// one seat's ``d`` string (see [`SwcDecoder::delta`]).
#[derive(Debug, Default)]
struct Last {
    /// Whether `at` holds a line folded into the hand (its last).
    set: bool,
    /// Where the snapshot's JSON text (the proxy message inside an archive record) lies in
    /// the hand's text (kept there already: not copied again).
    at: (usize, usize),
    key: Vec<u8>,
    seats: Vec<LastSeat>,
    settled: bool,
    fantasy_names: Vec<String>,
}

/// One seat of [`Last`]: what ``_apply`` reads of it.
#[derive(Debug, Clone, Copy)]
struct LastSeat {
    /// A dict whose ``n`` is the roster's name at its index.
    matches: bool,
    points: Option<f64>,
    d_at: Option<DAt>,
}

/// A snapshot line, checked: everything the fold needs, nothing it may refuse.
struct Snap<'a> {
    gi: String,
    ti: String,
    code: Option<i64>,
    captured: Captured,
    seats: Vec<SeatSnap<'a>>,
    settled: bool,
    fantasy_names: Vec<String>,
}

/// Where the decoder stopped, for the definition to go on from.
#[derive(Debug, Default)]
pub struct Stop {
    /// The first line the definition reads on (its number, its byte in the block).
    pub line: i64,
    pub at: usize,
    /// The hands closed so far (table, hand id): their later lines are ignored.
    pub closed: Vec<(String, String)>,
    /// Every line of the hands still open, in file order: (number, text).
    pub replay: Vec<(i64, String)>,
}

/// SwC captures, a block of whole lines at a time (one decoder a file).
#[derive(Default)]
pub struct SwcDecoder {
    pub presets: Presets,
    /// Open hands in the order the definition's dict keeps them (by table).
    open: Vec<Hand>,
    closed: HashSet<(String, String), FxBuild>,
    closed_order: Vec<(String, String)>,
    scratch: Vec<u8>,
    key: Vec<u8>,
    /// Buffers of the fold, reused line to line.
    fold: FoldBuffers,
    /// The buffers of closed hands, reused by the next hands.
    spare: Vec<Buffers>,
    /// The seats of closed hands, their buffers reused by the next hands' seats.
    spare_seats: Vec<Seat>,
    /// An archive record with its payload left out (see [`Self::record_of`]).
    record: String,
}

/// An open hand's growing buffers: its text, where each line begins, its state keys, its
/// (emptied) list of seats and its last snapshot.
type Buffers = (String, Vec<(i64, usize)>, Keys, Vec<Option<Seat>>, Last);

/// What [`apply`] reuses line to line: [`layout_into`]'s buffers and the fold's lists.
#[derive(Default)]
struct FoldBuffers {
    ids: Vec<u64>,
    layout: Layout,
    /// A changed seat's layout, read before the line is folded (see [`SeatView::read`]).
    read: Layout,
    added: Vec<u8>,
    placed_now: Vec<(u8, u8)>,
    gone: Vec<u8>,
}

impl SwcDecoder {
    /// Decode the block `head` + `reads` (the last read to byte `end`): whole lines, from
    /// line `first_line`, given as read (`head` the start of a line cut by the read before),
    /// so a reader need not join them; `last`: the file ends with it (the open hands are then
    /// finished).  The block's [`Stop`] is set where the decoder left the rest of the file to
    /// the definition (a byte of the block, `head` first).
    pub fn decode(
        &mut self,
        head: &[u8],
        reads: &[&[u8]],
        end: usize,
        first_line: i64,
        last: bool,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> (Block, Option<Stop>) {
        let mut block = Block::default();
        let count = reads.len();
        let parts = reads
            .iter()
            .enumerate()
            .map(|(index, read)| match index + 1 == count {
                true => &read[..end.min(read.len())],
                false => read,
            });
        let size = head.len() + parts.clone().map(<[u8]>::len).sum::<usize>();
        // Nearly every line is some hand's raw text, and the hands open now carry theirs in:
        // at most this much, one allocation (a doubling past `size` alone copied half the
        // blocks' 16 MB once more, a tenth of the decoder's time).
        let carried: usize = self.open.iter().map(|hand| hand.text.len()).sum();
        block.columns.raw_text.data.reserve(size + carried);
        let mut number = first_line;
        if let Err(at) = self.parts_of(head, parts, &mut number, &mut block, resolve) {
            return (block, Some(self.stop(number, at)));
        }
        if last && self.finish(&mut block.columns, resolve).is_err() {
            return (block, Some(self.stop(number, size)));
        }
        block.consumed = size;
        block.consumed_lines = number - first_line;
        (block, None)
    }

    /// The lines of `head` + `parts` (the block, its reads as read) folded from line `number`
    /// on, the file's last line without its newline too; Err as [`Self::lines_of`]'s.
    fn parts_of<'p>(
        &mut self,
        head: &[u8],
        parts: impl Iterator<Item = &'p [u8]>,
        number: &mut i64,
        block: &mut Block,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Result<(), usize> {
        // a line cut between two reads is joined (a copy of that line), the rest read in place
        let (mut cut, mut cut_at, mut at) = (head.to_vec(), 0, head.len());
        for part in parts {
            let mut from = 0;
            if !cut.is_empty() {
                let Some(newline) = memchr::memchr(b'\n', part) else {
                    cut.extend_from_slice(part);
                    at += part.len();
                    continue;
                };
                cut.extend_from_slice(&part[..=newline]);
                self.lines_of(&cut, cut_at, number, block, resolve)?;
                cut.clear();
                from = newline + 1;
            }
            let whole = memchr::memrchr(b'\n', &part[from..]).map_or(from, |p| from + p + 1);
            self.lines_of(&part[from..whole], at + from, number, block, resolve)?;
            cut.extend_from_slice(&part[whole..]);
            (cut_at, at) = (at + whole, at + part.len());
        }
        // the file's last line, without its newline (the definition's)
        self.lines_of(&cut, cut_at, number, block, resolve)
    }

    /// The whole lines `part` (byte `base` of the block) folded from line `number` on;
    /// Err(the byte of the block where the line the definition must read begins).
    fn lines_of(
        &mut self,
        part: &[u8],
        base: usize,
        number: &mut i64,
        block: &mut Block,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Result<(), usize> {
        for (start, _, end) in lines(part) {
            (self.line(&part[start..end], *number, &mut block.columns, resolve))
                .map_err(|()| base + start)?;
            *number += 1;
        }
        Ok(())
    }

    fn stop(&mut self, line: i64, at: usize) -> Stop {
        let mut replay: Vec<(i64, String)> = Vec::new();
        for hand in &self.open {
            for (i, &(number, begin)) in hand.line_at.iter().enumerate() {
                let end = hand.line_at.get(i + 1).map_or(hand.text.len(), |l| l.1);
                replay.push((number, hand.text[begin..end].to_owned()));
            }
        }
        replay.sort_by_key(|(number, _)| *number);
        Stop {
            line,
            at,
            closed: std::mem::take(&mut self.closed_order),
            replay,
        }
    }

    /// One line folded, or Err (nothing changed) if the definition must read it.
    ///
    /// The definition's shortcut for an exact resend (``Tables.owner``) is not needed
    /// here: a resend decodes to a state key its hand already holds, with the same effect.
    fn line(
        &mut self,
        raw: &[u8],
        number: i64,
        columns: &mut Columns,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Result<(), ()> {
        if blank(raw) {
            return Ok(());
        }
        if !raw.ends_with(b"\n") || raw.len() > MAX_HAND_BYTES || raw.starts_with(b"\xef\xbb\xbf") {
            return Err(()); // a line still being written, a huge one or a BOM: the definition's
        }
        let text = std::str::from_utf8(raw).map_err(|_| ())?;
        if self.delta(text, text, number) {
            return Ok(());
        }
        // An archive record: fpdb-3 writes the payload last, so its string most likely ends
        // at the line's last quote, which the delta takes only if it does (see `record_of`);
        // else its end is found, and the record read again if that differs.
        let key = PAYLOAD.find(raw);
        let guess = key.and_then(|key| self.record_of(text, key, last_quote));
        if let Some((start, end, _)) = guess {
            if self.delta(&text[start..end], text, number) {
                return Ok(());
            }
        }
        let found = match guess {
            Some((start, end, time)) if string_end(&raw[start..]) == Some(end - start) => {
                Some((start, end, time, true))
            }
            _ => key
                .and_then(|key| self.record_of(text, key, string_end))
                .map(|(start, end, time)| (start, end, time, false)),
        };
        if let Some((start, end, captured, tried)) = found {
            let literal = &text[start..end];
            if !tried && self.delta(literal, text, number) {
                return Ok(());
            }
            return self.framed(literal, captured, text, number, columns, resolve);
        }
        if !shallow(text) {
            return Err(());
        }
        let Obj(message) = serde_json::from_str::<Obj<Message<'_>>>(text).map_err(|_| ())?;
        let captured = captured(&message.captured_at);
        let Some(literal) = message.payload.0.map(RawValue::get) else {
            return match self.snap(message, captured, text)? {
                Some(snap) => self.fold(snap, text, text, number, columns, resolve),
                None => Ok(()),
            };
        };
        // an fpdb-3 archive record: the Socket.IO frame, its message JSON inside a string
        let Val::Str(kind) = &message.message_type else {
            return Ok(());
        };
        if kind != "GameState" || !literal.starts_with('"') {
            return Ok(()); // (a payload that is no string: the definition skips the line)
        }
        // Most lines differ from their hand's last only inside a `d` string, in the
        // payload's escaped text as in the message inside it.
        if literal.starts_with(FRAMED) && self.delta(literal, text, number) {
            return Ok(());
        }
        self.framed(literal, captured, text, number, columns, resolve)
    }

    /// An archive record's GameState payload `literal` (its JSON string, a part of the
    /// line `text`), folded as a line of its own: the Socket.IO frame, the proxy message
    /// JSON inside a string of it.
    fn framed(
        &mut self,
        literal: &str,
        captured: Captured,
        text: &str,
        number: i64,
        columns: &mut Columns,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Result<(), ()> {
        let Val::Str(payload) = serde_json::from_str::<Val<'_>>(literal).map_err(|_| ())? else {
            return Err(());
        };
        let Some(frame_text) = payload.strip_prefix(FRAME_PREFIX) else {
            return Ok(());
        };
        if !shallow(frame_text) {
            return Err(());
        }
        // (each item read again from its raw text: as an array of values reads it, and the
        // frame's escaped message is scanned once, not twice)
        let frame: Vec<&RawValue> = serde_json::from_str(frame_text).map_err(|_| ())?;
        let item = |index: usize| serde_json::from_str::<Val<'_>>(frame[index].get());
        if frame.len() < 2 || item(0).map_err(|_| ())? != Val::Str(Cow::Borrowed("proxy-message")) {
            return Ok(());
        }
        let Val::Str(inner) = item(1).map_err(|_| ())? else {
            return Err(());
        };
        if !shallow(&inner) {
            return Err(());
        }
        let Obj(message) = serde_json::from_str::<Obj<Message<'_>>>(&inner).map_err(|_| ())?;
        let Some(mut snap) = self.snap(message, captured, &inner)? else {
            return Ok(());
        };
        // the `d` strings' places in the payload's text, for the next line's delta
        // (no span: no delta for this hand's next line, rather than a guessed place)
        let inner_at = span(frame_text, frame[1].get()).map(|(start, _)| start);
        let (mut frame_at, mut payload_at) =
            (Unescaped::new(frame[1].get()), Unescaped::new(literal));
        for seat in &mut snap.seats {
            seat.d_at = seat.d_at.and_then(|at| {
                let (start, end) = at.text;
                let in_frame = [start, end].map(|i| frame_at.at(i));
                let in_payload = in_frame.map(|i| Some(inner_at? + i? + FRAME_PREFIX.len()));
                let [Some(a), Some(b)] = in_payload.map(|i| i.and_then(|i| payload_at.at(i)))
                else {
                    return None;
                };
                (literal.get(a..b) == Some(&inner[start..end])).then_some(DAt {
                    text: (a, b),
                    key: at.key,
                })
            });
        }
        self.fold(snap, literal, text, number, columns, resolve)
    }

    /// ``_game_state`` and the checks of ``snapshot``: the snapshot to fold (its state key
    /// in ``self.key``), None for a line the definition skips, Err for one it may refuse
    /// or read otherwise.
    fn snap<'a>(
        &mut self,
        message: Message<'a>,
        captured: Captured,
        base: &str,
    ) -> Result<Option<Snap<'a>>, ()> {
        if message.t != Val::Str(Cow::Borrowed("GameState")) {
            return Ok(None);
        }
        let Some(Obj(state)) = message.game_state else {
            return Ok(None);
        };
        let gi = match &state.gi {
            Val::Absent | Val::Null | Val::Int(0) => return Ok(None),
            Val::Int(i) => i.to_string(),
            Val::Str(s) if s.is_empty() => return Ok(None),
            Val::Str(s) => s.to_string(),
            _ => return Err(()),
        };
        let ti = match &state.ti {
            Val::Absent | Val::Null => UNKNOWN_TABLE.to_owned(),
            Val::Int(i) => i.to_string(),
            Val::Str(s) => s.to_string(),
            _ => return Err(()),
        };
        let code = match state.gt {
            Val::Absent => Some(74),
            Val::Int(i) => i64::try_from(i).ok(),
            _ => None,
        };
        let key = &mut self.key;
        key.clear();
        match &state.d {
            Some(Obj(table)) => {
                put_atom(key, &table.c)?;
                put_atom(key, &table.p)?;
            }
            None => key.extend_from_slice(&[0, 0]),
        }
        put_atom(key, &state.ts)?;
        let hc = match &state.ss {
            Some(Obj(ss)) => &ss.hc,
            None => &Val::Absent,
        };
        put_atom(key, hc)?;
        let settled = matches!(hc, Val::Str(s) if s.chars().any(|c| !py_space(c)));
        let mut seats = Vec::new();
        for seat in state.s.unwrap_or_default() {
            let Some(Obj(seat)) = seat else {
                key.push(NO_SEAT);
                seats.push(SeatSnap {
                    n: None,
                    is_dict: false,
                    points: None,
                    d: None,
                    d_at: None,
                });
                continue;
            };
            for value in [&seat.n, &seat.c, &seat.b] {
                put_atom(key, value)?;
            }
            let key_start = key.len();
            put_atom(key, &seat.d)?;
            let d_at = match &seat.d {
                Val::Str(Cow::Borrowed(d)) => span(base, d).map(|text| DAt {
                    text,
                    key: (key_start, key.len()),
                }),
                _ => None,
            };
            let n = match seat.n {
                Val::Str(s) => Some(s),
                Val::Absent | Val::Null => None,
                _ => return Err(()), // str(n) of a number: the definition's
            };
            let points = match seat.p {
                Val::Int(i) => Some(i as f64),
                Val::Float(x) if x == 0.0 && x.is_sign_negative() => return Err(()),
                Val::Float(x) => Some(x),
                Val::Bool(_) => return Err(()),
                _ => None,
            };
            let d = match seat.d {
                Val::Str(d) if !d.is_empty() => {
                    readable(&d)?; // read when applied; here only checked to read alike
                    Some(d)
                }
                _ => None,
            };
            seats.push(SeatSnap {
                n,
                is_dict: true,
                points,
                d,
                d_at,
            });
        }
        let mut fantasy_names = Vec::new();
        for text in message.events.0 {
            let name = text.split(" is in fantasy land").next().unwrap_or("");
            fantasy_names.push(name.trim_matches(py_space).to_owned());
        }
        Ok(Some(Snap {
            gi,
            ti,
            code,
            captured,
            seats,
            settled,
            fantasy_names,
        }))
    }

    /// ``snapshot``: fold a checked snapshot (its key in ``self.key``), closing its table's
    /// other hand.
    fn fold(
        &mut self,
        snap: Snap<'_>,
        parsed: &str,
        text: &str,
        number: i64,
        columns: &mut Columns,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Result<(), ()> {
        let table = (snap.ti, snap.gi);
        if self.closed.contains(&table) {
            return Ok(()); // an old hand's snapshot arriving late
        }
        let (ti, gi) = table;
        let mut at = self.open.iter().position(|h| h.ti == ti);
        if let Some(other) = at.filter(|&i| self.open[i].gi != gi) {
            if snap.code.is_none() {
                return Err(()); // the new hand's game type is refused: the definition's
            }
            // the table's last hand ends here: pushed only if the definition stores it too
            let (presets, scratch) = (&mut self.presets, &mut self.scratch);
            if !push(&mut self.open[other], presets, scratch, columns, resolve) {
                return Err(());
            }
            let mut hand = self.open.remove(other);
            self.closed_order.push((hand.ti.clone(), hand.gi.clone()));
            self.closed.insert((hand.ti, hand.gi));
            self.spare_seats.extend(hand.seats.drain(..).flatten());
            self.spare
                .push((hand.text, hand.line_at, hand.keys, hand.seats, hand.last));
            at = None;
        }
        let at = match at {
            Some(at) => at,
            None => {
                let code = snap.code.ok_or(())?;
                let (text, line_at, keys, mut seats, last) = match self.spare.pop() {
                    Some((mut text, mut line_at, mut keys, seats, mut last)) => {
                        text.clear();
                        line_at.clear();
                        keys.clear();
                        last.set = false;
                        (text, line_at, keys, seats, last)
                    }
                    None => (
                        String::with_capacity(text.len() * 24),
                        Vec::with_capacity(24),
                        Keys::default(),
                        Vec::new(),
                        Last::default(),
                    ),
                };
                let spare_seats = &mut self.spare_seats;
                seats.extend(snap.seats.iter().map(|s| {
                    let name = s.n.as_ref().filter(|n| !n.is_empty())?;
                    let mut seat = spare_seats.pop().unwrap_or_default();
                    seat.reset(name);
                    Some(seat)
                }));
                self.open.push(Hand {
                    gi,
                    ti,
                    code,
                    start_line: number,
                    captured: snap.captured,
                    seats,
                    text,
                    line_at,
                    keys,
                    snapshots: 0,
                    settled: false,
                    fantasy_names: Vec::new(),
                    last,
                });
                self.open.len() - 1
            }
        };
        let hand = &mut self.open[at];
        add_line(hand, text, number);
        remember(
            hand,
            &snap.seats,
            snap.settled,
            &snap.fantasy_names,
            (parsed, text),
            &self.key,
        );
        if !hand.keys.insert(&self.key) {
            return Ok(());
        }
        hand.snapshots += 1;
        note(hand, &snap.fantasy_names, snap.settled);
        let views = (snap.seats.iter().zip(&hand.last.seats)).map(|(seat, last)| SeatView {
            matches: last.matches,
            points: seat.points,
            d: seat.d.as_deref(),
            read: None,
        });
        let pineapple = PINEAPPLE.contains(&hand.code);
        apply(&mut hand.seats, pineapple, views, &mut self.fold);
        Ok(())
    }

    /// A line that differs from an open hand's last snapshot only inside one seat's ``d``
    /// string (a placement: most lines of a capture), folded from that snapshot without
    /// decoding it; false if no open hand's last snapshot is that near (then the line is
    /// decoded in full).
    ///
    /// Outside that string the bytes are the same, and the bytes that differ are no
    /// quote, backslash or control character, so the line decodes to the same message
    /// with that one ``d`` changed: the same hand and checks, the same state key but that
    /// one atom.  An exact resend is the same snapshot again.
    fn delta(&mut self, parsed: &str, text: &str, number: i64) -> bool {
        let new = parsed.as_bytes();
        let Some((offset, _)) = span(text, parsed) else {
            return false;
        };
        // where the snapshot will lie in a hand's text once the line is added to it
        let place = |hand_len: usize| (hand_len + offset, hand_len + offset + new.len());
        for hand in &mut self.open {
            let last = &mut hand.last;
            if !last.set {
                continue;
            }
            let old = &hand.text.as_bytes()[last.at.0..last.at.1];
            let prefix = common_prefix(old, new);
            if prefix == old.len() && prefix == new.len() {
                last.at = place(hand.text.len());
                add_line(hand, text, number); // its state key is the hand's already
                return true;
            }
            let suffix = common_suffix(&old[prefix..], &new[prefix..]);
            let old_end = old.len() - suffix;
            let Some(changed) = last.seats.iter().position(|seat| {
                seat.d_at
                    .is_some_and(|d| d.text.0 <= prefix && old_end <= d.text.1)
            }) else {
                continue;
            };
            let new_end = new.len() - suffix;
            if new[prefix..new_end]
                .iter()
                .any(|&b| b == b'"' || b == b'\\' || b < 0x20)
            {
                return false;
            }
            let Some(DAt {
                text: (start, end),
                key: (key_start, key_end),
            }) = last.seats[changed].d_at
            else {
                return false;
            };
            let end = end + new.len() - old.len(); // (the change lies inside the string)
            let d = &parsed[start..end];
            // read as the fold will (Err where ``parse_layout`` differs: the full decode's)
            let Ok(shows) = layout_into(d, &mut self.fold.ids, &mut self.fold.read) else {
                return false;
            };
            let (old_len, old_key_len) = (old.len(), last.key.len());
            let key = &mut self.key;
            key.clear();
            key.extend_from_slice(&last.key[..key_start]);
            key.push(2);
            key.extend_from_slice(&(d.len() as u64).to_le_bytes());
            key.extend_from_slice(d.as_bytes());
            key.extend_from_slice(&last.key[key_end..]);
            for (index, seat) in last.seats.iter_mut().enumerate().skip(changed) {
                let Some(at) = &mut seat.d_at else { continue };
                if index > changed {
                    at.text.0 = at.text.0 + new.len() - old_len;
                    at.key.0 = at.key.0 + key.len() - old_key_len;
                }
                at.text.1 = at.text.1 + new.len() - old_len;
                at.key.1 = at.key.1 + key.len() - old_key_len;
            }
            std::mem::swap(&mut last.key, key); // (self.key is cleared before its next use)
            last.at = place(hand.text.len());
            add_line(hand, text, number);
            if !hand.keys.insert(&hand.last.key) {
                return true;
            }
            hand.snapshots += 1;
            let names = std::mem::take(&mut hand.last.fantasy_names);
            note(hand, &names, hand.last.settled);
            hand.last.fantasy_names = names;
            let views = hand
                .last
                .seats
                .iter()
                .enumerate()
                .map(|(index, seat)| SeatView {
                    matches: seat.matches,
                    points: seat.points,
                    d: seat
                        .d_at
                        .map(|at| &parsed[at.text.0..at.text.1])
                        .filter(|d| !d.is_empty()),
                    read: (index == changed).then_some(shows),
                });
            let pineapple = PINEAPPLE.contains(&hand.code);
            apply(&mut hand.seats, pineapple, views, &mut self.fold);
            return true;
        }
        false
    }

    /// An fpdb-3 archive record (its first `"payload"` at byte `key`, found by [`PAYLOAD`])
    /// with a GameState payload framed as the lane reads it: the
    /// payload's JSON string (its first and last byte in `text`) and the record's time,
    /// found without serde reading the payload's escaped text (a backslash every few bytes:
    /// ~14k instructions a line, ~40% of an archive's decode); None if unsure (the line is
    /// then decoded in full).
    ///
    /// The payload's length is `end_of` its text ([`string_end`]: 64 bytes at a time; or
    /// [`last_quote`], a guess), and serde reads the record with the payload's literal
    /// replaced by `""`: where it finds the payload there, a string, the line itself has
    /// the same structure and every other field, so it decodes alike if the literal is one
    /// whole, good JSON string.  Whether it is, is left to what reads it next:
    /// [`Self::delta`] takes only a literal equal to the hand's last (one whole good string)
    /// but for bytes with no quote, backslash or control character inside a `d` string, so
    /// one, guessed or not; [`Self::framed`] decodes it (Err for a bad one, as a full decode
    /// of the line would be), and is given only a literal [`string_end`] found.
    fn record_of(
        &mut self,
        text: &str,
        key: usize,
        end_of: fn(&[u8]) -> Option<usize>,
    ) -> Option<(usize, usize, Captured)> {
        let bytes = text.as_bytes();
        let space = |at: usize| {
            let skip = bytes[at.min(bytes.len())..].iter();
            at + skip
                .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .count()
        };
        let colon = space(key + "\"payload\"".len());
        let start = space(colon + 1);
        if bytes.get(colon) != Some(&b':') || !bytes[start..].starts_with(FRAMED.as_bytes()) {
            return None;
        }
        let end = start + end_of(&bytes[start..])?;
        let mut record = std::mem::take(&mut self.record);
        record.clear();
        record.extend([&text[..start], "\"\"", &text[end..]]);
        let time = shallow(&record)
            .then(|| serde_json::from_str::<Obj<Message<'_>>>(&record).ok())
            .flatten()
            .filter(|Obj(message)| {
                let at = message.payload.0.and_then(|p| span(&record, p.get()));
                at == Some((start, start + 2))
                    && matches!(&message.message_type, Val::Str(kind) if kind == "GameState")
            })
            .map(|Obj(message)| captured(&message.captured_at));
        self.record = record;
        time.map(|time| (start, end, time))
    }

    /// The open hands at the end of the file, in order; Err (none pushed) if any is the
    /// definition's.
    fn finish(
        &mut self,
        columns: &mut Columns,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Result<(), ()> {
        let mut probe = Columns::default();
        for hand in &mut self.open {
            if !push(
                hand,
                &mut self.presets,
                &mut self.scratch,
                &mut probe,
                resolve,
            ) {
                return Err(());
            }
        }
        for mut hand in std::mem::take(&mut self.open) {
            let pushed = push(
                &mut hand,
                &mut self.presets,
                &mut self.scratch,
                columns,
                resolve,
            );
            debug_assert!(pushed);
        }
        Ok(())
    }
}

/// One place of `literal` as [`Unescaped`] maps it, read from the start.
#[cfg(test)]
fn unescaped_at(literal: &str, at: usize) -> Option<usize> {
    Unescaped::new(literal).at(at)
}

/// The length of the JSON string literal that `bytes` opens with (its quote): to the first
/// quote after it that no odd run of backslashes escapes, 64 bytes at a time (simdjson's
/// way: a run's escaped byte told from its parity by one addition); None if it does not end
/// in `bytes`.  It checks nothing else of the string.
fn string_end(bytes: &[u8]) -> Option<usize> {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let body = bytes.get(1..)?;
    let mut blocks = body.chunks_exact(64);
    let mut tail = [0u8; 64];
    tail[..blocks.remainder().len()].copy_from_slice(blocks.remainder());
    let mut carried = 0u64; // the block's first byte is escaped (by the last block's run)
    for (index, block) in (&mut blocks).chain([&tail[..]]).enumerate() {
        let (mut quotes, mut slashes) = (0u64, 0u64);
        for (at, word) in block.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            quotes |= bits(word, b'"') << (8 * at);
            slashes |= bits(word, b'\\') << (8 * at);
        }
        let slashes = slashes & !carried;
        let follows = (slashes << 1) | carried;
        let odd_starts = slashes & !EVEN & !follows;
        let (even_starts, overflow) = odd_starts.overflowing_add(slashes);
        carried = u64::from(overflow);
        let escaped = (EVEN ^ (even_starts << 1)) & follows;
        let ends = quotes & !escaped;
        if ends != 0 {
            let at = 64 * index + ends.trailing_zeros() as usize;
            return (at < body.len()).then_some(at + 2);
        }
    }
    None
}

/// The length of `bytes` to its last quote after its first byte: where a JSON string that
/// `bytes` opens ends if nothing but a brace follows it in the line (a guess).
fn last_quote(bytes: &[u8]) -> Option<usize> {
    memchr::memrchr(b'"', bytes.get(1..)?).map(|at| at + 2)
}

/// Where the unescaped text's bytes lie in a JSON string `literal` (its quotes included):
/// [`Unescaped::at`], None past its end, the escapes before it counted out.  Many places of
/// one literal are read in one pass when they come in order (a seat's `d` string, then the
/// next seat's); a place before the last is read from the start again, so each place maps
/// alike either way.
struct Unescaped<'a> {
    literal: &'a str,
    /// A byte of the literal and the unescaped bytes before it (the first at or past the
    /// last place asked for; a step that failed is tried again, and fails again).
    i: usize,
    out: usize,
}

impl<'a> Unescaped<'a> {
    fn new(literal: &'a str) -> Self {
        Unescaped {
            literal,
            i: 1,
            out: 0,
        }
    }

    fn at(&mut self, at: usize) -> Option<usize> {
        if at < self.out {
            (self.i, self.out) = (1, 0);
        }
        let raw = self.literal.as_bytes();
        while self.out < at {
            let (i, out) = (self.i, self.out);
            (self.i, self.out) = match raw.get(i)? {
                b'\\' if raw.get(i + 1) == Some(&b'u') => {
                    let unit = u32::from_str_radix(self.literal.get(i + 2..i + 6)?, 16).ok()?;
                    if (0xD800..0xDC00).contains(&unit) {
                        (i + 12, out + 4) // a surrogate pair: one 4-byte character
                    } else {
                        (i + 6, out + char::from_u32(unit).map_or(3, char::len_utf8))
                    }
                }
                b'\\' => (i + 2, out + 1),
                b'"' => return None, // the closing quote: `at` is past the end
                _ => (i + 1, out + 1),
            };
        }
        (self.out == at).then_some(self.i)
    }
}

fn add_line(hand: &mut Hand, text: &str, number: i64) {
    hand.line_at.push((number, hand.text.len()));
    hand.text.push_str(text);
}

fn captured(value: &Val<'_>) -> Captured {
    match value {
        Val::Absent | Val::Null => Captured::None,
        Val::Str(s) if s.is_empty() => Captured::None,
        Val::Str(s) => super::fpdb::timestamp(s).map_or(Captured::Unsure, Captured::At),
        Val::Int(0) | Val::Bool(false) => Captured::None,
        _ => Captured::Unsure,
    }
}

/// One seat of a snapshot as ``_apply`` reads it.
struct SeatView<'s> {
    /// A dict whose ``n`` is the roster's name at its index.
    matches: bool,
    points: Option<f64>,
    /// A non-empty ``d`` string.
    d: Option<&'s str>,
    /// Some(whether cards show) when the layout of `d` is read already, into
    /// [`FoldBuffers::read`].
    read: Option<bool>,
}

/// A hand's last snapshot kept for [`SwcDecoder::delta`]: where its text (`parsed`, inside
/// the line `text` just added) lies, its state key and what ``_apply`` reads of its seats;
/// not kept when a seat's ``d`` has escapes.
fn remember(
    hand: &mut Hand,
    seats: &[SeatSnap<'_>],
    settled: bool,
    fantasy_names: &[String],
    (parsed, text): (&str, &str),
    key: &[u8],
) {
    let line_at = hand.text.len() - text.len();
    let last = &mut hand.last;
    let inside = span(text, parsed);
    last.set = inside.is_some() && seats.iter().all(|s| s.d.is_none() || s.d_at.is_some());
    last.at = inside.map_or((0, 0), |(start, end)| (line_at + start, line_at + end));
    last.key.clear();
    last.key.extend_from_slice(key);
    last.seats.clear();
    for (index, seat) in seats.iter().enumerate() {
        let name = hand.seats.get(index).and_then(Option::as_ref);
        last.seats.push(LastSeat {
            matches: seat.is_dict
                && name.is_some_and(|roster| seat.n.as_deref() == Some(roster.name.as_str())),
            points: seat.points,
            d_at: seat.d_at,
        });
    }
    last.settled = settled;
    fantasy_names.clone_into(&mut last.fantasy_names);
}

/// Where `inner` (borrowed from `base`) begins and ends in it.
fn span(base: &str, inner: &str) -> Option<(usize, usize)> {
    let start = (inner.as_ptr() as usize).checked_sub(base.as_ptr() as usize)?;
    (start + inner.len() <= base.len()).then_some((start, start + inner.len()))
}

/// An 8-byte word of `bytes` at `at`, little-endian.
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut out = [0u8; 8];
    out.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(out)
}

/// How many bytes `a` and `b` begin with alike (a word at a time: the first differing
/// byte of a word is its lowest set bit of the two words' difference).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + 32 <= n
        && [0, 8, 16, 24]
            .iter()
            .all(|&i| word(a, at + i) == word(b, at + i))
    {
        at += 32; // (four words a step: the lines of a hand share most of their bytes)
    }
    while at + 8 <= n {
        let differ = word(a, at) ^ word(b, at);
        if differ != 0 {
            return at + (differ.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < n && a[at] == b[at] {
        at += 1;
    }
    at
}

/// How many bytes `a` and `b` end with alike.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut at = n;
    while at >= 32
        && [8, 16, 24, 32]
            .iter()
            .all(|&i| word(a, at - i) == word(b, at - i))
    {
        at -= 32;
    }
    while at >= 8 {
        let differ = word(a, at - 8) ^ word(b, at - 8);
        if differ != 0 {
            return n - at + (differ.leading_zeros() / 8) as usize;
        }
        at -= 8;
    }
    while at > 0 && a[at - 1] == b[at - 1] {
        at -= 1;
    }
    n - at
}

/// ``_apply``'s events and settlement: the Fantasyland names met, the hand settled.
fn note(hand: &mut Hand, fantasy_names: &[String], settled: bool) {
    for name in fantasy_names {
        if !hand.fantasy_names.contains(name) {
            hand.fantasy_names.push(name.clone());
        }
    }
    if settled {
        hand.settled = true;
    }
}

/// ``_apply``'s seats: fold one new snapshot's seats into the hand's.
fn apply<'s>(
    seats: &mut [Option<Seat>],
    pineapple: bool,
    views: impl Iterator<Item = SeatView<'s>>,
    buffers: &mut FoldBuffers,
) {
    for (seat, view) in seats.iter_mut().zip(views) {
        let Some(seat) = seat else { continue };
        if !view.matches {
            continue;
        }
        if let Some(points) = view.points {
            seat.points = Some(points);
        }
        let Some(d) = view.d else { continue };
        if seat.last_d.as_deref() == Some(d) {
            continue;
        }
        let shows = match view.read {
            Some(shows) => {
                std::mem::swap(&mut buffers.layout, &mut buffers.read);
                shows
            }
            None => layout_into(d, &mut buffers.ids, &mut buffers.layout) == Ok(true),
        };
        if !shows {
            continue; // nothing visible: keep the previous layout
        }
        fold_layout(seat, buffers, pineapple);
        match &mut seat.last_d {
            Some(last) => {
                last.clear();
                last.push_str(d);
            }
            None => seat.last_d = Some(d.to_owned()),
        }
    }
}

/// The cards of `ids` as a bit each, and whether none repeats.
fn cards_of(ids: &[u8]) -> (u64, bool) {
    let (mut cards, mut distinct) = (0u64, true);
    for &card in ids {
        distinct &= cards & (1 << card) == 0;
        cards |= 1 << card;
    }
    (cards, distinct)
}

/// ``fold_layout`` of the layout in `buffers`: the cards that reached a row, the ones
/// discarded.
fn fold_layout(seat: &mut Seat, buffers: &mut FoldBuffers, pineapple: bool) {
    let FoldBuffers {
        layout: (rows, active),
        added,
        placed_now,
        gone,
        ..
    } = buffers;
    // (a row only grows: with nothing placed or gone the rows are as they were)
    placed_now.clear();
    for (index, new) in rows.iter().enumerate() {
        let old = &mut seat.rows[index];
        let (new_cards, distinct) = cards_of(new);
        let old_cards = cards_of(old).0;
        if distinct && new_cards & !old_cards == 0 {
            continue; // each card in the row already: nothing added
        }
        if distinct {
            // Counter's difference of distinct cards: those not in the row, in their order
            for &card in new.iter() {
                if old_cards & (1 << card) == 0 {
                    old.push(card);
                    placed_now.push((card, index as u8));
                }
            }
        } else {
            added_cards(new, old, added);
            old.extend_from_slice(added);
            placed_now.extend(added.iter().map(|&c| (c, index as u8)));
        }
    }
    if !active.is_empty() {
        seat.seen_active = true;
    }
    gone.clear();
    let placed = placed_now
        .iter()
        .fold(0u64, |cards, &(card, _)| cards | 1 << card);
    let kept = cards_of(active).0 | placed;
    gone.extend((seat.active.iter().copied()).filter(|&c| kept & (1 << c) == 0));
    if !placed_now.is_empty() || !gone.is_empty() {
        seat.fantasy |= placed_now.len() > 5;
        let count: usize = seat.rows.iter().map(Vec::len).sum();
        let street = super::fpdb::street_of(count as i64, pineapple, seat.fantasy);
        let order = |card: u8| seat.active.iter().rposition(|&c| c == card).unwrap_or(99);
        placed_now.sort_by_key(|&(card, _)| order(card)); // stable, as ``sorted``
        for &(card, destination) in placed_now.iter() {
            seat.placements.push(Placed {
                street,
                card,
                destination,
            });
        }
        for &card in gone.iter() {
            seat.placements.push(Placed {
                street,
                card,
                destination: DISCARD,
            });
            seat.discards.push(card);
        }
    }
    seat.active.clear();
    seat.active.extend_from_slice(active);
}

/// ``_record`` of a finished hand, appended to the columns if the definition would store it
/// as this decoder reads it; false (nothing appended) otherwise.  (The seats' lists are
/// lent to the record and given back, not copied.)
fn push(
    hand: &mut Hand,
    presets: &mut Presets,
    scratch: &mut Vec<u8>,
    columns: &mut Columns,
    resolve: &mut dyn FnMut(&str) -> Resolved,
) -> bool {
    let played_at = match hand.captured {
        Captured::None => None,
        Captured::At(t) => Some(t),
        Captured::Unsure => return false,
    };
    let seen = |s: &Seat| !s.active.is_empty() || s.rows.iter().any(|r| !r.is_empty());
    if !hand.seats.iter().flatten().any(seen) {
        return false; // "the capture ends before any card was seen": refused
    }
    let rules_text = format!("gt={}", hand.code);
    let Some(preset) = presets.get(&rules_text, resolve) else {
        return false; // a game type the definition refuses
    };
    let (settled, names) = (hand.settled, &hand.fantasy_names);
    let seats = (hand.seats.iter_mut().flatten().enumerate())
        .map(|(index, seat)| SeatIn {
            position: index as i64,
            player: Cow::Borrowed(seat.name.as_str()),
            player_id: None,
            hero: seat.seen_active,
            in_fantasy: seat.fantasy || names.contains(&seat.name),
            rows: std::mem::take(&mut seat.rows),
            discards: seat.seen_active.then(|| std::mem::take(&mut seat.discards)),
            placements: std::mem::take(&mut seat.placements),
            points: if settled { seat.points } else { None },
            money: None,
            stack: None,
        })
        .collect();
    let record = HandIn {
        room: Cow::Borrowed(ROOM),
        table_id: Cow::Borrowed(hand.ti.as_str()),
        room_hand_id: Cow::Borrowed(hand.gi.as_str()),
        rules_text: Some(Cow::Owned(rules_text)),
        preset,
        played_at,
        stakes: None,
        currency: None,
        seats,
    };
    let pushed = columns.push(FORMAT, &record, hand.start_line, 0, &hand.text, scratch);
    let lent: Vec<_> = (record.seats.into_iter())
        .map(|s| (s.rows, s.discards, s.placements))
        .collect();
    for (seat, (rows, discards, placements)) in hand.seats.iter_mut().flatten().zip(lent) {
        seat.rows = rows;
        if let Some(discards) = discards {
            seat.discards = discards;
        }
        seat.placements = placements;
    }
    pushed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_as_parse_layout_reads_them() {
        // SWC.md §3.5: "0;1;2;60;4-2-1-1" is top 2c 2d, middle 2h, bottom a hidden card
        // (60 is no card), and 4 (3c) unplaced
        let (rows, active) = layout("0;1;2;60;4-2-1-1").unwrap().unwrap();
        assert_eq!(rows, [vec![0, 1], vec![2], vec![]]);
        assert_eq!(active, vec![4]);
        // no counts: every id unplaced; empty items skipped
        let (rows, active) = layout("48;;49").unwrap().unwrap();
        assert_eq!((rows, active), (Default::default(), vec![48, 49]));
        assert!(layout("-0-0-0").unwrap().is_none()); // no cards show
        assert!(layout("1;2-1--1").unwrap().is_none()); // int("") refuses the counts
        assert!(layout("1;+2-1-0-0").is_err()); // int("+2") is 2: the definition's
        for text in [
            "0;1;2;60;4-2-1-1",
            "48;;49",
            "-0-0-0",
            "1;2-1--1",
            "1;+2-1-0-0",
            "1-x-0-0",
        ] {
            assert_eq!(readable(text).is_ok(), layout(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn unescaped_places_count_the_escapes_out() {
        // bytes 0..15: `"a\"b\u00e9c\\d"`, unescaped a " b é(2 bytes) c \ d
        let literal = r#""a\"b\u00e9c\\d""#;
        let places: Vec<_> = (0..10).map(|at| unescaped_at(literal, at)).collect();
        let (inside_e, past_end) = (None, None);
        let expected = [
            Some(1),
            Some(2),
            Some(4),
            Some(5),
            inside_e,
            Some(11),
            Some(12),
        ];
        assert_eq!(places[..7], expected);
        assert_eq!(places[7..], [Some(14), Some(15), past_end]);
        // a surrogate pair is one 4-byte character: `x` after it is byte 4, at 13
        assert_eq!(unescaped_at(r#""\ud83d\ude00x""#, 4), Some(13));
    }

    #[test]
    fn unescaped_places_in_any_order_read_as_one_by_one() {
        let literal = r#""a\"b\u00e9c\\d\ud83d\ude00x""#;
        let mut places = Unescaped::new(literal);
        for at in [0, 2, 3, 4, 4, 9, 1, 5, 14, 13, 30, 3, 6] {
            assert_eq!(places.at(at), unescaped_at(literal, at), "{at}");
        }
    }

    #[test]
    fn string_ends_as_a_byte_by_byte_scan_finds_them() {
        // the quote after the opening one that an even run of backslashes precedes
        let scan = |bytes: &[u8]| {
            let mut at = 1;
            while at < bytes.len() {
                match bytes[at] {
                    b'\\' => at += 2,
                    b'"' => return Some(at + 1),
                    _ => at += 1,
                }
            }
            None
        };
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..20_000 {
            let length = round % 300;
            let mut text = vec![b'"'];
            for _ in 0..length {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // mostly backslashes (runs across the 64-byte blocks), few quotes
                text.push(match state % 16 {
                    0..=8 => b'\\',
                    9 => b'"',
                    _ => b'a',
                });
            }
            assert_eq!(
                string_end(&text),
                scan(&text),
                "{}",
                String::from_utf8_lossy(&text)
            );
        }
        assert_eq!(string_end(b"\"\\\\\"x"), Some(4));
        assert_eq!(string_end(b"\"\\\"x"), None);
        assert_eq!(string_end(b"\""), None);
    }

    #[test]
    fn added_cards_as_counter_subtracts() {
        let added = |new: &[u8], old: &[u8]| {
            let mut out = vec![9]; // (cleared first)
            added_cards(new, old, &mut out);
            out
        };
        assert_eq!(added(&[5, 3, 9], &[3]), vec![5, 9]);
        // Counter keeps first-seen order: 5 twice (one in old), then 3
        assert_eq!(added(&[5, 3, 5, 5], &[5]), vec![5, 5, 3]);
    }

    #[test]
    fn a_layout_folds_its_new_cards_as_counter_subtracts() {
        // a row 5 (4c) that now shows 5 and 9 (4d): 9 is placed; one that shows 5 twice
        // (a repeated id, Counter's multiset): the second 5 is placed too; 5 and 12 left
        // the unplaced cards without reaching a row now: discarded
        let fold = |old: Vec<u8>, new: Vec<u8>| {
            let mut seat = Seat {
                rows: [old, vec![], vec![]],
                active: vec![9, 5, 12],
                ..Seat::default()
            };
            let mut buffers = FoldBuffers {
                layout: ([new, vec![], vec![]], vec![]),
                ..FoldBuffers::default()
            };
            fold_layout(&mut seat, &mut buffers, true);
            let moves: Vec<_> = seat
                .placements
                .iter()
                .map(|p| (p.card, p.destination))
                .collect();
            (seat.rows[0].clone(), moves)
        };
        assert_eq!(
            fold(vec![5], vec![5, 9]),
            (vec![5, 9], vec![(9, 0), (5, DISCARD), (12, DISCARD)])
        );
        assert_eq!(
            fold(vec![5], vec![5, 5]),
            (vec![5, 5], vec![(5, 0), (9, DISCARD), (12, DISCARD)])
        );
        assert_eq!(fold(vec![5], vec![5]).0, vec![5]); // nothing new: the row as it was
    }

    #[test]
    fn common_ends_a_word_at_a_time_as_byte_by_byte() {
        // every place of one differing byte, in texts shorter and longer than a word
        let naive_prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let naive_suffix = |a: &[u8], b: &[u8]| {
            (a.iter().rev().zip(b.iter().rev()))
                .take_while(|(x, y)| x == y)
                .count()
        };
        let base: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for len in [0, 1, 7, 8, 9, 16, 23, 40] {
            let a = &base[..len];
            for at in 0..len {
                let mut b = a.to_vec();
                b[at] ^= 0x20;
                assert_eq!(common_prefix(a, &b), at, "{len} {at}");
                assert_eq!(common_suffix(a, &b), len - 1 - at, "{len} {at}");
                let longer = [&b[..], b"xyz"].concat(); // one text a prefix of the other
                assert_eq!(common_prefix(a, &longer), naive_prefix(a, &longer));
                assert_eq!(common_suffix(a, &longer), naive_suffix(a, &longer));
            }
            assert_eq!((common_prefix(a, a), common_suffix(a, a)), (len, len));
        }
    }

    fn resolve(text: &str) -> Resolved {
        (text == "gt=74").then(|| ("pineapple".to_owned(), 3, 52))
    }

    /// A whole file's text in one block, the last.
    fn decode_whole(data: &str) -> (Block, Option<Stop>) {
        SwcDecoder::default().decode(b"", &[data.as_bytes()], data.len(), 1, true, &mut resolve)
    }

    const LINE: &str = r#"{"t":"GameState","gameState":{"gi":7,"ti":"t","gt":74,"s":[{"n":"a","d":"1;2;3;4;5-1-2-2"},{"n":"b","d":"6;7;8;9;10-1-2-2"}]}}"#;

    #[test]
    fn a_hand_is_pushed_at_the_end_of_the_file() {
        let data = format!("{LINE}\n{LINE}\n");
        let (block, stop) = decode_whole(&data);
        assert!(stop.is_none());
        assert_eq!(block.columns.hands(), 1);
        // five cards each on street 0: 2 seats x 5 placements
        assert_eq!(block.columns.street, vec![0; 10]);
        assert_eq!(block.columns.raw_text.data, data.as_bytes()); // the resend kept
    }

    #[test]
    fn a_block_in_parts_decodes_as_one() {
        let odd = LINE.replace(r#""gi":7"#, r#""gi":7.5"#);
        let data = format!("{LINE}\n{LINE}\n{odd}\n");
        let bytes = data.as_bytes();
        let decode = |head: &[u8], reads: &[&[u8]], end: usize| {
            let (block, stop) =
                SwcDecoder::default().decode(head, reads, end, 1, true, &mut resolve);
            (block.consumed_lines, stop.map(|s| (s.line, s.at)))
        };
        let whole = decode(b"", &[bytes], bytes.len());
        // the odd line stops the decoder at its first byte of the block, whichever the parts
        assert_eq!(whole, (0, Some((3, 2 * LINE.len() + 2))));
        for cut in [1, LINE.len() + 1, LINE.len() + 5, data.len()] {
            let (head, rest) = bytes.split_at(cut);
            assert_eq!(decode(head, &[rest], rest.len()), whole, "{cut}");
            for second in [cut, cut + 1, cut + LINE.len(), data.len()].map(|c| c.min(data.len())) {
                let reads = [&bytes[cut..second], &bytes[second..], b"tail"];
                assert_eq!(decode(head, &reads, 0), whole, "{cut} {second}");
            }
        }
    }

    #[test]
    fn the_decoder_stops_before_what_it_is_unsure_of() {
        let odd = LINE.replace(r#""gi":7"#, r#""gi":7.5"#);
        let data = format!("{LINE}\n{odd}\n");
        let (block, stop) = decode_whole(&data);
        let stop = stop.unwrap();
        assert_eq!(block.columns.hands(), 0);
        assert_eq!((stop.line, stop.at), (2, LINE.len() + 1));
        assert_eq!(stop.replay, vec![(1, format!("{LINE}\n"))]);
        // a game type the resolver refuses: the hand is the definition's at the end
        let data = format!("{}\n", LINE.replace(r#""gt":74"#, r#""gt":76"#));
        let (_, stop) = decode_whole(&data);
        assert_eq!(stop.unwrap().at, data.len());
    }
}
