//! fpdb-3 databases (`parsers/fpdb.py` is the definition): one rawJson hand model a row.
//!
//! Python reads the rows with sqlite3 (about 4.6 CPU-µs a 3 kB row, a seventh of an
//! import's CPU: SQLite's page reads and the rows as Python strings; the rows come here as
//! fetched); each row's rawJson text is decoded here into typed structs and laid out as
//! the stored columns.  Every row stands alone, so a row this decoder leaves (an
//! odd type, a spelling it does not know, a hand the definition would refuse)
//! is read by the definition in its place, with no state between rows.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use rayon::prelude::*;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize as Derive;

use super::{
    card_of, digits, micros, Block, HandIn, Obj, Placed, Presets, Resolved, SeatIn, Text, Unit,
    DISCARD, MAX_HAND_BYTES,
};

pub const FORMAT: &str = "fpdb";
/// The variant names the definition knows (`fpdb.VARIANTS`).
const VARIANTS: [&str; 2] = ["ofc", "ofcp"];
/// Rows one rayon task reads at least (a row is some microseconds of work).
const ROWS_A_TASK: usize = 16;
/// Brackets a rawJson may open in all and be read here with no [`super::shallow`] scan of
/// its nesting (~1 µs of a 3 kB hand, which opens 70-250): a text nests no deeper than it
/// opens, and Python's json reads any document 400 deep (its limit is about 1,000 less the
/// reader's own stack on 3.11, more on later versions).
const OPENS_UNSCANNED: usize = 400;

/// Python's truth of any JSON value (``if record.get("dealt")``); `Absent` when missing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Truth {
    #[default]
    Absent,
    Value(bool),
}

impl Truth {
    fn truthy(self) -> bool {
        self == Truth::Value(true)
    }
}

struct TruthVisitor;

impl<'de> Visitor<'de> for TruthVisitor {
    type Value = Truth;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Truth, E> {
        Ok(Truth::Value(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Truth, E> {
        Ok(Truth::Value(v != 0))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Truth, E> {
        Ok(Truth::Value(v != 0))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Truth, E> {
        Ok(Truth::Value(v != 0.0))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Truth, E> {
        Ok(Truth::Value(!v.is_empty()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Truth, E> {
        Ok(Truth::Value(false))
    }
    fn visit_none<E: de::Error>(self) -> Result<Truth, E> {
        Ok(Truth::Value(false))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Truth, A::Error> {
        let mut any = false;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            any = true;
        }
        Ok(Truth::Value(any))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Truth, A::Error> {
        let mut any = false;
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            any = true;
        }
        Ok(Truth::Value(any))
    }
}

impl<'de> Deserialize<'de> for Truth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TruthVisitor)
    }
}

/// An integer ordering key: ``_round``'s (a non-integer is 0) or ``seat_idx or 0``
/// (`strict`: anything but an integer or null is the definition's error).
#[derive(Debug, Clone, Copy, Default)]
struct Key<const STRICT: bool>(i128);

struct KeyVisitor<const STRICT: bool>;

impl<'de, const STRICT: bool> Visitor<'de> for KeyVisitor<STRICT> {
    type Value = Key<STRICT>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Key(i128::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Key(i128::from(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Key(0))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Key(0))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        if STRICT {
            return Err(E::custom("a bool"));
        }
        Ok(Key(0))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        if STRICT {
            return Err(E::custom("a string"));
        }
        Ok(Key(0))
    }
}

impl<'de, const STRICT: bool> Deserialize<'de> for Key<STRICT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyVisitor::<STRICT>)
    }
}

/// Card texts as ``_cards`` reads them: a space-separated string or a list of strings,
/// "--" (hidden) left out; null or empty is no cards.  `None`: a spelling `card_of` does
/// not know (``parse_card`` reads more), or more than [`MAX_CARDS`], which the
/// definition reads.
#[derive(Debug)]
struct Cards(Option<Ids>);

impl Default for Cards {
    fn default() -> Self {
        Cards(Some(Ids::default()))
    }
}

/// The most cards one list of a hand holds here (a row, a round's placing or discards,
/// at most 13 in a hand): held in place, so reading a list allocates nothing.
const MAX_CARDS: usize = 16;

/// Card ids, up to [`MAX_CARDS`].
#[derive(Debug, Default, Clone, Copy)]
struct Ids {
    len: u8,
    ids: [u8; MAX_CARDS],
}

impl Ids {
    /// Add `id`; None when the list is full.
    fn push(mut self, id: u8) -> Option<Self> {
        *self.ids.get_mut(usize::from(self.len))? = id;
        self.len += 1;
        Some(self)
    }

    fn as_slice(&self) -> &[u8] {
        &self.ids[..usize::from(self.len)]
    }
}

/// One card text: hidden ("--"), a card id, or a spelling left to the definition.
enum CardText {
    Hidden,
    Id(u8),
    Unknown,
}

fn card_text(text: &str) -> CardText {
    if text == "--" {
        return CardText::Hidden;
    }
    card_of(text.as_bytes()).map_or(CardText::Unknown, CardText::Id)
}

impl<'de> Deserialize<'de> for CardText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl Visitor<'_> for TextVisitor {
            type Value = CardText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a card")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CardText, E> {
                Ok(card_text(v))
            }
        }
        d.deserialize_str(TextVisitor)
    }
}

