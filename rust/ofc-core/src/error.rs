//! The one error type: bad input to the core, with a message for people.

use std::fmt;

/// What was wrong with the input; the bindings raise it as the project's error class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoreError {
    /// An impossible hand or board (bad card id, a card twice, wrong seat count).
    Hand(String),
    /// A ruleset's arrays that do not fit the row classes.
    Rules(String),
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoreError::Hand(text) | CoreError::Rules(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for CoreError {}
