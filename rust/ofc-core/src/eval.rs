//! Row strength: the twin of `ofc_stats/engine/rank.py`.
//!
//! [`rank_ranks`] is the readable rule (category and deciding ranks, the same
//! integer key on one scale for 3- and 5-card rows).  [`Tables`] ranks every
//! possible row once with it and gives each distinct key a dense *class*:
//! 0..7461 for 5-card rows and 0..454 for 3-card rows, ascending with
//! strength.  These classes are what the dataset stores, so they must equal
//! the Python definition's (a property test checks every class).
//!
//! Ranking a row is a walk over the rank multiset (`next` table, 62 KB) and
//! one last lookup; a flush is looked up by its 13-bit rank mask.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::cards::{rank, suit};

pub const CLASSES5: usize = 7462;
pub const CLASSES3: usize = 455;
const KEY_BASE: i32 = 14;
const CATEGORY_WEIGHT: i32 = KEY_BASE * KEY_BASE * KEY_BASE * KEY_BASE * KEY_BASE;
const ACE: u8 = 12;
const FIVE: u8 = 3;

/// Poker categories, as `ofc_stats.engine.rank.Category`.
pub mod category {
    pub const HIGH_CARD: u8 = 0;
    pub const PAIR: u8 = 1;
    pub const TWO_PAIR: u8 = 2;
    pub const THREE_OF_A_KIND: u8 = 3;
    pub const STRAIGHT: u8 = 4;
    pub const FLUSH: u8 = 5;
    pub const FULL_HOUSE: u8 = 6;
    pub const FOUR_OF_A_KIND: u8 = 7;
    pub const STRAIGHT_FLUSH: u8 = 8;
}

/// A row's category and deciding ranks (0 = deuce), most significant first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRank {
    pub category: u8,
    pub ranks: Vec<u8>,
}

impl RowRank {
    /// One integer on a scale shared by 3- and 5-card rows; bigger is stronger.
    /// A 3-card row's missing kickers count below a deuce, so a top row that
    /// ties the middle's first three cards is not above it.
    pub fn key(&self) -> i32 {
        let mut key = self.category as i32 * CATEGORY_WEIGHT;
        for (position, &r) in self.ranks.iter().enumerate() {
            key += (r as i32 + 1) * KEY_BASE.pow(4 - position as u32);
        }
        key
    }
}

/// The rule on ranks alone: `ranks` of a 3- or 5-card row, `flush` when all
/// five cards share a suit.
pub fn rank_ranks(ranks: &[u8], flush: bool) -> RowRank {
    use category::*;
    let mut counts = [0u8; 13];
    for &r in ranks {
        counts[r as usize] += 1;
    }
    // Ranks grouped by multiplicity, then by rank: the deciding order in poker.
    let mut grouped: Vec<(u8, u8)> = (0..13u8)
        .filter(|&r| counts[r as usize] > 0)
        .map(|r| (counts[r as usize], r))
        .collect();
    grouped.sort_unstable_by(|a, b| b.cmp(a));
    let ordered: Vec<u8> = grouped.iter().map(|&(_, r)| r).collect();
    let shape: Vec<u8> = grouped.iter().map(|&(c, _)| c).collect();
    if ranks.len() == 3 {
        let category = match shape.as_slice() {
            [3] => THREE_OF_A_KIND,
            [2, 1] => PAIR,
            _ => HIGH_CARD,
        };
        return RowRank {
            category,
            ranks: ordered,
        };
    }
    let straight_high = if ordered.len() == 5 {
        if ordered[0] - ordered[4] == 4 {
            Some(ordered[0])
        } else if ordered == [ACE, FIVE, 2, 1, 0] {
            Some(FIVE) // the wheel A-2-3-4-5 is five-high
        } else {
            None
        }
    } else {
        None
    };
    if let Some(high) = straight_high {
        let category = if flush { STRAIGHT_FLUSH } else { STRAIGHT };
        return RowRank {
            category,
            ranks: vec![high],
        };
    }
    if flush {
        return RowRank {
            category: FLUSH,
            ranks: ordered,
        };
    }
    let category = match shape.as_slice() {
        [4, 1] => FOUR_OF_A_KIND,
        [3, 2] => FULL_HOUSE,
        [3, 1, 1] => THREE_OF_A_KIND,
        [2, 2, 1] => TWO_PAIR,
        [2, 1, 1, 1] => PAIR,
        _ => HIGH_CARD,
    };
    RowRank {
        category,
        ranks: ordered,
    }
}

