//! Searching one street ahead with the learned board value (issue 26).
//!
//! The learned value alone plays the afterstate of highest value.  On the first
//! streets that value is a guess about cards the seat will choose among later; a
//! [`Search`] instead values each play by the mean, over sampled deals of the next
//! street, of the best next afterstate's value: what a player who sees those cards and
//! then keeps the best of them makes of the play.  The deals are drawn from the cards
//! the seat has not seen, from a counter-based stream keyed by the work unit (the
//! replay's decision, or the rollout, seat and street), so every play compared gets the
//! same deals and any thread count plays the same.  Where `deals` covers every possible
//! deal the search takes each once: the exact expectation over the next street.

use crate::candidates::Candidates;
use crate::cards::is_joker;
use crate::eval::Tables;
use crate::policy::placed;
use crate::rng::Stream;
use crate::rollout::Setup;

/// How the policy searches a street ahead (none by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Search {
    /// Deals of the next street a play is valued over (0: no search).
    pub deals: usize,
    /// Plays searched: the best `among` by afterstate value (0: every legal play).
    pub among: usize,
    /// Search only where the play leaves at most this many cards placed (5: the first
    /// street; 7: the first two; 9: the first three in Pineapple) ...
    pub until: usize,
    /// ... and at least this many (0: from the first street).
    pub from: usize,
}

impl Search {
    /// No search: the greedy afterstate value.
    pub const NONE: Search = Search {
        deals: 0,
        among: 0,
        until: 0,
        from: 0,
    };

    /// Whether a play leaving `after` cards placed is searched.
    pub fn applies(&self, after: usize) -> bool {
        self.deals > 0 && self.from <= after && after <= self.until
    }
}

/// The number of ways to choose `k` of `n` (saturating: only compared with a count of deals).
pub fn choose_count(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u64 = 1;
    for i in 0..k {
        // c * (n - i) / (i + 1) stays whole at every step.
        c = c.saturating_mul((n - i) as u64) / (i as u64 + 1);
    }
    c
}

/// The deals of `count` cards from `unseen` a search averages over: every deal once
/// (in lexicographic order) where `deals` is at least their number, else `deals` of
/// them drawn uniformly from `stream` (each a uniform subset, drawn independently).
pub fn next_deals(unseen: &[u8], count: usize, deals: usize, stream: &mut Stream) -> Vec<Vec<u8>> {
    let count = count.min(unseen.len());
    if choose_count(unseen.len(), count) <= deals as u64 {
        let mut out = Vec::new();
        let mut idx: Vec<usize> = (0..count).collect();
        loop {
            out.push(idx.iter().map(|&i| unseen[i]).collect());
            // The next combination: the last index that can still move moves on.
            let Some(j) = (0..count)
                .rev()
                .find(|&j| idx[j] < unseen.len() - count + j)
            else {
                return out;
            };
            idx[j] += 1;
            for m in j + 1..count {
                idx[m] = idx[m - 1] + 1;
            }
        }
    }
    (0..deals)
        .map(|_| {
            let mut u = unseen.to_vec();
            stream.choose_first(&mut u, count);
            u[..count].to_vec()
        })
        .collect()
}

/// The tail of the key of a root search's deals (the race's screen; after the position).
const ROOT_SEARCH: u64 = 0x5C4EE7;

