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
//! tables (232 for five cards at once; the simulator places the first street
//! in two smaller steps, `sim.rs`) are screened with one plan-A rollout each
//! and the best [`SCREEN_KEEP`] get the full look-ahead.  The look-ahead is a
//! race: every candidate gets [`RACE_FIRST`] rollouts, and only the best
//! [`RACE_KEEP`] the rest (a Pineapple street's 27 candidates rarely have more
//! than a few worth the other rollouts; their averages are over all of them).
//! A style's noise is a near-normal number (four uniform parts summed), not a
//! Box-Muller normal: the logarithm and cosine cost more than a candidate's rows.
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
use crate::eval::{Partial, Tables, CLASSES5};
use crate::rng::Stream;
use crate::rules::Rules;

/// Candidate tables larger than this are screened first.
pub const SCREEN_ABOVE: usize = 64;
/// Candidates kept for the full look-ahead after screening.
pub const SCREEN_KEEP: usize = 32;
/// Rollouts every candidate gets before the weaker ones are dropped.
pub const RACE_FIRST: usize = 2;
/// Candidates that get the rest of the rollouts.
pub const RACE_KEEP: usize = 4;

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

/// The cards a player has not seen, in a list of fixed size (card ids are below
/// 64): each rollout shuffles a copy, and a copy of a fixed size is a few
/// moves where one of the list's own length called `memcpy`.
#[derive(Clone, Copy)]
struct Unseen {
    cards: [u8; 64],
    count: usize,
}

impl Default for Unseen {
    fn default() -> Unseen {
        Unseen::of(&[])
    }
}

impl Unseen {
    fn of(unseen: &[u8]) -> Unseen {
        let mut cards = [0u8; 64];
        cards[..unseen.len()].copy_from_slice(unseen);
        Unseen {
            cards,
            count: unseen.len(),
        }
    }
}

/// `need` cards drawn from `unseen` into `draws`, in the order boards are filled:
/// bigger groups (pairs, trips) first, then higher cards.  Card ids are below
/// 64, so the order is read off one bit mask per group size, highest id first
/// (a sort of the draws cost 6% of a bot's time).  `shuffled` is left holding
/// the unseen cards with the drawn ones first, in the order drawn.
fn draw(
    unseen: &Unseen,
    need: usize,
    rng: &mut Stream,
    shuffled: &mut Unseen,
    draws: &mut Vec<u8>,
) {
    *shuffled = *unseen;
    rng.choose_first(&mut shuffled.cards[..unseen.count], need);
    let drawn = &shuffled.cards[..need];
    let mut cards = 0u64;
    for &d in drawn {
        cards |= 1 << d;
    }
    draws.clear();
    // A rank's four cards are one nibble of the mask (id = rank * 4 + suit), so
    // each rank's count is its nibble's bits summed, and the cards of the ranks
    // drawn k times are the mask under the nibbles equal to k: all in registers
    // (counts kept in memory, a byte per rank, made each draw wait on the last
    // one's store).
    const LOW: u64 = 0x1111_1111_1111_1111;
    let pairs = cards - ((cards >> 1) & 0x5555_5555_5555_5555);
    let counts = (pairs & 0x3333_3333_3333_3333) + ((pairs >> 2) & 0x3333_3333_3333_3333);
    for k in (1..=4u64).rev() {
        // Nibbles of `counts` equal to k: zero in `x`, found by the usual
        // zero-nibble test (no carry crosses a nibble), widened to the nibble.
        let x = counts ^ (k * LOW);
        let zero =
            !(((x & 0x7777_7777_7777_7777) + 0x7777_7777_7777_7777) | x) & 0x8888_8888_8888_8888;
        let mut bits = cards & ((zero >> 3) * 0xF);
        while bits != 0 {
            let top = 63 - bits.leading_zeros();
            draws.push(top as u8);
            bits ^= 1 << top;
        }
    }
}

/// Rows per plan a street shape can have: the first street's 232 candidates have fewer.
type RowId = u16;

/// One distinct row of a plan's completions, whatever the cards: which row, which
/// of the street's dealt cards the candidate puts there (bits), where its run of
/// the draws starts and how many draws complete it.
#[derive(Clone, Copy)]
struct RowShape {
    row: u8,
    mask: u8,
    start: u8,
    drawn: u8,
}

/// A plan's distinct rows over a shape's candidates, and each candidate's three.
struct PlanRows {
    rows: Vec<RowShape>,
    ids: Vec<[RowId; 3]>,
    /// The rows a pass over every candidate lists (plan B's: the middles and
    /// bottoms of the candidates that need it): those that take draws, those that
    /// do not, and the longest run of draws ranked from each start.  Without
    /// jokers these are the same for every decision of the shape.
    every_drawn: Vec<DrawnRow>,
    every_complete: Vec<RowId>,
    every_runs: [u8; 14],
}

/// Everything about a street shape (cards dealt, discards) on rows filled `fill`
/// that does not depend on the cards: the fitting candidates, their empty slots
/// after the street and each plan's rows.  Built once per thread and kept.
///
/// Within one rollout and plan a row's cards are fixed by which dealt cards the
/// candidate puts there and where its share of the draws starts, so many
/// candidates share a row: each distinct row is ranked once per rollout.
struct Shape {
    /// The fitting candidates' indices into `Candidates::get(cards, discards)`, in order.
    index: Vec<u16>,
    free: Vec<[u8; 3]>,
    /// Per fitting candidate: which of the street's cards it puts on each row (bits).
    masks: Vec<[u8; 3]>,
    /// Per fitting candidate: whether plan B fills its board otherwise than plan A
    /// without the move to the top (not when the middle or the bottom is full: the
    /// draws then go to the same rows in the same order).
    needs_b: Vec<bool>,
    plans: [PlanRows; 2],
    /// The rows' distinct cards ([`cards_key`]: row and mask) that a pass can
    /// list: every plan-A row's, and plan B's middles and bottoms.  A row's
    /// fixed cards, and its class when it takes no draws, depend on these
    /// alone (not on where its draws start), so each is worked out once a
    /// decision ([`Judge::look`]) for all the rows that share it.
    keys: Vec<u8>,
    /// Each fitting candidate as [`Valued`], its cards' facts not yet filled in.
    valued: Vec<Valued>,
}

