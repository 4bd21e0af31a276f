//! The streets of one hand-round at many tables: dealing, each seat's
//! decisions in order of action, and the room's timeouts.
//!
//! Python seats the players and builds the records (`ofc_stats/sim/tables.py`);
//! the core plays each table's hands one after another ([`Session`]): it deals,
//! sets Fantasyland seats with the exact solver, plays the normal seats'
//! streets, scores the finished hands, grants the next Fantasyland (and makes
//! the room's Fantasyland mistakes) and moves the button, tables in parallel.
//! Every draw comes from a [`Stream`] keyed by (seed, table, hand, ...), so a
//! table's hand is the same whichever thread plays it.

use rayon::prelude::*;

use crate::candidates::{apply, fill_of, Candidates};
use crate::cards::{rank, DISCARD, EMPTY};
use crate::error::CoreError;
use crate::eval::Tables;
use crate::fantasy::solve;
use crate::lookahead::{choose, Decision, Style};
use crate::rng::Stream;
use crate::rules::Rules;
use crate::score::{score_batch_into, Batch, Scores};
use crate::timeout::auto_placement;

/// Stream purposes: the last key part, so no two kinds of draw share a stream.
const DEAL: u64 = 0;
const PLAY: u64 = 1;
const TIMEOUT: u64 = 2;
const FANTASY_ERROR: u64 = 3;

/// What every table of one hand-round shares.
#[derive(Debug, Clone, Copy)]
pub struct Round<'a> {
    pub rules: &'a Rules,
    /// (cards dealt, cards placed) of each street, in order.
    pub streets: &'a [(usize, usize)],
    pub seats: usize,
    /// Cards reserved for each seat: a whole hand, discards and Fantasyland included.
    pub block: usize,
    pub rollouts: usize,
    /// Share of a seat's streets the room places on a timeout.
    pub timeout_rate: f64,
    pub seed: u64,
    pub hand: u64,
}

/// One table's hand: its seats' cards and styles, and the Fantasyland boards already set.
#[derive(Debug, Clone, Copy)]
pub struct TableHand<'a> {
    /// The table's number in the session (a key of its random streams).
    pub table: u64,
    /// `seats * block` cards: seat i's block is `cards[i * block..(i + 1) * block]`.
    pub cards: &'a [u8],
    /// Each seat's style, in order of action.
    pub styles: &'a [Style],
    /// Each seat's board before the streets: a Fantasyland seat's set board, else empty.
    pub boards: &'a [[i8; 13]],
    pub in_fantasy: &'a [bool],
}

/// A table's finished boards and, for each normal seat, where each dealt card went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    pub boards: Vec<[i8; 13]>,
    /// `seats * dealt` destination codes (0 top .. 3 discard), in the order dealt;
    /// a Fantasyland seat's are all [`DISCARD`] (the caller records its set board).
    pub dest: Vec<u8>,
    /// Which seat's streets the room placed (bit s: street s).
    pub timed_out: Vec<u16>,
}

/// One seat's placements (as [`placement_key`]s, in the order dealt) and discards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeatMoves {
    pub keys: Vec<u16>,
    pub discards: Vec<u8>,
}

/// A placement as one number: seat (0..4), street (0..16), card (0..64) and
/// destination (0 top .. 3 discard), so records can share one value per placement
/// (`ofc_stats.sim.tables._placements` is indexed by it).
#[inline]
pub fn placement_key(seat: usize, street: u16, card: u8, to: u8) -> u16 {
    (seat as u16) << 12 | street << 8 | (card as u16) << 2 | to as u16
}

/// The first `cards` cards of a deck of `deck_size` shuffled for (seed, table, hand).
pub fn deal(seed: u64, table: u64, hand: u64, deck_size: usize, cards: usize) -> Vec<u8> {
    let mut deck: Vec<u8> = (0..deck_size as u8).collect();
    Stream::new(&[seed, table, hand, DEAL]).choose_first(&mut deck, cards);
    deck.truncate(cards);
    deck
}

