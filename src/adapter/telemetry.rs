//! The server's telemetry channel: a socket `bench` hands the row server
//! at start (`serve --telemetry-fd N`), on which it asks for the workers'
//! cumulative allocation and GC counters and request times.
//!
//! A channel of its own, not an HTTP route: an app could shadow a route,
//! and its requests would be counted as load. The protocol is one line
//! each way: `snapshot` in, one JSON [`ServerSnapshot`] out; or
//! `heap-sizes` in, and the same with the heap's sizes after every worker
//! collected all its garbage (bench asks between rounds, never during
//! one).

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::request_timing::{PublishedTiming, RequestTiming, ServerLatency};
use crate::engine::{heap_stats_enabled, HeapCounters, HeapSizes, HeapSnapshot};

/// How long a snapshot waits for a worker busy in JS to publish its
/// allocation total and request times; past it, that worker's last
/// published figures are used.
const PUBLISH_WAIT: Duration = Duration::from_millis(500);

/// How long a `heap-sizes` request waits: a full collection of a large
/// heap takes longer than a publish.
const COLLECT_WAIT: Duration = Duration::from_millis(2000);

/// What the row server says when asked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerSnapshot {
    /// Every worker's counters summed; `None` for a native row, or an
    /// engine without the hooks (QuickJS-ng).
    pub heap: Option<HeapSnapshot>,
    /// Every worker's request times together (cumulative); `None` unless
    /// the server times requests (`ServeConfig::time_requests`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<ServerLatency>,
    /// Every worker's heap sizes after a full collection, summed; only
    /// when asked for (`heap-sizes`) and every worker answered in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<HeapSizes>,
}

/// One worker's figures, as the telemetry thread sees them.
#[derive(Debug, Clone)]
struct WorkerFigures {
    heap: Arc<HeapCounters>,
    timing: Option<PublishedTiming>,
}

/// Every worker's heap counters and request times, registered as they
/// start.
#[derive(Debug, Clone, Default)]
pub struct ServerTelemetry {
    workers: Arc<Mutex<Vec<WorkerFigures>>>,
}

impl ServerTelemetry {
    /// A worker's counters, and its request clock if `time_requests`,
    /// kept for later snapshots.
    pub fn register(&self, time_requests: bool) -> (Arc<HeapCounters>, Option<RequestTiming>) {
        let heap = Arc::new(HeapCounters::default());
        let timing = time_requests.then(|| RequestTiming::new(heap.clone()));
        self.lock().push(WorkerFigures {
            heap: heap.clone(),
            timing: timing.as_ref().map(RequestTiming::published),
        });
        (heap, timing)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<WorkerFigures>> {
        self.workers.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// The workers' figures now: each is asked to publish its allocation
    /// total and request times and given up to [`PUBLISH_WAIT`] in all to
    /// do it. With `collect`, each first collects all its garbage and adds
    /// its heap's sizes (given [`COLLECT_WAIT`]).
    pub fn snapshot(&self, collect: bool) -> ServerSnapshot {
        let workers = self.lock().clone();
        let timed = workers.iter().any(|w| w.timing.is_some());
        if workers.is_empty() || !(heap_stats_enabled() || timed) {
            return ServerSnapshot::default();
        }
        for worker in &workers {
            if collect {
                worker.heap.request_sizes();
            } else {
                worker.heap.request_publish();
            }
        }
        let deadline = Instant::now() + if collect { COLLECT_WAIT } else { PUBLISH_WAIT };
        while !workers.iter().all(|w| w.heap.published()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(200));
        }
        let all_published = workers.iter().all(|w| w.heap.published());
        let sizes = (collect && all_published && heap_stats_enabled())
            .then(|| {
                workers
                    .iter()
                    .map(|w| w.heap.sizes())
                    .try_fold(HeapSizes::default(), |sum, one| Some(sum.plus(&one?)))
            })
            .flatten();
        let heap = heap_stats_enabled().then(|| {
            workers
                .iter()
                .map(|w| w.heap.snapshot())
                .fold(HeapSnapshot::default(), |sum, one| sum.plus(&one))
        });
        let latency = workers
            .iter()
            .filter_map(|w| Some(w.timing.as_ref()?.latency()))
            .reduce(|sum, one| sum.plus(&one));
        ServerSnapshot { heap, latency, sizes }
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
                    request @ ("snapshot" | "heap-sizes") => {
                        serde_json::to_string(&telemetry.snapshot(request == "heap-sizes"))
                            .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
                    }
                    other => serde_json::json!({ "error": format!("unknown request {other:?}") }).to_string(),
                };
                if writeln!(out, "{answer}").is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}