/// Rows' cards (row and which of the street's cards) as one number below `3 << 5`.
#[inline]
fn cards_key(row: u8, mask: u8) -> usize {
    (row as usize) << 5 | mask as usize
}

const SHAPES: usize = 6 * 6 * 4 * 6 * 6;

fn shape_key(cards: usize, discards: usize, fill: [u8; 3]) -> usize {
    (((cards * 6 + discards) * 4 + fill[0] as usize) * 6 + fill[1] as usize) * 6 + fill[2] as usize
}

impl Shape {
    fn build(cards: usize, discards: usize, fill: [u8; 3]) -> Shape {
        let table = Candidates::get(cards, discards);
        let mut index = Vec::new();
        let mut free = Vec::new();
        let mut masks = Vec::new();
        for i in (0..table.len()).filter(|&i| table.fits(i, fill)) {
            let mut mask = [0u8; 3];
            let mut room = [0, 1, 2].map(|r| ROW_SIZES[r] as u8 - fill[r]);
            for (j, &d) in table.dest(i).iter().enumerate() {
                if d != DISCARD {
                    mask[d as usize] |= 1 << j;
                    room[d as usize] -= 1;
                }
            }
            index.push(i as u16);
            free.push(room);
            masks.push(mask);
        }
        let mut plans = [Plan::BottomFirst, Plan::MiddleFirst].map(|plan| {
            let mut seen = std::collections::HashMap::new();
            let mut rows = Vec::new();
            let ids = free
                .iter()
                .zip(&masks)
                .map(|(room, mask): (&[u8; 3], &[u8; 3])| {
                    let start = starts(&room.map(|r| r as usize), plan);
                    [0, 1, 2].map(|row| {
                        let shape = RowShape {
                            row: row as u8,
                            mask: mask[row],
                            start: start[row] as u8,
                            drawn: room[row],
                        };
                        *seen.entry((row, mask[row], start[row])).or_insert_with(|| {
                            rows.push(shape);
                            (rows.len() - 1) as RowId
                        })
                    })
                })
                .collect();
            PlanRows {
                rows,
                ids,
                every_drawn: Vec::new(),
                every_complete: Vec::new(),
                every_runs: [0; 14],
            }
        });
        let needs_b: Vec<bool> = free.iter().map(|room| room[1] > 0 && room[2] > 0).collect();
        let offset = plans[0].rows.len();
        let valued = (0..index.len())
            .map(|f| {
                let a = plans[0].ids[f];
                let b = if needs_b[f] {
                    let [_, middle, bottom] = plans[1].ids[f];
                    let offset = offset as u16;
                    [a[0], offset + middle, offset + bottom]
                } else {
                    a
                };
                Valued {
                    fit: f as u16,
                    joker: false,
                    free: free[f],
                    top_ranks: 0,
                    a,
                    b,
                }
            })
            .collect();
        for (plan, rows) in plans.iter_mut().enumerate() {
            let mut listed = vec![false; rows.rows.len()];
            for (ids, &needs_b) in rows.ids.iter().zip(&needs_b) {
                if plan == 1 && !needs_b {
                    continue;
                }
                for &id in &ids[plan..] {
                    let i = id as usize;
                    if std::mem::replace(&mut listed[i], true) {
                        continue;
                    }
                    let r = rows.rows[i];
                    if r.drawn == 0 {
                        rows.every_complete.push(id);
                        continue;
                    }
                    let fixed = ROW_SIZES[r.row as usize] as u8 - r.drawn;
                    let most = &mut rows.every_runs[r.start as usize];
                    *most = (*most).max(run_used(fixed, r.drawn));
                    rows.every_drawn.push(DrawnRow {
                        at: (if plan == 0 { 0 } else { offset } + i) as u16,
                        row: r.row,
                        start: r.start,
                        drawn: r.drawn,
                        key: cards_key(r.row, r.mask) as u8,
                    });
                }
            }
            // Rows of a kind together (which row, how many draws against fixed
            // cards): `rank_rows` takes the same branches row after row.
            rows.every_drawn.sort_by_key(|r| {
                let fixed = ROW_SIZES[r.row as usize] as u8 - r.drawn;
                (r.row, fixed.min(r.drawn + 1), r.drawn)
            });
        }
        let mut keys: Vec<u8> = plans[0]
            .rows
            .iter()
            .chain(plans[1].rows.iter().filter(|r| r.row > 0))
            .map(|r| cards_key(r.row, r.mask) as u8)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        Shape {
            index,
            free,
            masks,
            needs_b,
            plans,
            keys,
            valued,
        }
    }
}

/// A row's class and its share of the value when the board is live: its royalty,
/// the Fantasyland bonus for a top that earns entry, strength for the others.
#[derive(Clone, Copy, Default)]
struct Ranked {
    class: u16,
    part: f64,
}

/// Every row's [`Ranked`] by its place (a [`RowId`] past its plan's offset): a
/// table of every `u16` place, so the reads by a row's place need no bounds
/// check (they are most of a candidate's valuation); the places past a shape's
/// rows are never touched, their pages never written after the first.
type RankedRows = [Ranked; 1 << 16];

/// [`RankedRows`] on the heap, made once a thread.
struct RankedBox(Box<RankedRows>);

impl Default for RankedBox {
    fn default() -> RankedBox {
        let rows = vec![Ranked::default(); 1 << 16].into_boxed_slice();
        match rows.try_into() {
            Ok(rows) => RankedBox(rows),
            Err(_) => unreachable!("2^16 places"),
        }
    }
}

/// The decision's rows by their cards ([`cards_key`], below `3 << 5`): a
/// table of every `u8` key, so a row's read by its key needs no bounds check.
type ByCards = [RowCards; 256];

