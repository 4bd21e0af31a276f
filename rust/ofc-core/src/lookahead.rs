//! The simulator's bots: each candidate placement of a street valued by Monte
//! Carlo completions of the board, the best under the player's [`Style`] kept.
//!
//! For every rollout `need` cards are drawn from the cards the player has not
//! seen (one draw shared by all candidates), sorted so drawn pairs and trips
//! stay together and the strongest groups come first, and each candidate's
//! board is completed in two plans: plan A fills the bottom, then the middle,
//! then the top (a drawn card that pairs a top card of sixes or better goes on
//! top when there is room); plan B fills the middle first.  The player adapts
//! to the cards, so each rollout counts its better plan.  Large candidate
//! tables (the first street's 232) are screened with one plan-A rollout each
//! and the best [`SCREEN_KEEP`] get the full look-ahead.
//!
//! Boards are not built one by one: within one rollout and plan a row's cards
//! are fixed by which of the street's cards the candidate puts there and where
//! its share of the draws starts, so each row class is looked up once per
//! (row, cards, start) and candidates only combine three classes.  Boards
//! with jokers, and plan-A boards where a drawn card moves to the top, are
//! built whole ([`board_value`]); a test holds both ways equal.

use crate::board::{evaluate, read_jokers};
use crate::candidates::{apply, fill_of, Candidates};
use crate::cards::{is_joker, rank, DISCARD, EMPTY, ROW_SIZES, ROW_START};
use crate::eval::{Tables, CLASSES5};
use crate::rng::Stream;
use crate::rules::Rules;

/// Candidate tables larger than this are screened first.
pub const SCREEN_ABOVE: usize = 64;
/// Candidates kept for the full look-ahead after screening.
pub const SCREEN_KEEP: usize = 32;

/// How a bot values a completed board.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Points a foul costs it, in its mind.
    pub foul_penalty: f64,
    /// Points an entry into Fantasyland is worth to it.
    pub fantasy_bonus: f64,
    /// Spread of the normal noise added to each candidate's value (weak play).
    pub noise: f64,
    /// Value of strong middle and bottom rows (winning rows).
    pub strength_weight: f64,
    /// Value of each queen or better already on the top row.
    pub top_chase: f64,
}

impl Style {
    /// A completed board's worth from its row classes: royalties, the Fantasyland
    /// bonus and the rows' strength when live, minus the foul penalty when fouled.
    #[inline]
    pub fn value(&self, t: &Tables, rules: &Rules, top: u16, middle: u16, bottom: u16) -> f64 {
        if t.top_fouls(top, middle) || middle > bottom {
            return -self.foul_penalty;
        }
        let entry = if rules.entry_cards[top as usize] > 0 {
            self.fantasy_bonus
        } else {
            0.0
        };
        rules.royalty_sum(top, middle, bottom) as f64
            + entry
            + self.strength_weight * (middle as f64 + bottom as f64) / CLASSES5 as f64
    }
}

/// One decision: the seat's board before the street, its dealt cards and what it has not seen.
#[derive(Debug, Clone, Copy)]
pub struct Decision<'a> {
    pub board: &'a [i8; 13],
    pub dealt: &'a [u8],
    /// Cards the street throws away.
    pub discards: usize,
    /// Cards the player has not seen: neither on any board nor dealt to it.
    pub unseen: &'a [u8],
}

/// Which plan fills a board's empty slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Plan {
    /// Bottom, then middle, then top; a drawn card pairing the top goes there.
    BottomFirst,
    /// Middle, then bottom, then top.
    MiddleFirst,
}

/// One candidate of the decision: its board after the street and what the rollouts need.
struct Cand {
    index: usize,
    /// Position among the decision's fitting candidates (its place in a [`Shape`]).
    fit: usize,
    after: [i8; 13],
    free: [usize; 3],
    /// Ranks (sixes or better) on the top row, as bits: the cards a draw can pair there.
    top_ranks: u32,
    /// Value of the queens or better already on top, for a chasing style.
    chase: f64,
    joker: bool,
}

/// Where each row's share of the draws starts, by plan.
#[inline]
fn starts(free: &[usize; 3], plan: Plan) -> [usize; 3] {
    match plan {
        Plan::BottomFirst => [free[2] + free[1], free[2], 0],
        Plan::MiddleFirst => [free[1] + free[2], 0, free[1]],
    }
}

