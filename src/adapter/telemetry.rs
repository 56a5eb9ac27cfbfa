//! The server's telemetry channel: a socket `bench` hands the row server
//! at start (`serve --telemetry-fd N`), on which it asks for the workers'
//! cumulative allocation and GC counters.
//!
//! A channel of its own, not an HTTP route: an app could shadow a route,
//! and its requests would be counted as load. The protocol is one line
//! each way: `snapshot` in, one JSON [`ServerSnapshot`] out.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::engine::{heap_stats_enabled, HeapCounters, HeapSnapshot};

/// How long a snapshot waits for a worker busy in JS to publish its
/// allocation total; past it, that worker's last published total is used.
const PUBLISH_WAIT: Duration = Duration::from_millis(500);

/// What the row server says when asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerSnapshot {
    /// Every worker's counters summed; `None` for a native row, or an
    /// engine without the hooks (QuickJS-ng).
    pub heap: Option<HeapSnapshot>,
}

/// Every worker's heap counters, one per worker, registered as they start.
#[derive(Debug, Clone, Default)]
pub struct ServerTelemetry {
    workers: Arc<Mutex<Vec<Arc<HeapCounters>>>>,
}

impl ServerTelemetry {
    /// A worker's counters, kept for later snapshots.
    pub fn register(&self) -> Arc<HeapCounters> {
        let counters = Arc::new(HeapCounters::default());
        self.lock().push(counters.clone());
        counters
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<HeapCounters>>> {
        self.workers.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// The workers' counters now: each is asked to publish its allocation
    /// total and given up to [`PUBLISH_WAIT`] in all to do it.
    pub fn snapshot(&self) -> ServerSnapshot {
        let workers = self.lock().clone();
        if workers.is_empty() || !heap_stats_enabled() {
            return ServerSnapshot { heap: None };
        }
        for worker in &workers {
            worker.request_publish();
        }
        let deadline = Instant::now() + PUBLISH_WAIT;
        while !workers.iter().all(|w| w.published()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(200));
        }
        let heap = workers
            .iter()
            .map(|w| w.snapshot())
            .fold(HeapSnapshot::default(), |sum, one| sum.plus(&one));
        ServerSnapshot { heap: Some(heap) }
    }
}

/// Answers snapshot requests on the inherited socket `fd` from a thread of
/// its own, until the other end closes it.
///
/// # Safety
///
/// `fd` must be an open socket this process owns and uses nowhere else.
pub unsafe fn serve_channel(fd: RawFd, telemetry: ServerTelemetry) -> std::io::Result<()> {
    // SAFETY: the caller's promise.
    let stream = unsafe { UnixStream::from_raw_fd(fd) };
    let mut out = stream.try_clone()?;
    std::thread::Builder::new()
        .name("fwbench-telemetry".into())
        .spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                let answer = match line.trim() {
                    "snapshot" => serde_json::to_string(&telemetry.snapshot())
                        .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}")),
                    other => serde_json::json!({ "error": format!("unknown request {other:?}") }).to_string(),
                };
                if writeln!(out, "{answer}").is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}