/// [`ByCards`] on the heap, made once a thread.
struct ByCardsBox(Box<ByCards>);

impl Default for ByCardsBox {
    fn default() -> ByCardsBox {
        let rows = vec![RowCards::default(); 256].into_boxed_slice();
        match rows.try_into() {
            Ok(rows) => ByCardsBox(rows),
            Err(_) => unreachable!("256 keys"),
        }
    }
}

/// A row's fixed cards and their ranking so far (with draws to come: at most four).
#[derive(Clone, Copy, Default)]
struct Fixed {
    cards: [u8; 5],
    count: u8,
    partial: Partial,
}

/// What one decision's rows of the same cards ([`cards_key`]) share: whether they
/// take draws ([`COMPLETE`], [`DRAWN`], [`JOKER`]), their fixed cards, and their
/// class and share of the value when complete.
#[derive(Clone, Copy, Default)]
struct RowCards {
    state: u8,
    fixed: Fixed,
    ranked: Ranked,
}

/// The ranking of each run of the draws: `runs[start][len]` for runs of up to four.
type Runs = [[Partial; 5]; 14];

/// A plan's rows listed for one pass of a decision.  Their rankings live in
/// [`Scratch::ranked`], plan A's rows first, then plan B's.
#[derive(Default)]
struct Layout {
    /// The pass a row was last listed in (no row is ranked twice a rollout).
    listed: Vec<u32>,
    /// The rows the current pass ranks on every rollout, unless `every`.
    drawn: Vec<DrawnRow>,
    /// Whether the pass ranks the shape's rows of a pass over every candidate
    /// ([`PlanRows::every_drawn`]) instead.
    every: bool,
    /// Per start among the draws: the longest run the listed rows rank from there.
    runs_used: [u8; 14],
}

/// A row the current pass ranks on every rollout, with what ranking it needs.
#[derive(Clone, Copy)]
struct DrawnRow {
    /// Where its ranking goes in [`Scratch::ranked`].
    at: u16,
    row: u8,
    start: u8,
    drawn: u8,
    /// Its cards ([`cards_key`]): its fixed cards are the decision's [`RowCards`] there.
    key: u8,
}

/// The run of draws [`rank_rows`] ranks a row from: every draw but the last with
/// no fixed cards, all of them with fewer fixed cards than draws, none else.
#[inline]
fn run_used(fixed: u8, drawn: u8) -> u8 {
    match fixed {
        0 => drawn - 1,
        n if n < drawn => drawn,
        _ => 0,
    }
}

/// Complete without draws: ranked once.
const COMPLETE: u8 = 1;
/// Takes draws: ranked each rollout.
const DRAWN: u8 = 2;
/// Holds a joker: its candidates' boards are read whole.
const JOKER: u8 = 3;

impl Layout {
    fn reset(&mut self, rows: usize) {
        self.listed.clear();
        self.listed.resize(rows, 0);
    }
}

/// Rank `rows` for one set of draws whose runs are ranked in `runs`, into
/// `ranked`.  Each row walks the shorter of its two parts: from its fixed cards
/// (in `by_cards`) through its draws, or from its run of draws through its fixed cards.
#[inline]
fn rank_rows(
    j: &Judge<'_>,
    rows: &[DrawnRow],
    by_cards: &ByCards,
    draws: &[u8],
    runs: &Runs,
    ranked: &mut RankedRows,
) {
    let t = j.t;
    for r in rows {
        let (start, drawn) = (r.start as usize, r.drawn as usize);
        if start + drawn > draws.len() {
            continue; // a row no candidate completes with these draws
        }
        let f = &by_cards[r.key as usize].fixed;
        // A listed row's fixed cards fill it but for its draws, so the row and
        // its draws fix both parts' lengths: each kind is ranked by its own
        // copy of the walk, its loops unrolled (the rows come grouped by kind).
        debug_assert_eq!(f.count as usize + drawn, ROW_SIZES[r.row as usize]);
        // The row known in each arm, its share of the value is worked out without
        // a branch on it.
        let row_ranked = match (r.row, drawn) {
            (0, 1) => j.ranked(0, rank_row::<3, 1>(t, f, draws, runs, start)),
            (0, 2) => j.ranked(0, rank_row::<3, 2>(t, f, draws, runs, start)),
            (0, _) => j.ranked(0, rank_row::<3, 3>(t, f, draws, runs, start)),
            (1, 1) => j.ranked(1, rank_row::<5, 1>(t, f, draws, runs, start)),
            (1, 2) => j.ranked(1, rank_row::<5, 2>(t, f, draws, runs, start)),
            (1, 3) => j.ranked(1, rank_row::<5, 3>(t, f, draws, runs, start)),
            (1, 4) => j.ranked(1, rank_row::<5, 4>(t, f, draws, runs, start)),
            (1, _) => j.ranked(1, rank_row::<5, 5>(t, f, draws, runs, start)),
            (_, 1) => j.ranked(2, rank_row::<5, 1>(t, f, draws, runs, start)),
            (_, 2) => j.ranked(2, rank_row::<5, 2>(t, f, draws, runs, start)),
            (_, 3) => j.ranked(2, rank_row::<5, 3>(t, f, draws, runs, start)),
            (_, 4) => j.ranked(2, rank_row::<5, 4>(t, f, draws, runs, start)),
            _ => j.ranked(2, rank_row::<5, 5>(t, f, draws, runs, start)),
        };
        ranked[r.at as usize] = row_ranked;
    }
}

