//! When a foul became unavoidable: the twin of `ofc_stats/engine/certain.py`.
//!
//! A fouled board's foul was *unavoidable after street s* when no way of
//! playing the cards dealt on the later streets (which card of each street to
//! discard, where the rest go) finishes the board as it stood after street `s`
//! unfouled.  The search walks back from the last street and stops at the
//! first street whose later cards could still save the board: a later partial
//! board's plays are among an earlier one's, so once savable, savable before.
//!
//! The fouls report asks this of every fouled board of a player, so it runs on
//! rayon's threads, the rows compared by their class keys.

use rayon::prelude::*;

use crate::cards::{BOARD, DECK, ROW_SIZES, ROW_START};
use crate::eval::Tables;

/// The rows' first place and size: top, middle, bottom.
const ROWS: [(usize, usize); 3] = [
    (ROW_START[0], ROW_SIZES[0]),
    (ROW_START[1], ROW_SIZES[1]),
    (ROW_START[2], ROW_SIZES[2]),
];
/// Streets 1-4 may have a discard (pineapple); later streets never do.
const DISCARD_STREETS: usize = 4;

/// One board as stored: card ids, the street each was placed on (0 is the
/// first), and the discard of streets 1-4 (-1: none, or not recorded).
#[derive(Debug, Clone, Copy)]
pub struct Dealt<'a> {
    pub cards: &'a [i16],
    pub streets: &'a [i16],
    pub discards: &'a [i16],
}

/// The street after which the board's foul was unavoidable with the cards that
/// came; `None` when the board does not foul, a street is unknown (negative)
/// or past the 13th, a card is a joker or twice on the board or in its
/// discards, or a street that placed two cards (so dealt three) has no discard
/// recorded.
pub fn foul_unavoidable_after(dealt: Dealt<'_>) -> Option<u8> {
    let (cards, placed) = (dealt.cards, dealt.streets);
    if cards.len() != BOARD || placed.len() != BOARD || dealt.discards.len() < DISCARD_STREETS {
        return None;
    }
    if placed.iter().any(|&s| s < 0) || cards.iter().any(|&c| !(0..DECK as i16).contains(&c)) {
        return None;
    }
    let last = *placed.iter().max().expect("13 streets") as usize;
    if last >= BOARD {
        return None; // more streets than cards: not a real deal
    }
    let board: Vec<u8> = cards.iter().map(|&c| c as u8).collect();
    // the cards seen so far, as bits: a card twice means the board is not a real deal
    let mut seen = 0u64;
    for &card in &board {
        if seen >> card & 1 == 1 {
            return None;
        }
        seen |= 1 << card;
    }
    // discard[at]: the street's discard, if it had one
    let mut discard: Vec<Option<u8>> = vec![None; last + 1];
    for (at, &thrown) in dealt.discards[..DISCARD_STREETS].iter().enumerate() {
        let at = at + 1;
        let two_placed = placed.iter().filter(|&&s| s as usize == at).count() == 2;
        if thrown >= DECK as i16 || (two_placed && thrown < 0) {
            return None; // a joker discarded, or a discard not recorded
        }
        if thrown >= 0 {
            if seen >> thrown & 1 == 1 {
                return None; // discarded and on the board, or discarded twice
            }
            seen |= 1 << thrown;
            if at <= last {
                discard[at] = Some(thrown as u8);
            }
        }
    }
    let t = Tables::get();
    let key = |row: &[u8]| -> i32 {
        if row.len() == 3 {
            t.key3[t.class3(row) as usize]
        } else {
            t.key5[t.class5(row) as usize]
        }
    };
    let [top, middle, bottom] = ROWS.map(|(start, size)| key(&board[start..start + size]));
    if top <= middle && middle <= bottom {
        return None;
    }
    let mut unavoidable = last as u8;
    for street in (0..last).rev() {
        let partial = ROWS.map(|(start, size)| {
            (start..start + size)
                .filter(|&i| placed[i] as usize <= street)
                .map(|i| board[i])
                .collect::<Vec<u8>>()
        });
        let later: Vec<(Vec<u8>, bool)> = (street + 1..=last)
            .map(|at| {
                let mut came: Vec<u8> = (0..BOARD)
                    .filter(|&i| placed[i] as usize == at)
                    .map(|i| board[i])
                    .collect();
                came.extend(discard[at]);
                (came, discard[at].is_some())
            })
            .collect();
        if savable(&partial, &later, &key) {
            break;
        }
        unavoidable = street as u8;
    }
    Some(unavoidable)
}

