//! The learned board value: weights loaded from their JSON text, and its training.

use std::sync::Arc;

use ofc_core::value::{train, TrainConfig, ValueFn};
use pyo3::prelude::*;

use crate::rules::Rules;
use ofc_core::threads::on_threads;

/// A board value learned from self-play (`ofc_stats.grade.value`), for the
/// continuation policy of the rollouts and the replay.
#[pyclass(frozen, module = "ofc_stats._core")]
pub struct ValueFunction {
    pub inner: Arc<ValueFn>,
}

#[pymethods]
impl ValueFunction {
    /// Weights from the text `train_value` writes; another layout raises ValueError.
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        let inner = ValueFn::from_json(text).map_err(pyo3::exceptions::PyValueError::new_err)?;
        Ok(ValueFunction {
            inner: Arc::new(inner),
        })
    }

    /// The weights as JSON text (6 decimals).
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// Cards placed after each street it has a model for.
    #[getter]
    fn placed(&self) -> Vec<usize> {
        self.inner.placed.iter().map(|&p| p as usize).collect()
    }
}

/// Train a value function by self-play on `rules` (approximate policy iteration): the
/// same arguments give the same weights on any number of `threads`.
#[pyfunction]
#[pyo3(signature = (
    rules, streets, fantasy_values, *, seed, seats, first_hands, hands, rounds,
    explore=0.5, ridge=1.0, keep=false, lookahead=0, target_deals=0, lambda_=1.0,
    lambda_fantasy=None, threads=None
))]
#[allow(clippy::too_many_arguments)]
fn train_value(
    py: Python<'_>,
    rules: &Rules,
    streets: Vec<(usize, usize)>,
    fantasy_values: Vec<f64>,
    seed: u64,
    seats: usize,
    first_hands: usize,
    hands: usize,
    rounds: usize,
    explore: f64,
    ridge: f64,
    keep: bool,
    lookahead: usize,
    target_deals: usize,
    lambda_: f64,
    lambda_fantasy: Option<f64>,
    threads: Option<usize>,
) -> PyResult<ValueFunction> {
    let lambda_fantasy = lambda_fantasy.unwrap_or(lambda_);
    if !(0.0..=1.0).contains(&lambda_) || !(0.0..=1.0).contains(&lambda_fantasy) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "lambda must be between 0 and 1",
        ));
    }
    let cfg = TrainConfig {
        seed,
        seats,
        first_hands,
        hands,
        rounds,
        explore,
        ridge,
        keep,
        lookahead,
        target_deals,
        lambda: lambda_,
        lambda_fantasy,
        fantasy_values,
    };
    let trained = py
        .detach(|| on_threads(threads, || train(&rules.inner, &streets, &cfg)))
        .map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
    let inner = trained.map_err(pyo3::exceptions::PyValueError::new_err)?;
    Ok(ValueFunction {
        inner: Arc::new(inner),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ValueFunction>()?;
    m.add_function(wrap_pyfunction!(train_value, m)?)?;
    Ok(())
}