/// The class of a row of `SIZE` cards: `SIZE - DRAWN` fixed cards in `f` and
/// `DRAWN` draws from `start` (whose runs are ranked in `runs`).
#[inline(always)]
fn rank_row<const SIZE: usize, const DRAWN: usize>(
    t: &Tables,
    f: &Fixed,
    draws: &[u8],
    runs: &Runs,
    start: usize,
) -> u16 {
    let n = SIZE - DRAWN;
    let run = &draws[start..start + DRAWN];
    let (p, last) = if n == 0 {
        (runs[start][DRAWN - 1], run[DRAWN - 1])
    } else if n < DRAWN {
        // (`min`: the index stays in range in this branch's copies that never run)
        let mut p = runs[start][DRAWN.min(4)];
        for &c in &f.cards[..n - 1] {
            p = t.add(p, c);
        }
        (p, f.cards[n - 1])
    } else {
        let mut p = f.partial;
        for &d in &run[..DRAWN - 1] {
            p = t.add(p, d);
        }
        (p, run[DRAWN - 1])
    };
    if SIZE == 3 {
        t.finish3(p, last)
    } else {
        t.finish5(p, last)
    }
}

/// A board's value from its three ranked rows.
#[inline]
fn rows_value(t: &Tables, style: &Style, top: Ranked, middle: Ranked, bottom: Ranked) -> f64 {
    // Both sides worked out and one picked, not a branch: whether a completion
    // fouls is a coin toss the predictor keeps losing.
    let fouled = t.top_fouls(top.class, middle.class) | (middle.class > bottom.class);
    let live = top.part + middle.part + bottom.part;
    // An `if` here compiled to a jump, and so did a pick on the bits once the
    // compiler saw through it (to two jumps, one a row): the mask goes through
    // `black_box`, which the compiler cannot see through, so it stays a mask
    // (7% of the simulator's time, the same values).
    let pick = std::hint::black_box((fouled as u64).wrapping_neg());
    f64::from_bits((-style.foul_penalty).to_bits() & pick | live.to_bits() & !pick)
}

/// A board's value from its three rows' places in [`Scratch::ranked`].
#[inline]
fn value_at(
    t: &Tables,
    style: &Style,
    ranked: &RankedRows,
    [top, middle, bottom]: [u16; 3],
) -> f64 {
    rows_value(
        t,
        style,
        ranked[top as usize],
        ranked[middle as usize],
        ranked[bottom as usize],
    )
}

/// What valuing one active candidate in a pass needs, gathered when the pass
/// starts: its rows' places in [`Scratch::ranked`] for each plan, and the facts
/// that send it another way (a joker: the whole board; a top a draw can pair:
/// plan A may move that draw there).
#[derive(Clone, Copy)]
struct Valued {
    fit: u16,
    joker: bool,
    free: [u8; 3],
    /// Ranks (sixes or better) on its top row as bits; 0 when its top is full.
    top_ranks: u32,
    /// Plan A's rows.
    a: [u16; 3],
    /// Plan B's rows: the top is plan A's (both plans fill the top last, from the
    /// same draws, so plan B never ranks a top); a candidate whose middle or
    /// bottom is full has plan A's board without the move to the top.
    b: [u16; 3],
}

/// Each thread's working memory, kept from decision to decision.
#[derive(Default)]
struct Scratch {
    shapes: Vec<Option<std::rc::Rc<Shape>>>,
    layouts: [Layout; 2],
    /// Every row's class and share of the value: plan A's rows, then plan B's.
    ranked: RankedBox,
    /// The active candidates of the current pass, as [`Valued`].
    valued: Vec<Valued>,
    /// The decision's rows by their cards ([`cards_key`]).
    by_cards: ByCardsBox,
    pass: u32,
    /// Per fitting candidate: what valuing it needs ([`Valued`]: its top row's
    /// ranks, sixes or better, as bits, the cards a draw can pair there; whether its
    /// board holds a joker), and the value of its queens or better on top for a
    /// chasing style.
    every: Vec<Valued>,
    chase: Vec<f64>,
    /// The candidates (fitting positions) of the current pass.
    active: Vec<u16>,
    total: Vec<f64>,
    /// The kept candidates' averages over the first pass's rollouts.
    first: Vec<f64>,
    /// Each active candidate's share of the style's noise.
    noise: Vec<f64>,
    shuffled: Unseen,
    draws: Vec<u8>,
    runs: Runs,
}

/// What one rollout's valuations read: the rows ranked under its draws, the
/// decision's rows by their cards, and the draws.
struct Rollout<'s> {
    ranked: &'s RankedRows,
    by_cards: &'s ByCards,
    draws: &'s [u8],
}

/// Everything one decision's valuations share.
struct Judge<'a> {
    t: &'a Tables,
    rules: &'a Rules,
    style: &'a Style,
    decision: &'a Decision<'a>,
    shape: &'a Shape,
    /// The cards on each row of the decision's board, and their count.
    base: [([u8; 5], usize); 3],
    jokers: bool,
    /// Whether the board or the street's cards hold a joker.
    joker_cards: bool,
    /// The style's value of one class of strength on the middle or bottom, worked
    /// out once (a division for every row ranked was 5% of a bot's time).
    weight: f64,
    /// The decision's unseen cards, copied whole for each rollout's draw.
    unseen: Unseen,
}