/// Whether the later streets' cards can finish the partial rows unfouled:
/// each street's cards kept whole, or all but one where it had a discard, and
/// the kept cards split over the open places every way.
fn savable(rows: &[Vec<u8>; 3], later: &[(Vec<u8>, bool)], key: &impl Fn(&[u8]) -> i32) -> bool {
    let open = [3 - rows[0].len(), 5 - rows[1].len(), 5 - rows[2].len()];
    let mut kept = Vec::with_capacity(BOARD);
    keep(later, &mut kept, &|kept: &[u8]| {
        kept.len() == open.iter().sum::<usize>() && split(rows, kept, open, key)
    })
}

/// Every choice of kept cards, street by street; true at the first `found`.
fn keep(later: &[(Vec<u8>, bool)], kept: &mut Vec<u8>, found: &impl Fn(&[u8]) -> bool) -> bool {
    let Some(((came, drop), rest)) = later.split_first() else {
        return found(kept);
    };
    let depth = kept.len();
    let skips: Vec<Option<usize>> = if *drop {
        (0..came.len()).map(Some).collect()
    } else {
        vec![None]
    };
    for skip in skips {
        kept.truncate(depth);
        kept.extend(
            came.iter()
                .enumerate()
                .filter(|&(i, _)| Some(i) != skip)
                .map(|(_, &c)| c),
        );
        if keep(rest, kept, found) {
            return true;
        }
    }
    kept.truncate(depth);
    false
}

/// Whether some split of `kept` over the open places (top, middle, the rest to
/// the bottom) leaves top key <= middle key <= bottom key.
fn split(rows: &[Vec<u8>; 3], kept: &[u8], open: [usize; 3], key: &impl Fn(&[u8]) -> i32) -> bool {
    let all: u32 = (1 << kept.len()) - 1;
    // a row's key: its fixed cards and the kept cards in `mask`, on the stack (5 at most)
    let row_key = |row: &[u8], mask: u32| {
        let mut cards = [0u8; 5];
        cards[..row.len()].copy_from_slice(row);
        let mut size = row.len();
        for (i, &card) in kept.iter().enumerate() {
            if mask >> i & 1 == 1 {
                cards[size] = card;
                size += 1;
            }
        }
        key(&cards[..size])
    };
    for top in (0..=all).filter(|m| m.count_ones() as usize == open[0]) {
        let top_key = row_key(&rows[0], top);
        let rest = all & !top;
        // every submask of the rest, the empty one last
        let mut middle = rest;
        loop {
            if middle.count_ones() as usize == open[1] {
                let middle_key = row_key(&rows[1], middle);
                if top_key <= middle_key && middle_key <= row_key(&rows[2], rest & !middle) {
                    return true;
                }
            }
            if middle == 0 {
                break;
            }
            middle = (middle - 1) & rest;
        }
    }
    false
}

