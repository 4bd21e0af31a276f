//! A board value learned from self-play: the continuation policy's alternative to
//! imagined completions (issue 26).
//!
//! [`features`] describes an *afterstate* (the board just after a street's placement,
//! with the cards the seat has seen) by what a player looks at: each row's made hand
//! (a pair's rank, trips, two pair, ...) with its open slots, live flush and straight
//! draws and the flush outs still unseen, a top card Q+ and how many of its rank are
//! live (the Fantasyland chase), how the top compares with the middle and the middle
//! with the bottom (the foul risk, as crossed codes), and for finished rows their
//! royalties and strength.  Every feature but five numbers is one-hot.
//!
//! The model is linear, one weight vector per afterstate (cards placed) and target,
//! fitted by ridge regression (normal equations, Cholesky): it trains in seconds and,
//! summed in a fixed order, gives the same weights bit for bit on any thread count.
//! The targets are the seat's net points a opponent and whether its board enters a
//! Fantasyland of 13..17 cards, so one model serves any table size and any
//! Fantasyland values: `V = opponents x net + sum_n value(n) x P(entry n)`.
//!
//! [`train`] is approximate policy iteration: a table of seats plays simulated hands
//! street by street (round 0 by the imagination policy of [`crate::policy`], later
//! rounds by the argmax of the last fitted `V`, one street a seat-hand sometimes
//! explored among the best few plays, only the afterstates from there on recorded),
//! and each round refits on its own hands.  Every hand's deck and exploration come
//! from a stream keyed by (seed, round, hand).  The targets are the hand's outcome
//! (Monte Carlo) or, with [`TrainConfig::target_deals`], bootstrapped from the last fit
//! by a search a street ahead (fitted value iteration, mixed with the outcome by a
//! lambda-return): measured worse on the replay (docs/policy.md), kept as an option.

use std::sync::Arc;

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::board::{evaluate, BoardEval};
use crate::candidates::{apply, fill_of, Candidates};
use crate::cards::{is_joker, rank, suit, BOARD, DISCARD, EMPTY, ROW_SIZES, ROW_START};
use crate::eval::{Tables, CLASSES3, CLASSES5};
use crate::policy::{card_set, choose, imagine_spares, placed, CardSet, Imagined, Policy};
use crate::rng::Stream;
use crate::rules::Rules;
use crate::search::{next_deals, Search};

/// The feature layout's version: weights of another layout are refused.
pub const VERSION: u64 = 1;
/// Targets: net points a opponent, then entry into a Fantasyland of 13..17 cards.
pub const TARGETS: usize = 6;
const FIRST_FANTASY: usize = 13;

// The feature layout (one-hot blocks, then the numbers, then the bias).
const TOP: usize = 0; // top code (40) x open slots (4)
const MIDDLE: usize = TOP + 40 * 4; // row code (25) x open slots (6)
const BOTTOM: usize = MIDDLE + 25 * 6;
const FLUSH: usize = BOTTOM + 25 * 6; // row (2) x open slots 1..5 (5) x outs bucket (4)
const STRAIGHT: usize = FLUSH + 2 * 5 * 4; // row (2) x open slots 1..5 (5)
const TOP_MIDDLE: usize = STRAIGHT + 2 * 5; // coarse top (11) x coarse middle (11) x slots (3)
const MIDDLE_BOTTOM: usize = TOP_MIDDLE + 11 * 11 * 3; // coarse middle x coarse bottom x slots (3)
const AHEAD: usize = MIDDLE_BOTTOM + 11 * 11 * 3; // top ahead of middle (6), middle of bottom (6)
const TOP_LIVE: usize = AHEAD + 12; // top's high card Q/K/A (3) x live of its rank (4) x slots (2)
const NUMBERS: usize = TOP_LIVE + 24; // royalties, top/middle/bottom strength, foul
const BIAS: usize = NUMBERS + 5;
/// Features of an afterstate.
pub const DIM: usize = BIAS + 1;
/// Most non-zero features of one afterstate.
pub const MAX_ACTIVE: usize = 24;

/// What a player reads off one row, finished or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowInfo {
    pub cards: u8,
    pub slots: u8,
    /// Poker category made so far (0 high card .. 8 straight flush; a straight or a
    /// flush only on a full five-card row).
    pub kind: u8,
    /// The rank that decides it: of the biggest group, or the highest card.
    pub main: u8,
    /// A five-card row whose cards share one suit, with room left.
    pub flush_live: bool,
    /// A five-card row of distinct ranks that fit in one straight, with room left.
    pub straight_live: bool,
    pub suit: u8,
}

/// The row of `cards` (real cards) in a row of `size` slots.
pub fn row_info(cards: &[u8], size: usize) -> RowInfo {
    let mut counts = [0u8; 13];
    let mut mask = 0u16;
    let mut twice = 0u16; // ranks held at least twice
    for &c in cards {
        counts[rank(c) as usize] += 1;
        twice |= mask & 1 << rank(c);
        mask |= 1 << rank(c);
    }
    let n = cards.len();
    let mut info = RowInfo {
        cards: n as u8,
        slots: (size - n) as u8,
        ..RowInfo::default()
    };
    if n == 0 {
        return info;
    }
    // The biggest group, the higher rank on ties (the ranks present are the cards').
    let mut best = 0u8;
    let mut group = 0u8;
    for &c in cards {
        let (r, k) = (rank(c), counts[rank(c) as usize]);
        if (k, r) > (group, best) {
            (best, group) = (r, k);
        }
    }
    let pairs = twice.count_ones();
    let suited = cards.iter().all(|&c| suit(c) == suit(cards[0]));
    let distinct = pairs == 0;
    // Some window of five ranks (2-6 .. T-A, or the ace low: A 2 3 4 5) holds every
    // rank: the highest rank at most 4 above the lowest (a window starting at most at
    // the ten), or only A 2 3 4 5.
    let (low, high) = (mask.trailing_zeros(), 15 - mask.leading_zeros());
    let straight_window = distinct && (high - low.min(8) <= 4 || mask & !(1 << 12 | 0xf) == 0);
    info.main = best;
    info.kind = match (group, pairs) {
        (4, _) => 7,
        (3, p) if p >= 2 => 6,
        (3, _) => 3,
        (2, p) if p >= 2 => 2,
        (2, _) => 1,
        _ => 0,
    };
    if size == 5 && n == 5 && distinct {
        let straight = straight_window;
        info.kind = match (straight, suited) {
            (true, true) => 8,
            (false, true) => 5,
            (true, false) => 4,
            _ => 0,
        };
        if straight && mask == 0b1_0000_0000_1111 {
            info.main = 3; // the wheel's five
        }
    }
    if size == 5 && n < 5 {
        info.flush_live = suited;
        info.straight_live = straight_window;
    }
    info.suit = suit(cards[0]);
    info
}

/// The top's code: empty 0, high card 1 + rank, pair 14 + rank, trips 27 + rank.
fn top_code(r: &RowInfo) -> usize {
    if r.cards == 0 {
        0
    } else {
        let kind = match r.kind {
            0 => 0,
            1 => 1,
            _ => 2,
        };
        1 + 13 * kind + r.main as usize
    }
}

/// A five-card row's code: empty 0, high card 1..4 by its top rank (9-, T-J, Q-K, A),
/// pair 5 + rank, two pair 18, trips 19, straight 20 .. straight flush 24.
fn row_code(r: &RowInfo) -> usize {
    if r.cards == 0 {
        return 0;
    }
    match r.kind {
        0 => 1 + [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3][r.main as usize],
        1 => 5 + r.main as usize,
        k => 16 + k as usize,
    }
}

/// Coarse codes for the crossed foul-risk features (11 each).
fn coarse_pair(main: u8) -> usize {
    match main {
        0..=3 => 0,
        4..=7 => 1,
        8..=9 => 2,
        10 => 3,
        11 => 4,
        _ => 5,
    }
}

fn coarse_top(r: &RowInfo) -> usize {
    match (r.cards, r.kind) {
        (0, _) => 0,
        (_, 0) => match r.main {
            0..=7 => 1,
            8..=11 => 2,
            _ => 3,
        },
        (_, 1) => 4 + coarse_pair(r.main),
        _ => 10,
    }
}

fn coarse_row(r: &RowInfo) -> usize {
    match (r.cards, r.kind) {
        (0, _) => 0,
        (_, 0) => 1,
        (_, 1) => 2 + coarse_pair(r.main),
        (_, 2) => 8,
        (_, 3) => 9,
        _ => 10,
    }
}

fn slot_bucket(slots: u8) -> usize {
    match slots {
        0 => 0,
        1..=2 => 1,
        _ => 2,
    }
}

/// Strength on one scale for rows of either size: category, then its rank.
fn made(r: &RowInfo) -> i32 {
    if r.cards == 0 {
        -1
    } else {
        r.kind as i32 * 16 + r.main as i32
    }
}

/// The non-zero features of an afterstate: (index, value) pairs.
#[derive(Debug, Clone, Copy)]
pub struct Features {
    pub index: [u16; MAX_ACTIVE],
    pub value: [f32; MAX_ACTIVE],
    pub len: usize,
}

