//! When each fouled board's foul became unavoidable (`ofc_core::certain`).

use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use ofc_core::cards::BOARD;
use ofc_core::certain;
use pyo3::prelude::*;

use crate::errors::hand_error;
use crate::score::c_order;

/// The street after which each board's foul was unavoidable, -1 where none is known:
/// (N, 13) cards, (N, 13) streets and (N, 4) discards of streets 1-4, int16.
#[pyfunction]
fn foul_unavoidable_after<'py>(
    py: Python<'py>,
    cards: PyReadonlyArray2<'py, i16>,
    streets: PyReadonlyArray2<'py, i16>,
    discards: PyReadonlyArray2<'py, i16>,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    let n = cards.shape()[0];
    if cards.shape() != [n, BOARD] || streets.shape() != [n, BOARD] || discards.shape() != [n, 4] {
        return Err(hand_error(
            py,
            format!(
                "boards need cards and streets of shape (N, 13) and discards (N, 4), not {:?}, {:?} and {:?}",
                cards.shape(),
                streets.shape(),
                discards.shape()
            ),
        ));
    }
    let (cards, streets, discards) = (c_order(&cards), c_order(&streets), c_order(&discards));
    let found = py.detach(|| certain::foul_unavoidable_batch(&cards, &streets, &discards));
    Ok(PyArray1::from_vec(py, found))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(foul_unavoidable_after, m)?)?;
    Ok(())
}
