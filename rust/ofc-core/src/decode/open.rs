//! The open format (`parsers/open_format.py` is the definition): JSON Lines, one hand a line.
//!
//! Each line is read on its own, so the definition reads whatever line this
//! decoder leaves (in file order) with no state between lines.

use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess};
use serde::de::{SeqAccess, Visitor};
use serde::Deserialize as Derive;
use serde_json::value::RawValue;

use super::{
    blank, card_of, digits, lines, micros, Block, Card, HandIn, Obj, Placed, Presets, Resolved,
    SeatIn, Text, Walk, DESTINATIONS, DISCARD, MAX_HAND_BYTES,
};

pub const FORMAT: &str = "open";

/// A seat's ``streets``, flat: every card and destination in order, and each street's
/// counts of both (read in one pass, no list a street; pairing is checked by the caller).
/// Its vectors go back to [`SPARE`] when it is dropped, for the next seat.
#[derive(Default)]
struct Streets {
    cards: Vec<Read>,
    /// Index into [`DESTINATIONS`]; [`NO_DESTINATION`] for any other text.
    to: Vec<Dest>,
    steps: Vec<(usize, usize)>,
}

const NO_DESTINATION: u8 = 0xff;
/// Cards and streets a seat's vectors are made for (a pineapple seat: 17 cards, 5 streets;
/// more only grows them).
const MOST_CARDS: usize = 17;
const MOST_STREETS: usize = 5;
/// Seats' street vectors kept for reuse, a decoding thread's.
const SPARE_SEATS: usize = 64;

type StreetVectors = (Vec<Read>, Vec<Dest>, Vec<(usize, usize)>);

thread_local! {
    /// The vectors of seats' streets already read, emptied: three allocations a seat saved.
    static SPARE: RefCell<Vec<StreetVectors>> = const { RefCell::new(Vec::new()) };
}

impl Streets {
    fn new() -> Self {
        let spare = SPARE
            .try_with(|spare| spare.borrow_mut().pop())
            .ok()
            .flatten();
        let (cards, to, steps) = spare.unwrap_or_else(|| {
            // room for a seat's streets up front: growing three vectors from empty cost
            // more allocations than the rest of the seat
            (
                Vec::with_capacity(MOST_CARDS),
                Vec::with_capacity(MOST_CARDS),
                Vec::with_capacity(MOST_STREETS),
            )
        });
        Streets { cards, to, steps }
    }
}

impl Drop for Streets {
    fn drop(&mut self) {
        let mut kept = (
            std::mem::take(&mut self.cards),
            std::mem::take(&mut self.to),
            std::mem::take(&mut self.steps),
        );
        kept.0.clear();
        kept.1.clear();
        kept.2.clear();
        // a thread ending drops what it kept (try_with: the pool may be gone)
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_SEATS {
                spare.push(kept);
            }
        });
    }
}

/// A card of a street as ``open_format._card`` reads it: Ok(None) hidden, Err where the
/// definition must (read as it is parsed: two bytes, not the spelling).
#[derive(Clone, Copy)]
struct Read(Result<Option<u8>, ()>);

impl<'de> Deserialize<'de> for Read {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Card::deserialize(d).map(|value| Read(card(&value)))
    }
}

impl<'de> Deserialize<'de> for Streets {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(StreetsVisitor)
    }
}

struct StreetsVisitor;

impl<'de> Visitor<'de> for StreetsVisitor {
    type Value = Streets;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of streets")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Streets::new();
        while seq.next_element_seed(StepSeed(&mut out))?.is_some() {}
        Ok(out)
    }
}

/// One street (an object: `cards` and `to` lists, other keys ignored) into [`Streets`].
struct StepSeed<'s>(&'s mut Streets);

impl<'de> DeserializeSeed<'de> for StepSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

enum StepKey {
    Cards,
    To,
    Other,
}