impl Round<'_> {
    /// Cards dealt to a normal seat over the streets.
    pub fn dealt(&self) -> usize {
        self.streets.iter().map(|&(d, _)| d).sum()
    }

    fn check(&self, hand: &TableHand<'_>) -> Result<(), CoreError> {
        let bad = |what: &str| Err(CoreError::Hand(format!("table {}: {what}", hand.table)));
        if self.dealt() > self.block || self.streets.iter().any(|&(d, p)| p > d || d > 5) {
            return bad("the streets do not fit a seat's cards");
        }
        if hand.cards.len() != self.seats * self.block
            || hand.styles.len() != self.seats
            || hand.boards.len() != self.seats
            || hand.in_fantasy.len() != self.seats
        {
            return bad("cards, styles, boards or Fantasyland flags do not match the seats");
        }
        let mut seen = 0u64;
        for &c in hand.cards {
            if c >= self.rules.deck_size || seen >> c & 1 == 1 {
                return bad("its cards are not distinct cards of the deck");
            }
            seen |= 1 << c;
        }
        for (board, &fantasy) in hand.boards.iter().zip(hand.in_fantasy) {
            let empty = board.iter().all(|&c| c == EMPTY);
            let full = board
                .iter()
                .all(|&c| c >= 0 && (c as u8) < self.rules.deck_size);
            if (fantasy && !full) || (!fantasy && !empty) {
                return bad("a Fantasyland seat needs a set board, a normal seat an empty one");
            }
        }
        Ok(())
    }

    /// The first street's placement of every dealt card on an empty board, in two
    /// look-aheads: the two strongest cards (pairs and trips first, then the
    /// highest) among 9 placements, then the rest on the board those make (27 for
    /// three cards).  Looking at the 232 placements of five cards at once costs
    /// about three times as much (a screen, then the full look-ahead for the best
    /// 32), and the first street was most of a bot's time.  The bots foul a little
    /// more for it (6,000 hands, seed 1: 23.3% of seats against 21.3%, Fantasyland
    /// entries 2.7% both ways); splitting three then two fouled 24.4%.
    fn opening(
        &self,
        t: &Tables,
        dealt: &[u8],
        unseen: &[u8],
        style: &Style,
        rng: &mut Stream,
    ) -> Option<[u8; 5]> {
        let mut groups = [0u8; 16];
        for &c in dealt {
            groups[rank(c) as usize] += 1;
        }
        let mut order = [0usize, 1, 2, 3, 4];
        let order = &mut order[..dealt.len()];
        order.sort_by_key(|&i| {
            let c = dealt[i];
            std::cmp::Reverse((groups[rank(c) as usize], rank(c), c))
        });
        let mut board = [EMPTY; 13];
        let mut fill = [0u8; 3];
        let mut dest = [DISCARD; 5];
        for part in [&order[..2], &order[2..]] {
            let mut cards = [0u8; 5];
            for (card, &i) in cards.iter_mut().zip(part) {
                *card = dealt[i];
            }
            let cards = &cards[..part.len()];
            let decision = Decision {
                board: &board,
                dealt: cards,
                discards: 0,
                unseen,
            };
            let index = choose(t, self.rules, &decision, style, self.rollouts, rng)?;
            let chosen = Candidates::get(cards.len(), 0).dest(index);
            apply(&mut board, &mut fill, cards, chosen);
            for (&i, &to) in part.iter().zip(chosen) {
                dest[i] = to;
            }
        }
        Some(dest)
    }

    /// Play every normal seat's streets at one table.
    pub fn play_table(&self, hand: &TableHand<'_>) -> Result<Played, CoreError> {
        self.check(hand)?;
        let t = Tables::get();
        let total = self.dealt();
        let mut boards = hand.boards.to_vec();
        let mut dest = vec![DISCARD; self.seats * total];
        let mut timed_out = vec![0u16; self.seats];
        // Cards each seat has been dealt so far (it saw them, discards included).
        let mut own = vec![0u64; self.seats];
        // Cards on the normal seats' boards (they start empty): kept up to date as
        // cards are placed, rather than read off every board at every decision
        // (a loop whose empty-slot test mispredicted).
        let mut on_boards = 0u64;
        let mut offset = 0;
        let mut unseen = Vec::with_capacity(self.rules.deck_size as usize);
        for (street, &(dealt_count, placed)) in self.streets.iter().enumerate() {
            for seat in (0..self.seats).filter(|&s| !hand.in_fantasy[s]) {
                let start = seat * self.block + offset;
                let dealt = &hand.cards[start..start + dealt_count];
                for &c in dealt {
                    own[seat] |= 1 << c;
                }
                let board = boards[seat];
                let fill = fill_of(&board);
                let key = |purpose| {
                    let at = [self.seed, hand.table, self.hand, street as u64, seat as u64];
                    Stream::new(&[at[0], at[1], at[2], at[3], at[4], purpose])
                };
                let timed = self.timeout_rate > 0.0 && key(TIMEOUT).unit() < self.timeout_rate;
                let mut chosen = [DISCARD; 5];
                if timed {
                    timed_out[seat] |= 1 << street;
                    let auto = auto_placement(fill, dealt_count, placed)?;
                    chosen[..dealt_count].copy_from_slice(&auto);
                } else {
                    // What the seat sees: its own cards and the normal seats' boards; a
                    // Fantasyland board is set face down until the showdown (RULES.md §6).
                    let visible = own[seat] | on_boards;
                    unseen.clear();
                    let mut hidden = !visible & ((1u64 << self.rules.deck_size) - 1);
                    while hidden != 0 {
                        unseen.push(hidden.trailing_zeros() as u8);
                        hidden &= hidden - 1;
                    }
                    let mut rng = key(PLAY);
                    let style = &hand.styles[seat];
                    let no_fit = || {
                        CoreError::Hand(format!(
                            "table {}: no legal placement on street {street}",
                            hand.table
                        ))
                    };
                    if street == 0 && fill == [0, 0, 0] && placed == dealt_count && placed > 3 {
                        chosen = self
                            .opening(t, dealt, &unseen, style, &mut rng)
                            .ok_or_else(no_fit)?;
                    } else {
                        let decision = Decision {
                            board: &board,
                            dealt,
                            discards: dealt_count - placed,
                            unseen: &unseen,
                        };
                        let index =
                            choose(t, self.rules, &decision, style, self.rollouts, &mut rng)
                                .ok_or_else(no_fit)?;
                        chosen[..dealt_count].copy_from_slice(
                            Candidates::get(dealt_count, dealt_count - placed).dest(index),
                        );
                    }
                }
                let chosen = &chosen[..dealt_count];
                let mut row_fill = fill;
                apply(&mut boards[seat], &mut row_fill, dealt, chosen);
                for (&c, &to) in dealt.iter().zip(chosen) {
                    on_boards |= ((to != DISCARD) as u64) << c;
                }
                let at = seat * total + offset;
                dest[at..at + dealt_count].copy_from_slice(chosen);
            }
            offset += dealt_count;
        }
        Ok(Played {
            boards,
            dest,
            timed_out,
        })
    }

    /// Each seat's part of the table's hand record: its placements in the order
    /// dealt, as [`placement_key`]s, and its discards.  A normal seat's come from
    /// its streets; a Fantasyland seat placed its `fantasy_cards[seat]` cards on
    /// street 0 where its set board holds them, the rest discarded (highest id
    /// first, as the solver lists them).
    pub fn seat_moves(
        &self,
        hand: &TableHand<'_>,
        played: &Played,
        fantasy_cards: &[u8],
    ) -> Vec<SeatMoves> {
        let total = self.dealt();
        let street_of: Vec<u16> = self
            .streets
            .iter()
            .enumerate()
            .flat_map(|(s, &(d, _))| std::iter::repeat_n(s as u16, d))
            .collect();
        (0..self.seats)
            .map(|seat| {
                let block = &hand.cards[seat * self.block..(seat + 1) * self.block];
                let mut moves = SeatMoves {
                    keys: Vec::with_capacity(self.block),
                    discards: Vec::with_capacity(self.block),
                };
                if hand.in_fantasy[seat] {
                    let board = &played.boards[seat];
                    for &card in &block[..(fantasy_cards[seat] as usize).min(self.block)] {
                        let to = match board.iter().position(|&c| c == card as i8) {
                            Some(at) if at < 3 => 0,
                            Some(at) if at < 8 => 1,
                            Some(_) => 2,
                            None => {
                                moves.discards.push(card);
                                DISCARD
                            }
                        };
                        moves.keys.push(placement_key(seat, 0, card, to));
                    }
                    moves.discards.sort_unstable_by(|x, y| y.cmp(x));
                } else {
                    let dest = &played.dest[seat * total..(seat + 1) * total];
                    for ((&card, &to), &street) in block.iter().zip(dest).zip(&street_of) {
                        moves.keys.push(placement_key(seat, street, card, to));
                        if to == DISCARD {
                            moves.discards.push(card);
                        }
                    }
                }
                moves
            })
            .collect()
    }

    /// Play every table, in parallel on the current rayon pool; results in table order.
    pub fn play(&self, hands: &[TableHand<'_>]) -> Result<Vec<Played>, CoreError> {
        hands.par_iter().map(|h| self.play_table(h)).collect()
    }
}

