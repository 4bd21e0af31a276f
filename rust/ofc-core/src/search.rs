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
//!
//! The policy alone ([`play_policy`], the replay's bot) also plays a last street with
//! nothing hidden exactly ([`exact_last_play`]) and can search two streets deep where
//! the caller says the Fantasyland chase is live ([`Deep`]; docs/policy.md).

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

/// A search two streets deep for the policy alone where the Fantasyland chase is live
/// (the caller says where): the best `among` plays by the one-street search are valued
/// again by the mean, over `deals` sampled deals of the next street, of the best of that
/// street's `next_among` plays by afterstate value, each valued by the one-street search
/// over `next_deals` deals of the street after.  A play that starts a Queens-or-better
/// top is worth what a player who sees the next two streets keeps of it, not what the
/// afterstate value a street later guesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deep {
    /// Plays valued two streets deep: the best by the one-street search.
    pub among: usize,
    /// Deals of the next street each is valued over.
    pub deals: usize,
    /// That street's plays searched on, the best by afterstate value.
    pub next_among: usize,
    /// Deals of the street after that each of those is searched over.
    pub next_deals: usize,
}

/// The stream tails of a deep search's deals (apart from the root search's).
const DEEP_SEARCH: u64 = 0xDEE9;

/// The street after an afterstate of `placed` cards: (cards dealt, cards kept).
fn street_after(streets: &[(usize, usize)], placed: usize) -> Option<(usize, usize)> {
    let mut total = 0;
    for w in streets.windows(2) {
        total += w[0].1;
        if total == placed {
            return Some(w[1]);
        }
    }
    None
}

/// The play [`Deep`] chooses, or None where it does not apply (no learned value, a
/// joker, fewer than two streets to come, or the one-street search does not apply).
pub fn deep_play(s: &Setup, search: Search, deep: Deep) -> Option<usize> {
    let scorer = s.policy.value.as_ref()?;
    let first = root_values(s, search)?;
    let streets = &s.game.streets;
    let placed_after = placed(&s.after(s.legal[0]).0);
    let (count2, keep2) = street_after(streets, placed_after)?;
    let (count3, keep3) = street_after(streets, placed_after + keep2)?;
    if deep.deals == 0 || deep.among == 0 || s.unseen().len() < count2 + count3 {
        return None;
    }
    let t = Tables::get();
    let rules = s.game.rules;
    let mut ranked: Vec<(usize, f64)> = s.legal.iter().copied().zip(first).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(deep.among);
    // The deals, shared by every play compared: the next street's, then for each of
    // them the street after's, from the cards still unseen.
    let unseen = s.unseen();
    let mut stream = s.stream(&[DEEP_SEARCH]);
    let seconds = next_deals(unseen, count2, deep.deals, &mut stream);
    let cands2 = Candidates::get(count2, count2 - keep2.min(count2));
    let cands3 = Candidates::get(count3, count3 - keep3.min(count3));
    let thirds: Vec<Vec<Vec<u8>>> = seconds
        .iter()
        .enumerate()
        .map(|(j, deal)| {
            let rest: Vec<u8> = unseen
                .iter()
                .copied()
                .filter(|c| !deal.contains(c))
                .collect();
            let mut stream = s.stream(&[DEEP_SEARCH, j as u64 + 1]);
            next_deals(&rest, count3, deep.next_deals, &mut stream)
        })
        .collect();
    let mut best = (ranked[0].0, f64::NEG_INFINITY);
    for &(c, _) in &ranked {
        let (after, fill) = s.after(c);
        let mut sum = 0.0;
        for (deal, thirds) in seconds.iter().zip(&thirds) {
            let mut plays = Vec::new();
            scorer.values(t, rules, &after, fill, deal, cands2, s.known, |i, v| {
                plays.push((i, v))
            });
            plays.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            plays.truncate(deep.next_among.max(1));
            let known = s.known | deal.iter().fold(0u64, |k, &c| k | 1 << c);
            let mut top = f64::NEG_INFINITY;
            for &(i, _) in &plays {
                let (mut next, mut f) = (after, fill);
                crate::candidates::apply(&mut next, &mut f, deal, cands2.dest(i));
                top = top.max(scorer.searched_value(t, rules, &next, f, known, thirds, cands3));
            }
            sum += top;
        }
        let v = sum / seconds.len().max(1) as f64;
        if v > best.1 {
            best = (c, v);
        }
    }
    Some(best.0)
}