impl Judge<'_> {
    /// Row `row` ranked as `class`, with its share of the value when the board is live.
    #[inline(always)]
    fn ranked(&self, row: u8, class: u16) -> Ranked {
        let (rules, style, weight) = (self.rules, self.style, self.weight);
        let c = class as usize;
        let part = match row {
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
        Ranked { class, part }
    }

    /// A candidate's board after the street.
    fn after(&self, fit: usize) -> [i8; 13] {
        let d = self.decision;
        let table = Candidates::get(d.dealt.len(), d.discards);
        let mut after = *d.board;
        let mut fill = fill_of(d.board);
        apply(
            &mut after,
            &mut fill,
            d.dealt,
            table.dest(self.shape.index[fit] as usize),
        );
        after
    }

    /// What the decision's rows of each of the shape's cards keys share (see
    /// [`RowCards`]), into `by_cards`.
    fn look(&self, by_cards: &mut ByCards) {
        for &key in &self.shape.keys {
            let (row, mask) = (key >> 5, key & 31);
            let (cards, n) = self.base_with(row as usize, mask);
            let entry = &mut by_cards[key as usize];
            if self.joker_cards && cards[..n].iter().any(|&c| is_joker(c)) {
                entry.state = JOKER;
            } else if n == ROW_SIZES[row as usize] {
                let class = if row == 0 {
                    self.t.class3(&cards[..3])
                } else {
                    self.t.class5(&cards)
                };
                entry.state = COMPLETE;
                entry.ranked = self.ranked(row, class);
            } else {
                let mut partial = Tables::NO_CARDS;
                for &c in &cards[..n] {
                    partial = self.t.add(partial, c);
                }
                entry.state = DRAWN;
                entry.fixed = Fixed {
                    cards,
                    count: n as u8,
                    partial,
                };
            }
        }
    }

    /// List the rows `active` candidates use in `plan` for this pass (the
    /// complete ones ranked as [`Judge::look`] found them).
    fn prepare(
        &self,
        layout: &mut Layout,
        by_cards: &ByCards,
        ranked: &mut RankedRows,
        plan: usize,
        active: &[u16],
        pass: u32,
    ) {
        let rows = &self.shape.plans[plan];
        let offset = if plan == 0 {
            0
        } else {
            self.shape.plans[0].rows.len()
        };
        layout.drawn.clear();
        if active.len() == self.shape.index.len() && !self.joker_cards {
            // Every candidate and no joker: the shape listed the rows once and for all.
            layout.every = true;
            layout.runs_used = rows.every_runs;
            for &id in &rows.every_complete {
                let r = rows.rows[id as usize];
                ranked[offset + id as usize] = by_cards[cards_key(r.row, r.mask)].ranked;
            }
            return;
        }
        layout.every = false;
        layout.runs_used = [0; 14];
        let mut list = |i: usize| {
            let r = rows.rows[i];
            let key = cards_key(r.row, r.mask);
            let cards = &by_cards[key];
            match cards.state {
                DRAWN => {
                    let most = &mut layout.runs_used[r.start as usize];
                    *most = (*most).max(run_used(cards.fixed.count, r.drawn));
                    layout.drawn.push(DrawnRow {
                        at: (offset + i) as u16,
                        row: r.row,
                        start: r.start,
                        drawn: r.drawn,
                        key: key as u8,
                    });
                }
                COMPLETE => ranked[offset + i] = cards.ranked,
                _ => {}
            }
        };
        for &fit in active {
            if plan == 1 && !self.shape.needs_b[fit as usize] {
                continue; // its plan-B values are read from plan A's rows
            }
            // Plan B's top row is plan A's (see `Valued::b`): not listed.
            for &id in &rows.ids[fit as usize][plan..] {
                let i = id as usize;
                if layout.listed[i] != pass {
                    layout.listed[i] = pass;
                    list(i);
                }
            }
        }
    }

    /// A plan-A board's value where the first draw pairing the top (draw `which`,
    /// on the bottom or middle) moves there, trading places with the top's last
    /// draw: those two rows ranked again, the third as the layout ranked it.
    fn moved_value(
        &self,
        ranked: &RankedRows,
        by_cards: &ByCards,
        ids: [RowId; 3],
        free: [u8; 3],
        which: usize,
        draws: &[u8],
    ) -> f64 {
        let rows = &self.shape.plans[0].rows;
        let top = rows[ids[0] as usize];
        let top_last = top.start as usize + free[0] as usize - 1;
        // Both rows take draws: their fixed cards' partial rankings are in
        // `by_cards`, and each row is ranked on from there, draw by draw (copying
        // the draws into a row's cards called memcpy twice a moved board).
        let t = self.t;
        let mut p = by_cards[cards_key(top.row, top.mask)].fixed.partial;
        for &d in &draws[top.start as usize..top_last] {
            p = t.add(p, d);
        }
        let top_class = t.finish3(p, draws[which]);
        let source = if which < free[2] as usize { 2 } else { 1 };
        let r = rows[ids[source] as usize];
        let mut p = by_cards[cards_key(r.row, r.mask)].fixed.partial;
        let (start, last) = (r.start as usize, r.start as usize + r.drawn as usize - 1);
        // The source row's draws with the moved one replaced by the top's last.
        let card = |i: usize| draws[if i == which { top_last } else { i }];
        for i in start..last {
            p = t.add(p, card(i));
        }
        let source_class = t.finish5(p, card(last));
        let other = ranked[ids[3 - source] as usize].class;
        let (middle, bottom) = if source == 2 {
            (other, source_class)
        } else {
            (source_class, other)
        };
        self.style
            .value(self.t, self.rules, top_class, middle, bottom)
    }

    /// Row `row`'s cards on the board and the street's cards in `mask`, and their count.
    #[inline]
    fn base_with(&self, row: usize, mask: u8) -> ([u8; 5], usize) {
        let (base, mut n) = self.base[row];
        // Built in one word, not byte by byte: five bytes stored one at a time and
        // read back at once wait on the store buffer (a fifth of `choose`'s time).
        let mut word = u64::from_le_bytes([base[0], base[1], base[2], base[3], base[4], 0, 0, 0]);
        // Each dealt card added or not without a jump (which cards a row takes
        // is a coin toss to the predictor).
        for (j, &card) in self.decision.dealt.iter().enumerate() {
            let take = (mask >> j & 1) as u64;
            word |= (card as u64 * take) << (8 * n);
            n += take as usize;
        }
        let b = word.to_le_bytes();
        ([b[0], b[1], b[2], b[3], b[4]], n)
    }

    /// The active candidates of this pass as [`Valued`], into `valued`.
    fn gather(&self, s: &mut Scratch) {
        s.valued.clear();
        if s.active.len() == s.every.len() {
            s.valued.extend_from_slice(&s.every);
        } else {
            s.valued
                .extend(s.active.iter().map(|&fit| s.every[fit as usize]));
        }
    }

    /// A candidate's plan-A value under the current draws (`first`: each rank's
    /// first place among them), its board read whole when `whole`.
    #[inline]
    fn plan_a(&self, s: &Rollout<'_>, v: &Valued, first: &[u8; 14], whole: bool) -> f64 {
        if whole {
            let board = complete(&self.after(v.fit as usize), s.draws, Plan::BottomFirst);
            return board_value(self.t, self.rules, self.style, &board);
        }
        if v.top_ranks != 0 {
            let mut bits = v.top_ranks;
            let mut which = u8::MAX;
            while bits != 0 {
                which = which.min(first[bits.trailing_zeros() as usize]);
                bits &= bits - 1;
            }
            if (which as usize) < (v.free[2] + v.free[1]) as usize {
                let (ranked, by_cards) = (s.ranked, s.by_cards);
                return self.moved_value(ranked, by_cards, v.a, v.free, which as usize, s.draws);
            }
        }
        value_at(self.t, self.style, s.ranked, v.a)
    }

    /// A candidate's plan-B value under the current draws.
    #[inline]
    fn plan_b(&self, s: &Rollout<'_>, v: &Valued, whole: bool) -> f64 {
        if whole {
            let board = complete(&self.after(v.fit as usize), s.draws, Plan::MiddleFirst);
            return board_value(self.t, self.rules, self.style, &board);
        }
        value_at(self.t, self.style, s.ranked, v.b)
    }

    /// Average value of each active candidate over `rollouts` completions (the
    /// better plan of each with `both`), plus the top-chasing term, into `s.total`.
    fn judged(&self, s: &mut Scratch, need: usize, rollouts: usize, both: bool, rng: &mut Stream) {
        let n = s.active.len();
        s.total.clear();
        s.total.resize(n, 0.0);
        if need == 0 {
            for k in 0..n {
                let f = s.active[k] as usize;
                s.total[k] = board_value(self.t, self.rules, self.style, &self.after(f));
            }
        } else {
            s.pass += 1;
            let pass = s.pass;
            for plan in 0..1 + both as usize {
                let layout = &mut s.layouts[plan];
                self.prepare(
                    layout,
                    &s.by_cards.0,
                    &mut s.ranked.0,
                    plan,
                    &s.active,
                    pass,
                );
            }
            self.gather(s);
            let mut longest = s.layouts[0].runs_used;
            if both {
                for (most, &b) in longest.iter_mut().zip(&s.layouts[1].runs_used) {
                    *most = (*most).max(b);
                }
            }
            for _ in 0..rollouts {
                draw(&self.unseen, need, rng, &mut s.shuffled, &mut s.draws);
                let drawn_joker = self.jokers && s.draws.iter().any(|&d| is_joker(d));
                // Ranks' first positions among the draws: where a draw pairing the top sits.
                let mut first = [u8::MAX; 14];
                for (i, &d) in s.draws.iter().enumerate().rev() {
                    first[rank(d) as usize] = i as u8;
                }
                if !drawn_joker {
                    rank_runs(self.t, &s.draws, &longest, &mut s.runs);
                    for plan in 0..1 + both as usize {
                        let layout = &s.layouts[plan];
                        let rows = if layout.every {
                            &self.shape.plans[plan].every_drawn
                        } else {
                            &layout.drawn
                        };
                        rank_rows(
                            self,
                            rows,
                            &s.by_cards.0,
                            &s.draws,
                            &s.runs,
                            &mut s.ranked.0,
                        );
                    }
                }
                let now = Rollout {
                    ranked: &s.ranked.0,
                    by_cards: &s.by_cards.0,
                    draws: &s.draws,
                };
                for (sum, v) in s.total.iter_mut().zip(&s.valued) {
                    let whole = drawn_joker || v.joker;
                    let a = self.plan_a(&now, v, &first, whole);
                    // The player adapts to the cards: each rollout counts its better plan.
                    *sum += if both {
                        a.max(self.plan_b(&now, v, whole))
                    } else {
                        a
                    };
                }
            }
            for slot in s.total.iter_mut() {
                *slot /= rollouts as f64;
            }
        }
        for k in 0..n {
            s.total[k] += s.chase[s.active[k] as usize];
        }
    }
}

