//! Many finished hands scored at once: the twin of `score_hand` in
//! `ofc_stats/engine/scoring.py`, laid out as the batch scorer's arrays.
//!
//! Input is hands × seats × 13 card ids (seats in order of action, the button
//! last); a hand with fewer seats than the widest marks the others absent.
//! Every hand is independent, so chunks of hands run on rayon's threads and
//! the result is the same for any thread count.

use rayon::prelude::*;

use crate::board::{read_jokers, BoardEval};
use crate::cards::{is_joker, BOARD, DECK};
use crate::error::CoreError;
use crate::eval::Tables;
use crate::rules::Rules;

/// What an absent seat is scored as: 13 distinct real cards (2c..5c), so every
/// lookup stays valid.  Its points are zeroed; its classes and royalties are
/// reported as this board's (as the NumPy engine did).
pub const FILLER: [u8; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const FILLER_IDS: [i8; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/// Hands scored per rayon task: big enough to amortise the task, small enough to balance.
const CHUNK: usize = 512;

/// One batch of hands; every per-seat array is hand-major, `hands * seats` long.
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    pub hands: usize,
    pub seats: usize,
    /// `hands * seats * 13` card ids; an absent seat's are ignored.
    pub boards: &'a [i8],
    /// None: every seat is seated.
    pub seated: Option<&'a [bool]>,
    pub in_fantasy: Option<&'a [bool]>,
    /// Cards dealt to a Fantasyland seat (0 = unknown): the repeat's count when
    /// the ruleset deals "as many as this Fantasyland".
    pub fantasy_cards: Option<&'a [i8]>,
    /// Points on the table per seat, NaN = uncapped; None: no caps.
    pub stacks: Option<&'a [f64]>,
    /// Foul verdicts to use instead of the boards' own.
    pub forced_fouls: Option<&'a [bool]>,
}

/// Every result of a batch; per-seat arrays `hands * seats`, `boards` 13 per
/// seat, `points` `hands * seats * seats` (what seat i wins from seat j, uncapped).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scores {
    pub boards: Vec<i8>,
    pub top_class: Vec<i16>,
    pub middle_class: Vec<i16>,
    pub bottom_class: Vec<i16>,
    pub fouled: Vec<bool>,
    pub royalty_top: Vec<i16>,
    pub royalty_middle: Vec<i16>,
    pub royalty_bottom: Vec<i16>,
    pub fantasy_qualifies: Vec<bool>,
    /// Cards of the Fantasyland a normal hand's board earns (0: none).
    pub fantasy_cards: Vec<i8>,
    pub fantasy_stays: Vec<bool>,
    /// Cards of the repeat (0: none, or a count the input did not give).
    pub repeat_cards: Vec<i8>,
    /// Cards the next hand deals the seat (`FantasyOutcome.next_cards`): the
    /// repeat's when it stays, else the entry's (0: a normal hand, or a repeat
    /// whose count the input did not give).
    pub next_cards: Vec<i8>,
    pub points: Vec<i32>,
    pub net: Vec<i32>,
    pub net_capped: Vec<f64>,
    /// `hands * seats * seats`: rows seat i wins from seat j (a live board wins all
    /// three from a fouled one; two fouled boards compare none), and rows tied.
    pub pair_won: Vec<i8>,
    pub pair_tied: Vec<i8>,
    /// Per seat, [`Scores::pair_won`] and the rest summed over its opponents; a
    /// scoop is all three rows won from one opponent.
    pub rows_won: Vec<i8>,
    pub rows_lost: Vec<i8>,
    pub rows_tied: Vec<i8>,
    pub scoops: Vec<i8>,
    pub scooped: Vec<i8>,
}

impl Scores {
    fn zeroed(hands: usize, seats: usize) -> Scores {
        let mut out = Scores::default();
        out.reset(hands, seats);
        out
    }

