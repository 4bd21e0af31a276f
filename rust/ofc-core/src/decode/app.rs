//! App JSON (`parsers/app_records.py` is the definition): pretty-printed objects
//! one after another, or one object a line.
//!
//! A hand is taken only where the definition's splitter would read exactly
//! that object: a line that is exactly `{` up to the next line that is exactly
//! `}` with no blank line and no line starting `{` or `}` between (the apps'
//! layout), or one line from `{` to `}`.  Whether the splitter is idle there
//! depends on what came before, which the Python side knows: it hands a taken
//! hand back to the splitter when it is not (by the hand's span).

use std::borrow::Cow;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize as Derive;
use serde_json::value::RawValue;

use super::text::Int;
use super::{
    blank, card_of, digits, lines, micros, Block, HandIn, Obj, Placed, Presets, Resolved, SeatIn,
    Text, Walk, DISCARD, MAX_HAND_BYTES,
};

pub const FORMAT: &str = "app-json";
/// Files without appName come from Pokerrrr 2 (`app_records.DEFAULT_APP`).
pub const DEFAULT_APP: &str = "Ppp";

#[derive(Derive)]
struct Seat<'a> {
    #[serde(borrow)]
    rows: Text<'a>,
    #[serde(default, borrow)]
    dead: Text<'a>,
    #[serde(rename = "playerName", default, borrow)]
    player_name: Text<'a>,
    #[serde(rename = "playerId", default, borrow)]
    player_id: Text<'a>,
    #[serde(default)]
    hero: Option<bool>,
    #[serde(rename = "inFantasy", default)]
    in_fantasy: Option<bool>,
    #[serde(rename = "orderIndex", default)]
    order_index: Int,
    #[serde(default)]
    result: Option<f64>,
    #[serde(default)]
    win: Option<f64>,
}

/// `handData`: one hand id and its seats (more than one entry is the definition's).
struct HandData<'a> {
    id: Text<'a>,
    seats: Vec<Obj<Seat<'a>>>,
}

struct HandDataVisitor;

impl<'de> Visitor<'de> for HandDataVisitor {
    type Value = HandData<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object of one hand")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let id: Text<'de> = map
            .next_key()?
            .ok_or_else(|| de::Error::custom("no hand"))?;
        let seats = map.next_value()?;
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("more than one hand"));
        }
        Ok(HandData { id, seats })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for HandData<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(HandDataVisitor)
    }
}

#[derive(Derive)]
struct Hand<'a> {
    #[serde(rename = "handData", borrow)]
    hand_data: HandData<'a>,
    #[serde(rename = "appName", default, borrow)]
    app_name: Text<'a>,
    #[serde(rename = "roomId", default, borrow)]
    room_id: Text<'a>,
    #[serde(default, borrow)]
    rules: Text<'a>,
    #[serde(default)]
    stakes: Option<f64>,
    #[serde(rename = "endDateTime", default, borrow)]
    end: Text<'a>,
    #[serde(default, borrow)]
    price: Option<&'a RawValue>,
}

/// ``"As1 Jd3"``: each card to `cards` and its placement (street digit, `destination`) to
/// `placements`; None unless every token is a card and a digit separated by single spaces
/// (any other spelling is the definition's).
fn read_cards(
    text: &str,
    destination: u8,
    cards: &mut Vec<u8>,
    placements: &mut Vec<Placed>,
) -> Option<()> {
    if text.is_empty() {
        return Some(());
    }
    for token in text.split(' ') {
        let (&street, card) = token.as_bytes().split_last()?;
        if !street.is_ascii_digit() {
            return None;
        }
        let card = card_of(card)?;
        cards.push(card);
        placements.push(Placed {
            street: i64::from(street - b'0'),
            card,
            destination,
        });
    }
    Some(())
}

/// `endDateTime` as ``strptime(text, "%Y-%m-%d %H:%M:%S")`` reads its usual shape.
fn end_time(text: &str) -> Option<i64> {
    let t = text.as_bytes();
    if t.len() != 19 || t[4] != b'-' || t[7] != b'-' || t[10] != b' ' || t[13] != b':' {
        return None;
    }
    if t[16] != b':' {
        return None;
    }
    let n = |at, len| digits(t, at, len);
    micros(
        n(0, 4)?,
        n(5, 2)?,
        n(8, 2)?,
        n(11, 2)?,
        n(14, 2)?,
        n(17, 2)?,
        0,
    )
}

/// Python's ``\s`` on ASCII: space, \t \n \v \f \r and the separators \x1c-\x1f.
fn space(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r' | 0x1c..=0x1f)
}