/// A session's options that stay the same from hand to hand.
#[derive(Debug, Clone, Copy)]
pub struct Session<'a> {
    pub rules: &'a Rules,
    pub streets: &'a [(usize, usize)],
    pub seats: usize,
    pub block: usize,
    pub rollouts: usize,
    pub timeout_rate: f64,
    pub seed: u64,
    /// The value a Fantasyland of n cards gives a repeat (`stay_values[n]`), for the solver.
    pub stay_values: &'a [f64],
    /// Points each seat brings to a hand (caps); None: uncapped.
    pub stack: Option<f64>,
    /// The button stays put after a hand with a Fantasyland seat unless this is set.
    pub button_moves_on_fantasy: bool,
    /// Share of table-hands where the room gets one seat's next Fantasyland wrong.
    pub fantasy_errors: f64,
    /// Cards of the Fantasyland the room deals by mistake.
    pub standard_fantasy_cards: u8,
}

/// Where a table is between hands: its button and, by table position, the cards
/// of the Fantasyland each player was granted (0: none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableState {
    pub button: usize,
    pub fantasy_next: Vec<u8>,
}

/// The room's Fantasyland mistake after a hand: the seat (in order of action)
/// whose next hand it got wrong, and the cards that seat had earned (0: none,
/// so the room dealt one it had not earned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FantasyError {
    pub seat: u8,
    pub earned: u8,
}

