//! Fantasyland sets solved per CPU-second, the core alone, one thread
//! (`cargo run --profile dev-release --example fantasy_speed [DEALS]`, `JOKERS=1` or
//! `2` in the environment for joker-pineapple deals with that many jokers): random
//! 14- to 17-card deals of the standard deck under the progressive rules, as
//! the simulator deals them, and a fingerprint of every set so a faster
//! solver can be checked to give the same answers.

use ofc_core::fantasy::solve;
use ofc_core::rng::{mix, Stream};
use ofc_core::rules::Rules;

mod common;
use common::cpu_seconds;

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4000);
    // JOKERS=1 or 2: joker-pineapple deals with that many jokers instead.
    let jokers: usize = std::env::var("JOKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let rules = if jokers > 0 {
        Rules::joker_pineapple()
    } else {
        Rules::pineapple_progressive()
    };
    let mut stream = Stream::new(&[25, 2026]);
    let deals: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let n = 14 + i % 4;
            let mut deck: Vec<u8> = (0..52).collect();
            stream.choose_first(&mut deck, n - jokers);
            let mut deal = deck[..n - jokers].to_vec();
            deal.extend([52, 53].iter().take(jokers));
            deal
        })
        .collect();
    let mut times = Vec::new();
    let mut fingerprint = 0u64;
    for _ in 0..3 {
        fingerprint = 0;
        let start = cpu_seconds();
        for deal in &deals {
            let set = solve(deal, &rules, 20.0).unwrap();
            for c in set.board() {
                fingerprint = mix(fingerprint ^ c as u64);
            }
            fingerprint = mix(fingerprint ^ set.value.to_bits());
        }
        times.push(cpu_seconds() - start);
    }
    times.sort_by(f64::total_cmp);
    let median = times[1];
    println!(
        "{count} deals: {:.1} us a set (median of 3), fingerprint {fingerprint:016x}",
        median / count as f64 * 1e6
    );
}