    /// Every column `hands * seats` long (as [`Scores::zeroed`] makes them) and
    /// zeroed, its memory kept: the simulator scores one hand at a time.
    fn reset(&mut self, hands: usize, seats: usize) {
        fn zero<T: Copy + Default>(column: &mut Vec<T>, len: usize) {
            column.clear();
            column.resize(len, T::default());
        }
        let n = hands * seats;
        zero(&mut self.boards, n * BOARD);
        zero(&mut self.top_class, n);
        zero(&mut self.middle_class, n);
        zero(&mut self.bottom_class, n);
        zero(&mut self.fouled, n);
        zero(&mut self.royalty_top, n);
        zero(&mut self.royalty_middle, n);
        zero(&mut self.royalty_bottom, n);
        zero(&mut self.fantasy_qualifies, n);
        zero(&mut self.fantasy_cards, n);
        zero(&mut self.fantasy_stays, n);
        zero(&mut self.repeat_cards, n);
        zero(&mut self.next_cards, n);
        zero(&mut self.points, n * seats);
        zero(&mut self.net, n);
        zero(&mut self.net_capped, n);
        zero(&mut self.pair_won, n * seats);
        zero(&mut self.pair_tied, n * seats);
        zero(&mut self.rows_won, n);
        zero(&mut self.rows_lost, n);
        zero(&mut self.rows_tied, n);
        zero(&mut self.scoops, n);
        zero(&mut self.scooped, n);
    }
}

/// The mutable slices of [`Scores`] for one chunk of hands.
struct Part<'a> {
    first: usize,
    boards: &'a mut [i8],
    top_class: &'a mut [i16],
    middle_class: &'a mut [i16],
    bottom_class: &'a mut [i16],
    fouled: &'a mut [bool],
    royalty_top: &'a mut [i16],
    royalty_middle: &'a mut [i16],
    royalty_bottom: &'a mut [i16],
    fantasy_qualifies: &'a mut [bool],
    fantasy_cards: &'a mut [i8],
    fantasy_stays: &'a mut [bool],
    repeat_cards: &'a mut [i8],
    next_cards: &'a mut [i8],
    points: &'a mut [i32],
    net: &'a mut [i32],
    net_capped: &'a mut [f64],
    pair_won: &'a mut [i8],
    pair_tied: &'a mut [i8],
    rows_won: &'a mut [i8],
    rows_lost: &'a mut [i8],
    rows_tied: &'a mut [i8],
    scoops: &'a mut [i8],
    scooped: &'a mut [i8],
}

fn parts(out: &mut Scores, seats: usize) -> Vec<Part<'_>> {
    let n = CHUNK * seats;
    let mut boards = out.boards.chunks_mut(n * BOARD);
    let top = out.top_class.chunks_mut(n);
    let mut middle = out.middle_class.chunks_mut(n);
    let mut bottom = out.bottom_class.chunks_mut(n);
    let mut fouled = out.fouled.chunks_mut(n);
    let mut r_top = out.royalty_top.chunks_mut(n);
    let mut r_middle = out.royalty_middle.chunks_mut(n);
    let mut r_bottom = out.royalty_bottom.chunks_mut(n);
    let mut qualifies = out.fantasy_qualifies.chunks_mut(n);
    let mut cards = out.fantasy_cards.chunks_mut(n);
    let mut stays = out.fantasy_stays.chunks_mut(n);
    let mut repeat = out.repeat_cards.chunks_mut(n);
    let mut next = out.next_cards.chunks_mut(n);
    let mut points = out.points.chunks_mut(n * seats);
    let mut net = out.net.chunks_mut(n);
    let mut capped = out.net_capped.chunks_mut(n);
    let mut pair_won = out.pair_won.chunks_mut(n * seats);
    let mut pair_tied = out.pair_tied.chunks_mut(n * seats);
    let mut rows_won = out.rows_won.chunks_mut(n);
    let mut rows_lost = out.rows_lost.chunks_mut(n);
    let mut rows_tied = out.rows_tied.chunks_mut(n);
    let mut scoops = out.scoops.chunks_mut(n);
    let mut scooped = out.scooped.chunks_mut(n);
    let mut out = Vec::new();
    let mut first = 0;
    for top_class in top {
        let hands = top_class.len() / seats;
        out.push(Part {
            first,
            boards: boards.next().unwrap_or_default(),
            top_class,
            middle_class: middle.next().unwrap_or_default(),
            bottom_class: bottom.next().unwrap_or_default(),
            fouled: fouled.next().unwrap_or_default(),
            royalty_top: r_top.next().unwrap_or_default(),
            royalty_middle: r_middle.next().unwrap_or_default(),
            royalty_bottom: r_bottom.next().unwrap_or_default(),
            fantasy_qualifies: qualifies.next().unwrap_or_default(),
            fantasy_cards: cards.next().unwrap_or_default(),
            fantasy_stays: stays.next().unwrap_or_default(),
            repeat_cards: repeat.next().unwrap_or_default(),
            next_cards: next.next().unwrap_or_default(),
            points: points.next().unwrap_or_default(),
            net: net.next().unwrap_or_default(),
            net_capped: capped.next().unwrap_or_default(),
            pair_won: pair_won.next().unwrap_or_default(),
            pair_tied: pair_tied.next().unwrap_or_default(),
            rows_won: rows_won.next().unwrap_or_default(),
            rows_lost: rows_lost.next().unwrap_or_default(),
            rows_tied: rows_tied.next().unwrap_or_default(),
            scoops: scoops.next().unwrap_or_default(),
            scooped: scooped.next().unwrap_or_default(),
        });
        first += hands;
    }
    out
}

