//! The core's errors as the project's Python error classes.

use ofc_core::CoreError;
use pyo3::prelude::*;

/// `ofc_stats.errors.<name>(message)` as a Python exception.
fn project_error(py: Python<'_>, name: &str, message: String) -> PyErr {
    match py.import("ofc_stats.errors").and_then(|m| m.getattr(name)) {
        Ok(class) => match class.call1((message.clone(),)) {
            Ok(instance) => PyErr::from_value(instance),
            Err(err) => err,
        },
        Err(_) => pyo3::exceptions::PyValueError::new_err(message),
    }
}

pub fn to_py(py: Python<'_>, error: CoreError) -> PyErr {
    match error {
        CoreError::Hand(text) => project_error(py, "HandError", text),
        CoreError::Rules(text) => project_error(py, "RulesetError", text),
    }
}

/// An input error named by the bindings themselves (a wrong array shape).
pub fn hand_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    project_error(py, "HandError", message.into())
}

/// `ofc_stats.errors.RulesetError`: a ruleset's option or value the core cannot use.
pub fn ruleset_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    project_error(py, "RulesetError", message.into())
}

/// `ofc_stats.errors.UnplayablePosition`: a decision the grader cannot replay, and why.
pub fn unplayable(py: Python<'_>, message: impl Into<String>) -> PyErr {
    project_error(py, "UnplayablePosition", message.into())
}
