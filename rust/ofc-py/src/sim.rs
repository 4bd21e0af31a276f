//! The simulator's dealing and streets (`ofc_core::sim`), many tables at once.
//!
//! Both functions release the GIL; `sim_play` runs on a rayon pool of exactly
//! `threads` threads (kept per thread count), and its results do not depend on it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use numpy::ndarray::{Array2, Array3};
use numpy::{
    IntoPyArray, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3,
};
use ofc_core::lookahead::Style;
use ofc_core::sim::{deal, Round, SeatMoves, TableHand};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use rayon::prelude::*;
use rayon::ThreadPool;

use crate::errors::{hand_error, to_py};
use crate::rules::Rules;

/// The pool of `threads` threads, built once per count.
fn pool(threads: usize) -> Result<Arc<ThreadPool>, String> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut pools = pools
        .lock()
        .map_err(|_| "the thread pools' lock is poisoned")?;
    if let Some(p) = pools.get(&threads) {
        return Ok(p.clone());
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("ofc-sim-{i}"))
        .build()
        .map_err(|e| e.to_string())?;
    let p = Arc::new(built);
    pools.insert(threads, p.clone());
    Ok(p)
}

fn table_ids(py: Python<'_>, tables: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<u64>> {
    tables
        .as_array()
        .iter()
        .map(|&t| u64::try_from(t).map_err(|_| hand_error(py, format!("table {t} is negative"))))
        .collect()
}

/// Each table's first `seats * block` cards of a deck shuffled for (seed, table, hand):
/// an int8 array (tables, seats, block).
#[pyfunction]
#[pyo3(signature = (*, seed, hand, tables, deck_size, seats, block))]
fn sim_deal<'py>(
    py: Python<'py>,
    seed: u64,
    hand: u64,
    tables: PyReadonlyArray1<'py, i64>,
    deck_size: usize,
    seats: usize,
    block: usize,
) -> PyResult<Bound<'py, PyArray3<i8>>> {
    if deck_size != 52 && deck_size != 54 {
        return Err(hand_error(
            py,
            format!("a deck has 52 or 54 cards, not {deck_size}"),
        ));
    }
    if seats * block > deck_size {
        return Err(hand_error(
            py,
            format!(
                "{seats} seats need {} cards; the deck has {deck_size}",
                seats * block
            ),
        ));
    }
    let ids = table_ids(py, &tables)?;
    let cards: Vec<u8> = py.detach(|| {
        ids.iter()
            .flat_map(|&t| deal(seed, t, hand, deck_size, seats * block))
            .collect()
    });
    let out = Array3::from_shape_vec((ids.len(), seats, block), cards)
        .map_err(|e| hand_error(py, e.to_string()))?
        .mapv(|c| c as i8);
    Ok(out.into_pyarray(py))
}

type Played<'py> = (
    Bound<'py, PyArray3<i8>>,
    Bound<'py, PyArray2<i16>>,
    Bound<'py, PyList>,
);

/// A tuple of card ids.
fn card_tuple<'py>(
    py: Python<'py>,
    cards: impl IntoIterator<Item = i64, IntoIter: ExactSizeIterator>,
) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, cards)
}

/// One table's record parts: per seat (top, middle, bottom, discards) as tuples
/// of card ids, and every seat's placements (seat by seat, in the order dealt)
/// as a tuple of the shared values in `placements`, indexed by placement key.
fn table_record<'py>(
    py: Python<'py>,
    played: &ofc_core::sim::Played,
    moves: &[SeatMoves],
    placements: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut seats = Vec::with_capacity(moves.len());
    let mut placed = Vec::new();
    for (board, m) in played.boards.iter().zip(moves) {
        let row = |r: std::ops::Range<usize>| card_tuple(py, board[r].iter().map(|&c| c as i64));
        let discards = card_tuple(py, m.discards.iter().map(|&c| c as i64))?;
        seats.push(PyTuple::new(
            py,
            [row(0..3)?, row(3..8)?, row(8..13)?, discards],
        )?);
        for &key in &m.keys {
            placed.push(placements.get_item(key as usize)?);
        }
    }
    PyTuple::new(py, [PyTuple::new(py, seats)?, PyTuple::new(py, placed)?])
}

