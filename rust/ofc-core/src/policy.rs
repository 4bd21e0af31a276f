//! The grader's continuation policy: how a board is played on after the graded decision.
//!
//! It chooses street by street and sees only the cards dealt so far.  Each legal
//! placement of a street's cards is valued by [`Policy::dreams`] *imagined*
//! completions: cards drawn from those the seat has not seen (as many as it
//! will still be dealt, discards included, when [`Policy::whole_deal`]), pairs
//! and trips kept together and the strongest groups first, filled into the
//! empty slots by up to three plans (bottom first, middle first, top first);
//! each imagination counts its best plan, as a player adapts to the cards it
//! gets.  A completed board is worth, against each opponent, its royalties and
//! the strength of its middle and bottom rows (a foul costs [`Policy::foul`]),
//! plus the value of the Fantasyland it earns (passed in per ruleset and
//! size: what that Fantasyland nets, not a constant).  The best candidate on
//! the sum of its imaginations, the first on ties, is played.  Imaginations
//! never look at the real cards to come, which is what overvalues draws in
//! peers' graders; the best-of-plans completion knows its own imagined cards,
//! a small optimism that the random draws keep honest.
//!
//! [`Policy::classic`] is the first policy (one imagination, bottom first,
//! `royalties - 9 x foul + 60 x entry + 2 x strength`), kept to measure against.

use crate::board::{evaluate, read_jokers, BoardEval};
use crate::candidates::{apply, Candidates};
use crate::rollout::{Game, Position, Setup};
use std::sync::OnceLock;

use crate::cards::{is_joker, rank, BOARD, DISCARD, EMPTY, ROW_SIZES, ROW_START};
use crate::eval::{Tables, CLASSES5};
use crate::rng::Stream;
use crate::rules::Rules;
use crate::search::Search;

pub const FOUL_PENALTY: f64 = 9.0;
pub const FANTASY_BONUS: f64 = 60.0;
pub const STRENGTH_WEIGHT: f64 = 2.0;
/// Imagined cards go to the bottom first, then the middle, then the top.
const FILL_ORDER: [usize; 3] = [2, 1, 0];
/// The completion plans, each an order of rows to fill: bottom first, middle
/// first, top first.
pub const PLANS: [[usize; 3]; 3] = [[2, 1, 0], [1, 2, 0], [0, 2, 1]];
/// Most imaginations a street can use.
pub const MAX_DREAMS: usize = 16;
/// The purpose of the policy's own stream when it plays a position (rollouts use 1-4).
const POLICY: u64 = 5;
/// The tail of the key of a decision's search (after [`POLICY`]).
const SEARCH_KEY: u64 = 11;

/// How the policy values a completed board and how hard it imagines.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Points a Fantasyland of n cards is worth to the seat, by n (0: no entry).
    pub fantasy: [f64; 32],
    /// Points a foul costs, against each opponent.
    pub foul: f64,
    /// Weight of the middle and bottom rows' strength, against each opponent.
    pub strength: f64,
    /// Opponents the board is scored against (royalties and rows count once each).
    pub opponents: f64,
    /// Imagined completions a street (1..=[`MAX_DREAMS`]).
    pub dreams: usize,
    /// Share of the cards it will throw that it imagines too (0: one card a slot;
    /// 1: its whole future deal, a choice it will not really have all at once).
    pub extra: f64,
    /// A board value learned from self-play ([`crate::value`]): when set, each street
    /// it covers is played by the afterstate of highest value, not by imaginations.
    pub value: Option<std::sync::Arc<crate::value::Scorer>>,
    /// Completion plans tried on each imagination (1..=3, in [`PLANS`] order; 4: the
    /// three and [`pair_the_top`]).
    pub plans: usize,
    /// Look-ahead: with at least this many streets still to come, each imagination is
    /// the future deal in its real street structure, played street by street by this
    /// policy's one-imagination rule ([`choose_ahead`]); 0: never.
    pub ahead: usize,
}

impl Policy {
    /// The first policy: one imagination filled bottom first, `royalties - 9 x foul +
    /// 60 x entry + 2 x strength`.
    pub fn classic() -> Policy {
        let mut fantasy = [FANTASY_BONUS; 32];
        fantasy[0] = 0.0;
        Policy {
            fantasy,
            foul: FOUL_PENALTY,
            strength: STRENGTH_WEIGHT,
            opponents: 1.0,
            dreams: 1,
            extra: 0.0,
            plans: 1,
            ahead: 0,
            value: None,
        }
    }

    /// The policy of a table of `opponents` + 1 seats whose Fantasylands are worth
    /// `fantasy_values[n]` points (n cards; missing sizes are worth 0): two
    /// imaginations a street, each with the cards it will throw as spares that may
    /// pair its top, three plans and the chase of a pair on top, a foul costing 6
    /// against each opponent (its row points; what the opponent's royalties add is
    /// offset by the fouls it makes itself).  Chosen on the replay of the real
    /// samples (`bench/replay.py --advice policy`) within the grader's time budget.
    pub fn new(fantasy_values: &[f64], opponents: usize) -> Policy {
        let mut fantasy = [0.0; 32];
        for (slot, &v) in fantasy.iter_mut().zip(fantasy_values).skip(1) {
            *slot = v;
        }
        Policy {
            fantasy,
            foul: 6.0,
            strength: STRENGTH_WEIGHT,
            opponents: opponents.max(1) as f64,
            dreams: 2,
            extra: 1.0,
            plans: PLANS.len() + 1,
            ahead: 0,
            value: None,
        }
    }

