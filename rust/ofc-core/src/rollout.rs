//! The value of each candidate play: expected final points by Monte Carlo rollouts.
//!
//! A rollout deals the cards the player has not seen in a random order and hands
//! them out in blocks: the seat's own later streets first, then each opponent's
//! remaining streets (or its whole Fantasyland deal).  Rollout `r` of a decision
//! draws from streams keyed by (decision key, phase, `r`, ...) only, so every
//! candidate gets the *same* rollouts (common random numbers), the imagination of
//! rollout `r` at a street is shared by every candidate, and nothing depends on
//! threads, batching or the order decisions are graded in.  Opponents' blocks do
//! not depend on the candidate, so their boards are played once per rollout.
//! Boards are played on by [`crate::policy`]; Fantasyland opponents are set by
//! [`crate::setter`].  A candidate's value is the seat's net points (uncapped)
//! plus the value of the Fantasyland its board earns; it splits into four parts
//! that sum to it: row points on live boards, row points lost to fouls,
//! royalties (own minus each opponent's), and Fantasyland.

use crate::board::BoardEval;
use crate::candidates::{apply, fill_of, Candidates};
use crate::cards::{BOARD, EMPTY, ROW_SIZES, ROW_START};
use crate::eval::Tables;
use crate::policy::{evaluate_any, placed, plan_streets, play_on, CardSet, Policy};
use crate::rng::Stream;
use crate::rules::Rules;
use crate::search::Search;
use crate::setter::set_fantasy;

/// The parts a value splits into: rows, fouls, royalties, fantasy.
pub const PARTS: usize = 4;

/// What the rollouts of a ruleset share: its rules, streets and Fantasyland values.
pub struct Game<'a> {
    pub rules: &'a Rules,
    /// (cards dealt, cards placed) of each street.
    pub streets: Vec<(usize, usize)>,
    /// Points a Fantasyland of `n` cards is worth, by `n` (0: no entry, worth 0).
    pub fantasy_values: Vec<f64>,
    /// A learned board value the continuation policy plays by (None: imaginations).
    pub value: Option<crate::value::Shared>,
    /// How the learned value searches a street ahead in the rollouts
    /// ([`Search::NONE`] by default: greedily; see [`crate::search`]).
    pub search: Search,
    /// Whether only the graded seat's first street after the decision searches (the
    /// rest of the rollout plays greedily), or every street the search covers.
    pub search_next_only: bool,
}

/// Most Fantasyland sizes a value table holds (0..=31 cards).
pub const FANTASY_SIZES: usize = 32;

/// Why a table of Fantasyland values cannot value a board, if it cannot: a value that is
/// not a finite number of points at least 0 (a NaN would compare false everywhere and
/// silently pick the first candidate), or more sizes than a deal can have.
pub fn fantasy_values_problem(values: &[f64]) -> Option<String> {
    if values.len() > FANTASY_SIZES {
        return Some(format!(
            "Fantasyland values are given for {} sizes, at most {FANTASY_SIZES} (0..31 cards)",
            values.len()
        ));
    }
    let (n, v) = values
        .iter()
        .enumerate()
        .find(|(_, v)| !v.is_finite() || **v < 0.0)?;
    Some(format!(
        "the value of a {n}-card Fantasyland must be a finite number of points at least 0, not {v}"
    ))
}

/// An opponent as the player sees it.
#[derive(Debug, Clone)]
pub struct Opponent {
    /// Index in order of action.
    pub seat: usize,
    /// 13 positions, -1 empty (all empty in Fantasyland).
    pub board: Vec<i64>,
    /// The first street it has not placed.
    pub next_street: usize,
    /// More than 0: it plays a Fantasyland of this many cards, its board hidden.
    pub fantasy_cards: usize,
}