impl<'de> Deserialize<'de> for StepKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = StepKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StepKey, E> {
                Ok(match v {
                    "cards" => StepKey::Cards,
                    "to" => StepKey::To,
                    _ => StepKey::Other,
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for StepSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a street: cards and to")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.0;
        let (mut cards, mut to) = (None, None);
        while let Some(key) = map.next_key::<StepKey>()? {
            match key {
                StepKey::Cards if cards.is_none() => {
                    let before = out.cards.len();
                    map.next_value_seed(ListSeed(&mut out.cards, PhantomData))?;
                    cards = Some(out.cards.len() - before);
                }
                StepKey::To if to.is_none() => {
                    let before = out.to.len();
                    map.next_value_seed(ListSeed(&mut out.to, PhantomData))?;
                    to = Some(out.to.len() - before);
                }
                StepKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => return Err(de::Error::custom("a key twice")),
            }
        }
        match (cards, to) {
            (Some(cards), Some(to)) => out.steps.push((cards, to)),
            _ => return Err(de::Error::custom("a street without cards or to")),
        }
        Ok(())
    }
}

/// A list's items appended to a vector.
struct ListSeed<'s, T>(&'s mut Vec<T>, PhantomData<T>);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for ListSeed<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListSeed<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element()? {
            self.0.push(item);
        }
        Ok(())
    }
}

/// A destination by its name (any other string is [`NO_DESTINATION`]: the definition's).
#[derive(Clone, Copy)]
struct Dest(u8);

impl<'de> Deserialize<'de> for Dest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DestVisitor;
        impl Visitor<'_> for DestVisitor {
            type Value = Dest;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a destination")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dest, E> {
                let at = DESTINATIONS.iter().position(|d| *d == v);
                Ok(Dest(at.map_or(NO_DESTINATION, |at| at as u8)))
            }
        }
        d.deserialize_str(DestVisitor)
    }
}

#[derive(Derive)]
struct Outcome {
    #[serde(default)]
    points: Option<f64>,
    #[serde(default)]
    money: Option<f64>,
}

#[derive(Derive)]
struct FinalRows<'a> {
    #[serde(default, borrow)]
    top: Vec<Card<'a>>,
    #[serde(default, borrow)]
    middle: Vec<Card<'a>>,
    #[serde(default, borrow)]
    bottom: Vec<Card<'a>>,
}

#[derive(Derive)]
struct Seat<'a> {
    #[serde(default, borrow)]
    player: Text<'a>,
    #[serde(default, borrow)]
    player_id: Text<'a>,
    #[serde(default)]
    hero: Option<bool>,
    #[serde(default)]
    in_fantasy: Option<bool>,
    #[serde(default)]
    stack: Option<f64>,
    #[serde(default)]
    streets: Option<Streets>,
    #[serde(default, borrow)]
    rows: Option<Obj<FinalRows<'a>>>,
    #[serde(default, borrow)]
    discards: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<Obj<Outcome>>,
}

#[derive(Derive)]
struct Hand<'a> {
    #[serde(borrow)]
    ofc_format: Text<'a>,
    #[serde(borrow)]
    room: Text<'a>,
    #[serde(borrow)]
    table: Text<'a>,
    #[serde(borrow)]
    hand_id: Text<'a>,
    #[serde(borrow)]
    ruleset: Text<'a>,
    #[serde(borrow)]
    seats: Vec<Obj<Seat<'a>>>,
    #[serde(default, borrow)]
    played_at: Text<'a>,
    #[serde(default, borrow)]
    rules_text: Text<'a>,
    #[serde(default)]
    stakes: Option<f64>,
    #[serde(default, borrow)]
    currency: Text<'a>,
}

/// A card as ``open_format._card`` reads it: Ok(None) hidden, Err where the definition must.
fn card(value: &Card<'_>) -> Result<Option<u8>, ()> {
    match value {
        Card::Hidden => Ok(None),
        Card::Id(id) if (0..=53).contains(id) => Ok(Some(*id as u8)),
        Card::Id(_) => Err(()),
        Card::Spelled(text) => card_of(text.as_bytes()).map(Some).ok_or(()),
    }
}

