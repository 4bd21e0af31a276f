//! The simulator's sessions (`ofc_core::sim::Session`), many tables at once.
//!
//! `sim_session` releases the GIL and runs on a rayon pool of exactly `threads`
//! threads (kept per thread count); its results do not depend on it.

use numpy::ndarray::{Array1, Array2, Array3};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3,
};
use ofc_core::lookahead::Style;
use ofc_core::open_line::{session_lines, LineHeader, LinesPart, SessionNames};
use ofc_core::sim::{Played, SeatMoves, TableState};
use ofc_core::threads::pool;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::errors::{hand_error, to_py};
use crate::rules::Rules;

fn table_ids(py: Python<'_>, tables: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<u64>> {
    tables
        .as_array()
        .iter()
        .map(|&t| u64::try_from(t).map_err(|_| hand_error(py, format!("table {t} is negative"))))
        .collect()
}

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
    played: &Played,
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

/// A session part's record parts, hand-major, each built when it is asked for
/// (`table_record`), only for the hands that need a record (the others' lines
/// come from the core).  Built all at once they were tens of thousands of live
/// tuples that the cyclic garbage collector walked again and again as they aged
/// (two full collections cost 27 ms each, 13 CPU-us a hand); built one by one,
/// each dies with its record.
#[pyclass(module = "ofc_stats._core", sequence)]
pub struct SessionRecords {
    parts: Vec<(Played, Vec<SeatMoves>)>,
    placements: Py<PyList>,
}

#[pymethods]
impl SessionRecords {
    fn __getitem__<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyTuple>> {
        let Some((played, moves)) = self.parts.get(index) else {
            return Err(pyo3::exceptions::PyIndexError::new_err(
                "no such hand in the session part",
            ));
        };
        table_record(py, played, moves, self.placements.bind(py))
    }

    fn __len__(&self) -> usize {
        self.parts.len()
    }
}

/// What the lines of a session's file share and each table's names:
/// (room, ruleset, stakes, currency, seconds since 1970 of hand 0's `played_at`,
/// seconds between hands, table ids, players' names by table position).
type LineNames = (
    String,
    String,
    f64,
    String,
    i64,
    i64,
    Vec<String>,
    Vec<Vec<String>>,
);

type Session<'py> = (
    Bound<'py, PyDict>,
    SessionRecords,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i8>>,
    Option<(Bound<'py, PyBytes>, Bound<'py, PyArray1<i64>>)>,
);

/// The lines as one UTF-8 text, written straight into a Python `bytes`, and the
/// offset where each line ends in it.
fn line_text<'py>(
    py: Python<'py>,
    parts: &[LinesPart],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyArray1<i64>>)> {
    let mut ends = Vec::with_capacity(parts.iter().map(|(_, e)| e.len()).sum());
    let mut start = 0;
    for (text, part_ends) in parts {
        ends.extend(part_ends.iter().map(|&end| (start + end) as i64));
        start += text.len();
    }
    let text = PyBytes::new_with(py, start, |buffer| {
        let mut at = 0;
        for (text, _) in parts {
            buffer[at..at + text.len()].copy_from_slice(text);
            at += text.len();
        }
        Ok(())
    })?;
    Ok((text, Array1::from(ends).into_pyarray(py)))
}

