//! The grader's continuation policy: how a board is played on after the graded decision.
//!
//! It chooses street by street and sees only the cards dealt so far.  Each legal
//! placement of a street's cards is valued by one *imagined* completion: as many
//! cards as the board has empty slots after the street, drawn from the cards the
//! seat has not seen, pairs and trips kept together and the strongest groups first,
//! filled into the bottom, then the middle, then the top.  The completed board is
//! worth `royalties - 9 x foul + 60 x entry + 2 x strength` (the simulator's
//! careful style without its noise); the best candidate, the first on ties, is
//! played.  A one-sample imagination is a cheap, honest player: it never looks at
//! the real cards to come, which is what overvalues draws in peers' graders.

use crate::board::{evaluate, read_jokers, BoardEval};
use crate::candidates::{apply, Candidates};
use std::sync::OnceLock;

use crate::cards::{is_joker, rank, BOARD, DISCARD, EMPTY, ROW_SIZES, ROW_START};
use crate::eval::{Tables, CLASSES5};
use crate::rng::Stream;
use crate::rules::Rules;

pub const FOUL_PENALTY: f64 = 9.0;
pub const FANTASY_BONUS: f64 = 60.0;
pub const STRENGTH_WEIGHT: f64 = 2.0;
/// Imagined cards go to the bottom first, then the middle, then the top.
const FILL_ORDER: [usize; 3] = [2, 1, 0];

/// A set of cards as bits (a deck has at most 54 cards).
pub type CardSet = u64;

/// The set of `cards`.
pub fn card_set(cards: impl IntoIterator<Item = u8>) -> CardSet {
    cards.into_iter().fold(0, |set, c| set | 1 << c)
}

/// Cards a seat imagines to come, in the order it fills them in.
#[derive(Debug, Clone, Copy)]
pub struct Imagined {
    cards: [u8; BOARD],
    len: usize,
}

impl Imagined {
    pub const NONE: Imagined = Imagined {
        cards: [0; BOARD],
        len: 0,
    };

    pub fn cards(&self) -> &[u8] {
        &self.cards[..self.len]
    }
}

/// `need` cards the seat does not know (`known`), drawn from `stream`: a uniform
/// choice, sorted the way a player fills them in: bigger groups of a rank first,
/// then the higher card (the two jokers count as one rank above the aces).
pub fn imagine(stream: &mut Stream, known: CardSet, deck: u8, need: usize) -> Imagined {
    let mut unknown = [0u8; 64];
    let mut n = 0;
    for c in 0..deck {
        if known >> c & 1 == 0 {
            unknown[n] = c;
            n += 1;
        }
    }
    let need = need.min(n).min(BOARD);
    stream.choose_first(&mut unknown[..n], need);
    let mut out = Imagined::NONE;
    out.cards[..need].copy_from_slice(&unknown[..need]);
    out.len = need;
    fill_order(&mut out.cards[..need]);
    out
}

/// Cards in the order a player fills them in: bigger groups of a rank first, then
/// the higher card (the two jokers count as one rank above the aces).
pub fn fill_order(cards: &mut [u8]) {
    let mut keyed = [(0usize, 0u8); BOARD];
    let n = cards.len().min(BOARD);
    for (slot, &c) in keyed.iter_mut().zip(cards.iter()) {
        let group = cards.iter().filter(|&&x| rank(x) == rank(c)).count();
        *slot = (group * 64 + c as usize, c);
    }
    keyed[..n].sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
    for (c, &(_, card)) in cards.iter_mut().zip(&keyed[..n]) {
        *c = card;
    }
}

