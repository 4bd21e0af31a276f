//! `ofc-stats score --format json` in the core: lines of finished hands in,
//! one JSON result line each out.
//!
//! Only lines in the usual shape are read here: an object whose `boards` are
//! rows written `"Qs Qd 5c"` (a rank of `23456789TJQKA` and a suit of `cdhs`,
//! one space apart), 2 to `max_seats` of them, no card twice, and `stacks`,
//! `in_fantasy` and `fantasy_cards` that are plainly valid.  Any other line
//! gives None and the caller reads it with the definition
//! (`ofc_stats/cli/score_io.py`'s `parse_hand`), which also words its errors.
//! The lines written are `json.dumps` of `score_io.result_record`, byte for
//! byte (`tests/test_batch.py`).

use std::borrow::Cow;
use std::fmt::Write;

use serde::Deserialize;

use crate::cards::BOARD;
use crate::error::CoreError;
use crate::rules::Rules;
use crate::score::{score_batch, Batch, Scores, FILLER};

#[derive(Deserialize)]
struct LineText<'a> {
    #[serde(borrow)]
    boards: Vec<BoardText<'a>>,
    #[serde(default)]
    stacks: Option<Vec<f64>>,
    #[serde(default)]
    in_fantasy: Option<Vec<bool>>,
    #[serde(default)]
    fantasy_cards: Option<Vec<Option<i64>>>,
}

#[derive(Deserialize)]
struct BoardText<'a> {
    #[serde(borrow)]
    top: Cow<'a, str>,
    #[serde(borrow)]
    middle: Cow<'a, str>,
    #[serde(borrow)]
    bottom: Cow<'a, str>,
}

/// One hand read from a line.
#[derive(Debug, Clone, PartialEq)]
pub struct HandLine {
    pub boards: Vec<[i8; BOARD]>,
    pub stacks: Option<Vec<f64>>,
    pub in_fantasy: Vec<bool>,
    pub fantasy_cards: Vec<i8>,
}

/// A row's cards written the usual way, into `out`; None for any other spelling.
fn row_cards(text: &str, out: &mut [i8]) -> Option<()> {
    let bytes = text.as_bytes();
    if bytes.len() != 3 * out.len() - 1 {
        return None;
    }
    let count = out.len();
    for (i, slot) in out.iter_mut().enumerate() {
        let rank = b"23456789TJQKA".iter().position(|&c| c == bytes[3 * i])?;
        let suit = b"cdhs".iter().position(|&c| c == bytes[3 * i + 1])?;
        if i + 1 < count && bytes[3 * i + 2] != b' ' {
            return None;
        }
        *slot = (rank * 4 + suit) as i8;
    }
    Some(())
}

/// The hand of a line in the usual shape, or None (the definition reads it).
pub fn read_line(text: &str, max_seats: usize) -> Option<HandLine> {
    let line: LineText = serde_json::from_str(text).ok()?;
    let seats = line.boards.len();
    if !(2..=max_seats).contains(&seats) {
        return None;
    }
    let mut boards = Vec::with_capacity(seats);
    let mut seen = 0u64;
    for b in &line.boards {
        let mut cards = [0i8; BOARD];
        row_cards(&b.top, &mut cards[0..3])?;
        row_cards(&b.middle, &mut cards[3..8])?;
        row_cards(&b.bottom, &mut cards[8..13])?;
        for &c in &cards {
            if seen >> c & 1 == 1 {
                return None; // a card twice
            }
            seen |= 1 << c;
        }
        boards.push(cards);
    }
    let stacks = match line.stacks {
        None => None,
        Some(s) if s.len() == seats && s.iter().all(|&x| x >= 0.0) => Some(s),
        Some(_) => return None,
    };
    let in_fantasy = match line.in_fantasy {
        None => vec![false; seats],
        Some(f) if f.len() == seats => f,
        Some(_) => return None,
    };
    let fantasy_cards = match line.fantasy_cards {
        None => vec![0; seats],
        Some(c) if c.len() == seats && c.iter().all(|n| (0..=18).contains(&n.unwrap_or(0))) => {
            c.iter().map(|n| n.unwrap_or(0) as i8).collect()
        }
        Some(_) => return None,
    };
    Some(HandLine {
        boards,
        stacks,
        in_fantasy,
        fantasy_cards,
    })
}