fn collect(texts: impl Iterator<Item = CardText>) -> Cards {
    let mut ids = Ids::default();
    for text in texts {
        match text {
            CardText::Hidden => {}
            CardText::Id(id) => match ids.push(id) {
                Some(more) => ids = more,
                None => return Cards(None),
            },
            CardText::Unknown => return Cards(None),
        }
    }
    Cards(Some(ids))
}

struct CardsVisitor;

impl<'de> Visitor<'de> for CardsVisitor {
    type Value = Cards;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cards")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(collect(v.split_ascii_whitespace().map(card_text)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Cards::default())
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Cards::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // straight into the ids (the rest still read once a spelling is the definition's)
        let mut ids = Some(Ids::default());
        while let Some(text) = seq.next_element::<CardText>()? {
            match (text, ids) {
                (CardText::Id(id), Some(held)) => ids = held.push(id),
                (CardText::Unknown, _) => ids = None,
                _ => {}
            }
        }
        Ok(Cards(ids))
    }
}

impl<'de> Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CardsVisitor)
    }
}

impl Cards {
    /// The card ids, hidden cards left out; None for a spelling the definition reads.
    fn ids(self) -> Option<Ids> {
        self.0
    }
}

/// A points value as ``_number`` reads it, where its reading is surely Python's.
#[derive(Debug, Clone, Default)]
enum Points<'a> {
    #[default]
    Absent,
    Null,
    Number(f64),
    Text(Cow<'a, str>),
    /// A bool or a container: the definition's.
    Other,
}

struct PointsVisitor;

impl<'de> Visitor<'de> for PointsVisitor {
    type Value = Points<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("points")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Points::Number(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Points::Number(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Points::Number(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Points::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Points::Text(Cow::Owned(v.to_owned())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Points::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Points::Null)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Points::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Points::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Points::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Points<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PointsVisitor)
    }
}

impl Points<'_> {
    /// ``_number``: Some(None) for no points, Some(Some(x)) for a number, None: the definition's.
    fn number(&self) -> Option<Option<f64>> {
        match self {
            Points::Absent | Points::Null => Some(None),
            Points::Number(x) => Some(Some(*x)),
            Points::Text(t) if t.is_empty() => Some(None),
            // float(text) of a plain decimal (no sign but "-", no spaces, "_", "inf" or "e")
            Points::Text(t) => plain_decimal(t).then(|| t.parse().ok().map(Some))?,
            Points::Other => None,
        }
    }
}

fn plain_decimal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

#[derive(Derive)]
struct Variant<'a> {
    #[serde(default, borrow)]
    variant: Text<'a>,
    #[serde(default)]
    deuce_to_seven: Truth,
    #[serde(default)]
    pineapple: Truth,
}