    /// Whether a street with `future` streets still to come after it looks ahead.
    pub fn looks_ahead(&self, future: &[(usize, usize)]) -> bool {
        self.ahead > 0
            && future.len() >= self.ahead
            && future.iter().map(|s| s.0).sum::<usize>() <= BOARD
    }

    /// The policy the rollouts of `game` play with, at a table of `opponents` + 1 seats.
    pub fn for_game(game: &Game, opponents: usize) -> Policy {
        let mut p = Policy::new(&game.fantasy_values, opponents);
        p.value = game.value.as_ref().map(|v| {
            let scorer = v.scorer(&game.fantasy_values, opponents);
            let scorer = if game.search.deals > 0 {
                scorer.searching(&game.streets, game.search)
            } else {
                scorer
            };
            std::sync::Arc::new(scorer)
        });
        p
    }

    /// Cards to imagine with `slots` empty after the street and `future` still to be dealt.
    pub fn need(&self, slots: usize, future: usize) -> usize {
        if slots == 0 {
            0
        } else {
            let spare = future.saturating_sub(slots) as f64;
            (slots + (self.extra * spare).round() as usize).min(BOARD)
        }
    }

    /// The value of a completed board from its row classes.
    #[inline]
    pub fn value_classes(
        &self,
        t: &Tables,
        rules: &Rules,
        top: u16,
        middle: u16,
        bottom: u16,
    ) -> f64 {
        if t.top_fouls(top, middle) || middle > bottom {
            return -self.foul * self.opponents;
        }
        let entry = (rules.entry_cards[top as usize].max(0) as usize).min(31);
        let strength = (middle as f64 + bottom as f64) / CLASSES5 as f64;
        self.opponents * (rules.royalty_sum(top, middle, bottom) as f64 + self.strength * strength)
            + self.fantasy[entry]
    }

    /// The value of an evaluated board.
    #[inline]
    pub fn value(&self, rules: &Rules, e: &BoardEval) -> f64 {
        if e.fouled {
            return -self.foul * self.opponents;
        }
        let entry = (e.entry_cards(rules).max(0) as usize).min(31);
        let strength = (e.middle as f64 + e.bottom as f64) / CLASSES5 as f64;
        self.opponents * (e.royalty_total() as f64 + self.strength * strength) + self.fantasy[entry]
    }
}

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
    imagine_spares(stream, known, deck, need, need)
}

/// `need` cards as [`imagine`] draws them, only the first `slots` sorted: the cards
/// after them are spares, cards the seat will see but throw unless they pair its top.
pub fn imagine_spares(
    stream: &mut Stream,
    known: CardSet,
    deck: u8,
    need: usize,
    slots: usize,
) -> Imagined {
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
    fill_order(&mut out.cards[..slots.min(need)]);
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
    dream_in(board, fill, dealt, dest, imagined, FILL_ORDER)
}