/// One street decision as the player saw it (the twin of `grade.position.Decision`).
#[derive(Debug, Clone)]
pub struct Position {
    /// The decision's random key: seed, crc32 of the hand key, seat, street.
    pub key: Vec<u64>,
    pub street: usize,
    /// The player's index in order of action.
    pub seat: usize,
    pub board: Vec<i64>,
    pub dealt: Vec<i64>,
    pub discards: usize,
    /// The player's own earlier discards.
    pub dead: Vec<i64>,
    pub opponents: Vec<Opponent>,
    /// The destination of each dealt card in the play made.
    pub chosen: Vec<i64>,
}

/// An opponent's rollouts: where its board starts and what it is still dealt.
struct Rival {
    board: [i8; BOARD],
    streets: Vec<(usize, usize)>,
    fantasy: bool,
    need: usize,
}

// Stream purposes.
const DEAL: u64 = 1;
const OWN: u64 = 2;
const RIVAL: u64 = 3;
pub(crate) const SCREEN: u64 = 4;

/// Everything about one decision that every rollout shares; a bad position is refused.
pub struct Setup<'g> {
    pub game: &'g Game<'g>,
    key: Vec<u64>,
    pub street: usize,
    pub board: [i8; BOARD],
    pub fill: [u8; 3],
    pub dealt: Vec<u8>,
    pub discards: usize,
    pub cands: &'static Candidates,
    /// Candidates that fit the rows, in candidate order.
    pub legal: Vec<usize>,
    /// The play made, an index into `cands`.
    pub chosen: usize,
    /// Cards the player has seen.
    pub known: CardSet,
    unseen: Vec<u8>,
    own_streets: Vec<(usize, usize)>,
    own_need: usize,
    rivals: Vec<Rival>,
    /// How every board of the rollouts is played on.
    pub policy: Policy,
}

/// The values of some candidates over a run of common rollouts: totals and parts.
#[derive(Debug, Clone, Default)]
pub struct Values {
    /// Rollouts per candidate.
    pub count: usize,
    /// Candidate-major: candidate `i`'s rollout `r` at `i * count + r`.
    pub total: Vec<f64>,
    pub parts: Vec<[f64; PARTS]>,
    /// Whether the candidate's board fouled in the rollout.
    pub fouled: Vec<bool>,
}

impl Values {
    pub fn total_of(&self, i: usize) -> &[f64] {
        &self.total[i * self.count..(i + 1) * self.count]
    }

    pub fn parts_of(&self, i: usize) -> &[[f64; PARTS]] {
        &self.parts[i * self.count..(i + 1) * self.count]
    }

    pub fn fouled_of(&self, i: usize) -> &[bool] {
        &self.fouled[i * self.count..(i + 1) * self.count]
    }
}

fn board_of(cells: &[i64]) -> Result<[i8; BOARD], String> {
    let bad = || "a board does not match its streets".to_string();
    if cells.len() != BOARD {
        return Err(bad());
    }
    let mut out = [EMPTY; BOARD];
    for (slot, &c) in out.iter_mut().zip(cells) {
        // Negative ids are empty (as `c >= 0` reads them); others are checked as seen cards.
        *slot = if c < 0 { EMPTY } else { c.min(127) as i8 };
    }
    // Rows fill left to right: no card after an empty slot.
    for r in 0..3 {
        let row = &out[ROW_START[r]..ROW_START[r] + ROW_SIZES[r]];
        if row.windows(2).any(|w| w[0] == EMPTY && w[1] != EMPTY) {
            return Err(bad());
        }
    }
    Ok(out)
}

fn placed_before(streets: &[(usize, usize)], street: usize) -> usize {
    streets[..street.min(streets.len())]
        .iter()
        .map(|s| s.1)
        .sum()
}