/// Pairs in the order they settle (RULES.md §4): (0, 1), (0, 2), ..., (1, 2), ...
pub fn settlement_order(seats: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..seats).flat_map(move |i| (i + 1..seats).map(move |j| (i, j)))
}

/// Net results after stack caps and the maximum loss, settling pair by pair
/// (`settle` in scoring.py).  `points` is seats × seats; `stacks` per seat
/// (NaN = uncapped), read only when the ruleset caps by stacks.
pub fn settle(
    rules: &Rules,
    seats: usize,
    points: &[i32],
    stacks: Option<&[f64]>,
    net: &mut [f64],
) {
    let stacks = stacks.filter(|_| rules.stack_cap);
    if stacks.is_none() && rules.max_loss.is_none() {
        for (i, out) in net.iter_mut().enumerate() {
            *out = points[i * seats..(i + 1) * seats].iter().sum::<i32>() as f64;
        }
        return;
    }
    let mut chips = [0.0f64; 8];
    if let Some(s) = stacks {
        chips[..seats].copy_from_slice(s);
    }
    net.fill(0.0);
    for (i, j) in settlement_order(seats) {
        let owed = points[i * seats + j];
        let j_pays = owed > 0;
        let payer = if j_pays { j } else { i };
        let mut amount = (owed as f64).abs();
        if stacks.is_some() && !chips[payer].is_nan() {
            amount = amount.min(chips[payer].max(0.0));
        }
        if let Some(max_loss) = rules.max_loss {
            amount = amount.min((max_loss + net[payer]).max(0.0));
        }
        let transfer = if j_pays { amount } else { -amount }; // from j to i
        net[i] += transfer;
        net[j] -= transfer;
        chips[i] += transfer;
        chips[j] -= transfer;
    }
}

/// A hand's seated cards: whether one is outside 0..deck_size, the mask of
/// the ids 0..63 among them, and how many there are.
#[inline]
fn hand_cards(batch: &Batch<'_>, hand: usize, deck_size: u8) -> (bool, u64, u32) {
    let mut mask = 0u64;
    let mut count = 0u32;
    let mut outside = false;
    for s in 0..batch.seats {
        let at = hand * batch.seats + s;
        if batch.seated.is_some_and(|m| !m[at]) {
            continue;
        }
        for &c in &batch.boards[at * BOARD..(at + 1) * BOARD] {
            let c = c as u8; // a negative id becomes 128 and up: outside any deck
            outside |= c >= deck_size;
            mask |= (1u64 << (c & 63)) & ((c < 64) as u64).wrapping_neg();
        }
        count += BOARD as u32;
    }
    (outside, mask, count)
}

fn check_shapes(batch: &Batch<'_>, rules: &Rules) -> Result<(), CoreError> {
    let (hands, seats) = (batch.hands, batch.seats);
    if !(2..=rules.max_seats as usize).contains(&seats) {
        return Err(CoreError::Hand(format!(
            "{seats} seats; the ruleset seats 2 to {}",
            rules.max_seats
        )));
    }
    let n = hands * seats;
    let sized = |name: &str, len: Option<usize>, want: usize| match len {
        Some(len) if len != want => Err(CoreError::Hand(format!(
            "{name} has {len} entries, the boards need {want}"
        ))),
        _ => Ok(()),
    };
    sized("boards", Some(batch.boards.len()), n * BOARD)?;
    sized("seated", batch.seated.map(<[bool]>::len), n)?;
    sized("in_fantasy", batch.in_fantasy.map(<[bool]>::len), n)?;
    sized("fantasy_cards", batch.fantasy_cards.map(<[i8]>::len), n)?;
    sized("stacks", batch.stacks.map(<[f64]>::len), n)?;
    sized("forced_fouls", batch.forced_fouls.map(<[bool]>::len), n)
}

/// Score every hand of the batch.  Cards are always checked: the first hand
/// with a card outside the deck, or else the first with a card twice, is a
/// [`CoreError::Hand`], so the scorer never reads a table out of bounds,
/// whatever it is given.
pub fn score_batch(batch: &Batch<'_>, rules: &Rules) -> Result<Scores, CoreError> {
    check_shapes(batch, rules)?;
    let mut out = Scores::zeroed(batch.hands, batch.seats);
    score_checked(batch, rules, &mut out)?;
    Ok(out)
}

