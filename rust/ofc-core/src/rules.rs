//! A ruleset compiled to arrays by row class: the twin of
//! `ofc_stats/engine/vector/rule_arrays.py`'s `CompiledRules`.
//!
//! The project builds these arrays in Python by calling the scalar rule
//! functions (`RoyaltyTable.top_points`, `FantasyRules.entry_cards_for`,
//! `RepeatRule.holds`, `row_points`) on each class's row, and hands them to
//! the core: the ruleset's many options keep one definition, and the core
//! cannot drift from it.  Rust's own tests and benchmarks (the `bench` feature)
//! play two presets read from `testdata/presets.json`, which
//! `tests/test_core_rules_fixture.py` writes from those same arrays and checks.

use crate::error::CoreError;
use crate::eval::{CLASSES3, CLASSES5};

/// Every per-class array and option the core's scoring reads.
#[derive(Debug, Clone)]
pub struct Rules {
    pub royalty_top: Vec<i16>,
    pub royalty_middle: Vec<i16>,
    pub royalty_bottom: Vec<i16>,
    /// Cards of the Fantasyland a top row of this class earns (0: none).
    pub entry_cards: Vec<i8>,
    /// Each repeat condition alone, by class (None: the ruleset has no condition on that row).
    pub repeat_top: Option<Vec<bool>>,
    pub repeat_middle: Option<Vec<bool>>,
    pub repeat_bottom: Option<Vec<bool>>,
    /// Combine the set conditions with "all" (else "any").
    pub repeat_all: bool,
    /// Cards a repeat deals; 0 = as many as the Fantasyland hand being played.
    pub repeat_cards: i8,
    /// Row points of a pair by code 54*a_fouled + 27*b_fouled + 9*(top+1) + 3*(middle+1)
    /// + (bottom+1), each row -1 lost, 0 tied, +1 won from side a.
    pub pair_rows: Vec<i32>,
    /// 52, or 54 with two jokers.
    pub deck_size: u8,
    /// Seats a hand may have at most (3 in Pineapple, 4 otherwise).
    pub max_seats: u8,
    /// A loser pays at most its stack.
    pub stack_cap: bool,
    /// A loser pays at most this much in one hand.
    pub max_loss: Option<f64>,
}

impl Rules {
    /// Check that every array fits the row classes.
    pub fn validate(&self) -> Result<(), CoreError> {
        let sized = |name: &str, len: usize, want: usize| {
            if len == want {
                Ok(())
            } else {
                Err(CoreError::Rules(format!(
                    "{name} has {len} entries, the row classes need {want}"
                )))
            }
        };
        sized("royalty_top", self.royalty_top.len(), CLASSES3)?;
        sized("royalty_middle", self.royalty_middle.len(), CLASSES5)?;
        sized("royalty_bottom", self.royalty_bottom.len(), CLASSES5)?;
        sized("entry_cards", self.entry_cards.len(), CLASSES3)?;
        if let Some(v) = &self.repeat_top {
            sized("repeat_top", v.len(), CLASSES3)?;
        }
        if let Some(v) = &self.repeat_middle {
            sized("repeat_middle", v.len(), CLASSES5)?;
        }
        if let Some(v) = &self.repeat_bottom {
            sized("repeat_bottom", v.len(), CLASSES5)?;
        }
        sized("pair_rows", self.pair_rows.len(), 108)?;
        if self.deck_size != 52 && self.deck_size != 54 {
            return Err(CoreError::Rules(format!(
                "a deck has 52 or 54 cards, not {}",
                self.deck_size
            )));
        }
        if !(2..=4).contains(&self.max_seats) {
            return Err(CoreError::Rules(format!(
                "max_seats {} is not 2 to 4",
                self.max_seats
            )));
        }
        Ok(())
    }

    pub fn has_repeat(&self) -> bool {
        self.repeat_top.is_some() || self.repeat_middle.is_some() || self.repeat_bottom.is_some()
    }

    /// The three rows' royalties added, fouled or not: the caller decides a foul's worth.
    #[inline]
    pub fn royalty_sum(&self, top: u16, middle: u16, bottom: u16) -> i32 {
        self.royalty_top[top as usize] as i32
            + self.royalty_middle[middle as usize] as i32
            + self.royalty_bottom[bottom as usize] as i32
    }

    /// Whether a Fantasyland board of these classes earns a repeat (the caller checks the foul).
    #[inline]
    pub fn repeat_holds(&self, top: u16, middle: u16, bottom: u16) -> bool {
        let checks = [
            self.repeat_top.as_ref().map(|v| v[top as usize]),
            self.repeat_middle.as_ref().map(|v| v[middle as usize]),
            self.repeat_bottom.as_ref().map(|v| v[bottom as usize]),
        ];
        let mut set = checks.iter().flatten().peekable();
        if set.peek().is_none() {
            return false;
        }
        if self.repeat_all {
            set.all(|&x| x)
        } else {
            set.any(|&x| x)
        }
    }
}

