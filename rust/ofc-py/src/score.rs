//! The batch scorer: many finished hands from NumPy arrays to NumPy arrays.

use std::borrow::Cow;

use numpy::ndarray::{Array2, Array3};
use numpy::{
    IntoPyArray, PyArray1, PyReadonlyArray, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3,
    PyUntypedArrayMethods,
};
use ofc_core::cards::BOARD;
use ofc_core::score::{self, Batch};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{hand_error, to_py};
use crate::rules::Rules;

/// An array's data in C order: borrowed when it is contiguous, else copied.
pub(crate) fn c_order<'a, T: numpy::Element + Copy, D: numpy::ndarray::Dimension>(
    array: &'a PyReadonlyArray<'_, T, D>,
) -> Cow<'a, [T]> {
    // `as_slice` also accepts a Fortran-ordered array, whose data is in the wrong order here.
    match array.as_slice() {
        Ok(slice) if array.is_c_contiguous() => Cow::Borrowed(slice),
        _ => Cow::Owned(array.as_array().iter().copied().collect()),
    }
}

fn seat_mask<'a, T: numpy::Element + Copy>(
    py: Python<'_>,
    name: &str,
    array: &'a Option<PyReadonlyArray2<'_, T>>,
    shape: (usize, usize),
) -> PyResult<Option<Cow<'a, [T]>>> {
    match array {
        None => Ok(None),
        Some(a) if a.shape() != [shape.0, shape.1] => Err(hand_error(
            py,
            format!(
                "{name} has shape {:?}, boards need ({}, {})",
                a.shape(),
                shape.0,
                shape.1
            ),
        )),
        Some(a) => Ok(Some(c_order(a))),
    }
}

/// Score (H, S, 13) boards; a dict of the result arrays (see `ofc_stats.core.scoring`).
#[pyfunction]
#[pyo3(signature = (rules, boards, *, seated=None, in_fantasy=None, fantasy_cards=None, stacks=None, forced_fouls=None))]
#[allow(clippy::too_many_arguments)]
fn score_batch<'py>(
    py: Python<'py>,
    rules: &Rules,
    boards: PyReadonlyArray3<'py, i8>,
    seated: Option<PyReadonlyArray2<'py, bool>>,
    in_fantasy: Option<PyReadonlyArray2<'py, bool>>,
    fantasy_cards: Option<PyReadonlyArray2<'py, i8>>,
    stacks: Option<PyReadonlyArray2<'py, f64>>,
    forced_fouls: Option<PyReadonlyArray2<'py, bool>>,
) -> PyResult<Bound<'py, PyDict>> {
    let shape = boards.shape();
    if shape[2] != BOARD {
        return Err(hand_error(
            py,
            format!("boards must have shape (hands, seats, 13), not {shape:?}"),
        ));
    }
    let (hands, seats) = (shape[0], shape[1]);
    let dims = (hands, seats);
    let cards = c_order(&boards);
    let seated = seat_mask(py, "seated", &seated, dims)?;
    let in_fantasy = seat_mask(py, "in_fantasy", &in_fantasy, dims)?;
    let fantasy_cards = seat_mask(py, "fantasy_cards", &fantasy_cards, dims)?;
    let stacks = seat_mask(py, "stacks", &stacks, dims)?;
    let forced_fouls = seat_mask(py, "forced_fouls", &forced_fouls, dims)?;
    let core_rules = &rules.inner;
    let scored = py.detach(|| {
        let batch = Batch {
            hands,
            seats,
            boards: &cards,
            seated: seated.as_deref(),
            in_fantasy: in_fantasy.as_deref(),
            fantasy_cards: fantasy_cards.as_deref(),
            stacks: stacks.as_deref(),
            forced_fouls: forced_fouls.as_deref(),
        };
        score::score_batch(&batch, core_rules)
    });
    let s = scored.map_err(|e| to_py(py, e))?;
    let out = PyDict::new(py);
    macro_rules! put {
        ($name:literal, $values:expr) => {
            out.set_item(
                $name,
                Array2::from_shape_vec(dims, $values)
                    .expect("one value per seat")
                    .into_pyarray(py),
            )?
        };
    }
    out.set_item(
        "boards",
        Array3::from_shape_vec((hands, seats, BOARD), s.boards)
            .expect("13 cards per seat")
            .into_pyarray(py),
    )?;
    put!("top_class", s.top_class);
    put!("middle_class", s.middle_class);
    put!("bottom_class", s.bottom_class);
    put!("royalty_top", s.royalty_top);
    put!("royalty_middle", s.royalty_middle);
    put!("royalty_bottom", s.royalty_bottom);
    put!("fouled", s.fouled);
    put!("fantasy_qualifies", s.fantasy_qualifies);
    put!("fantasy_cards", s.fantasy_cards);
    put!("fantasy_stays", s.fantasy_stays);
    put!("repeat_cards", s.repeat_cards);
    put!("next_cards", s.next_cards);
    put!("net", s.net);
    put!("net_capped", s.net_capped);
    put!("rows_won", s.rows_won);
    put!("rows_lost", s.rows_lost);
    put!("rows_tied", s.rows_tied);
    put!("scoops", s.scoops);
    put!("scooped", s.scooped);
    macro_rules! pairs {
        ($name:literal, $values:expr) => {
            out.set_item(
                $name,
                Array3::from_shape_vec((hands, seats, seats), $values)
                    .expect("seats x seats per hand")
                    .into_pyarray(py),
            )?
        };
    }
    pairs!("points", s.points);
    pairs!("pair_won", s.pair_won);
    pairs!("pair_tied", s.pair_tied);
    Ok(out)
}

/// (N,) int16: bit s set where street s of a seat's (N, 13) board streets
/// matches the timeout auto-placement (`ofc_core::timeout::timeout_mask`).
#[pyfunction]
#[pyo3(signature = (streets, in_fantasy, *, placed))]
fn timeout_mask<'py>(
    py: Python<'py>,
    streets: PyReadonlyArray2<'py, i8>,
    in_fantasy: PyReadonlyArray1<'py, bool>,
    placed: Vec<i16>,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    if streets.shape()[1] != BOARD {
        return Err(hand_error(
            py,
            format!(
                "streets must have shape (seats, 13), not {:?}",
                streets.shape()
            ),
        ));
    }
    let cells = c_order(&streets);
    let flags = c_order(&in_fantasy);
    let mask = py
        .detach(|| ofc_core::timeout::timeout_mask(&cells, &flags, &placed))
        .map_err(|e| to_py(py, e))?;
    Ok(PyArray1::from_vec(py, mask))
}

/// Each line's JSON result (`ofc_core::score_text`), None for a line the
/// caller reads with the definition.
#[pyfunction]
fn score_lines(
    py: Python<'_>,
    rules: &Rules,
    lines: Vec<pyo3::pybacked::PyBackedStr>,
) -> PyResult<Vec<Option<String>>> {
    let texts: Vec<&str> = lines.iter().map(|l| &**l).collect();
    let core_rules = &rules.inner;
    py.detach(|| ofc_core::score_text::score_lines(&texts, core_rules))
        .map_err(|e| to_py(py, e))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(score_lines, m)?)?;
    m.add_function(wrap_pyfunction!(timeout_mask, m)?)?;
    m.add_function(wrap_pyfunction!(score_batch, m)?)?;
    Ok(())
}
