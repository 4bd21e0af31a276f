//! Normal seats' streets played per second by the simulator's bots
//! (`cargo run --profile dev-release --example sim_speed [TABLES]`, `ROLLOUTS=n` in
//! the environment for another rollout count than the simulator's 5): the core
//! alone, no Python, one thread; prints the normal seats' foul and Fantasyland
//! rates by style and a fingerprint of every board and destination, so a faster
//! bot can be checked to play the same hands (at 300 tables: 435b68be47139d81 for
//! the streets, 7017f7ff65278e14 for the replayed decisions, since the race and
//! the two-step opening; ee59d534e31046e4 and 46725282e353d462 before them).

use ofc_core::candidates::apply;
use ofc_core::cards::EMPTY;
use ofc_core::eval::Tables;
use ofc_core::lookahead::{choose, Decision, Style};
use ofc_core::rng::Stream;
use ofc_core::rules::Rules;
use ofc_core::sim::{deal, Round, TableHand};

mod common;
use common::{cpu_seconds, room_styles};

/// One decision to play again: board, dealt cards, unseen cards, style, key.
type Replayed = ([i8; 13], Vec<u8>, Vec<u8>, Style, u64);

fn main() {
    let tables: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let rollouts: usize = std::env::var("ROLLOUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let rules = Rules::pineapple_progressive();
    let streets = [(5, 5), (3, 2), (3, 2), (3, 2), (3, 2)];
    let all = room_styles();
    let boards = vec![[EMPTY; 13]; 3];
    let flags = vec![false; 3];
    let mut times = Vec::new();
    let mut fingerprint = 0u64;
    let mut fingerprint2 = 0u64;
    let mut by_street = [0.0f64; 5];
    let mut decisions = 0.0;
    // Per style (index into `all`): seats, fouls, Fantasyland entries.
    let mut tally = [[0u32; 3]; 4];
    for hand in 0..5u64 {
        let round = Round {
            rules: &rules,
            streets: &streets,
            seats: 3,
            block: 17,
            rollouts,
            timeout_rate: 0.02,
            seed: 1,
            hand,
        };
        let decks: Vec<Vec<u8>> = (0..tables).map(|t| deal(1, t, hand, 52, 51)).collect();
        let styles: Vec<Vec<Style>> = (0..tables)
            .map(|t| (0..3).map(|i| all[(t as usize + i) % 4]).collect())
            .collect();
        let hands: Vec<TableHand> = (0..tables as usize)
            .map(|t| TableHand {
                table: t as u64,
                cards: &decks[t],
                styles: &styles[t],
                boards: &boards,
                in_fantasy: &flags,
            })
            .collect();
        let start = cpu_seconds();
        let played: Vec<_> = hands
            .iter()
            .map(|h| round.play_table(h).expect("legal"))
            .collect();
        times.push((cpu_seconds() - start) / tables as f64);
        // Each street's decisions again, timed by street.
        let mut todo: Vec<Vec<Replayed>> = vec![Vec::new(); 5];
        for (t, p) in played.iter().enumerate() {
            for seat in 0..3 {
                let mut board = [EMPTY; 13];
                let mut fill = [0u8; 3];
                let mut offset = 0;
                let cards = &decks[t][seat * 17..seat * 17 + 17];
                let dest = &p.dest[seat * 17..seat * 17 + 17];
                for (street, &(dealt, _)) in streets.iter().enumerate() {
                    let seen: Vec<u8> = cards[..offset + dealt].to_vec();
                    let unseen: Vec<u8> = (0..52u8)
                        .filter(|c| !seen.contains(c) && !board.contains(&(*c as i8)))
                        .collect();
                    let key = ((t * 3 + seat) * 5 + street) as u64;
                    let dealt_cards = cards[offset..offset + dealt].to_vec();
                    todo[street].push((board, dealt_cards, unseen, styles[t][seat], key));
                    let (these, to) = (
                        &cards[offset..offset + dealt],
                        &dest[offset..offset + dealt],
                    );
                    apply(&mut board, &mut fill, these, to);
                    offset += dealt;
                }
            }
        }
        for (street, list) in todo.iter().enumerate() {
            let discards = streets[street].0 - streets[street].1;
            let start = cpu_seconds();
            for (board, dealt, unseen, style, key) in list {
                let d = Decision {
                    board,
                    dealt,
                    discards,
                    unseen,
                };
                let mut rng = Stream::new(&[*key, hand]);
                let c = choose(Tables::get(), &rules, &d, style, rollouts, &mut rng);
                fingerprint2 = ofc_core::rng::mix(fingerprint2 ^ c.unwrap_or(999) as u64);
            }
            by_street[street] += cpu_seconds() - start;
        }
        decisions += tables as f64 * 3.0;
        for (t, p) in played.iter().enumerate() {
            for (seat, b) in p.boards.iter().enumerate() {
                let e = ofc_core::board::evaluate(Tables::get(), &rules, &b.map(|c| c as u8));
                let style = (t + seat) % 4;
                tally[style][0] += 1;
                tally[style][1] += e.fouled as u32;
                tally[style][2] += (!e.fouled && e.entry_cards(&rules) > 0) as u32;
                for &c in b {
                    fingerprint = ofc_core::rng::mix(fingerprint ^ c as u8 as u64);
                }
            }
            for &d in &p.dest {
                fingerprint = ofc_core::rng::mix(fingerprint ^ d as u64);
            }
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{tables} tables x 5 hands, 3 normal seats: median {:.1} CPU-us a hand ({:.0} hands per CPU-second); fingerprint {fingerprint:016x}",
        times[2] * 1e6,
        1.0 / times[2]
    );
    let per: Vec<String> = by_street
        .iter()
        .map(|s| format!("{:.1}", s / decisions * 1e6))
        .collect();
    let names = ["careful", "chaser", "weak", "strong"];
    let rates: Vec<String> = tally
        .iter()
        .zip(names)
        .map(|(&[n, f, e], name)| {
            format!(
                "{name} {:.1}% foul / {:.1}% FL",
                100.0 * f as f64 / n as f64,
                100.0 * e as f64 / n as f64
            )
        })
        .collect();
    let [n, f, e] = tally
        .iter()
        .fold([0u32; 3], |a, x| [a[0] + x[0], a[1] + x[1], a[2] + x[2]]);
    println!(
        "fouls {:.1}%, Fantasyland entries {:.1}% of normal seats ({})",
        100.0 * f as f64 / n as f64,
        100.0 * e as f64 / n as f64,
        rates.join(", ")
    );
    println!(
        "CPU-us a decision by street, replayed through `choose` (street 0 all five cards \
         at once, not the simulator's two steps): {}; fingerprint {fingerprint2:016x}",
        per.join(" ")
    );
}