/// ``played_at_of``: the plain local ISO times (``YYYY-MM-DD``, then ``T`` or a space and
/// ``HH:MM:SS``, then ``.fff`` or ``.ffffff``); a zone or any other shape is the definition's.
fn played_at(text: &str) -> Option<i64> {
    let t = text.as_bytes();
    let n = |at, len| digits(t, at, len);
    if t.len() < 10 || t[4] != b'-' || t[7] != b'-' {
        return None;
    }
    let (y, m, d) = (n(0, 4)?, n(5, 2)?, n(8, 2)?);
    if t.len() == 10 {
        return micros(y, m, d, 0, 0, 0, 0);
    }
    if t.len() < 19 || !matches!(t[10], b'T' | b' ') || t[13] != b':' || t[16] != b':' {
        return None;
    }
    let fraction = match t.len() {
        19 => 0,
        23 if t[19] == b'.' => n(20, 3)? * 1000,
        26 if t[19] == b'.' => n(20, 6)?,
        _ => return None,
    };
    micros(y, m, d, n(11, 2)?, n(14, 2)?, n(17, 2)?, fraction)
}

/// The vectors of seats already stored, cleared for the next ones: a seat's rows, discards
/// and placements were five allocations a seat, a tenth of the decode.
#[derive(Default)]
struct Spare {
    cards: Vec<Vec<u8>>,
    placed: Vec<Vec<Placed>>,
}

impl Spare {
    fn cards(&mut self) -> Vec<u8> {
        self.cards.pop().unwrap_or_default()
    }

    fn placed(&mut self) -> Vec<Placed> {
        self.placed.pop().unwrap_or_default()
    }

    /// Take back a hand's vectors, emptied.
    fn keep(&mut self, seats: Vec<SeatIn<'_>>) {
        for seat in seats {
            for mut cards in seat.rows.into_iter().chain(seat.discards) {
                cards.clear();
                self.cards.push(cards);
            }
            let mut placed = seat.placements;
            placed.clear();
            self.placed.push(placed);
        }
    }
}

fn seat_of<'a>(index: usize, seat: Seat<'a>, spare: &mut Spare) -> Option<SeatIn<'a>> {
    let mut rows: [Vec<u8>; 3] = [spare.cards(), spare.cards(), spare.cards()];
    let mut discards = Some(spare.cards());
    let mut placements = spare.placed();
    if let Some(streets) = &seat.streets {
        let (mut card_at, mut to_at) = (0, 0);
        for (street, &(cards, to)) in streets.steps.iter().enumerate() {
            if cards != to {
                return None;
            }
            let values = &streets.cards[card_at..card_at + cards];
            let destinations = &streets.to[to_at..to_at + to];
            (card_at, to_at) = (card_at + cards, to_at + to);
            for (&Read(value), &Dest(destination)) in values.iter().zip(destinations) {
                if destination == NO_DESTINATION {
                    return None;
                }
                let Some(card) = value.ok()? else {
                    if destination != DISCARD {
                        return None;
                    }
                    discards = None; // the room hid a discard
                    continue;
                };
                placements.push(Placed {
                    street: street as i64,
                    card,
                    destination,
                });
                match destination {
                    DISCARD => discards.iter_mut().for_each(|d| d.push(card)),
                    row => rows[row as usize].push(card),
                }
            }
        }
    }
    if let Some(Obj(given)) = &seat.rows {
        if !placements.is_empty() {
            return None; // rows checked against the streets: the definition's
        }
        let shown = |cards: &[Card<'_>]| -> Option<Vec<u8>> {
            let read: Result<Vec<Option<u8>>, ()> = cards.iter().map(card).collect();
            Some(read.ok()?.into_iter().flatten().collect())
        };
        rows = [
            shown(&given.top)?,
            shown(&given.middle)?,
            shown(&given.bottom)?,
        ];
        discards = match seat.discards {
            Some(raw) => {
                let cards: Vec<Card<'_>> = serde_json::from_str(raw.get()).ok()?;
                Some(shown(&cards)?)
            }
            None => None,
        };
    }
    let outcome = seat.result.map_or(
        Outcome {
            points: None,
            money: None,
        },
        |o| o.0,
    );
    Some(SeatIn {
        position: index as i64,
        player: seat.player.text_or(""),
        player_id: seat.player_id.text_or_none(),
        hero: seat.hero.unwrap_or(false),
        in_fantasy: seat.in_fantasy.unwrap_or(false),
        rows,
        discards,
        placements,
        points: outcome.points,
        money: outcome.money,
        stack: seat.stack,
    })
}

