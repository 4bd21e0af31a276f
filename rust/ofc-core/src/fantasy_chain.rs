//! What a Fantasyland is worth under the continuation policy: self-play hands for the
//! Markov chain of entry and repeat (issue 26).
//!
//! The chain (`ofc_stats.engine.fantasy_value.fantasy_values`) needs, for each state
//! ("normal hand", "Fantasyland of n cards"), the mean points of a hand in that state
//! and where the next hand goes.  [`Chain::play`] plays hands of one state at a table
//! of normal seats: a Fantasyland seat set by the exact solver ([`crate::fantasy::solve`],
//! its repeat valued at what the policy takes that repeat to be worth), the normal
//! seats played street by street by the continuation policy as the grader's rollouts
//! play it (the learned board value, greedy, where it covers the street; the imagined
//! completions elsewhere, as on a joker), each seeing its own cards and discards and
//! the normal seats' boards as they stand (a Fantasyland board is set face down).  The
//! finished table is scored by the core's scorer; each row is a seat's points before
//! caps and the Fantasyland the rules deal it next (an entry, or the repeat).
//!
//! A normal hand gives a row for every seat; a Fantasyland hand only the Fantasyland
//! seat's (its opponents' hands are against a Fantasyland, not the chain's normal
//! state).  Every hand's deck and imaginations come from streams keyed by (seed,
//! seats, state, hand), so the rows are the same on any thread count.

use std::sync::Arc;

use rayon::prelude::*;

use crate::candidates::{apply, fill_of, Candidates};
use crate::cards::{BOARD, EMPTY};
use crate::error::CoreError;
use crate::eval::Tables;
use crate::fantasy::solve;
use crate::policy::{card_set, choose_street, imagine_spares, placed, Imagined, Policy, Street};
use crate::policy::{CardSet, MAX_DREAMS};
use crate::rng::Stream;
use crate::rules::Rules;
use crate::score::{score_batch, Batch};
use crate::value::ValueFn;

/// Stream purposes: the last key part, so no two kinds of draw share a stream.
const DEAL: u64 = 0;
const DREAM: u64 = 1;

/// Everything the hands of one ruleset and table size share.
#[derive(Debug, Clone)]
pub struct Chain<'a> {
    pub rules: &'a Rules,
    /// (cards dealt, cards placed) of each street, in order.
    pub streets: &'a [(usize, usize)],
    /// Seats at the table (2 to the ruleset's most).
    pub seats: usize,
    /// What a Fantasyland of n cards is worth to the policy, by n (0..32): the normal
    /// seats play by it and the solver values a repeat by it.
    pub fantasy_values: &'a [f64],
    /// The learned board value the normal seats play by (None: the imagined completions).
    pub value: Option<Arc<ValueFn>>,
    pub seed: u64,
}

/// One seat's hand: the Fantasyland it played (0: a normal hand), its points before
/// caps against the table, and the Fantasyland the rules deal it next (0: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatHand {
    pub hand: u64,
    pub cards: u8,
    pub points: i32,
    pub next_cards: u8,
}

/// A played hand: every seat's finished board, in order of action, and its rows.
type Table = (Vec<[i8; BOARD]>, Vec<SeatHand>);