/// The board a candidate makes when its empty slots are filled with `imagined`:
/// the board's cards, the dealt cards placed by `dest` in deal order, then the
/// imagined cards, bottom row first.  With nothing imagined the board must be full.
#[inline]
pub fn dream(
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    dest: &[u8],
    imagined: &[u8],
) -> [u8; BOARD] {
    let mut out = [0u8; BOARD];
    let mut next = 0usize;
    for row in FILL_ORDER {
        let start = ROW_START[row];
        let mut slot = fill[row] as usize;
        for (i, cell) in out[start..start + slot].iter_mut().enumerate() {
            *cell = board[start + i] as u8;
        }
        for (&card, _) in dealt.iter().zip(dest).filter(|(_, &d)| d as usize == row) {
            out[start + slot] = card;
            slot += 1;
        }
        while slot < ROW_SIZES[row] {
            // The same card twice only if the caller imagined too few (never in a rollout).
            let at = next.min(imagined.len().saturating_sub(1));
            out[start + slot] = imagined.get(at).copied().unwrap_or(0);
            next += 1;
            slot += 1;
        }
    }
    out
}

/// A complete board, jokers read at their best.
#[inline]
pub fn evaluate_any(t: &Tables, rules: &Rules, cards: &[u8; BOARD]) -> BoardEval {
    if cards.iter().any(|&c| is_joker(c)) {
        read_jokers(t, rules, cards).1
    } else {
        evaluate(t, rules, cards)
    }
}

/// The policy's value of a complete board.
#[inline]
pub fn board_value(t: &Tables, rules: &Rules, cards: &[u8; BOARD]) -> f64 {
    value_of(rules, &evaluate_any(t, rules, cards))
}

/// The policy's value of an evaluated board.
#[inline]
pub fn value_of(rules: &Rules, e: &BoardEval) -> f64 {
    let live = !e.fouled;
    let entry = live && rules.entry_cards[e.top as usize] > 0;
    let strength = if live {
        (e.middle as f64 + e.bottom as f64) / CLASSES5 as f64
    } else {
        0.0
    };
    e.royalty_total() as f64 - FOUL_PENALTY * (e.fouled as u8 as f64)
        + FANTASY_BONUS * (entry as u8 as f64)
        + STRENGTH_WEIGHT * strength
}

/// The distinct rows of a street's imagined boards, and each fitting candidate's
/// three rows in that list.  A row depends only on its board cards, which dealt
/// cards join it (a bit mask) and where its imagined cards start (the bottom's at
/// 0, the middle's after the bottom's, the top's last), and most candidates share
/// their rows: each distinct row is ranked once, in one tight loop.
struct StreetPlan {
    /// (row, dealt-card mask, first imagined card) of each distinct row.
    rows: Vec<(u8, u8, u8)>,
    /// (candidate, top, middle, bottom): indices into `rows`.
    cands: Vec<(u16, u16, u16, u16)>,
}

impl StreetPlan {
    fn build(cands: &Candidates, fill: [u8; 3]) -> StreetPlan {
        let mut rows: Vec<(u8, u8, u8)> = Vec::new();
        let mut index = |key: (u8, u8, u8)| -> u16 {
            match rows.iter().position(|&k| k == key) {
                Some(i) => i as u16,
                None => {
                    rows.push(key);
                    (rows.len() - 1) as u16
                }
            }
        };
        let mut out = Vec::new();
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let mut mask = [0u8; 4];
            for (j, &d) in cands.dest(i).iter().enumerate() {
                mask[d as usize] |= 1 << j;
            }
            let count = cands.count[i];
            let bottom_empty = ROW_SIZES[2] as u8 - (fill[2] + count[2]);
            let middle_empty = ROW_SIZES[1] as u8 - (fill[1] + count[1]);
            let bottom = index((2, mask[2], 0));
            let middle = index((1, mask[1], bottom_empty));
            let top = index((0, mask[0], bottom_empty + middle_empty));
            out.push((i as u16, top, middle, bottom));
        }
        StreetPlan { rows, cands: out }
    }

    /// The plan of a street shape on rows holding `fill` cards (built once per process).
    fn get(cands: &'static Candidates, fill: [u8; 3]) -> &'static StreetPlan {
        const FILLS: usize = 4 * 6 * 6;
        static PLANS: OnceLock<Vec<OnceLock<StreetPlan>>> = OnceLock::new();
        let plans = PLANS.get_or_init(|| (0..6 * 6 * FILLS).map(|_| OnceLock::new()).collect());
        let discards = if cands.is_empty() {
            0
        } else {
            cands.dest(0).iter().filter(|&&d| d == DISCARD).count()
        };
        let state = fill[0] as usize * 36 + fill[1] as usize * 6 + fill[2] as usize;
        plans[(cands.cards * 6 + discards) * FILLS + state]
            .get_or_init(|| StreetPlan::build(cands, fill))
    }
}

