//! One finished board: its rows' classes, the foul, royalties, and jokers read
//! at their best.  The twin of `score_board` and `best_reading` in
//! `ofc_stats/engine/scoring.py` and `jokers.py`.
//!
//! The flat layout is 13 cards: top 0..3, middle 3..8, bottom 8..13.

use crate::cards::{is_joker, DECK};
use crate::eval::Tables;
use crate::rules::Rules;

/// Names of the destination codes 0..4 (`engine.board.DESTINATIONS`).
pub const DESTINATIONS: [&str; 4] = ["top", "middle", "bottom", "discard"];

/// What one board is worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardEval {
    /// Classes of the top (0..454), middle and bottom (0..7461) rows.
    pub top: u16,
    pub middle: u16,
    pub bottom: u16,
    pub fouled: bool,
    /// Royalties of the top, middle and bottom; 0 on a fouled board.
    pub royalties: [i16; 3],
}

impl BoardEval {
    pub fn royalty_total(&self) -> i32 {
        self.royalties.iter().map(|&r| r as i32).sum()
    }

    /// The board from its classes; `forced_foul` overrides the rows' own verdict.
    pub fn from_classes(
        t: &Tables,
        rules: &Rules,
        top: u16,
        middle: u16,
        bottom: u16,
        forced_foul: Option<bool>,
    ) -> BoardEval {
        let fouled = forced_foul.unwrap_or_else(|| t.top_fouls(top, middle) || middle > bottom);
        let royalties = if fouled {
            [0; 3]
        } else {
            [
                rules.royalty_top[top as usize],
                rules.royalty_middle[middle as usize],
                rules.royalty_bottom[bottom as usize],
            ]
        };
        BoardEval {
            top,
            middle,
            bottom,
            fouled,
            royalties,
        }
    }

    /// Cards of the Fantasyland a normal hand's board earns (0: none).
    pub fn entry_cards(&self, rules: &Rules) -> i8 {
        if self.fouled {
            0
        } else {
            rules.entry_cards[self.top as usize]
        }
    }

    /// Whether a Fantasyland hand's board earns a repeat.
    pub fn stays(&self, rules: &Rules) -> bool {
        !self.fouled && rules.repeat_holds(self.top, self.middle, self.bottom)
    }

    /// What this board wins from `other` before caps: row points plus the royalty
    /// difference (`pair_points` in scoring.py).  Row outcomes and fouls index
    /// the ruleset's `pair_rows`; a fouled board's royalties are already zero.
    #[inline]
    pub fn points_against(&self, other: &BoardEval, rules: &Rules) -> i32 {
        let sign = |x: u16, y: u16| (x > y) as usize + 1 - (x < y) as usize;
        let code = 54 * self.fouled as usize
            + 27 * other.fouled as usize
            + 9 * sign(self.top, other.top)
            + 3 * sign(self.middle, other.middle)
            + sign(self.bottom, other.bottom);
        rules.pair_rows[code] + self.royalty_total() - other.royalty_total()
    }
}

/// Evaluate a board of 13 distinct real cards.
#[inline]
pub fn evaluate(t: &Tables, rules: &Rules, cards: &[u8; 13]) -> BoardEval {
    let top = t.class3(&cards[0..3]);
    let middle = t.class5(&cards[3..8]);
    let bottom = t.class5(&cards[8..13]);
    BoardEval::from_classes(t, rules, top, middle, bottom, None)
}

/// How readings compare: not fouled, then royalties, then bottom, middle, top strength.
type ReadingValue = (bool, i32, u16, u16, u16);

#[inline]
fn reading_value(e: &BoardEval) -> ReadingValue {
    (!e.fouled, e.royalty_total(), e.bottom, e.middle, e.top)
}