#[derive(Derive)]
struct Player<'a> {
    #[serde(default, borrow)]
    name: Text<'a>,
    #[serde(default)]
    seat_idx: Key<true>,
    #[serde(default)]
    top: Cards,
    #[serde(default)]
    middle: Cards,
    #[serde(default)]
    bottom: Cards,
    #[serde(default, borrow)]
    points: Points<'a>,
}

#[derive(Derive)]
struct Rows {
    #[serde(default)]
    top: Cards,
    #[serde(default)]
    middle: Cards,
    #[serde(default)]
    bottom: Cards,
}

#[derive(Derive)]
struct Round<'a> {
    #[serde(default)]
    round: Key<false>,
    #[serde(default, borrow)]
    player: Text<'a>,
    #[serde(default)]
    dealt: Truth,
    #[serde(default)]
    placed: Option<Obj<Rows>>,
    #[serde(default)]
    discarded: Cards,
}

/// An object's entries in order, keys borrowed where unescaped (``points_settled``: a
/// few players, looked up by [`Entries::get`]: no hashing, no string copies).
#[derive(Default)]
struct Entries<'a, V>(Vec<(Cow<'a, str>, V)>);

impl<V> Entries<'_, V> {
    /// A key's value as a Python dict keeps it: the last entry of the key.
    fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// A key as written, borrowed from the text unless it holds an escape.
struct KeyText<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for KeyText<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = KeyText<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(KeyText(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(KeyText(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de: 'a, 'a, V: Deserialize<'de>> Deserialize<'de> for Entries<'a, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<'a, V>(PhantomData<(Cow<'a, str>, V)>);
        impl<'de: 'a, 'a, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<'a, V> {
            type Value = Entries<'a, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some((KeyText(key), value)) = map.next_entry::<KeyText<'a>, V>()? {
                    entries.push((key, value));
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(EntriesVisitor(PhantomData))
    }
}

/// A list read into room for `N` items at once (serde's `Vec` starts at none and grows).
struct Many<T, const N: usize>(Vec<T>);

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for Many<T, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ManyVisitor<T, const N: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for ManyVisitor<T, N> {
            type Value = Many<T, N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(N);
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Many(items))
            }
        }
        d.deserialize_seq(ManyVisitor(PhantomData))
    }
}

/// Rounds of a hand read into room for this many (a 4-seat classic hand has 36).
const ROUNDS: usize = 40;

#[derive(Derive)]
struct Outcome<'a> {
    #[serde(default, borrow)]
    points_settled: Option<Obj<Entries<'a, Points<'a>>>>,
}

#[derive(Derive)]
struct Raw<'a> {
    #[serde(default, borrow)]
    hand_id: Text<'a>,
    #[serde(default, borrow)]
    site: Text<'a>,
    #[serde(default, borrow)]
    table_id: Text<'a>,
    #[serde(default, borrow)]
    timestamp: Text<'a>,
    #[serde(default, borrow)]
    variant: Option<Obj<Variant<'a>>>,
    #[serde(default, borrow)]
    players: Option<Vec<Obj<Player<'a>>>>,
    #[serde(default, borrow)]
    rounds: Option<Many<Obj<Round<'a>>, ROUNDS>>,
    #[serde(default, borrow)]
    result: Option<Obj<Outcome<'a>>>,
}

/// ``street_of``: the street on which a player's placed-card count was reached.
pub fn street_of(placed: i64, pineapple: bool, fantasy: bool) -> i64 {
    if fantasy || placed <= 5 {
        0
    } else if pineapple {
        (placed - 4) / 2
    } else {
        placed - 5
    }
}

