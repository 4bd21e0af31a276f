//! A simulated hand as one open-format line (docs/format.md), so the simulator's
//! file needs no Python record for a hand Python does not change.
//!
//! The twin of `parsers.open_format.hand_to_json` with the timeout marks of
//! `ofc_stats.sim.rooms.open_line`, written byte for byte as Python's
//! `json.dumps(..., separators=(",", ":"), ensure_ascii=False)` writes it: the
//! same key order, strings escaped by serde_json (which escapes what Python's
//! does: `"`, `\` and control characters, lowercase `\u00XX`), and every float
//! as Python's `repr` (`1.0`, `1e+16`, `1e-05`).  `tests/test_sim_lines.py`
//! proves the lines equal Python's over seeds and rulesets.

use std::io::Write;

use rayon::prelude::*;

use crate::board::DESTINATIONS;
use crate::sim::{HandPlayed, SeatMoves};

/// `ofc_format` of the lines written.
pub const VERSION: u32 = 1;
const RANKS: &[u8; 13] = b"23456789TJQKA";
const SUITS: &[u8; 4] = b"cdhs";

/// What every hand of a session's file shares.
#[derive(Debug, Clone, Copy)]
pub struct LineHeader<'a> {
    pub room: &'a str,
    pub ruleset: &'a str,
    pub stakes: f64,
    pub currency: &'a str,
    /// Points each seat brings (its `stack`); None: no stack field.
    pub stack: Option<f64>,
}

/// One table's hand, seats in order of action.
#[derive(Debug, Clone, Copy)]
pub struct LineHand<'a> {
    pub table: &'a str,
    pub hand_id: u64,
    /// Seconds since 1970-01-01 00:00:00 (the record's naive `played_at`).
    pub played_at: i64,
    pub players: &'a [&'a str],
    pub in_fantasy: &'a [bool],
    /// The room's points (capped); money is these times the stakes, to the cent.
    pub net: &'a [f64],
    pub moves: &'a [SeatMoves],
    /// Bit s: the seat's street s was placed on a timeout.
    pub timed_out: &'a [u16],
}

/// A card as `format_card` writes it: `As`, `2c`, `X1`/`X2` for the jokers.
fn card(out: &mut Vec<u8>, id: u8) {
    out.push(b'"');
    match id {
        52 => out.extend_from_slice(b"X1"),
        53 => out.extend_from_slice(b"X2"),
        _ => out.extend_from_slice(&[RANKS[(id >> 2) as usize % 13], SUITS[(id & 3) as usize]]),
    }
    out.push(b'"');
}

/// `n` in decimal, at least `width` digits (zeros in front): `write!` without the
/// formatting machinery, a fifth of the line's time.
fn decimal(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut buffer = [b'0'; 20];
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buffer[at.min(buffer.len() - width)..]);
}

fn text(out: &mut Vec<u8>, s: &str) {
    // Serialising a str into a Vec cannot fail.
    let _ = serde_json::to_writer(out, s);
}

/// `x` as Python's `repr(float)` (and so `json.dumps`): the shortest digits that
/// read back as `x`, fixed-point for exponents -4..16, else `d.ddde+XX`.
pub fn python_float(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(b"NaN");
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"Infinity" } else { b"-Infinity" });
        return;
    }
    if x == x.trunc() && x.abs() < 1e15 {
        // A whole number (most points): its digits and `.0`, `-0.0` kept.
        if x.is_sign_negative() {
            out.push(b'-');
        }
        decimal(out, x.abs() as u64, 1);
        out.extend_from_slice(b".0");
        return;
    }
    // Rust's `{:e}` gives the same shortest round-trip digits: `-1.2345e-7`.
    let mut buffer = [0u8; 40];
    let sci = formatted(&mut buffer, format_args!("{x:e}"));
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let mut digits = [0u8; 24];
    let mut count = 0;
    for c in mantissa.bytes().filter(|&c| c != b'.') {
        digits[count] = c;
        count += 1;
    }
    let digits = &digits[..count];
    out.extend_from_slice(sign.as_bytes());
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-exp - 1) as usize));
            out.extend_from_slice(digits);
        } else {
            let point = exp as usize + 1;
            if digits.len() <= point {
                out.extend_from_slice(digits);
                out.extend(std::iter::repeat_n(b'0', point - digits.len()));
                out.extend_from_slice(b".0");
            } else {
                out.extend_from_slice(&digits[..point]);
                out.push(b'.');
                out.extend_from_slice(&digits[point..]);
            }
        }
    } else {
        out.extend_from_slice(&digits[..1]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.extend_from_slice(if exp < 0 { b"e-" } else { b"e+" });
        decimal(out, u64::from(exp.unsigned_abs()), 2);
    }
}