/// The board with each joker replaced by the card it reads as, and that reading.
///
/// A joker never copies a card on the board, two jokers never read as the same
/// card; among the best readings the first in order of the first joker's value,
/// then the second's, is taken (as the batch engine did).
pub fn read_jokers(t: &Tables, rules: &Rules, cards: &[u8; 13]) -> ([u8; 13], BoardEval) {
    let slots: Vec<usize> = (0..13).filter(|&i| is_joker(cards[i])).collect();
    if slots.is_empty() {
        return (*cards, evaluate(t, rules, cards));
    }
    let mut on_board = 0u64;
    for &c in cards.iter().filter(|&&c| !is_joker(c)) {
        on_board |= 1 << c;
    }
    let mut board = *cards;
    let mut best: Option<(ReadingValue, [u8; 13], BoardEval)> = None;
    let mut consider = |board: &[u8; 13]| {
        let e = evaluate(t, rules, board);
        let v = reading_value(&e);
        if best.as_ref().is_none_or(|(b, _, _)| v > *b) {
            best = Some((v, *board, e));
        }
    };
    let free = |c: u8| on_board >> c & 1 == 0;
    for first in (0..DECK as u8).filter(|&c| free(c)) {
        board[slots[0]] = first;
        if slots.len() == 1 {
            consider(&board);
            continue;
        }
        for second in (0..DECK as u8).filter(|&c| free(c) && c != first) {
            board[slots[1]] = second;
            consider(&board);
        }
    }
    let (_, read, e) = best.expect("a joker always has a free card to read as");
    (read, e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{cards, JOKER_1, JOKER_2};

    fn board(top: &str, middle: &str, bottom: &str) -> [u8; 13] {
        let all = [cards(top), cards(middle), cards(bottom)].concat();
        all.try_into().unwrap()
    }

    #[test]
    fn royalties_and_fantasyland_of_a_live_board() {
        // QQ on top 7, a 5-9 straight in the middle 4, an ace-high flush on the bottom 4:
        // 15 royalties, and QQ earns a 14-card Fantasyland under progressive rules.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let e = evaluate(
            t,
            &r,
            &board("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah"),
        );
        assert!(!e.fouled);
        assert_eq!(e.royalties, [7, 4, 4]);
        assert_eq!(e.entry_cards(&r), 14);
    }

    #[test]
    fn a_live_board_scoops_a_fouled_one() {
        // Alice (QQ 7 + straight 4 + flush 4 = 15 royalties) against Bob, who fouls:
        // 3 rows + 3 for the scoop + 15 royalties = 21 each way (score_hand's doctest).
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let alice = evaluate(
            t,
            &r,
            &board("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah"),
        );
        let bob = evaluate(
            t,
            &r,
            &board("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c"),
        );
        assert_eq!(alice.points_against(&bob, &r), 21);
        assert_eq!(bob.points_against(&alice, &r), -21);
        // Two fouled boards score nothing against each other.
        assert_eq!(bob.points_against(&bob, &r), 0);
    }

    #[test]
    fn a_fouled_board_earns_nothing() {
        // Trips in the middle over a pair on the bottom foul: no royalties, no Fantasyland.
        let (t, r) = (Tables::get(), Rules::pineapple_progressive());
        let e = evaluate(
            t,
            &r,
            &board("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c"),
        );
        assert!(e.fouled);
        assert_eq!(e.royalty_total(), 0);
        assert_eq!(e.entry_cards(&r), 0);
    }

    #[test]
    fn a_joker_reads_as_the_best_card_not_on_the_board() {
        // Top Qs Qd + joker: the joker makes trips (QQQ = 20, and 17 cards), which
        // would foul over a middle pair of aces; the best legal reading keeps the
        // board live, so the joker is not a queen.  Middle AA, bottom a flush.
        let (t, r) = (Tables::get(), Rules::joker_pineapple());
        let mut b = board("Qs Qd 2c", "Ac Ad 3h 4h 6s", "2h 7h Th Jh Kh");
        b[2] = JOKER_1;
        let (read, e) = read_jokers(t, &r, &b);
        assert!(!e.fouled);
        assert_ne!(read[2] >> 2, 10, "a queen would foul");
        // With the middle stronger (trip aces), trip queens on top are legal and best.
        let mut b = board("Qs Qd 2c", "Ac Ad As 4h 6s", "2h 7h Th Jh Kh");
        b[2] = JOKER_2;
        let (read, e) = read_jokers(t, &r, &b);
        assert_eq!(read[2] >> 2, 10);
        assert_eq!(e.royalties[0], 20);
    }
}
