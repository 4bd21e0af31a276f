//! `ofc_stats._core`: the PyO3 bindings of ofc-core, and nothing else.
//!
//! Each submodule binds one area of the core; every function that works on
//! many hands releases the GIL.  Bad input becomes `ofc_stats.errors.HandError`
//! (or `RulesetError`) with the core's message; `_core.pyi` is the typed stub.

use pyo3::prelude::*;

mod certain;
mod decode;
mod errors;
mod fantasy;
mod fantasy_chain;
mod grade;
mod imitate;
mod rules;
mod score;
mod sim;
mod tables;
mod value;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The importing process owns rayon's threads: a process forked from it
    // later works on its own thread instead of waiting forever on the pool.
    ofc_core::threads::usable();
    tables::register(m)?;
    certain::register(m)?;
    decode::register(m)?;
    rules::register(m)?;
    grade::register(m)?;
    imitate::register(m)?;
    sim::register(m)?;
    score::register(m)?;
    fantasy::register(m)?;
    fantasy_chain::register(m)?;
    value::register(m)?;
    Ok(())
}
