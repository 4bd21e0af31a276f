//! Open-format lines written per second by `ofc_core::open_line` (one thread):
//! `cargo run --profile dev-release --example line_speed`.  Plays 200 hands at
//! 30 tables once, then writes their lines again and again.
use std::time::Instant;

use ofc_core::lookahead::Style;
use ofc_core::open_line::{write_line, LineHand, LineHeader};
use ofc_core::rules::Rules;
use ofc_core::sim::{Session, TableState};

fn main() {
    let rules = Rules::pineapple_progressive();
    let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
    let style = Style {
        foul_penalty: 9.0,
        fantasy_bonus: 60.0,
        noise: 1.5,
        strength_weight: 2.0,
        top_chase: 0.0,
    };
    let stay: Vec<f64> = vec![10.0; 18];
    let session = Session {
        rules: &rules,
        streets: &streets,
        seats: 3,
        block: 17,
        rollouts: 1,
        timeout_rate: 0.05,
        seed: 3,
        stay_values: &stay,
        stack: None,
        button_moves_on_fantasy: false,
        fantasy_errors: 0.1,
        standard_fantasy_cards: 14,
    };
    let tables: Vec<u64> = (0..30).collect();
    let players = vec![vec![style; 3]; 30];
    let mut states = vec![
        TableState {
            button: 0,
            fantasy_next: vec![0; 3],
        };
        30
    ];
    let played = session
        .play(&players, &mut states, &tables, 0, 200)
        .expect("a session plays");
    let hands: Vec<_> = played.into_iter().flatten().collect();
    let header = LineHeader {
        room: "ofc-stats-sim",
        ruleset: "pineapple-progressive",
        stakes: 1.0,
        currency: "PTS",
        stack: None,
    };
    let names = ["Ana", "Zo\u{eb} \"Z\" <Z>", "Chen"];
    let start = Instant::now();
    let mut bytes = 0;
    let rounds = 200;
    for _ in 0..rounds {
        for (j, p) in hands.iter().enumerate() {
            let in_fantasy: Vec<bool> = p.fantasy_cards.iter().map(|&c| c > 0).collect();
            let mut out = Vec::with_capacity(2048);
            write_line(
                &mut out,
                &header,
                &LineHand {
                    table: "T0001",
                    hand_id: j as u64,
                    played_at: 1_767_268_800 + 90 * j as i64,
                    players: &names,
                    in_fantasy: &in_fantasy,
                    net: &p.net,
                    moves: &p.moves,
                    timed_out: &p.played.timed_out,
                },
            );
            bytes += out.len();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let n = (rounds * hands.len()) as f64;
    println!(
        "{:.2} us a line ({:.0} bytes a line)",
        seconds / n * 1e6,
        bytes as f64 / n
    );
}
