//! CPU cost of one rollout under the grader's continuation policies, on the same
//! positions, in one run: the first policy (`Policy::classic`, the kind the
//! pre-core grader played), today's imagination policy (`Policy::for_game`
//! without a learned value) and today's default (with the learned value).
//!
//! `bench/grade_speed.py` writes the 40 real hands' street decisions to a JSON
//! file and runs this (`cargo run --profile dev-release --example rollout_cost --
//! POSITIONS WEIGHTS ROLLOUTS REPEAT [POLICIES]`, POLICIES a comma-separated subset
//! of `classic,imagination,learned`, all by default); it prints one JSON line: per policy, the
//! median over REPEAT runs of CPU seconds and the candidate-rollouts played (every
//! legal candidate of every decision, ROLLOUTS each, one thread), and a digest of
//! every value played (the same digest: the same rollouts, bit for bit).  The rules are
//! Pineapple with progressive Fantasyland for every position: a rollout's cost
//! hardly depends on the royalty table.

use ofc_core::policy::Policy;
use ofc_core::rng::mix;
use ofc_core::rollout::{Game, Opponent, Position, Setup, Values};
use ofc_core::rules::Rules;
use ofc_core::search::Search;
use ofc_core::value::ValueFn;
use serde_json::Value;

mod common;
use common::cpu_seconds;

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default()
}

/// A position as `ofc_stats.grade.rollout.core_decision` lists it.
fn position(v: &Value) -> Position {
    let opponents = v[7]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|o| Opponent {
                    seat: o[0].as_u64().unwrap_or(0) as usize,
                    board: ints(&o[1]),
                    next_street: o[2].as_u64().unwrap_or(0) as usize,
                    fantasy_cards: o[3].as_u64().unwrap_or(0) as usize,
                })
                .collect()
        })
        .unwrap_or_default();
    Position {
        key: ints(&v[0]).into_iter().map(|k| k as u64).collect(),
        street: v[1].as_u64().unwrap_or(0) as usize,
        seat: v[2].as_u64().unwrap_or(0) as usize,
        board: ints(&v[3]),
        dealt: ints(&v[4]),
        discards: v[5].as_u64().unwrap_or(0) as usize,
        dead: ints(&v[6]),
        opponents,
        chosen: ints(&v[8]),
    }
}

/// `digest` folded with every bit of `v` (totals, parts, fouls), in order: two
/// versions of the core whose digests agree played the same rollouts bit for bit.
fn fold(digest: u64, v: &Values) -> u64 {
    let bits = v.total.iter().map(|x| x.to_bits());
    let parts = v.parts.iter().flatten().map(|x| x.to_bits());
    let fouls = v.fouled.iter().map(|&f| f as u64);
    bits.chain(parts)
        .chain(fouls)
        .fold(digest, |h, x| mix(h ^ x))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (positions, weights, rollouts, repeat, only) = match &args[..] {
        [_, p, w, r, n] => (p, w, r, n, "classic,imagination,learned"),
        [_, p, w, r, n, only] => (p, w, r, n, only.as_str()),
        _ => {
            eprintln!("usage: rollout_cost POSITIONS.json WEIGHTS.json ROLLOUTS REPEAT [POLICIES]");
            std::process::exit(2);
        }
    };
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(positions).expect("positions"))
        .expect("positions JSON");
    let value = ValueFn::from_json(&std::fs::read_to_string(weights).expect("weights"))
        .expect("weights JSON");
    let rollouts: usize = rollouts.parse().expect("rollouts");
    let repeat: usize = repeat.parse().expect("repeat");
    let rules = Rules::pineapple_progressive();
    let streets: Vec<(usize, usize)> = doc["streets"]
        .as_array()
        .expect("streets")
        .iter()
        .map(|s| {
            (
                s[0].as_u64().unwrap_or(0) as usize,
                s[1].as_u64().unwrap_or(0) as usize,
            )
        })
        .collect();
    let fantasy_values: Vec<f64> = doc["fantasy_values"]
        .as_array()
        .expect("fantasy values")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    let plain = Game {
        rules: &rules,
        streets: streets.clone(),
        fantasy_values: fantasy_values.clone(),
        value: None,
        search: Search::NONE,
        search_next_only: false,
    };
    let learned = Game {
        rules: &rules,
        streets,
        fantasy_values,
        value: Some(std::sync::Arc::new(value)),
        search: Search::NONE,
        search_next_only: false,
    };
    let list: Vec<Position> = doc["positions"]
        .as_array()
        .expect("positions")
        .iter()
        .map(position)
        .collect();
    let mut out = serde_json::Map::new();
    for name in ["classic", "imagination", "learned"] {
        if !only.split(',').any(|o| o == name) {
            continue;
        }
        let game = if name == "learned" { &learned } else { &plain };
        let setups: Vec<Setup> = list
            .iter()
            .filter_map(|p| Setup::new(game, p).ok())
            .map(|mut s| {
                if name == "classic" {
                    s.policy = Policy::classic();
                }
                s
            })
            .collect();
        let mut times = Vec::new();
        let mut played = 0usize;
        let mut digest = 0u64;
        for _ in 0..repeat {
            played = 0;
            digest = 0;
            let start = cpu_seconds();
            for s in &setups {
                let v = s.simulate(&s.legal, 0, 0, rollouts);
                played += v.total.len();
                digest = fold(digest, &v);
            }
            times.push(cpu_seconds() - start);
        }
        times.sort_by(f64::total_cmp);
        out.insert(
            name.into(),
            serde_json::json!({
                "cpu": times[times.len() / 2],
                "rollouts": played,
                "decisions": setups.len(),
                "digest": format!("{digest:016x}"),
            }),
        );
    }
    println!("{}", Value::Object(out));
}
