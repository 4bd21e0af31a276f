//! The row classes: the core's tables for the Python side, and batch classification.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use ofc_core::cards::DECK;
use ofc_core::eval::{RowRank, Tables};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::hand_error;

fn described<'py>(py: Python<'py>, ranks: &[RowRank]) -> Bound<'py, PyArray2<i8>> {
    let mut out = Array2::<i8>::from_elem((ranks.len(), 6), -1);
    for (i, r) in ranks.iter().enumerate() {
        out[[i, 0]] = r.category as i8;
        for (j, &rank) in r.ranks.iter().enumerate() {
            out[[i, 1 + j]] = rank as i8;
        }
    }
    out.into_pyarray(py)
}

/// The class tables: keys, the top row's limit, and each class's category and ranks.
#[pyfunction]
fn rank_tables(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let t = Tables::get();
    let out = PyDict::new(py);
    out.set_item("key5", PyArray1::from_slice(py, &t.key5))?;
    out.set_item("key3", PyArray1::from_slice(py, &t.key3))?;
    let limit: Vec<i16> = t.top_limit.iter().map(|&x| x as i16).collect();
    out.set_item("top_limit", PyArray1::from_vec(py, limit))?;
    out.set_item("rank5", described(py, &t.rank5))?;
    out.set_item("rank3", described(py, &t.rank3))?;
    Ok(out)
}

fn classify<'py>(
    py: Python<'py>,
    cards: PyReadonlyArray2<'py, i8>,
    width: usize,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    let view = cards.as_array();
    if view.ncols() != width {
        return Err(hand_error(
            py,
            format!("rows must have {width} cards, not {}", view.ncols()),
        ));
    }
    let rows: Vec<[u8; 5]> = view
        .rows()
        .into_iter()
        .map(|row| {
            let mut out = [0u8; 5];
            for (slot, &c) in out.iter_mut().zip(row.iter()) {
                *slot = c as u8;
            }
            out
        })
        .collect();
    for row in &rows {
        let cards = &row[..width];
        let bad = cards.iter().any(|&c| c as usize >= DECK);
        let repeated = (0..width).any(|i| (i + 1..width).any(|j| cards[i] == cards[j]));
        if bad || repeated {
            return Err(hand_error(
                py,
                format!("not a row of distinct real cards: {cards:?}"),
            ));
        }
    }
    let t = Tables::get();
    let classes: Vec<i16> = py.detach(|| {
        rows.iter()
            .map(|r| {
                if width == 5 {
                    t.class5(r) as i16
                } else {
                    t.class3(&r[..3]) as i16
                }
            })
            .collect()
    });
    Ok(PyArray1::from_vec(py, classes))
}

/// Strength class (0..7461) of each row of an (N, 5) int8 array of real cards.
#[pyfunction]
fn classify_five<'py>(
    py: Python<'py>,
    cards: PyReadonlyArray2<'py, i8>,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    classify(py, cards, 5)
}

/// Strength class (0..454) of each row of an (N, 3) int8 array of real cards.
#[pyfunction]
fn classify_three<'py>(
    py: Python<'py>,
    cards: PyReadonlyArray2<'py, i8>,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    classify(py, cards, 3)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rank_tables, m)?)?;
    m.add_function(wrap_pyfunction!(classify_five, m)?)?;
    m.add_function(wrap_pyfunction!(classify_three, m)?)?;
    Ok(())
}
