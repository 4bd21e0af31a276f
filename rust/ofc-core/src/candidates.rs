//! Every legal way to place a street's cards: the twin of
//! `ofc_stats/sim/lookahead.py`'s `candidates` and `apply`.
//!
//! A candidate gives each dealt card a destination (0 top, 1 middle, 2 bottom,
//! 3 discard) with exactly the street's number of discards.  Candidates are
//! listed in the order of `itertools.product(range(4), repeat=cards)`, so a
//! candidate's index means the same in Python and in the stored grades.
//! Cards placed in one row go there in the order they were dealt.

use std::sync::OnceLock;

use crate::cards::{DISCARD, EMPTY, ROW_SIZES, ROW_START};

/// Every candidate of one street shape.
#[derive(Debug, Clone)]
pub struct Candidates {
    /// Cards dealt on the street.
    pub cards: usize,
    /// Destination codes, `cards` per candidate.
    pub dest: Vec<u8>,
    /// Cards each candidate adds to the top, middle and bottom.
    pub count: Vec<[u8; 3]>,
}

impl Candidates {
    fn build(cards: usize, discards: usize) -> Candidates {
        let mut dest = Vec::new();
        let mut count = Vec::new();
        for code in 0..4usize.pow(cards as u32) {
            // Most significant digit first: the order of itertools.product.
            let digits: Vec<u8> = (0..cards)
                .map(|i| (code / 4usize.pow((cards - 1 - i) as u32) % 4) as u8)
                .collect();
            if digits.iter().filter(|&&d| d == DISCARD).count() != discards {
                continue;
            }
            let mut rows = [0u8; 3];
            for &d in digits.iter().filter(|&&d| d != DISCARD) {
                rows[d as usize] += 1;
            }
            if rows
                .iter()
                .zip(ROW_SIZES)
                .any(|(&n, size)| n as usize > size)
            {
                continue;
            }
            dest.extend_from_slice(&digits);
            count.push(rows);
        }
        Candidates { cards, dest, count }
    }

    /// The candidates of `cards` dealt with `discards` thrown (built once per shape).
    pub fn get(cards: usize, discards: usize) -> &'static Candidates {
        static TABLE: [[OnceLock<Candidates>; 6]; 6] =
            [const { [const { OnceLock::new() }; 6] }; 6];
        assert!(
            cards <= 5 && discards <= cards,
            "a street deals at most 5 cards"
        );
        TABLE[cards][discards].get_or_init(|| Candidates::build(cards, discards))
    }

    pub fn len(&self) -> usize {
        self.count.len()
    }

    pub fn is_empty(&self) -> bool {
        self.count.is_empty()
    }

    /// The destinations of candidate `i`.
    #[inline]
    pub fn dest(&self, i: usize) -> &[u8] {
        &self.dest[i * self.cards..(i + 1) * self.cards]
    }

    /// Whether candidate `i` fits rows already holding `fill` cards.
    #[inline]
    pub fn fits(&self, i: usize, fill: [u8; 3]) -> bool {
        let c = self.count[i];
        (0..3).all(|r| (fill[r] + c[r]) as usize <= ROW_SIZES[r])
    }
}

/// Row fills (cards on top, middle, bottom) of a 13-position board, -1 empty.
pub fn fill_of(board: &[i8; 13]) -> [u8; 3] {
    let mut fill = [0u8; 3];
    for (r, slot) in fill.iter_mut().enumerate() {
        let row = &board[ROW_START[r]..ROW_START[r] + ROW_SIZES[r]];
        *slot = row.iter().filter(|&&c| c != EMPTY).count() as u8;
    }
    fill
}

/// Place `dealt` on `board` by `dest` (rows fill left to right); discards are left out.
/// The caller has checked that the candidate fits.
#[inline]
pub fn apply(board: &mut [i8; 13], fill: &mut [u8; 3], dealt: &[u8], dest: &[u8]) {
    for (&card, &d) in dealt.iter().zip(dest) {
        if d != DISCARD {
            let r = d as usize;
            board[ROW_START[r] + fill[r] as usize] = card as i8;
            fill[r] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_the_street_shapes() {
        // First street: 5 cards to 3 rows, at most 3 on top: 3^5 = 243 minus the 11
        // with 4 or 5 on top (5 ways for 4 on top x 2 rows for the fifth, + 1) = 232.
        assert_eq!(Candidates::get(5, 0).len(), 232);
        // A Pineapple street: 3 choices of the discard x 3^2 placements = 27.
        assert_eq!(Candidates::get(3, 1).len(), 27);
        // Classic's later streets: 1 card to one of 3 rows.
        assert_eq!(Candidates::get(1, 0).len(), 3);
        // Turbo's 4 cards: 3^4 = 81, none over a row's size (top holds 3: 4 on top is 1 way).
        assert_eq!(Candidates::get(4, 0).len(), 80);
    }

    #[test]
    fn order_is_itertools_product() {
        // product(range(4), repeat=3) with one discard starts (0, 0, 3), (0, 1, 3), (0, 2, 3), (0, 3, 0).
        let c = Candidates::get(3, 1);
        assert_eq!(c.dest(0), &[0, 0, 3]);
        assert_eq!(c.dest(1), &[0, 1, 3]);
        assert_eq!(c.dest(2), &[0, 2, 3]);
        assert_eq!(c.dest(3), &[0, 3, 0]);
    }

    #[test]
    fn apply_fills_rows_in_deal_order() {
        let mut board = [EMPTY; 13];
        board[8] = 40; // one card already on the bottom
        let mut fill = fill_of(&board);
        assert_eq!(fill, [0, 0, 1]);
        apply(&mut board, &mut fill, &[1, 2, 3], &[2, 3, 2]);
        assert_eq!(&board[8..11], &[40, 1, 3]);
        assert_eq!(fill, [0, 0, 3]);
        assert!(
            !Candidates::get(3, 1).fits(0, [3, 0, 0]),
            "two more on a full top"
        );
    }
}