/// Each candidate's imagined board, evaluated and passed to `each(candidate, board)`
/// for the candidates that fit, in candidate order: the same boards as [`dream`]
/// makes (its value is [`value_of`] the board).
#[allow(clippy::too_many_arguments)]
pub fn street_values(
    t: &Tables,
    rules: &Rules,
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    cands: &'static Candidates,
    imagined: &[u8],
    mut each: impl FnMut(usize, &BoardEval),
) {
    let jokers = board.iter().any(|&c| c >= 0 && is_joker(c as u8))
        || dealt.iter().chain(imagined).any(|&c| is_joker(c));
    if jokers {
        // A joker's reading depends on the whole board: no row is ranked alone.
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let cards = dream(board, fill, dealt, cands.dest(i), imagined);
            each(i, &evaluate_any(t, rules, &cards));
        }
        return;
    }
    let plan = StreetPlan::get(cands, fill);
    let mut small = [0u16; 64];
    let mut large = Vec::new(); // a first street's rows: 232 candidates share a few hundred
    let classes: &mut [u16] = if plan.rows.len() <= small.len() {
        &mut small
    } else {
        large.resize(plan.rows.len(), 0);
        &mut large
    };
    let last = imagined.len().saturating_sub(1);
    for (slot, &(row, mask, offset)) in classes.iter_mut().zip(&plan.rows) {
        let row = row as usize;
        let mut cards = [0u8; 5];
        let start = ROW_START[row];
        let mut n = fill[row] as usize;
        for (cell, &c) in cards.iter_mut().zip(&board[start..start + n]) {
            *cell = c as u8;
        }
        for (j, &c) in dealt.iter().enumerate() {
            if mask >> j & 1 == 1 {
                cards[n] = c;
                n += 1;
            }
        }
        let mut next = offset as usize;
        while n < ROW_SIZES[row] {
            cards[n] = imagined.get(next.min(last)).copied().unwrap_or(0);
            next += 1;
            n += 1;
        }
        *slot = if row == 0 {
            t.class3(&cards[..3])
        } else {
            t.class5(&cards)
        };
    }
    for &(i, top, middle, bottom) in &plan.cands {
        let (top, middle, bottom) = (
            classes[top as usize],
            classes[middle as usize],
            classes[bottom as usize],
        );
        each(
            i as usize,
            &BoardEval::from_classes(t, rules, top, middle, bottom, None),
        );
    }
}

/// The candidate the policy plays: the best imagined board among those that fit
/// (the first of equal ones), and that board's evaluation.
pub fn choose(
    t: &Tables,
    rules: &Rules,
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    cands: &'static Candidates,
    imagined: &[u8],
) -> (usize, Option<BoardEval>) {
    let mut best = (0, None);
    let mut best_value = f64::NEG_INFINITY;
    street_values(t, rules, board, fill, dealt, cands, imagined, |i, e| {
        let value = value_of(rules, e);
        if value > best_value {
            best = (i, Some(*e));
            best_value = value;
        }
    });
    best
}

/// Cards on a board.
pub fn placed(board: &[i8; BOARD]) -> usize {
    board.iter().filter(|&&c| c != EMPTY).count()
}