/// Play the normal seats' streets of one hand-round at every table.
///
/// `cards` (tables, seats, block) from `sim_deal`; `boards` (tables, seats, 13)
/// hold each Fantasyland seat's set board (-1 elsewhere) and `fantasy_cards`
/// its card count; `styles` (tables, seats, 5) are foul_penalty, fantasy_bonus,
/// noise, strength_weight, top_chase.  `placements` is the records' shared
/// placement values, indexed by `ofc_core::sim::placement_key`.  Returns the
/// finished boards, the streets the room placed (bit s for street s) and each
/// table's record parts (see `table_record`).
#[pyfunction]
#[pyo3(signature = (
    rules, cards, boards, in_fantasy, fantasy_cards, styles, *, streets, rollouts, timeout_rate,
    seed, hand, tables, threads, placements
))]
#[allow(clippy::too_many_arguments)]
fn sim_play<'py>(
    py: Python<'py>,
    rules: PyRef<'py, Rules>,
    cards: PyReadonlyArray3<'py, i8>,
    boards: PyReadonlyArray3<'py, i8>,
    in_fantasy: PyReadonlyArray2<'py, bool>,
    fantasy_cards: PyReadonlyArray2<'py, i8>,
    styles: PyReadonlyArray3<'py, f64>,
    streets: Vec<(usize, usize)>,
    rollouts: usize,
    timeout_rate: f64,
    seed: u64,
    hand: u64,
    tables: PyReadonlyArray1<'py, i64>,
    threads: usize,
    placements: Bound<'py, PyList>,
) -> PyResult<Played<'py>> {
    let (n, seats, block) = cards.as_array().dim();
    let ids = table_ids(py, &tables)?;
    let shapes_fit = boards.as_array().dim() == (n, seats, 13)
        && in_fantasy.as_array().dim() == (n, seats)
        && fantasy_cards.as_array().dim() == (n, seats)
        && styles.as_array().dim() == (n, seats, 5)
        && ids.len() == n;
    if !shapes_fit {
        return Err(hand_error(
            py,
            "cards (T, S, block), boards (T, S, 13), in_fantasy and fantasy_cards (T, S), \
             styles (T, S, 5) and tables (T,) must agree",
        ));
    }
    if threads == 0 || rollouts == 0 {
        return Err(hand_error(py, "threads and rollouts must be at least 1"));
    }
    let card_list: Vec<u8> = cards.as_array().iter().map(|&c| c as u8).collect();
    if cards.as_array().iter().any(|&c| c < 0) {
        return Err(hand_error(py, "cards must be card ids, not -1"));
    }
    let board_list: Vec<[i8; 13]> = boards
        .as_array()
        .as_standard_layout()
        .as_slice()
        .expect("standard layout")
        .chunks_exact(13)
        .map(|b| b.try_into().expect("13 positions"))
        .collect();
    let flags: Vec<bool> = in_fantasy.as_array().iter().copied().collect();
    let style_list: Vec<Style> = styles
        .as_array()
        .as_standard_layout()
        .as_slice()
        .expect("standard layout")
        .chunks_exact(5)
        .map(|s| Style {
            foul_penalty: s[0],
            fantasy_bonus: s[1],
            noise: s[2],
            strength_weight: s[3],
            top_chase: s[4],
        })
        .collect();
    let core_rules = &rules.inner;
    let pool = pool(threads).map_err(|e| hand_error(py, e))?;
    let round = Round {
        rules: core_rules,
        streets: &streets,
        seats,
        block,
        rollouts,
        timeout_rate,
        seed,
        hand,
    };
    let counts: Vec<u8> = fantasy_cards
        .as_array()
        .iter()
        .map(|&c| c.max(0) as u8)
        .collect();
    let limit = 1 << 14; // placement keys: 4 seats, 16 streets, 64 cards, 4 destinations
    if seats > 4 || streets.len() > 16 || placements.len() < limit {
        return Err(hand_error(
            py,
            "records hold at most 4 seats and 16 streets, with every placement value",
        ));
    }
    let played = py.detach(|| {
        let hands: Vec<TableHand> = (0..n)
            .map(|i| TableHand {
                table: ids[i],
                cards: &card_list[i * seats * block..(i + 1) * seats * block],
                styles: &style_list[i * seats..(i + 1) * seats],
                boards: &board_list[i * seats..(i + 1) * seats],
                in_fantasy: &flags[i * seats..(i + 1) * seats],
            })
            .collect();
        pool.install(|| {
            hands
                .par_iter()
                .enumerate()
                .map(|(i, h)| {
                    let p = round.play_table(h)?;
                    let moves = round.seat_moves(h, &p, &counts[i * seats..(i + 1) * seats]);
                    Ok((p, moves))
                })
                .collect::<Result<Vec<_>, ofc_core::error::CoreError>>()
        })
    });
    let played = played.map_err(|e| to_py(py, e))?;
    let mut out_boards = Array3::<i8>::zeros((n, seats, 13));
    let mut out_timed = Array2::<i16>::zeros((n, seats));
    let records = PyList::empty(py);
    for (i, (p, moves)) in played.iter().enumerate() {
        for s in 0..seats {
            for (j, &c) in p.boards[s].iter().enumerate() {
                out_boards[[i, s, j]] = c;
            }
            out_timed[[i, s]] = p.timed_out[s] as i16;
        }
        records.append(table_record(py, p, moves, &placements)?)?;
    }
    Ok((
        out_boards.into_pyarray(py),
        out_timed.into_pyarray(py),
        records,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sim_deal, m)?)?;
    m.add_function(wrap_pyfunction!(sim_play, m)?)?;
    Ok(())
}