/// One hand of one table, everything its record needs.
#[derive(Debug, Clone, PartialEq)]
pub struct HandPlayed {
    /// Per seat in order of action: its table position (which player sits there).
    pub order: Vec<u8>,
    /// Per seat: the cards of its Fantasyland (0: a normal hand).
    pub fantasy_cards: Vec<u8>,
    pub played: Played,
    pub moves: Vec<SeatMoves>,
    /// Per seat: the room's result, capped.
    pub net: Vec<f64>,
    pub fouled: Vec<bool>,
    /// Per seat: whether the board earns a Fantasyland entry.
    pub qualifies: Vec<bool>,
    pub fantasy_error: Option<FantasyError>,
}

impl Session<'_> {
    fn round(&self, hand: u64) -> Round<'_> {
        Round {
            rules: self.rules,
            streets: self.streets,
            seats: self.seats,
            block: self.block,
            rollouts: self.rollouts,
            timeout_rate: self.timeout_rate,
            seed: self.seed,
            hand,
        }
    }

    /// Check what does not change from hand to hand, before any is played.
    pub fn check(&self, players: &[Vec<Style>], states: &[TableState]) -> Result<(), CoreError> {
        let bad = |what: String| Err(CoreError::Hand(what));
        if !(1..=4).contains(&self.seats) || self.streets.len() > 16 {
            return bad("records hold 1 to 4 seats and at most 16 streets".into());
        }
        if self.seats * self.block > self.rules.deck_size as usize {
            return bad(format!(
                "{} seats need {} cards; the deck has {}",
                self.seats,
                self.seats * self.block,
                self.rules.deck_size
            ));
        }
        if self.rollouts == 0 {
            return bad("rollouts must be at least 1".into());
        }
        if players.len() != states.len() {
            return bad("one seating and one state a table".into());
        }
        for (players, state) in players.iter().zip(states) {
            if players.len() != self.seats
                || state.fantasy_next.len() != self.seats
                || state.button >= self.seats
            {
                return bad("a table's players, button or Fantasyland do not fit its seats".into());
            }
            for &n in &state.fantasy_next {
                let n = n as usize;
                if n != 0
                    && (!(13..=18).contains(&n) || n > self.block || n >= self.stay_values.len())
                {
                    return bad(format!(
                        "a Fantasyland of {n} cards does not fit a seat's cards"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Play hands `first..first + count` at one table whose players (by table
    /// position) have `styles`, from `state`, which is left as the next hand finds it.
    pub fn play_table(
        &self,
        table: u64,
        styles: &[Style],
        state: &mut TableState,
        first: u64,
        count: u64,
    ) -> Result<Vec<HandPlayed>, CoreError> {
        let s = self.seats;
        let mut out = Vec::with_capacity(count as usize);
        let mut seat_styles = vec![styles[0]; s];
        let mut boards = vec![[EMPTY; 13]; s];
        let mut in_fantasy = vec![false; s];
        // Kept from hand to hand: the boards as one list, the Fantasyland counts
        // and stacks the scorer reads, and its results (a fresh set a hand was a
        // score's worth of allocations).
        let mut flat: Vec<i8> = Vec::with_capacity(s * 13);
        let mut counts: Vec<i8> = Vec::with_capacity(s);
        let stacks = self.stack.map(|x| vec![x; s]);
        let mut scores = Scores::default();
        for hand in first..first + count {
            let order: Vec<u8> = (0..s).map(|a| ((state.button + 1 + a) % s) as u8).collect();
            let fantasy_cards: Vec<u8> = order
                .iter()
                .map(|&p| state.fantasy_next[p as usize])
                .collect();
            let cards = deal(
                self.seed,
                table,
                hand,
                self.rules.deck_size as usize,
                s * self.block,
            );
            for a in 0..s {
                seat_styles[a] = styles[order[a] as usize];
                in_fantasy[a] = fantasy_cards[a] > 0;
                boards[a] = [EMPTY; 13];
                if in_fantasy[a] {
                    let n = fantasy_cards[a] as usize;
                    // A Fantasyland granted since `check` (the scores' entry or repeat, the
                    // room's mistaken one) is checked as the first hand's were: an error,
                    // not a slice past the seat's block or the stay values.
                    if n > self.block || n >= self.stay_values.len() {
                        return Err(CoreError::Hand(format!(
                            "a Fantasyland of {n} cards does not fit a seat's cards"
                        )));
                    }
                    let dealt = &cards[a * self.block..a * self.block + n];
                    let set = solve(dealt, self.rules, self.stay_values[n])?;
                    boards[a] = set.board().map(|c| c as i8);
                }
            }
            let round = self.round(hand);
            let table_hand = TableHand {
                table,
                cards: &cards,
                styles: &seat_styles,
                boards: &boards,
                in_fantasy: &in_fantasy,
            };
            let played = round.play_table(&table_hand)?;
            let moves = round.seat_moves(&table_hand, &played, &fantasy_cards);
            flat.clear();
            flat.extend(played.boards.iter().flatten());
            counts.clear();
            counts.extend(fantasy_cards.iter().map(|&c| c as i8));
            score_batch_into(
                &Batch {
                    hands: 1,
                    seats: s,
                    boards: &flat,
                    seated: None,
                    in_fantasy: Some(&in_fantasy),
                    fantasy_cards: Some(&counts),
                    stacks: stacks.as_deref(),
                    forced_fouls: None,
                },
                self.rules,
                &mut scores,
            )?;
            let mut granted: Vec<u8> = (0..s).map(|a| scores.next_cards[a].max(0) as u8).collect();
            let mut fantasy_error = None;
            if self.fantasy_errors > 0.0 {
                let mut rng = Stream::new(&[self.seed, table, hand, FANTASY_ERROR]);
                if rng.unit() < self.fantasy_errors {
                    let seat = rng.below(s);
                    let earned = granted[seat];
                    granted[seat] = if earned > 0 {
                        0
                    } else {
                        self.standard_fantasy_cards
                    };
                    fantasy_error = Some(FantasyError {
                        seat: seat as u8,
                        earned,
                    });
                }
            }
            for a in 0..s {
                state.fantasy_next[order[a] as usize] = granted[a];
            }
            if self.button_moves_on_fantasy || !in_fantasy.iter().any(|&f| f) {
                state.button = (state.button + 1) % s;
            }
            out.push(HandPlayed {
                order,
                fantasy_cards,
                played,
                moves,
                net: scores.net_capped.clone(),
                fouled: scores.fouled.clone(),
                qualifies: scores.fantasy_qualifies.clone(),
                fantasy_error,
            });
        }
        Ok(out)
    }

    /// Play hands `first..first + count` at every table, tables in parallel on the
    /// current rayon pool; per table its hands in order, the states moved on.
    pub fn play(
        &self,
        players: &[Vec<Style>],
        states: &mut [TableState],
        tables: &[u64],
        first: u64,
        count: u64,
    ) -> Result<Vec<Vec<HandPlayed>>, CoreError> {
        self.check(players, states)?;
        if tables.len() != states.len() {
            return Err(CoreError::Hand("one table number a table".into()));
        }
        states
            .par_iter_mut()
            .zip(players)
            .zip(tables)
            .map(|((state, styles), &table)| self.play_table(table, styles, state, first, count))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::evaluate;

    fn styles() -> Vec<Style> {
        let s = |fp, fb, noise, tc| Style {
            foul_penalty: fp,
            fantasy_bonus: fb,
            noise,
            strength_weight: 2.0,
            top_chase: tc,
        };
        vec![
            s(9.0, 60.0, 1.5, 0.0),
            s(6.0, 150.0, 0.5, 8.0),
            s(8.0, 80.0, 0.0, 3.0),
        ]
    }

    fn play(tables: u64, timeout_rate: f64, threads: usize) -> Vec<Played> {
        let rules = Rules::pineapple_progressive();
        let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
        let round = Round {
            rules: &rules,
            streets: &streets,
            seats: 3,
            block: 17,
            rollouts: 3,
            timeout_rate,
            seed: 7,
            hand: 2,
        };
        let decks: Vec<Vec<u8>> = (0..tables).map(|t| deal(7, t, 2, 52, 51)).collect();
        let styles = styles();
        let boards = vec![[EMPTY; 13]; 3];
        let flags = vec![false; 3];
        let hands: Vec<TableHand> = decks
            .iter()
            .enumerate()
            .map(|(t, cards)| TableHand {
                table: t as u64,
                cards,
                styles: &styles,
                boards: &boards,
                in_fantasy: &flags,
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| round.play(&hands)).unwrap()
    }

    #[test]
    fn every_hand_is_complete_and_legal_and_the_same_on_any_thread_count() {
        let one = play(12, 0.1, 1);
        assert_eq!(one, play(12, 0.1, 2));
        let t = Tables::get();
        let rules = Rules::pineapple_progressive();
        let mut fouls = 0;
        for p in &one {
            for (seat, board) in p.boards.iter().enumerate() {
                assert!(board.iter().all(|&c| c >= 0));
                // Four streets each discard one card: 4 discards a seat.
                let dest = &p.dest[seat * 17..(seat + 1) * 17];
                assert_eq!(dest.iter().filter(|&&d| d == DISCARD).count(), 4);
                fouls += evaluate(t, &rules, &board.map(|c| c as u8)).fouled as u32;
            }
        }
        // Bots that look ahead foul some boards, not most (36 boards).
        assert!(fouls < 18, "{fouls} fouls");
    }

    fn session(errors: f64, threads: usize) -> Vec<Vec<HandPlayed>> {
        let rules = Rules::pineapple_progressive();
        let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
        let session = Session {
            rules: &rules,
            streets: &streets,
            seats: 3,
            block: 17,
            rollouts: 2,
            timeout_rate: 0.05,
            seed: 5,
            stay_values: &[10.0; 18],
            stack: Some(20.0),
            button_moves_on_fantasy: false,
            fantasy_errors: errors,
            standard_fantasy_cards: 14,
        };
        let players = vec![styles(); 16];
        let mut states: Vec<TableState> = (0..16)
            .map(|t| TableState {
                button: t % 3,
                fantasy_next: vec![0; 3],
            })
            .collect();
        let tables: Vec<u64> = (0..16).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        // Two calls of four hands each: the states carry the tables from one to the next.
        let mut out = pool
            .install(|| session.play(&players, &mut states, &tables, 0, 4))
            .unwrap();
        let more = pool
            .install(|| session.play(&players, &mut states, &tables, 4, 4))
            .unwrap();
        for (hands, later) in out.iter_mut().zip(more) {
            hands.extend(later);
        }
        out
    }

    #[test]
    fn a_session_grants_fantasyland_moves_the_button_and_is_the_same_on_any_thread_count() {
        let one = session(0.0, 1);
        assert_eq!(one, session(0.0, 2));
        let mut fantasy_hands = 0;
        for hands in &one {
            for (this, next) in hands.iter().zip(&hands[1..]) {
                assert!(this.net.iter().sum::<f64>().abs() < 1e-9);
                // Each player's next Fantasyland is what this hand's board earned:
                // an entry (14 cards and up) from a normal hand, a repeat (the same
                // count) from a Fantasyland hand that stays.
                for a in 0..3 {
                    let position = this.order[a];
                    let b = next.order.iter().position(|&p| p == position).unwrap();
                    if this.fantasy_cards[a] == 0 {
                        assert_eq!(this.qualifies[a], next.fantasy_cards[b] > 0);
                    } else {
                        assert!(!this.fouled[a], "the solver never fouls");
                        fantasy_hands += 1;
                    }
                }
                // The button stays after a Fantasyland hand (this ruleset), else moves.
                let moved = (next.order[0] + 3 - this.order[0]) % 3;
                let fantasy = this.fantasy_cards.iter().any(|&c| c > 0);
                assert_eq!(moved, if fantasy { 0 } else { 1 });
            }
        }
        assert!(fantasy_hands > 0);
    }

    #[test]
    fn the_rooms_fantasyland_mistake_flips_the_next_hand() {
        let all = session(1.0, 2);
        assert_eq!(all, session(1.0, 1));
        for hands in &all {
            for (this, next) in hands.iter().zip(&hands[1..]) {
                let e = this.fantasy_error.expect("a mistake every hand");
                let position = this.order[e.seat as usize];
                let b = next.order.iter().position(|&p| p == position).unwrap();
                let dealt = next.fantasy_cards[b];
                assert_eq!(dealt, if e.earned > 0 { 0 } else { 14 });
            }
        }
    }

    #[test]
    fn a_mistaken_fantasyland_larger_than_a_seat_is_an_error_not_a_panic() {
        // The room's mistake deals 40 cards of Fantasyland to a seat of 17: the next
        // hand cannot be dealt, and says so (a slice past the deck panicked before).
        let rules = Rules::pineapple_progressive();
        let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
        let session = Session {
            rules: &rules,
            streets: &streets,
            seats: 3,
            block: 17,
            rollouts: 2,
            timeout_rate: 0.0,
            seed: 5,
            stay_values: &[10.0; 18],
            stack: None,
            button_moves_on_fantasy: false,
            fantasy_errors: 1.0,
            standard_fantasy_cards: 40,
        };
        let mut states = vec![TableState {
            button: 0,
            fantasy_next: vec![0; 3],
        }];
        let played = session.play(&[styles()], &mut states, &[0], 0, 5);
        assert!(matches!(played, Err(CoreError::Hand(why)) if why.contains("40 cards")));
    }

    #[test]
    fn seat_moves_list_each_dealt_card_once_on_its_street() {
        let rules = Rules::pineapple_progressive();
        let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
        let round = Round {
            rules: &rules,
            streets: &streets,
            seats: 2,
            block: 17,
            rollouts: 2,
            timeout_rate: 0.0,
            seed: 3,
            hand: 0,
        };
        let cards = deal(3, 0, 0, 52, 34);
        // Seat 1 plays a 14-card Fantasyland: a set board of its first 13 cards, the
        // 14th (cards[30]) discarded.
        let mut set = [EMPTY; 13];
        for (slot, &c) in set.iter_mut().zip(&cards[17..30]) {
            *slot = c as i8;
        }
        let styles = styles();
        let hand = TableHand {
            table: 0,
            cards: &cards,
            styles: &styles[..2],
            boards: &[[EMPTY; 13], set],
            in_fantasy: &[false, true],
        };
        let played = round.play_table(&hand).unwrap();
        let moves = round.seat_moves(&hand, &played, &[0, 14]);
        // Seat 0: 17 cards; street of card j: 0 for the first five, then 1 + (j - 5) / 3.
        let decode = |k: u16| (k >> 12, k >> 8 & 15, (k >> 2 & 63) as u8, (k & 3) as u8);
        for (j, &key) in moves[0].keys.iter().enumerate() {
            let street = if j < 5 { 0 } else { 1 + (j as u16 - 5) / 3 };
            assert_eq!(decode(key), (0, street, cards[j], played.dest[j]));
        }
        assert_eq!(moves[0].discards.len(), 4);
        // Seat 1: 14 cards on street 0, top (0) for its first three, then middle (1) and
        // bottom (2) for five each, the last one thrown (3).
        let to: Vec<u8> = moves[1].keys.iter().map(|&k| decode(k).3).collect();
        assert_eq!(to, [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3]);
        assert!(moves[1]
            .keys
            .iter()
            .all(|&k| decode(k).0 == 1 && decode(k).1 == 0));
        assert_eq!(moves[1].discards, vec![cards[30]]);
    }

    #[test]
    fn a_timed_out_street_follows_the_auto_placement() {
        let all = play(3, 1.0, 1);
        for p in &all {
            // Every street timed out: the first 5 cards to the bottom, then each street's
            // first two cards fill the middle (5 of them), then the top, the third thrown.
            let dest = &p.dest[0..17];
            assert_eq!(&dest[0..5], &[2; 5]);
            assert_eq!(&dest[5..8], &[1, 1, 3]);
            assert_eq!(&dest[8..11], &[1, 1, 3]);
            assert_eq!(&dest[11..14], &[1, 0, 3]);
            assert_eq!(&dest[14..17], &[0, 0, 3]);
            assert_eq!(p.timed_out, vec![0b11111; 3]);
        }
    }
}