/// [`play_policy`] of each position, in order, on `threads` threads (None: the current
/// pool; see [`crate::threads::on_threads`]): the replay bot's batch.  The plays depend
/// only on each position and its key.  The error is a pool that could not be built.
pub fn play_policies(
    game: &crate::rollout::Game,
    positions: &[crate::rollout::Position],
    dreams: Option<usize>,
    ahead: Option<usize>,
    search: Search,
    deep: Option<Deep>,
    threads: Option<usize>,
) -> Result<Vec<Result<Vec<u8>, String>>, String> {
    use rayon::prelude::*;
    crate::threads::on_threads(threads, || {
        positions
            .par_iter()
            .map(|p| play_policy(game, p, dreams, ahead, search, deep))
            .collect()
    })
}

/// The policy alone's play of a position (the replay's bot): [`play_searching`], but
/// exact where nothing is hidden ([`exact_last_play`], with a search) and two streets
/// deep where `deep` is given ([`deep_play`]).
pub fn play_policy(
    game: &crate::rollout::Game,
    p: &crate::rollout::Position,
    dreams: Option<usize>,
    ahead: Option<usize>,
    search: Search,
    deep: Option<Deep>,
) -> Result<Vec<u8>, String> {
    let s = Setup::new(game, p)?;
    if search.deals > 0 && s.policy.value.is_some() {
        if let Some(c) = exact_last_play(&s) {
            return Ok(s.cands.dest(c).to_vec());
        }
        if let Some(c) = deep.and_then(|d| deep_play(&s, search, d)) {
            return Ok(s.cands.dest(c).to_vec());
        }
    }
    crate::policy::play_searching(game, p, dreams, ahead, search)
}

