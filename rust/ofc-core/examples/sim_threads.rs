//! Wall time of the simulator's streets at many tables on 1 and 2 rayon threads
//! (`cargo run --profile dev-release --example sim_threads [TABLES]`): the core alone.

use ofc_core::cards::EMPTY;
use ofc_core::lookahead::Style;
use ofc_core::rules::Rules;
use ofc_core::sim::{deal, Round, TableHand};

fn main() {
    let tables: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let rules = Rules::pineapple_progressive();
    let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
    let style = Style {
        foul_penalty: 8.0,
        fantasy_bonus: 80.0,
        noise: 0.0,
        strength_weight: 2.0,
        top_chase: 3.0,
    };
    let styles = vec![style; 3];
    let boards = vec![[EMPTY; 13]; 3];
    let flags = vec![false; 3];
    for threads in [1, 2, 1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        let start = std::time::Instant::now();
        for hand in 0..5u64 {
            let round = Round {
                rules: &rules,
                streets: &streets,
                seats: 3,
                block: 17,
                rollouts: 5,
                timeout_rate: 0.02,
                seed: 1,
                hand,
            };
            let decks: Vec<Vec<u8>> = (0..tables).map(|t| deal(1, t, hand, 52, 51)).collect();
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
            pool.install(|| round.play(&hands)).expect("legal");
        }
        let wall = start.elapsed().as_secs_f64();
        println!(
            "{threads} thread(s): {:.1} wall-us a hand",
            wall / (5 * tables) as f64 * 1e6
        );
    }
}