/// Where an afterstate's features go as they are read, in layout order.
trait FeatureSink {
    fn push(&mut self, i: usize, v: f32);
}

impl FeatureSink for Features {
    #[inline]
    fn push(&mut self, i: usize, v: f32) {
        debug_assert!(i < DIM && self.len < MAX_ACTIVE);
        self.index[self.len] = i as u16;
        self.value[self.len] = v;
        self.len += 1;
    }
}

impl Features {
    /// `w . features`, summed in feature order from -0.0 (as `Iterator::sum` does).
    #[inline]
    pub fn dot(&self, w: &[f64]) -> f64 {
        (0..self.len).fold(-0.0, |sum, k| {
            sum + w[self.index[k] as usize] * self.value[k] as f64
        })
    }
}

/// The features summed into `w . features` as they are read, without the list: the
/// same products added in the same order as [`Features::dot`], so the same bits.
struct Dot<'w> {
    w: &'w [f64],
    sum: f64,
}

impl FeatureSink for Dot<'_> {
    #[inline(always)]
    fn push(&mut self, i: usize, v: f32) {
        self.sum += self.w[i] * v as f64;
    }
}

/// Marks a feature a row does not have.
const NO_FEATURE: u16 = u16::MAX;

/// One row of an afterstate as the features read it: what a player sees in it, the
/// features of the row alone, and once it is full its class.  A street's candidates
/// share most of their rows, so [`Scorer::values`] reads each distinct row once.
#[derive(Debug, Clone, Copy)]
struct RowRead {
    info: RowInfo,
    class: Option<u16>,
    /// The row's code feature (TOP, MIDDLE or BOTTOM block).
    code: u16,
    /// A five-card row's live flush and straight draws; the top's chase of its high
    /// card ([`NO_FEATURE`]: none).
    flush: u16,
    straight: u16,
    top_live: u16,
    /// Its coarse code for the crossed foul-risk features, and its strength.
    coarse: u8,
    made: i32,
}

impl Default for RowRead {
    fn default() -> RowRead {
        RowRead {
            info: RowInfo::default(),
            class: None,
            code: NO_FEATURE,
            flush: NO_FEATURE,
            straight: NO_FEATURE,
            top_live: NO_FEATURE,
            coarse: 0,
            made: -1,
        }
    }
}

/// The reading of row `r` (0 top, 1 middle, 2 bottom) holding `cards` (real cards)
/// for a seat that has seen `known`.
#[inline]
fn read_row(t: &Tables, r: usize, cards: &[u8], known: CardSet) -> RowRead {
    let info = row_info(cards, ROW_SIZES[r]);
    let class = (info.slots == 0).then(|| {
        if r == 0 {
            t.class3(&cards[..3])
        } else {
            t.class5(&cards[..5])
        }
    });
    let mut out = RowRead {
        info,
        class,
        made: made(&info),
        ..RowRead::default()
    };
    let slots = info.slots as usize;
    if r == 0 {
        out.code = (TOP + top_code(&info) * 4 + slots) as u16;
        out.coarse = coarse_top(&info) as u8;
        if info.kind == 0 && info.cards > 0 && info.slots > 0 && info.main >= 10 {
            // Cards of the top's rank the seat has not seen, at most 3.
            let live = (4 - (known >> (info.main * 4) & 0xf).count_ones() as usize).min(3);
            let i = ((info.main as usize - 10) * 4 + live) * 2 + slots - 1;
            out.top_live = (TOP_LIVE + i) as u16;
        }
        return out;
    }
    let (block, k) = if r == 1 { (MIDDLE, 0) } else { (BOTTOM, 1) };
    out.code = (block + row_code(&info) * 6 + slots) as u16;
    out.coarse = coarse_row(&info) as u8;
    if info.flush_live && info.cards > 0 {
        let outs = 13 - seen_of_suit(known, info.suit);
        let bucket = match outs {
            0..=3 => 0,
            4..=6 => 1,
            7..=9 => 2,
            _ => 3,
        };
        out.flush = (FLUSH + (k * 5 + slots - 1) * 4 + bucket) as u16;
    }
    if info.straight_live && info.cards > 0 {
        out.straight = (STRAIGHT + k * 5 + slots - 1) as u16;
    }
    out
}

/// Cards of a suit the seat has seen: bit `rank * 4 + suit` of `known` for each rank.
#[inline]
fn seen_of_suit(known: CardSet, suit: u8) -> u32 {
    const CLUBS: CardSet = 0x0001_1111_1111_1111; // bit 4 x rank for ranks 0..12
    (known & CLUBS << suit).count_ones()
}

/// The features of `board` (real cards, rows filled left to right) for a seat that
/// has seen `known` (its board included).
pub fn features(t: &Tables, rules: &Rules, board: &[i8; BOARD], known: CardSet) -> Features {
    let mut rows = [RowRead::default(); 3];
    for (r, read) in rows.iter_mut().enumerate() {
        let row = &board[ROW_START[r]..ROW_START[r] + ROW_SIZES[r]];
        let mut cards = [0u8; 5];
        let n = row.iter().filter(|&&c| c != EMPTY).count();
        for (cell, &c) in cards.iter_mut().zip(&row[..n]) {
            *cell = c as u8;
        }
        *read = read_row(t, r, &cards[..n], known);
    }
    let mut f = Features {
        index: [0; MAX_ACTIVE],
        value: [0.0; MAX_ACTIVE],
        len: 0,
    };
    features_of_rows(t, rules, &rows, &mut f);
    f
}

/// The features of an afterstate whose rows read `rows` (see [`features`]), into `f`
/// in layout order.  Always inlined: the dot product's sum then stays in a register.
#[inline(always)]
fn features_of_rows(t: &Tables, rules: &Rules, rows: &[RowRead; 3], f: &mut impl FeatureSink) {
    let [top, middle, bottom] = rows;
    f.push(top.code as usize, 1.0);
    f.push(middle.code as usize, 1.0);
    f.push(bottom.code as usize, 1.0);
    for r in [middle, bottom] {
        if r.flush != NO_FEATURE {
            f.push(r.flush as usize, 1.0);
        }
        if r.straight != NO_FEATURE {
            f.push(r.straight as usize, 1.0);
        }
    }
    let (ms, bs) = (middle.info.slots, bottom.info.slots);
    let (ct, cm, cb) = (
        top.coarse as usize,
        middle.coarse as usize,
        bottom.coarse as usize,
    );
    f.push(TOP_MIDDLE + (ct * 11 + cm) * 3 + slot_bucket(ms), 1.0);
    f.push(MIDDLE_BOTTOM + (cm * 11 + cb) * 3 + slot_bucket(bs), 1.0);
    // A top (as a 3-card hand: high, pair, trips) already above the middle so far.
    if top.info.cards > 0 && top.made > middle.made {
        f.push(AHEAD + ms as usize, 1.0);
    }
    if middle.info.cards > 0 && middle.made > bottom.made {
        f.push(AHEAD + 6 + bs as usize, 1.0);
    }
    if top.top_live != NO_FEATURE {
        f.push(top.top_live as usize, 1.0);
    }
    // Finished rows: their royalties and strength; a foul already certain.
    let [ct, cm, cb] = rows.map(|r| r.class);
    let fouled = matches!((ct, cm), (Some(a), Some(b)) if t.top_fouls(a, b))
        || matches!((cm, cb), (Some(a), Some(b)) if a > b);
    if fouled {
        f.push(NUMBERS + 4, 1.0);
    } else {
        let royalties = ct.map_or(0, |c| rules.royalty_top[c as usize] as i32)
            + cm.map_or(0, |c| rules.royalty_middle[c as usize] as i32)
            + cb.map_or(0, |c| rules.royalty_bottom[c as usize] as i32);
        if royalties != 0 {
            f.push(NUMBERS, royalties as f32);
        }
        if let Some(c) = ct {
            f.push(NUMBERS + 1, c as f32 / CLASSES3 as f32);
        }
        if let Some(c) = cm {
            f.push(NUMBERS + 2, c as f32 / CLASSES5 as f32);
        }
        if let Some(c) = cb {
            f.push(NUMBERS + 3, c as f32 / CLASSES5 as f32);
        }
    }
    f.push(BIAS, 1.0);
}

/// The fitted weights: one model per afterstate (cards placed), [`TARGETS`] x [`DIM`] each.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueFn {
    /// Cards placed on the board after each modelled street, ascending.
    pub placed: Vec<u8>,
    /// Model k's target j's weight of feature i at `k][j * DIM + i`.
    pub weights: Vec<Vec<f64>>,
    /// How it was trained (recorded in the file).
    pub meta: Value,
}