/// `args` written into `buffer` (long enough for any float), as text.
fn formatted<'b>(buffer: &'b mut [u8], args: std::fmt::Arguments<'_>) -> &'b str {
    let size = buffer.len();
    let mut rest = &mut buffer[..];
    let _ = rest.write_fmt(args);
    let written = size - rest.len();
    std::str::from_utf8(&buffer[..written]).unwrap_or("")
}

/// Python's `round(x, 2)`: the decimal nearest `x`'s exact value to the cent
/// (ties to even, as Rust's exact formatting rounds), read back as a float.
pub fn round_cents(x: f64) -> f64 {
    if !x.is_finite() || x == x.trunc() {
        return x;
    }
    let mut buffer = [0u8; 400];
    formatted(&mut buffer, format_args!("{x:.2}"))
        .parse()
        .unwrap_or(x)
}

/// `YYYY-MM-DDTHH:MM:SS` of `seconds` since 1970-01-01 (`datetime.isoformat`
/// of a naive time without microseconds; years 1000..9999).
pub fn iso_time(out: &mut Vec<u8>, seconds: i64) {
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days: the proleptic Gregorian date of a day number.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s) = (of_day / 3600, of_day / 60 % 60, of_day % 60);
    for (n, width, then) in [
        (year, 4, b'-'),
        (month, 2, b'-'),
        (day, 2, b'T'),
        (h, 2, b':'),
        (m, 2, b':'),
        (s, 2, 0),
    ] {
        decimal(out, n.max(0) as u64, width);
        if then != 0 {
            out.push(then);
        }
    }
}

/// One seat's `streets`: its placements grouped by street in street order, the
/// cards in the order dealt, each street it timed out on marked.
fn streets(out: &mut Vec<u8>, keys: &[u16], timed_out: u16) {
    let street_of = |key: &u16| key >> 8 & 15;
    // A seat's placements come street by street (a Fantasyland seat's all on
    // street 0); were they not, a stable sort keeps each street's order dealt.
    let sorted;
    let keys = if keys.is_sorted_by_key(street_of) {
        keys
    } else {
        let mut by_street = keys.to_vec();
        by_street.sort_by_key(street_of);
        sorted = by_street;
        &sorted
    };
    out.extend_from_slice(b"\"streets\":[");
    for (index, placed) in keys
        .chunk_by(|a, b| street_of(a) == street_of(b))
        .enumerate()
    {
        if index > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"cards\":[");
        for (n, &key) in placed.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            card(out, (key >> 2 & 63) as u8);
        }
        out.extend_from_slice(b"],\"to\":[");
        for (n, &key) in placed.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            // The rows' names have nothing to escape.
            out.push(b'"');
            out.extend_from_slice(DESTINATIONS[(key & 3) as usize].as_bytes());
            out.push(b'"');
        }
        out.push(b']');
        if index < 16 && timed_out >> index & 1 == 1 {
            out.extend_from_slice(b",\"timeout\":true");
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// The hand's line, without its newline.  A seat's board is written as its
/// streets: every simulated seat has placements (a Fantasyland seat's on street 0).
pub fn write_line(out: &mut Vec<u8>, header: &LineHeader<'_>, hand: &LineHand<'_>) {
    out.extend_from_slice(b"{\"ofc_format\":");
    decimal(out, u64::from(VERSION), 1);
    out.extend_from_slice(b",\"room\":");
    text(out, header.room);
    out.extend_from_slice(b",\"table\":");
    text(out, hand.table);
    out.extend_from_slice(b",\"hand_id\":\"");
    decimal(out, hand.hand_id, 1);
    out.push(b'"');
    out.extend_from_slice(b",\"ruleset\":");
    text(out, header.ruleset);
    out.extend_from_slice(b",\"played_at\":\"");
    iso_time(out, hand.played_at);
    out.extend_from_slice(b"\",\"stakes\":");
    python_float(out, header.stakes);
    out.extend_from_slice(b",\"currency\":");
    text(out, header.currency);
    out.extend_from_slice(b",\"seats\":[");
    for (seat, moves) in hand.moves.iter().enumerate() {
        if seat > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"player\":");
        text(out, hand.players[seat]);
        if hand.in_fantasy[seat] {
            out.extend_from_slice(b",\"in_fantasy\":true");
        }
        if let Some(stack) = header.stack {
            out.extend_from_slice(b",\"stack\":");
            python_float(out, stack);
        }
        out.push(b',');
        streets(out, &moves.keys, hand.timed_out[seat]);
        out.extend_from_slice(b",\"result\":{\"points\":");
        python_float(out, hand.net[seat]);
        out.extend_from_slice(b",\"money\":");
        python_float(out, round_cents(hand.net[seat] * header.stakes));
        out.extend_from_slice(b"}}");
    }
    out.extend_from_slice(b"]}");
}

