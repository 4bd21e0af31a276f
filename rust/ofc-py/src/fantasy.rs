//! The exact Fantasyland solver: one deal, or many in parallel (GIL released).

use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use ofc_core::fantasy::{self, FantasySet};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::rules::Rules;

/// Card ids as Python ints (a `Vec<u8>` would become `bytes`).
type Ids = Vec<i16>;
type SetTuple = (Ids, Ids, Ids, Ids, i32, bool, f64);

fn ids(cards: &[u8]) -> Ids {
    cards.iter().map(|&c| c as i16).collect()
}

fn check_stay(stay_value: f64) -> PyResult<()> {
    if stay_value.is_finite() && stay_value >= 0.0 {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "stay_value must be a finite number ≥ 0, not {stay_value}"
        )))
    }
}

/// The deal's cards in input order, or `HandError` (wrong count, a card
/// outside the ruleset's deck, a duplicate).
#[pyfunction]
fn check_fantasy_deal(py: Python<'_>, cards: Vec<i64>, rules: &Rules) -> PyResult<Ids> {
    let deal = fantasy::check_deal(&cards, rules.inner.deck_size).map_err(|e| to_py(py, e))?;
    Ok(ids(&deal))
}

/// The exact set of one deal: (top, middle, bottom, discards, royalties, stays, value),
/// rows highest card id first.
#[pyfunction]
fn solve_fantasy(
    py: Python<'_>,
    cards: Vec<i64>,
    rules: &Rules,
    stay_value: f64,
) -> PyResult<SetTuple> {
    check_stay(stay_value)?;
    let deal = fantasy::check_deal(&cards, rules.inner.deck_size).map_err(|e| to_py(py, e))?;
    let set = py
        .detach(|| fantasy::solve(&deal, &rules.inner, stay_value))
        .map_err(|e| to_py(py, e))?;
    let FantasySet {
        top,
        middle,
        bottom,
        discards,
        royalties,
        stays,
        value,
    } = set;
    Ok((
        ids(&top),
        ids(&middle),
        ids(&bottom),
        ids(&discards),
        royalties,
        stays,
        value,
    ))
}

type Batch<'py> = (
    Bound<'py, PyArray2<i8>>,
    Bound<'py, PyArray2<i8>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<f64>>,
);

/// The exact sets of a (k, n) int8 array of deals, solved in parallel:
/// boards (k, 13: top, middle, bottom), discards (k, n-13), royalties,
/// stays and values (k,).  The first bad deal raises `HandError`.
#[pyfunction]
fn solve_fantasy_batch<'py>(
    py: Python<'py>,
    deals: PyReadonlyArray2<'py, i8>,
    rules: &Rules,
    stay_value: f64,
) -> PyResult<Batch<'py>> {
    check_stay(stay_value)?;
    let view = deals.as_array();
    let (k, n) = view.dim();
    let mut checked = Vec::with_capacity(k);
    for row in view.rows() {
        let wide: Vec<i64> = row.iter().map(|&c| c as i64).collect();
        checked.push(fantasy::check_deal(&wide, rules.inner.deck_size).map_err(|e| to_py(py, e))?);
    }
    let sets = py
        .detach(|| {
            if ofc_core::threads::usable() {
                fantasy::solve_batch(&checked, &rules.inner, stay_value)
            } else {
                checked
                    .iter()
                    .map(|deal| fantasy::solve(deal, &rules.inner, stay_value))
                    .collect()
            }
        })
        .map_err(|e| to_py(py, e))?;
    let thrown = n.saturating_sub(13);
    let mut boards = Array2::<i8>::zeros((k, 13));
    let mut discards = Array2::<i8>::zeros((k, thrown));
    for (i, set) in sets.iter().enumerate() {
        for (j, &c) in set.board().iter().enumerate() {
            boards[[i, j]] = c as i8;
        }
        for (j, &c) in set.discards.iter().enumerate() {
            discards[[i, j]] = c as i8;
        }
    }
    let royalties: Array1<i32> = sets.iter().map(|s| s.royalties).collect();
    let stays: Array1<bool> = sets.iter().map(|s| s.stays).collect();
    let values: Array1<f64> = sets.iter().map(|s| s.value).collect();
    Ok((
        boards.into_pyarray(py),
        discards.into_pyarray(py),
        royalties.into_pyarray(py),
        stays.into_pyarray(py),
        values.into_pyarray(py),
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check_fantasy_deal, m)?)?;
    m.add_function(wrap_pyfunction!(solve_fantasy, m)?)?;
    m.add_function(wrap_pyfunction!(solve_fantasy_batch, m)?)?;
    Ok(())
}
