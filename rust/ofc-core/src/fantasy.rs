//! The exact Fantasyland set: the best 13 of 13..18 dealt cards under a
//! ruleset.  The fast twin of `ofc_stats/engine/fantasy_exhaustive.py`, the
//! plain search that defines the answer.
//!
//! Objective: `value = royalties + stay_value × stays` over every non-fouling
//! split of the deal into top 3 / middle 5 / bottom 5 (the rest discarded),
//! `stays` being the ruleset's Fantasyland repeat.  Ties go to the strongest
//! bottom, then middle, then top class; splits still equal go to the first in
//! the fixed enumeration of the deal sorted by card id (bottoms, then middles
//! of the rest, then tops of what is left, each as ascending positions in
//! lexicographic order), so the answer never depends on the input order.
//!
//! Search (branch and bound): every 5- and 3-card subset is ranked once.  A
//! bottom's bound is its royalty plus the best middle-plus-top any middle
//! class not above it allows (ignoring which cards the bottom takes), with
//! the repeat where still reachable; bottoms are searched best bound first
//! and the search stops at the first that cannot beat the best set.  A
//! bottom's middles are taken from the deal's 5-subsets sorted once by the
//! most a middle and a top can add (so the walk stops at the first that
//! cannot beat the best), and each (bottom, middle) pair is bounded again
//! with the middle's own royalty, capped by the bottom, before its tops are
//! tried.  A subset holding a joker is bounded by every
//! class its jokers can make (a relaxation: the engine also forbids copying
//! the other rows), and a candidate board with jokers is scored by the
//! engine's whole-board reading ([`read_jokers`]), so it gets exactly the
//! royalties and repeat the scorer gives it.

use std::collections::{BinaryHeap, HashMap};
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::board::{read_jokers, BoardEval};
use crate::cards::{format_card, is_joker, rank, suit};
use crate::error::CoreError;
use crate::eval::{Tables, CLASSES3, CLASSES5};
use crate::rules::Rules;

pub const MIN_CARDS: usize = 13;
pub const MAX_CARDS: usize = 18;
/// A royalty bound meaning "nothing fits here"; sums of three stay far from overflow.
const NONE: i32 = i32::MIN / 8;

/// A Fantasyland set: rows and discards as card ids (jokers as 52/53, as
/// placed), each highest card id first.
#[derive(Debug, Clone, PartialEq)]
pub struct FantasySet {
    pub top: [u8; 3],
    pub middle: [u8; 5],
    pub bottom: [u8; 5],
    pub discards: Vec<u8>,
    pub royalties: i32,
    pub stays: bool,
    /// `royalties + stay_value × stays`.
    pub value: f64,
}

impl FantasySet {
    /// The 13 placed cards: top, middle, bottom.
    pub fn board(&self) -> [u8; 13] {
        let mut out = [0u8; 13];
        out[..3].copy_from_slice(&self.top);
        out[3..8].copy_from_slice(&self.middle);
        out[8..].copy_from_slice(&self.bottom);
        out
    }
}

fn deck_name(deck_size: u8) -> &'static str {
    if deck_size == 54 {
        "joker54"
    } else {
        "standard52"
    }
}

/// The dealt cards, or [`CoreError::Hand`] saying what is wrong (the
/// messages of `check_deal` in Python: count, then cards outside the deck,
/// then duplicates).
pub fn check_deal(cards: &[i64], deck_size: u8) -> Result<Vec<u8>, CoreError> {
    if !(MIN_CARDS..=MAX_CARDS).contains(&cards.len()) {
        return Err(CoreError::Hand(format!(
            "{} cards; a Fantasyland deal has 13 to 18",
            cards.len()
        )));
    }
    let bad: Vec<i64> = cards
        .iter()
        .copied()
        .filter(|&c| !(0..deck_size as i64).contains(&c))
        .collect();
    if !bad.is_empty() {
        // As Python's `board.outside_deck`: a joker named as one, any other id as it is.
        let deck = deck_name(deck_size);
        let jokers: Vec<&str> = bad
            .iter()
            .filter_map(|&c| match c {
                52 => Some("X1"),
                53 => Some("X2"),
                _ => None,
            })
            .collect();
        let others: Vec<String> = bad
            .iter()
            .filter(|&&c| c != 52 && c != 53)
            .map(|c| c.to_string())
            .collect();
        let mut said = Vec::new();
        if !jokers.is_empty() {
            let name = if jokers.len() > 1 { "jokers" } else { "joker" };
            said.push(format!(
                "{name} {} in the {deck} deck, which has no jokers (jokers need the joker54 deck)",
                jokers.join(" ")
            ));
        }
        if !others.is_empty() {
            said.push(format!(
                "card ids [{}] are not in the {deck} deck",
                others.join(", ")
            ));
        }
        return Err(CoreError::Hand(said.join("; ")));
    }
    let deal: Vec<u8> = cards.iter().map(|&c| c as u8).collect();
    let mut seen = 0u64;
    let mut twice = 0u64;
    for &c in &deal {
        twice |= seen & (1 << c);
        seen |= 1 << c;
    }
    if twice != 0 {
        let names: Vec<String> = (0..64u8)
            .filter(|&c| twice >> c & 1 == 1)
            .map(format_card)
            .collect();
        return Err(CoreError::Hand(format!(
            "duplicate card {}",
            names.join(" ")
        )));
    }
    Ok(deal)
}

/// Index tables of every split of n positions; they depend on n only.
struct Layout {
    /// Position bitmasks of the 5- and 3-subsets, in lexicographic order.
    five: Vec<u32>,
    three: Vec<u32>,
    /// Bitmask -> index into `three`.
    index3: Vec<u16>,
    /// Every 3-subset of n-10 positions (the tops of what a pair leaves), lexicographic.
    rel3: Vec<[u8; 3]>,
}