/// The presets of Rust's own tests and benchmarks, written from the definition
/// (`ofc_stats.core.rules.rule_arrays`) by `python -m tests.test_core_rules_fixture`;
/// each array as [value, how many in a row] runs.
#[cfg(any(test, feature = "bench"))]
const PRESETS: &str = include_str!("testdata/presets.json");

#[cfg(any(test, feature = "bench"))]
type Runs = Vec<(i64, usize)>;

#[cfg(any(test, feature = "bench"))]
#[derive(serde::Deserialize)]
struct Preset {
    royalty_top: Runs,
    royalty_middle: Runs,
    royalty_bottom: Runs,
    entry_cards: Runs,
    repeat_top: Option<Runs>,
    repeat_middle: Option<Runs>,
    repeat_bottom: Option<Runs>,
    repeat_all: bool,
    repeat_cards: i8,
    pair_rows: Runs,
    deck_size: u8,
    max_seats: u8,
    stack_cap: bool,
    max_loss: Option<f64>,
}

#[cfg(any(test, feature = "bench"))]
fn expand<T: Clone>(runs: &Runs, value: impl Fn(i64) -> T) -> Vec<T> {
    runs.iter()
        .flat_map(|&(v, n)| std::iter::repeat_n(value(v), n))
        .collect()
}

#[cfg(any(test, feature = "bench"))]
impl Rules {
    /// The ruleset `name` of the presets fixture (panics on a name it lacks).
    pub fn preset(name: &str) -> Rules {
        let mut all: std::collections::HashMap<String, Preset> =
            serde_json::from_str(PRESETS).expect("the presets fixture is JSON");
        let p = all
            .remove(name)
            .unwrap_or_else(|| panic!("no preset {name} in the fixture"));
        let flags = |runs: &Runs| expand(runs, |v| v != 0);
        let rules = Rules {
            royalty_top: expand(&p.royalty_top, |v| v as i16),
            royalty_middle: expand(&p.royalty_middle, |v| v as i16),
            royalty_bottom: expand(&p.royalty_bottom, |v| v as i16),
            entry_cards: expand(&p.entry_cards, |v| v as i8),
            repeat_top: p.repeat_top.as_ref().map(flags),
            repeat_middle: p.repeat_middle.as_ref().map(flags),
            repeat_bottom: p.repeat_bottom.as_ref().map(flags),
            repeat_all: p.repeat_all,
            repeat_cards: p.repeat_cards,
            pair_rows: expand(&p.pair_rows, |v| v as i32),
            deck_size: p.deck_size,
            max_seats: p.max_seats,
            stack_cap: p.stack_cap,
            max_loss: p.max_loss,
        };
        rules.validate().expect("the fixture fits the row classes");
        rules
    }

    /// RULES.md's `pineapple-progressive`: American scoring and royalties,
    /// QQ 14 / KK 15 / AA 16 / trips 17 cards, repeat on trips on top or quads
    /// or better on the bottom (14 cards).
    pub fn pineapple_progressive() -> Rules {
        Rules::preset("pineapple-progressive")
    }

    /// `joker-pineapple`: the same rules with the two jokers of a 54-card deck.
    pub fn joker_pineapple() -> Rules {
        Rules::preset("joker-pineapple")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::cards;
    use crate::eval::Tables;

    #[test]
    fn the_presets_read_as_the_rules_say() {
        // RULES.md §5-§6 (American royalties, progressive Fantasyland): QQ on top pays 7
        // and deals 14 cards, trips 222 pay 10 and deal 17; a royal flush in the middle
        // pays 50 (25 on the bottom); quads on the bottom keep Fantasyland, trips do not.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let queens = t.class3(&cards("Qs Qd 2c")) as usize;
        let deuces = t.class3(&cards("2s 2d 2c")) as usize;
        assert_eq!((r.royalty_top[queens], r.entry_cards[queens]), (7, 14));
        assert_eq!((r.royalty_top[deuces], r.entry_cards[deuces]), (10, 17));
        let royal = t.class5(&cards("Ah Kh Qh Jh Th")) as usize;
        assert_eq!((r.royalty_middle[royal], r.royalty_bottom[royal]), (50, 25));
        let bottom = r.repeat_bottom.as_ref().expect("a bottom condition");
        assert!(bottom[t.class5(&cards("9s 9d 9c 9h 2c")) as usize]);
        assert!(!bottom[t.class5(&cards("9s 9d 9c 8h 2c")) as usize]);
        assert_eq!((r.deck_size, r.repeat_cards), (52, 14));
        let jokers = Rules::joker_pineapple();
        assert_eq!(jokers.deck_size, 54);
        assert_eq!(jokers.royalty_top, r.royalty_top);
    }
}