/// The currency of a `price` text (``app_records._PRICE``): Ok(None) if it does not match,
/// Err if the text is not ASCII (Python's ``\s`` has more spaces than these).
fn currency(text: &str) -> Result<Option<String>, ()> {
    if !text.is_ascii() {
        return Err(());
    }
    let t = text.as_bytes();
    let mut at = 0;
    while at < t.len() && space(t[at]) {
        at += 1;
    }
    let start = at;
    while at < t.len() && t[at].is_ascii_digit() {
        at += 1;
    }
    if at == start {
        return Ok(None);
    }
    if at < t.len() && t[at] == b'.' {
        let fraction = at + 1;
        at = fraction;
        while at < t.len() && t[at].is_ascii_digit() {
            at += 1;
        }
        if at == fraction {
            return Ok(None);
        }
    }
    while at < t.len() && space(t[at]) {
        at += 1;
    }
    let letters = t
        .get(at..at + 3)
        .filter(|l| l.iter().all(u8::is_ascii_alphabetic));
    let Some(letters) = letters else {
        return Ok(None);
    };
    at += 3;
    if t[at..].iter().all(|&b| space(b)) {
        Ok(Some(String::from_utf8_lossy(letters).to_ascii_uppercase()))
    } else {
        Ok(None)
    }
}

/// One app object as the definition's HandRecord, or None where the definition must read it.
fn hand_of<'a>(
    raw: &'a str,
    presets: &mut Presets,
    resolve: &mut dyn FnMut(&str) -> Resolved,
) -> Option<HandIn<'a>> {
    if !super::shallow(raw) {
        return None;
    }
    let Obj(hand): Obj<Hand<'a>> = serde_json::from_str(raw).ok()?;
    if hand.hand_data.seats.is_empty() {
        return None;
    }
    let room_hand_id = match hand.hand_data.id {
        Text::Str(id) => id,
        _ => return None,
    };
    let rules_text = match hand.rules {
        Text::Str(text) if !text.is_empty() => text,
        _ => return None,
    };
    let preset = presets.get(&rules_text, resolve)?;
    let played_at = match &hand.end {
        Text::Str(text) if !text.is_empty() => Some(end_time(text)?),
        end if end.truthy() => return None,
        _ => None,
    };
    let currency = match hand.price {
        Some(raw) if raw.get().starts_with('"') => {
            match serde_json::from_str::<Text<'_>>(raw.get()).ok()? {
                Text::Str(text) => currency(&text).ok()?.map(Cow::Owned),
                _ => return None,
            }
        }
        _ => None,
    };
    let mut seats = Vec::with_capacity(hand.hand_data.seats.len());
    for (index, Obj(seat)) in hand.hand_data.seats.into_iter().enumerate() {
        let position = match seat.order_index {
            Int::Absent => index as i64,
            Int::Value(v) if (0..=127).contains(&v) => v,
            _ => return None,
        };
        let Text::Str(rows_text) = &seat.rows else {
            return None;
        };
        let dead_text = match &seat.dead {
            Text::Absent | Text::Null => "",
            Text::Str(text) => text,
            Text::Int(text) if text == "0" => "",
            Text::Int(_) => return None,
        };
        let mut rows: [Vec<u8>; 3] = Default::default();
        let mut dead = Vec::new();
        let mut placements = Vec::with_capacity(17);
        let mut parts = rows_text.split('/');
        for (destination, row) in rows.iter_mut().enumerate() {
            read_cards(parts.next()?, destination as u8, row, &mut placements)?;
        }
        if parts.next().is_some() {
            return None;
        }
        read_cards(dead_text, DISCARD, &mut dead, &mut placements)?;
        seats.push(SeatIn {
            position,
            player: seat.player_name.text_or(""),
            player_id: seat.player_id.text_or_none(),
            hero: seat.hero.unwrap_or(false),
            in_fantasy: seat.in_fantasy.unwrap_or(false),
            rows,
            discards: (!dead_text.is_empty()).then_some(dead),
            placements,
            points: seat.result,
            money: seat.win,
            stack: None,
        });
    }
    seats.sort_by_key(|s| s.position); // stable, as the definition's sorted()
    let room = if hand.app_name.truthy() {
        hand.app_name.text_or("")
    } else {
        Cow::Borrowed(DEFAULT_APP)
    };
    Some(HandIn {
        room,
        table_id: hand.room_id.text_or(""),
        room_hand_id,
        rules_text: Some(rules_text),
        preset,
        played_at,
        stakes: hand.stakes,
        currency,
        seats,
    })
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Lines of a block whose index an [`AppDecoder`] keeps (24 MB): a 4 MB block of
/// pretty-printed hands has about 150,000 (28 bytes a line); only nearly empty lines make more.
const KEPT_LINES: usize = 1 << 20;

