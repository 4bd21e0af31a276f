//! ofc-core: the fast twin of `ofc_stats.engine`, the Python definition of the
//! rules of Open Face Chinese Poker.
//!
//! Plain Rust, no Python: cards and row classes ([`eval`]), a ruleset compiled
//! to per-class arrays ([`rules`]), whole boards and jokers ([`board`]),
//! counter-based random numbers ([`rng`]).  Every rule here is proven equal to
//! its Python definition by the project's property tests.

pub mod board;
pub mod candidates;
pub mod cards;
pub mod certain;
pub mod decode;
pub mod error;
pub mod eval;
pub mod fantasy;
pub mod fantasy_chain;
pub mod imitate;
pub mod lookahead;
pub mod open_line;
pub mod policy;
pub mod race;
pub mod rng;
pub mod rollout;
pub mod rules;
pub mod score;
pub mod score_text;
pub mod search;
pub mod setter;
pub mod sim;
pub mod threads;
pub mod timeout;
pub mod value;

pub use error::CoreError;
