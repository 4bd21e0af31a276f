//! A ruleset compiled to arrays by row class: the twin of
//! `ofc_stats/engine/vector/rule_arrays.py`'s `CompiledRules`.
//!
//! The project builds these arrays in Python by calling the scalar rule
//! functions (`RoyaltyTable.top_points`, `FantasyRules.entry_cards_for`,
//! `RepeatRule.holds`, `row_points`) on each class's row, and hands them to
//! the core: the ruleset's many options keep one definition, and the core
//! cannot drift from it.  [`Rules::pineapple_progressive`] builds one preset
//! here from RULES.md's tables, for Rust's own tests and benchmarks.

use crate::error::CoreError;
use crate::eval::{category, Tables, CLASSES3, CLASSES5};

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

    /// RULES.md's `pineapple-progressive`: American scoring and royalties,
    /// QQ 14 / KK 15 / AA 16 / trips 17 cards, repeat on trips on top or quads
    /// or better on the bottom (14 cards).  For Rust's own tests and benchmarks.
    pub fn pineapple_progressive() -> Rules {
        use category::*;
        let t = Tables::get();
        let top = |r: &crate::eval::RowRank| -> (i16, i8) {
            match r.category {
                PAIR if r.ranks[0] >= 4 => {
                    let q = r.ranks[0] as i16 - 3; // 66 = 1 .. AA = 9
                    let cards = match r.ranks[0] {
                        10 => 14,
                        11 => 15,
                        12 => 16,
                        _ => 0,
                    };
                    (q, cards)
                }
                THREE_OF_A_KIND => (10 + r.ranks[0] as i16, 17), // 222 = 10 .. AAA = 22
                _ => (0, 0),
            }
        };
        let five = |r: &crate::eval::RowRank, middle: bool| -> i16 {
            let royal = r.category == STRAIGHT_FLUSH && r.ranks[0] == 12;
            let (m, b) = match r.category {
                THREE_OF_A_KIND => (2, 0),
                STRAIGHT => (4, 2),
                FLUSH => (8, 4),
                FULL_HOUSE => (12, 6),
                FOUR_OF_A_KIND => (20, 10),
                STRAIGHT_FLUSH if royal => (50, 25),
                STRAIGHT_FLUSH => (30, 15),
                _ => (0, 0),
            };
            if middle {
                m
            } else {
                b
            }
        };
        let mut pair_rows = vec![0i32; 108];
        for (code, slot) in pair_rows.iter_mut().enumerate() {
            let (fouls, signs) = (code / 27, code % 27);
            let (a_fouled, b_fouled) = (fouls / 2 == 1, fouls % 2 == 1);
            let rows = [
                signs as i32 / 9 - 1,
                signs as i32 / 3 % 3 - 1,
                signs as i32 % 3 - 1,
            ];
            *slot = match (a_fouled, b_fouled) {
                (true, true) => 0,
                (true, false) => -6,
                (false, true) => 6,
                _ => {
                    let won = rows.iter().filter(|&&x| x == 1).count() as i32;
                    let lost = rows.iter().filter(|&&x| x == -1).count() as i32;
                    won - lost
                        + if won == 3 {
                            3
                        } else if lost == 3 {
                            -3
                        } else {
                            0
                        }
                }
            };
        }
        Rules {
            royalty_top: t.rank3.iter().map(|r| top(r).0).collect(),
            royalty_middle: t.rank5.iter().map(|r| five(r, true)).collect(),
            royalty_bottom: t.rank5.iter().map(|r| five(r, false)).collect(),
            entry_cards: t.rank3.iter().map(|r| top(r).1).collect(),
            repeat_top: Some(
                t.rank3
                    .iter()
                    .map(|r| r.category == THREE_OF_A_KIND)
                    .collect(),
            ),
            repeat_middle: None,
            repeat_bottom: Some(
                t.rank5
                    .iter()
                    .map(|r| r.category >= FOUR_OF_A_KIND)
                    .collect(),
            ),
            repeat_all: false,
            repeat_cards: 14,
            pair_rows,
            deck_size: 52,
            max_seats: 3,
            stack_cap: true,
            max_loss: None,
        }
    }

    /// The same rules with the two jokers of a 54-card deck.
    pub fn joker_pineapple() -> Rules {
        Rules {
            deck_size: 54,
            ..Rules::pineapple_progressive()
        }
    }
}