/// The draw a plan-A board moves to the top, and the slot it comes from.
#[inline]
fn pairs_the_top(free: &[usize; 3], top_ranks: u32, draws: &[u8]) -> Option<(usize, usize)> {
    if free[0] == 0 {
        return None;
    }
    let which = draws
        .iter()
        .position(|&d| (top_ranks >> rank(d)) & 1 == 1)?;
    if which >= free[2] + free[1] {
        return None; // it already landed on the top
    }
    let source = if which < free[2] {
        12 - which
    } else {
        7 - (which - free[2])
    };
    Some((which, source))
}

/// A candidate's board completed by `draws` in `plan`, rows filled from their last slot.
pub fn complete(after: &[i8; 13], draws: &[u8], plan: Plan) -> [i8; 13] {
    let mut board = *after;
    let free: [usize; 3] = {
        let fill = fill_of(after);
        [0, 1, 2].map(|r| ROW_SIZES[r] - fill[r] as usize)
    };
    let start = starts(&free, plan);
    for row in 0..3 {
        let end = ROW_START[row] + ROW_SIZES[row];
        for j in 0..free[row] {
            board[end - 1 - j] = draws[start[row] + j] as i8;
        }
    }
    if plan == Plan::BottomFirst {
        let top_ranks = top_rank_bits(after);
        if let Some((_, source)) = pairs_the_top(&free, top_ranks, draws) {
            board.swap(source, 3 - free[0]);
        }
    }
    board
}

fn top_rank_bits(board: &[i8; 13]) -> u32 {
    board[0..3]
        .iter()
        .filter(|&&c| c != EMPTY && rank(c as u8) >= 4)
        .fold(0, |m, &c| m | 1 << rank(c as u8))
}

/// A whole board's value: jokers read at their best first.  The definition the
/// row layouts of [`choose`] are held equal to.
pub fn board_value(t: &Tables, rules: &Rules, style: &Style, board: &[i8; 13]) -> f64 {
    let cards: [u8; 13] = board.map(|c| c as u8);
    let e = if cards.iter().any(|&c| is_joker(c)) {
        read_jokers(t, rules, &cards).1
    } else {
        evaluate(t, rules, &cards)
    };
    style.value(t, rules, e.top, e.middle, e.bottom)
}

/// `need` cards drawn from `unseen` into `draws`, in the order boards are filled:
/// bigger groups (pairs, trips) first, then higher cards.
fn draw(unseen: &[u8], need: usize, rng: &mut Stream, scratch: &mut Vec<u8>, draws: &mut Vec<u8>) {
    scratch.clear();
    scratch.extend_from_slice(unseen);
    rng.choose_first(scratch, need);
    draws.clear();
    draws.extend_from_slice(&scratch[..need]);
    let mut groups = [0u32; 14];
    for &d in draws.iter() {
        groups[rank(d) as usize] += 1;
    }
    draws.sort_unstable_by_key(|&d| std::cmp::Reverse(groups[rank(d) as usize] * 64 + d as u32));
}

/// One distinct row of a plan's completions: fixed cards plus a run of the draws.
#[derive(Clone, Copy)]
struct Row {
    row: usize,
    fixed: [u8; 5],
    fixed_count: usize,
    start: usize,
}

/// The distinct rows of one plan over a set of candidates, and each candidate's three.
///
/// Within one rollout and plan a row's cards are fixed by which dealt cards the
/// candidate puts there and where its share of the draws starts, so many
/// candidates share a row: each distinct row is ranked once per rollout.
struct Layout {
    rows: Vec<Row>,
    /// Per candidate: its top, middle and bottom rows' indices in `rows`.
    ids: Vec<[u32; 3]>,
    class: Vec<u16>,
    /// Each row's share of the style's value when the board is live: its royalty,
    /// the Fantasyland bonus for a top that earns entry, strength for the others.
    part: Vec<f64>,
    /// The rows that take draws (the others are ranked once by [`Layout::prepare`]).
    drawn: Vec<u32>,
}

const NO_ROW: u32 = u32::MAX;

/// A plan's distinct rows over every fitting candidate of one street shape on rows
/// filled `fill`, as (row, dealt-card mask, start of its draws), and each
/// candidate's three.  It depends on neither the cards nor the draws, so each
/// thread builds a shape once and keeps it.
struct Shape {
    rows: Vec<(usize, usize, usize)>,
    ids: Vec<[u32; 3]>,
}