/// The rule on real cards (distinct, no jokers): the naive evaluator the tables are checked by.
pub fn rank_row(cards: &[u8]) -> RowRank {
    let ranks: Vec<u8> = cards.iter().map(|&c| rank(c)).collect();
    let flush = cards.len() == 5 && cards.iter().all(|&c| suit(c) == suit(cards[0]));
    rank_ranks(&ranks, flush)
}

/// Every lookup table of the row ranker, built once per process.
pub struct Tables {
    /// class -> shared-scale key, ascending.
    pub key5: Vec<i32>,
    pub key3: Vec<i32>,
    /// 5-card class -> the highest 3-card class not above it (the foul rule's limit).
    pub top_limit: Vec<u16>,
    /// class -> category and deciding ranks.
    pub rank5: Vec<RowRank>,
    pub rank3: Vec<RowRank>,
    /// multiset id * 13 + rank -> (multiset id with that rank added) * 13, sizes 0..4:
    /// the walk's states are kept times 13, ready to index the next step.  Ids
    /// go by size (the empty multiset 0, then the singles, pairs, ...), so the walk to a
    /// 4-card row touches the first few hundred rows only, and the last lookups below
    /// use only the rows of the sizes they finish: parts small enough to stay in cache.
    next: Walk,
    /// 4-card multiset id * 13 + rank -> 5-card class without a flush.
    last5: Walk,
    /// 2-card multiset id * 13 + rank -> 3-card class.
    last3: Walk,
    /// 13-bit rank mask of a suited row -> 5-card class.
    flush5: Box<[u16; 1 << 16]>,
    /// `top_limit` for [`Tables::top_fouls`], by any `u16` class (no bounds check).
    fouls: Box<[u16; 1 << 16]>,
}

/// A walk table, indexed by a state (a `u16`) plus a rank (a card id over 4,
/// below 64): sized for every such index, so the compiler drops the bounds
/// checks (the lookups are most of a bot's instructions); the entries past the
/// used ones are never read, and their pages never touched after the build.
type Walk = Box<[u16; WALK]>;
const WALK: usize = (1 << 16) + 64;

/// `list` in a table of 2^16 entries (the rest 0).
fn sized_copy(list: &[u16]) -> Box<[u16; 1 << 16]> {
    let mut table = vec![0; 1 << 16];
    table[..list.len()].copy_from_slice(list);
    table.into_boxed_slice().try_into().expect("2^16 entries")
}

fn walk_table() -> Walk {
    vec![NONE; WALK]
        .into_boxed_slice()
        .try_into()
        .expect("WALK entries")
}

const NONE: u16 = u16::MAX;
/// The first multiset id of 2, 3 and 4 cards (1 empty + 13 singles; + 91 pairs;
/// + 455 triples, ids by size).
const FIRST2: usize = 14;
const FIRST3: usize = FIRST2 + 91;
const FIRST4: usize = FIRST3 + 455;

/// The first cards of a row, ranked so far: rows that share them (the simulator's
/// look-ahead completes one row many times) are finished from here
/// ([`Tables::add`], [`Tables::finish5`], [`Tables::finish3`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partial {
    /// The rank multiset's id in the walk table, times 13 (a row of `next`).
    state: u16,
    /// The ranks present, as bits (a flush's lookup).
    mask: u16,
    /// The suits present, as bits: one bit when every card shares a suit (an
    /// or, where keeping the one suit took two comparisons).
    suits: u8,
}