/// One street of a board's play-on: the cards dealt, the candidates and what is imagined.
pub struct Street<'a> {
    pub dealt: &'a [u8],
    pub cands: &'static Candidates,
    pub imagined: Imagined,
}

/// The streets a seat still plays from `block` (its cards, street by street), each
/// with its imagination drawn by `stream_of(street index)` from the cards the seat
/// knows then (`known` and every card dealt to it so far).
pub fn plan_streets<'a>(
    streets: &[(usize, usize)],
    block: &'a [u8],
    mut known: CardSet,
    deck: u8,
    mut placed: usize,
    mut stream_of: impl FnMut(usize) -> Stream,
) -> Vec<Street<'a>> {
    let mut out = Vec::with_capacity(streets.len());
    let mut offset = 0;
    for (i, &(dealt_count, placed_count)) in streets.iter().enumerate() {
        let dealt = &block[offset..offset + dealt_count];
        offset += dealt_count;
        known |= card_set(dealt.iter().copied());
        placed += placed_count;
        let need = BOARD.saturating_sub(placed);
        let imagined = if need > 0 {
            imagine(&mut stream_of(i), known, deck, need)
        } else {
            Imagined::NONE
        };
        let cands = Candidates::get(dealt_count, dealt_count - placed_count);
        out.push(Street {
            dealt,
            cands,
            imagined,
        });
    }
    out
}