type ShapeKey = (usize, usize, [u8; 3], Plan);

impl Shape {
    fn build(&(cards, discards, fill, plan): &ShapeKey) -> Shape {
        let table = Candidates::get(cards, discards);
        let mut index = std::collections::HashMap::new();
        let mut rows = Vec::new();
        let ids = (0..table.len())
            .filter(|&i| table.fits(i, fill))
            .map(|i| {
                let mut masks = [0usize; 3];
                let mut free = [0, 1, 2].map(|r| ROW_SIZES[r] - fill[r] as usize);
                for (j, &d) in table.dest(i).iter().enumerate() {
                    if d != DISCARD {
                        masks[d as usize] |= 1 << j;
                        free[d as usize] -= 1;
                    }
                }
                let start = starts(&free, plan);
                [0, 1, 2].map(|row| {
                    let key = (row, masks[row], start[row]);
                    *index.entry(key).or_insert_with(|| {
                        rows.push(key);
                        rows.len() as u32 - 1
                    })
                })
            })
            .collect();
        Shape { rows, ids }
    }

    fn get(key: ShapeKey) -> std::rc::Rc<Shape> {
        use std::cell::RefCell;
        use std::collections::HashMap;
        use std::rc::Rc;
        thread_local! {
            static SHAPES: RefCell<HashMap<ShapeKey, Rc<Shape>>> = RefCell::new(HashMap::new());
        }
        SHAPES.with(|shapes| {
            Rc::clone(
                shapes
                    .borrow_mut()
                    .entry(key)
                    .or_insert_with(|| Rc::new(Shape::build(&key))),
            )
        })
    }
}

impl Layout {
    /// The layout of `cands` (a subset of `shape`'s candidates); `remap` is scratch space.
    fn new(cands: &[Cand], shape: &Shape, decision: &Decision<'_>, remap: &mut Vec<u32>) -> Layout {
        let mut base = [([0u8; 5], 0usize); 3];
        for (row, (cards, n)) in base.iter_mut().enumerate() {
            for &card in &decision.board[ROW_START[row]..ROW_START[row] + ROW_SIZES[row]] {
                if card != EMPTY {
                    cards[*n] = card as u8;
                    *n += 1;
                }
            }
        }
        remap.clear();
        remap.resize(shape.rows.len(), NO_ROW);
        let mut rows = Vec::with_capacity(3 * cands.len());
        let ids = cands
            .iter()
            .map(|c| {
                shape.ids[c.fit].map(|r| {
                    let r = r as usize;
                    if remap[r] == NO_ROW {
                        let (row, mask, start) = shape.rows[r];
                        let (mut fixed, mut n) = base[row];
                        for (i, &card) in decision.dealt.iter().enumerate() {
                            if mask >> i & 1 == 1 {
                                fixed[n] = card;
                                n += 1;
                            }
                        }
                        remap[r] = rows.len() as u32;
                        rows.push(Row {
                            row,
                            fixed,
                            fixed_count: n,
                            start,
                        });
                    }
                    remap[r]
                })
            })
            .collect();
        let n = rows.len();
        Layout {
            rows,
            ids,
            class: vec![0; n],
            part: vec![0.0; n],
            drawn: Vec::with_capacity(n),
        }
    }

    /// Rank row `i` holding `cards` and set its share of the value.
    #[inline]
    fn set(&mut self, t: &Tables, rules: &Rules, style: &Style, i: usize, cards: &[u8; 5]) {
        let row = self.rows[i].row;
        let c = if row == 0 {
            t.class3(&cards[..3])
        } else {
            t.class5(cards)
        } as usize;
        self.class[i] = c as u16;
        let weight = style.strength_weight / CLASSES5 as f64;
        self.part[i] = match row {
            0 => {
                rules.royalty_top[c] as f64
                    + if rules.entry_cards[c] > 0 {
                        style.fantasy_bonus
                    } else {
                        0.0
                    }
            }
            1 => rules.royalty_middle[c] as f64 + weight * c as f64,
            _ => rules.royalty_bottom[c] as f64 + weight * c as f64,
        };
    }

