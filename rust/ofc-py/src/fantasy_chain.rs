//! Self-play hands for the Fantasyland chain (`ofc_core::fantasy_chain`), GIL released.

use numpy::{IntoPyArray, PyArray1};
use ofc_core::fantasy_chain::Chain;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::rules::Rules;
use crate::value::ValueFunction;
use ofc_core::threads::on_threads;

/// Per-seat columns of self-play hands: hand, cards (the Fantasyland played, 0 a normal hand),
/// points before caps, next_cards (the Fantasyland dealt next, 0 none).
type Rows<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// Hands `first..first + hands` of one chain state at a table of `seats` (`fantasy`
/// cards: a Fantasyland seat set by the exact solver against normal seats; 0: a table of
/// normal seats), the normal seats played by the continuation policy (`value`, greedy;
/// None: the imagined completions).  The same rows on any number of `threads`.
#[pyfunction]
#[pyo3(signature = (
    rules, streets, fantasy_values, *, seats, fantasy, hands, seed, first=0, value=None,
    threads=None
))]
#[allow(clippy::too_many_arguments)]
fn fantasy_chain_hands<'py>(
    py: Python<'py>,
    rules: &Rules,
    streets: Vec<(usize, usize)>,
    fantasy_values: Vec<f64>,
    seats: usize,
    fantasy: u8,
    hands: u64,
    seed: u64,
    first: u64,
    value: Option<&ValueFunction>,
    threads: Option<usize>,
) -> PyResult<Rows<'py>> {
    let chain = Chain {
        rules: &rules.inner,
        streets: &streets,
        seats,
        fantasy_values: &fantasy_values,
        value: value.map(|v| v.inner.clone()),
        seed,
    };
    let rows = py
        .detach(|| on_threads(threads, || chain.play(fantasy, first, hands)))
        .map_err(pyo3::exceptions::PyRuntimeError::new_err)?
        .map_err(|e| to_py(py, e))?;
    let column = |f: &dyn Fn(&ofc_core::fantasy_chain::SeatHand) -> i64| {
        rows.iter().map(f).collect::<Vec<i64>>().into_pyarray(py)
    };
    Ok((
        column(&|r| r.hand as i64),
        column(&|r| r.cards as i64),
        column(&|r| r.points as i64),
        column(&|r| r.next_cards as i64),
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fantasy_chain_hands, m)?)?;
    Ok(())
}