impl ValueFn {
    /// The weights as JSON text, rounded to 6 decimals (the file in the repository).
    pub fn to_json(&self) -> String {
        let models: Vec<Value> = self
            .placed
            .iter()
            .zip(&self.weights)
            .map(|(&p, w)| {
                let targets: Vec<Value> = w
                    .chunks(DIM)
                    .map(|t| {
                        Value::Array(
                            t.iter()
                                .map(|&x| {
                                    let r = (x * 1e6).round() / 1e6;
                                    if r == 0.0 {
                                        json!(0)
                                    } else {
                                        json!(r)
                                    }
                                })
                                .collect(),
                        )
                    })
                    .collect();
                json!({"placed": p, "targets": targets})
            })
            .collect();
        let doc = json!({
            "version": VERSION,
            "features": DIM,
            "targets": ["net a opponent", "entry 13", "entry 14", "entry 15", "entry 16", "entry 17"],
            "training": self.meta,
            "models": models,
        });
        serde_json::to_string(&doc).unwrap_or_default() + "\n"
    }

    /// Weights from [`ValueFn::to_json`]'s text; another layout is refused.
    pub fn from_json(text: &str) -> Result<ValueFn, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("value weights: {e}"))?;
        let bad = |what: &str| format!("value weights: {what}");
        if doc["version"].as_u64() != Some(VERSION) || doc["features"].as_u64() != Some(DIM as u64)
        {
            return Err(bad("another feature layout (version or size)"));
        }
        let models = doc["models"].as_array().ok_or_else(|| bad("no models"))?;
        let mut out = ValueFn {
            placed: Vec::new(),
            weights: Vec::new(),
            meta: doc["training"].clone(),
        };
        for m in models {
            let p = m["placed"]
                .as_u64()
                .filter(|&p| p as usize <= BOARD)
                .ok_or_else(|| bad("a model without its cards placed"))?;
            let targets = m["targets"].as_array().ok_or_else(|| bad("no targets"))?;
            if targets.len() != TARGETS {
                return Err(bad("a model without every target"));
            }
            let mut w = Vec::with_capacity(TARGETS * DIM);
            for t in targets {
                let row = t.as_array().filter(|r| r.len() == DIM);
                let row = row.ok_or_else(|| bad("a target of the wrong size"))?;
                for x in row {
                    w.push(
                        x.as_f64()
                            .ok_or_else(|| bad("a weight that is not a number"))?,
                    );
                }
            }
            out.placed.push(p as u8);
            out.weights.push(w);
        }
        Ok(out)
    }

    /// The value of afterstates at a table of `opponents` + 1 seats whose
    /// Fantasylands are worth `fantasy[n]` (n cards).
    pub fn scorer(&self, fantasy: &[f64], opponents: usize) -> Scorer {
        let mut worth = [0.0; 32];
        for (slot, &v) in worth.iter_mut().zip(fantasy).skip(1) {
            *slot = v;
        }
        let opponents = opponents.max(1) as f64;
        let mut by_placed: [Option<u8>; BOARD + 1] = [None; BOARD + 1];
        let mut combined = Vec::new();
        for (k, &p) in self.placed.iter().enumerate() {
            let w = &self.weights[k];
            let mut c: Vec<f64> = w[..DIM].iter().map(|x| opponents * x).collect();
            // A finished board's Fantasyland is known: only its net is estimated.
            if (p as usize) < BOARD {
                for j in 1..TARGETS {
                    let value = worth[FIRST_FANTASY + j - 1];
                    for (ci, wi) in c.iter_mut().zip(&w[j * DIM..(j + 1) * DIM]) {
                        *ci += value * wi;
                    }
                }
            }
            by_placed[p as usize] = Some(combined.len() as u8);
            combined.push(c);
        }
        Scorer {
            by_placed,
            combined,
            fantasy: worth,
            search: Search::NONE,
            by_position: false,
            next: [None; BOARD + 1],
        }
    }
}

/// A [`ValueFn`] combined for one table: what the policy plays by.
#[derive(Debug, Clone)]
pub struct Scorer {
    by_placed: [Option<u8>; BOARD + 1],
    combined: Vec<Vec<f64>>,
    fantasy: [f64; 32],
    /// How plays are searched a street ahead ([`Search::NONE`]: the greedy afterstate
    /// value alone).
    search: Search,
    /// The search's deals are keyed by the position itself (the first look-ahead,
    /// [`Scorer::looking_ahead`]), not by the key the caller passes.
    by_position: bool,
    /// The street after an afterstate of n cards placed: (cards dealt, cards kept).
    next: [Option<(u8, u8)>; BOARD + 1],
}

/// Plays (best by value) a look-ahead compares.
pub const LOOK_AMONG: usize = 8;

impl Scorer {
    /// This scorer looking `deals` sampled deals of the next street ahead among the best
    /// [`LOOK_AMONG`] plays on every street: a play is worth the mean over them of the
    /// best next afterstate's value (the streets are (cards dealt, cards kept) of each
    /// street); the deals are keyed by the position.
    pub fn looking_ahead(&self, streets: &[(usize, usize)], deals: usize) -> Scorer {
        let search = Search {
            deals,
            among: LOOK_AMONG,
            until: BOARD,
            from: 0,
        };
        let mut s = self.searching(streets, search);
        s.by_position = true;
        s
    }

    /// This scorer searching a street ahead as `search` says, with deals keyed by the
    /// key each [`Scorer::choose_keyed`] is given (no key: no search).
    pub fn searching(&self, streets: &[(usize, usize)], search: Search) -> Scorer {
        let mut s = self.clone();
        s.search = search;
        s.by_position = false;
        s.next = [None; BOARD + 1];
        let mut total = 0;
        for w in streets.windows(2) {
            total += w[0].1;
            if total <= BOARD && w[1].0 <= 5 && w[1].1 <= w[1].0 {
                s.next[total] = Some((w[1].0 as u8, w[1].1 as u8));
            }
        }
        s
    }

    /// How this scorer searches.
    pub fn search(&self) -> Search {
        self.search
    }

    /// Whether it searches only where the caller gives a key.
    pub fn keyed(&self) -> bool {
        self.search.deals > 0 && !self.by_position
    }

    /// Whether every street ending with these cards placed has a model.
    pub fn covers(&self, placed: usize) -> bool {
        self.by_placed.get(placed).is_some_and(|m| m.is_some())
    }

    /// The value of the afterstate `board` with `placed` cards (a model must cover it).
    pub fn value(&self, t: &Tables, rules: &Rules, board: &[i8; BOARD], known: CardSet) -> f64 {
        let n = placed(board);
        let Some(Some(m)) = self.by_placed.get(n) else {
            return f64::NEG_INFINITY;
        };
        let v = features(t, rules, board, known).dot(&self.combined[*m as usize]);
        if n == BOARD {
            let e = evaluate(t, rules, &board.map(|c| c as u8));
            let entry = (e.entry_cards(rules).max(0) as usize).min(31);
            v + self.fantasy[entry]
        } else {
            v
        }
    }