/// ``datetime.fromisoformat`` of the usual timestamp shapes, its offset dropped
/// (``YYYY-MM-DDTHH:MM:SS[.f{1,6}][Z|±HH:MM]``); None for any other text.
pub(crate) fn timestamp(text: &str) -> Option<i64> {
    let t = text.as_bytes();
    let n = |at, len| digits(t, at, len);
    if t.len() < 19 || t[4] != b'-' || t[7] != b'-' || !matches!(t[10], b'T' | b' ') {
        return None;
    }
    if t[13] != b':' || t[16] != b':' {
        return None;
    }
    let mut at = 19;
    let mut fraction = 0;
    if t.get(at) == Some(&b'.') {
        let count = t[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if !(1..=6).contains(&count) {
            return None;
        }
        fraction = n(at + 1, count)? * 10i64.pow(6 - count as u32);
        at += 1 + count;
    }
    match &t[at..] {
        [] | [b'Z'] => {}
        [b'+' | b'-', _, _, b':', _, _] => {
            if n(at + 1, 2)? > 23 || n(at + 4, 2)? > 59 {
                return None;
            }
        }
        _ => return None,
    }
    micros(
        n(0, 4)?,
        n(5, 2)?,
        n(8, 2)?,
        n(11, 2)?,
        n(14, 2)?,
        n(17, 2)?,
        fraction,
    )
}

/// The cards a seat places or discards in a hand, as a rule: 13 placed, 4 discarded.
const CARDS_A_SEAT: usize = 17;

/// One player's state through the rounds: seat, cards placed, Fantasyland, dealt to, discards.
#[derive(Default)]
struct State {
    placed: i64,
    fantasy: bool,
    dealt: bool,
    discards: Vec<u8>,
    placements: Vec<Placed>,
}

/// One row's hand as ``hand_from_raw`` reads it but for its ruleset, which the caller's
/// resolver gives in row order once the rows are read (on every core: [`parsed`] is pure).
struct Parsed<'a> {
    name: &'static str,
    room: Cow<'a, str>,
    table_id: Cow<'a, str>,
    room_hand_id: Cow<'a, str>,
    played_at: Option<i64>,
    seats: Vec<SeatIn<'a>>,
    moves: Vec<(usize, Placed)>,
}