/// [`foul_unavoidable_after`] of `n` boards laid out one after another (13
/// cards, 13 streets, 4 discards each); -1 where it is `None`.  On rayon's
/// threads: the boards are independent.
pub fn foul_unavoidable_batch(cards: &[i16], streets: &[i16], discards: &[i16]) -> Vec<i16> {
    let n = cards.len() / BOARD;
    let one = |i: usize| -> i16 {
        let dealt = Dealt {
            cards: &cards[i * BOARD..(i + 1) * BOARD],
            streets: &streets[i * BOARD..(i + 1) * BOARD],
            discards: &discards[i * DISCARD_STREETS..(i + 1) * DISCARD_STREETS],
        };
        foul_unavoidable_after(dealt).map_or(-1, i16::from)
    };
    if crate::threads::usable() {
        (0..n).into_par_iter().map(one).collect()
    } else {
        (0..n).map(one).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::cards;

    fn ids(text: &str) -> Vec<i16> {
        cards(text).into_iter().map(i16::from).collect()
    }

    /// The definition's doctest board: the middle two pair (aces and nines) after
    /// street 2, the bottom K-J-8 with no later K, J, 8, straight or flush for it.
    fn board() -> (Vec<i16>, Vec<i16>) {
        let board = ids("2s 3d 4c Ah Ad 9c 9s 2d Kh Jh 8c 6s 5d");
        let streets = vec![0, 0, 4, 0, 0, 1, 2, 3, 0, 1, 2, 3, 4];
        (board, streets)
    }

    fn after(board: &[i16], streets: &[i16], discards: &str) -> Option<u8> {
        let thrown: Vec<i16> = if discards.is_empty() {
            vec![-1; 4]
        } else {
            ids(discards)
        };
        foul_unavoidable_after(Dealt {
            cards: board,
            streets,
            discards: &thrown,
        })
    }

    #[test]
    fn unavoidable_after_the_street_no_later_cards_could_save() {
        let (board, streets) = board();
        // after street 1, keeping 9s and Tc (street 2) and Qd (street 3) makes the
        // bottom K-Q-J-T-9, a straight over the middle's aces: still savable there
        assert_eq!(after(&board, &streets, "7c Tc Qd 3s"), Some(2));
        // with a 7h for the Qd, nothing after street 1 saves it; after street 0 the 9c
        // and 7c of street 1 still could (the bottom 9-9-7-7-K)
        assert_eq!(after(&board, &streets, "7c Tc 7h 3s"), Some(1));
    }

    #[test]
    fn no_street_when_unfouled_unknown_or_not_a_deal() {
        let (board, streets) = board();
        let kings = ids("2s 3d 4c Ah Ad 9c 9s 2d Kh Kd Ks 6s 5d");
        assert_eq!(after(&kings, &[0; 13], ""), None); // trips under aces: no foul
        let hidden = [-1, ids("7c")[0], ids("Tc")[0], ids("Qd")[0]];
        let dealt = Dealt {
            cards: &board,
            streets: &streets,
            discards: &hidden,
        };
        assert_eq!(foul_unavoidable_after(dealt), None); // street 1 dealt 3, discard unknown
        assert_eq!(after(&board, &streets, "7c Tc Qd Kh"), None); // Kh twice
        let mut joker = board.clone();
        joker[12] = DECK as i16;
        assert_eq!(after(&joker, &streets, "7c Tc Qd 3s"), None);
        let mut unknown = streets.clone();
        unknown[0] = -1;
        assert_eq!(after(&board, &unknown, "7c Tc Qd 3s"), None);
    }

    #[test]
    fn a_foul_made_on_the_last_street_is_unavoidable_only_there() {
        // After street 3: top Qs 5c _, middle Js Jd 9c 8s _, the bottom aces full.
        // Street 4 dealt Qd Kc 3s: the Qd went top (Q-Q-5 over the jacks: a foul),
        // while the Kc on top and the Qd in the middle (K-Q-5 under J-J) was safe.
        let board = ids("Qs 5c Qd Js Jd 9c 8s Kc Ah Ad Ac 6s 5d");
        let streets = [0, 3, 4, 0, 0, 1, 2, 4, 0, 0, 1, 2, 3];
        assert_eq!(after(&board, &streets, "7c Tc 2h 3s"), Some(4));
    }

    #[test]
    fn the_batch_is_board_by_board() {
        let (board, streets) = board();
        let mut cards = board.clone();
        cards.extend(ids("2s 3d 4c Ah Ad 9c 9s 2d Kh Kd Ks 6s 5d"));
        let mut placed = streets.clone();
        placed.extend([0; 13]);
        let mut thrown = ids("7c Tc 7h 3s");
        thrown.extend([-1; 4]);
        assert_eq!(
            foul_unavoidable_batch(&cards, &placed, &thrown),
            vec![1, -1]
        );
    }
}