/// Each legal candidate's value by the rollouts' learned value searching a street ahead
/// as `search` says (every legal candidate: `among` is not used; where the search does
/// not apply, the candidate's afterstate value): what the race's screen ranks by in
/// its place ([`crate::race::RaceParams::screen`]).  The deals are keyed by the position
/// without the seed, so two seeds screen alike.  None where no learned value plays, a
/// joker is in play or the value has no model for the afterstates.
pub fn root_values(s: &Setup, search: Search) -> Option<Vec<f64>> {
    let scorer = s.policy.value.as_ref()?;
    let jokers = s.board.iter().any(|&c| c >= 0 && is_joker(c as u8))
        || s.dealt.iter().any(|&c| is_joker(c));
    if jokers || s.legal.is_empty() {
        return None;
    }
    let t = Tables::get();
    let rules = s.game.rules;
    let after_placed = placed(&s.after(s.legal[0]).0);
    if !scorer.covers(after_placed) {
        return None;
    }
    let known = s.known;
    let next = s
        .next_street()
        .filter(|_| search.applies(after_placed) && after_placed < crate::cards::BOARD);
    let deals = next.map(|(count, keep)| {
        let count = count.min(s.unseen().len());
        let mut stream = s.position_stream(&[ROOT_SEARCH]);
        let deals = next_deals(s.unseen(), count, search.deals, &mut stream);
        (deals, Candidates::get(count, count - keep.min(count)))
    });
    let values = s
        .legal
        .iter()
        .map(|&c| {
            let (after, fill) = s.after(c);
            match &deals {
                Some((deals, next)) => {
                    scorer.searched_value(t, rules, &after, fill, known, deals, next)
                }
                None => scorer.value(t, rules, &after, known),
            }
        })
        .collect();
    Some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_deals() {
        // C(5, 3) = 5·4·3 / 3! = 10; C(47, 3) = 47·46·45 / 6 = 16,215; C(3, 5) = 0.
        assert_eq!(choose_count(5, 3), 10);
        assert_eq!(choose_count(47, 3), 16_215);
        assert_eq!(choose_count(3, 5), 0);
        assert_eq!(choose_count(4, 0), 1);
    }

    #[test]
    fn deals_covering_every_card_take_each_deal_once() {
        let unseen = [3u8, 9, 20, 41, 50];
        let mut s = Stream::new(&[1]);
        let all = next_deals(&unseen, 3, 10, &mut s);
        assert_eq!(all.len(), 10);
        let mut seen = std::collections::HashSet::new();
        for d in &all {
            assert_eq!(d.len(), 3);
            assert!(d.iter().all(|c| unseen.contains(c)));
            let mut k = d.clone();
            k.sort();
            assert!(seen.insert(k), "a deal twice: {d:?}");
        }
        // Fewer deals than exist: that many sampled, from the unseen cards, the same
        // for the same key.
        let a = next_deals(&unseen, 3, 4, &mut Stream::new(&[2]));
        let b = next_deals(&unseen, 3, 4, &mut Stream::new(&[2]));
        assert_eq!(a.len(), 4);
        assert_eq!(a, b);
        assert!(a.iter().flatten().all(|c| unseen.contains(c)));
    }

    #[test]
    fn only_the_first_streets_are_searched() {
        let s = Search {
            deals: 8,
            among: 0,
            until: 7,
            from: 0,
        };
        assert!(s.applies(5) && s.applies(7));
        assert!(!s.applies(9));
        assert!(!Search::NONE.applies(5));
        let late = Search {
            from: 11,
            until: 13,
            ..s
        };
        assert!(late.applies(11) && !late.applies(9));
    }

    use std::sync::Arc;

    use rayon::prelude::*;

    use crate::candidates::{apply, fill_of, Candidates};
    use crate::cards::{cards, BOARD, EMPTY, ROW_START};
    use crate::eval::Tables;
    use crate::policy::play_searching;
    use crate::race::{grade_positions, RaceParams};
    use crate::rollout::tests::{flush_draw, game, last_street};
    use crate::rules::Rules;
    use crate::value::tests::{small_value as learned, test_fantasy_values as fantasy_values};

    const STREETS: [(usize, usize); 5] = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];

    #[test]
    fn deals_that_cover_every_card_make_the_search_the_exact_expectation() {
        // Fourth street: top Qs, middle Kh Kc 4d, bottom 9c 9d 9h Ts Js; dealt Qh 2c 3h;
        // every card but Ad 7s 8s Qd 5h seen.  The last street deals 3 of those 5: C(5, 3)
        // = 10 deals, and a search of 10 deals takes each once.  Each play's searched
        // value must be the mean over the 10 deals, enumerated here by three loops, of
        // the best last play's value (the scorer's whole-board `value`, another path than
        // the search's row-by-row values), and the play chosen the best of them.
        let r = Rules::pineapple_progressive();
        let t = Tables::get();
        let scorer = learned(&r).scorer(&fantasy_values(), 1);
        let search = Search {
            deals: 10,
            among: 0,
            until: BOARD,
            from: 0,
        };
        let searching = scorer.searching(&STREETS, search);
        let mut b = [EMPTY; BOARD];
        for (text, start) in [("Qs", 0), ("Kh Kc 4d", 3), ("9c 9d 9h Ts Js", 8)] {
            for (i, c) in cards(text).into_iter().enumerate() {
                b[ROW_START[0] + start + i] = c as i8;
            }
        }
        let fill = fill_of(&b);
        let dealt = cards("Qh 2c 3h");
        let unseen = cards("Ad 7s 8s Qd 5h");
        let known: u64 = (0..52u8)
            .filter(|c| !unseen.contains(c))
            .fold(0, |k, c| k | 1 << c);
        let cands = Candidates::get(3, 1);
        let last = Candidates::get(3, 1);
        let mut exact = Vec::new();
        for i in (0..cands.len()).filter(|&i| cands.fits(i, fill)) {
            let (mut after, mut f) = (b, fill);
            apply(&mut after, &mut f, &dealt, cands.dest(i));
            let mut sum = 0.0;
            for x in 0..5 {
                for y in x + 1..5 {
                    for z in y + 1..5 {
                        let deal = [unseen[x], unseen[y], unseen[z]];
                        let seen = known | deal.iter().fold(0u64, |k, &c| k | 1 << c);
                        let mut top = f64::NEG_INFINITY;
                        for j in (0..last.len()).filter(|&j| last.fits(j, f)) {
                            let (mut end, mut g) = (after, f);
                            apply(&mut end, &mut g, &deal, last.dest(j));
                            top = top.max(scorer.value(t, &r, &end, seen));
                        }
                        sum += top;
                    }
                }
            }
            let mean = sum / 10.0;
            let mut stream = Stream::new(&[0]);
            let deals = next_deals(&unseen, 3, 10, &mut stream);
            let got = searching.searched_value(t, &r, &after, f, known, &deals, last);
            assert!((got - mean).abs() < 1e-9, "play {i}: {got} against {mean}");
            exact.push((i, mean));
        }
        let best = exact.iter().map(|e| e.1).fold(f64::NEG_INFINITY, f64::max);
        let (chosen, _) = searching
            .choose_keyed(t, &r, &b, fill, &dealt, cands, known, Some(5))
            .unwrap();
        let value_of_chosen = exact.iter().find(|e| e.0 == chosen).unwrap().1;
        assert!((value_of_chosen - best).abs() < 1e-9);
        // Any key gives the same: every deal is taken, none is drawn.
        let (again, _) = searching
            .choose_keyed(t, &r, &b, fill, &dealt, cands, known, Some(99))
            .unwrap();
        assert_eq!(again, chosen);
    }

    #[test]
    fn a_search_plays_and_grades_the_same_on_one_thread_and_two() {
        let rules = Rules::pineapple_progressive();
        let mut g = game(&rules);
        g.value = Some(Arc::new(learned(&rules)));
        g.search = Search {
            deals: 4,
            among: 0,
            until: BOARD,
            from: 0,
        };
        let positions: Vec<_> = (0..6u64)
            .map(|k| flush_draw(vec![k, 9, 1, 1], [3, 2, 1]))
            .collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let plays: Vec<_> = positions
                    .par_iter()
                    .map(|p| play_searching(&g, p, None, None, g.search).unwrap())
                    .collect();
                let mut params = RaceParams::new(8);
                params.screen = g.search;
                let grades = grade_positions(&g, &positions[..2], &params);
                let ev: Vec<String> = grades
                    .iter()
                    .map(|r| format!("{:?}", r.as_ref().unwrap().ev))
                    .collect();
                (plays, ev)
            })
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one, two);
        // The rollouts did search: greedy rollouts value the candidates otherwise.
        let mut greedy = g;
        greedy.search = Search::NONE;
        let plain = grade_positions(&greedy, &positions[..2], &RaceParams::new(8));
        assert_ne!(format!("{:?}", plain[0].as_ref().unwrap().ev), one.1[0]);
    }

    #[test]
    fn the_root_search_is_the_same_for_every_seed_and_exact_on_the_last_street() {
        // The screen's values come from deals keyed by the position, not the seed: two
        // seeds rank the candidates alike.  With no street to come a candidate's value is
        // its finished board's value, searched or not.
        let rules = Rules::pineapple_progressive();
        let mut g = game(&rules);
        g.value = Some(Arc::new(learned(&rules)));
        let search = Search {
            deals: 16,
            among: 0,
            until: BOARD,
            from: 0,
        };
        let a = Setup::new(&g, &flush_draw(vec![0, 9, 1, 1], [3, 2, 1])).unwrap();
        let b = Setup::new(&g, &flush_draw(vec![7, 9, 1, 1], [3, 2, 1])).unwrap();
        let (va, vb) = (
            root_values(&a, search).unwrap(),
            root_values(&b, search).unwrap(),
        );
        assert_eq!(va, vb);
        assert_eq!(va.len(), a.legal.len());
        let greedy = Search::NONE;
        let plain = root_values(&a, greedy).unwrap();
        assert_ne!(va, plain, "a search changes the values");
        let last = Setup::new(&g, &last_street([0, 3, 1])).unwrap();
        let t = Tables::get();
        let scorer = last.policy.value.as_ref().unwrap();
        let expected: Vec<f64> = last
            .legal
            .iter()
            .map(|&c| scorer.value(t, &rules, &last.after(c).0, last.known))
            .collect();
        assert_eq!(root_values(&last, search).unwrap(), expected);
    }
}