impl Default for Partial {
    /// The empty row.
    fn default() -> Partial {
        Tables::NO_CARDS
    }
}

fn multisets(max_size: usize) -> Vec<Vec<u8>> {
    fn grow(out: &mut Vec<Vec<u8>>, current: &mut Vec<u8>, from: u8, left: usize) {
        out.push(current.clone());
        if left == 0 {
            return;
        }
        for r in from..13 {
            if current.iter().filter(|&&x| x == r).count() < 4 {
                current.push(r);
                grow(out, current, r, left - 1);
                current.pop();
            }
        }
    }
    let mut out = Vec::new();
    grow(&mut out, &mut Vec::new(), 0, max_size);
    out
}

fn sorted_with(ms: &[u8], r: u8) -> Vec<u8> {
    let mut grown = ms.to_vec();
    grown.push(r);
    grown.sort_unstable();
    grown
}

fn dense(ranked: &[RowRank]) -> (Vec<i32>, Vec<RowRank>, HashMap<i32, u16>) {
    let mut by_key: Vec<(i32, RowRank)> = ranked.iter().map(|r| (r.key(), r.clone())).collect();
    by_key.sort_by_key(|(k, _)| *k);
    by_key.dedup_by_key(|(k, _)| *k);
    let index = by_key
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (*k, i as u16))
        .collect();
    let keys = by_key.iter().map(|(k, _)| *k).collect();
    let ranks = by_key.into_iter().map(|(_, r)| r).collect();
    (keys, ranks, index)
}

impl Tables {
    /// Build every table from [`rank_ranks`] (a few milliseconds).
    pub fn build() -> Tables {
        let mut small = multisets(4);
        small.sort_by_key(Vec::len); // stable: by size, then as grown
        assert_eq!(small.iter().position(|m| m.len() == 2), Some(FIRST2));
        assert_eq!(small.iter().position(|m| m.len() == 4), Some(FIRST4));
        let id: HashMap<Vec<u8>, u16> = small
            .iter()
            .enumerate()
            .map(|(i, ms)| (ms.clone(), i as u16))
            .collect();
        let fives: Vec<Vec<u8>> = multisets(5).into_iter().filter(|m| m.len() == 5).collect();
        let mut ranked5 = Vec::new();
        for ms in &fives {
            ranked5.push(rank_ranks(ms, false));
            if ms.windows(2).all(|w| w[0] != w[1]) {
                ranked5.push(rank_ranks(ms, true));
            }
        }
        let threes: Vec<Vec<u8>> = multisets(3).into_iter().filter(|m| m.len() == 3).collect();
        let ranked3: Vec<RowRank> = threes.iter().map(|ms| rank_ranks(ms, false)).collect();
        let (key5, rank5, class5) = dense(&ranked5);
        let (key3, rank3, class3) = dense(&ranked3);
        assert_eq!(key5.len(), CLASSES5);
        assert_eq!(key3.len(), CLASSES3);

        assert!(small.len() * 13 <= 1 << 16, "walk states fit a u16");
        let (mut next, mut last5, mut last3) = (walk_table(), walk_table(), walk_table());
        for (i, ms) in small.iter().enumerate() {
            for r in 0..13u8 {
                let count = ms.iter().filter(|&&x| x == r).count();
                if count >= 4 {
                    continue;
                }
                let grown = sorted_with(ms, r);
                if let Some(&j) = id.get(&grown) {
                    next[i * 13 + r as usize] = j * 13;
                }
                if grown.len() == 5 {
                    last5[i * 13 + r as usize] = class5[&rank_ranks(&grown, false).key()];
                }
                if grown.len() == 3 {
                    last3[i * 13 + r as usize] = class3[&rank_ranks(&grown, false).key()];
                }
            }
        }
        let mut flush5: Box<[u16; 1 << 16]> = vec![NONE; 1 << 16]
            .into_boxed_slice()
            .try_into()
            .expect("2^16 entries");
        for (mask, slot) in flush5.iter_mut().enumerate().take(1 << 13) {
            if (mask as u32).count_ones() == 5 {
                let ranks: Vec<u8> = (0..13u8).filter(|r| mask >> r & 1 == 1).collect();
                *slot = class5[&rank_ranks(&ranks, true).key()];
            }
        }
        // searchsorted(key3, key5, side="right") - 1, as the Python tables.
        let top_limit: Vec<u16> = key5
            .iter()
            .map(|&k| (key3.partition_point(|&t| t <= k) - 1) as u16)
            .collect();
        Tables {
            key5,
            key3,
            fouls: sized_copy(&top_limit),
            top_limit,
            rank5,
            rank3,
            next,
            last5,
            last3,
            flush5,
        }
    }