/// [`dream`] with the imagined cards filled into the rows in `order`.
#[inline]
pub fn dream_in(
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    dest: &[u8],
    imagined: &[u8],
    order: [usize; 3],
) -> [u8; BOARD] {
    let mut out = [0u8; BOARD];
    let mut next = 0usize;
    for row in order {
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

/// The classic policy's value of a complete board.
#[inline]
pub fn board_value(t: &Tables, rules: &Rules, cards: &[u8; BOARD]) -> f64 {
    value_of(rules, &evaluate_any(t, rules, cards))
}

/// The classic policy's value of an evaluated board (the grader's screen).
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
/// three rows under each plan in that list.  A row depends only on its board
/// cards, which dealt cards join it (a bit mask) and where its imagined cards
/// start (after the empty slots of the rows its plan fills before it), and most
/// candidates share their rows: each distinct row is ranked once, in one tight loop.
struct StreetPlan {
    /// (row, dealt-card mask, first imagined card) of each distinct row.
    rows: Vec<(u8, u8, u8)>,
    /// The rows of the first plan come first: a policy of one plan ranks only these.
    first_plan_rows: usize,
    /// (candidate, [top, middle, bottom] under each plan): indices into `rows`.
    cands: Vec<(u16, [[u16; 3]; 3])>,
}

impl StreetPlan {
    fn build(cands: &Candidates, fill: [u8; 3]) -> StreetPlan {
        let mut rows: Vec<(u8, u8, u8)> = Vec::new();
        let index = |rows: &mut Vec<(u8, u8, u8)>, key: (u8, u8, u8)| -> u16 {
            match rows.iter().position(|&k| k == key) {
                Some(i) => i as u16,
                None => {
                    rows.push(key);
                    (rows.len() - 1) as u16
                }
            }
        };
        let mut out = Vec::new();
        let mut first_plan_rows = 0;
        // Every candidate's first plan, then the others: the first plan's rows lead.
        for plans in [0..1, 1..PLANS.len()] {
            for (k, i) in (0..cands.len())
                .filter(|&i| cands.fits(i, fill))
                .enumerate()
            {
                let mut mask = [0u8; 4];
                for (j, &d) in cands.dest(i).iter().enumerate() {
                    mask[d as usize] |= 1 << j;
                }
                let count = cands.count[i];
                let empty: [u8; 3] =
                    std::array::from_fn(|r| ROW_SIZES[r] as u8 - (fill[r] + count[r]));
                if k == out.len() {
                    out.push((i as u16, [[0u16; 3]; 3]));
                }
                for p in plans.clone() {
                    let mut offset = 0u8;
                    for &row in &PLANS[p] {
                        out[k].1[p][row] = index(&mut rows, (row as u8, mask[row], offset));
                        offset += empty[row];
                    }
                }
            }
            if plans.start == 0 {
                first_plan_rows = rows.len();
            }
        }
        StreetPlan {
            rows,
            first_plan_rows,
            cands: out,
        }
    }

    /// The plan of a street shape on rows holding `fill` cards (built once per process).
    fn get(cands: &'static Candidates, fill: [u8; 3]) -> &'static StreetPlan {
        const FILLS: usize = 4 * 6 * 6;
        static PLANS_BY_SHAPE: OnceLock<Vec<OnceLock<StreetPlan>>> = OnceLock::new();
        let plans =
            PLANS_BY_SHAPE.get_or_init(|| (0..6 * 6 * FILLS).map(|_| OnceLock::new()).collect());
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

/// Each distinct row of `plan` ranked with `imagined` (classes into `classes`): the
/// board's cards of each row are walked once, then each row adds the dealt cards it
/// takes and the imagined cards from its offset ([`Tables::add`], the same class as
/// ranking the whole row).
#[allow(clippy::too_many_arguments)]
fn rank_rows(
    t: &Tables,
    plan: &StreetPlan,
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    imagined: &[u8],
    classes: &mut [u16],
    rows: usize,
) {
    let last = imagined.len().saturating_sub(1);
    let mut prefix = [Tables::NO_CARDS; 3];
    let mut full = [0u16; 3];
    for r in 0..3 {
        let cards = board[ROW_START[r]..ROW_START[r] + fill[r] as usize].iter();
        if fill[r] as usize == ROW_SIZES[r] {
            let last = ROW_SIZES[r] - 1;
            let row: [u8; 5] = std::array::from_fn(|i| board[ROW_START[r] + i.min(last)] as u8);
            full[r] = if r == 0 {
                t.class3(&row[..3])
            } else {
                t.class5(&row)
            };
        } else {
            prefix[r] = cards.fold(Tables::NO_CARDS, |p, &c| t.add(p, c as u8));
        }
    }
    for (slot, &(row, mask, offset)) in classes.iter_mut().zip(&plan.rows[..rows]) {
        let row = row as usize;
        let free = ROW_SIZES[row] - fill[row] as usize;
        if free == 0 {
            *slot = full[row];
            continue;
        }
        let mut tail = [0u8; 5];
        let mut k = 0;
        for (j, &c) in dealt.iter().enumerate() {
            if mask >> j & 1 == 1 {
                tail[k] = c;
                k += 1;
            }
        }
        let mut next = offset as usize;
        while k < free {
            tail[k] = imagined.get(next.min(last)).copied().unwrap_or(0);
            next += 1;
            k += 1;
        }
        let p = tail[..k - 1].iter().fold(prefix[row], |p, &c| t.add(p, c));
        *slot = if row == 0 {
            t.finish3(p, tail[k - 1])
        } else {
            t.finish5(p, tail[k - 1])
        };
    }
}

/// Each candidate's imagined board (plan A, bottom first), evaluated and passed to
/// `each(candidate, board)` for the candidates that fit, in candidate order: the
/// same boards as [`dream`] makes.
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
    if has_jokers(board, dealt, imagined) {
        // A joker's reading depends on the whole board: no row is ranked alone.
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let cards = dream(board, fill, dealt, cands.dest(i), imagined);
            each(i, &evaluate_any(t, rules, &cards));
        }
        return;
    }
    let plan = StreetPlan::get(cands, fill);
    let rows = plan.first_plan_rows;
    with_classes(t, plan, rows, board, fill, dealt, imagined, |classes| {
        for &(i, rows) in &plan.cands {
            let [top, middle, bottom] = rows[0].map(|r| classes[r as usize]);
            each(
                i as usize,
                &BoardEval::from_classes(t, rules, top, middle, bottom, None),
            );
        }
    });
}

fn has_jokers(board: &[i8; BOARD], dealt: &[u8], imagined: &[u8]) -> bool {
    board.iter().any(|&c| c >= 0 && is_joker(c as u8))
        || dealt.iter().chain(imagined).any(|&c| is_joker(c))
}

/// Rank the plan's first `rows` rows with `imagined` into a buffer and hand it to `then`.
#[allow(clippy::too_many_arguments)]
fn with_classes<R>(
    t: &Tables,
    plan: &StreetPlan,
    rows: usize,
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    imagined: &[u8],
    then: impl FnOnce(&[u16]) -> R,
) -> R {
    if rows <= 64 {
        // A Pineapple street's rows (a buffer this size costs nothing to clear).
        let mut small = [0u16; 64];
        rank_rows(t, plan, board, fill, dealt, imagined, &mut small, rows);
        then(&small[..rows])
    } else if rows <= 256 {
        let mut small = [0u16; 256];
        rank_rows(t, plan, board, fill, dealt, imagined, &mut small, rows);
        then(&small[..rows])
    } else {
        // A first street's rows: 232 candidates share a few hundred.
        let mut large = vec![0u16; rows];
        rank_rows(t, plan, board, fill, dealt, imagined, &mut large, rows);
        then(&large)
    }
}

/// The board a candidate makes when the imagined cards that pair its top row go
/// there first (the highest rank first), the rest bottom, middle, top: how a
/// player chasing a pair on top completes.  None when no imagined card pairs the top.
pub fn pair_the_top(
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    dest: &[u8],
    imagined: &[u8],
) -> Option<[u8; BOARD]> {
    let mut top = [0u8; 3];
    let mut n = fill[0] as usize;
    for (cell, &c) in top.iter_mut().zip(&board[..n]) {
        *cell = c as u8;
    }
    for (&card, _) in dealt.iter().zip(dest).filter(|(_, &d)| d == 0) {
        top[n] = card;
        n += 1;
    }
    if n == 0 || n >= 3 {
        return None;
    }
    let ranks: u32 = top[..n]
        .iter()
        .filter(|&&c| !is_joker(c))
        .fold(0, |m, &c| m | 1 << rank(c));
    let mut picks = [0u8; 3];
    let mut taken = 0u16; // positions of `imagined` moved to the top
    let mut k = 0;
    for r in (0..13u8).rev().filter(|&r| ranks >> r & 1 == 1) {
        for (j, &c) in imagined.iter().enumerate() {
            if k < 3 - n && !is_joker(c) && rank(c) == r {
                picks[k] = c;
                taken |= 1 << j;
                k += 1;
            }
        }
    }
    if k == 0 {
        return None;
    }
    // Bottom and middle take the other imagined cards in order, then the top the
    // picks and what is left: one sequence filled bottom, middle, top.
    let mut counts = [0usize; 3];
    for &d in dest.iter().filter(|&&d| d != DISCARD) {
        counts[d as usize] += 1;
    }
    let lower = (ROW_SIZES[2] - fill[2] as usize - counts[2])
        + (ROW_SIZES[1] - fill[1] as usize - counts[1]);
    let mut order = [0u8; 2 * BOARD];
    let mut m = 0;
    let rest = imagined
        .iter()
        .enumerate()
        .filter(|(j, _)| taken >> j & 1 == 0)
        .map(|(_, &c)| c);
    for c in rest.clone().take(lower) {
        order[m] = c;
        m += 1;
    }
    for &c in &picks[..k] {
        order[m] = c;
        m += 1;
    }
    for c in rest.skip(lower) {
        order[m] = c;
        m += 1;
    }
    let out = dream_in(board, fill, dealt, dest, &order[..m], FILL_ORDER);
    Some(out)
}

/// Each fitting candidate's value under `policy` for one imagination: its best
/// plan's completed board (one plan when nothing is imagined), as `each(candidate, value)`.
#[allow(clippy::too_many_arguments)]
pub fn street_scores(
    t: &Tables,
    rules: &Rules,
    policy: &Policy,
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    cands: &'static Candidates,
    imagined: &[u8],
    mut each: impl FnMut(usize, f64),
) {
    let plans = if imagined.is_empty() {
        1
    } else {
        policy.plans.clamp(1, PLANS.len())
    };
    let chase = !imagined.is_empty() && policy.plans > PLANS.len();
    if has_jokers(board, dealt, imagined) {
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let best = PLANS[..plans]
                .iter()
                .map(|&order| {
                    let cards = dream_in(board, fill, dealt, cands.dest(i), imagined, order);
                    policy.value(rules, &evaluate_any(t, rules, &cards))
                })
                .fold(f64::NEG_INFINITY, f64::max);
            let chased = chase
                .then(|| pair_the_top(board, fill, dealt, cands.dest(i), imagined))
                .flatten()
                .map_or(f64::NEG_INFINITY, |cards| {
                    policy.value(rules, &evaluate_any(t, rules, &cards))
                });
            each(i, best.max(chased));
        }
        return;
    }
    let plan = StreetPlan::get(cands, fill);
    let rows = if plans == 1 && !chase {
        plan.first_plan_rows
    } else {
        plan.rows.len()
    };
    with_classes(t, plan, rows, board, fill, dealt, imagined, |classes| {
        for &(i, rows) in &plan.cands {
            let mut best = f64::NEG_INFINITY;
            for r in &rows[..plans] {
                let [top, middle, bottom] = r.map(|x| classes[x as usize]);
                best = best.max(policy.value_classes(t, rules, top, middle, bottom));
            }
            if chase {
                if let Some(cards) =
                    pair_the_top(board, fill, dealt, cands.dest(i as usize), imagined)
                {
                    let e = evaluate(t, rules, &cards);
                    best = best.max(policy.value_classes(t, rules, e.top, e.middle, e.bottom));
                }
            }
            each(i as usize, best);
        }
    });
}

/// The candidate the policy plays: the best sum over `dreams` of each imagination's
/// value (the first of equal ones).  With no imagination (the last street) the
/// boards are final: the chosen one's evaluation comes back too.
#[allow(clippy::too_many_arguments)]
pub fn choose(
    t: &Tables,
    rules: &Rules,
    policy: &Policy,
    board: &[i8; BOARD],
    fill: [u8; 3],
    dealt: &[u8],
    cands: &'static Candidates,
    dreams: &[Imagined],
) -> (usize, Option<BoardEval>) {
    if dreams.iter().all(|d| d.cards().is_empty()) {
        let mut best = (0, None);
        let mut best_value = f64::NEG_INFINITY;
        street_values(t, rules, board, fill, dealt, cands, &[], |i, e| {
            let value = policy.value(rules, e);
            if value > best_value {
                best = (i, Some(*e));
                best_value = value;
            }
        });
        return best;
    }
    // Sums of the candidates' values; a Pineapple street's fit a buffer that costs
    // nothing to clear.
    let mut small = [0.0f64; 32];
    let mut large = Vec::new();
    let sums = if cands.len() <= small.len() {
        &mut small[..cands.len()]
    } else {
        large.resize(cands.len(), 0.0);
        &mut large[..]
    };
    for d in dreams {
        street_scores(
            t,
            rules,
            policy,
            board,
            fill,
            dealt,
            cands,
            d.cards(),
            |i, v| sums[i] += v,
        );
    }
    let mut best = (0, f64::NEG_INFINITY);
    for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
        if sums[i] > best.1 {
            best = (i, sums[i]);
        }
    }
    (best.0, None)
}

/// The candidate the policy plays at `street` on `board`: by [`choose_ahead`] where the
/// policy looks ahead, else by [`choose`].
pub fn choose_street(
    t: &Tables,
    rules: &Rules,
    policy: &Policy,
    board: &[i8; BOARD],
    fill: [u8; 3],
    street: &Street<'_>,
) -> (usize, Option<BoardEval>) {
    // The learned value plays every street it covers.
    let learned = policy.value.as_ref().and_then(|v| {
        v.choose_keyed(
            t,
            rules,
            board,
            fill,
            street.dealt,
            street.cands,
            street.known,
            street.key,
        )
    });
    if let Some(chosen) = learned {
        return chosen;
    }
    let dreams = street.dreams();
    let ahead = policy.looks_ahead(street.future)
        && dreams
            .iter()
            .all(|d| d.cards().len() == street.future.iter().map(|s| s.0).sum::<usize>());
    if ahead && !dreams.is_empty() {
        (choose_ahead(t, rules, policy, board, fill, street), None)
    } else {
        choose(
            t,
            rules,
            policy,
            board,
            fill,
            street.dealt,
            street.cands,
            dreams,
        )
    }
}

/// Look-ahead inside the imagination: each imagination is the deal of the streets to come,
/// in their real structure (a Pineapple street: three cards, two placed, one thrown).  For
/// each candidate the imagined streets are played one by one by the policy's own
/// one-imagination rule, which sees only that street's imagined cards and imagines the
/// rest afresh (a filler drawn once per imagination and street, shared by every
/// candidate), and the finished board is valued.  So a candidate is worth what a player
/// who must keep two cards of three, street by street, makes of it: keeping QQ on top
/// counts only with the rows beneath it held.  The best sum, the first on ties, is played.
pub fn choose_ahead(
    t: &Tables,
    rules: &Rules,
    policy: &Policy,
    board: &[i8; BOARD],
    fill: [u8; 3],
    street: &Street<'_>,
) -> usize {
    let inner = Policy {
        dreams: 1,
        ahead: 0,
        ..policy.clone()
    };
    let cands = street.cands;
    let kept = street.dealt.len() - cands.dest(0).iter().filter(|&&d| d == DISCARD).count();
    let mut sums = vec![0.0f64; cands.len()];
    for d in street.dreams() {
        // The fillers: for each imagined street, the cards its rule imagines for the slots
        // left after it (and spares), drawn from what the seat would not know then.
        let mut fillers = [Imagined::NONE; BOARD];
        let seed = d.cards().iter().fold(0x9e37_79b9_u64, |h, &c| {
            h.wrapping_mul(0x100_0000_01b3) ^ u64::from(c)
        });
        let mut stream = Stream::new(&[POLICY, seed]);
        let mut known = street.known | card_set(street.dealt.iter().copied());
        let mut placed_after = placed(board) + kept;
        let mut offset = 0;
        for (k, &(n, keep)) in street.future.iter().enumerate() {
            known |= card_set(d.cards()[offset..offset + n].iter().copied());
            offset += n;
            placed_after += keep;
            let later: usize = street.future[k + 1..].iter().map(|s| s.0).sum();
            let slots = BOARD.saturating_sub(placed_after);
            let need = inner.need(slots, later);
            if need > 0 {
                fillers[k] = imagine_spares(&mut stream, known, street.deck, need, slots);
            }
        }
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let (mut b, mut f) = (*board, fill);
            apply(&mut b, &mut f, street.dealt, cands.dest(i));
            let mut offset = 0;
            let mut last = None;
            for (k, &(n, keep)) in street.future.iter().enumerate() {
                let dealt = &d.cards()[offset..offset + n];
                offset += n;
                let c = Candidates::get(n, n - keep);
                let (j, e) = choose(t, rules, &inner, &b, f, dealt, c, &fillers[k..k + 1]);
                apply(&mut b, &mut f, dealt, c.dest(j));
                last = e;
            }
            let e = last.unwrap_or_else(|| evaluate_any(t, rules, &b.map(|c| c as u8)));
            sums[i] += inner.value(rules, &e);
        }
    }
    let mut best = (0, f64::NEG_INFINITY);
    for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
        if sums[i] > best.1 {
            best = (i, sums[i]);
        }
    }
    best.0
}

