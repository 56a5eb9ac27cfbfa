//! When this process started, as near as it can tell: the moment `main`
//! marked. `serve` measures its start-up split from it (runtime ready, app
//! loaded, banner); whoever spawned the process (`bench`, `check`) adds
//! what came before `main` (exec, the dynamic loader), which it measures
//! from its side.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static START: OnceLock<Instant> = OnceLock::new();

/// Marks the process's start; the first call wins. `main` calls it first
/// thing, so later calls (a library user's) change nothing.
pub fn mark() {
    START.get_or_init(Instant::now);
}

/// How long after the marked start `instant` came (zero before it, or when
/// nothing was marked: then the first call marks).
pub fn elapsed_at(instant: Instant) -> Duration {
    instant.saturating_duration_since(*START.get_or_init(Instant::now))
}
