//! Timeout auto-placement (RULES.md §2): the twin of `ofc_stats/engine/timeout.py`.
//!
//! When a player's time runs out the room places the cards itself, in the
//! order received, filling the bottom first, then the middle, then the top.
//! [`timeout_mask`] flags the stored streets that match the rule (row counts,
//! not card order); the simulator places its timed-out streets with
//! [`auto_placement`].

use crate::cards::{DISCARD, ROW_SIZES};
use crate::error::CoreError;

/// Cards the rule puts on the top, middle and bottom, given each row's free slots.
#[inline]
pub fn auto_counts(free: [i16; 3], placed: i16) -> [i16; 3] {
    let bottom = free[2].min(placed);
    let middle = (placed - bottom).min(free[1]);
    [placed - bottom - middle, middle, bottom]
}

/// Whether the rows leave one way to split `placed` cards: every free slot gets
/// filled, or only one row is open.  A forced street is no decision.
#[inline]
pub fn forced(free: [i16; 3], placed: i16) -> bool {
    free.iter().sum::<i16>() == placed || free.iter().filter(|&&f| f > 0).count() <= 1
}

/// Destinations the room gives a street's cards on a timeout: in the order
/// received, the bottom first, then the middle, then the top, the rest discarded.
pub fn auto_placement(fill: [u8; 3], dealt: usize, placed: usize) -> Result<Vec<u8>, CoreError> {
    let mut room = [0, 1, 2].map(|r| ROW_SIZES[r] - fill[r] as usize);
    let mut out = Vec::with_capacity(dealt);
    for _ in 0..placed {
        let row = [2usize, 1, 0]
            .into_iter()
            .find(|&r| room[r] > 0)
            .ok_or_else(|| CoreError::Hand(format!("no room left for {placed} cards")))?;
        room[row] -= 1;
        out.push(row as u8);
    }
    out.resize(dealt, DISCARD);
    Ok(out)
}

/// One seat's mask: bit s set where street s's row counts match the auto-placement.
///
/// `streets` holds the street of each board card (top 3, middle 5, bottom 5),
/// negative or past the plan when unknown: a seat with an unknown street is
/// never flagged, nor is a forced street.  `placed` is each street's cards placed.
pub fn seat_mask(streets: &[i8; 13], placed: &[i16]) -> i16 {
    // Each row's card count by street, four bits a street (at most 5 cards); an
    // unknown street (negative reads as 128 and more) marks the seat.
    const ROW_OF: [usize; 13] = [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2];
    let mut packed = [0u64; 3];
    let mut unknown = false;
    for (&s, &row) in streets.iter().zip(&ROW_OF) {
        let s = s as u8;
        unknown |= s as usize >= placed.len();
        packed[row] += 1 << (4 * (s & 15) as u32);
    }
    if unknown {
        return 0;
    }
    let mut free = ROW_SIZES.map(|n| n as i16);
    let mut mask = 0i16;
    for (number, &p) in placed.iter().enumerate() {
        let got = packed.map(|row| (row >> (4 * number) & 15) as i16);
        if got == auto_counts(free, p) && !forced(free, p) {
            mask |= 1 << number;
        }
        for row in 0..3 {
            free[row] -= got[row];
        }
    }
    mask
}

/// [`seat_mask`] of every seat: `streets` holds 13 a seat; Fantasyland seats
/// (one street, no decision) are never flagged.
pub fn timeout_mask(
    streets: &[i8],
    in_fantasy: &[bool],
    placed: &[i16],
) -> Result<Vec<i16>, CoreError> {
    if streets.len() != 13 * in_fantasy.len() {
        return Err(CoreError::Hand(format!(
            "{} street entries for {} seats: 13 a seat",
            streets.len(),
            in_fantasy.len()
        )));
    }
    if placed.len() > 15 {
        return Err(CoreError::Hand(format!(
            "{} streets: a mask holds at most 15",
            placed.len()
        )));
    }
    Ok(streets
        .chunks_exact(13)
        .zip(in_fantasy)
        .map(|(seat, &fantasy)| {
            let seat: &[i8; 13] = seat.try_into().expect("13 a seat");
            if fantasy {
                0
            } else {
                seat_mask(seat, placed)
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINEAPPLE: [i16; 5] = [5, 2, 2, 2, 2];

    #[test]
    fn timeouts_fill_the_bottom_first() {
        // RULES.md §2's example: bottom full, a Pineapple street's three cards go
        // middle, middle, discard.
        assert_eq!(auto_placement([0, 0, 5], 3, 2).unwrap(), vec![1, 1, 3]);
        // The first street: 5 to the bottom.
        assert_eq!(auto_placement([0, 0, 0], 5, 5).unwrap(), vec![2; 5]);
        // One slot on the bottom, then the middle.
        assert_eq!(auto_placement([0, 2, 4], 3, 2).unwrap(), vec![2, 1, 3]);
        assert!(auto_placement([3, 5, 5], 3, 2).is_err());
    }

    #[test]
    fn a_board_dealt_by_the_rule_flags_every_unforced_street() {
        // Streets by slot, top 3 | middle 5 | bottom 5.  Street 0, free (3, 5, 5), 5
        // cards: all to the bottom, as here: bit 0.  Streets 1 and 2: two to the
        // middle each: bits 1, 2.  Street 3, free (3, 1, 0): one to the middle, one on
        // top: bit 3.  Street 4, free (2, 0, 0): only the top is open, forced, never
        // flagged.  1 + 2 + 4 + 8 = 15.
        let ruled = [3, 4, 4, 1, 1, 2, 2, 3, 0, 0, 0, 0, 0];
        assert_eq!(seat_mask(&ruled, &PINEAPPLE), 15);
        // The first street split 3 bottom + 2 middle: street 0 differs from the rule,
        // the rest is judged from what is left.  Street 1, free (3, 3, 2): the rule puts
        // both on the bottom, here too: bit 1.  Street 2, free (3, 3, 0): two to the
        // middle, here one middle one top: no bit.  Street 3, free (2, 2, 0): two to the
        // middle, as here: bit 3.  Street 4, free (2, 0, 0): forced.  2 + 8 = 10.
        let split = [2, 4, 4, 0, 0, 2, 3, 3, 0, 0, 0, 1, 1];
        assert_eq!(seat_mask(&split, &PINEAPPLE), 10);
        // An unknown street, or a Fantasyland seat: no flag.
        let mut unknown = ruled;
        unknown[5] = -1;
        assert_eq!(seat_mask(&unknown, &PINEAPPLE), 0);
        let both = [ruled, ruled].concat();
        assert_eq!(
            timeout_mask(&both, &[false, true], &PINEAPPLE).unwrap(),
            vec![15, 0]
        );
        assert!(timeout_mask(&both, &[false], &PINEAPPLE).is_err());
    }
}