/// A number of mean 0 and spread 1 close to normal: the sum of four uniform
/// 16-bit parts of one draw (Irwin-Hall), far cheaper than Box-Muller's log and
/// cosine and as good for the bots' noise.
#[inline]
fn about_normal(rng: &mut Stream) -> f64 {
    let x = rng.next_u64();
    let sum: u64 = (0..4).map(|i| x >> (16 * i) & 0xffff).sum();
    (sum as f64 / 65536.0 - 2.0) * 3f64.sqrt()
}

impl Scratch {
    /// Keep the `keep` active candidates of highest total (ties to the earlier
    /// candidate), in candidate order, with their totals.
    fn keep_best(&mut self, keep: usize) {
        let n = self.active.len();
        if n <= keep {
            return;
        }
        // The `keep`-th highest total, found without a branch on the totals (see
        // [`kth_highest`]): an insertion's comparisons went either way at random,
        // a misprediction each, and before that a Vec's insert and a sort cost more.
        let cut = match keep {
            RACE_KEEP => kth_highest::<RACE_KEEP>(&self.total),
            SCREEN_KEEP => kth_highest::<SCREEN_KEEP>(&self.total),
            _ => unreachable!("the race keeps {RACE_KEEP}, the screen {SCREEN_KEEP}"),
        };
        // Every total above the cut and the first ones equal to it (ties go to the
        // earlier candidate), in candidate order: each candidate is copied to the
        // next free place and that place taken only if it is kept (`j <= k`, so
        // nothing unread is overwritten), without a branch on whether it is (a
        // coin toss to the predictor, and a third of this function's time).
        let mut ties = keep - self.total.iter().filter(|&&v| v > cut).count();
        let mut j = 0;
        let noisy = !self.noise.is_empty();
        for k in 0..n {
            let v = self.total[k];
            let tie = (v == cut) & (ties > 0);
            let kept = (v > cut) | tie;
            ties -= tie as usize;
            self.total[j] = v;
            if noisy {
                self.noise[j] = self.noise[k];
            }
            self.active[j] = self.active[k];
            j += kept as usize;
        }
        self.total.truncate(j);
        self.noise.truncate(j.min(self.noise.len()));
        self.active.truncate(j);
    }
}

