//! Hands scored per second by the batch scorer on random 3-seat Pineapple hands
//! (`cargo run --release --example score_speed`): the core alone, no Python.

use std::time::Instant;

use ofc_core::rng::Stream;
use ofc_core::rules::Rules;
use ofc_core::score::{score_batch, Batch};

fn main() {
    let hands = 200_000;
    let mut boards = Vec::with_capacity(hands * 39);
    for h in 0..hands {
        let mut deck: Vec<i8> = (0..52).collect();
        let mut stream = Stream::new(&[1, h as u64]);
        for i in 0..39 {
            let j = i + (stream.next_u64() % (52 - i) as u64) as usize;
            deck.swap(i, j);
        }
        boards.extend_from_slice(&deck[..39]);
    }
    let rules = Rules::pineapple_progressive();
    let batch = Batch {
        hands,
        seats: 3,
        boards: &boards,
        seated: None,
        in_fantasy: None,
        fantasy_cards: None,
        stacks: None,
        forced_fouls: None,
    };
    let mut times = Vec::new();
    for _ in 0..15 {
        let start = Instant::now();
        let scores = score_batch(&batch, &rules).expect("valid hands");
        times.push(start.elapsed().as_secs_f64());
        assert_eq!(scores.net.len(), hands * 3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{hands} hands: min {:.1} ms, median {:.1} ms ({:.2} M hands/s at the median)",
        times[0] * 1e3,
        times[7] * 1e3,
        hands as f64 / times[7] / 1e6
    );
}
