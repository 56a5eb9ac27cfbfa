//! The load generator's bounds and defaults, read by the flag parsers
//! (args.rs), the plan's checks (plan.rs) and the stop rule (worker.rs).

use std::time::Duration;

/// Deepest `--pipeline`.
pub const MAX_PIPELINE: u32 = 256;
/// Most connections in one run.
pub const MAX_CONNECTIONS: usize = 10_000;
/// Most worker threads.
pub const MAX_THREADS: usize = 256;
/// The hard cap on any run: no duration may exceed it, and a run by
/// request count is stopped when it is reached.
pub const HARD_CAP: Duration = Duration::from_secs(3600);
/// Duration when neither `-d` nor `-n` is given (wrk's default).
pub const DEFAULT_DURATION: Duration = Duration::from_secs(10);
/// The largest request body (`--body`, `--body-file`, a scenario's): 16
/// times the 1 MiB a server accepts by default (`--max-body-bytes`), and
/// the body is kept in memory, once per pipelined request.
pub const MAX_BODY_BYTES: usize = 16 << 20;
/// Per-request timeout unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