/// The `K`-th highest of `totals` (`K <= totals.len()`): each total sinks through
/// a list kept sorted, highest first, by compare-and-select steps the compiler
/// makes without branches.
#[inline]
fn kth_highest<const K: usize>(totals: &[f64]) -> f64 {
    let mut top = [f64::NEG_INFINITY; K];
    for &v in totals {
        let mut x = v;
        for t in top.iter_mut() {
            let (high, low) = if x > *t { (x, *t) } else { (*t, x) };
            *t = high;
            x = low;
        }
    }
    top[K - 1]
}

/// The cards on each row of the board, and their count.
fn base_rows(board: &[i8; 13]) -> [([u8; 5], usize); 3] {
    [0, 1, 2].map(|row| {
        let mut cards = [0u8; 5];
        let mut n = 0;
        for &c in &board[ROW_START[row]..ROW_START[row] + ROW_SIZES[row]] {
            if c != EMPTY {
                cards[n] = c as u8;
                n += 1;
            }
        }
        (cards, n)
    })
}

/// Rank the runs of consecutive draws the rows use: from each start, up to
/// `longest[start]` draws (at most four).
#[inline]
fn rank_runs(t: &Tables, draws: &[u8], longest: &[u8; 14], runs: &mut Runs) {
    for start in 0..draws.len() {
        let mut p = Tables::NO_CARDS;
        for len in 1..=(draws.len() - start).min(longest[start] as usize) {
            p = t.add(p, draws[start + len - 1]);
            runs[start][len] = p;
        }
    }
}

/// Each fitting candidate as [`Valued`] (its top row and joker), into `s.every`,
/// and its chase, into `s.chase`.
fn candidate_cards(s: &mut Scratch, decision: &Decision<'_>, shape: &Shape, style: &Style) {
    let cards = decision.dealt.len();
    let base_top: u32 = top_rank_bits(decision.board);
    let base_queens = decision.board[0..3]
        .iter()
        .filter(|&&c| c != EMPTY && rank(c as u8) >= 10)
        .count();
    let base_joker = decision
        .board
        .iter()
        .any(|&c| c != EMPTY && is_joker(c as u8));
    // What each subset of the street's cards brings to the top row (ranks of sixes
    // or better as bits, queens or better), and whether it holds a joker.
    let mut top_bits = [0u32; 32];
    let mut queens = [0u8; 32];
    let mut joker = [false; 32];
    for m in 1..1usize << cards {
        let j = m.trailing_zeros() as usize;
        let (card, rest) = (decision.dealt[j], m & (m - 1));
        // As `top_rank_bits`, a joker counts as a rank above the ace.
        top_bits[m] = top_bits[rest] | if rank(card) >= 4 { 1 << rank(card) } else { 0 };
        queens[m] = queens[rest] + (rank(card) >= 10) as u8;
        joker[m] = joker[rest] || is_joker(card);
    }
    let mut chase = [0.0; 32];
    for (m, value) in chase.iter_mut().enumerate().take(1 << cards) {
        *value = style.top_chase * (base_queens + queens[m] as usize) as f64;
    }
    s.every.clear();
    s.every.extend_from_slice(&shape.valued);
    s.chase.clear();
    for (v, &[top, middle, bottom]) in s.every.iter_mut().zip(&shape.masks) {
        let (top, placed) = (top as usize, (top | middle | bottom) as usize);
        if v.free[0] > 0 {
            v.top_ranks = base_top | top_bits[top];
        }
        v.joker = base_joker || joker[placed];
        s.chase.push(chase[top]);
    }
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
    thread_local! {
        static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
    }
    SCRATCH.with(|s| {
        choose_with(
            &mut s.borrow_mut(),
            t,
            rules,
            decision,
            style,
            rollouts,
            rng,
        )
    })
}