impl<'a> Parsed<'a> {
    /// The hand under its variant's preset; None where the definition refuses the variant.
    fn hand(
        self,
        presets: &mut Presets,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Option<(HandIn<'a>, Vec<(usize, Placed)>)> {
        let hand = HandIn {
            room: self.room,
            table_id: self.table_id,
            room_hand_id: self.room_hand_id,
            rules_text: Some(Cow::Borrowed(self.name)),
            preset: presets.get(self.name, resolve)?,
            played_at: self.played_at,
            stakes: None,
            currency: None,
            seats: self.seats,
        };
        Some((hand, self.moves))
    }
}

/// ``hand_from_raw`` of one rawJson text up to its ruleset ([`Parsed::hand`] adds it), where
/// its answer is surely the definition's; None otherwise (the definition then reads the
/// row, or quarantines it with its reason).
fn parsed<'a>(text: &'a str, table_name: &str) -> Option<Parsed<'a>> {
    let opens = super::count_bytes(text.as_bytes(), |b| b == b'[' || b == b'{');
    if opens > OPENS_UNSCANNED && !super::shallow(text) {
        return None;
    }
    let Obj(raw) = serde_json::from_str::<Obj<Raw<'a>>>(text).ok()?;
    let variant = raw.variant.map(|Obj(v)| v);
    let name = variant
        .as_ref()
        .map_or(Cow::Borrowed("ofcp"), |v| v.variant.text_or("ofcp"));
    if variant.as_ref().is_some_and(|v| v.deuce_to_seven.truthy()) {
        return None;
    }
    let name = VARIANTS.iter().find(|known| **known == name)?;
    let pineapple = match variant.as_ref().map_or(Truth::Absent, |v| v.pineapple) {
        Truth::Absent => *name == "ofcp",
        Truth::Value(value) => value,
    };
    let mut players: Vec<Player<'a>> = raw.players?.into_iter().map(|Obj(p)| p).collect();
    players.sort_by_key(|p| p.seat_idx.0); // stable, as ``sorted``
    if players.is_empty() {
        return None;
    }
    let names: Vec<Cow<'a, str>> = players.iter().map(|p| p.name.text_or("None")).collect();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return None; // two seats of one name share a state: the definition's
        }
    }
    let seat_state = || State {
        placements: Vec::with_capacity(CARDS_A_SEAT),
        ..State::default()
    };
    let mut states: Vec<State> = players.iter().map(|_| seat_state()).collect();
    let mut moves = Vec::with_capacity(CARDS_A_SEAT * players.len());
    let mut rounds: Vec<Round<'a>> = raw
        .rounds
        .map_or_else(Vec::new, |Many(rounds)| rounds)
        .into_iter()
        .map(|Obj(r)| r)
        .collect();
    if !rounds.is_sorted_by_key(|r| r.round.0) {
        rounds.sort_by_key(|r| r.round.0); // (stable, as ``sorted``; most come in order)
    }
    for record in rounds {
        let player = record.player.text_or("None");
        let Some(seat) = names.iter().position(|n| *n == player) else {
            continue;
        };
        let state = &mut states[seat];
        state.dealt |= record.dealt.truthy();
        let rows = match record.placed {
            Some(Obj(rows)) => [rows.top.ids()?, rows.middle.ids()?, rows.bottom.ids()?],
            None => Default::default(),
        };
        let count: usize = rows.iter().map(|row| row.as_slice().len()).sum();
        state.fantasy |= count > 5;
        state.placed += count as i64;
        let street = street_of(state.placed, pineapple, state.fantasy);
        for (destination, row) in rows.iter().enumerate() {
            for &card in row.as_slice() {
                let placed = Placed {
                    street,
                    card,
                    destination: destination as u8,
                };
                state.placements.push(placed);
                moves.push((seat, placed));
            }
        }
        for &card in record.discarded.ids()?.as_slice() {
            let placed = Placed {
                street,
                card,
                destination: DISCARD,
            };
            state.placements.push(placed);
            state.discards.push(card);
            moves.push((seat, placed));
        }
    }
    let settled = raw
        .result
        .and_then(|Obj(r)| r.points_settled)
        .map(|Obj(s)| s)
        .unwrap_or_default();
    let mut seats = Vec::with_capacity(players.len());
    for (index, (player, state)) in players.into_iter().zip(states).enumerate() {
        let points = match settled.get(&names[index]) {
            _ if settled.0.is_empty() => None,
            Some(points) => points.number()?,
            None => player.points.number()?,
        };
        seats.push(SeatIn {
            position: index as i64,
            player: names[index].clone(),
            hero: state.dealt,
            in_fantasy: state.fantasy,
            rows: [
                player.top.ids()?.as_slice().to_vec(),
                player.middle.ids()?.as_slice().to_vec(),
                player.bottom.ids()?.as_slice().to_vec(),
            ],
            discards: state.dealt.then_some(state.discards),
            placements: state.placements,
            points,
            ..SeatIn::default()
        });
    }
    let played_at = match &raw.timestamp {
        Text::Str(t) if !t.is_empty() => Some(timestamp(t)?),
        Text::Absent | Text::Null | Text::Str(_) => None,
        Text::Int(_) => return None, // str(20260814) is a date to fromisoformat
    };
    let table_id = if raw.table_id.truthy() {
        raw.table_id.text_or("")
    } else if table_name.is_empty() {
        Cow::Borrowed("")
    } else {
        return None; // a reparse of the text alone would not know the table: the definition's
    };
    let room = if raw.site.truthy() {
        raw.site.text_or("")
    } else {
        Cow::Borrowed("SealsWithClubs")
    };
    Some(Parsed {
        name,
        room,
        table_id,
        room_hand_id: match raw.hand_id {
            Text::Int(digits) => Cow::Owned(digits), // (taken, not copied)
            hand_id => hand_id.text_or("None"),
        },
        played_at,
        seats,
        moves,
    })
}

/// fpdb rows, a fetch at a time (one decoder a database).
#[derive(Default)]
pub struct FpdbDecoder {
    pub presets: Presets,
    scratch: Vec<u8>,
}

/// One row as Python fetched it: its id, table name and rawJson text (None: not a text).
pub struct Row<'a> {
    pub id: i64,
    pub table_name: &'a str,
    pub text: Option<&'a str>,
}