    /// The process's tables, built on first use.
    pub fn get() -> &'static Tables {
        static TABLES: OnceLock<Tables> = OnceLock::new();
        TABLES.get_or_init(Tables::build)
    }

    /// The class (0..7461) of a 5-card row of distinct real cards.
    #[inline]
    pub fn class5(&self, c: &[u8]) -> u16 {
        let r = |i: usize| rank(c[i]) as usize;
        let mut state = self.next[r(0)] as usize;
        state = self.next[state + r(1)] as usize;
        state = self.next[state + r(2)] as usize;
        state = self.next[state + r(3)] as usize;
        let suited = ((c[0] ^ c[1]) | (c[0] ^ c[2]) | (c[0] ^ c[3]) | (c[0] ^ c[4])) & 3 == 0;
        if suited {
            let bit = |i: usize| 1u16 << r(i);
            self.flush5[(bit(0) | bit(1) | bit(2) | bit(3) | bit(4)) as usize]
        } else {
            self.last5[state + r(4)]
        }
    }

    /// The class (0..454) of a 3-card row of distinct real cards.
    #[inline]
    pub fn class3(&self, c: &[u8]) -> u16 {
        let state = self.next[rank(c[0]) as usize] as usize;
        let state = self.next[state + rank(c[1]) as usize] as usize;
        self.last3[state + rank(c[2]) as usize]
    }

    /// The empty row: the start of every [`Tables::add`] walk.
    pub const NO_CARDS: Partial = Partial {
        state: 0,
        mask: 0,
        suits: 0,
    };

    /// `partial` with one more real card (at most four cards in all).
    #[inline]
    pub fn add(&self, partial: Partial, card: u8) -> Partial {
        let (r, s) = (rank(card), suit(card));
        let state = self.next[partial.state as usize + r as usize];
        // the padded tables answer NONE, not a panic, for a misuse: say so in tests
        debug_assert_ne!(state, NONE, "a fifth card of a rank, or a sixth card");
        Partial {
            state,
            mask: partial.mask | 1 << r,
            suits: partial.suits | 1 << s,
        }
    }

    /// The class of a 5-card row: four cards in `partial` and `card`
    /// ([`Tables::class5`] of the same cards, in any order).
    #[inline]
    pub fn finish5(&self, partial: Partial, card: u8) -> u16 {
        let r = rank(card);
        let class = if partial.suits == 1 << suit(card) {
            self.flush5[(partial.mask | 1 << r) as usize]
        } else {
            self.last5[partial.state as usize + r as usize]
        };
        debug_assert_ne!(class, NONE, "finish5 of a partial without four cards");
        class
    }

    /// The class of a 3-card row: two cards in `partial` and `card`.
    #[inline]
    pub fn finish3(&self, partial: Partial, card: u8) -> u16 {
        let class = self.last3[partial.state as usize + rank(card) as usize];
        debug_assert_ne!(class, NONE, "finish3 of a partial without two cards");
        class
    }

    /// Whether a top row of class `top` over a middle of class `middle` fouls.
    #[inline]
    pub fn top_fouls(&self, top: u16, middle: u16) -> bool {
        debug_assert!(
            (middle as usize) < self.top_limit.len(),
            "a middle class {middle}"
        );
        top > self.fouls[middle as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::cards;

    fn every_combination(n: usize, k: usize, f: &mut impl FnMut(&[usize])) {
        let mut idx: Vec<usize> = (0..k).collect();
        loop {
            f(&idx);
            let mut i = k;
            while i > 0 && idx[i - 1] == n - k + i - 1 {
                i -= 1;
            }
            if i == 0 {
                return;
            }
            idx[i - 1] += 1;
            for j in i..k {
                idx[j] = idx[j - 1] + 1;
            }
        }
    }

    #[test]
    fn class_counts_match_poker() {
        // 7,462 distinct 5-card hand values is the known count; 455 three-card ones:
        // 286 high cards + 156 pairs + 13 trips.
        let t = Tables::get();
        assert_eq!(t.key5.len(), 7462);
        assert_eq!(t.key3.len(), 286 + 156 + 13);
    }

    #[test]
    fn every_five_card_row_ranks_as_the_naive_rule() {
        // All 2,598,960 rows: the table walk gives the class of the naive key.
        let t = Tables::get();
        let mut seen = 0u32;
        every_combination(52, 5, &mut |i| {
            let row: Vec<u8> = i.iter().map(|&x| x as u8).collect();
            let class = t.class5(&row) as usize;
            assert_eq!(t.key5[class], rank_row(&row).key(), "{row:?}");
            seen += 1;
        });
        assert_eq!(seen, 2_598_960);
    }

    #[test]
    fn every_three_card_row_ranks_as_the_naive_rule() {
        let t = Tables::get();
        every_combination(52, 3, &mut |i| {
            let row: Vec<u8> = i.iter().map(|&x| x as u8).collect();
            assert_eq!(t.key3[t.class3(&row) as usize], rank_row(&row).key());
        });
    }

    #[test]
    fn partial_rows_finish_as_whole_rows() {
        // Every 5-card row of a sample (all 2.6M under the sweep above would be slow
        // here): the walk from any split point gives the row's class.
        let t = Tables::get();
        let mut checked = 0;
        every_combination(52, 5, &mut |i| {
            if i[0] % 3 != 0 || i[4] % 7 != 0 {
                return;
            }
            let row: Vec<u8> = i.iter().map(|&x| x as u8).collect();
            let mut p = Tables::NO_CARDS;
            for &c in &row[..4] {
                p = t.add(p, c);
            }
            assert_eq!(t.finish5(p, row[4]), t.class5(&row), "{row:?}");
            let mut q = Tables::NO_CARDS;
            for &c in &row[2..4] {
                q = t.add(q, c);
            }
            assert_eq!(t.finish3(q, row[0]), t.class3(&[row[2], row[3], row[0]]));
            checked += 1;
        });
        assert!(checked > 10_000);
    }

    #[test]
    fn hand_worked_examples() {
        // Top QQ5 against middle QQ432: the 5 outkicks the 4, so the top is above it (a foul).
        let t = Tables::get();
        let top = t.class3(&cards("Qs Qd 5c"));
        let middle = t.class5(&cards("Qh Qc 4d 3s 2s"));
        assert!(t.top_fouls(top, middle));
        // QQ4 against QQ432: all the top's cards tie, equal rows do not foul.
        assert!(!t.top_fouls(t.class3(&cards("Qs Qd 4c")), middle));
        // The wheel is the lowest straight; a six-high straight beats it.
        let wheel = t.class5(&cards("As 2d 3c 4h 5s"));
        let six = t.class5(&cards("2d 3c 4h 5s 6s"));
        assert_eq!(
            t.rank5[wheel as usize],
            RowRank {
                category: category::STRAIGHT,
                ranks: vec![3]
            }
        );
        assert!(six > wheel);
        // A royal flush is the strongest class of all.
        assert_eq!(t.class5(&cards("Ah Kh Qh Jh Th")) as usize, CLASSES5 - 1);
        assert_eq!(t.class5(&cards("2c 3d 4h 5s 7c")), 0);
    }
}