fn choose_with(
    s: &mut Scratch,
    t: &Tables,
    rules: &Rules,
    decision: &Decision<'_>,
    style: &Style,
    rollouts: usize,
    rng: &mut Stream,
) -> Option<usize> {
    let (cards, discards) = (decision.dealt.len(), decision.discards);
    let table = Candidates::get(cards, discards);
    let fill = fill_of(decision.board);
    let key = shape_key(cards, discards, fill);
    if s.shapes.is_empty() {
        s.shapes.resize(SHAPES, None);
    }
    let shape = std::rc::Rc::clone(
        s.shapes[key].get_or_insert_with(|| std::rc::Rc::new(Shape::build(cards, discards, fill))),
    );
    let n = shape.index.len();
    let need = shape
        .free
        .first()?
        .iter()
        .map(|&f| f as usize)
        .sum::<usize>();
    candidate_cards(s, decision, &shape, style);
    for (plan, layout) in s.layouts.iter_mut().enumerate() {
        layout.reset(shape.plans[plan].rows.len());
    }
    let rows = shape.plans[0].rows.len() + shape.plans[1].rows.len();
    assert!(rows <= 1 << 16, "a shape's rows have u16 places");
    s.pass = 0;
    let judge = Judge {
        t,
        rules,
        style,
        decision,
        shape: &shape,
        base: base_rows(decision.board),
        jokers: rules.deck_size as usize > crate::cards::DECK,
        joker_cards: decision.dealt.iter().any(|&c| is_joker(c))
            || decision
                .board
                .iter()
                .any(|&c| c != EMPTY && is_joker(c as u8)),
        weight: style.strength_weight / CLASSES5 as f64,
        unseen: Unseen::of(decision.unseen),
    };
    judge.look(&mut s.by_cards.0);
    s.active.clear();
    s.active.extend(0..n as u16);
    s.noise.clear();
    if table.len() > SCREEN_ABOVE {
        // Many candidates: one cheap rollout each (one plan), then the full
        // look-ahead for the most promising few (ties to the earlier candidate).
        judge.judged(s, need, 1, false, rng);
        s.keep_best(SCREEN_KEEP);
    }
    // Two passes: a few rollouts for every candidate, then the rest for the
    // best [`RACE_KEEP`] (their averages over all the rollouts).  A style's noise
    // is drawn once per candidate after the first pass and counts in the cut, so a
    // noisy bot's mistakes can survive it as they did when every candidate had
    // every rollout.
    let first = rollouts.min(RACE_FIRST);
    judge.judged(s, need, first, true, rng);
    s.noise.clear();
    if style.noise != 0.0 {
        for v in s.total.iter_mut() {
            let e = style.noise * about_normal(rng);
            s.noise.push(e);
            *v += e;
        }
    }
    if rollouts > first && need > 0 {
        s.keep_best(RACE_KEEP);
        s.first.clear();
        s.first.extend_from_slice(&s.total);
        judge.judged(s, need, rollouts - first, true, rng);
        let (a, b) = (first as f64, (rollouts - first) as f64);
        for (k, (v, f)) in s.total.iter_mut().zip(&s.first).enumerate() {
            let e = s.noise.get(k).copied().unwrap_or(0.0);
            *v = ((f - e) * a + *v * b) / (a + b) + e;
        }
    }
    let mut best = 0;
    for (i, v) in s.total.iter().enumerate() {
        if *v > s.total[best] {
            best = i;
        }
    }
    Some(shape.index[s.active[best] as usize] as usize)
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
    fn draws_come_bigger_groups_first_then_higher_cards() {
        // The definition: the drawn cards sorted by (group size, card id), descending.
        let unseen = Unseen::of(&(0..54).collect::<Vec<u8>>());
        let (mut scratch, mut draws) = (Unseen::default(), Vec::new());
        for seed in 0..200u64 {
            let need = 1 + seed as usize % 13;
            draw(
                &unseen,
                need,
                &mut Stream::new(&[seed]),
                &mut scratch,
                &mut draws,
            );
            let mut want = scratch.cards[..need].to_vec();
            let group = |d: u8| want_groups(&scratch.cards[..need], d);
            want.sort_by_key(|&d| std::cmp::Reverse((group(d), d)));
            assert_eq!(draws, want);
        }
    }

    fn want_groups(drawn: &[u8], card: u8) -> usize {
        drawn.iter().filter(|&&d| rank(d) == rank(card)).count()
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
        let shape = Shape::build(dealt.len(), discards, fill);
        let need: usize = shape.free[0].iter().map(|&f| f as usize).sum();
        let judge = Judge {
            t,
            rules: &rules,
            style: &style,
            decision: &d,
            shape: &shape,
            base: base_rows(&board),
            jokers: false,
            joker_cards: dealt.iter().any(|&c| is_joker(c))
                || board.iter().any(|&c| c != EMPTY && is_joker(c as u8)),
            weight: style.strength_weight / CLASSES5 as f64,
            unseen: Unseen::of(&unseen),
        };
        let mut s = Scratch::default();
        s.active.extend(0..shape.index.len() as u16);
        candidate_cards(&mut s, &d, &shape, &style);
        judge.look(&mut s.by_cards.0);
        for plan in 0..2 {
            s.layouts[plan].reset(shape.plans[plan].rows.len());
            let layout = &mut s.layouts[plan];
            judge.prepare(layout, &s.by_cards.0, &mut s.ranked.0, plan, &s.active, 1);
        }
        judge.gather(&mut s);
        let mut rng = Stream::new(&[seed]);
        let mut moves = 0;
        for _ in 0..4 {
            if need == 0 {
                break;
            }
            draw(&judge.unseen, need, &mut rng, &mut s.shuffled, &mut s.draws);
            let draws = s.draws.clone();
            if draws.iter().any(|&x| is_joker(x)) {
                continue; // such boards are always read whole
            }
            rank_runs(t, &draws, &[4; 14], &mut s.runs);
            for p in 0..2 {
                let layout = &s.layouts[p];
                let rows = if layout.every {
                    &shape.plans[p].every_drawn
                } else {
                    &layout.drawn
                };
                rank_rows(
                    &judge,
                    rows,
                    &s.by_cards.0,
                    &draws,
                    &s.runs,
                    &mut s.ranked.0,
                );
            }
            let mut first = [u8::MAX; 14];
            for (i, &d) in draws.iter().enumerate().rev() {
                first[rank(d) as usize] = i as u8;
            }
            for (f, v) in s.valued.iter().enumerate() {
                let after = judge.after(f);
                let free = shape.free[f].map(|x| x as usize);
                for plan in [Plan::BottomFirst, Plan::MiddleFirst] {
                    let full = complete(&after, &draws, plan);
                    if full.iter().any(|&x| is_joker(x as u8)) {
                        continue;
                    }
                    let whole = board_value(t, &rules, &style, &full);
                    // A moved board is ranked again: the same classes, the same value.
                    // Plan B where the middle or bottom is full is read off plan A's rows.
                    let now = Rollout {
                        ranked: &s.ranked.0,
                        by_cards: &s.by_cards.0,
                        draws: &s.draws,
                    };
                    let fast = if plan == Plan::BottomFirst {
                        moves +=
                            pairs_the_top(&free, top_rank_bits(&after), &draws).is_some() as usize;
                        judge.plan_a(&now, v, &first, false)
                    } else {
                        judge.plan_b(&now, v, false)
                    };
                    assert!((fast - whole).abs() < 1e-9, "candidate {f} {plan:?}");
                }
            }
        }
        if board.iter().all(|&c| c == EMPTY) {
            // The first street always has candidates with a pair to chase on top.
            assert!(moves > 0, "no moved board checked");
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
            // Rows filled 2, 3, 4: candidates that fill the middle or the bottom read
            // plan B off plan A's rows.
            one_decision(board, &deck[11..14], 1, 52, seed);
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
