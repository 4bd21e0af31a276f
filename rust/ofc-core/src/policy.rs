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
use crate::cards::{is_joker, rank, BOARD, EMPTY, ROW_SIZES, ROW_START};
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
fn value_of(rules: &Rules, e: &BoardEval) -> f64 {
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

/// Row classes by dealt cards in the row (a bit mask) and first imagined card used:
/// the bottom's imagined cards start at 0, the middle's at 0..=5, the top's at 0..=10.
const MEMO_PER_MASK: usize = 1 + 6 + 11;
const UNSET: u16 = u16::MAX;

/// The policy's value of each candidate's imagined board, passed to `each(candidate,
/// value, board)` with the board's evaluation, for the candidates that fit: the same values as [`board_value`] of
/// [`dream`], each distinct row ranked once (a row depends only on which dealt cards
/// join it and where its imagined cards start, and most candidates share their rows).
#[allow(clippy::too_many_arguments)]
pub fn street_values(
    t: &Tables,
    rules: &Rules,
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    cands: &Candidates,
    imagined: &[u8],
    each: impl FnMut(usize, f64, &BoardEval),
) {
    let jokers = board.iter().any(|&c| c >= 0 && is_joker(c as u8))
        || dealt.iter().chain(imagined).any(|&c| is_joker(c));
    if jokers {
        // A joker's reading depends on the whole board: no row is ranked alone.
        let mut each = each;
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let e = evaluate_any(
                t,
                rules,
                &dream(board, fill, dealt, cands.dest(i), imagined),
            );
            each(i, value_of(rules, &e), &e);
        }
        return;
    }
    let rows = Rows {
        t,
        board,
        fill,
        dealt,
        imagined,
    };
    match dealt.len() {
        0 | 1 => rows.values::<{ 2 * MEMO_PER_MASK }>(rules, cands, each),
        2 => rows.values::<{ 4 * MEMO_PER_MASK }>(rules, cands, each),
        3 => rows.values::<{ 8 * MEMO_PER_MASK }>(rules, cands, each),
        4 => rows.values::<{ 16 * MEMO_PER_MASK }>(rules, cands, each),
        _ => rows.values::<{ 32 * MEMO_PER_MASK }>(rules, cands, each),
    }
}

/// What the rows of a street's imagined boards are made of.
struct Rows<'a> {
    t: &'a Tables,
    board: &'a [i8; BOARD],
    fill: [u8; 3],
    dealt: &'a [u8],
    imagined: &'a [u8],
}

impl Rows<'_> {
    /// The class of `row` holding its board cards, the dealt cards in `mask`, and
    /// imagined cards from `offset` on.
    #[inline]
    fn class(&self, row: usize, mask: usize, offset: usize) -> u16 {
        let mut cards = [0u8; 5];
        let start = ROW_START[row];
        let mut n = self.fill[row] as usize;
        for (cell, &c) in cards.iter_mut().zip(&self.board[start..start + n]) {
            *cell = c as u8;
        }
        for (j, &c) in self.dealt.iter().enumerate() {
            if mask >> j & 1 == 1 {
                cards[n] = c;
                n += 1;
            }
        }
        let last = self.imagined.len().saturating_sub(1);
        let mut next = offset;
        while n < ROW_SIZES[row] {
            cards[n] = self.imagined.get(next.min(last)).copied().unwrap_or(0);
            next += 1;
            n += 1;
        }
        if row == 0 {
            self.t.class3(&cards[..3])
        } else {
            self.t.class5(&cards)
        }
    }

    fn values<const MEMO: usize>(
        &self,
        rules: &Rules,
        cands: &Candidates,
        mut each: impl FnMut(usize, f64, &BoardEval),
    ) {
        let mut memo = [UNSET; MEMO];
        let mut class = |row: usize, mask: usize, offset: usize| -> u16 {
            let base = [MEMO_PER_MASK - 11, 1, 0][row];
            let at = mask * MEMO_PER_MASK + base + offset;
            if memo[at] == UNSET {
                memo[at] = self.class(row, mask, offset);
            }
            memo[at]
        };
        let fill = self.fill;
        for i in 0..cands.len() {
            if !cands.fits(i, fill) {
                continue;
            }
            let mut mask = [0usize; 4];
            for (j, &d) in cands.dest(i).iter().enumerate() {
                mask[d as usize] |= 1 << j;
            }
            let count = cands.count[i];
            let bottom_empty = ROW_SIZES[2] - (fill[2] + count[2]) as usize;
            let middle_empty = ROW_SIZES[1] - (fill[1] + count[1]) as usize;
            let bottom = class(2, mask[2], 0);
            let middle = class(1, mask[1], bottom_empty);
            let top = class(0, mask[0], bottom_empty + middle_empty);
            let e = BoardEval::from_classes(self.t, rules, top, middle, bottom, None);
            each(i, value_of(rules, &e), &e);
        }
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
    cands: &Candidates,
    imagined: &[u8],
) -> (usize, Option<BoardEval>) {
    let mut best = (0, None);
    let mut best_value = f64::NEG_INFINITY;
    street_values(
        t,
        rules,
        board,
        fill,
        dealt,
        cands,
        imagined,
        |i, value, e| {
            if value > best_value {
                best = (i, Some(*e));
                best_value = value;
            }
        },
    );
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
            street_values(t, &r, &b, fill, dealt, c, imagined, |i, v, _| values[i] = v);
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
