//! When rayon's threads can be used: not in a process forked after they started.
//!
//! The project itself never forks (its parallel work is threads in the core),
//! but a user's program, or a framework's worker pool, may fork a process
//! that already used the core.  A fork copies only the forking thread, so in
//! the child rayon's pool exists on paper but has no threads, and a parallel
//! call would wait forever.  The first call records the process; a call from
//! another process (a forked child) works on its own thread instead.

use std::sync::OnceLock;

/// Whether parallel work may run on rayon's pool in this process.
pub fn usable() -> bool {
    static STARTED_IN: OnceLock<u32> = OnceLock::new();
    *STARTED_IN.get_or_init(std::process::id) == std::process::id()
}
