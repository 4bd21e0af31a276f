//! `Rules`: a ruleset compiled to per-class arrays in Python, held by the core.

use numpy::PyReadonlyArray1;
use ofc_core::rules::Rules as CoreRules;
use pyo3::prelude::*;

use crate::errors::to_py;

/// A ruleset as the core reads it (build with `ofc_stats.core.core_rules`).
#[pyclass(frozen, module = "ofc_stats._core")]
pub struct Rules {
    pub inner: CoreRules,
}

fn owned<T: numpy::Element + Copy>(array: Option<PyReadonlyArray1<'_, T>>) -> Option<Vec<T>> {
    array.map(|a| a.as_array().iter().copied().collect())
}

#[pymethods]
impl Rules {
    #[new]
    #[pyo3(signature = (
        *, royalty_top, royalty_middle, royalty_bottom, entry_cards, repeat_top,
        repeat_middle, repeat_bottom, repeat_all, repeat_cards, pair_rows, deck_size,
        max_seats, stack_cap, max_loss
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        royalty_top: PyReadonlyArray1<'_, i16>,
        royalty_middle: PyReadonlyArray1<'_, i16>,
        royalty_bottom: PyReadonlyArray1<'_, i16>,
        entry_cards: PyReadonlyArray1<'_, i8>,
        repeat_top: Option<PyReadonlyArray1<'_, bool>>,
        repeat_middle: Option<PyReadonlyArray1<'_, bool>>,
        repeat_bottom: Option<PyReadonlyArray1<'_, bool>>,
        repeat_all: bool,
        repeat_cards: i8,
        pair_rows: PyReadonlyArray1<'_, i32>,
        deck_size: u8,
        max_seats: u8,
        stack_cap: bool,
        max_loss: Option<f64>,
    ) -> PyResult<Self> {
        let inner = CoreRules {
            royalty_top: owned(Some(royalty_top)).unwrap_or_default(),
            royalty_middle: owned(Some(royalty_middle)).unwrap_or_default(),
            royalty_bottom: owned(Some(royalty_bottom)).unwrap_or_default(),
            entry_cards: owned(Some(entry_cards)).unwrap_or_default(),
            repeat_top: owned(repeat_top),
            repeat_middle: owned(repeat_middle),
            repeat_bottom: owned(repeat_bottom),
            repeat_all,
            repeat_cards,
            pair_rows: owned(Some(pair_rows)).unwrap_or_default(),
            deck_size,
            max_seats,
            stack_cap,
            max_loss,
        };
        inner.validate().map_err(|e| to_py(py, e))?;
        Ok(Rules { inner })
    }

    /// Cards in the deck: 52, or 54 with jokers.
    #[getter]
    fn deck_size(&self) -> u8 {
        self.inner.deck_size
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Rules>()?;
    Ok(())
}