impl Chain<'_> {
    /// Cards a normal seat is dealt over the streets.
    fn dealt(&self) -> usize {
        self.streets.iter().map(|s| s.0).sum()
    }

    /// Why hands of a `fantasy`-card state (0: normal) cannot be played, if they cannot.
    pub fn check(&self, fantasy: u8) -> Result<(), CoreError> {
        let bad = |what: String| Err(CoreError::Hand(what));
        if !(2..=self.rules.max_seats as usize).contains(&self.seats) {
            return bad(format!(
                "{} seats do not fit the ruleset (2 to {})",
                self.seats, self.rules.max_seats
            ));
        }
        if self.streets.is_empty()
            || self.streets.iter().map(|s| s.1).sum::<usize>() != BOARD
            || self.streets.iter().any(|s| s.0 > 5 || s.1 > s.0)
        {
            return bad("these streets do not deal a board".into());
        }
        if let Some(problem) = crate::rollout::fantasy_values_problem(self.fantasy_values) {
            return bad(problem);
        }
        let n = fantasy as usize;
        if n != 0 && !(BOARD..=18).contains(&n) {
            return bad(format!("a Fantasyland deals 13 to 18 cards, not {n}"));
        }
        let normal = if n > 0 { self.seats - 1 } else { self.seats };
        let cards = n + normal * self.dealt();
        if cards > self.rules.deck_size as usize {
            return bad(format!(
                "{} seats with a {n}-card Fantasyland need {cards} cards; the deck has {}",
                self.seats, self.rules.deck_size
            ));
        }
        Ok(())
    }

    /// The policy the normal seats play by.
    fn policy(&self) -> Policy {
        let opponents = self.seats - 1;
        let mut policy = Policy::new(self.fantasy_values, opponents);
        policy.value =
            (self.value.as_ref()).map(|v| Arc::new(v.scorer(self.fantasy_values, opponents)));
        policy
    }

    /// What the policy takes a repeat of an `n`-card Fantasyland to be worth.
    fn stay_value(&self, n: usize) -> f64 {
        if !self.rules.has_repeat() {
            return 0.0;
        }
        let repeat = match self.rules.repeat_cards {
            0 => n,
            r => r as usize,
        };
        self.fantasy_values.get(repeat).copied().unwrap_or(0.0)
    }

    /// Hands `first..first + count` of the `fantasy`-card state (0: normal hands), in
    /// parallel on the current rayon pool; the rows in hand order (a normal hand's
    /// seats in order of action).
    pub fn play(&self, fantasy: u8, first: u64, count: u64) -> Result<Vec<SeatHand>, CoreError> {
        self.check(fantasy)?;
        let policy = self.policy();
        let hands: Vec<Vec<SeatHand>> = (first..first + count)
            .into_par_iter()
            .map(|h| self.table(&policy, fantasy, h).map(|(_, rows)| rows))
            .collect::<Result<_, _>>()?;
        Ok(hands.into_iter().flatten().collect())
    }

    /// One hand: the table's finished boards (in order of action) and its rows.  The
    /// Fantasyland seat (if any) sits at `hand % seats` in order of action.
    fn table(&self, policy: &Policy, fantasy: u8, hand: u64) -> Result<Table, CoreError> {
        let t = Tables::get();
        let rules = self.rules;
        let (seats, n, total) = (self.seats, fantasy as usize, self.dealt());
        let hero = (n > 0).then_some(hand as usize % seats);
        let key = [self.seed, seats as u64, n as u64, hand];
        let mut deck: Vec<u8> = (0..rules.deck_size).collect();
        let normal = seats - usize::from(hero.is_some());
        Stream::new(&[key[0], key[1], key[2], key[3], DEAL])
            .choose_first(&mut deck, n + normal * total);
        let mut boards = vec![[EMPTY; BOARD]; seats];
        // Each normal seat's cards: the Fantasyland's n first, then a block a seat.
        let mut blocks: Vec<&[u8]> = vec![&[]; seats];
        let mut at = n;
        for seat in 0..seats {
            if Some(seat) == hero {
                let set = solve(&deck[..n], rules, self.stay_value(n))?;
                boards[seat] = set.board().map(|c| c as i8);
            } else {
                blocks[seat] = &deck[at..at + total];
                at += total;
            }
        }
        let mut own: Vec<CardSet> = vec![0; seats];
        let mut offset = 0;
        for (k, &(count, keep)) in self.streets.iter().enumerate() {
            let future = &self.streets[k + 1..];
            let cands = Candidates::get(count, count - keep);
            for seat in (0..seats).filter(|&s| Some(s) != hero) {
                let dealt = &blocks[seat][offset..offset + count];
                own[seat] |= card_set(dealt.iter().copied());
                // What the seat sees: its own cards and the normal seats' boards.
                let mut known = own[seat];
                for (_, b) in boards.iter().enumerate().filter(|&(s, _)| Some(s) != hero) {
                    known |= card_set(b.iter().filter(|&&c| c >= 0).map(|&c| c as u8));
                }
                let board = boards[seat];
                let fill = fill_of(&board);
                let mut street = Street {
                    dealt,
                    cands,
                    dreams: [Imagined::NONE; MAX_DREAMS],
                    count: 0,
                    future,
                    known,
                    deck: rules.deck_size,
                    key: None,
                };
                // The imagined completions, where the learned value does not play.
                let after = placed(&board) + keep;
                let learned = rules.deck_size == 52
                    && (policy.value.as_ref()).is_some_and(|v| v.covers(after));
                let slots = BOARD.saturating_sub(after);
                let need = policy.need(slots, future.iter().map(|s| s.0).sum());
                if !learned && need > 0 {
                    let tail = [seat as u64, k as u64, DREAM];
                    let mut s =
                        Stream::new(&[key[0], key[1], key[2], key[3], tail[0], tail[1], tail[2]]);
                    let dreams = policy.dreams.clamp(1, MAX_DREAMS);
                    for d in &mut street.dreams[..dreams] {
                        *d = imagine_spares(&mut s, known, rules.deck_size, need, slots);
                    }
                    street.count = dreams;
                }
                let (chosen, _) = choose_street(t, rules, policy, &board, fill, &street);
                let mut f = fill;
                apply(&mut boards[seat], &mut f, dealt, cands.dest(chosen));
            }
            offset += count;
        }
        let flat: Vec<i8> = boards.iter().flatten().copied().collect();
        let in_fantasy: Vec<bool> = (0..seats).map(|s| Some(s) == hero).collect();
        let counts: Vec<i8> = (0..seats)
            .map(|s| if Some(s) == hero { n as i8 } else { 0 })
            .collect();
        let scores = score_batch(
            &Batch {
                hands: 1,
                seats,
                boards: &flat,
                seated: None,
                in_fantasy: Some(&in_fantasy),
                fantasy_cards: Some(&counts),
                stacks: None,
                forced_fouls: None,
            },
            rules,
        )?;
        let row = |s: usize| SeatHand {
            hand,
            cards: counts[s] as u8,
            points: scores.net[s],
            next_cards: if scores.fantasy_stays[s] {
                scores.repeat_cards[s]
            } else {
                scores.fantasy_cards[s]
            }
            .max(0) as u8,
        };
        let rows = match hero {
            Some(s) => vec![row(s)],
            None => (0..seats).map(row).collect(),
        };
        Ok((boards, rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::evaluate;
    use crate::value::tests::{pool_of, small_value, test_fantasy_values};

    const STREETS: [(usize, usize); 5] = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];

    #[test]
    fn the_rows_are_the_same_on_any_thread_count_and_keyed_by_the_seed() {
        let r = Rules::pineapple_progressive();
        let values = test_fantasy_values();
        let chain = Chain {
            rules: &r,
            streets: &STREETS,
            seats: 3,
            fantasy_values: &values,
            value: Some(Arc::new(small_value(&r))),
            seed: 7,
        };
        for fantasy in [0, 15] {
            let one = pool_of(1).install(|| chain.play(fantasy, 0, 24).unwrap());
            let two = pool_of(2).install(|| chain.play(fantasy, 0, 24).unwrap());
            assert_eq!(one, two);
            // A later range is the tail of a longer one: hands are keyed, not streamed.
            let tail = chain.play(fantasy, 10, 14).unwrap();
            let seats = if fantasy > 0 { 1 } else { 3 };
            assert_eq!(tail[..], one[10 * seats..]);
            let other = Chain {
                seed: 8,
                ..chain.clone()
            };
            assert_ne!(other.play(fantasy, 0, 24).unwrap(), one);
        }
    }

    /// Each seat's points against the others' boards, as the core's pair scorer adds them.
    fn points(boards: &[[i8; BOARD]], r: &Rules) -> Vec<i32> {
        let t = Tables::get();
        let e: Vec<_> = boards
            .iter()
            .map(|b| evaluate(t, r, &b.map(|c| c as u8)))
            .collect();
        (0..e.len())
            .map(|s| {
                (0..e.len())
                    .filter(|&o| o != s)
                    .map(|o| e[s].points_against(&e[o], r))
                    .sum()
            })
            .collect()
    }

    #[test]
    fn a_fantasyland_seat_plays_the_solvers_set_and_every_row_is_the_tables_score() {
        let r = Rules::pineapple_progressive();
        let values = test_fantasy_values();
        let chain = Chain {
            rules: &r,
            streets: &STREETS,
            seats: 2,
            fantasy_values: &values,
            value: None,
            seed: 1,
        };
        let policy = chain.policy();
        let t = Tables::get();
        for hand in 0..12 {
            // A normal hand: a row a seat, zero-sum, each its points against the other
            // and the Fantasyland its board enters (14..17 cards, or none).
            let (boards, rows) = chain.table(&policy, 0, hand).unwrap();
            assert_eq!(rows.len(), 2);
            assert_eq!(rows[0].points + rows[1].points, 0);
            let want = points(&boards, &r);
            for (s, row) in rows.iter().enumerate() {
                assert!(boards[s].iter().all(|&c| c >= 0));
                assert_eq!((row.hand, row.cards, row.points), (hand, 0, want[s]));
                let e = evaluate(t, &r, &boards[s].map(|c| c as u8));
                assert_eq!(row.next_cards as i8, e.entry_cards(&r).max(0));
            }
            // A 15-card Fantasyland: the seat at hand % 2 plays the solver's set of the
            // hand's first 15 cards (its repeat worth values[14], the preset repeating
            // into 14 cards), scored against the other seat's board.
            let (boards, rows) = chain.table(&policy, 15, hand).unwrap();
            let hero = hand as usize % 2;
            let mut deck: Vec<u8> = (0..52).collect();
            Stream::new(&[1, 2, 15, hand, DEAL]).choose_first(&mut deck, 15 + 17);
            let set = solve(&deck[..15], &r, values[14]).unwrap();
            assert_eq!(boards[hero], set.board().map(|c| c as i8));
            assert_eq!(
                rows,
                vec![SeatHand {
                    hand,
                    cards: 15,
                    points: points(&boards, &r)[hero],
                    next_cards: if set.stays { 14 } else { 0 },
                }]
            );
            // The normal seat's cards are the next 17 of the deck, none of the 15.
            let other: Vec<u8> = boards[1 - hero].iter().map(|&c| c as u8).collect();
            assert!(other.iter().all(|c| deck[15..32].contains(c)));
        }
    }

    #[test]
    fn hands_that_do_not_fit_are_refused_with_the_reason() {
        let r = Rules::pineapple_progressive();
        let values = test_fantasy_values();
        let chain = Chain {
            rules: &r,
            streets: &STREETS,
            seats: 4,
            fantasy_values: &values,
            value: None,
            seed: 1,
        };
        let err = chain.play(0, 0, 1).unwrap_err().to_string();
        assert!(err.contains("4 seats do not fit"), "{err}");
        let three = Chain {
            seats: 3,
            ..chain.clone()
        };
        assert!(three
            .play(12, 0, 1)
            .unwrap_err()
            .to_string()
            .contains("13 to 18"));
        let bad = [0.0, f64::NAN];
        let nan = Chain {
            seats: 2,
            fantasy_values: &bad,
            ..chain
        };
        assert!(nan.play(0, 0, 1).is_err());
    }
}