/// One open-format line as the definition's HandRecord, or None where the definition must read it.
fn hand_of<'a>(
    text: &'a str,
    presets: &mut Presets,
    resolve: &mut dyn FnMut(&str) -> Resolved,
    spare: &mut Spare,
) -> Option<HandIn<'a>> {
    if !super::shallow(text) {
        return None;
    }
    let Obj(hand): Obj<Hand<'a>> = serde_json::from_str(text).ok()?;
    if hand.ofc_format != Text::Int("1".into()) {
        return None;
    }
    let preset = presets.get(&hand.ruleset.text_or(""), resolve)?;
    let played_at = match &hand.played_at {
        Text::Str(text) if !text.is_empty() => Some(played_at(text)?),
        value if value.truthy() => return None,
        _ => None,
    };
    let seats = hand
        .seats
        .into_iter()
        .enumerate()
        .map(|(index, Obj(seat))| seat_of(index, seat, spare))
        .collect::<Option<Vec<_>>>()?;
    Some(HandIn {
        room: hand.room.text_or(""),
        table_id: hand.table.text_or(""),
        room_hand_id: hand.hand_id.text_or(""),
        rules_text: hand.rules_text.text_or_none(),
        preset,
        played_at,
        stakes: hand.stakes,
        currency: hand.currency.text_or_none(),
        seats,
    })
}

/// Reads the open format a block of whole lines at a time; rule texts are resolved once a file.
#[derive(Default)]
pub struct OpenDecoder {
    pub presets: Presets,
    scratch: Vec<u8>,
    spare: Spare,
}

impl OpenDecoder {
    /// Decode the hands of `data` (whole lines; `first_line`/`first_offset` where it is in
    /// the file; `file_start`: it begins the file).
    pub fn decode(
        &mut self,
        data: &[u8],
        first_line: i64,
        first_offset: i64,
        file_start: bool,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Block {
        let mut walk = Walk::new(first_line, data.len());
        let mut count = 0i64;
        for (i, (start, end, next)) in lines(data).enumerate() {
            count += 1;
            let line = first_line + i as i64;
            let text = &data[start..end];
            if blank(text) {
                walk.other(true);
                continue;
            }
            let bom = file_start && i == 0 && text.starts_with(b"\xef\xbb\xbf");
            let mut raw = text;
            while let Some(rest) = raw.strip_suffix(b"\r") {
                raw = rest; // the definition's text.rstrip("\r\n")
            }
            let taken = !bom
                && end - start <= MAX_HAND_BYTES
                && std::str::from_utf8(raw).ok().is_some_and(|raw| {
                    let offset = first_offset + start as i64;
                    let spare = &mut self.spare;
                    hand_of(raw, &mut self.presets, resolve, spare).is_some_and(|hand| {
                        let columns = &mut walk.block.columns;
                        let pushed =
                            columns.push(FORMAT, &hand, line, offset, raw, &mut self.scratch);
                        spare.keep(hand.seats);
                        pushed
                    })
                });
            if taken {
                walk.hand(start, next, line, 1);
            } else {
                walk.other(false);
            }
        }
        walk.finish(data.len(), first_line + count, first_line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_iso_times_only() {
        // 2026-01-01T00:00:00 is 20454 days after the epoch (see mod.rs)
        let day = 20_454 * 86_400_000_000i64;
        assert_eq!(played_at("2026-01-01T00:00:00"), Some(day));
        assert_eq!(played_at("2026-01-01"), Some(day));
        assert_eq!(played_at("2026-01-01 00:00:01.5"), None); // one digit: the definition's
        assert_eq!(played_at("2026-01-01 00:00:01.500"), Some(day + 1_500_000));
        assert_eq!(played_at("2026-01-01T00:00:00Z"), None);
        assert_eq!(played_at("2026-02-30"), None);
    }
}