impl FpdbDecoder {
    /// Decode `rows`; [`Unit::Lines`] here are rows `start..stop` for the definition.
    pub fn decode(&mut self, rows: &[Row<'_>], resolve: &mut dyn FnMut(&str) -> Resolved) -> Block {
        let mut block = Block::default();
        let mut ids = HashSet::with_capacity(rows.len());
        // (the raw texts' bytes at once: grown a hand at a time they are copied again and again)
        let bytes = rows.iter().filter_map(|row| row.text).map(str::len).sum();
        block.columns.reserve(bytes);
        // Every row stands alone: they are read on every core, then laid out in row order.
        let hands: Vec<Option<Parsed<'_>>> = rows
            .par_iter()
            .with_min_len(ROWS_A_TASK)
            .map(|row| {
                let text = row.text.filter(|text| text.len() <= MAX_HAND_BYTES)?;
                parsed(text, row.table_name)
            })
            .collect();
        for (at, (row, hand)) in rows.iter().zip(hands).enumerate() {
            let taken = match (row.text, hand) {
                (Some(text), Some(hand)) if !ids.contains(&row.id) => hand
                    .hand(&mut self.presets, resolve)
                    .is_some_and(|(hand, moves)| {
                        let columns = &mut block.columns;
                        let pushed = columns.push_ordered(
                            FORMAT,
                            &hand,
                            &moves,
                            row.id,
                            text,
                            &mut self.scratch,
                        );
                        pushed && ids.insert(row.id)
                    }),
                _ => false,
            };
            let hand = block.columns.hands();
            match (block.units.last_mut(), taken) {
                (Some(Unit::Hands { stop, .. }), true) => *stop = hand,
                (Some(Unit::Lines { stop, .. }), false) => *stop = at + 1,
                (_, true) => block.units.push(Unit::Hands {
                    start: hand - 1,
                    stop: hand,
                }),
                (_, false) => block.units.push(Unit::Lines {
                    start: at,
                    stop: at + 1,
                    line: 0,
                }),
            }
        }
        block.consumed = rows.len();
        block.consumed_lines = rows.len() as i64;
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ``hand_from_raw`` of one rawJson text, ruleset and all (None: the definition's).
    fn hand_of<'a>(
        text: &'a str,
        table_name: &str,
        presets: &mut Presets,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Option<(HandIn<'a>, Vec<(usize, Placed)>)> {
        parsed(text, table_name)?.hand(presets, resolve)
    }

    fn resolve(text: &str) -> Resolved {
        let name = if text == "ofc" {
            "classic-american"
        } else {
            "pineapple"
        };
        Some((name.to_owned(), 4, 52))
    }

    const HAND: &str = r#"{"hand_id": 7, "table_id": "t", "timestamp": "2026-08-14T19:02:05.212004Z",
      "players": [{"name": "b", "seat_idx": 2, "top": ["Ah"]}, {"name": "a", "seat_idx": 1}],
      "rounds": [{"round": 2, "player": "a", "placed": {"top": ["2c", "3c", "4c"],
        "middle": "5c 6c"}, "dealt": ["x"]},
        {"round": 3, "player": "a", "placed": {"bottom": ["7c", "--"]}, "discarded": "8c"}],
      "result": {"points_settled": {"a": 3, "b": "-3.5"}}}"#;

    #[test]
    fn a_hand_as_hand_parts_reads_it() {
        let (hand, moves) = hand_of(HAND, "", &mut Presets::default(), &mut resolve).unwrap();
        // seats sorted by seat_idx: a (1) then b (2)
        assert_eq!(hand.seats[0].player, "a");
        assert_eq!(hand.seats[1].points, Some(-3.5));
        assert_eq!(hand.room, "SealsWithClubs");
        assert_eq!(hand.room_hand_id, "7");
        // a placed 5 cards on round 2 (street 0), then 1 more: 6 placed, (6 - 4) // 2 = street 1
        let streets: Vec<i64> = moves.iter().map(|(_, p)| p.street).collect();
        assert_eq!(streets, [0, 0, 0, 0, 0, 1, 1]);
        // 8c is card 6 * 4 + 0 = 24, discarded by seat 0
        assert_eq!(hand.seats[0].discards, Some(vec![24]));
        assert!(hand.seats[0].hero && !hand.seats[1].hero);
    }

    #[test]
    fn settled_points_as_a_dict_keeps_them() {
        let mut presets = Presets::default();
        let mut points = |text: &str| {
            let (hand, _) = hand_of(text, "", &mut presets, &mut resolve).unwrap();
            hand.seats.iter().map(|s| s.points).collect::<Vec<_>>()
        };
        // a key given twice: its last value, as json.loads keeps it; an escaped key matches
        let twice = HAND.replace("\"a\": 3,", "\"a\": 3, \"b\": 9, \"\\u0061\": 4,");
        assert_eq!(points(&twice), [Some(4.0), Some(-3.5)]);
        // points_settled names no seat: each seat's own points (none here)
        let other = HAND.replace("{\"a\": 3, \"b\": \"-3.5\"}", "{\"c\": 1}");
        assert_eq!(points(&other), [None, None]);
        // an empty points_settled: no points at all
        let empty = HAND.replace("{\"a\": 3, \"b\": \"-3.5\"}", "{}");
        assert_eq!(points(&empty), [None, None]);
        // rounds out of order are read in round order (stable), as ``sorted`` reads them
        let (_, moves) = hand_of(HAND, "", &mut presets, &mut resolve).unwrap();
        let swapped = HAND.replace("\"round\": 2", "\"round\": 9");
        let (_, later) = hand_of(&swapped, "", &mut presets, &mut resolve).unwrap();
        assert_eq!(moves.len(), later.len());
        assert_eq!(later[0].1.card, moves[5].1.card, "round 3 now comes first");
    }

    #[test]
    fn rows_left_to_the_definition() {
        let mut presets = Presets::default();
        let odd = [
            HAND.replace("\"hand_id\": 7", "\"hand_id\": 7, \"hand_id\": 8"), // duplicate key
            HAND.replace("\"b\": \"-3.5\"", "\"b\": \" 3\""),                 // float(" 3")
            HAND.replace("\"top\": [\"Ah\"]", "\"top\": [\"A\u{2665}\"]"),    // parse_card's
            HAND.replace("\"seat_idx\": 2", "\"seat_idx\": true"),
            HAND.replace("\"table_id\": \"t\", ", ""), // the row's table name
        ];
        for text in &odd {
            assert!(
                hand_of(text, "row", &mut presets, &mut resolve).is_none(),
                "{text}"
            );
        }
    }

    #[test]
    fn rows_decode_alike_on_any_thread_count() {
        // hands, rows left to the definition (an odd spelling, an id met twice, no text)
        // and hands again, more rows than one rayon task reads
        let odd = HAND.replace("\"top\": [\"Ah\"]", "\"top\": [\"A\u{2665}\"]");
        let texts: Vec<Option<&str>> = (0..100)
            .map(|i| match i % 7 {
                3 => Some(odd.as_str()),
                5 => None,
                _ => Some(HAND),
            })
            .collect();
        let rows: Vec<Row<'_>> = texts
            .iter()
            .enumerate()
            .map(|(i, &text)| Row {
                id: if i == 41 { 39 } else { i as i64 },
                table_name: "",
                text,
            })
            .collect();
        let on = |threads| {
            crate::value::tests::pool_of(threads)
                .install(|| format!("{:?}", FpdbDecoder::default().decode(&rows, &mut resolve)))
        };
        let one = on(1);
        assert!(
            one.contains("Lines { start: 3, stop: 4"),
            "the odd row left in its place"
        );
        assert_eq!(on(3), one);
    }

    #[test]
    fn timestamps_as_fromisoformat_reads_them() {
        // 2026-08-14 is 20,679 days after 1970-01-01; 19:02:05 is 68,525 s
        let day = 20_679 * 86_400_000_000i64 + 68_525_000_000;
        assert_eq!(timestamp("2026-08-14T19:02:05Z"), Some(day));
        assert_eq!(
            timestamp("2026-08-14 19:02:05.5+02:00"),
            Some(day + 500_000)
        );
        assert_eq!(timestamp("2026-08-14T19:02:05.1234567"), None);
        assert_eq!(timestamp("20260814"), None);
    }
}