/// What the lines of a session's file share, and each table's names.
#[derive(Debug, Clone, Copy)]
pub struct SessionNames<'a> {
    pub header: LineHeader<'a>,
    /// Seconds since 1970 of hand 0's `played_at`, and seconds between hands.
    pub start: i64,
    pub step: i64,
    pub table_ids: &'a [String],
    /// Players' names by table position, per table.
    pub players: &'a [Vec<String>],
}

/// Table-hands whose lines one task of [`session_lines`] writes into one buffer.
pub const LINES_A_TASK: usize = 32;

/// One task's lines: their text, and where each line ends in it.
pub type LinesPart = (Vec<u8>, Vec<usize>);

/// The table-hands' lines (hand-major, `tables` a hand, hand ids from
/// `first_hand`), each with its newline, encoded on rayon's threads: per task of
/// [`LINES_A_TASK`] hands in order, their text and where each of its lines ends
/// in it.  (A buffer a line was thousands of allocations a call.)
pub fn session_lines(
    names: &SessionNames<'_>,
    hands: &[HandPlayed],
    tables: usize,
    first_hand: u64,
) -> Result<Vec<LinesPart>, String> {
    let (table_ids, players) = (names.table_ids, names.players);
    if table_ids.len() != tables || players.len() != tables {
        return Err("lines need one table id and one list of names a table".into());
    }
    hands
        .par_chunks(LINES_A_TASK)
        .enumerate()
        .map(|(c, chunk)| {
            let mut out = Vec::with_capacity(chunk.len() * 2048);
            let mut ends = Vec::with_capacity(chunk.len());
            let mut seated: Vec<&str> = Vec::new();
            let mut in_fantasy: Vec<bool> = Vec::new();
            for (o, p) in chunk.iter().enumerate() {
                let j = c * LINES_A_TASK + o;
                let (k, i) = (j / tables, j % tables);
                seated.clear();
                seated.extend(
                    p.order
                        .iter()
                        .map(|&at| players[i].get(at as usize).map_or("", String::as_str)),
                );
                if seated.len() != players[i].len() {
                    return Err(format!("table {i}: one name a seat"));
                }
                in_fantasy.clear();
                in_fantasy.extend(p.fantasy_cards.iter().map(|&c| c > 0));
                let hand_id = first_hand + k as u64;
                write_line(
                    &mut out,
                    &names.header,
                    &LineHand {
                        table: &table_ids[i],
                        hand_id,
                        played_at: names.start + names.step * hand_id as i64,
                        players: &seated,
                        in_fantasy: &in_fantasy,
                        net: &p.net,
                        moves: &p.moves,
                        timed_out: &p.played.timed_out,
                    },
                );
                out.push(b'\n');
                ends.push(out.len());
            }
            Ok((out, ends))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> String {
        let mut out = Vec::new();
        python_float(&mut out, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_as_python_repr() {
        // Python 3: repr of each (fixed for 1e-4 <= |x| < 1e16, else exponent with
        // a sign and at least two digits).
        let cases = [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (-12.5, "-12.5"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.3333333333333333"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345678901234567e17, "1.2345678901234566e+17"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "Infinity"),
        ];
        for (x, python) in cases {
            assert_eq!(float(x), python, "{x:e}");
        }
    }

    #[test]
    fn cents_round_half_even_on_the_exact_value() {
        // round(0.125, 2) == 0.12 and round(0.375, 2) == 0.38 (exact ties, to even);
        // 2.675 is 2.67499999... in binary, so round(2.675, 2) == 2.67.
        assert_eq!(round_cents(0.125), 0.12);
        assert_eq!(round_cents(0.375), 0.38);
        assert_eq!(round_cents(2.675), 2.67);
        assert_eq!(round_cents(-1.0 / 3.0), -0.33);
    }

    #[test]
    fn times_as_isoformat() {
        // 2026-01-01 is day 20454 since 1970-01-01 (56 years, 14 of them leap years:
        // 56 * 365 + 14 = 20454); 12:00 is 43200 s into it.
        let mut out = Vec::new();
        iso_time(&mut out, 20_454 * 86_400 + 43_200);
        assert_eq!(out, b"2026-01-01T12:00:00");
        out.clear();
        // 2024 is a leap year: day 59 of it (0-based) is 29 February.
        iso_time(&mut out, (20_454 - 731 + 59) * 86_400 + 3_661);
        assert_eq!(out, b"2024-02-29T01:01:01");
    }
}