    /// Each legal candidate's afterstate value, `(candidate, value)` in candidate order.
    #[allow(clippy::too_many_arguments)]
    pub fn values(
        &self,
        t: &Tables,
        rules: &Rules,
        board: &[i8; BOARD],
        fill: [u8; 3],
        dealt: &[u8],
        cands: &Candidates,
        known: CardSet,
        mut each: impl FnMut(usize, f64),
    ) {
        let known = known | card_set(dealt.iter().copied());
        let jokers = board.iter().any(|&c| c >= 0 && is_joker(c as u8))
            || dealt.iter().any(|&c| is_joker(c));
        if cands.is_empty() || jokers || dealt.len() > 5 {
            for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
                let (mut after, mut f) = (*board, fill);
                apply(&mut after, &mut f, dealt, cands.dest(i));
                each(i, self.value(t, rules, &after, known));
            }
            return;
        }
        // Every candidate leaves the same number of cards placed: one model for all.
        let kept = dealt.len() - cands.dest(0).iter().filter(|&&d| d == DISCARD).count();
        let n = placed(board) + kept;
        let Some(Some(m)) = self.by_placed.get(n) else {
            for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
                each(i, f64::NEG_INFINITY);
            }
            return;
        };
        let weights = &self.combined[*m as usize];
        if dealt.len() <= 3 {
            let finished = n == BOARD;
            self.values_by_rows::<8>(
                t, rules, board, fill, dealt, cands, known, weights, finished, each,
            );
        } else {
            let finished = n == BOARD;
            self.values_by_rows::<32>(
                t, rules, board, fill, dealt, cands, known, weights, finished, each,
            );
        }
    }

    /// [`Scorer::values`] of a street without jokers whose afterstates the model
    /// `weights` covers (`finished`: they are whole boards); `MASKS` is 2 to the
    /// cards dealt, or more.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn values_by_rows<const MASKS: usize>(
        &self,
        t: &Tables,
        rules: &Rules,
        board: &[i8; BOARD],
        fill: [u8; 3],
        dealt: &[u8],
        cands: &Candidates,
        known: CardSet,
        weights: &[f64],
        finished: bool,
        mut each: impl FnMut(usize, f64),
    ) {
        // A row is its board cards and the dealt cards a candidate sends there (a mask
        // of the deal): each distinct row is read once, when a candidate first needs it.
        let mut base = [[0u8; 5]; 3];
        for r in 0..3 {
            for (cell, &c) in base[r].iter_mut().zip(&board[ROW_START[r]..]) {
                *cell = c as u8;
            }
        }
        let mut reads = [[RowRead::default(); MASKS]; 3];
        let mut read = [0u32; 3];
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let mut masks = [0usize; 4];
            for (j, &d) in cands.dest(i).iter().enumerate() {
                masks[d as usize] |= 1 << j;
            }
            for r in 0..3 {
                let mask = masks[r];
                if read[r] >> mask & 1 == 0 {
                    let mut cards = base[r];
                    let mut k = fill[r] as usize;
                    for (j, &c) in dealt.iter().enumerate() {
                        if mask >> j & 1 == 1 {
                            cards[k] = c;
                            k += 1;
                        }
                    }
                    reads[r][mask] = read_row(t, r, &cards[..k], known);
                    read[r] |= 1 << mask;
                }
            }
            let rows = [reads[0][masks[0]], reads[1][masks[1]], reads[2][masks[2]]];
            let mut dot = Dot {
                w: weights,
                sum: -0.0,
            };
            features_of_rows(t, rules, &rows, &mut dot);
            let v = dot.sum;
            let v = if finished {
                // As [`Scorer::value`]: the finished board's Fantasyland is known.
                let [top, middle, bottom] = rows.map(|r| r.class.unwrap_or(0));
                let e = BoardEval::from_classes(t, rules, top, middle, bottom, None);
                v + self.fantasy[(e.entry_cards(rules).max(0) as usize).min(31)]
            } else {
                v
            };
            each(i, v);
        }
    }

    /// The candidate of highest value (the first of equal ones), and the finished
    /// board's evaluation on the last street; None where no model covers the street
    /// or a joker is in play (the imagination policy plays those).
    #[allow(clippy::too_many_arguments)]
    pub fn choose(
        &self,
        t: &Tables,
        rules: &Rules,
        board: &[i8; BOARD],
        fill: [u8; 3],
        dealt: &[u8],
        cands: &Candidates,
        known: CardSet,
    ) -> Option<(usize, Option<BoardEval>)> {
        self.choose_keyed(t, rules, board, fill, dealt, cands, known, None)
    }

    /// [`Scorer::choose`], searching a street ahead where the scorer's [`Search`]
    /// applies, with deals drawn from a stream keyed by `key` (a keyed search without a
    /// key plays greedily).
    #[allow(clippy::too_many_arguments)]
    pub fn choose_keyed(
        &self,
        t: &Tables,
        rules: &Rules,
        board: &[i8; BOARD],
        fill: [u8; 3],
        dealt: &[u8],
        cands: &Candidates,
        known: CardSet,
        key: Option<u64>,
    ) -> Option<(usize, Option<BoardEval>)> {
        if cands.is_empty() {
            return None;
        }
        let kept = dealt.len() - cands.dest(0).iter().filter(|&&d| d == DISCARD).count();
        let after = placed(board) + kept;
        let jokers = board.iter().any(|&c| c >= 0 && is_joker(c as u8))
            || dealt.iter().any(|&c| is_joker(c));
        if jokers || !self.covers(after) {
            return None;
        }
        let searched = self.search.applies(after) && (self.by_position || key.is_some());
        let next = self.next.get(after).copied().flatten();
        let next = next.filter(|_| searched && after < BOARD);
        let mut best = (usize::MAX, f64::NEG_INFINITY);
        let mut ranked = Vec::new();
        self.values(t, rules, board, fill, dealt, cands, known, |i, v| {
            if best.0 == usize::MAX || v > best.1 {
                best = (i, v);
            }
            if next.is_some() {
                ranked.push((i, v));
            }
        });
        if best.0 == usize::MAX {
            return None;
        }
        if let Some((count, keep)) = next {
            best.0 = self.look_ahead(
                t, rules, board, fill, dealt, cands, known, ranked, count, keep, key,
            );
        }
        let e = (after == BOARD).then(|| {
            let (mut b, mut f) = (*board, fill);
            apply(&mut b, &mut f, dealt, cands.dest(best.0));
            evaluate(t, rules, &b.map(|c| c as u8))
        });
        Some((best.0, e))
    }
}

impl Scorer {
    /// The play among `ranked` (candidate, value) whose afterstate is worth most a
    /// street later: the mean over deals of `count` cards (`keep` kept) of the best
    /// next afterstate ([`next_deals`]: every deal once where the search's deals
    /// cover them all).  The deals are drawn from the cards the seat has not seen,
    /// keyed by `key` (or by the position for [`Scorer::looking_ahead`]), and shared by
    /// every play compared; the first of equal plays (best afterstate value first) wins.
    #[allow(clippy::too_many_arguments)]
    fn look_ahead(
        &self,
        t: &Tables,
        rules: &Rules,
        board: &[i8; BOARD],
        fill: [u8; 3],
        dealt: &[u8],
        cands: &Candidates,
        known: CardSet,
        mut ranked: Vec<(usize, f64)>,
        count: u8,
        keep: u8,
        key: Option<u64>,
    ) -> usize {
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if self.search.among > 0 {
            ranked.truncate(self.search.among);
        }
        let known = known | card_set(dealt.iter().copied());
        let mut stream = match key.filter(|_| !self.by_position) {
            Some(k) => Stream::new(&[k, SEARCH_STREAM]),
            None => {
                let layout = board
                    .iter()
                    .fold(0u64, |h, &c| crate::rng::mix(h ^ (c as u8 as u64)));
                Stream::new(&[known, layout, 7])
            }
        };
        let unseen: Vec<u8> = (0..52u8).filter(|&c| known >> c & 1 == 0).collect();
        let count = (count as usize).min(unseen.len());
        let next = Candidates::get(count, count - (keep as usize).min(count));
        let deals = next_deals(&unseen, count, self.search.deals, &mut stream);
        let mut best = (ranked[0].0, f64::NEG_INFINITY);
        for &(i, _) in &ranked {
            let (mut after, mut f) = (*board, fill);
            apply(&mut after, &mut f, dealt, cands.dest(i));
            let v = self.searched_value(t, rules, &after, f, known, &deals, next);
            if v > best.1 {
                best = (i, v);
            }
        }
        best.0
    }

    /// The value a search gives the afterstate `after` (fill `fill`): the mean over
    /// `deals` of the next street (`next` its candidates) of the best next afterstate's
    /// value; what [`Scorer::choose_keyed`] compares, for tests and studies.
    #[allow(clippy::too_many_arguments)]
    pub fn searched_value(
        &self,
        t: &Tables,
        rules: &Rules,
        after: &[i8; BOARD],
        fill: [u8; 3],
        known: CardSet,
        deals: &[Vec<u8>],
        next: &Candidates,
    ) -> f64 {
        let mut sum = 0.0;
        for deal in deals {
            let mut top = f64::NEG_INFINITY;
            self.values(t, rules, after, fill, deal, next, known, |_, v| {
                top = top.max(v)
            });
            sum += top;
        }
        sum / deals.len().max(1) as f64
    }
}

/// The tail of a search's stream key (apart from the imaginations' streams).
const SEARCH_STREAM: u64 = 0x5EA4C4;

/// How [`train`] plays and fits.
#[derive(Debug, Clone)]
pub struct TrainConfig {
    pub seed: u64,
    /// Seats at the simulated table (2 or 3 in Pineapple).
    pub seats: usize,
    /// Hands of round 0 (the imagination policy) and of each later round.
    pub first_hands: usize,
    pub hands: usize,
    /// Rounds after round 0: fit, play by the fit, fit again.
    pub rounds: usize,
    /// Share of seat-hands that explore one street among the best [`EXPLORE_AMONG`] plays.
    pub explore: f64,
    /// Ridge penalty added to the normal equations' diagonal.
    pub ridge: f64,
    /// Fit each round on every round's hands so far (else on its own hands only):
    /// steadier than chasing the last fit's errors.
    pub keep: bool,
    /// Deals of the next street the greedy rounds look ahead with (0: none).
    pub lookahead: usize,
    /// Bootstrapped targets (fitted value iteration): deals of the next street over
    /// which an afterstate's target is the last fit's best next afterstate (0: the
    /// hand's outcome alone, Monte Carlo).
    pub target_deals: usize,
    /// The lambda of the targets' lambda-return: `y_k = (1 - lambda) B_k + lambda
    /// y_(k+1)`, `B_k` the bootstrapped back-up, the last street's target the outcome
    /// (1: Monte Carlo; only read with `target_deals` > 0).
    pub lambda: f64,
    /// The same for the Fantasyland entry targets (the net's is `lambda`).
    pub lambda_fantasy: f64,
    /// What a Fantasyland of n cards is worth to the seats while they play, by n.
    pub fantasy_values: Vec<f64>,
}

/// Plays an exploring street picks among.
pub const EXPLORE_AMONG: usize = 6;
/// Hands played between two sums into the normal equations (bounded memory; any
/// thread count sums them in the same order).
const BATCH: usize = 2048;