fn combinations<const K: usize>(n: usize) -> Vec<[u8; K]> {
    let mut out = Vec::new();
    if K > n {
        return out;
    }
    let mut idx: [u8; K] = std::array::from_fn(|i| i as u8);
    loop {
        out.push(idx);
        let mut i = K;
        while i > 0 && idx[i - 1] as usize == n - K + i - 1 {
            i -= 1;
        }
        if i == 0 {
            return out;
        }
        idx[i - 1] += 1;
        for j in i..K {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

fn masks<const K: usize>(n: usize) -> (Vec<u32>, Vec<u16>) {
    let list: Vec<u32> = combinations::<K>(n)
        .iter()
        .map(|c| c.iter().fold(0u32, |m, &p| m | 1 << p))
        .collect();
    let mut index = vec![u16::MAX; 1 << n];
    for (i, &m) in list.iter().enumerate() {
        index[m as usize] = i as u16;
    }
    (list, index)
}

fn layout(n: usize) -> &'static Layout {
    static LAYOUTS: [OnceLock<Layout>; MAX_CARDS - MIN_CARDS + 1] =
        [const { OnceLock::new() }; MAX_CARDS - MIN_CARDS + 1];
    LAYOUTS[n - MIN_CARDS].get_or_init(|| {
        let (five, _) = masks::<5>(n);
        let (three, index3) = masks::<3>(n);
        Layout {
            five,
            three,
            index3,
            rel3: combinations::<3>(n - 10),
        }
    })
}

/// The tie-break after the value: bottom class, then middle, then top.
#[inline]
fn pack(bottom: u16, middle: u16, top: u16) -> u64 {
    (bottom as u64) << 22 | (middle as u64) << 9 | top as u64
}

/// One 5- or 3-card subset of the deal.  Without jokers `hi == lo` is its
/// class; with jokers the highest and lowest class it can read as, and the
/// best royalty and any repeat flag over its readings.
#[derive(Clone, Copy)]
struct Row {
    hi: u16,
    lo: u16,
    /// Bottom (5) or top (3) royalty, and middle royalty (5 only).
    roy_a: i32,
    roy_b: i32,
    flag_a: bool,
    flag_b: bool,
    /// Readings of a joker row: `readings[start..end]`, else `start == end`.
    start: u32,
    end: u32,
}

/// The classes each joker row can read as (ascending), with prefix maxima of
/// the royalty and prefix "any" of the repeat flag that a cap on the class
/// reads (the middle is capped by the bottom, the top by the middle).
#[derive(Default)]
struct Readings {
    class: Vec<u16>,
    roy: Vec<i32>,
    flag: Vec<bool>,
}

impl Readings {
    /// (royalty, flag, class) of the best reading not above `cap`, or None.
    #[inline]
    fn capped(&self, row: &Row, cap: u16) -> Option<(i32, bool, u16)> {
        let (s, e) = (row.start as usize, row.end as usize);
        let k = self.class[s..e].partition_point(|&c| c <= cap);
        (k > 0).then(|| {
            (
                self.roy[s + k - 1],
                self.flag[s + k - 1],
                self.class[s + k - 1],
            )
        })
    }
}

/// Ranks as distinct cards, never all of one suit: their class is the
/// row's non-flush reading.
fn plain_cards(ranks: &[u8], out: &mut [u8]) {
    let mut used = [0u8; 13];
    for (slot, &r) in out.iter_mut().zip(ranks) {
        *slot = r * 4 + used[r as usize];
        used[r as usize] += 1;
    }
    if out.iter().all(|&c| suit(c) == 0) {
        out[0] += 1;
    }
}

/// Every class a row of `real` cards and `jokers` jokers can read as,
/// a joker never copying a card of its own row (sorted, distinct).
fn joker_classes(t: &Tables, real: &[u8], jokers: usize, out: &mut Vec<u16>) {
    out.clear();
    let size = real.len() + jokers;
    let mut counts = [0u8; 13];
    for &c in real {
        counts[rank(c) as usize] += 1;
    }
    let suited = size == 5 && real.iter().all(|&c| suit(c) == suit(real[0]));
    let mut ranks = [0u8; 5];
    let mut cards = [0u8; 5];
    for (i, &c) in real.iter().enumerate() {
        ranks[i] = rank(c);
    }
    let first = real.len();
    let mut add = |extra: &[u8], out: &mut Vec<u16>| {
        let mut count = counts;
        for &r in extra {
            count[r as usize] += 1;
            if count[r as usize] > 4 {
                return;
            }
        }
        ranks[first..size].copy_from_slice(extra);
        plain_cards(&ranks[..size], &mut cards[..size]);
        out.push(if size == 5 {
            t.class5(&cards)
        } else {
            t.class3(&cards[..3])
        });
        if suited && count.iter().all(|&k| k <= 1) {
            let s = suit(real[0]);
            cards[..first].copy_from_slice(real);
            for (slot, &r) in cards[first..].iter_mut().zip(extra) {
                *slot = r * 4 + s;
            }
            out.push(t.class5(&cards));
        }
    };
    for a in 0..13u8 {
        if jokers == 1 {
            add(&[a], out);
        } else {
            for b in a..13u8 {
                add(&[a, b], out);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
}

/// The best set found so far, as a key that orders sets exactly: value,
/// then classes, then the first in enumeration order (lower subset indices).
#[derive(Clone, Copy)]
struct Best {
    value: f64,
    code: u64,
    at: (u32, u32, u32),
    royalties: i32,
    stays: bool,
}

impl Best {
    #[inline]
    fn beaten_by(&self, value: f64, code: u64, at: (u32, u32, u32)) -> bool {
        value > self.value
            || (value == self.value && (code > self.code || (code == self.code && at < self.at)))
    }
}

/// A 5-subset in a middle order.
#[derive(Clone, Copy)]
struct Entry {
    mask: u32,
    index: u32,
}

/// Every 5-subset as an [`Entry`], best key first, and where each run of one
/// key ends: (key, end) in order.  The walk checks its bound once a run (the
/// bound is the same within it), not once an entry.
#[derive(Default)]
struct Order {
    entries: Vec<Entry>,
    runs: Vec<(i32, u32)>,
}

/// Every 5-subset (`masks[i]` keyed `keys[i]`) in a middle [`Order`], highest
/// key first and in enumeration order within a key (keys are small royalty
/// sums in `low..=high`, or NONE, last): a counting sort, the keys being few.
fn counting_sort(keys: &[i32], masks: &[u32], (low, high): (i32, i32)) -> Order {
    let entry = |(index, &mask): (usize, &u32)| Entry {
        mask,
        index: index as u32,
    };
    if low > high {
        return Order {
            entries: masks.iter().enumerate().map(entry).collect(),
            runs: vec![(NONE, keys.len() as u32)],
        };
    }
    // Bucket 0 is the highest key; NONE goes in the last bucket.  Each key's
    // bucket worked out once (the scatter reads it again).
    let buckets = (high - low) as usize + 2;
    let bucket_of: Vec<u32> = keys
        .iter()
        .map(|&k| {
            if k == NONE {
                buckets as u32 - 1
            } else {
                (high - k) as u32
            }
        })
        .collect();
    let mut start = vec![0u32; buckets + 1];
    for &k in &bucket_of {
        start[k as usize + 1] += 1;
    }
    let mut runs = Vec::new();
    for i in 1..=buckets {
        if start[i] > 0 {
            let key = if i == buckets {
                NONE
            } else {
                high - (i as i32 - 1)
            };
            start[i] += start[i - 1];
            runs.push((key, start[i]));
        } else {
            start[i] = start[i - 1];
        }
    }
    let mut entries = vec![Entry { mask: 0, index: 0 }; keys.len()];
    for (i, (&k, &mask)) in bucket_of.iter().zip(masks).enumerate() {
        let slot = &mut start[k as usize];
        entries[*slot as usize] = entry((i, &mask));
        *slot += 1;
    }
    Order { entries, runs }
}

/// A joker board whose bound can beat the best: read by the engine later.
struct Candidate {
    bound: f64,
    code: u64,
    middle: u32,
    top: u32,
}

/// Candidates order as sets do: bound, then code, then the earlier split first.
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.bound
            .total_cmp(&other.bound)
            .then(self.code.cmp(&other.code))
            .then((other.middle, other.top).cmp(&(self.middle, self.top)))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Candidate {}

struct Search<'a> {
    t: &'static Tables,
    rules: &'a Rules,
    stay: f64,
    /// Combine the rows' repeat conditions with "all" (else "any").
    all: bool,
    deal: &'a [u8],
    lay: &'static Layout,
    /// Each class's repeat condition on the bottom, middle and top: the
    /// ruleset's, else the same for every class (borrowed, never copied).
    fb: &'a [bool],
    fm: &'a [bool],
    ft: &'a [bool],
    five: Vec<Row>,
    three: Vec<Row>,
    r5: Readings,
    r3: Readings,
    /// By top-class limit: the best top royalty of any top not above it,
    /// and of those that meet the top's repeat condition.
    t_all: Vec<i32>,
    t_rep: Vec<i32>,
    /// Every 5-subset as a middle, best key first: the most a middle and a
    /// top can add to a bottom's royalty in any set (plain), and in a set
    /// the middle and top make repeat, the bottom's condition aside (repeat).
    by_plain: Order,
    by_repeat: Order,
    /// Middles already tried on the current bottom (`stamp`).
    seen: Vec<u32>,
    stamp: u32,
    best: Best,
}

impl<'a> Search<'a> {
    fn new(deal: &'a [u8], rules: &'a Rules, stay: f64) -> Search<'a> {
        let t = Tables::get();
        let lay = layout(deal.len());
        let all = rules.repeat_all && rules.has_repeat();
        static SAME: [[bool; CLASSES5]; 2] = [[false; CLASSES5], [true; CLASSES5]];
        let flags = |v: &'a Option<Vec<bool>>, len: usize| -> &'a [bool] {
            match v {
                Some(v) if rules.has_repeat() => v,
                _ => &SAME[all as usize][..len],
            }
        };
        let mut s = Search {
            t,
            rules,
            stay,
            all,
            deal,
            lay,
            fb: flags(&rules.repeat_bottom, CLASSES5),
            fm: flags(&rules.repeat_middle, CLASSES5),
            ft: flags(&rules.repeat_top, CLASSES3),
            five: Vec::with_capacity(lay.five.len()),
            three: Vec::with_capacity(lay.three.len()),
            r5: Readings::default(),
            r3: Readings::default(),
            t_all: vec![NONE; CLASSES3],
            t_rep: vec![NONE; CLASSES3],
            by_plain: Order::default(),
            by_repeat: Order::default(),
            seen: vec![0; lay.five.len()],
            stamp: 0,
            best: Best {
                value: f64::NEG_INFINITY,
                code: 0,
                at: (u32::MAX, u32::MAX, u32::MAX),
                royalties: 0,
                stays: false,
            },
        };
        s.rank_subsets();
        s.middle_orders();
        s
    }

    /// A middle class's keys in the two middle orders (see `by_plain`):
    /// its royalty plus the best top it allows, in any set and in a set the
    /// middle and top make repeat; NONE where no such top exists.
    #[inline(always)]
    fn middle_keys(&self, c: u16) -> (i32, i32) {
        let c = c as usize;
        let lim = self.t.top_limit[c] as usize;
        let rm = self.rules.royalty_middle[c] as i32;
        let (all, rep) = (self.t_all[lim], self.t_rep[lim]);
        let top = match (self.all, self.fm[c]) {
            (false, true) => all,
            (false, false) | (true, true) => rep,
            (true, false) => NONE,
        };
        let key = |top: i32| if top == NONE { NONE } else { rm + top };
        (key(all), key(top))
    }

    /// The middle orders (see `by_plain`), each by a counting sort on its key;
    /// both keys of a 5-subset come from one look at its class (the best
    /// over its readings for a joker row).
    fn middle_orders(&mut self) {
        let repeats = self.rules.has_repeat();
        let count = self.five.len();
        let mut plain = Vec::with_capacity(count);
        let mut repeat = Vec::with_capacity(if repeats { count } else { 0 });
        // The live keys' range, for the counting sorts.
        let (mut plain_range, mut repeat_range) = ((i32::MAX, i32::MIN), (i32::MAX, i32::MIN));
        let widen = |(l, h): (i32, i32), k: i32| {
            if k == NONE {
                (l, h)
            } else {
                (l.min(k), h.max(k))
            }
        };
        for row in &self.five {
            let (p, r) = if row.start == row.end {
                self.middle_keys(row.hi)
            } else {
                self.r5.class[row.start as usize..row.end as usize]
                    .iter()
                    .map(|&c| self.middle_keys(c))
                    .fold((NONE, NONE), |(p, r), (a, b)| (p.max(a), r.max(b)))
            };
            plain.push(p);
            plain_range = widen(plain_range, p);
            if repeats {
                repeat.push(r);
                repeat_range = widen(repeat_range, r);
            }
        }
        self.by_plain = counting_sort(&plain, &self.lay.five, plain_range);
        if repeats {
            self.by_repeat = counting_sort(&repeat, &self.lay.five, repeat_range);
        }
    }

    #[inline]
    fn worth(&self, royalties: i32, stays: bool) -> f64 {
        royalties as f64 + if stays { self.stay } else { 0.0 }
    }

    #[inline]
    fn combine(&self, a: bool, b: bool) -> bool {
        if self.all {
            a && b
        } else {
            a || b
        }
    }

    fn cards_of(&self, mask: u32, out: &mut [u8]) {
        let mut m = mask;
        for slot in out.iter_mut() {
            *slot = self.deal[m.trailing_zeros() as usize];
            m &= m - 1;
        }
    }

    /// A 5-subset without jokers, of class `c`.
    #[inline]
    fn plain_five(&self, c: u16) -> Row {
        Row {
            hi: c,
            lo: c,
            roy_a: self.rules.royalty_bottom[c as usize] as i32,
            roy_b: self.rules.royalty_middle[c as usize] as i32,
            flag_a: self.fb[c as usize],
            flag_b: self.fm[c as usize],
            start: 0,
            end: 0,
        }
    }

    /// A 3-subset without jokers, of class `c` (noted in the top tables).
    #[inline]
    fn plain_three(&mut self, c: u16) -> Row {
        let roy = self.rules.royalty_top[c as usize] as i32;
        self.note_top(c, roy);
        Row {
            hi: c,
            lo: c,
            roy_a: roy,
            roy_b: 0,
            flag_a: self.ft[c as usize],
            flag_b: false,
            start: 0,
            end: 0,
        }
    }

    /// Rank every subset once, in enumeration order.  A deal without jokers
    /// walks the subsets as nested loops over ascending positions (the same
    /// lexicographic order as the layout's), each loop extending its prefix's
    /// partial row by one card, so a 5-subset costs one table step.
    fn rank_subsets(&mut self) {
        let (t, deal) = (self.t, self.deal);
        if deal.iter().any(|&c| is_joker(c)) {
            return self.rank_joker_subsets();
        }
        let n = deal.len();
        for a in 0..n - 4 {
            let pa = t.add(Tables::NO_CARDS, deal[a]);
            for b in a + 1..n - 3 {
                let pb = t.add(pa, deal[b]);
                for c in b + 1..n - 2 {
                    let pc = t.add(pb, deal[c]);
                    for d in c + 1..n - 1 {
                        let pd = t.add(pc, deal[d]);
                        for &card in &deal[d + 1..] {
                            let row = self.plain_five(t.finish5(pd, card));
                            self.five.push(row);
                        }
                    }
                }
            }
        }
        for a in 0..n - 2 {
            let pa = t.add(Tables::NO_CARDS, deal[a]);
            for b in a + 1..n - 1 {
                let pb = t.add(pa, deal[b]);
                for &card in &deal[b + 1..] {
                    let row = self.plain_three(t.finish3(pb, card));
                    self.three.push(row);
                }
            }
        }
        self.top_maxima();
    }

    /// The top tables as running maxima over the top class limit.
    fn top_maxima(&mut self) {
        for c in 1..CLASSES3 {
            self.t_all[c] = self.t_all[c].max(self.t_all[c - 1]);
            self.t_rep[c] = self.t_rep[c].max(self.t_rep[c - 1]);
        }
    }

    /// [`Search::rank_subsets`] for a deal with jokers: readings and cap
    /// tables for the joker rows.
    fn rank_joker_subsets(&mut self) {
        let (t, rules, lay) = (self.t, self.rules, self.lay);
        let mut cards = [0u8; 5];
        let mut classes = Vec::new();
        let mut seen: HashMap<u32, Row> = HashMap::new();
        for &mask in &lay.five {
            self.cards_of(mask, &mut cards);
            let jokers = cards.iter().filter(|&&c| is_joker(c)).count();
            if jokers == 0 {
                let c = t.class5(&cards);
                self.five.push(Row {
                    hi: c,
                    lo: c,
                    roy_a: rules.royalty_bottom[c as usize] as i32,
                    roy_b: rules.royalty_middle[c as usize] as i32,
                    flag_a: self.fb[c as usize],
                    flag_b: self.fm[c as usize],
                    start: 0,
                    end: 0,
                });
                continue;
            }
            // Rows whose real cards have the same ranks (and suitedness)
            // read the same: share one list of readings.
            let real = &cards[..5 - jokers];
            let suited = real.iter().all(|&c| suit(c) == suit(real[0]));
            let key = real
                .iter()
                .fold(jokers as u32 * 2 + suited as u32, |k, &c| {
                    k << 4 | rank(c) as u32
                });
            if let Some(row) = seen.get(&key) {
                self.five.push(*row);
                continue;
            }
            joker_classes(t, real, jokers, &mut classes);
            let start = self.r5.class.len() as u32;
            let (mut roy_a, mut flag_a) = (NONE, false);
            let (mut roy_b, mut flag_b) = (NONE, false);
            for &c in &classes {
                roy_a = roy_a.max(rules.royalty_bottom[c as usize] as i32);
                flag_a |= self.fb[c as usize];
                roy_b = roy_b.max(rules.royalty_middle[c as usize] as i32);
                flag_b |= self.fm[c as usize];
                self.r5.class.push(c);
                self.r5.roy.push(roy_b);
                self.r5.flag.push(flag_b);
            }
            let row = Row {
                hi: *classes.last().unwrap(),
                lo: classes[0],
                roy_a,
                roy_b,
                flag_a,
                flag_b,
                start,
                end: self.r5.class.len() as u32,
            };
            seen.insert(key, row);
            self.five.push(row);
        }
        for &mask in &lay.three {
            self.cards_of(mask, &mut cards[..3]);
            let jokers = cards[..3].iter().filter(|&&c| is_joker(c)).count();
            if jokers == 0 {
                let c = t.class3(&cards[..3]);
                let roy = rules.royalty_top[c as usize] as i32;
                self.note_top(c, roy);
                self.three.push(Row {
                    hi: c,
                    lo: c,
                    roy_a: roy,
                    roy_b: 0,
                    flag_a: self.ft[c as usize],
                    flag_b: false,
                    start: 0,
                    end: 0,
                });
                continue;
            }
            joker_classes(t, &cards[..3 - jokers], jokers, &mut classes);
            let start = self.r3.class.len() as u32;
            let (mut roy, mut flag) = (NONE, false);
            for &c in &classes {
                let here = rules.royalty_top[c as usize] as i32;
                self.note_top(c, here);
                roy = roy.max(here);
                flag |= self.ft[c as usize];
                self.r3.class.push(c);
                self.r3.roy.push(roy);
                self.r3.flag.push(flag);
            }
            self.three.push(Row {
                hi: *classes.last().unwrap(),
                lo: classes[0],
                roy_a: roy,
                roy_b: 0,
                flag_a: flag,
                flag_b: false,
                start,
                end: self.r3.class.len() as u32,
            });
        }
        self.top_maxima();
    }

    fn note_top(&mut self, class: u16, royalty: i32) {
        let c = class as usize;
        self.t_all[c] = self.t_all[c].max(royalty);
        if self.ft[c] {
            self.t_rep[c] = self.t_rep[c].max(royalty);
        }
    }

    /// The best worth of `royalties` (bottom and middle) plus any top not
    /// above `limit`, the bottom and middle's repeat conditions being `pair`.
    #[inline]
    fn with_top(&self, royalties: i32, pair: bool, limit: u16) -> f64 {
        let (all, rep) = (self.t_all[limit as usize], self.t_rep[limit as usize]);
        if all == NONE {
            return f64::NEG_INFINITY;
        }
        // Whether the set repeats without the top's own condition, and with it.
        let (alone, helped) = if self.all {
            (false, pair)
        } else {
            (pair, true)
        };
        let plain = self.worth(royalties + all, alone);
        if !alone && helped && rep != NONE {
            plain.max(self.worth(royalties + rep, true))
        } else {
            plain
        }
    }

    /// Upper bound of every set on each bottom (by its best reading): its
    /// royalty and the best middle-plus-top of any middle class not above it.
    fn bottom_bounds(&self) -> Vec<(f64, u64)> {
        let t = self.t;
        // By middle class: the best middle+top royalty of a middle reading
        // not above it, ignoring which cards the bottom takes; once whatever
        // the top, once when the middle side can still make the set repeat.
        // The classes present, as a bitset walked in ascending order: the
        // running maxima change only there, and only there are they read.
        let mut present = [0u64; CLASSES5.div_ceil(64)];
        let mut mark = |c: u16| present[c as usize >> 6] |= 1 << (c & 63);
        for row in &self.five {
            if row.start == row.end {
                mark(row.hi);
            } else {
                for &c in &self.r5.class[row.start as usize..row.end as usize] {
                    mark(c);
                }
            }
        }
        let of_class = |c: usize, m_all: i32, m_rep: i32| -> f64 {
            if m_all == NONE {
                return f64::NEG_INFINITY;
            }
            let rb = self.rules.royalty_bottom[c] as i32;
            let stay_roy = match (self.all, self.fb[c]) {
                (false, true) => rb + m_all,
                (false, false) | (true, true) => rb + m_rep,
                (true, false) => NONE,
            };
            let plain = self.worth(rb + m_all, false);
            if stay_roy > NONE / 2 {
                plain.max(self.worth(stay_roy, true))
            } else {
                plain
            }
        };
        // Each present class's bound as a bottom (other entries never read).
        let mut bound_of = vec![f64::NEG_INFINITY; CLASSES5];
        let (mut run_all, mut run_rep) = (NONE, NONE);
        for (w, &word) in present.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let c = w << 6 | bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let lim = t.top_limit[c] as usize;
                let rm = self.rules.royalty_middle[c] as i32;
                let (all, rep) = (self.t_all[lim], self.t_rep[lim]);
                if all != NONE {
                    run_all = run_all.max(rm + all);
                }
                // The middle side's best royalty in a repeating set (rows: middle, top).
                let r = match (self.all, self.fm[c]) {
                    (false, true) => rm + all,
                    (false, false) | (true, true) => rm + rep,
                    (true, false) => NONE,
                };
                if r > NONE / 2 {
                    run_rep = run_rep.max(r);
                }
                bound_of[c] = of_class(c, run_all, run_rep);
            }
        }
        let of_class = |c: u16| bound_of[c as usize];
        self.five
            .iter()
            .map(|row| {
                let bound = if row.start == row.end {
                    of_class(row.hi)
                } else {
                    self.r5.class[row.start as usize..row.end as usize]
                        .iter()
                        .map(|&c| of_class(c))
                        .fold(f64::NEG_INFINITY, f64::max)
                };
                let code = pack(row.hi, row.hi, t.top_limit[row.hi as usize]);
                (bound, code)
            })
            .collect()
    }

    fn run(&mut self) {
        let bounds = self.bottom_bounds();
        // Sort keys: best bound first, then the tie-break's code, then
        // enumeration order (bounds are never NaN; -inf sorts last).
        let key = |b: usize| -> u128 {
            let (bound, code) = bounds[b];
            let bits = bound.to_bits();
            let ordered = if bits >> 63 == 1 {
                !bits
            } else {
                bits | 1 << 63
            };
            (ordered as u128) << 64 | (code as u128) << 16 | (u16::MAX as usize - b) as u128
        };
        let mut candidates = Vec::new();
        // The best-bound bottom first: its set prunes most bottoms before the sort.
        let Some(first) = (0..bounds.len()).max_by_key(|&b| key(b)) else {
            return;
        };
        self.search_bottom(first as u32, &mut candidates);
        let mut order: Vec<u128> = (0..bounds.len())
            .filter(|&b| {
                b != first
                    && self
                        .best
                        .beaten_by(bounds[b].0, bounds[b].1, (b as u32, 0, 0))
            })
            .map(key)
            .collect();
        order.sort_unstable_by(|x, y| y.cmp(x));
        for k in order {
            let b = u16::MAX as usize - (k & 0xFFFF) as usize;
            let (bound, code) = bounds[b];
            if !self.best.beaten_by(bound, code, (b as u32, 0, 0)) {
                break;
            }
            self.search_bottom(b as u32, &mut candidates);
        }
    }

    /// Every (middle, top) on bottom `b` that can still beat the best.
    ///
    /// Middles are taken best key first from the deal's middle orders and
    /// the walk stops at the first whose key cannot beat the best: once over
    /// the sets that do not repeat (plain key), once more over those that
    /// do (repeat key) when the bottom leaves a repeat to the other rows.
    fn search_bottom(&mut self, b: u32, candidates: &mut Vec<Candidate>) {
        let bottom = self.five[b as usize];
        let bmask = self.lay.five[b as usize];
        candidates.clear();
        let repeats = self.rules.has_repeat();
        let passes: &[(bool, bool)] = match (repeats, self.all, bottom.flag_a) {
            (false, _, _) | (true, true, false) => &[(false, false)],
            (true, false, true) => &[(false, true)],
            (true, _, _) => &[(false, false), (true, true)],
        };
        self.stamp += 1;
        for &(repeat_list, stays) in passes {
            let order = if repeat_list {
                std::mem::take(&mut self.by_repeat)
            } else {
                std::mem::take(&mut self.by_plain)
            };
            // The bound is checked once a run of one key: within it the bound is the
            // same, and the walk only finds sets worth at most that bound, so one
            // that passed stays passed (the scan of middles that share the bottom's
            // cards was mostly this sum and test, a chain per entry).
            let mut begin = 0;
            for &(key, end) in &order.runs {
                let bound = self.worth(bottom.roy_a + key, stays);
                if !self.best.beaten_by(bound, u64::MAX, (b, 0, 0)) {
                    break;
                }
                for entry in &order.entries[begin..end as usize] {
                    if entry.mask & bmask != 0 || self.seen[entry.index as usize] == self.stamp {
                        continue;
                    }
                    self.seen[entry.index as usize] = self.stamp;
                    self.try_middle(b, bottom, bmask, entry.index, entry.mask, candidates);
                }
                begin = end as usize;
            }
            if repeat_list {
                self.by_repeat = order;
            } else {
                self.by_plain = order;
            }
        }
        if candidates.is_empty() {
            return;
        }
        // Best bound first, taken from a heap: the walk usually stops long
        // before the last candidate, so a full sort would be wasted.
        let mut heap: BinaryHeap<Candidate> = candidates.drain(..).collect();
        while let Some(cand) = heap.pop() {
            if !self
                .best
                .beaten_by(cand.bound, cand.code, (b, cand.middle, cand.top))
            {
                break;
            }
            self.read_board(b, cand.middle, cand.top);
        }
        *candidates = heap.into_vec();
    }

    /// One (bottom, middle) pair: bounded with the middle's own royalty, then its tops.
    fn try_middle(
        &mut self,
        b: u32,
        bottom: Row,
        bmask: u32,
        mi: u32,
        mmask: u32,
        candidates: &mut Vec<Candidate>,
    ) {
        let cap = bottom.hi;
        let middle = self.five[mi as usize];
        if middle.lo > cap {
            return;
        }
        let (roy_m, flag_m, cm) = if middle.start == middle.end {
            (middle.roy_b, middle.flag_b, middle.hi)
        } else {
            match self.r5.capped(&middle, cap) {
                Some(found) => found,
                None => return,
            }
        };
        let limit = self.t.top_limit[cm as usize];
        let royalties = bottom.roy_a + roy_m;
        let pair = self.combine(bottom.flag_a, flag_m);
        let bound = self.with_top(royalties, pair, limit);
        if !self.best.beaten_by(bound, pack(cap, cm, limit), (b, mi, 0)) {
            return;
        }
        let joker_pair = bottom.start != bottom.end || middle.start != middle.end;
        self.search_tops(
            (b, mi),
            bmask | mmask,
            (royalties, pair, cap, cm, limit),
            joker_pair,
            candidates,
        );
    }

    /// The tops left by a (bottom, middle) pair: exact for a board without
    /// jokers, a candidate with its bound for one with jokers.
    fn search_tops(
        &mut self,
        (b, mi): (u32, u32),
        used: u32,
        (royalties, pair, cb, cm, limit): (i32, bool, u16, u16, u16),
        joker_pair: bool,
        candidates: &mut Vec<Candidate>,
    ) {
        let lay = self.lay;
        let n = self.deal.len();
        let mut left = [0u32; MAX_CARDS - 10];
        let mut m = ((1u32 << n) - 1) & !used;
        for slot in left.iter_mut().take(n - 10) {
            *slot = m & m.wrapping_neg();
            m &= m - 1;
        }
        for rel in &lay.rel3 {
            let tmask = left[rel[0] as usize] | left[rel[1] as usize] | left[rel[2] as usize];
            let ti = lay.index3[tmask as usize] as u32;
            let top = self.three[ti as usize];
            if top.lo > limit {
                continue;
            }
            let (roy_t, flag_t, ct) = if top.start == top.end {
                (top.roy_a, top.flag_a, top.hi)
            } else {
                match self.r3.capped(&top, limit) {
                    Some(found) => found,
                    None => continue,
                }
            };
            let total = royalties + roy_t;
            let stays = self.combine(pair, flag_t);
            let value = self.worth(total, stays);
            let code = pack(cb, cm, ct);
            if !self.best.beaten_by(value, code, (b, mi, ti)) {
                continue;
            }
            if joker_pair || top.start != top.end {
                candidates.push(Candidate {
                    bound: value,
                    code,
                    middle: mi,
                    top: ti,
                });
            } else {
                self.best = Best {
                    value,
                    code,
                    at: (b, mi, ti),
                    royalties: total,
                    stays,
                };
            }
        }
    }

    /// A joker board as the engine reads it.
    fn read_board(&mut self, b: u32, mi: u32, ti: u32) {
        let lay = self.lay;
        let mut board = [0u8; 13];
        self.cards_of(lay.three[ti as usize], &mut board[0..3]);
        self.cards_of(lay.five[mi as usize], &mut board[3..8]);
        self.cards_of(lay.five[b as usize], &mut board[8..13]);
        let (_, e): ([u8; 13], BoardEval) = read_jokers(self.t, self.rules, &board);
        if e.fouled {
            return;
        }
        let royalties = e.royalty_total();
        let stays = e.stays(self.rules);
        let value = self.worth(royalties, stays);
        let code = pack(e.bottom, e.middle, e.top);
        if self.best.beaten_by(value, code, (b, mi, ti)) {
            self.best = Best {
                value,
                code,
                at: (b, mi, ti),
                royalties,
                stays,
            };
        }
    }

    fn answer(&self) -> FantasySet {
        let (b, mi, ti) = self.best.at;
        let lay = self.lay;
        let mut top = [0u8; 3];
        let mut middle = [0u8; 5];
        let mut bottom = [0u8; 5];
        self.cards_of(lay.three[ti as usize], &mut top);
        self.cards_of(lay.five[mi as usize], &mut middle);
        self.cards_of(lay.five[b as usize], &mut bottom);
        let used = lay.three[ti as usize] | lay.five[mi as usize] | lay.five[b as usize];
        let mut discards: Vec<u8> = (0..self.deal.len())
            .filter(|&p| used >> p & 1 == 0)
            .map(|p| self.deal[p])
            .collect();
        top.sort_unstable_by(|x, y| y.cmp(x));
        middle.sort_unstable_by(|x, y| y.cmp(x));
        bottom.sort_unstable_by(|x, y| y.cmp(x));
        discards.sort_unstable_by(|x, y| y.cmp(x));
        FantasySet {
            top,
            middle,
            bottom,
            discards,
            royalties: self.best.royalties,
            stays: self.best.stays,
            value: self.best.value,
        }
    }
}

fn check_stay(stay_value: f64) -> Result<(), CoreError> {
    if stay_value.is_finite() && stay_value >= 0.0 {
        Ok(())
    } else {
        Err(CoreError::Hand(format!(
            "stay_value must be a finite number ≥ 0, not {stay_value}"
        )))
    }
}

/// The set of 13 of `cards` maximising royalties + `stay_value` × repeat:
/// exact over every non-fouling split (see the module docs for the ties).
pub fn solve(cards: &[u8], rules: &Rules, stay_value: f64) -> Result<FantasySet, CoreError> {
    let wide: Vec<i64> = cards.iter().map(|&c| c as i64).collect();
    let deal = check_deal(&wide, rules.deck_size)?;
    check_stay(stay_value)?;
    Ok(solve_checked(deal, rules, stay_value))
}

/// A deal already checked: sorted here, solved.
fn solve_checked(mut deal: Vec<u8>, rules: &Rules, stay_value: f64) -> FantasySet {
    deal.sort_unstable();
    let mut search = Search::new(&deal, rules, stay_value);
    search.run();
    // A non-fouling set always exists: the strongest 5 cards, the strongest
    // 5 of the rest and any 3 left never foul (jokers read as unused cards).
    assert!(search.best.value > f64::NEG_INFINITY, "no legal set found");
    search.answer()
}

/// [`solve`] for many deals, in parallel; the first bad deal is the error.
pub fn solve_batch(
    deals: &[Vec<u8>],
    rules: &Rules,
    stay_value: f64,
) -> Result<Vec<FantasySet>, CoreError> {
    check_stay(stay_value)?;
    let checked = deals
        .iter()
        .map(|deal| {
            let wide: Vec<i64> = deal.iter().map(|&c| c as i64).collect();
            check_deal(&wide, rules.deck_size)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(checked
        .into_par_iter()
        .map(|deal| solve_checked(deal, rules, stay_value))
        .collect())
}

/// Every split scored plainly, no bounds: the reference of the tests.
/// Returns (value, royalties, stays, (bottom, middle, top) classes, board).
#[cfg(test)]
pub fn brute_force(
    cards: &[u8],
    rules: &Rules,
    stay_value: f64,
) -> (f64, i32, bool, u64, [u8; 13]) {
    brute_force_under(cards, rules, stay_value, |_, _, _| i32::MAX)
}

/// [`brute_force`] skipping the splits whose royalties' ceiling, `most(top, middle,
/// bottom)` over the sorted deal's positions, plus the stay value is below the best value
/// read so far: the same answer, ties included, where the ceiling holds.
#[cfg(test)]
pub(crate) fn brute_force_under(
    cards: &[u8],
    rules: &Rules,
    stay_value: f64,
    most: impl Fn(&[usize], &[usize], &[usize]) -> i32,
) -> (f64, i32, bool, u64, [u8; 13]) {
    let t = Tables::get();
    let mut deal = cards.to_vec();
    deal.sort_unstable();
    let mut best: BruteBest = None;
    every_split(deal.len(), |top, middle, bottom| {
        let ceiling = most(top, middle, bottom) as f64 + stay_value.max(0.0);
        if best.as_ref().is_some_and(|(v, ..)| ceiling < *v) {
            return;
        }
        let board = split_board(&deal, top, middle, bottom);
        keep_if_best(t, rules, stay_value, board, &mut best);
    });
    let (value, code, royalties, stays, board) = best.expect("a legal set exists");
    (value, royalties, stays, code, board)
}

/// Every split of `n` dealt cards' positions into a bottom of 5, a middle of 5 and a top
/// of 3 (the rest discarded), each handed to `visit(top, middle, bottom)` once, in one order.
#[cfg(test)]
fn every_split(n: usize, mut visit: impl FnMut(&[usize], &[usize], &[usize])) {
    let positions: Vec<usize> = (0..n).collect();
    for bottom in combinations::<5>(n) {
        let bottom_at: Vec<usize> = bottom.iter().map(|&i| i as usize).collect();
        let rest: Vec<usize> = positions
            .iter()
            .copied()
            .filter(|p| !bottom.contains(&(*p as u8)))
            .collect();
        for middle in combinations::<5>(n - 5) {
            let middle_at: Vec<usize> = middle.iter().map(|&i| rest[i as usize]).collect();
            let left: Vec<usize> = (0..n - 5)
                .filter(|i| !middle.contains(&(*i as u8)))
                .map(|i| rest[i])
                .collect();
            for top in combinations::<3>(n - 10) {
                let top_at: Vec<usize> = top.iter().map(|&i| left[i as usize]).collect();
                visit(&top_at, &middle_at, &bottom_at);
            }
        }
    }
}

/// The board of a split: the deal's cards at the top's, middle's and bottom's positions.
#[cfg(test)]
fn split_board(deal: &[u8], top: &[usize], middle: &[usize], bottom: &[usize]) -> [u8; 13] {
    let mut board = [0u8; 13];
    for (slot, &i) in board.iter_mut().zip(top.iter().chain(middle).chain(bottom)) {
        *slot = deal[i];
    }
    board
}

/// The best set a brute force has seen: (value, classes, royalties, stays, board).
#[cfg(test)]
type BruteBest = Option<(f64, u64, i32, bool, [u8; 13])>;

/// One board of a brute force: kept in `best` if it is live and beats it (by value, then
/// by its rows' classes, so every brute force breaks ties alike).
#[cfg(test)]
fn keep_if_best(t: &Tables, rules: &Rules, stay_value: f64, board: [u8; 13], best: &mut BruteBest) {
    let (_, e) = read_jokers(t, rules, &board);
    if e.fouled {
        return;
    }
    let stays = e.stays(rules);
    let value = e.royalty_total() as f64 + if stays { stay_value } else { 0.0 };
    let code = pack(e.bottom, e.middle, e.top);
    if best
        .as_ref()
        .is_none_or(|(v, c, ..)| (value, code) > (*v, *c))
    {
        *best = Some((value, code, e.royalty_total(), stays, board));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{cards, JOKER_1, JOKER_2};
    use crate::rng::Stream;

    fn text(row: &[u8]) -> String {
        row.iter()
            .map(|&c| format_card(c))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn shown(set: &FantasySet) -> String {
        format!(
            "{} / {} / {}",
            text(&set.top),
            text(&set.middle),
            text(&set.bottom)
        )
    }

    fn sorted_desc(row: &[u8]) -> Vec<u8> {
        let mut v = row.to_vec();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    }

    #[test]
    fn the_python_doctest_deal() {
        // Bottom royal flush (25) + middle 999-55 full house (12) + top 33Q (0)
        // = 37, and the royal flush repeats (quads or better on the bottom);
        // 2s thrown: 37 + 10 = 47.
        let rules = Rules::pineapple_progressive();
        let deal = cards("Ah Kh Qh Jh Th 9s 9d 9c 5s 5d 3c 3d 2s Qd");
        let set = solve(&deal, &rules, 10.0).unwrap();
        assert_eq!(shown(&set), "Qd 3d 3c / 9s 9d 9c 5s 5d / Ah Kh Qh Jh Th");
        assert_eq!(text(&set.discards), "2s");
        assert_eq!((set.royalties, set.stays, set.value), (37, true, 47.0));
    }

    #[test]
    fn a_joker_completes_the_royal_flush() {
        // Ah Kh Qh Jh + joker reads as Th: the same 37 + 10 as the deal above.
        let rules = Rules::joker_pineapple();
        let mut deal = cards("Ah Kh Qh Jh 9s 9d 9c 5s 5d 3c 3d 2s Qd");
        deal.push(JOKER_1);
        let set = solve(&deal, &rules, 10.0).unwrap();
        assert_eq!(shown(&set), "Qd 3d 3c / 9s 9d 9c 5s 5d / X1 Ah Kh Qh Jh");
        assert_eq!((set.royalties, set.stays, set.value), (37, true, 47.0));
    }

    #[test]
    fn the_stay_value_decides_between_royalties_and_a_repeat() {
        // Without trips on top the most is top AA (9) + middle 222JJ (12) +
        // bottom KKKQQ (6) = 27; with 222 on top (10, a repeat) the middle
        // can only be KKK (2) and the bottom the club flush (4): 16 + stay.
        let rules = Rules::pineapple_progressive();
        let deal = cards("Ac Ad 2c 2d 2h Qc Qd Kc Kd Kh Jc Jd 9c 8c");
        let no = "Ad Ac 9c / Jd Jc 2h 2d 2c / Kh Kd Kc Qd Qc";
        let yes = "2h 2d 2c / Ad Kh Kd Kc Qd / Ac Qc Jc 9c 8c";
        for (stay, want, royalties) in [(11.0, no, 27), (12.0, yes, 16)] {
            let set = solve(&deal, &rules, stay).unwrap();
            assert_eq!(shown(&set), want);
            assert_eq!(set.royalties, royalties);
        }
    }

    #[test]
    fn bad_deals_are_refused() {
        let deck = |text: &str| -> Vec<i64> { cards(text).iter().map(|&c| c as i64).collect() };
        let err = |r: Result<Vec<u8>, CoreError>| r.unwrap_err().to_string();
        assert_eq!(
            err(check_deal(&deck("As Kd Qh"), 52)),
            "3 cards; a Fantasyland deal has 13 to 18"
        );
        let mut with_joker = deck("As Qh Jd Tc 9s 8d 7h 6c 5s 4d 3h 2c Kc");
        with_joker.push(52);
        assert_eq!(
            err(check_deal(&with_joker, 52)),
            "joker X1 in the standard52 deck, which has no jokers (jokers need the joker54 deck)"
        );
        let mut more = with_joker.clone();
        more.extend([53, -1]);
        assert_eq!(
            err(check_deal(&more, 52)),
            "jokers X1 X2 in the standard52 deck, which has no jokers (jokers need the joker54 \
             deck); card ids [-1] are not in the standard52 deck"
        );
        assert!(check_deal(&with_joker, 54).is_ok());
        let twice = deck("As As Qh Jd Tc 9s 8d 7h 6c 5s 4d 3h 2c Kc");
        assert_eq!(err(check_deal(&twice, 52)), "duplicate card As");
        let mut negative = deck("As Qh Jd Tc 9s 8d 7h 6c 5s 4d 3h 2c Kc");
        negative.push(-1);
        assert_eq!(
            err(check_deal(&negative, 52)),
            "card ids [-1] are not in the standard52 deck"
        );
    }

    fn random_deal(stream: &mut Stream, count: usize, jokers: usize) -> Vec<u8> {
        let mut deck: Vec<u8> = (0..52).collect();
        stream.choose_first(&mut deck, count - jokers);
        let mut deal = deck[..count - jokers].to_vec();
        deal.extend([JOKER_1, JOKER_2].iter().take(jokers));
        deal
    }

    /// The solver's set equals the brute force's: value, royalties, repeat,
    /// and the very same rows.
    fn agree(deal: &[u8], rules: &Rules, stay: f64) {
        let set = solve(deal, rules, stay).unwrap();
        let (value, royalties, stays, _, board) = brute_force(deal, rules, stay);
        assert_eq!(
            (set.value, set.royalties, set.stays),
            (value, royalties, stays),
            "{}",
            text(deal)
        );
        assert_eq!(
            set.top.to_vec(),
            sorted_desc(&board[0..3]),
            "{}",
            text(deal)
        );
        assert_eq!(set.middle.to_vec(), sorted_desc(&board[3..8]));
        assert_eq!(set.bottom.to_vec(), sorted_desc(&board[8..13]));
    }

    /// Rulesets to vary the objective: progressive, no repeat at all, and a
    /// strict repeat needing every row (trips on top and quads on the bottom).
    /// [`variants`] dealt from a deck with two jokers.
    fn joker_variants() -> Vec<(Rules, f64)> {
        let mut cases = variants();
        for (rules, _) in cases.iter_mut() {
            rules.deck_size = 54;
        }
        cases
    }

    fn variants() -> Vec<(Rules, f64)> {
        let progressive = Rules::pineapple_progressive();
        let none = Rules {
            repeat_top: None,
            repeat_bottom: None,
            ..progressive.clone()
        };
        let strict = Rules {
            repeat_all: true,
            ..progressive.clone()
        };
        vec![
            (progressive.clone(), 10.0),
            (none, 0.0),
            (strict, 25.0),
            (progressive, 10.23),
        ]
    }

    #[test]
    fn equals_the_brute_force_without_jokers() {
        let cases = variants();
        for (count, deals) in [(13, 60), (14, 40), (15, 8)] {
            for i in 0..deals {
                let mut stream = Stream::new(&[1, count as u64, i as u64]);
                let deal = random_deal(&mut stream, count, 0);
                let (rules, stay) = &cases[i % cases.len()];
                agree(&deal, rules, *stay);
            }
        }
    }

    #[test]
    fn equals_the_brute_force_with_jokers() {
        let cases = joker_variants();
        for (count, jokers, deals) in [(13, 1, 12), (13, 2, 2), (14, 1, 2)] {
            for i in 0..deals {
                let mut stream = Stream::new(&[2, count as u64, jokers as u64, i as u64]);
                let deal = random_deal(&mut stream, count, jokers);
                let (rules, stay) = &cases[i % cases.len()];
                agree(&deal, rules, *stay);
            }
        }
    }

    /// Past 14 cards with jokers: 15-card deals with one joker and with two, the solver's
    /// set against the brute force, which reads every split by the engine's whole-board
    /// reading (`read_jokers`): 3,003 bottoms x 252 middles x 10 tops = 7,567,560 boards a
    /// deal, of which all but the 14 x 72,072 = 1,009,008 that discard the joker hold it
    /// (with two jokers, all but the 72,072 that discard both).
    #[test]
    fn equals_the_brute_force_with_jokers_at_15_cards() {
        let cases = joker_variants();
        for (jokers, i) in [(1usize, 0usize), (2, 1)] {
            let mut stream = Stream::new(&[7, 15, jokers as u64, i as u64]);
            let deal = random_deal(&mut stream, 15, jokers);
            let (rules, stay) = &cases[i % cases.len()];
            let set = solve(&deal, rules, *stay).unwrap();
            let (value, royalties, stays, _, board) = bounded_brute_force(&deal, rules, *stay);
            assert_eq!(
                (set.value, set.royalties, set.stays),
                (value, royalties, stays),
                "{}",
                text(&deal)
            );
            assert_eq!(set.top.to_vec(), sorted_desc(&board[0..3]));
            assert_eq!(set.middle.to_vec(), sorted_desc(&board[3..8]));
            assert_eq!(set.bottom.to_vec(), sorted_desc(&board[8..13]));
        }
    }

    /// [`brute_force`], the same splits in the same order, skipping only boards that
    /// cannot be worth the best value read so far: a board is read (`read_jokers`) unless
    /// its rows' best royalties, each over every card its jokers could stand for (a
    /// relaxation: copies of the other rows' cards allowed, fouls ignored), plus the stay
    /// value are below that best.  A board skipped is worth less than the one kept, so the
    /// answer, rows and ties included, is the brute force's; it reads a fraction of the
    /// 7.6 million boards of a 15-card deal.
    fn bounded_brute_force(
        cards: &[u8],
        rules: &Rules,
        stay_value: f64,
    ) -> (f64, i32, bool, u64, [u8; 13]) {
        let t = Tables::get();
        let mut deal = cards.to_vec();
        deal.sort_unstable();
        let n = deal.len();
        // The most a row of these deal positions could earn, by row (top, middle, bottom).
        let most = |mask: usize, royalty: &[i16]| -> i32 {
            let row: Vec<u8> = (0..n)
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| deal[i])
                .collect();
            let real: Vec<u8> = row.iter().copied().filter(|&c| !is_joker(c)).collect();
            let free: Vec<u8> = (0..52).filter(|c| !real.contains(c)).collect();
            let mut readings: Vec<Vec<u8>> = vec![real.clone()];
            for _ in real.len()..row.len() {
                readings = readings
                    .iter()
                    .flat_map(|r| {
                        free.iter()
                            .filter(|c| !r.contains(c))
                            .map(|&c| [r.as_slice(), &[c]].concat())
                            .collect::<Vec<_>>()
                    })
                    .collect();
            }
            readings
                .iter()
                .map(|r| {
                    let class = if r.len() == 3 {
                        t.class3(r)
                    } else {
                        t.class5(r)
                    };
                    royalty[class as usize] as i32
                })
                .max()
                .unwrap()
        };
        let table = |size: u32, royalty: &[i16]| -> Vec<i32> {
            (0..1usize << n)
                .map(|mask| {
                    if mask.count_ones() == size {
                        most(mask, royalty)
                    } else {
                        0
                    }
                })
                .collect()
        };
        let bound = [
            table(3, &rules.royalty_top),
            table(5, &rules.royalty_middle),
            table(5, &rules.royalty_bottom),
        ];
        let bit = |positions: &[usize]| positions.iter().fold(0usize, |m, &p| m | 1 << p);
        brute_force_under(&deal, rules, stay_value, |top, middle, bottom| {
            bound[0][bit(top)] + bound[1][bit(middle)] + bound[2][bit(bottom)]
        })
    }

    #[test]
    fn the_bounded_brute_force_is_the_brute_force() {
        // 13 cards with jokers, where the plain brute force is quick (72,072 boards; 14
        // cards read a million, 10 s): the same value, classes and very rows.
        let cases = joker_variants();
        for (count, jokers, i) in [(13, 1, 0), (13, 2, 1), (13, 1, 3)] {
            let mut stream = Stream::new(&[8, count as u64, jokers as u64, i as u64]);
            let deal = random_deal(&mut stream, count, jokers);
            let (rules, stay) = &cases[i % cases.len()];
            assert_eq!(
                bounded_brute_force(&deal, rules, *stay),
                brute_force(&deal, rules, *stay),
                "{}",
                text(&deal)
            );
        }
    }

    /// Every split of a deal without jokers, each row's class looked up once per
    /// subset (the plain brute force reads every board from its cards: too slow past
    /// 15 cards): the best (value, classes) and its royalties and repeat.
    fn exhaustive(deal: &[u8], rules: &Rules, stay: f64) -> (f64, i32, bool, u64) {
        let t = Tables::get();
        let n = deal.len();
        let full = (1u32 << n) - 1;
        let mut class = vec![0u16; 1 << n];
        for mask in 0..=full {
            let k = mask.count_ones();
            if k == 3 || k == 5 {
                let row: Vec<u8> = (0..n)
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| deal[i])
                    .collect();
                class[mask as usize] = if k == 3 {
                    t.class3(&row)
                } else {
                    t.class5(&row)
                };
            }
        }
        // Every k-card subset of `within`, by walking its submasks.
        let subsets = |within: u32, k: u32| {
            let mut out = Vec::new();
            let mut sub = within;
            loop {
                if sub.count_ones() == k {
                    out.push(sub);
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & within;
            }
            out
        };
        let mut best: Option<(f64, u64, i32, bool)> = None;
        for bottom in subsets(full, 5) {
            let cb = class[bottom as usize];
            for middle in subsets(full & !bottom, 5) {
                let cm = class[middle as usize];
                if cm > cb {
                    continue; // fouled, whatever the top
                }
                for top in subsets(full & !bottom & !middle, 3) {
                    let e = BoardEval::from_classes(t, rules, class[top as usize], cm, cb, None);
                    if e.fouled {
                        continue;
                    }
                    let stays = e.stays(rules);
                    let value = e.royalty_total() as f64 + if stays { stay } else { 0.0 };
                    let code = pack(e.bottom, e.middle, e.top);
                    if best.is_none_or(|(v, c, ..)| (value, code) > (v, c)) {
                        best = Some((value, code, e.royalty_total(), stays));
                    }
                }
            }
        }
        let (value, code, royalties, stays) = best.expect("a legal set exists");
        (value, royalties, stays, code)
    }

    /// The solver's set is worth what the exhaustive search finds best, with the
    /// same rows' classes (a tie between suits may keep other cards of those classes).
    fn agree_exhaustive(deal: &[u8], rules: &Rules, stay: f64) {
        let t = Tables::get();
        let set = solve(deal, rules, stay).unwrap();
        let code = pack(
            t.class5(&set.bottom),
            t.class5(&set.middle),
            t.class3(&set.top),
        );
        assert_eq!(
            (set.value, set.royalties, set.stays, code),
            exhaustive(deal, rules, stay),
            "{}",
            text(deal)
        );
    }

    #[test]
    fn the_exhaustive_reference_is_the_brute_force() {
        let cases = variants();
        for i in 0..6 {
            let mut stream = Stream::new(&[5, i as u64]);
            let deal = random_deal(&mut stream, 13 + i % 3, 0);
            let (rules, stay) = &cases[i % cases.len()];
            let (value, royalties, stays, code, _) = brute_force(&deal, rules, *stay);
            assert_eq!(
                exhaustive(&deal, rules, *stay),
                (value, royalties, stays, code)
            );
        }
    }

    #[test]
    fn equals_the_exhaustive_search_at_16_and_17_cards() {
        exhaustive_deals(&[(16, 3), (17, 1)]);
    }

    /// 18 cards (a custom ruleset may deal them): one deal, ~10 s of exhaustive search.
    #[test]
    #[ignore = "slow: cargo test -- --ignored"]
    fn equals_the_exhaustive_search_at_18_cards() {
        exhaustive_deals(&[(18, 1)]);
    }

    fn exhaustive_deals(counts: &[(usize, usize)]) {
        let cases = variants();
        for &(count, deals) in counts {
            for i in 0..deals {
                let mut stream = Stream::new(&[6, count as u64, i as u64]);
                let deal = random_deal(&mut stream, count, 0);
                let (rules, stay) = &cases[(i + count) % cases.len()];
                agree_exhaustive(&deal, rules, *stay);
            }
        }
    }

    #[test]
    fn the_answer_does_not_depend_on_the_input_order() {
        let rules = Rules::pineapple_progressive();
        let mut stream = Stream::new(&[3]);
        for _ in 0..20 {
            let deal = random_deal(&mut stream, 16, 0);
            let mut reversed = deal.clone();
            reversed.reverse();
            assert_eq!(
                solve(&deal, &rules, 10.0).unwrap(),
                solve(&reversed, &rules, 10.0).unwrap()
            );
        }
    }

    #[test]
    fn the_batch_equals_one_by_one() {
        let rules = Rules::joker_pineapple();
        let mut stream = Stream::new(&[4]);
        let deals: Vec<Vec<u8>> = (0..6)
            .map(|i| random_deal(&mut stream, 14 + i % 3, i % 2))
            .collect();
        let batch = solve_batch(&deals, &rules, 10.0).unwrap();
        for (deal, set) in deals.iter().zip(&batch) {
            assert_eq!(&solve(deal, &rules, 10.0).unwrap(), set);
        }
        let mut bad = deals.clone();
        bad[3].truncate(5);
        assert!(solve_batch(&bad, &rules, 10.0).is_err());
    }

    /// The nested walk of a deal without jokers ranks the subsets in the
    /// layout's order: subset i's row is the class of the layout's i-th
    /// mask's cards, and the top tables are those the plain walk leaves.
    #[test]
    fn the_nested_walk_ranks_the_layout_in_order() {
        let t = Tables::get();
        let rules = Rules::pineapple_progressive();
        let mut stream = Stream::new(&[25]);
        for n in MIN_CARDS..=MAX_CARDS {
            let mut deal = random_deal(&mut stream, n, 0);
            deal.sort_unstable();
            let search = Search::new(&deal, &rules, 10.0);
            let lay = layout(n);
            assert_eq!(search.five.len(), lay.five.len());
            assert_eq!(search.three.len(), lay.three.len());
            let (mut five, mut three) = ([0u8; 5], [0u8; 3]);
            let mut t_all = vec![NONE; CLASSES3];
            for (row, &mask) in search.five.iter().zip(&lay.five) {
                search.cards_of(mask, &mut five);
                assert_eq!((row.hi, row.lo), (t.class5(&five), t.class5(&five)));
                assert_eq!(row.roy_a, rules.royalty_bottom[row.hi as usize] as i32);
                assert_eq!(row.roy_b, rules.royalty_middle[row.hi as usize] as i32);
            }
            for (row, &mask) in search.three.iter().zip(&lay.three) {
                search.cards_of(mask, &mut three);
                let class = t.class3(&three) as usize;
                assert_eq!(row.hi as usize, class);
                assert_eq!(row.roy_a, rules.royalty_top[class] as i32);
                t_all[class] = t_all[class].max(row.roy_a);
            }
            for c in 1..CLASSES3 {
                t_all[c] = t_all[c].max(t_all[c - 1]);
            }
            assert_eq!(search.t_all, t_all);
        }
    }
}