/// Play hands `first_hand..first_hand + hands` at every table: deal, Fantasyland
/// sets by the exact solver, the normal seats' streets, scores, the next
/// Fantasyland (with the room's mistakes on `fantasy_errors` of table-hands)
/// and the button, tables in parallel on `threads` threads.
///
/// `styles` (tables, seats, 5) are each table position's foul_penalty,
/// fantasy_bonus, noise, strength_weight, top_chase; `buttons` (tables,) and
/// `fantasy_next` (tables, seats; cards of a granted Fantasyland by table
/// position) are where the tables stand.  `stay_values[n]` values a repeat for
/// the solver of an n-card Fantasyland; `placements` is the records' shared
/// placement values, indexed by `ofc_core::sim::placement_key`.
///
/// Returns the columns (hands, tables, seats) by name — `order` (table position
/// of each seat in order of action), `fantasy_cards`, `timed_out` (bit s: street s
/// placed by the room), `net` (capped), `fouled`, `qualifies` — and `error_seat`,
/// `error_earned` (hands, tables; -1: no mistake); each hand's record parts,
/// hand-major (see `table_record`), built as they are read ([`SessionRecords`]);
/// the buttons and Fantasyland after the last hand; and, given `lines`
/// ([`LineNames`]), the table-hands' open-format lines (`ofc_core::open_line::session_lines`),
/// else None.
#[pyfunction]
#[pyo3(signature = (
    rules, styles, buttons, fantasy_next, *, tables, streets, block, rollouts, timeout_rate,
    seed, first_hand, hands, stay_values, stack, button_moves_on_fantasy, fantasy_errors,
    standard_fantasy_cards, threads, placements, lines=None
))]
#[allow(clippy::too_many_arguments)]
fn sim_session<'py>(
    py: Python<'py>,
    rules: PyRef<'py, Rules>,
    styles: PyReadonlyArray3<'py, f64>,
    buttons: PyReadonlyArray1<'py, i64>,
    fantasy_next: PyReadonlyArray2<'py, i8>,
    tables: PyReadonlyArray1<'py, i64>,
    streets: Vec<(usize, usize)>,
    block: usize,
    rollouts: usize,
    timeout_rate: f64,
    seed: u64,
    first_hand: u64,
    hands: u64,
    stay_values: Vec<f64>,
    stack: Option<f64>,
    button_moves_on_fantasy: bool,
    fantasy_errors: f64,
    standard_fantasy_cards: u8,
    threads: usize,
    placements: Bound<'py, PyList>,
    lines: Option<LineNames>,
) -> PyResult<Session<'py>> {
    let (n, seats, fields) = styles.as_array().dim();
    let ids = table_ids(py, &tables)?;
    if fields != 5
        || buttons.as_array().dim() != n
        || fantasy_next.as_array().dim() != (n, seats)
        || ids.len() != n
    {
        return Err(hand_error(
            py,
            "styles (T, S, 5), buttons (T,), fantasy_next (T, S) and tables (T,) must agree",
        ));
    }
    if threads == 0 {
        return Err(hand_error(py, "threads must be at least 1"));
    }
    if placements.len() < 1 << 14 {
        return Err(hand_error(py, "placements must hold every placement value"));
    }
    let players: Vec<Vec<Style>> = styles
        .as_array()
        .outer_iter()
        .map(|table| {
            table
                .outer_iter()
                .map(|s| Style {
                    foul_penalty: s[0],
                    fantasy_bonus: s[1],
                    noise: s[2],
                    strength_weight: s[3],
                    top_chase: s[4],
                })
                .collect()
        })
        .collect();
    let mut states: Vec<TableState> = buttons
        .as_array()
        .iter()
        .zip(fantasy_next.as_array().outer_iter())
        .map(|(&b, next)| TableState {
            button: usize::try_from(b).unwrap_or(usize::MAX),
            fantasy_next: next.iter().map(|&c| c.max(0) as u8).collect(),
        })
        .collect();
    let session = ofc_core::sim::Session {
        rules: &rules.inner,
        streets: &streets,
        seats,
        block,
        rollouts,
        timeout_rate,
        seed,
        stay_values: &stay_values,
        stack,
        button_moves_on_fantasy,
        fantasy_errors,
        standard_fantasy_cards,
    };
    let pool = pool(threads).map_err(|e| hand_error(py, e))?;
    let played = py
        .detach(|| pool.install(|| session.play(&players, &mut states, &ids, first_hand, hands)))
        .map_err(|e| to_py(py, e))?;
    let h = hands as usize;
    let shape = (h, n, seats);
    let mut order = Array3::<i8>::zeros(shape);
    let mut fantasy_cards = Array3::<i8>::zeros(shape);
    let mut timed = Array3::<i16>::zeros(shape);
    let mut net = Array3::<f64>::zeros(shape);
    let mut fouled = Array3::<bool>::from_elem(shape, false);
    let mut qualifies = Array3::<bool>::from_elem(shape, false);
    let mut error_seat = Array2::<i8>::from_elem((h, n), -1);
    let mut error_earned = Array2::<i8>::zeros((h, n));
    let mut hands_played = Vec::with_capacity(h * n);
    let mut tables: Vec<_> = played.into_iter().map(|t| t.into_iter()).collect();
    for k in 0..h {
        for (i, table) in tables.iter_mut().enumerate() {
            let p = table
                .next()
                .ok_or_else(|| hand_error(py, "the core played too few hands"))?;
            for a in 0..seats {
                order[[k, i, a]] = p.order[a] as i8;
                fantasy_cards[[k, i, a]] = p.fantasy_cards[a] as i8;
                timed[[k, i, a]] = p.played.timed_out[a] as i16;
                net[[k, i, a]] = p.net[a];
                fouled[[k, i, a]] = p.fouled[a];
                qualifies[[k, i, a]] = p.qualifies[a];
            }
            if let Some(e) = p.fantasy_error {
                error_seat[[k, i]] = e.seat as i8;
                error_earned[[k, i]] = e.earned as i8;
            }
            hands_played.push(p);
        }
    }
    let encoded = match &lines {
        Some(names) => Some(
            py.detach(|| {
                let (room, ruleset, stakes, currency, start, step, table_ids, players) = names;
                let names = SessionNames {
                    header: LineHeader {
                        room,
                        ruleset,
                        stakes: *stakes,
                        currency,
                        stack,
                    },
                    start: *start,
                    step: *step,
                    table_ids,
                    players,
                };
                pool.install(|| session_lines(&names, &hands_played, n, first_hand))
            })
            .map_err(|e| hand_error(py, e))?,
        ),
        None => None,
    };
    let records = hands_played
        .into_iter()
        .map(|p| (p.played, p.moves))
        .collect();
    let columns = PyDict::new(py);
    columns.set_item("order", order.into_pyarray(py))?;
    columns.set_item("fantasy_cards", fantasy_cards.into_pyarray(py))?;
    columns.set_item("timed_out", timed.into_pyarray(py))?;
    columns.set_item("net", net.into_pyarray(py))?;
    columns.set_item("fouled", fouled.into_pyarray(py))?;
    columns.set_item("qualifies", qualifies.into_pyarray(py))?;
    columns.set_item("error_seat", error_seat.into_pyarray(py))?;
    columns.set_item("error_earned", error_earned.into_pyarray(py))?;
    let next_buttons: Array1<i64> = states.iter().map(|s| s.button as i64).collect();
    let mut next_fantasy = Array2::<i8>::zeros((n, seats));
    for (i, s) in states.iter().enumerate() {
        for (a, &c) in s.fantasy_next.iter().enumerate() {
            next_fantasy[[i, a]] = c as i8;
        }
    }
    Ok((
        columns,
        SessionRecords {
            parts: records,
            placements: placements.unbind(),
        },
        next_buttons.into_pyarray(py),
        next_fantasy.into_pyarray(py),
        encoded.map(|lines| line_text(py, &lines)).transpose()?,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sim_session, m)?)?;
    m.add_class::<SessionRecords>()?;
    Ok(())
}