/// One recorded afterstate of a seat and its target.
struct Sample {
    model: u8,
    features: Features,
    target: [f64; TARGETS],
}

/// What one simulated hand leaves: its afterstates with their targets.
struct HandRecord {
    samples: Vec<Sample>,
    /// Seats that fouled, and that entered a Fantasyland.
    fouls: usize,
    entries: usize,
}

/// The normal equations of one model.
struct Normal {
    xtx: Vec<f64>,
    xty: Vec<f64>,
    rows: usize,
}

impl Normal {
    fn new() -> Normal {
        Normal {
            xtx: vec![0.0; DIM * DIM],
            xty: vec![0.0; DIM * TARGETS],
            rows: 0,
        }
    }

    fn add(&mut self, f: &Features, y: &[f64; TARGETS]) {
        for a in 0..f.len {
            let (i, vi) = (f.index[a] as usize, f.value[a] as f64);
            for b in 0..f.len {
                self.xtx[i * DIM + f.index[b] as usize] += vi * f.value[b] as f64;
            }
            for (j, &yj) in y.iter().enumerate() {
                self.xty[j * DIM + i] += vi * yj;
            }
        }
        self.rows += 1;
    }

    /// The ridge solution, target-major ([`TARGETS`] x [`DIM`]).  Features never seen
    /// are left out of the solve (their weight is exactly 0 either way): a model
    /// sees a few hundred of the layout's features.
    fn solve(&self, ridge: f64) -> Vec<f64> {
        let seen: Vec<usize> = (0..DIM).filter(|&i| self.xtx[i * DIM + i] > 0.0).collect();
        let n = seen.len();
        let mut a = vec![0.0; n * n];
        for (r, &i) in seen.iter().enumerate() {
            for (c, &j) in seen.iter().enumerate() {
                a[r * n + c] = self.xtx[i * DIM + j];
            }
            a[r * n + r] += ridge;
        }
        cholesky(&mut a, n);
        let mut out = vec![0.0; TARGETS * DIM];
        for j in 0..TARGETS {
            let b: Vec<f64> = seen.iter().map(|&i| self.xty[j * DIM + i]).collect();
            for (x, &i) in cholesky_solve(&a, n, &b).into_iter().zip(&seen) {
                out[j * DIM + i] = x;
            }
        }
        out
    }
}

/// In place: the lower triangle becomes L with `a = L L^T` (a symmetric positive definite).
fn cholesky(a: &mut [f64], n: usize) {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        let d = d.max(1e-12).sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
}

/// x with `L L^T x = b`, L from [`cholesky`].
fn cholesky_solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = b.to_vec();
    for i in 0..n {
        for k in 0..i {
            y[i] -= l[i * n + k] * y[k];
        }
        y[i] /= l[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            y[i] -= l[k * n + i] * y[k];
        }
        y[i] /= l[i * n + i];
    }
    y
}

/// Train a value function by approximate policy iteration on `rules` dealt in
/// `streets` ((cards dealt, cards placed) each).  The same config gives the same
/// weights on any thread count.
pub fn train(
    rules: &Rules,
    streets: &[(usize, usize)],
    cfg: &TrainConfig,
) -> Result<ValueFn, String> {
    if rules.deck_size != 52 {
        return Err("the value function is trained without jokers (a 52-card deck)".into());
    }
    if !(2..=rules.max_seats.max(2) as usize).contains(&cfg.seats) {
        return Err(format!("{} seats do not fit the ruleset", cfg.seats));
    }
    let dealt: usize = streets.iter().map(|s| s.0).sum();
    if streets.is_empty()
        || streets.iter().map(|s| s.1).sum::<usize>() != BOARD
        || dealt * cfg.seats > 52
        || streets.iter().any(|s| s.0 > 5 || s.1 > s.0)
    {
        return Err("these streets do not deal a board to every seat".into());
    }
    let mut placed_after = Vec::new();
    let mut total = 0;
    for s in streets {
        total += s.1;
        placed_after.push(total as u8);
    }
    let mut current: Option<ValueFn> = None;
    let mut played = Vec::new();
    let mut normals: Vec<Normal> = placed_after.iter().map(|_| Normal::new()).collect();
    for round in 0..=cfg.rounds {
        let hands = if round == 0 {
            cfg.first_hands
        } else {
            cfg.hands
        };
        let scorer = current.as_ref().map(|v| {
            v.scorer(&cfg.fantasy_values, cfg.seats - 1)
                .looking_ahead(streets, cfg.lookahead)
        });
        let last = current.as_ref().zip(scorer.as_ref());
        if !cfg.keep {
            normals = placed_after.iter().map(|_| Normal::new()).collect();
        }
        let mut start = 0;
        let (mut fouls, mut entries) = (0, 0);
        while start < hands {
            let end = (start + BATCH).min(hands);
            let records: Vec<HandRecord> = (start..end)
                .into_par_iter()
                .map(|h| play_hand(rules, streets, cfg, round as u64, h as u64, last))
                .collect();
            for r in &records {
                fouls += r.fouls;
                entries += r.entries;
                for s in &r.samples {
                    normals[s.model as usize].add(&s.features, &s.target);
                }
            }
            start = end;
        }
        let seats = (hands * cfg.seats).max(1) as f64;
        played.push(json!({
            "round": round, "hands": hands,
            "fouls": (fouls as f64 / seats * 1e4).round() / 1e4,
            "entries": (entries as f64 / seats * 1e4).round() / 1e4,
        }));
        let weights: Vec<Vec<f64>> = normals.iter().map(|n| n.solve(cfg.ridge)).collect();
        let mut meta = json!({
            "seed": cfg.seed, "seats": cfg.seats, "first_hands": cfg.first_hands,
            "hands": cfg.hands, "rounds": cfg.rounds, "explore": cfg.explore,
            "ridge": cfg.ridge, "keep": cfg.keep, "lookahead": cfg.lookahead, "fantasy_values": cfg.fantasy_values,
            "self_play": played,
        });
        // Recorded only where bootstrapped: Monte Carlo files keep their earlier text.
        if cfg.target_deals > 0 {
            meta["target_deals"] = json!(cfg.target_deals);
            meta["lambda"] = json!(cfg.lambda);
            meta["lambda_fantasy"] = json!(cfg.lambda_fantasy);
        }
        current = Some(ValueFn {
            placed: placed_after.clone(),
            weights,
            meta,
        });
    }
    current.ok_or_else(|| "no round was played".into())
}