    /// Rank the rows that take draws and the complete ones once: call before [`Layout::rank`].
    fn prepare(&mut self, t: &Tables, rules: &Rules, style: &Style) {
        for i in 0..self.rows.len() {
            let r = self.rows[i];
            if r.fixed[..r.fixed_count].iter().any(|&c| is_joker(c)) {
                continue; // its candidates' boards are read whole
            }
            if r.fixed_count == ROW_SIZES[r.row] {
                self.set(t, rules, style, i, &r.fixed);
            } else {
                self.drawn.push(i as u32);
            }
        }
    }

    /// Rank every row that takes draws, for one set of draws.
    fn rank(&mut self, t: &Tables, rules: &Rules, style: &Style, draws: &[u8]) {
        for k in 0..self.drawn.len() {
            let i = self.drawn[k] as usize;
            let r = self.rows[i];
            let size = ROW_SIZES[r.row];
            let Some(run) = draws.get(r.start..r.start + size - r.fixed_count) else {
                continue; // a row no candidate of this layout completes with these draws
            };
            let mut cards = r.fixed;
            cards[r.fixed_count..size].copy_from_slice(run);
            self.set(t, rules, style, i, &cards);
        }
    }

    /// Candidate `i`'s value from its ranked rows.
    #[inline]
    fn value(&self, t: &Tables, style: &Style, i: usize) -> f64 {
        let [top, middle, bottom] = self.ids[i].map(|r| r as usize);
        let (tc, mc, bc) = (self.class[top], self.class[middle], self.class[bottom]);
        if t.top_fouls(tc, mc) || mc > bc {
            -style.foul_penalty
        } else {
            self.part[top] + self.part[middle] + self.part[bottom]
        }
    }
}

/// Everything one decision's valuations share.
struct Judge<'a> {
    t: &'a Tables,
    rules: &'a Rules,
    style: &'a Style,
    decision: &'a Decision<'a>,
    scratch: Vec<u8>,
    draws: Vec<u8>,
    jokers: bool,
    remap: Vec<u32>,
}

impl Judge<'_> {
    fn layout(&mut self, cands: &[Cand], plan: Plan) -> Layout {
        let d = self.decision;
        let shape = Shape::get((d.dealt.len(), d.discards, fill_of(d.board), plan));
        let mut layout = Layout::new(cands, &shape, d, &mut self.remap);
        layout.prepare(self.t, self.rules, self.style);
        layout
    }

    /// Each candidate's value under the current draws and one plan, into `out`.
    fn plan_values(&self, cands: &[Cand], layout: &mut Layout, plan: Plan, out: &mut [f64]) {
        let (t, rules, style, draws) = (self.t, self.rules, self.style, &self.draws[..]);
        let drawn_joker = self.jokers && draws.iter().any(|&d| is_joker(d));
        // Ranks' first positions among the draws: where a draw pairing the top sits.
        let mut first = [u8::MAX; 14];
        for (i, &d) in draws.iter().enumerate().rev() {
            first[rank(d) as usize] = i as u8;
        }
        if !drawn_joker {
            layout.rank(t, rules, style, draws);
        }
        for (i, (slot, c)) in out.iter_mut().zip(cands).enumerate() {
            let mut whole = drawn_joker || c.joker;
            if plan == Plan::BottomFirst && c.free[0] > 0 && c.top_ranks != 0 {
                let mut bits = c.top_ranks;
                let mut which = u8::MAX;
                while bits != 0 {
                    which = which.min(first[bits.trailing_zeros() as usize]);
                    bits &= bits - 1;
                }
                whole |= (which as usize) < c.free[2] + c.free[1];
            }
            *slot = if whole {
                board_value(t, rules, style, &complete(&c.after, draws, plan))
            } else {
                layout.value(t, style, i)
            };
        }
    }

    /// Average value of each candidate over `rollouts` completions (the better plan
    /// of each with `both`), plus the top-chasing term.
    fn judged(
        &mut self,
        cands: &[Cand],
        need: usize,
        rollouts: usize,
        both: bool,
        rng: &mut Stream,
    ) -> Vec<f64> {
        let mut total = vec![0.0; cands.len()];
        if need == 0 {
            for (slot, c) in total.iter_mut().zip(cands) {
                *slot = board_value(self.t, self.rules, self.style, &c.after);
            }
        } else {
            let mut a = vec![0.0; cands.len()];
            let mut b = vec![0.0; cands.len()];
            let mut layout_a = self.layout(cands, Plan::BottomFirst);
            let mut layout_b = both.then(|| self.layout(cands, Plan::MiddleFirst));
            for _ in 0..rollouts {
                draw(
                    self.decision.unseen,
                    need,
                    rng,
                    &mut self.scratch,
                    &mut self.draws,
                );
                self.plan_values(cands, &mut layout_a, Plan::BottomFirst, &mut a);
                if let Some(layout_b) = layout_b.as_mut() {
                    // The player adapts to the cards: each rollout counts its better plan.
                    self.plan_values(cands, layout_b, Plan::MiddleFirst, &mut b);
                    for (x, y) in a.iter_mut().zip(&b) {
                        *x = x.max(*y);
                    }
                }
                for (sum, v) in total.iter_mut().zip(&a) {
                    *sum += v;
                }
            }
            for slot in total.iter_mut() {
                *slot /= rollouts as f64;
            }
        }
        for (slot, c) in total.iter_mut().zip(cands) {
            *slot += c.chase;
        }
        total
    }
}