/// Play `streets` on `board` by the policy; the board comes back complete, and its
/// evaluation (the last street imagines nothing: its chosen board is the final one).
pub fn play_on(
    t: &Tables,
    rules: &Rules,
    board: &mut [i8; BOARD],
    streets: &[Street<'_>],
) -> BoardEval {
    let mut fill = crate::candidates::fill_of(board);
    let mut last = None;
    for s in streets {
        let (chosen, e) = choose(t, rules, board, fill, s.dealt, s.cands, s.imagined.cards());
        apply(board, &mut fill, s.dealt, s.cands.dest(chosen));
        last = e.filter(|_| s.imagined.cards().is_empty());
    }
    last.unwrap_or_else(|| evaluate_any(t, rules, &board.map(|c| c as u8)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::cards;

    fn board(top: &str, middle: &str, bottom: &str) -> [i8; 13] {
        let mut out = [EMPTY; 13];
        for (row, text) in [top, middle, bottom].iter().enumerate() {
            for (i, c) in cards(text).into_iter().enumerate() {
                out[ROW_START[row] + i] = c as i8;
            }
        }
        out
    }

    #[test]
    fn imagined_cards_come_in_groups_strongest_first() {
        // Known: all but 2c 2d 9h As Ks (ids 0 1 30 51 47): the five are drawn, then sorted:
        // the pair of deuces first (group 2; 2d = 1 above 2c = 0), then As 51, Ks 47, 9h 30.
        let unknown = card_set(cards("2c 2d 9h As Ks"));
        let known = !unknown & ((1u64 << 52) - 1);
        let got = imagine(&mut Stream::new(&[1]), known, 52, 5);
        assert_eq!(got.cards(), cards("2d 2c As Ks 9h").as_slice());
    }

    #[test]
    fn a_dream_fills_the_bottom_first() {
        // Middle 8c 3d, bottom Ah Kh 7h; 9h to the bottom, 2c to the middle, 5s thrown.
        // Imagined Qs Qd Js Td Tc Jc 4c: the bottom takes Qs, the middle Qd Js,
        // the top Td Tc Jc.
        let b = board("", "8c 3d", "Ah Kh 7h");
        let fill = crate::candidates::fill_of(&b);
        let d = dream(
            &b,
            fill,
            &cards("9h 2c 5s"),
            &[2, 1, 3],
            &cards("Qs Qd Js Td Tc Jc 4c"),
        );
        let want = [
            cards("Td Tc Jc"),
            cards("8c 3d 2c Qd Js"),
            cards("Ah Kh 7h 9h Qs"),
        ]
        .concat();
        assert_eq!(d.as_slice(), want.as_slice());
    }

    #[test]
    fn the_value_of_a_board() {
        // QQ top (7 royalty, Fantasyland), a straight middle (4), a flush bottom (4):
        // 15 + 60 + 2 x (middle + bottom classes) / 7462; a fouled board is worth -9.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let live = [
            cards("Qs Qd 2c"),
            cards("5h 6d 7c 8s 9h"),
            cards("2h 7h Th Jh Ah"),
        ]
        .concat();
        let live: [u8; 13] = live.try_into().unwrap();
        let e = evaluate(t, &r, &live);
        let want = 15.0 + 60.0 + 2.0 * (e.middle as f64 + e.bottom as f64) / 7462.0;
        assert_eq!(board_value(t, &r, &live), want);
        let fouled = [
            cards("Ac Kd 3s"),
            cards("4c 4d 4h Js Ks"),
            cards("5c 5d 6c 8d 9c"),
        ]
        .concat();
        assert_eq!(board_value(t, &r, &fouled.try_into().unwrap()), -9.0);
    }

    #[test]
    fn street_values_are_the_values_of_the_dreams() {
        // Every candidate of random streets: the row-memoised values equal the value of
        // the whole imagined board, bit for bit (jokers take the whole-board path).
        let (t, r) = (Tables::get(), Rules::joker_pineapple());
        for seed in 0..200u64 {
            let mut s = Stream::new(&[seed]);
            let mut deck: Vec<u8> = (0..54).collect();
            s.choose_first(&mut deck, 30);
            let streets = [(5, 0), (3, 1), (3, 1), (3, 1), (3, 1)];
            let street = s.below(5);
            let mut b = [EMPTY; 13];
            let mut fill = [0u8; 3];
            let mut used = 0;
            for &(k, discards) in &streets[..street] {
                let c = Candidates::get(k, discards);
                let fitting: Vec<usize> = (0..c.len()).filter(|&i| c.fits(i, fill)).collect();
                let i = fitting[s.below(fitting.len())];
                apply(&mut b, &mut fill, &deck[used..used + k], c.dest(i));
                used += k;
            }
            let (k, discards) = streets[street];
            let dealt = &deck[used..used + k];
            let c = Candidates::get(k, discards);
            let empty = 13 - placed(&b) - (k - discards);
            let imagined = &deck[used + k..used + k + empty];
            let mut values = vec![f64::NEG_INFINITY; c.len()];
            street_values(t, &r, &b, fill, dealt, c, imagined, |i, e| {
                values[i] = value_of(&r, e)
            });
            for (i, &v) in values.iter().enumerate() {
                let want = if c.fits(i, fill) {
                    board_value(t, &r, &dream(&b, fill, dealt, c.dest(i), imagined))
                } else {
                    f64::NEG_INFINITY
                };
                assert_eq!(v.to_bits(), want.to_bits(), "seed {seed} candidate {i}");
            }
        }
    }

    #[test]
    fn the_policy_keeps_a_board_alive_on_the_last_street() {
        // Top Qs Qd _, middle Kh Kc 4d 5s _, bottom full of nines; dealt Qh 2c 3h.
        // Qh on top fouls (QQQ over KK); the policy puts Qh in the middle or throws it.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let b = board("Qs Qd", "Kh Kc 4d 5s", "9c 9d 9h Ts Js");
        let dealt = cards("Qh 2c 3h");
        let cands = Candidates::get(3, 1);
        let (i, e) = choose(
            t,
            &r,
            &b,
            crate::candidates::fill_of(&b),
            &dealt,
            cands,
            &[],
        );
        assert_ne!(cands.dest(i)[0], 0, "{:?}", cands.dest(i));
        assert!(
            !e.unwrap().fouled,
            "the chosen board's evaluation comes back"
        );
    }
}
