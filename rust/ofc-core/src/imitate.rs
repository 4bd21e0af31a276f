//! What a real decision offered, as the learned board value sees it: every legal
//! candidate's afterstate features and value, and which one the player made
//! (issue 26).
//!
//! The players of the samples beat the continuation policy by almost three points a
//! hand.  A conditional-logit model fitted to their choices over these features
//! (`ofc_stats.grade.imitate`) says which afterstates strong players prefer beyond
//! what the board value already sees; added to the value's weights it plays in the
//! rollouts at no extra cost.

use crate::candidates::apply;
use crate::cards::BOARD;
use crate::eval::Tables;
use crate::policy::{card_set, placed};
use crate::rollout::{Game, Position, Setup};
use crate::value::{features, Features};

/// The legal candidates of one decision, as the board value sees them.
#[derive(Debug, Clone)]
pub struct Offered {
    /// Index of each legal candidate in the street's candidate table.
    pub legal: Vec<usize>,
    /// The play made, as a position in `legal`.
    pub chosen: usize,
    /// Cards on the board after the street's placement.
    pub placed: usize,
    /// The learned value of each legal candidate's afterstate (as the policy plays it).
    pub values: Vec<f64>,
    /// Each legal candidate's afterstate features.
    pub features: Vec<Features>,
}

/// The legal candidates of `p` with their features and values; an error where the
/// position cannot be set up or the game has no learned value covering the street.
pub fn offered(game: &Game, p: &Position) -> Result<Offered, String> {
    let s = Setup::new(game, p)?;
    let t = Tables::get();
    let scorer = s
        .policy
        .value
        .clone()
        .ok_or("no learned board value to describe the candidates")?;
    let known = s.known | card_set(s.dealt.iter().copied());
    let mut out = Offered {
        legal: s.legal.clone(),
        chosen: 0,
        placed: 0,
        values: Vec::with_capacity(s.legal.len()),
        features: Vec::with_capacity(s.legal.len()),
    };
    for (k, &i) in s.legal.iter().enumerate() {
        let (mut after, mut fill) = (s.board, s.fill);
        apply(&mut after, &mut fill, &s.dealt, s.cands.dest(i));
        out.placed = placed(&after);
        if !scorer.covers(out.placed) {
            return Err(format!(
                "no model of boards with {} cards placed",
                out.placed
            ));
        }
        out.values.push(scorer.value(t, game.rules, &after, known));
        out.features.push(features(t, game.rules, &after, known));
        if i == s.chosen {
            out.chosen = k;
        }
    }
    debug_assert!(out.placed <= BOARD);
    Ok(out)
}

/// [`offered`] of each position, in order, on `threads` threads (None: the current pool;
/// see [`crate::threads::on_threads`]).  The error is a pool that could not be built.
pub fn offered_all(
    game: &Game,
    positions: &[Position],
    threads: Option<usize>,
) -> Result<Vec<Result<Offered, String>>, String> {
    use rayon::prelude::*;
    crate::threads::on_threads(threads, || {
        positions.par_iter().map(|p| offered(game, p)).collect()
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::policy::play_position;
    use crate::rollout::tests::{flush_draw, game, last_street};
    use crate::rules::Rules;
    use crate::value::tests::small_value;

    fn learned(r: &Rules) -> crate::value::Shared {
        Arc::new(small_value(r))
    }

    #[test]
    fn the_policy_plays_the_candidate_of_highest_offered_value() {
        // The greedy policy's play is the first legal candidate of highest value; the
        // play made (9h to the bottom, 2c to the middle, 5s thrown) is found among them.
        let r = Rules::pineapple_progressive();
        let mut g = game(&r);
        g.value = Some(learned(&r));
        let p = flush_draw(vec![0, 1, 1, 1], [2, 1, 3]);
        let o = offered(&g, &p).unwrap();
        // Street 2 of Pineapple: 3 cards, one thrown, 2 of 3 placed, 7 cards on the board.
        assert_eq!(o.placed, 7);
        assert_eq!(o.values.len(), o.legal.len());
        assert_eq!(o.features.len(), o.legal.len());
        let s = Setup::new(&g, &p).unwrap();
        assert_eq!(o.legal[o.chosen], s.chosen);
        let best =
            (0..o.values.len()).fold(0, |b, k| if o.values[k] > o.values[b] { k } else { b });
        let played = play_position(&g, &p, None, None).unwrap();
        assert_eq!(s.cands.dest(o.legal[best]), played.as_slice());
    }

    #[test]
    fn the_last_street_values_the_finished_board_and_its_fantasyland() {
        // Qh on top fouls (QQQ over KK); Qh in the middle keeps QQ on top, entering a
        // 14-card Fantasyland worth 10 here: that candidate is valued higher by more than 10
        // minus the spread of the net estimate, and its features differ.
        let r = Rules::pineapple_progressive();
        let mut g = game(&r);
        g.fantasy_values[14] = 10.0;
        g.value = Some(learned(&r));
        let o = offered(&g, &last_street([1, 0, 3])).unwrap();
        assert_eq!(o.placed, 13);
        let s = Setup::new(&g, &last_street([1, 0, 3])).unwrap();
        let dest = |k: usize| s.cands.dest(o.legal[k]).to_vec();
        let foul = (0..o.legal.len()).find(|&k| dest(k) == [0, 1, 3]).unwrap();
        let keep = (0..o.legal.len()).find(|&k| dest(k) == [1, 0, 3]).unwrap();
        assert_eq!(o.chosen, keep);
        assert!(o.values[keep] > o.values[foul] + 5.0);
    }
}