/// The candidates of a decision that fit its board, with what valuing them needs.
fn candidates_of(decision: &Decision<'_>, style: &Style) -> Vec<Cand> {
    let table = Candidates::get(decision.dealt.len(), decision.discards);
    let fill = fill_of(decision.board);
    let base_joker = decision
        .board
        .iter()
        .any(|&c| c != EMPTY && is_joker(c as u8));
    (0..table.len())
        .filter(|&i| table.fits(i, fill))
        .enumerate()
        .map(|(fit, i)| {
            let dest = table.dest(i);
            let mut after = *decision.board;
            let mut row_fill = fill;
            apply(&mut after, &mut row_fill, decision.dealt, dest);
            let joker = base_joker
                || dest
                    .iter()
                    .zip(decision.dealt)
                    .any(|(&d, &card)| d != DISCARD && is_joker(card));
            let queens = after[0..3]
                .iter()
                .filter(|&&c| c != EMPTY && rank(c as u8) >= 10)
                .count();
            Cand {
                index: i,
                fit,
                after,
                free: [0, 1, 2].map(|r| ROW_SIZES[r] - row_fill[r] as usize),
                top_ranks: top_rank_bits(&after),
                chase: style.top_chase * queens as f64,
                joker,
            }
        })
        .collect()
}