/// [`score_batch`] into `out`, whose columns are reused (the same results, none
/// of a fresh [`Scores`]' allocations): the simulator scores a table's hands one
/// at a time.  A batch of one part is scored on the calling thread.
pub fn score_batch_into(
    batch: &Batch<'_>,
    rules: &Rules,
    out: &mut Scores,
) -> Result<(), CoreError> {
    check_shapes(batch, rules)?;
    out.reset(batch.hands, batch.seats);
    score_checked(batch, rules, out)
}

/// Score a batch whose shapes are checked into `out`, zeroed to its size.
fn score_checked(batch: &Batch<'_>, rules: &Rules, out: &mut Scores) -> Result<(), CoreError> {
    let t = Tables::get();
    let parts = parts(out, batch.seats);
    let bad: Vec<BadHands> = if parts.len() == 1 {
        parts
            .into_iter()
            .map(|part| score_part(t, rules, batch, part))
            .collect()
    } else if crate::threads::usable() {
        parts
            .into_par_iter()
            .map(|part| score_part(t, rules, batch, part))
            .collect()
    } else {
        parts
            .into_iter()
            .map(|part| score_part(t, rules, batch, part))
            .collect()
    };
    // Parts are in hand order: the first part naming a hand names the batch's first.
    if let Some(h) = bad.iter().find_map(|b| b.outside) {
        return Err(CoreError::Hand(format!(
            "hand {h}: card id outside the {}-card deck",
            rules.deck_size
        )));
    }
    if let Some(h) = bad.iter().find_map(|b| b.repeated) {
        return Err(CoreError::Hand(format!("hand {h}: a card appears twice")));
    }
    Ok(())
}

/// Rows won and tied between every two seats of hand `local` of the part, and
/// each seat's sums over its opponents (the results table's row columns).
/// A live board wins all three rows from a fouled one; two fouled boards, or
/// an absent seat, compare none.
#[inline]
fn rows_against(p: &mut Part<'_>, local: usize, seated: &[bool]) {
    let seats = seated.len();
    let at = local * seats;
    let pairs = local * seats * seats;
    for (i, j) in settlement_order(seats) {
        let (a, b) = (at + i, at + j);
        let (won, lost, tied) = match (p.fouled[a], p.fouled[b]) {
            _ if !(seated[i] && seated[j]) => (0, 0, 0),
            (false, false) => {
                let rows = [
                    (p.top_class[a], p.top_class[b]),
                    (p.middle_class[a], p.middle_class[b]),
                    (p.bottom_class[a], p.bottom_class[b]),
                ];
                let won = rows.iter().filter(|(x, y)| x > y).count() as i8;
                let lost = rows.iter().filter(|(x, y)| x < y).count() as i8;
                (won, lost, 3 - won - lost)
            }
            (false, true) => (3, 0, 0),
            (true, false) => (0, 3, 0),
            (true, true) => (0, 0, 0),
        };
        p.pair_won[pairs + i * seats + j] = won;
        p.pair_won[pairs + j * seats + i] = lost;
        p.pair_tied[pairs + i * seats + j] = tied;
        p.pair_tied[pairs + j * seats + i] = tied;
        p.rows_won[a] += won;
        p.rows_won[b] += lost;
        p.rows_lost[a] += lost;
        p.rows_lost[b] += won;
        p.rows_tied[a] += tied;
        p.rows_tied[b] += tied;
        p.scoops[a] += (won == 3) as i8;
        p.scoops[b] += (lost == 3) as i8;
        p.scooped[a] += (lost == 3) as i8;
        p.scooped[b] += (won == 3) as i8;
    }
}

/// The first hand of a part with a card outside the deck, and with a card twice.
#[derive(Default)]
struct BadHands {
    outside: Option<usize>,
    repeated: Option<usize>,
}