impl<'g> Setup<'g> {
    /// The decision's candidates and what every rollout shares.
    pub fn new(game: &'g Game<'g>, p: &Position) -> Result<Setup<'g>, String> {
        let deck = game.rules.deck_size as i64;
        let streets = &game.streets;
        if p.dealt.len() != p.chosen.len() || p.discards > p.dealt.len() {
            return Err("the street's cards and destinations do not match".into());
        }
        if p.dealt.len() > 5 {
            return Err("a street deals at most 5 cards".into());
        }
        let board = board_of(&p.board)?;
        let fill = fill_of(&board);
        let cands = Candidates::get(p.dealt.len(), p.discards);
        let legal: Vec<usize> = (0..cands.len()).filter(|&i| cands.fits(i, fill)).collect();
        let chosen = (0..cands.len()).find(|&i| {
            cands
                .dest(i)
                .iter()
                .zip(&p.chosen)
                .all(|(&a, &b)| a as i64 == b)
        });
        let chosen = match chosen {
            Some(i) if cands.fits(i, fill) => i,
            _ => return Err("the play made does not fit the rows".into()),
        };
        let mut seen: Vec<i64> = p.board.iter().copied().filter(|&c| c >= 0).collect();
        seen.extend(&p.dealt);
        seen.extend(&p.dead);
        for o in &p.opponents {
            seen.extend(o.board.iter().copied().filter(|&c| c >= 0));
        }
        let mut known: CardSet = 0;
        for &c in &seen {
            if !(0..deck).contains(&c) || known >> c & 1 == 1 {
                return Err("a card is outside the deck or seen twice".into());
            }
            known |= 1 << c;
        }
        let rest =
            |from: usize| -> Vec<(usize, usize)> { streets[from.min(streets.len())..].to_vec() };
        let own_streets = rest(p.street + 1);
        let own_need: usize = own_streets.iter().map(|s| s.0).sum();
        let mut rivals = Vec::with_capacity(p.opponents.len());
        for o in &p.opponents {
            if o.fantasy_cards > 0 && o.fantasy_cards < BOARD {
                return Err(format!(
                    "a Fantasyland hand of {} cards cannot be set",
                    o.fantasy_cards
                ));
            }
            let streets = rest(o.next_street);
            let need = if o.fantasy_cards > 0 {
                o.fantasy_cards
            } else {
                streets.iter().map(|s| s.0).sum()
            };
            rivals.push(Rival {
                board: board_of(&o.board)?,
                streets,
                fantasy: o.fantasy_cards > 0,
                need,
            });
        }
        let need = own_need + rivals.iter().map(|r| r.need).sum::<usize>();
        let unseen: Vec<u8> = (0..deck as u8).filter(|&c| known >> c & 1 == 0).collect();
        if need > unseen.len() {
            return Err(format!(
                "the rollouts need {need} cards, {} are unseen",
                unseen.len()
            ));
        }
        // What the Python grader trusted the positions for; the core checks it rather than
        // play on a board that cannot be finished.
        let seats = p.opponents.len() + 1;
        let mut taken = vec![false; seats];
        for s in std::iter::once(p.seat).chain(p.opponents.iter().map(|o| o.seat)) {
            if s >= seats || std::mem::replace(&mut taken[s], true) {
                return Err("the seats in order of action do not match".into());
            }
        }
        let street_ok = streets
            .get(p.street)
            .is_some_and(|&(dealt, kept)| dealt == p.dealt.len() && dealt - kept == p.discards);
        let board_ok = placed(&board) == placed_before(streets, p.street);
        let rivals_ok = p.opponents.iter().zip(&rivals).all(|(o, r)| {
            let want = if r.fantasy {
                0
            } else {
                placed_before(streets, o.next_street)
            };
            placed(&r.board) == want
        });
        if !(street_ok && board_ok && rivals_ok) {
            return Err("a board does not match its streets".into());
        }
        Ok(Setup {
            game,
            key: p.key.clone(),
            street: p.street,
            board,
            fill,
            dealt: p.dealt.iter().map(|&c| c as u8).collect(),
            discards: p.discards,
            cands,
            legal,
            chosen,
            known,
            unseen,
            own_streets,
            own_need,
            rivals,
            policy: Policy::for_game(game, p.opponents.len()),
        })
    }

    /// The stream of this decision's key (its first 6 numbers) followed by `tail`.
    pub(crate) fn stream(&self, tail: &[u64]) -> Stream {
        let mut key = [0u64; 12];
        let n = self.key.len().min(6);
        key[..n].copy_from_slice(&self.key[..n]);
        key[n..n + tail.len()].copy_from_slice(tail);
        Stream::new(&key[..n + tail.len()])
    }

    /// A stream keyed by the position only (the decision's key without its seed, the
    /// first number), followed by `tail`: the same for every seed.
    pub(crate) fn position_stream(&self, tail: &[u64]) -> Stream {
        let mut key = [0u64; 12];
        let n = self.key.len().clamp(1, 6) - 1;
        key[..n].copy_from_slice(&self.key[1..n + 1]);
        key[n..n + tail.len()].copy_from_slice(tail);
        Stream::new(&key[..n + tail.len()])
    }

    /// Whether the street is the player's last.
    pub fn last_street(&self) -> bool {
        self.own_streets.is_empty()
    }

    /// How many streets the player still plays after this one.
    pub fn streets_after(&self) -> usize {
        self.own_streets.len()
    }

    /// The player's next street, (cards dealt, cards placed), if any.
    pub fn next_street(&self) -> Option<(usize, usize)> {
        self.own_streets.first().copied()
    }

    /// The cards the player has not seen.
    pub fn unseen(&self) -> &[u8] {
        &self.unseen
    }

    /// Nothing left to deal: every rollout is the same, one is enough.
    pub fn deterministic(&self) -> bool {
        self.own_need == 0 && self.rivals.iter().all(|r| r.need == 0)
    }

    /// The cards of the board that candidate `c` leaves.
    pub fn after(&self, c: usize) -> ([i8; BOARD], [u8; 3]) {
        let (mut board, mut fill) = (self.board, self.fill);
        apply(&mut board, &mut fill, &self.dealt, self.cands.dest(c));
        (board, fill)
    }

    /// Empty slots after this street.
    pub fn empty_after(&self) -> usize {
        BOARD - placed(&self.board) - (self.dealt.len() - self.discards)
    }

    /// The values of candidates `rows` (indices into `cands`) over rollouts
    /// `first..first + count` of `phase` (0: the race, 1: fresh re-measures, 2: the race's
    /// second look).
    pub fn simulate(&self, rows: &[usize], phase: u64, first: u64, count: usize) -> Values {
        let t = Tables::get();
        let rules = self.game.rules;
        let deck = rules.deck_size;
        let afters: Vec<[i8; BOARD]> = rows.iter().map(|&c| self.after(c).0).collect();
        let own_placed = afters.first().map_or(0, placed);
        let need = self.own_need + self.rivals.iter().map(|r| r.need).sum::<usize>();
        let mut out = Values {
            count,
            total: vec![0.0; rows.len() * count],
            parts: vec![[0.0; PARTS]; rows.len() * count],
            fouled: vec![false; rows.len() * count],
        };
        let mut order = self.unseen.clone();
        let mut others: Vec<BoardEval> = Vec::with_capacity(self.rivals.len());
        for k in 0..count {
            let r = first + k as u64;
            order.copy_from_slice(&self.unseen);
            self.stream(&[DEAL, phase, r])
                .choose_first(&mut order, need);
            let mut offset = self.own_need;
            others.clear();
            for (j, rival) in self.rivals.iter().enumerate() {
                let block = &order[offset..offset + rival.need];
                offset += rival.need;
                let eval = if rival.fantasy {
                    evaluate_any(t, rules, &set_fantasy(t, block).0)
                } else {
                    let mut board = rival.board;
                    let mut plan = plan_streets(
                        &self.policy,
                        &rival.streets,
                        block,
                        self.known,
                        deck,
                        placed(&board),
                        |i| self.stream(&[RIVAL, phase, r, j as u64, i as u64]),
                    );
                    if self.game.search_next_only {
                        plan.iter_mut().for_each(|s| s.key = None);
                    }
                    play_on(t, rules, &self.policy, &mut board, &plan)
                };
                others.push(eval);
            }
            let mut plan = plan_streets(
                &self.policy,
                &self.own_streets,
                &order[..self.own_need],
                self.known,
                deck,
                own_placed,
                |i| self.stream(&[OWN, phase, r, i as u64]),
            );
            if self.game.search_next_only {
                plan.iter_mut().skip(1).for_each(|s| s.key = None);
            }
            for (i, after) in afters.iter().enumerate() {
                let mut board = *after;
                let mine = play_on(t, rules, &self.policy, &mut board, &plan);
                let (total, parts) = self.score(&mine, &others);
                out.total[i * count + k] = total;
                out.parts[i * count + k] = parts;
                out.fouled[i * count + k] = mine.fouled;
            }
        }
        out
    }

    /// The player's points against every opponent, plus its Fantasyland's value, and the parts.
    fn score(&self, mine: &BoardEval, others: &[BoardEval]) -> (f64, [f64; PARTS]) {
        let rules = self.game.rules;
        let mut net = 0i32;
        let mut theirs = 0i32;
        for o in others {
            net += mine.points_against(o, rules);
            theirs += o.royalty_total();
        }
        let royalties = others.len() as i32 * mine.royalty_total() - theirs;
        let rows = (net - royalties) as f64;
        let entry = mine.entry_cards(rules).max(0) as usize;
        let fantasy = self.game.fantasy_values.get(entry).copied().unwrap_or(0.0);
        let (live, fouls) = if mine.fouled {
            (0.0, rows)
        } else {
            (rows, 0.0)
        };
        (
            net as f64 + fantasy,
            [live, fouls, royalties as f64, fantasy],
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cards::cards;

    pub(crate) fn game(rules: &Rules) -> Game<'_> {
        let mut fantasy_values = vec![0.0; 32];
        for (n, v) in fantasy_values.iter_mut().enumerate().skip(14) {
            *v = if n == 14 { 10.23 } else { 12.4 };
        }
        fantasy_values[13] = 2.3;
        Game {
            rules,
            streets: vec![(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)],
            fantasy_values,
            value: None,
            search: Search::NONE,
            search_next_only: false,
        }
    }

    pub(crate) fn board(top: &str, middle: &str, bottom: &str) -> Vec<i64> {
        let mut out = vec![-1i64; 13];
        for (row, text) in [top, middle, bottom].iter().enumerate() {
            for (i, c) in cards(text).into_iter().enumerate() {
                out[ROW_START[row] + i] = c as i64;
            }
        }
        out
    }

    pub(crate) fn ids(text: &str) -> Vec<i64> {
        cards(text).into_iter().map(|c| c as i64).collect()
    }

    /// Second street with an open flush draw on the bottom (Ah Kh 7h; dealt 9h 2c 5s)
    /// against an opponent still to play three streets: a position rollouts decide.
    pub(crate) fn flush_draw(key: Vec<u64>, chosen: [i64; 3]) -> Position {
        Position {
            key,
            street: 1,
            seat: 1,
            board: board("", "8c 3d", "Ah Kh 7h"),
            dealt: ids("9h 2c 5s"),
            discards: 1,
            dead: vec![],
            opponents: vec![Opponent {
                seat: 0,
                board: board("4s", "Tc Td", "Js Jd 5c 6c"),
                next_street: 2,
                fantasy_cards: 0,
            }],
            chosen: chosen.to_vec(),
        }
    }

    /// Top Qs Qd _, middle Kh Kc 4d 5s _, bottom 9c 9d 9h Ts Js; dealt Qh 2c 3h; the
    /// opponent acted first and is complete: nothing about the hand is random.
    pub(crate) fn last_street(chosen: [i64; 3]) -> Position {
        Position {
            key: vec![0, 1, 1, 4],
            street: 4,
            seat: 1,
            board: board("Qs Qd", "Kh Kc 4d 5s", "9c 9d 9h Ts Js"),
            dealt: ids("Qh 2c 3h"),
            discards: 1,
            dead: ids("6c 6d 6h 6s"),
            opponents: vec![Opponent {
                seat: 0,
                board: board("2d 3d 4c", "7c 8d Td Jh 2s", "Ac Kd 8h 7h 3s"),
                next_street: 5,
                fantasy_cards: 0,
            }],
            chosen: chosen.to_vec(),
        }
    }

    #[test]
    fn a_sure_foul_scores_exactly() {
        // Qh on top fouls (QQQ over KK): -6 (3 rows + 3 for the scoop).  Qh in the
        // middle, 2c on top, 3h thrown: the scoop (6), QQ's 7 royalty points and a
        // 14-card Fantasyland (10.23): 23.23, parts rows 6, royalties 7, fantasy 10.23.
        let rules = Rules::pineapple_progressive();
        let g = game(&rules);
        let s = Setup::new(&g, &last_street([0, 3, 1])).unwrap();
        assert!(s.deterministic());
        let safe = (0..s.cands.len())
            .find(|&i| s.cands.dest(i) == [1, 0, 3])
            .unwrap();
        let v = s.simulate(&[s.chosen, safe], 0, 0, 3);
        assert_eq!(v.total_of(0), &[-6.0; 3]);
        assert_eq!(v.parts_of(0)[0], [0.0, -6.0, 0.0, 0.0]);
        assert!((v.total_of(1)[0] - 23.23).abs() < 1e-12);
        assert_eq!(v.parts_of(1)[0], [6.0, 0.0, 7.0, 10.23]);
    }

    #[test]
    fn fantasy_values_must_be_finite_and_not_negative() {
        let mut values = vec![0.0; 32];
        values[14] = 10.23;
        assert_eq!(fantasy_values_problem(&values), None);
        values[15] = f64::NAN;
        assert_eq!(
            fantasy_values_problem(&values).unwrap(),
            "the value of a 15-card Fantasyland must be a finite number of points at least 0, not NaN"
        );
        values[15] = f64::INFINITY;
        assert!(fantasy_values_problem(&values)
            .unwrap()
            .ends_with("not inf"));
        values[15] = -1.0;
        assert!(fantasy_values_problem(&values).unwrap().ends_with("not -1"));
        assert!(fantasy_values_problem(&[0.0; 33])
            .unwrap()
            .starts_with("Fantasyland values are given for 33 sizes"));
    }

    #[test]
    fn refusals_say_why() {
        let rules = Rules::pineapple_progressive();
        let g = game(&rules);
        let mut p = last_street([0, 3, 1]);
        p.dealt = ids("Qs 2c 3h"); // Qs is on the board already
        let err = Setup::new(&g, &p).err().unwrap();
        assert_eq!(err, "a card is outside the deck or seen twice");
        let mut p = last_street([0, 0, 0]); // no discard
        assert_eq!(
            Setup::new(&g, &p).err().unwrap(),
            "the play made does not fit the rows"
        );
        p.chosen = vec![0, 3];
        assert_eq!(
            Setup::new(&g, &p).err().unwrap(),
            "the street's cards and destinations do not match"
        );
    }

    #[test]
    fn rollouts_are_common_to_every_candidate_and_keyed_by_their_index() {
        // Second street: rollout r of a candidate is the same whether it is simulated
        // alone, beside others, or as part of a longer run of rollouts.
        let rules = Rules::pineapple_progressive();
        let g = game(&rules);
        let p = flush_draw(vec![3, 7, 1, 1], [2, 1, 3]);
        let s = Setup::new(&g, &p).unwrap();
        assert!(!s.deterministic());
        let all = s.simulate(&s.legal, 0, 0, 8);
        let two = s.simulate(&[s.legal[5], s.legal[2]], 0, 4, 4);
        assert_eq!(two.total_of(0), &all.total_of(5)[4..]);
        assert_eq!(two.total_of(1), &all.total_of(2)[4..]);
        let fresh = s.simulate(&[s.legal[5]], 1, 4, 4);
        assert_ne!(fresh.total_of(0), two.total_of(0));
        for i in 0..s.legal.len() {
            for (total, parts) in all.total_of(i).iter().zip(all.parts_of(i)) {
                assert!((total - parts.iter().sum::<f64>()).abs() < 1e-9);
            }
        }
    }
}
