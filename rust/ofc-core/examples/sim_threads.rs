//! The simulator's whole hands (deal, Fantasyland sets, streets, scores, the next
//! Fantasyland) at many tables on 1 and 2 rayon threads, the core alone
//! (`cargo run --profile dev-release --example sim_threads [TABLES] [HANDS]`):
//! wall and process CPU microseconds a hand, and hands per CPU-second.

use ofc_core::lookahead::Style;
use ofc_core::rules::Rules;
use ofc_core::sim::TableState;

mod common;
use common::{bench_session, room_styles};

/// The process's CPU seconds (every thread's), from /proc/self/stat (clock ticks of 10 ms).
fn process_cpu() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let fields: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
            let ticks: f64 =
                fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(f64::NAN)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let tables: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let hands: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let rules = Rules::pineapple_progressive();
    let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
    let all = room_styles();
    let players: Vec<Vec<Style>> = (0..tables as usize)
        .map(|t| (0..3).map(|i| all[(t + i) % 4]).collect())
        .collect();
    let ids: Vec<u64> = (0..tables).collect();
    let session = bench_session(&rules, &streets, &[10.23; 18]);
    for threads in [1, 2, 1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        let mut states: Vec<TableState> = (0..tables as usize)
            .map(|t| TableState {
                button: t % 3,
                fantasy_next: vec![0; 3],
            })
            .collect();
        let (start, cpu) = (std::time::Instant::now(), process_cpu());
        pool.install(|| session.play(&players, &mut states, &ids, 0, hands))
            .expect("legal");
        let wall = start.elapsed().as_secs_f64();
        let cpu = process_cpu() - cpu;
        let n = (hands * tables) as f64;
        println!(
            "{threads} thread(s): {:.1} wall-us, {:.1} CPU-us a hand ({:.0} hands per CPU-second)",
            wall / n * 1e6,
            cpu / n * 1e6,
            n / cpu
        );
    }
}
