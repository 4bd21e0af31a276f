//! How the grader's rollouts set a Fantasyland opponent's hand: fast and greedy.
//!
//! A Fantasyland opponent's board is hidden, so each rollout deals it cards and
//! sets them; the exact solver is too slow for every rollout.  The setter takes
//! the strongest five-card bottom, the strongest middle among the rest, then the
//! strongest top that does not foul; the rest are discarded (the first of equal
//! rows in combination order).  Greedy sets score a few royalty points below the
//! exact ones: opponents in Fantasyland are played a little weaker than they are.

use crate::cards::{is_joker, rank, BOARD, DECK};
use crate::eval::Tables;

/// The first of the strongest five of `cards` in `itertools.combinations` order.
fn best_five(t: &Tables, cards: &[u8]) -> [usize; 5] {
    let n = cards.len();
    let mut best = (-1i32, [0, 1, 2, 3, 4]);
    let mut row = [0u8; 5];
    for a in 0..n {
        row[0] = cards[a];
        for b in a + 1..n {
            row[1] = cards[b];
            for c in b + 1..n {
                row[2] = cards[c];
                for d in c + 1..n {
                    row[3] = cards[d];
                    for (e, &card) in cards.iter().enumerate().skip(d + 1) {
                        row[4] = card;
                        let class = t.class5(&row) as i32;
                        if class > best.0 {
                            best = (class, [a, b, c, d, e]);
                        }
                    }
                }
            }
        }
    }
    best.1
}

/// The first of the strongest three of `cards` not above `limit` (a top above it ranks
/// below every one that fits), in `itertools.combinations` order.
fn best_top(t: &Tables, cards: &[u8], limit: u16) -> [usize; 3] {
    let n = cards.len();
    let mut best = (i32::MIN, [0, 1, 2]);
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                let class = t.class3(&[cards[a], cards[b], cards[c]]) as i32;
                let value = if class > limit as i32 {
                    -1 - class
                } else {
                    class
                };
                if value > best.0 {
                    best = (value, [a, b, c]);
                }
            }
        }
    }
    best.1
}

/// The cards at `idx` and the cards left, both in dealt order.
fn split(cards: &[u8], idx: &[usize]) -> (Vec<u8>, Vec<u8>) {
    let chosen = idx.iter().map(|&i| cards[i]).collect();
    let rest = (0..cards.len())
        .filter(|i| !idx.contains(i))
        .map(|i| cards[i])
        .collect();
    (chosen, rest)
}

/// Each joker replaced by a real card it could be: the hand's most frequent rank
/// (the highest on ties) in the lowest suit the hand does not hold.  The engine
/// reads a joker at least as well as any one card it could stand for, so a board
/// that does not foul with the stand-ins does not foul with the jokers back.
fn stand_ins(cards: &[u8]) -> Vec<u8> {
    let mut out = cards.to_vec();
    for i in 0..out.len() {
        if !is_joker(out[i]) {
            continue;
        }
        let real: Vec<u8> = out.iter().copied().filter(|&c| !is_joker(c)).collect();
        let mut ranks: Vec<(usize, u8)> = (0..13u8)
            .map(|r| {
                (
                    real.iter().filter(|&&c| rank(c) == r).count() * 16 + r as usize,
                    r,
                )
            })
            .collect();
        ranks.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
        let free = ranks
            .iter()
            .find_map(|&(_, r)| (0..4).map(|suit| r * 4 + suit).find(|c| !real.contains(c)));
        out[i] = free.expect("a hand of at most 54 cards leaves a real card free");
    }
    out
}

/// The board (top, middle, bottom) and discards the setter makes of a Fantasyland deal.
pub fn set_fantasy(t: &Tables, cards: &[u8]) -> ([u8; BOARD], Vec<u8>) {
    if cards.iter().any(|&c| is_joker(c)) {
        let standing = stand_ins(cards);
        let (mut board, mut thrown) = set_fantasy(t, &standing);
        for (&card, &stand_in) in cards.iter().zip(&standing) {
            if is_joker(card) {
                for c in board.iter_mut().chain(thrown.iter_mut()) {
                    if *c == stand_in {
                        *c = card;
                    }
                }
            }
        }
        return (board, thrown);
    }
    debug_assert!(cards.iter().all(|&c| (c as usize) < DECK));
    assert!(
        cards.len() >= BOARD,
        "a Fantasyland deal has at least 13 cards"
    );
    let (bottom, rest) = split(cards, &best_five(t, cards));
    let (middle, rest) = split(&rest, &best_five(t, &rest));
    let limit = t.top_limit[t.class5(&middle) as usize];
    let (top, discards) = split(&rest, &best_top(t, &rest, limit));
    let mut board = [0u8; BOARD];
    board[..3].copy_from_slice(&top);
    board[3..8].copy_from_slice(&middle);
    board[8..].copy_from_slice(&bottom);
    (board, discards)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::evaluate;
    use crate::cards::{cards, JOKER_1};
    use crate::rules::Rules;

    #[test]
    fn the_strongest_bottom_then_middle_then_a_top_that_fits() {
        // 14 cards.  The strongest bottom is the quad sevens with the highest kicker, Ks.
        // Of the nine left (2d Qd Jh 9c 8d 2s 3c 4h 5h) the strongest five are the pair
        // of deuces with Q J 9, in dealt order.  Of 8d 3c 4h 5h the strongest top under a
        // pair is 8-5-4 high; 3c is thrown.
        let t = Tables::get();
        let deal = cards("7s 7d 7h 7c 2d Ks Qd Jh 9c 8d 2s 3c 4h 5h");
        let (board, thrown) = set_fantasy(t, &deal);
        let r = Rules::pineapple_progressive();
        let e = evaluate(t, &r, &board);
        assert!(!e.fouled);
        assert_eq!(&board[8..], cards("7s 7d 7h 7c Ks").as_slice());
        assert_eq!(&board[3..8], cards("2d Qd Jh 9c 2s").as_slice());
        assert_eq!(&board[..3], cards("8d 4h 5h").as_slice());
        assert_eq!(thrown, cards("3c"));
    }

    #[test]
    fn a_joker_goes_back_where_its_stand_in_went() {
        // A joker with three aces: the most frequent rank is the ace, and the only
        // ace left is the one stand-in; the board holds the joker where it went.
        let t = Tables::get();
        let mut deal = cards("As Ad Ah Kc Kd 2c 3d 4h 6s 8c 9d Tc Jd 5s");
        deal[13] = JOKER_1;
        let (board, thrown) = set_fantasy(t, &deal);
        assert!(board.contains(&JOKER_1));
        assert!(!board.contains(&cards("Ac")[0]));
        let mut all: Vec<u8> = board.iter().copied().chain(thrown).collect();
        all.sort_unstable();
        let mut want = deal.clone();
        want.sort_unstable();
        assert_eq!(all, want);
    }
}