/// Reads app JSON a block of whole lines at a time; rule texts are resolved once a file.
#[derive(Default)]
pub struct AppDecoder {
    pub presets: Presets,
    scratch: Vec<u8>,
    /// The block's lines (start, end, next), kept from block to block: a fresh vector a
    /// block (24 bytes a line, about 40 lines a hand, grown by doubling) was mostly the
    /// cost of touching new pages.
    found: Vec<(usize, usize, usize)>,
}

impl AppDecoder {
    /// Decode the hands of `data` (whole lines; `first_line`/`first_offset` where it is in
    /// the file; `file_start`: it begins the file; `last`: nothing follows it).
    pub fn decode(
        &mut self,
        data: &[u8],
        first_line: i64,
        first_offset: i64,
        file_start: bool,
        last: bool,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> Block {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        found.extend(lines(data));
        let mut walk = Walk::new(first_line, data.len());
        let mut i = 0;
        while i < found.len() {
            let (start, end, next) = found[i];
            let line = first_line + i as i64;
            let text = strip_cr(&data[start..end]);
            if file_start && i == 0 && data.starts_with(b"\xef\xbb\xbf") {
                walk.other(false); // the definition drops the BOM
                i += 1;
                continue;
            }
            if text == b"{" {
                let mut close = None;
                let mut j = i + 1;
                while j < found.len() {
                    let (s, e, _) = found[j];
                    let inner = strip_cr(&data[s..e]);
                    if e - start > MAX_HAND_BYTES {
                        break;
                    }
                    if inner == b"}" {
                        close = Some(j);
                        break;
                    }
                    let odd = matches!(inner.first(), Some(b'{' | b'}'));
                    if odd || !inner.iter().any(|b| (0x21..0x7f).contains(b)) {
                        break;
                    }
                    j += 1;
                }
                match close {
                    Some(j) => {
                        let stop = found[j].0 + 1;
                        let raw = &data[start..stop];
                        let offset = first_offset + start as i64;
                        if self.take(&mut walk, raw, line, offset, resolve) {
                            walk.hand(start, found[j].2, line, (j - i + 1) as i64);
                        } else {
                            walk.other(false);
                        }
                        i = j + 1;
                        continue;
                    }
                    None if j == found.len() && !last => {
                        // open at the end of the block: it waits for the next one
                        self.keep(found);
                        return walk.finish(start, line, first_line);
                    }
                    None => walk.other(false),
                }
            } else if text.first() == Some(&b'{')
                && text.trim_ascii_end().last() == Some(&b'}')
                && end - start <= MAX_HAND_BYTES
            {
                let stop = start + text.trim_ascii_end().len();
                let offset = first_offset + start as i64;
                if self.take(&mut walk, &data[start..stop], line, offset, resolve) {
                    walk.hand(start, next, line, 1);
                } else {
                    walk.other(false);
                }
            } else {
                walk.other(blank(text));
            }
            i += 1;
        }
        let count = found.len() as i64;
        self.keep(found);
        walk.finish(data.len(), first_line + count, first_line)
    }

    /// Keeps a block's line index for the next block, unless a block of nearly bare
    /// newlines grew it past [`KEPT_LINES`] (then it is freed, as every block's was before).
    fn keep(&mut self, found: Vec<(usize, usize, usize)>) {
        if found.capacity() <= KEPT_LINES {
            self.found = found;
        }
    }

    /// Decode one object into the columns; false if the definition must read it.
    fn take(
        &mut self,
        walk: &mut Walk,
        raw: &[u8],
        line: i64,
        offset: i64,
        resolve: &mut dyn FnMut(&str) -> Resolved,
    ) -> bool {
        let Ok(raw) = std::str::from_utf8(raw) else {
            return false;
        };
        let Some(hand) = hand_of(raw, &mut self.presets, resolve) else {
            return false;
        };
        walk.block
            .columns
            .push(FORMAT, &hand, line, offset, raw, &mut self.scratch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_index_is_kept_between_blocks_unless_a_block_was_all_newlines() {
        let mut decoder = AppDecoder::default();
        let mut none = |_: &str| None;
        // 1,000 lines of text: their index is kept for the next block.
        let text = b"not a hand\n".repeat(1_000);
        decoder.decode(&text, 1, 0, true, true, &mut none);
        assert!(decoder.found.capacity() >= 1_000);
        // 2^20 + 1 bare newlines (4 MB of nothing): the index is freed, as before.
        let bare = vec![b'\n'; KEPT_LINES + 1];
        decoder.decode(&bare, 1, 0, true, true, &mut none);
        assert_eq!(decoder.found.capacity(), 0);
    }
}