/// Cards on a board.
pub fn placed(board: &[i8; BOARD]) -> usize {
    board.iter().filter(|&&c| c != EMPTY).count()
}

/// One street of a board's play-on: the cards dealt, the candidates and what is imagined.
pub struct Street<'a> {
    pub dealt: &'a [u8],
    pub cands: &'static Candidates,
    pub dreams: [Imagined; MAX_DREAMS],
    pub count: usize,
    /// The streets after this one: with [`Policy::looks_ahead`] the imaginations are
    /// their deal, in order, and [`choose_ahead`] plays them.
    pub future: &'a [(usize, usize)],
    /// The cards the seat knows at this street, and the deck's size.
    pub known: CardSet,
    pub deck: u8,
    /// The key of a learned value's search at this street (None: no search; see
    /// [`crate::search`]).
    pub key: Option<u64>,
}

impl Street<'_> {
    pub fn dreams(&self) -> &[Imagined] {
        &self.dreams[..self.count]
    }
}

/// The streets a seat still plays from `block` (its cards, street by street), each
/// with its imaginations drawn by `stream_of(street index)` from the cards the seat
/// knows then (`known` and every card dealt to it so far).
#[allow(clippy::too_many_arguments)]
pub fn plan_streets<'a>(
    policy: &Policy,
    streets: &'a [(usize, usize)],
    block: &'a [u8],
    mut known: CardSet,
    deck: u8,
    mut placed: usize,
    mut stream_of: impl FnMut(usize) -> Stream,
) -> Vec<Street<'a>> {
    let mut out = Vec::with_capacity(streets.len());
    let mut offset = 0;
    let dreams = policy.dreams.clamp(1, MAX_DREAMS);
    let searches = policy.value.as_ref().is_some_and(|v| v.keyed());
    for (i, &(dealt_count, placed_count)) in streets.iter().enumerate() {
        let dealt = &block[offset..offset + dealt_count];
        offset += dealt_count;
        known |= card_set(dealt.iter().copied());
        placed += placed_count;
        let after = &streets[i + 1..];
        let future: usize = after.iter().map(|s| s.0).sum();
        let slots = BOARD.saturating_sub(placed);
        let need = policy.need(slots, future);
        let mut street = Street {
            dealt,
            cands: Candidates::get(dealt_count, dealt_count - placed_count),
            dreams: [Imagined::NONE; MAX_DREAMS],
            count: 0,
            future: after,
            known,
            deck,
            key: searches.then(|| stream_of(i).next_u64()),
        };
        if need > 0 {
            let mut stream = stream_of(i);
            let ahead = policy.looks_ahead(after);
            for d in &mut street.dreams[..dreams] {
                *d = if ahead {
                    imagine_spares(&mut stream, known, deck, future, 0)
                } else {
                    imagine_spares(&mut stream, known, deck, need, slots)
                };
            }
            street.count = dreams;
        }
        out.push(street);
    }
    out
}