/// One simulated hand: every seat plays its streets in order of action, seeing its own
/// cards and discards and the others' boards as they stand.
fn play_hand(
    rules: &Rules,
    streets: &[(usize, usize)],
    cfg: &TrainConfig,
    round: u64,
    hand: u64,
    last: Option<(&ValueFn, &Scorer)>,
) -> HandRecord {
    let scorer = last.map(|l| l.1);
    let t = Tables::get();
    let seats = cfg.seats;
    let mut stream = Stream::new(&[cfg.seed, round, hand, 0]);
    let mut deck: Vec<u8> = (0..52).collect();
    let per_seat: usize = streets.iter().map(|s| s.0).sum();
    stream.choose_first(&mut deck, per_seat * seats);
    let policy = Policy::new(&cfg.fantasy_values, seats - 1);
    let mut boards = [[EMPTY; BOARD]; 4];
    let mut dead: [CardSet; 4] = [0; 4];
    // The street each seat explores (streets.len(): none), and from where it records.
    let explore: Vec<usize> = (0..seats)
        .map(|_| {
            if scorer.is_some() && stream.unit() < cfg.explore {
                stream.below(streets.len())
            } else {
                streets.len()
            }
        })
        .collect();
    // Every seat's afterstate of every street (board, cards seen), and whether its
    // target is fitted.
    let mut afters = vec![Vec::with_capacity(streets.len()); seats];
    let mut recorded = vec![Vec::with_capacity(streets.len()); seats];
    // Bootstrapped without the outcome, every afterstate's target is the policy's own.
    let bootstrap = last.is_some() && cfg.target_deals > 0;
    let record_all = bootstrap && cfg.lambda == 0.0 && cfg.lambda_fantasy == 0.0;
    let mut offset = 0;
    for (k, &(count, keep)) in streets.iter().enumerate() {
        let cands = Candidates::get(count, count - keep);
        for seat in 0..seats {
            let dealt = &deck[offset + seat * count..offset + (seat + 1) * count];
            let mut known = dead[seat] | card_set(dealt.iter().copied());
            for b in &boards[..seats] {
                known |= card_set(b.iter().filter(|&&c| c >= 0).map(|&c| c as u8));
            }
            let board = boards[seat];
            let fill = fill_of(&board);
            let chosen = match scorer {
                Some(sc) if k == explore[seat] => {
                    let mut all: Vec<(usize, f64)> = Vec::new();
                    sc.values(t, rules, &board, fill, dealt, cands, known, |i, v| {
                        all.push((i, v))
                    });
                    // Best first, ties by candidate order: the same on every machine.
                    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                    all[stream.below(all.len().min(EXPLORE_AMONG))].0
                }
                Some(sc) => sc
                    .choose(t, rules, &board, fill, dealt, cands, known)
                    .map_or(0, |c| c.0),
                None => {
                    let future: usize = streets[k + 1..].iter().map(|s| s.0).sum();
                    let slots = BOARD - placed(&board) - keep;
                    let need = policy.need(slots, future);
                    let mut dreams = [Imagined::NONE; 2];
                    let n = if need > 0 { dreams.len() } else { 0 };
                    let mut s = Stream::new(&[cfg.seed, round, hand, 1 + seat as u64, k as u64]);
                    for d in &mut dreams[..n] {
                        *d = imagine_spares(&mut s, known, 52, need, slots);
                    }
                    let p = &policy;
                    choose(t, rules, p, &board, fill, dealt, cands, &dreams[..n]).0
                }
            };
            let dest = cands.dest(chosen);
            let mut f = fill;
            apply(&mut boards[seat], &mut f, dealt, dest);
            for (&c, &d) in dealt.iter().zip(dest) {
                if d == DISCARD {
                    dead[seat] |= 1 << c;
                }
            }
            // An explored street and the greedy streets after it are the policy's own.
            afters[seat].push((boards[seat], known));
            recorded[seat].push(record_all || explore[seat] == streets.len() || k >= explore[seat]);
        }
        offset += count * seats;
    }
    let evals: Vec<BoardEval> = boards[..seats]
        .iter()
        .map(|b| evaluate(t, rules, &b.map(|c| c as u8)))
        .collect();
    let outcomes: Vec<[f64; TARGETS]> = (0..seats)
        .map(|s| {
            let net: i32 = (0..seats)
                .filter(|&o| o != s)
                .map(|o| evals[s].points_against(&evals[o], rules))
                .sum();
            let mut y = [0.0; TARGETS];
            y[0] = net as f64 / (seats - 1) as f64;
            let entry = evals[s].entry_cards(rules) as usize;
            if (FIRST_FANTASY..FIRST_FANTASY + TARGETS - 1).contains(&entry) {
                y[1 + entry - FIRST_FANTASY] = 1.0;
            }
            y
        })
        .collect();
    // Each seat's target of each street; fitted in the order the streets were played
    // (street by street, seats in order of action: the sums' order).
    let mut ys = vec![vec![[0.0; TARGETS]; streets.len()]; seats];
    // The cards each seat is dealt over the hand.
    let mut held: Vec<CardSet> = vec![0; seats];
    let mut start = 0;
    for &(count, _) in streets {
        for (seat, h) in held.iter_mut().enumerate() {
            let at = start + seat * count;
            *h |= card_set(deck[at..at + count].iter().copied());
        }
        start += count * seats;
    }
    for seat in 0..seats {
        // The lambda-return, from the last street back: its target is the outcome.
        let mut y = outcomes[seat];
        for k in (0..streets.len()).rev() {
            // Recorded streets are the last ones: an earlier target is never needed.
            if !recorded[seat][k] {
                break;
            }
            let (board, known) = afters[seat][k];
            if let (Some((vf, sc)), true) = (last, bootstrap && k + 1 < streets.len()) {
                // The deals a seat can still see: none of the cards the others hold.
                let others = (0..seats)
                    .filter(|&o| o != seat)
                    .fold(0, |set, o| set | held[o]);
                let mut s = Stream::new(&[cfg.seed, round, hand, 8 + seat as u64, k as u64]);
                let opponents: Vec<&BoardEval> = (0..seats)
                    .filter(|&o| o != seat)
                    .map(|o| &evals[o])
                    .collect();
                let b = backup(
                    t, rules, vf, sc, streets, k, &board, known, others, &opponents, cfg, &mut s,
                );
                for (j, (yj, bj)) in y.iter_mut().zip(b).enumerate() {
                    let lambda = if j == 0 {
                        cfg.lambda
                    } else {
                        cfg.lambda_fantasy
                    };
                    *yj = (1.0 - lambda) * bj + lambda * *yj;
                }
            }
            ys[seat][k] = y;
        }
    }
    let mut samples = Vec::with_capacity(seats * streets.len());
    for k in 0..streets.len() {
        for seat in (0..seats).filter(|&s| recorded[s][k]) {
            let (board, known) = afters[seat][k];
            samples.push(Sample {
                model: k as u8,
                features: features(t, rules, &board, known),
                target: ys[seat][k],
            });
        }
    }
    HandRecord {
        samples,
        fouls: evals.iter().filter(|e| e.fouled).count(),
        entries: evals.iter().filter(|e| e.entry_cards(rules) > 0).count(),
    }
}

/// The bootstrapped target of the afterstate `board` after street `k` (cards seen
/// `known`): the mean over `cfg.target_deals` deals of the next street (from the cards
/// neither seen nor held by the others, `others`) of the targets of the best next
/// afterstate by the last fit's value `sc`: its fitted net and Fantasyland entries, or,
/// where it is a finished board, its points against the `opponents`' final boards and
/// the Fantasyland it enters, both exact.
#[allow(clippy::too_many_arguments)]
fn backup(
    t: &Tables,
    rules: &Rules,
    vf: &ValueFn,
    sc: &Scorer,
    streets: &[(usize, usize)],
    k: usize,
    board: &[i8; BOARD],
    known: CardSet,
    others: CardSet,
    opponents: &[&BoardEval],
    cfg: &TrainConfig,
    stream: &mut Stream,
) -> [f64; TARGETS] {
    let (count, keep) = streets[k + 1];
    let next = Candidates::get(count, count - keep);
    let unseen: Vec<u8> = (0..52u8)
        .filter(|&c| (known | others) >> c & 1 == 0)
        .collect();
    let deals = next_deals(&unseen, count, cfg.target_deals, stream);
    let fill = fill_of(board);
    let mut sum = [0.0; TARGETS];
    for deal in &deals {
        let mut best = (usize::MAX, f64::NEG_INFINITY);
        sc.values(t, rules, board, fill, deal, next, known, |i, v| {
            if best.0 == usize::MAX || v > best.1 {
                best = (i, v);
            }
        });
        if best.0 == usize::MAX {
            continue;
        }
        let (mut after, mut f) = (*board, fill);
        apply(&mut after, &mut f, deal, next.dest(best.0));
        if placed(&after) == BOARD {
            let e = evaluate(t, rules, &after.map(|c| c as u8));
            let net: i32 = opponents.iter().map(|o| e.points_against(o, rules)).sum();
            sum[0] += net as f64 / opponents.len().max(1) as f64;
            let entry = e.entry_cards(rules).max(0) as usize;
            if (FIRST_FANTASY..FIRST_FANTASY + TARGETS - 1).contains(&entry) {
                sum[1 + entry - FIRST_FANTASY] += 1.0;
            }
        } else {
            let known = known | card_set(deal.iter().copied());
            let x = features(t, rules, &after, known);
            let w = &vf.weights[k + 1];
            for (j, s) in sum.iter_mut().enumerate() {
                *s += x.dot(&w[j * DIM..(j + 1) * DIM]);
            }
        }
    }
    sum.map(|s| s / deals.len().max(1) as f64)
}