/// Score one part's hands in two passes: first every board's cards checked,
/// read (jokers) and classed, a short loop whose table walks overlap from one
/// board to the next; then fouls, royalties, Fantasyland, points and caps.
fn score_part(t: &Tables, rules: &Rules, batch: &Batch<'_>, mut p: Part<'_>) -> BadHands {
    let seats = batch.seats;
    let hands = p.top_class.len() / seats;
    let jokers = rules.deck_size as usize > DECK;
    let mut bad = BadHands::default();
    for local in 0..hands {
        let hand = p.first + local;
        let (outside, mask, count) = hand_cards(batch, hand, rules.deck_size);
        if outside || mask.count_ones() != count {
            let first = if outside {
                &mut bad.outside
            } else {
                &mut bad.repeated
            };
            first.get_or_insert(hand);
            continue;
        }
        for s in 0..seats {
            let at = hand * seats + s;
            let me = local * seats + s;
            let given: &[i8; 13] = if batch.seated.is_none_or(|m| m[at]) {
                batch.boards[at * BOARD..(at + 1) * BOARD]
                    .try_into()
                    .expect("13 cards a board")
            } else {
                &FILLER_IDS
            };
            let cards = given.map(|c| c as u8);
            let out = &mut p.boards[me * BOARD..(me + 1) * BOARD];
            // The board is copied from the input, not from `cards` just written byte
            // by byte (reading those back as words stalls the store buffer).
            let (top, middle, bottom) = if jokers && cards.iter().any(|&c| is_joker(c)) {
                let (read, e) = read_jokers(t, rules, &cards);
                for (slot, &c) in out.iter_mut().zip(&read) {
                    *slot = c as i8;
                }
                (e.top, e.middle, e.bottom)
            } else {
                out.copy_from_slice(given);
                (
                    t.class3(&cards[0..3]),
                    t.class5(&cards[3..8]),
                    t.class5(&cards[8..13]),
                )
            };
            p.top_class[me] = top as i16;
            p.middle_class[me] = middle as i16;
            p.bottom_class[me] = bottom as i16;
        }
    }
    if bad.outside.is_some() || bad.repeated.is_some() {
        return bad; // the batch is an error: nothing more to score
    }
    let mut evals = [BoardEval::from_classes(t, rules, 0, 0, 0, Some(false)); 8];
    let mut seated = [true; 8];
    for local in 0..hands {
        let hand = p.first + local;
        for s in 0..seats {
            let at = hand * seats + s;
            let me = local * seats + s;
            seated[s] = batch.seated.is_none_or(|m| m[at]);
            evals[s] = BoardEval::from_classes(
                t,
                rules,
                p.top_class[me] as u16,
                p.middle_class[me] as u16,
                p.bottom_class[me] as u16,
                batch.forced_fouls.map(|f| f[at]),
            );
            let e = &evals[s];
            p.royalty_top[me] = e.royalties[0];
            p.royalty_middle[me] = e.royalties[1];
            p.royalty_bottom[me] = e.royalties[2];
            let live = seated[s] && !e.fouled;
            p.fouled[me] = seated[s] && e.fouled;
            let in_fantasy = batch.in_fantasy.is_some_and(|m| m[at]);
            let entry = if live && !in_fantasy {
                e.entry_cards(rules)
            } else {
                0
            };
            p.fantasy_cards[me] = entry;
            p.fantasy_qualifies[me] = entry > 0;
            let stays = live && in_fantasy && e.stays(rules);
            p.fantasy_stays[me] = stays;
            p.repeat_cards[me] = match (stays, rules.repeat_cards) {
                (false, _) => 0,
                (true, 0) => batch.fantasy_cards.map_or(0, |c| c[at]),
                (true, cards) => cards,
            };
            p.next_cards[me] = if stays { p.repeat_cards[me] } else { entry };
        }
        let points = &mut p.points[local * seats * seats..(local + 1) * seats * seats];
        let net = &mut p.net[local * seats..(local + 1) * seats];
        for (i, j) in settlement_order(seats) {
            let pair = if seated[i] && seated[j] {
                evals[i].points_against(&evals[j], rules)
            } else {
                0
            };
            points[i * seats + j] = pair;
            points[j * seats + i] = -pair;
            net[i] += pair;
            net[j] -= pair;
        }
        let stacks = batch.stacks.map(|s| &s[hand * seats..(hand + 1) * seats]);
        settle(
            rules,
            seats,
            points,
            stacks,
            &mut p.net_capped[local * seats..(local + 1) * seats],
        );
        rows_against(&mut p, local, &seated[..seats]);
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{cards, JOKER_1};

    fn board(top: &str, middle: &str, bottom: &str) -> Vec<i8> {
        [cards(top), cards(middle), cards(bottom)]
            .concat()
            .into_iter()
            .map(|c| c as i8)
            .collect()
    }

    fn alice() -> Vec<i8> {
        board("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    }

    fn bob() -> Vec<i8> {
        board("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    }

    fn batch(boards: &[i8], seats: usize) -> Batch<'_> {
        Batch {
            hands: boards.len() / seats / BOARD,
            seats,
            boards,
            seated: None,
            in_fantasy: None,
            fantasy_cards: None,
            stacks: None,
            forced_fouls: None,
        }
    }

    #[test]
    fn the_doctest_hand_and_its_stack_cap() {
        // Alice (QQ 7 + straight 4 + flush 4 = 15) scoops Bob, who fouls:
        // 6 for the rows + 15 = 21 each way.  Bob has 10 on the table: capped 10.
        let r = Rules::pineapple_progressive();
        let boards = [alice(), bob()].concat();
        let stacks = [50.0, 10.0];
        let b = Batch {
            stacks: Some(&stacks),
            ..batch(&boards, 2)
        };
        let s = score_batch(&b, &r).unwrap();
        assert_eq!(s.points, vec![0, 21, -21, 0]);
        assert_eq!(s.net, vec![21, -21]);
        assert_eq!(s.net_capped, vec![10.0, -10.0]);
        assert_eq!(s.fouled, vec![false, true]);
        assert_eq!(
            (s.royalty_top[0], s.royalty_middle[0], s.royalty_bottom[0]),
            (7, 4, 4)
        );
        // QQ on top earns 14 cards; Bob's fouled board earns nothing.
        assert_eq!(s.fantasy_cards, vec![14, 0]);
        assert_eq!(s.fantasy_qualifies, vec![true, false]);
        // NaN: Bob's stack unknown, so uncapped.
        let stacks = [50.0, f64::NAN];
        let b = Batch {
            stacks: Some(&stacks),
            ..batch(&boards, 2)
        };
        assert_eq!(score_batch(&b, &r).unwrap().net_capped, vec![21.0, -21.0]);
    }

    #[test]
    fn three_seats_settle_in_order_with_the_stacks_they_have_then() {
        // Seat 0 fouls; seats 1 and 2 have no royalties.  Seat 1's rows: a pair
        // of kings over 8s, beating seat 2's high card middle and bottom, and
        // its top (K high) beats seat 2's (Q high): a scoop, 6 points.
        // Seat 0 fouled pays each live seat 6.
        // Order: (0,1): 0 owes 1 six, has 4 -> pays 4 (chips 0, 1 has 9).
        //        (0,2): 0 owes 2 six, has 0 -> pays 0.
        //        (1,2): 2 owes 1 six, has 5 -> pays 5.
        // Net capped: 0: -4, 1: +4+5 = 9, 2: -5.  Uncapped: -12, 12, 0.
        let r = Rules::pineapple_progressive();
        let boards = [
            board("Ac Ad 3s", "4c 4d 5h Js Qs", "6c 7d 8c 9d Jc"), // AA over a pair of 4s: foul
            board("Kc 2d 3h", "Kh Kd 2c 5d 7s", "8h 8d 8s 2s 2h"), // K high, KK, full house
            board("9c 4h 6s", "Qc Tc Jd 3c 5s", "Th Td 6d 7c 9s"),
        ]
        .concat();
        let stacks = [4.0, 5.0, 5.0];
        let b = Batch {
            stacks: Some(&stacks),
            ..batch(&boards, 3)
        };
        let s = score_batch(&b, &r).unwrap();
        assert_eq!(s.fouled, vec![true, false, false]);
        // Seat 1: full house on the bottom pays 6 in progressive; seat 2: nothing.
        let royalty1 = s.royalty_top[1] + s.royalty_middle[1] + s.royalty_bottom[1];
        assert_eq!(royalty1, 6);
        // 0 vs 1: -(6 + 6) = -12; 0 vs 2: -6; 1 vs 2: 6 scoop + 6 royalties = 12.
        assert_eq!(s.points[1], -12);
        assert_eq!(s.points[2], -6);
        assert_eq!(s.points[5], 12);
        assert_eq!(s.net, vec![-18, 24, -6]);
        // (0,1): 0 pays min(12, 4) = 4 -> chips 0, 9, 5.  (0,2): 0 pays 0.
        // (1,2): 2 pays min(12, 5) = 5.  Net: -4, 9, -5.
        assert_eq!(s.net_capped, vec![-4.0, 9.0, -5.0]);
    }

    #[test]
    fn max_loss_bounds_what_a_seat_pays_over_the_hand() {
        // The same hand, no stacks, a maximum loss of 10: seat 0 pays 10 to seat 1
        // and then nothing to seat 2; seat 2 pays 10 of the 12 it owes seat 1.
        let r = Rules {
            max_loss: Some(10.0),
            ..Rules::pineapple_progressive()
        };
        let boards = [
            board("Ac Ad 3s", "4c 4d 5h Js Qs", "6c 7d 8c 9d Jc"),
            board("Kc 2d 3h", "Kh Kd 2c 5d 7s", "8h 8d 8s 2s 2h"),
            board("9c 4h 6s", "Qc Tc Jd 3c 5s", "Th Td 6d 7c 9s"),
        ]
        .concat();
        let s = score_batch(&batch(&boards, 3), &r).unwrap();
        assert_eq!(s.net, vec![-18, 24, -6]);
        assert_eq!(s.net_capped, vec![-10.0, 20.0, -10.0]);
    }

    /// Row points of `won` against `lost` rows by one scoring (the cases of
    /// `row_points` in scoring.py), and the `pair_rows` they make.
    fn pair_rows(rows: impl Fn(i32, i32) -> i32, foul_win: i32) -> Vec<i32> {
        (0..108)
            .map(|code| {
                let (fouls, signs) = (code / 27, code % 27);
                let won = [signs / 9, signs / 3 % 3, signs % 3]
                    .iter()
                    .filter(|&&x| x == 2)
                    .count() as i32;
                let lost = [signs / 9, signs / 3 % 3, signs % 3]
                    .iter()
                    .filter(|&&x| x == 0)
                    .count() as i32;
                match fouls {
                    3 => 0,
                    2 => -foul_win,
                    1 => foul_win,
                    _ => rows(won, lost),
                }
            })
            .collect()
    }

    #[test]
    fn classic_and_two_four_scoring() {
        // Seat 1 wins the top and middle, seat 0 the bottom (no royalties anywhere:
        // royalty arrays zeroed).  Classic: 2 a row, 2 - 1 = 1 row -> 2 to seat 1.
        // Two-four: 1 a row plus 1 for the majority (two rows) -> 2 to seat 1;
        // a scoop in two-four is 3 + 1 = 4 (hence the name).
        let base = Rules {
            royalty_top: vec![0; 455],
            royalty_middle: vec![0; 7462],
            royalty_bottom: vec![0; 7462],
            ..Rules::pineapple_progressive()
        };
        let classic = Rules {
            pair_rows: pair_rows(|w, l| 2 * (w - l), 6),
            ..base.clone()
        };
        let two_four = Rules {
            pair_rows: pair_rows(
                |w, l| {
                    w - l
                        + if w >= 2 {
                            1
                        } else if l >= 2 {
                            -1
                        } else {
                            0
                        }
                },
                4,
            ),
            ..base.clone()
        };
        let boards = [
            board("2c 3d 5h", "6c 6d 8h 9s Ts", "Ac Ad Ah Kd Ks"),
            board("Kc Qd 4h", "Jc Jd 2h 3s 4s", "7h 7d 7s 2s 2d"),
        ]
        .concat();
        let s = score_batch(&batch(&boards, 2), &classic).unwrap();
        assert_eq!(s.net, vec![-2, 2]);
        let s = score_batch(&batch(&boards, 2), &two_four).unwrap();
        assert_eq!(s.net, vec![-2, 2]);
        // Seat 1 fouls instead (its middle over its bottom): two-four pays the foul as a scoop, 4.
        let fouled = [
            board("2c 3d 5h", "6c 6d 8h 9s Ts", "Ac Ad Ah Kd Ks"),
            board("Kc Qd 4h", "7h 7d 7s 2s 2d", "Jc Jd 2h 3s 4s"),
        ]
        .concat();
        let s = score_batch(&batch(&fouled, 2), &two_four).unwrap();
        assert_eq!(s.net, vec![4, -4]);
    }

    #[test]
    fn absent_seats_score_nothing_and_fantasyland_repeats() {
        // Hand 0: seats 0 and 1 (Alice, Bob), seat 2 absent; hand 1: three seats,
        // seat 0 in Fantasyland with trips on top (a repeat of 14 cards).
        let r = Rules::pineapple_progressive();
        let mut boards = [alice(), bob(), vec![-1; 13]].concat();
        boards.extend(board("7c 7d 7h", "8c 8d 8h 2c 2d", "Ac Kc Qc Jc Tc"));
        boards.extend(board("As Ks 3s", "4c 4d 5h Js Qs", "6c 7s 8s 9d Jd"));
        boards.extend(board("9c 4h 6s", "Qh Th Jh 3c 5s", "Td Ts 6d 2h 9s"));
        let seated = [true, true, false, true, true, true];
        let in_fantasy = [false, false, false, true, false, false];
        let b = Batch {
            seated: Some(&seated),
            in_fantasy: Some(&in_fantasy),
            ..batch(&boards, 3)
        };
        let s = score_batch(&b, &r).unwrap();
        assert_eq!(&s.net[..3], &[21, -21, 0]);
        assert_eq!(&s.points[..9], &[0, 21, 0, -21, 0, 0, 0, 0, 0]);
        assert!(!s.fouled[2]);
        assert_eq!(&s.boards[2 * 13..3 * 13], &FILLER.map(|c| c as i8));
        assert_eq!(
            (s.fantasy_stays[3], s.repeat_cards[3], s.fantasy_cards[3]),
            (true, 14, 0)
        );
        // The "as many as played" repeat: the count comes from fantasy_cards.
        let r = Rules {
            repeat_cards: 0,
            ..Rules::pineapple_progressive()
        };
        let played = [0, 0, 0, 16, 0, 0];
        let b = Batch {
            seated: Some(&seated),
            in_fantasy: Some(&in_fantasy),
            fantasy_cards: Some(&played),
            ..batch(&boards, 3)
        };
        assert_eq!(score_batch(&b, &r).unwrap().repeat_cards[3], 16);
    }

    #[test]
    fn forced_fouls_replace_the_boards_own() {
        // Alice forced to foul and Bob forced live: Bob (trips in the middle pay 2)
        // wins 6 from the fouled Alice, plus his 2 royalties.
        let r = Rules::pineapple_progressive();
        let boards = [alice(), bob()].concat();
        let forced = [true, false];
        let b = Batch {
            forced_fouls: Some(&forced),
            ..batch(&boards, 2)
        };
        let s = score_batch(&b, &r).unwrap();
        assert_eq!(s.fouled, vec![true, false]);
        assert_eq!(s.net, vec![-8, 8]);
        assert_eq!(s.royalty_top[0], 0);
    }

    #[test]
    fn jokers_are_read_before_scoring() {
        // Alice's 2c on top becomes a joker.  Trip queens on top stay below her
        // middle straight, so the best reading is QQQ (20) + straight 4 + flush 4
        // = 28; the first free queen is Qc.  Against Bob's foul: 6 + 28 = 34.
        let r = Rules::joker_pineapple();
        let mut boards = [alice(), bob()].concat();
        boards[2] = JOKER_1 as i8;
        let s = score_batch(&batch(&boards, 2), &r).unwrap();
        assert_eq!(s.boards[2] >> 2, 10, "the joker reads as a queen");
        assert_eq!(s.royalty_top[0], 20);
        assert_eq!(s.net, vec![6 + 28, -34]);
    }

    #[test]
    fn bad_cards_are_errors_naming_the_first_hand() {
        let r = Rules::pineapple_progressive();
        let mut boards = [alice(), bob(), alice(), bob()].concat();
        boards[26 + 4] = boards[26 + 3]; // hand 1: a card twice
        let err = score_batch(&batch(&boards, 2), &r).unwrap_err();
        assert_eq!(err, CoreError::Hand("hand 1: a card appears twice".into()));
        boards[13] = 52; // hand 0: a joker in a 52-card deck
        let err = score_batch(&batch(&boards, 2), &r).unwrap_err();
        assert_eq!(
            err,
            CoreError::Hand("hand 0: card id outside the 52-card deck".into())
        );
        // An absent seat's cards are never looked at.
        let mut boards = [alice(), bob()].concat();
        boards[13..].fill(-1);
        let seated = [true, false];
        let b = Batch {
            seated: Some(&seated),
            ..batch(&boards, 2)
        };
        assert!(score_batch(&b, &r).is_ok());
        assert!(score_batch(&batch(&boards, 2), &r).is_err()); // seated, they are looked at
                                                               // Too many seats for the ruleset.
        let boards = [alice(), bob(), vec![0; 26]].concat();
        assert!(score_batch(&batch(&boards, 4), &r).is_err());
    }

    #[test]
    fn any_chunking_gives_the_same_scores() {
        // More hands than one chunk: the same hand everywhere scores the same.
        let r = Rules::pineapple_progressive();
        let hands = CHUNK * 2 + 7;
        let boards: Vec<i8> = (0..hands).flat_map(|_| [alice(), bob()].concat()).collect();
        let s = score_batch(&batch(&boards, 2), &r).unwrap();
        assert!(s.net.chunks(2).all(|n| n == [21, -21]));
        assert_eq!(s.net.len(), hands * 2);
    }
}