/// The candidate (an index into `Candidates::get(dealt, discards)`) a bot of
/// `style` plays, or None when no candidate fits the board.
pub fn choose(
    t: &Tables,
    rules: &Rules,
    decision: &Decision<'_>,
    style: &Style,
    rollouts: usize,
    rng: &mut Stream,
) -> Option<usize> {
    let table = Candidates::get(decision.dealt.len(), decision.discards);
    let mut cands = candidates_of(decision, style);
    let need = cands.first()?.free.iter().sum::<usize>();
    let mut judge = Judge {
        t,
        rules,
        style,
        decision,
        scratch: Vec::with_capacity(decision.unseen.len()),
        draws: Vec::with_capacity(13),
        remap: Vec::new(),
        jokers: rules.deck_size as usize > crate::cards::DECK,
    };
    if table.len() > SCREEN_ABOVE {
        // Many candidates: one cheap rollout each (one plan), then the full
        // look-ahead for the most promising few (ties to the earlier candidate).
        let rough = judge.judged(&cands, need, 1, false, rng);
        let mut order: Vec<usize> = (0..cands.len()).collect();
        if order.len() > SCREEN_KEEP {
            let better = |a: &usize, b: &usize| rough[*b].total_cmp(&rough[*a]).then(a.cmp(b));
            order.select_nth_unstable_by(SCREEN_KEEP - 1, better);
            order.truncate(SCREEN_KEEP);
        }
        let mut keep = vec![false; cands.len()];
        for i in order {
            keep[i] = true;
        }
        let mut flags = keep.into_iter();
        cands.retain(|_| flags.next().unwrap_or(false));
    }
    let mut value = judge.judged(&cands, need, rollouts, true, rng);
    if style.noise != 0.0 {
        for v in value.iter_mut() {
            *v += style.noise * rng.normal();
        }
    }
    let mut best = 0;
    for (i, v) in value.iter().enumerate() {
        if *v > value[best] {
            best = i;
        }
    }
    Some(cands[best].index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{cards, DECK};

    fn unseen_of(board: &[i8; 13], dealt: &[u8], deck: u8) -> Vec<u8> {
        (0..deck)
            .filter(|&c| !dealt.contains(&c) && !board.contains(&(c as i8)))
            .collect()
    }

    #[test]
    fn plans_fill_rows_from_their_last_slot() {
        // Bottom holds one card, the middle two, the top none: 4 + 3 + 3 = 10 slots.
        // Plan A: bottom slots 12..9 take draws 0..3, middle 7..5 draws 4..6, top 2..0 draws 7..9.
        let mut after = [EMPTY; 13];
        after[8] = 40;
        after[3] = 41;
        after[4] = 42;
        let draws: Vec<u8> = (0..10).collect(); // ranks 0..2 only: no pair with an empty top
        let a = complete(&after, &draws, Plan::BottomFirst);
        assert_eq!(&a[8..13], &[40, 3, 2, 1, 0]);
        assert_eq!(&a[3..8], &[41, 42, 6, 5, 4]);
        assert_eq!(&a[0..3], &[9, 8, 7]);
        // Plan B: middle 7..5 take draws 0..2, bottom 12..9 draws 3..6, top draws 7..9.
        let b = complete(&after, &draws, Plan::MiddleFirst);
        assert_eq!(&b[3..8], &[41, 42, 2, 1, 0]);
        assert_eq!(&b[8..13], &[40, 6, 5, 4, 3]);
        assert_eq!(&b[0..3], &[9, 8, 7]);
    }

    #[test]
    fn a_draw_that_pairs_the_top_goes_there() {
        // Top Qs with two empty slots; the bottom has 1 free slot, the middle 2.  The
        // draws (already in fill order) are 2c, Qd, 3c, 4c, 5d: plan A would put Qd in
        // the middle's last slot (draw 1 = middle slot 7); it moves to the top's
        // first empty slot (1), and the card there (draw 4 = 5d, top slot 1) goes to 7.
        let mut after = [EMPTY; 13];
        after[0] = cards("Qs")[0] as i8;
        for (i, c) in cards("2d 3d 4d Ac Ad Ah Kc").iter().enumerate() {
            after[if i < 3 { 3 + i } else { 8 + i - 3 }] = *c as i8;
        }
        // Bottom: Ac Ad Ah Kc + 1 free; middle: 2d 3d 4d + 2 free; top: Qs + 2 free.
        let fill = fill_of(&after);
        assert_eq!(fill, [1, 3, 4]);
        let draws = cards("2c Qd 3c 4c 5d");
        let board = complete(&after, &draws, Plan::BottomFirst);
        let qd = cards("Qd")[0] as i8;
        assert_eq!(board[1], qd);
        assert_eq!(board[7], cards("5d")[0] as i8);
        assert_eq!(board[12], cards("2c")[0] as i8);
    }

    fn one_decision(board: [i8; 13], dealt: &[u8], discards: usize, deck: u8, seed: u64) {
        let (t, r) = (Tables::get(), Rules::joker_pineapple());
        let rules = Rules {
            deck_size: deck,
            ..r
        };
        let unseen = unseen_of(&board, dealt, deck);
        let d = Decision {
            board: &board,
            dealt,
            discards,
            unseen: &unseen,
        };
        let style = Style {
            foul_penalty: 8.0,
            fantasy_bonus: 80.0,
            noise: 0.0,
            strength_weight: 2.0,
            top_chase: 3.0,
        };
        // The row layouts and whole boards agree on every candidate's value.
        let table = Candidates::get(dealt.len(), discards);
        let fill = fill_of(&board);
        let cands = candidates_of(&d, &style);
        let need: usize = cands[0].free.iter().sum();
        let mut rng = Stream::new(&[seed]);
        let mut judge = Judge {
            t,
            rules: &rules,
            style: &style,
            decision: &d,
            scratch: Vec::new(),
            draws: Vec::new(),
            jokers: false,
            remap: Vec::new(),
        };
        for _ in 0..4 {
            if need == 0 {
                break;
            }
            draw(
                &unseen,
                need,
                &mut rng,
                &mut judge.scratch,
                &mut judge.draws,
            );
            let draws = judge.draws.clone();
            if draws.iter().any(|&x| is_joker(x)) {
                continue; // such boards are always read whole
            }
            for plan in [Plan::BottomFirst, Plan::MiddleFirst] {
                let mut layout = judge.layout(&cands, plan);
                layout.rank(t, &rules, &style, &draws);
                for (i, c) in cands.iter().enumerate() {
                    let moved = plan == Plan::BottomFirst
                        && pairs_the_top(&c.free, c.top_ranks, &draws).is_some();
                    let full = complete(&c.after, &draws, plan);
                    let whole = board_value(t, &rules, &style, &full);
                    if !moved && !full.iter().any(|&x| is_joker(x as u8)) {
                        let fast = layout.value(t, &style, i);
                        assert!((fast - whole).abs() < 1e-9, "candidate {i} {plan:?}");
                    }
                }
            }
        }
        let mut rng = Stream::new(&[seed, 1]);
        let chosen = choose(t, &rules, &d, &style, 5, &mut rng).expect("a candidate fits");
        assert!(table.fits(chosen, fill));
    }

    #[test]
    fn row_layouts_equal_whole_boards_on_every_street() {
        let mut board = [EMPTY; 13];
        for seed in 0..6u64 {
            let mut s = Stream::new(&[seed, 99]);
            let mut deck: Vec<u8> = (0..DECK as u8).collect();
            s.choose_first(&mut deck, 17);
            board.fill(EMPTY);
            one_decision(board, &deck[0..5], 0, 52, seed);
            // Put the first five as a candidate would and play a Pineapple street.
            let mut fill = [0u8; 3];
            apply(&mut board, &mut fill, &deck[0..5], &[2, 2, 1, 1, 0]);
            one_decision(board, &deck[5..8], 1, 52, seed);
            apply(&mut board, &mut fill, &deck[5..8], &[2, 0, 3]);
            apply(&mut board, &mut fill, &deck[8..11], &[1, 3, 2]);
            apply(&mut board, &mut fill, &deck[11..14], &[2, 3, 1]);
            // 11 placed: the last street has no draws left.
            one_decision(board, &deck[14..17], 1, 52, seed);
        }
    }

    #[test]
    fn jokers_are_read_at_their_best() {
        // A joker on the board: the bot still picks a fitting candidate.
        let mut board = [EMPTY; 13];
        board[8] = 52;
        one_decision(board, &cards("As Ad 7c"), 1, 54, 3);
    }

    #[test]
    fn the_last_card_goes_where_it_does_not_foul() {
        // Top KK + an empty slot, middle A 3 4 6 + an empty slot, bottom trip 9s; the
        // last street deals Ah 5h 2h, one discarded.  The ace on top (KKA) leaves the
        // middle ace-high under a pair of kings: a foul (-8).  The ace in the middle
        // (a pair of aces over KK) keeps the board live: KK pays 8 royalties and earns
        // Fantasyland (+80), so a bot without noise never fouls here.
        let mut board = [EMPTY; 13];
        let top = cards("Ks Kd");
        let middle = cards("Ac 3c 4d 6c");
        let bottom = cards("9c 9d 9h 2d 7s");
        board[0] = top[0] as i8;
        board[1] = top[1] as i8;
        for (i, &c) in middle.iter().enumerate() {
            board[3 + i] = c as i8;
        }
        for (i, &c) in bottom.iter().enumerate() {
            board[8 + i] = c as i8;
        }
        let dealt = cards("Ah 5h 2h");
        let unseen = unseen_of(&board, &dealt, 52);
        let d = Decision {
            board: &board,
            dealt: &dealt,
            discards: 1,
            unseen: &unseen,
        };
        let style = Style {
            foul_penalty: 8.0,
            fantasy_bonus: 80.0,
            noise: 0.0,
            strength_weight: 2.0,
            top_chase: 3.0,
        };
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let i = choose(t, &r, &d, &style, 5, &mut Stream::new(&[1])).unwrap();
        let dest = Candidates::get(3, 1).dest(i);
        assert_ne!(dest[0], 0, "the ace on top fouls");
        let mut after = board;
        let mut fill = fill_of(&board);
        apply(&mut after, &mut fill, &dealt, dest);
        assert!(!evaluate(t, &r, &after.map(|c| c as u8)).fouled);
    }
}
