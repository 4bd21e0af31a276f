//! The simulator's sessions as `ofc-stats simulate` plays them, the core alone
//! (`cargo run --release --example session_speed [TABLES] [HANDS] [REPEATS]`): one
//! thread, pineapple-progressive, 3 seats, the default pool's four styles seated
//! in turn, Fantasyland solved with the documented stay value. Prints the median
//! CPU-us a hand over REPEATS sessions and a fingerprint of every hand played, so a
//! faster core can be checked to play the same hands.

use ofc_core::lookahead::Style;
use ofc_core::rules::Rules;
use ofc_core::sim::TableState;

mod common;
use common::{bench_session, cpu_seconds, room_styles};

fn main() {
    let arg = |i: usize, default: u64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (tables, hands, repeats) = (arg(1, 100), arg(2, 20), arg(3, 5));
    let rules = Rules::pineapple_progressive();
    let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
    let all = room_styles();
    // documented_stay_value(pineapple-progressive, n) for n = 13..=17.
    let mut stay_values = vec![0.0; 18];
    stay_values[13..].fill(10.23);
    let session = bench_session(&rules, &streets, &stay_values);
    let players: Vec<Vec<Style>> = (0..tables as usize)
        .map(|t| (0..3).map(|i| all[(t * 7 + i * 3) % 4]).collect())
        .collect();
    let ids: Vec<u64> = (0..tables).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut times = Vec::new();
    let mut fingerprint = 0u64;
    let mut fantasy = 0usize;
    for repeat in 0..repeats {
        let mut states: Vec<TableState> = (0..tables as usize)
            .map(|t| TableState {
                button: t % 3,
                fantasy_next: vec![0; 3],
            })
            .collect();
        let first = repeat * hands;
        let played = pool.install(|| {
            let start = cpu_seconds();
            let played = session
                .play(&players, &mut states, &ids, first, hands)
                .expect("legal");
            (played, cpu_seconds() - start)
        });
        times.push(played.1 / (tables * hands) as f64);
        for hand in played.0.iter().flatten() {
            fantasy += hand.fantasy_cards.iter().filter(|&&c| c > 0).count();
            for b in &hand.played.boards {
                for &c in b {
                    fingerprint = ofc_core::rng::mix(fingerprint ^ c as u8 as u64);
                }
            }
            for &d in &hand.played.dest {
                fingerprint = ofc_core::rng::mix(fingerprint ^ d as u64);
            }
            for &n in &hand.net {
                fingerprint = ofc_core::rng::mix(fingerprint ^ n.to_bits());
            }
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{tables} tables x {hands} hands x {repeats}: median {:.2} CPU-us a hand; \
         {fantasy} Fantasyland seats; fingerprint {fingerprint:016x}",
        times[times.len() / 2] * 1e6
    );
}
