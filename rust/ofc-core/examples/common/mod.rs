//! What the speed examples share (`mod common;` in each; not an example itself):
//! a thread's CPU clock and the simulator's four bot styles.
#![allow(dead_code)] // each example uses what it needs

use ofc_core::lookahead::Style;
use ofc_core::rules::Rules;
use ofc_core::sim::Session;

/// This thread's CPU time in seconds (Linux's schedstat: nanoseconds on the CPU).
pub fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e9)
}

/// The simulator's four styles (ofc_stats/sim/rooms.py), in the pool's order.
pub fn room_styles() -> [Style; 4] {
    let s = |foul_penalty, fantasy_bonus, noise, top_chase| Style {
        foul_penalty,
        fantasy_bonus,
        noise,
        strength_weight: 2.0,
        top_chase,
    };
    [
        s(9.0, 60.0, 1.5, 0.0),
        s(6.0, 150.0, 0.5, 8.0),
        s(4.0, 60.0, 3.0, 4.0),
        s(8.0, 80.0, 0.0, 3.0),
    ]
}

/// The benchmark's session (`bench/simulate.py`): 3 seats, 5 rollouts a bot
/// decision, 2% timeouts, seed 1, no stack.
pub fn bench_session<'a>(
    rules: &'a Rules,
    streets: &'a [(usize, usize)],
    stay_values: &'a [f64],
) -> Session<'a> {
    Session {
        rules,
        streets,
        seats: 3,
        block: 17,
        rollouts: 5,
        timeout_rate: 0.02,
        seed: 1,
        stay_values,
        stack: None,
        button_moves_on_fantasy: false,
        fantasy_errors: 0.0,
        standard_fantasy_cards: 14,
    }
}