/// A shared value function, as [`crate::rollout::Game`] holds it.
pub type Shared = Arc<ValueFn>;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cards::cards;

    fn info(text: &str, size: usize) -> RowInfo {
        row_info(&cards(text), size)
    }

    #[test]
    fn rows_read_as_a_player_reads_them() {
        // Qs Qd on top: a pair of queens (rank 10), one slot open.
        let q = info("Qs Qd", 3);
        assert_eq!((q.kind, q.main, q.slots), (1, 10, 1));
        // Three hearts 2 7 J: a live flush draw, no straight (J-7 spans 5 ranks, 2 too).
        let h = info("2h 7h Jh", 5);
        assert!(h.flush_live && !h.straight_live);
        assert_eq!((h.kind, h.main), (0, 9));
        // 5 6 8 9 mixed: a live straight draw (window 5..9), no flush.
        let s = info("5c 6d 8h 9s", 5);
        assert!(s.straight_live && !s.flush_live);
        // A 2 4: the wheel's window (A as low) holds them.
        assert!(info("As 2d 4h", 5).straight_live);
        // K A 2: no window of five holds them (T-A lacks the 2, A-5 the king).
        assert!(!info("Ks Ad 2h", 5).straight_live);
        // 9 9 9 K K: a full house of nines (rank 7).
        let fh = info("9c 9d 9h Ks Kd", 5);
        assert_eq!((fh.kind, fh.main), (6, 7));
        // A 2 3 4 5 mixed: a straight whose deciding rank is the five (3).
        let wheel = info("Ac 2d 3h 4s 5c", 5);
        assert_eq!((wheel.kind, wheel.main), (4, 3));
        // Five spades, no straight: a flush.
        assert_eq!(info("2s 7s 9s Js As", 5).kind, 5);
    }

    /// `row_info` as first written: each rule read off the 13 ranks one by one.
    fn row_info_reference(cards: &[u8], size: usize) -> RowInfo {
        let mut counts = [0u8; 13];
        let mut mask = 0u16;
        for &c in cards {
            counts[rank(c) as usize] += 1;
            mask |= 1 << rank(c);
        }
        let n = cards.len();
        let mut info = RowInfo {
            cards: n as u8,
            slots: (size - n) as u8,
            ..RowInfo::default()
        };
        if n == 0 {
            return info;
        }
        let best = (0..13u8).max_by_key(|&r| (counts[r as usize], r)).unwrap();
        let group = counts[best as usize];
        let pairs = counts.iter().filter(|&&k| k >= 2).count();
        let suited = cards.iter().all(|&c| suit(c) == suit(cards[0]));
        let distinct = pairs == 0;
        let straight_window = distinct
            && ((0..9).any(|lo| mask & !(0x1f << lo) == 0) || mask & !(1 << 12 | 0xf) == 0);
        info.main = best;
        info.kind = match (group, pairs) {
            (4, _) => 7,
            (3, p) if p >= 2 => 6,
            (3, _) => 3,
            (2, p) if p >= 2 => 2,
            (2, _) => 1,
            _ => 0,
        };
        if size == 5 && n == 5 && distinct {
            info.kind = match (straight_window, suited) {
                (true, true) => 8,
                (false, true) => 5,
                (true, false) => 4,
                _ => 0,
            };
            if straight_window && mask == 0b1_0000_0000_1111 {
                info.main = 3;
            }
        }
        if size == 5 && n < 5 {
            info.flush_live = suited;
            info.straight_live = straight_window;
        }
        info.suit = suit(cards[0]);
        info
    }

    #[test]
    fn rows_read_as_the_first_reading_did() {
        // Random rows of 0..5 cards (3-card rows up to 3), including many of few ranks
        // (pairs, trips, quads, full houses) and of near-straights: the same reading.
        let mut s = Stream::new(&[42]);
        for k in 0..200_000u64 {
            let mut deck: Vec<u8> = if k % 2 == 0 {
                (0..52).collect()
            } else {
                // Few ranks, or ranks close together.
                let lo = s.below(10) as u8;
                (lo * 4..(lo + 4).min(13) * 4).collect()
            };
            let size = if k % 3 == 0 { 3 } else { 5 };
            let n = s.below(size + 1).min(deck.len());
            s.choose_first(&mut deck, n);
            let row = &deck[..n];
            assert_eq!(
                row_info(row, size),
                row_info_reference(row, size),
                "{row:?}"
            );
        }
    }

    #[test]
    fn values_of_a_street_are_the_values_of_its_afterstates() {
        // Random streets of random hands, every legal candidate: the values read row by
        // row ([`Scorer::values`]) equal [`Scorer::value`] of the candidate's whole
        // afterstate, bit for bit, on every street (the last adds the Fantasyland).
        let r = Rules::pineapple_progressive();
        let v = train(&r, &STREETS, &tiny(3)).unwrap();
        let sc = v.scorer(&tiny(3).fantasy_values, 2);
        let t = Tables::get();
        let mut streets_seen = [0usize; 5];
        for seed in 0..400u64 {
            let mut s = Stream::new(&[seed, 11]);
            let mut deck: Vec<u8> = (0..52).collect();
            s.choose_first(&mut deck, 40);
            let street = s.below(5);
            let mut b = [EMPTY; BOARD];
            let mut fill = [0u8; 3];
            let mut used = 0;
            for &(k, kept) in &STREETS[..street] {
                let c = Candidates::get(k, k - kept);
                let fitting: Vec<usize> = (0..c.len()).filter(|&i| c.fits(i, fill)).collect();
                let i = fitting[s.below(fitting.len())];
                apply(&mut b, &mut fill, &deck[used..used + k], c.dest(i));
                used += k;
            }
            let (k, kept) = STREETS[street];
            let dealt = &deck[used..used + k];
            let extra = s.below(12);
            let known = card_set(deck[..used].iter().copied())
                | card_set(deck[used + k..used + k + extra].iter().copied());
            let c = Candidates::get(k, k - kept);
            let mut got = Vec::new();
            sc.values(t, &r, &b, fill, dealt, c, known, |i, v| got.push((i, v)));
            let with_dealt = known | card_set(dealt.iter().copied());
            let want: Vec<(usize, f64)> = (0..c.len())
                .filter(|&i| c.fits(i, fill))
                .map(|i| {
                    let (mut after, mut f) = (b, fill);
                    apply(&mut after, &mut f, dealt, c.dest(i));
                    (i, sc.value(t, &r, &after, with_dealt))
                })
                .collect();
            assert_eq!(got.len(), want.len());
            for ((i, x), (j, y)) in got.iter().zip(&want) {
                assert_eq!((i, x.to_bits()), (j, y.to_bits()), "seed {seed}");
            }
            streets_seen[street] += 1;
        }
        assert!(streets_seen.iter().all(|&n| n > 40), "{streets_seen:?}");
    }

    #[test]
    fn the_codes_of_rows() {
        // Top: empty 0; high card K (rank 11): 1 + 11 = 12; pair of queens: 14 + 10 = 24;
        // trips of deuces: 27 + 0 = 27.
        assert_eq!(top_code(&info("", 3)), 0);
        assert_eq!(top_code(&info("Kd 4c", 3)), 12);
        assert_eq!(top_code(&info("Qs Qd", 3)), 24);
        assert_eq!(top_code(&info("2s 2d 2c", 3)), 27);
        // Middle: high card J (rank 9, bucket T-J = 1): 2; pair of sevens: 5 + 5 = 10;
        // two pair 18; trips 19; a flush 16 + 5 = 21.
        assert_eq!(row_code(&info("Jd 4c", 5)), 2);
        assert_eq!(row_code(&info("7d 7c 2s", 5)), 10);
        assert_eq!(row_code(&info("7d 7c 2s 2d", 5)), 18);
        assert_eq!(row_code(&info("7d 7c 7s", 5)), 19);
        assert_eq!(row_code(&info("2s 7s 9s Js As", 5)), 21);
    }

    #[test]
    fn the_features_of_an_afterstate() {
        // Top Qs _ _ (high Q: code 1 + 10 = 11, 2 slots), middle 7d 7c (pair: code 10,
        // 3 slots), bottom Ah Kh 7h (high A: code 4, 2 slots, a flush draw).  Known:
        // the board and 2h 3h (thrown): hearts seen Ah Kh 7h 2h 3h = 5, outs 8 (bucket 2).
        // Queens live: Qs is seen, three others (Qc Qd Qh) are not: live 3.
        let t = Tables::get();
        let r = Rules::pineapple_progressive();
        let mut b = [EMPTY; BOARD];
        for (i, c) in cards("Qs").into_iter().enumerate() {
            b[i] = c as i8;
        }
        for (i, c) in cards("7d 7c").into_iter().enumerate() {
            b[3 + i] = c as i8;
        }
        for (i, c) in cards("Ah Kh 7h").into_iter().enumerate() {
            b[8 + i] = c as i8;
        }
        let known =
            card_set(b.iter().filter(|&&c| c >= 0).map(|&c| c as u8)) | card_set(cards("2h 3h"));
        let f = features(t, &r, &b, known);
        let mut got: Vec<usize> = f.index[..f.len].iter().map(|&i| i as usize).collect();
        got.sort_unstable();
        let mut want = vec![
            TOP + 11 * 4 + 2,
            MIDDLE + 10 * 6 + 3,
            BOTTOM + 4 * 6 + 2,
            FLUSH + (5 + 1) * 4 + 2, // bottom (k = 1), 2 slots, 8 outs
            // coarse top: high Q = 2; coarse middle: pair of sevens (5: 4..7) = 2 + 1 = 3;
            // middle slots 3: bucket 2.
            TOP_MIDDLE + (2 * 11 + 3) * 3 + 2,
            // coarse bottom: high card = 1; bottom slots 2: bucket 1.
            MIDDLE_BOTTOM + (3 * 11 + 1) * 3 + 1,
            // The middle's pair (16 + 5) is ahead of the bottom's ace high (0 + 12):
            // bottom slots 2.
            AHEAD + 6 + 2,
            // Top's queen (10 - 10 = 0), live 3, 2 slots.
            TOP_LIVE + (3) * 2 + 1,
            BIAS,
        ];
        want.sort_unstable();
        assert_eq!(got, want);
        assert!(f.value[..f.len].iter().all(|&v| v == 1.0));
    }

    #[test]
    fn a_finished_board_has_its_royalties_and_strength() {
        // QQ top, straight middle, flush bottom: the royalty feature is the board's
        // royalty total (the ruleset's tables), the middle's strength its class / 7462.
        let t = Tables::get();
        let r = Rules::pineapple_progressive();
        let live: Vec<u8> = [
            cards("Qs Qd 2c"),
            cards("5h 6d 7c 8s 9h"),
            cards("2h 7h Th Jh Ah"),
        ]
        .concat();
        let b: [i8; BOARD] = std::array::from_fn(|i| live[i] as i8);
        let e = evaluate(t, &r, &live.clone().try_into().unwrap());
        let f = features(t, &r, &b, card_set(live.iter().copied()));
        let value_at = |i: usize| {
            (0..f.len)
                .find(|&k| f.index[k] as usize == i)
                .map(|k| f.value[k])
        };
        assert_eq!(value_at(NUMBERS), Some(e.royalty_total() as f32));
        assert_eq!(value_at(NUMBERS + 2), Some(e.middle as f32 / 7462.0));
        assert_eq!(value_at(NUMBERS + 4), None, "no foul");
        // The same rows with middle and bottom swapped foul: only the foul flag.
        let mut fouled = b;
        fouled[3..8].copy_from_slice(&b[8..13]);
        fouled[8..13].copy_from_slice(&b[3..8]);
        let f = features(t, &r, &fouled, 0);
        let has = |i: usize| f.index[..f.len].contains(&(i as u16));
        assert!(has(NUMBERS + 4) && !has(NUMBERS));
    }

    #[test]
    fn ridge_recovers_a_linear_target() {
        // y = 2 + 3 x on x = 0, 1, 2 with features (bias, x) and no penalty: exactly.
        let mut a = vec![3.0, 3.0, 3.0, 5.0]; // X^T X of [(1,0), (1,1), (1,2)]
        let b = [2.0 + 5.0 + 8.0, 5.0 + 16.0]; // X^T y with y = 2, 5, 8
        cholesky(&mut a, 2);
        let x = cholesky_solve(&a, 2, &b);
        assert!(
            (x[0] - 2.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12,
            "{x:?}"
        );
    }

    /// A board from its rows' cards, each at its slot: `[("Qs Qd", 0), ("Kh Kc", 3)]`.
    pub(crate) fn board_of(rows: &[(&str, usize)]) -> [i8; BOARD] {
        let mut b = [EMPTY; BOARD];
        for &(text, start) in rows {
            for (i, c) in cards(text).into_iter().enumerate() {
                b[start + i] = c as i8;
            }
        }
        b
    }

    /// The Fantasyland values the tests train with: 10, 20, 30 and 30 points at 14-17 cards.
    pub(crate) fn test_fantasy_values() -> Vec<f64> {
        let mut fantasy_values = vec![0.0; 18];
        fantasy_values[14..].copy_from_slice(&[10.0, 20.0, 30.0, 30.0]);
        fantasy_values
    }

    /// A training run of a few simulated hands: not a good value, but a real one.
    pub(crate) fn small_config(seed: u64, seats: usize, keep: bool) -> TrainConfig {
        TrainConfig {
            seed,
            seats,
            first_hands: 60,
            hands: 60,
            rounds: 1,
            explore: 0.5,
            ridge: 1.0,
            keep,
            lookahead: 0,
            target_deals: 0,
            lambda: 1.0,
            lambda_fantasy: 1.0,
            fantasy_values: test_fantasy_values(),
        }
    }

    /// The value other modules' tests play with (seed 3, two seats, pineapple streets).
    pub(crate) fn small_value(r: &Rules) -> ValueFn {
        train(r, &STREETS, &small_config(3, 2, true)).unwrap()
    }

    fn tiny(seed: u64) -> TrainConfig {
        small_config(seed, 3, false)
    }

    const STREETS: [(usize, usize); 5] = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];

    #[test]
    fn training_is_the_same_on_any_thread_count_and_round_trips() {
        let r = Rules::pineapple_progressive();
        let one = pool_of(1).install(|| train(&r, &STREETS, &tiny(5)).unwrap());
        let two = pool_of(2).install(|| train(&r, &STREETS, &tiny(5)).unwrap());
        assert_eq!(one, two);
        let other = pool_of(2).install(|| train(&r, &STREETS, &tiny(6)).unwrap());
        assert_ne!(one.weights, other.weights);
        // The text keeps 6 decimals: read back, written again, the same text.
        let text = one.to_json();
        let back = ValueFn::from_json(&text).unwrap();
        assert_eq!(back.to_json(), text);
        assert_eq!(back.placed, vec![5, 7, 9, 11, 13]);
        assert!(ValueFn::from_json("{\"version\": 0}").is_err());
    }

    #[test]
    fn bootstrapped_training_is_the_same_on_any_thread_count() {
        let r = Rules::pineapple_progressive();
        let boot = TrainConfig {
            target_deals: 4,
            lambda: 0.0,
            lambda_fantasy: 0.0,
            ..tiny(5)
        };
        let one = pool_of(1).install(|| train(&r, &STREETS, &boot).unwrap());
        let two = pool_of(2).install(|| train(&r, &STREETS, &boot).unwrap());
        assert_eq!(one, two);
        let mc = train(&r, &STREETS, &tiny(5)).unwrap();
        assert_ne!(one.weights, mc.weights);
        assert_eq!(one.meta["target_deals"], 4);
        assert!(mc.meta.get("target_deals").is_none());
        // lambda 1 takes the outcome whatever the back-up: Monte Carlo's weights.
        let outcome = TrainConfig {
            lambda: 1.0,
            lambda_fantasy: 1.0,
            ..boot
        };
        assert_eq!(train(&r, &STREETS, &outcome).unwrap().weights, mc.weights);
    }

    /// A rayon pool of ``n`` threads, for the "same result on any thread count" tests.
    pub(crate) fn pool_of(n: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    }

    #[test]
    fn the_back_up_of_a_fourth_street_is_the_exact_mean_of_its_best_finished_boards() {
        // Two cards to place, three unseen: the last street deals all three (one deal);
        // with four unseen it is one of four deals, each taken once.  Each deal's best
        // finished board (by the scorer, as the seat would play it) is scored exactly
        // against the opponent's board and its Fantasyland entry counted.
        let r = Rules::pineapple_progressive();
        let v = train(&r, &STREETS, &tiny(1)).unwrap();
        let cfg = TrainConfig {
            target_deals: 32,
            ..tiny(1)
        };
        let sc = v.scorer(&cfg.fantasy_values, 1);
        let t = Tables::get();
        let b = board_of(&[("Qs Qd", 0), ("Kh Kc 4d 5s", 3), ("9c 9d 9h Ts Js", 8)]);
        let opponent: [u8; BOARD] = cards("2c 3d 4h 6c 6d 7h 8s 2s Ah Ad As 3s 7c")
            .try_into()
            .unwrap();
        let opp = evaluate(t, &r, &opponent);
        let known = card_set(b.iter().filter(|&&c| c >= 0).map(|&c| c as u8))
            | card_set(opponent.iter().copied());
        for spare in [cards("Qh 2h 3c"), cards("Qh 2h 3c 5h")] {
            let others = !(known | card_set(spare.iter().copied())) & ((1u64 << 52) - 1);
            let mut s = Stream::new(&[1]);
            let got = backup(
                t,
                &r,
                &v,
                &sc,
                &STREETS,
                3,
                &b,
                known,
                others,
                &[&opp],
                &cfg,
                &mut s,
            );
            let mut want = [0.0; TARGETS];
            let deals: Vec<Vec<u8>> = if spare.len() == 3 {
                vec![spare.clone()]
            } else {
                (0..4)
                    .map(|skip| {
                        let kept = spare.iter().enumerate().filter(|&(i, _)| i != skip);
                        kept.map(|(_, &c)| c).collect()
                    })
                    .collect()
            };
            for deal in &deals {
                let c = Candidates::get(3, 1);
                let (i, e) = sc.choose(t, &r, &b, fill_of(&b), deal, c, known).unwrap();
                let e = e.unwrap();
                let mut after = b;
                apply(&mut after, &mut fill_of(&b), deal, c.dest(i));
                assert_eq!(evaluate(t, &r, &after.map(|c| c as u8)), e);
                want[0] += e.points_against(&opp, &r) as f64 / deals.len() as f64;
                let entry = e.entry_cards(&r).max(0) as usize;
                if entry >= FIRST_FANTASY {
                    want[1 + entry - FIRST_FANTASY] += 1.0 / deals.len() as f64;
                }
            }
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-12, "{got:?} {want:?}");
            }
        }
    }

    #[test]
    fn the_policy_by_value_plays_legal_boards_and_knows_a_last_street_foul() {
        // Trained on a few hands, it still sees a sure foul on the last street: Qh on
        // top (QQQ over KK) fouls; it plays Qh elsewhere (the finished board's value
        // is its net estimate plus the Fantasyland it enters: QQ on top enters 14).
        let r = Rules::pineapple_progressive();
        let v = train(&r, &STREETS, &tiny(1)).unwrap();
        let sc = v.scorer(&tiny(1).fantasy_values, 2);
        let t = Tables::get();
        let b = board_of(&[("Qs Qd", 0), ("Kh Kc 4d 5s", 3), ("9c 9d 9h Ts Js", 8)]);
        let dealt = cards("Qh 2c 3h");
        let c = Candidates::get(3, 1);
        let (i, e) = sc.choose(t, &r, &b, fill_of(&b), &dealt, c, 0).unwrap();
        assert_ne!(c.dest(i)[0], 0, "{:?}", c.dest(i));
        assert!(!e.unwrap().fouled);
    }
}