/// Play `streets` on `board` by the policy; the board comes back complete, and its
/// evaluation (the last street imagines nothing: its chosen board is the final one).
pub fn play_on(
    t: &Tables,
    rules: &Rules,
    policy: &Policy,
    board: &mut [i8; BOARD],
    streets: &[Street<'_>],
) -> BoardEval {
    let mut fill = crate::candidates::fill_of(board);
    let mut last = None;
    for s in streets {
        let (chosen, e) = choose_street(t, rules, policy, board, fill, s);
        apply(board, &mut fill, s.dealt, s.cands.dest(chosen));
        last = e;
    }
    last.unwrap_or_else(|| evaluate_any(t, rules, &board.map(|c| c as u8)))
}

/// The policy's play of one real position (the replay's bot) with `dreams`
/// imaginations (None: as many as in the rollouts) and look-ahead `ahead` (see
/// [`Policy::ahead`]; None: as in the rollouts): the destinations of the street's
/// cards.  Its imaginations come from the position's key, so the play is the same on
/// any thread; a position the rollouts refuse is refused the same way.
pub fn play_position(
    game: &Game,
    p: &Position,
    dreams: Option<usize>,
    ahead: Option<usize>,
) -> Result<Vec<u8>, String> {
    play_searching(game, p, dreams, ahead, Search::NONE)
}

/// [`play_position`] with a learned value searching a street ahead as `search` says
/// ([`crate::search`]; [`Search::NONE`]: greedily), its deals keyed by the decision's
/// key: the same play on any thread.
pub fn play_searching(
    game: &Game,
    p: &Position,
    dreams: Option<usize>,
    ahead: Option<usize>,
    search: Search,
) -> Result<Vec<u8>, String> {
    let s = Setup::new(game, p)?;
    let t = Tables::get();
    let rules = game.rules;
    let mut policy = s.policy.clone();
    if let Some(n) = dreams {
        policy.dreams = n;
        // A learned value looks n deals of the next street ahead instead.
        policy.value =
            (policy.value.as_ref()).map(|v| std::sync::Arc::new(v.looking_ahead(&game.streets, n)));
    }
    if let Some(n) = ahead {
        policy.ahead = n;
    }
    if search.deals > 0 {
        policy.value = (policy.value.as_ref())
            .map(|v| std::sync::Arc::new(v.searching(&game.streets, search)));
    }
    let key = (policy.value.as_ref())
        .is_some_and(|v| v.keyed())
        .then(|| s.stream(&[POLICY, SEARCH_KEY]).next_u64());
    let policy = &policy;
    let after = &game.streets[(p.street + 1).min(game.streets.len())..];
    let future: usize = after.iter().map(|x| x.0).sum();
    let need = policy.need(s.empty_after(), future);
    let mut street = Street {
        dealt: &s.dealt,
        cands: s.cands,
        dreams: [Imagined::NONE; MAX_DREAMS],
        count: if need > 0 {
            policy.dreams.clamp(1, MAX_DREAMS)
        } else {
            0
        },
        future: after,
        known: s.known,
        deck: rules.deck_size,
        key,
    };
    let ahead = policy.looks_ahead(after);
    let mut stream = s.stream(&[POLICY]);
    for d in &mut street.dreams[..street.count] {
        *d = if ahead {
            imagine_spares(&mut stream, s.known, rules.deck_size, future, 0)
        } else {
            imagine_spares(&mut stream, s.known, rules.deck_size, need, s.empty_after())
        };
    }
    let (chosen, _) = choose_street(t, rules, policy, &s.board, s.fill, &street);
    Ok(s.cands.dest(chosen).to_vec())
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

    /// A random street of a random hand: the street, the board its earlier streets built
    /// (each a random fitting candidate), its fill and how many cards of `deck` they used.
    fn random_board(
        s: &mut Stream,
        deck: &[u8],
        streets: &[(usize, usize)],
    ) -> (usize, [i8; 13], [u8; 3], usize) {
        let street = s.below(streets.len());
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
        (street, b, fill, used)
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
            let (street, b, fill, used) = random_board(&mut s, &deck, &streets);
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
    fn street_scores_are_the_best_plan_of_the_whole_dreams() {
        // Every candidate of random streets, for the first policy (one plan) and
        // today's (three plans and the chase of a pair on top), with spares imagined:
        // the row-ranked scores equal the best value over the plans' whole imagined
        // boards (dream_in, pair_the_top, evaluated whole), bit for bit.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let mut values = vec![0.0; 32];
        values[14] = 10.0;
        values[15] = 20.0;
        let policies = [Policy::classic(), Policy::new(&values, 2)];
        let streets = [(5, 0), (3, 1), (3, 1), (3, 1), (3, 1)];
        for seed in 0..300u64 {
            let mut s = Stream::new(&[seed, 13]);
            let mut deck: Vec<u8> = (0..52).collect();
            s.choose_first(&mut deck, 40);
            let (street, b, fill, used) = random_board(&mut s, &deck, &streets);
            let (k, discards) = streets[street];
            let dealt = &deck[used..used + k];
            let c = Candidates::get(k, discards);
            let empty = 13 - placed(&b) - (k - discards);
            let spares = if empty > 0 { s.below(4) } else { 0 };
            let imagined = &deck[used + k..used + k + empty + spares];
            for p in &policies {
                let mut got = vec![f64::NEG_INFINITY; c.len()];
                street_scores(t, &r, p, &b, fill, dealt, c, imagined, |i, v| got[i] = v);
                let plans = if imagined.is_empty() {
                    1
                } else {
                    p.plans.min(3)
                };
                for (i, &v) in got.iter().enumerate() {
                    let want = if c.fits(i, fill) {
                        let value = |cards: [u8; 13]| p.value(&r, &evaluate(t, &r, &cards));
                        let best = PLANS[..plans]
                            .iter()
                            .map(|&order| {
                                value(dream_in(&b, fill, dealt, c.dest(i), imagined, order))
                            })
                            .fold(f64::NEG_INFINITY, f64::max);
                        let chase = !imagined.is_empty() && p.plans > PLANS.len();
                        let chased = chase
                            .then(|| pair_the_top(&b, fill, dealt, c.dest(i), imagined))
                            .flatten()
                            .map_or(f64::NEG_INFINITY, value);
                        best.max(chased)
                    } else {
                        f64::NEG_INFINITY
                    };
                    assert_eq!(v.to_bits(), want.to_bits(), "seed {seed} candidate {i}");
                }
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
            &Policy::classic(),
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

    #[test]
    fn a_chased_top_takes_the_imagined_card_that_pairs_it() {
        // Top As _ _, middle 8c 3d, bottom Kh Qh 7h; 9h to the bottom, 2c to the
        // middle, 5s thrown.  Imagined Td Tc Jc 4c 6d 7s 2d and a spare Ad: the bottom's
        // one slot takes Td, the middle's two Tc Jc, then the top the ace that pairs
        // it and the next card, 4c.
        let b = board("As", "8c 3d", "Kh Qh 7h");
        let fill = crate::candidates::fill_of(&b);
        let got = pair_the_top(
            &b,
            fill,
            &cards("9h 2c 5s"),
            &[2, 1, 3],
            &cards("Td Tc Jc 4c 6d 7s 2d Ad"),
        )
        .unwrap();
        assert_eq!(&got[..3], cards("As Ad 4c").as_slice());
        assert_eq!(&got[3..8], cards("8c 3d 2c Tc Jc").as_slice());
        assert_eq!(&got[8..], cards("Kh Qh 7h 9h Td").as_slice());
        // Nothing pairs the top: no chase.
        let none = pair_the_top(&b, fill, &cards("9h 2c 5s"), &[2, 1, 3], &cards("Td Tc Jc"));
        assert!(none.is_none());
    }

    #[test]
    fn a_policy_values_a_board_against_each_opponent_plus_its_fantasyland() {
        // QQ top (7), straight middle (4), flush bottom (4), two opponents, a
        // 14-card Fantasyland worth 10: 2 x (15 + 2 x strength) + 10; fouled: -2 x 6.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let mut values = vec![0.0; 32];
        values[14] = 10.0;
        let p = Policy::new(&values, 2);
        let live: [u8; 13] = [
            cards("Qs Qd 2c"),
            cards("5h 6d 7c 8s 9h"),
            cards("2h 7h Th Jh Ah"),
        ]
        .concat()
        .try_into()
        .unwrap();
        let e = evaluate(t, &r, &live);
        let strength = 2.0 * (e.middle as f64 + e.bottom as f64) / 7462.0;
        assert_eq!(p.value(&r, &e), 2.0 * (15.0 + strength) + 10.0);
        assert_eq!(
            p.value_classes(t, &r, e.top, e.middle, e.bottom),
            p.value(&r, &e)
        );
        let fouled: [u8; 13] = [
            cards("Ac Kd 3s"),
            cards("4c 4d 4h Js Ks"),
            cards("5c 5d 6c 8d 9c"),
        ]
        .concat()
        .try_into()
        .unwrap();
        assert_eq!(p.value(&r, &evaluate(t, &r, &fouled)), -12.0);
    }

    #[test]
    fn looking_ahead_one_street_plays_that_street_exactly() {
        // Fourth street, one street to come: each imagination is that street's three cards,
        // and the imagined last street is played exactly (nothing left to imagine).  So a
        // candidate is worth the best of the last street's placements of the imagined cards,
        // summed over the imaginations: checked against a brute force over both streets.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let mut values = vec![0.0; 32];
        values[14] = 10.0;
        values[15] = 20.0;
        let mut p = Policy::new(&values, 2);
        p.ahead = 1;
        let c = Candidates::get(3, 1);
        for seed in 0..60u64 {
            let mut s = Stream::new(&[seed, 5]);
            let mut deck: Vec<u8> = (0..52).collect();
            s.choose_first(&mut deck, 20);
            let mut b = [EMPTY; 13];
            let mut fill = [0u8; 3];
            // Nine cards placed (two top, four middle, three bottom), three dealt.
            apply(&mut b, &mut fill, &deck[..5], &[0, 1, 1, 2, 2]);
            apply(&mut b, &mut fill, &deck[5..9], &[0, 1, 1, 2]);
            let dealt = &deck[9..12];
            let future = [(3usize, 2usize)];
            let mut street = Street {
                dealt,
                cands: c,
                dreams: [Imagined::NONE; MAX_DREAMS],
                count: 2,
                future: &future,
                known: card_set(deck[..12].iter().copied()),
                deck: 52,
                key: None,
            };
            for (d, cards) in street.dreams.iter_mut().zip([&deck[12..15], &deck[15..18]]) {
                d.cards[..3].copy_from_slice(cards);
                d.len = 3;
            }
            let got = choose_ahead(t, &r, &p, &b, fill, &street);
            let mut want = (0, f64::NEG_INFINITY);
            for i in (0..c.len()).filter(|&i| c.fits(i, fill)) {
                let (mut after, mut f) = (b, fill);
                apply(&mut after, &mut f, dealt, c.dest(i));
                let mut sum = 0.0;
                for d in street.dreams() {
                    let best = (0..c.len())
                        .filter(|&j| c.fits(j, f))
                        .map(|j| {
                            let board = dream(&after, f, d.cards(), c.dest(j), &[]);
                            p.value(&r, &evaluate(t, &r, &board))
                        })
                        .fold(f64::NEG_INFINITY, f64::max);
                    sum += best;
                }
                if sum > want.1 {
                    want = (i, sum);
                }
            }
            assert_eq!(got, want.0, "seed {seed}");
        }
    }

    #[test]
    fn the_last_street_never_fouls_when_a_live_board_is_left() {
        // Random last streets: a live board is worth at least 0 and a foul less, so the
        // policy (any Fantasyland values >= 0) ends live whenever some candidate does.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let p = Policy::new(
            &[
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 15.0,
            ],
            2,
        );
        for seed in 0..300u64 {
            let mut s = Stream::new(&[seed, 77]);
            let mut deck: Vec<u8> = (0..52).collect();
            s.choose_first(&mut deck, 14);
            let mut b = [EMPTY; 13];
            let mut fill = [0u8; 3];
            // Eleven cards placed (two top, four middle, five bottom), three dealt.
            apply(&mut b, &mut fill, &deck[..5], &[2, 2, 1, 1, 0]);
            apply(&mut b, &mut fill, &deck[5..11], &[0, 2, 1, 1, 2, 2]);
            let dealt = &deck[11..14];
            let c = Candidates::get(3, 1);
            let (i, e) = choose(t, &r, &p, &b, fill, dealt, c, &[]);
            let any_live = (0..c.len())
                .filter(|&k| c.fits(k, fill))
                .any(|k| !evaluate(t, &r, &dream(&b, fill, dealt, c.dest(k), &[])).fouled);
            assert_eq!(e.unwrap().fouled, !any_live, "seed {seed} candidate {i}");
        }
    }
}