/// The legal play of highest exact value where nothing is left to deal: the seat's
/// last street with every opponent's board finished (the seat acting last).  Its value
/// is the points against each opponent's real board plus the Fantasyland the finished
/// board earns (the game's values), not the learned value's estimate of the net; the
/// plays of equal value go by the learned value (a foul never wins a tie with a board
/// that stands), then candidate order.  None where a card is still to come to anyone.
pub fn exact_last_play(s: &Setup) -> Option<usize> {
    if !s.deterministic() || s.legal.is_empty() {
        return None;
    }
    let values = s.simulate(&s.legal, 0, 0, 1);
    // Equal plays (a scooped board and a foul, say) go by the learned value's estimate.
    let t = Tables::get();
    let second = |c: usize| {
        s.policy
            .value
            .as_ref()
            .map_or(0.0, |v| v.value(t, s.game.rules, &s.after(c).0, s.known))
    };
    let mut best = (s.legal[0], f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (&c, &v) in s.legal.iter().zip(&values.total) {
        if v > best.1 || (v == best.1 && second(c) > best.2) {
            best = (c, v, second(c));
        }
    }
    Some(best.0)
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
    use crate::cards::{cards, BOARD};
    use crate::eval::Tables;
    use crate::policy::play_searching;
    use crate::race::{grade_positions, RaceParams};
    use crate::rollout::tests::{flush_draw, game, last_street};
    use crate::rules::Rules;
    use crate::value::tests::{
        board_of, small_value as learned, test_fantasy_values as fantasy_values,
    };

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
        let b = board_of(&[("Qs", 0), ("Kh Kc 4d", 3), ("9c 9d 9h Ts Js", 8)]);
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

    /// The rollouts' continuation choices (issue 26, docs/policy.md "The grader with a
    /// searching continuation"): greedy (the default), searching on every street, or on
    /// the graded seat's next street only.  Each grades the same on one thread and two;
    /// the two searching ones value the candidates otherwise than greedy and than each
    /// other; and with no search, `search_next_only` changes nothing (today's grades).
    #[test]
    fn each_rollout_continuation_grades_the_same_on_one_thread_and_two() {
        let rules = Rules::pineapple_progressive();
        let mut greedy = game(&rules);
        greedy.value = Some(Arc::new(learned(&rules)));
        let positions: Vec<_> = (0..3u64)
            .map(|k| flush_draw(vec![k, 4, 1, 1], [3, 2, 1]))
            .collect();
        let search = Search {
            deals: 4,
            among: 0,
            until: BOARD,
            from: 0,
        };
        let grades = |g: &crate::rollout::Game<'_>, threads: usize| -> Vec<String> {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                grade_positions(g, &positions, &RaceParams::new(8))
                    .iter()
                    .map(|r| format!("{:?}", r.as_ref().unwrap().ev))
                    .collect()
            })
        };
        let default = grades(&greedy, 1);
        let mut next_only_greedy = game(&rules);
        next_only_greedy.value = greedy.value.clone();
        next_only_greedy.search_next_only = true;
        assert_eq!(grades(&next_only_greedy, 2), default);
        let mut every = game(&rules);
        every.value = greedy.value.clone();
        every.search = search;
        let mut next = game(&rules);
        next.value = greedy.value.clone();
        next.search = search;
        next.search_next_only = true;
        let (every_one, next_one) = (grades(&every, 1), grades(&next, 1));
        assert_eq!(grades(&every, 2), every_one);
        assert_eq!(grades(&next, 2), next_one);
        assert_eq!(grades(&greedy, 2), default);
        assert_ne!(every_one, default);
        assert_ne!(next_one, default);
        assert_ne!(next_one, every_one);
    }

    #[test]
    fn a_last_street_with_nothing_hidden_is_played_exactly() {
        // Top Qs Qd _, middle Kh Kc 4d 5s _, bottom 9c 9d 9h Ts Js; dealt Qh 2c 3h; the
        // one opponent is finished (top 2d 3d 4c, middle J high, bottom A high).  Qh on
        // top makes QQQ over the middle's KK: a foul, -6 (3 rows + 3 for the scoop).  Any
        // other play keeps QQ on top and KK in the middle: every row wins (3 + 3 scoop),
        // QQ's 7 royalty points against none, and a 14-card Fantasyland: 13 + worth(14).
        // The exact play is one of those that keep Qh off the top; the searching policy
        // plays it, and a position with cards still to come to the opponent has no
        // exact play.
        let rules = Rules::pineapple_progressive();
        let mut g = game(&rules);
        g.value = Some(Arc::new(learned(&rules)));
        let s = Setup::new(&g, &last_street([0, 3, 1])).unwrap();
        let fouls = |c: usize| s.cands.dest(c)[0] == 0; // dealt card 0, Qh, to the top
        let worth14 = g.fantasy_values[14];
        let exact = |c: usize| if fouls(c) { -6.0 } else { 13.0 + worth14 };
        let values = s.simulate(&s.legal, 0, 0, 1);
        for (&c, &v) in s.legal.iter().zip(&values.total) {
            assert!((v - exact(c)).abs() < 1e-12, "play {c}: {v}");
        }
        // The four plays that stand tie (the kickers beat nothing): the learned value's
        // favourite of them, the first of equal ones, is played.
        let learned_value = |c: usize| {
            let scorer = s.policy.value.as_ref().unwrap();
            scorer.value(Tables::get(), &rules, &s.after(c).0, s.known)
        };
        let mut first_safe = usize::MAX;
        for &c in s.legal.iter().filter(|&&c| !fouls(c)) {
            if first_safe == usize::MAX || learned_value(c) > learned_value(first_safe) {
                first_safe = c;
            }
        }
        assert_eq!(s.legal.iter().filter(|&&c| !fouls(c)).count(), 4);
        assert_eq!(exact_last_play(&s), Some(first_safe));
        let search = Search {
            deals: 4,
            among: 0,
            until: BOARD,
            from: 0,
        };
        let played = play_policy(&g, &last_street([0, 3, 1]), None, None, search, None).unwrap();
        assert_eq!(played, s.cands.dest(first_safe).to_vec());
        let open = Setup::new(&g, &flush_draw(vec![0, 9, 1, 1], [3, 2, 1])).unwrap();
        assert_eq!(exact_last_play(&open), None);
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
