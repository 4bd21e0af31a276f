//! When rayon's threads can be used: not in a process forked after they started.
//!
//! The project itself never forks (its parallel work is threads in the core),
//! but a user's program, or a framework's worker pool, may fork a process
//! that already used the core.  A fork copies only the forking thread, so in
//! the child rayon's pool exists on paper but has no threads, and a parallel
//! call would wait forever.  The first call records the process; a call from
//! another process (a forked child) works on its own thread instead.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Whether parallel work may run on rayon's pool in this process.
pub fn usable() -> bool {
    static STARTED_IN: OnceLock<u32> = OnceLock::new();
    *STARTED_IN.get_or_init(std::process::id) == std::process::id()
}

/// A rayon pool of `threads` threads, built once per count and kept.
pub fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    static POOLS: Mutex<Option<HashMap<usize, Arc<rayon::ThreadPool>>>> = Mutex::new(None);
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    let pools = pools.get_or_insert_with(HashMap::new);
    if let Some(p) = pools.get(&threads) {
        return Ok(p.clone());
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let built = Arc::new(built);
    pools.insert(threads, built.clone());
    Ok(built)
}

/// `work` on a pool of exactly `threads` threads (at least one; kept per count, see
/// [`pool`]), or on the current pool when `threads` is None.
pub fn on_threads<T: Send>(
    threads: Option<usize>,
    work: impl FnOnce() -> T + Send,
) -> Result<T, String> {
    Ok(match threads {
        Some(n) => pool(n.max(1))?.install(work),
        None => work(),
    })
}
