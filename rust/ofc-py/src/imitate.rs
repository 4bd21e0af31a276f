//! The candidates of real decisions as the learned board value sees them, for fitting
//! a model of the players' choices (`ofc_stats.grade.imitate`).

use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyReadonlyArray1};
use ofc_core::imitate::offered_all;
use ofc_core::rollout::Position;
use ofc_core::value::{DIM, MAX_ACTIVE as ACTIVE};
use pyo3::prelude::*;

use crate::errors::unplayable;
use crate::grade::{game, position, DecisionTuple};
use crate::rules::Rules;
use crate::value::ValueFunction;

/// For each decision (one ruleset): (play made as a position among the legal
/// candidates, cards placed after the street, each legal candidate's value, feature
/// indices (-1: none) and feature values), or the `UnplayablePosition` saying why not.
#[pyfunction]
#[pyo3(signature = (rules, streets, fantasy_values, decisions, value, threads=None))]
fn offered_candidates<'py>(
    py: Python<'py>,
    rules: &Rules,
    streets: Vec<(usize, usize)>,
    fantasy_values: PyReadonlyArray1<'py, f64>,
    decisions: Vec<DecisionTuple>,
    value: &ValueFunction,
    threads: Option<usize>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let g = game(py, rules, streets, fantasy_values.as_slice()?, Some(value))?;
    let positions: Vec<Position> = decisions.into_iter().map(position).collect();
    let results = py
        .detach(|| offered_all(&g, &positions, threads))
        .map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
    results
        .into_iter()
        .map(|r| match r {
            Ok(o) => {
                let n = o.legal.len();
                let mut index = Array2::<i32>::from_elem((n, ACTIVE), -1);
                let mut weight = Array2::<f32>::zeros((n, ACTIVE));
                for (k, f) in o.features.iter().enumerate() {
                    for a in 0..f.len {
                        index[[k, a]] = i32::from(f.index[a]);
                        weight[[k, a]] = f.value[a];
                    }
                }
                let values = Array1::from_vec(o.values).into_pyarray(py);
                let tuple = (
                    o.chosen,
                    o.placed,
                    values,
                    index.into_pyarray(py),
                    weight.into_pyarray(py),
                );
                Ok(tuple.into_pyobject(py)?.into_any())
            }
            Err(why) => Ok(unplayable(py, why).into_value(py).into_bound(py).into_any()),
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(offered_candidates, m)?)?;
    // The board value's feature count, so Python sizes its arrays from the core's.
    m.add("VALUE_FEATURES", DIM)?;
    Ok(())
}