/// A number as Python's `json.dumps` writes `score_io._number` of it: an
/// integral value as an integer, any other rounded to 6 decimals (half to
/// even, as `round`) and written as `repr` writes a float.
pub fn number_text(value: f64) -> String {
    if !value.is_finite() {
        return match value {
            v if v.is_nan() => "NaN".into(),
            v if v > 0.0 => "Infinity".into(),
            _ => "-Infinity".into(),
        };
    }
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        return format!("{}", value as i64);
    }
    if value.fract() == 0.0 {
        return format!("{value:.0}");
    }
    let rounded: f64 = format!("{value:.6}").parse().unwrap_or(value);
    if rounded == 0.0 {
        return if rounded.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .into();
    }
    if rounded.abs() < 1e-4 {
        // repr's scientific form: at least two exponent digits.
        let text = format!("{rounded:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    let text = format!("{rounded}");
    if text.contains('.') {
        text
    } else {
        text + ".0"
    }
}

/// The result line of hand `h` (of `seats` seats) in scores of `width` seats a hand.
fn result_line(s: &Scores, h: usize, seats: usize, width: usize) -> String {
    let at = |seat: usize| h * width + seat;
    let mut out = String::with_capacity(160 + 260 * seats);
    let list = |out: &mut String, items: &mut dyn Iterator<Item = String>| {
        out.push('[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&item);
        }
        out.push(']');
    };
    out.push_str("{\"net\": ");
    list(&mut out, &mut (0..seats).map(|i| s.net[at(i)].to_string()));
    out.push_str(", \"net_capped\": ");
    list(
        &mut out,
        &mut (0..seats).map(|i| number_text(s.net_capped[at(i)])),
    );
    out.push_str(", \"points\": ");
    let rows: Vec<String> = (0..seats)
        .map(|i| {
            let mut row = String::new();
            let base = (h * width + i) * width;
            list(
                &mut row,
                &mut (0..seats).map(|j| s.points[base + j].to_string()),
            );
            row
        })
        .collect();
    list(&mut out, &mut rows.into_iter());
    out.push_str(", \"boards\": [");
    let flag = |b: bool| if b { "true" } else { "false" };
    for i in 0..seats {
        if i > 0 {
            out.push_str(", ");
        }
        let k = at(i);
        let (top, middle, bottom) = (s.royalty_top[k], s.royalty_middle[k], s.royalty_bottom[k]);
        let total = top as i32 + middle as i32 + bottom as i32;
        let qualifies = s.fantasy_qualifies[k];
        let stays = s.fantasy_stays[k];
        let cards = if qualifies {
            s.fantasy_cards[k].to_string()
        } else {
            "null".into()
        };
        let repeat = if stays && s.repeat_cards[k] != 0 {
            s.repeat_cards[k].to_string()
        } else {
            "null".into()
        };
        let _ = write!(
            out,
            "{{\"fouled\": {}, \"royalties\": {{\"top\": {top}, \"middle\": {middle}, \
             \"bottom\": {bottom}, \"total\": {total}}}, \"fantasyland\": {{\"qualifies\": {}, \
             \"cards\": {cards}, \"stays\": {}, \"repeat_cards\": {repeat}}}}}",
            flag(s.fouled[k]),
            flag(qualifies),
            flag(stays),
        );
    }
    out.push_str("]}");
    out
}

/// Each line's JSON result, None for a line not in the usual shape.
pub fn score_lines(lines: &[&str], rules: &Rules) -> Result<Vec<Option<String>>, CoreError> {
    let read: Vec<Option<HandLine>> = lines
        .iter()
        .map(|text| read_line(text, rules.max_seats as usize))
        .collect();
    let hands: Vec<&HandLine> = read.iter().flatten().collect();
    let width = hands.iter().map(|h| h.boards.len()).max().unwrap_or(2);
    let n = hands.len();
    let mut boards = Vec::with_capacity(n * width * BOARD);
    let mut seated = vec![false; n * width];
    let mut in_fantasy = vec![false; n * width];
    let mut fantasy_cards = vec![0i8; n * width];
    let mut stacks = vec![f64::NAN; n * width];
    for (h, hand) in hands.iter().enumerate() {
        for seat in 0..width {
            let k = h * width + seat;
            match hand.boards.get(seat) {
                Some(cards) => {
                    boards.extend_from_slice(cards);
                    seated[k] = true;
                    in_fantasy[k] = hand.in_fantasy[seat];
                    fantasy_cards[k] = hand.fantasy_cards[seat];
                    if let Some(s) = &hand.stacks {
                        stacks[k] = s[seat];
                    }
                }
                None => boards.extend(FILLER.iter().map(|&c| c as i8)),
            }
        }
    }
    let batch = Batch {
        hands: n,
        seats: width,
        boards: &boards,
        seated: Some(&seated),
        in_fantasy: Some(&in_fantasy),
        fantasy_cards: Some(&fantasy_cards),
        stacks: rules.stack_cap.then_some(&stacks[..]),
        forced_fouls: None,
    };
    let scores = score_batch(&batch, rules)?;
    let mut h = 0;
    Ok(read
        .iter()
        .map(|hand| {
            hand.as_ref().map(|hand| {
                let line = result_line(&scores, h, hand.boards.len(), width);
                h += 1;
                line
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_python_writes_them() {
        // json.dumps of score_io._number: int(v) when integral, else repr(round(v, 6)).
        assert_eq!(number_text(-21.0), "-21");
        assert_eq!(number_text(-0.0), "0");
        assert_eq!(number_text(50.0 / 3.0), "16.666667");
        assert_eq!(number_text(0.0078125), "0.007812"); // a tie: half to even
        assert_eq!(number_text(2.9999999), "3.0");
        assert_eq!(number_text(0.0000015), "2e-06");
        assert_eq!(number_text(0.00001), "1e-05");
        assert_eq!(number_text(0.0000004), "0.0");
        assert_eq!(number_text(0.0001), "0.0001");
    }

    #[test]
    fn only_the_usual_shape_is_read_here() {
        let line = r#"{"boards": [{"top": "Qs Qd 2c", "middle": "5h 6d 7c 8s 9h", "bottom": "2h 7h Th Jh Ah"}, {"top": "Ac Kd 3s", "middle": "4c 4d 4h Js Ks", "bottom": "5c 5d 6c 8d 9c"}], "stacks": [50, 10]}"#;
        let hand = read_line(line, 3).expect("the usual shape");
        // Qs = rank 10 * 4 + suit 3 (cdhs) = 43; Qd = 40 + 1 = 41; 2c = 0.
        assert_eq!(&hand.boards[0][0..3], &[43, 41, 0]);
        assert_eq!(hand.stacks, Some(vec![50.0, 10.0]));
        for other in [
            line.replace("Qs Qd 2c", "Q♠ Qd 2c"),  // another spelling
            line.replace("Qs Qd 2c", "Qs  Qd 2c"), // two spaces
            line.replace("Ac Kd 3s", "Ac Kd 2c"),  // 2c twice
            line.replace("[50, 10]", "[50]"),      // a stack short
            line.replace("[50, 10]", "[50, -1]"),  // a negative stack
            line.replace("\"stacks\"", "\"fantasy_cards\""), // 50 cards
            line.replace("}], ", "}, 3], "),       // not a board
        ] {
            assert_eq!(read_line(&other, 3), None, "{other}");
        }
        assert_eq!(read_line(line, 1), None, "two seats where one is allowed");
    }

    #[test]
    fn a_hand_worked_line() {
        // Alice: QQ on top (7 royalties with pineapple's table... counted by the core),
        // Bob fouls (trips in the middle over two pair).  Net is +-(6 rows + Alice's
        // royalties), Bob's stack of 10 caps it.
        let line = r#"{"boards": [{"top": "Qs Qd 2c", "middle": "5h 6d 7c 8s 9h", "bottom": "2h 7h Th Jh Ah"}, {"top": "Ac Kd 3s", "middle": "4c 4d 4h Js Ks", "bottom": "5c 5d 6c 8d 9c"}], "stacks": [50, 10]}"#;
        let rules = Rules::pineapple_progressive();
        let out = score_lines(&[line, "{}"], &rules).unwrap();
        assert_eq!(out[1], None);
        let text = out[0].as_deref().unwrap();
        assert!(
            text.starts_with(r#"{"net": [21, -21], "net_capped": [10, -10], "points": [[0, 21], [-21, 0]], "boards": [{"fouled": false"#),
            "{text}"
        );
    }
}
