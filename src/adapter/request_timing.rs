//! Each request's time in the server, from its arrival (hyper hands the
//! parsed head to the service) to its answer (JS commits a response), and
//! whether a garbage-collection pause fell inside it.
//!
//! This is what says whether a row's tail is its garbage: of the requests
//! slower than the p99, how many overlapped a pause ([`ServerLatency::tail`]).
//! A pause overlaps a request when the worker's pause count moved between
//! its arrival and its answer. The worker's isolate runs on the same thread
//! as its connections, so a pause is never in progress at either edge.
//!
//! Cost: two clock reads and a histogram record per request, into
//! worker-local histograms; the telemetry thread gets a copy only when it
//! asks (the driver publishes it with the heap counters). It runs only for
//! a row server `bench` started (`serve --telemetry-fd`), and
//! `FWBENCH_HEAP_STATS=off` turns it off with the heap counters.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::engine::{heap_stats_enabled, HeapCounters};

/// The slowest time recorded, ns (60 s; slower ones are clamped: a
/// handler that slow was answered 504 by then).
const MAX_NS: u64 = 60_000_000_000;

fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_NS, 3).expect("constant histogram bounds are valid")
}

/// When a request arrived, and the worker's GC pause count then.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    at: Instant,
    pauses: u64,
}

/// Times in the server, split by whether a GC pause overlapped them.
#[derive(Debug, Clone)]
struct Split {
    all: Histogram<u64>,
    /// Only on an engine with GC hooks (V8): without them no request
    /// could be seen to overlap a pause, and a 0 would be made up.
    during_gc: Option<Histogram<u64>>,
}

impl Split {
    fn new() -> Self {
        Split {
            all: new_histogram(),
            during_gc: heap_stats_enabled().then(new_histogram),
        }
    }
}

/// One worker's request clock: stamps arrivals, records answers.
pub struct RequestTiming {
    counters: Arc<HeapCounters>,
    local: RefCell<Split>,
    /// The copy the telemetry thread reads, as of the last publish.
    published: Arc<Mutex<Split>>,
}

impl RequestTiming {
    /// A clock reading `counters`' pause count; its published copy is
    /// [`RequestTiming::published`].
    pub fn new(counters: Arc<HeapCounters>) -> Self {
        RequestTiming {
            counters,
            local: RefCell::new(Split::new()),
            published: Arc::new(Mutex::new(Split::new())),
        }
    }

    /// The handle the telemetry thread reads ([`PublishedTiming::latency`]).
    pub fn published(&self) -> PublishedTiming {
        PublishedTiming(self.published.clone())
    }

    /// A request arrives now.
    pub fn arrival(&self) -> Arrival {
        Arrival {
            at: Instant::now(),
            pauses: self.counters.pauses(),
        }
    }

    /// The request that arrived at `arrival` is answered now.
    pub fn answered(&self, arrival: Arrival) {
        let ns = u64::try_from(arrival.at.elapsed().as_nanos())
            .unwrap_or(MAX_NS)
            .clamp(1, MAX_NS);
        let mut split = self.local.borrow_mut();
        split.all.saturating_record(ns);
        if let Some(during_gc) = &mut split.during_gc {
            if self.counters.pauses() != arrival.pauses {
                during_gc.saturating_record(ns);
            }
        }
    }

    /// Copies the histograms for the telemetry thread (when it asked).
    pub fn publish(&self) {
        let local = self.local.borrow();
        let mut published = self.published.lock().unwrap_or_else(|poison| poison.into_inner());
        published.all.clone_from(&local.all);
        published.during_gc.clone_from(&local.during_gc);
    }
}

/// A worker's published request times, read by the telemetry thread.
#[derive(Debug, Clone)]
pub struct PublishedTiming(Arc<Mutex<Split>>);

impl PublishedTiming {
    /// The times as last published, cumulative since the worker started.
    pub fn latency(&self) -> ServerLatency {
        let split = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        ServerLatency {
            all: Buckets::of(&split.all),
            during_gc: split.during_gc.as_ref().map(Buckets::of),
        }
    }
}

/// A histogram as its non-empty buckets: `(highest value in the bucket,
/// count)` pairs. Rebuilt with the same bounds, it holds the same counts
/// in the same buckets, so windows subtract and workers add exactly.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Buckets(Vec<(u64, u64)>);

impl Buckets {
    fn of(histogram: &Histogram<u64>) -> Buckets {
        Buckets(
            histogram
                .iter_recorded()
                .map(|bucket| (bucket.value_iterated_to(), bucket.count_at_value()))
                .collect(),
        )
    }

    fn histogram(&self) -> Histogram<u64> {
        let mut histogram = new_histogram();
        for &(value, count) in &self.0 {
            histogram.saturating_record_n(value.min(MAX_NS), count);
        }
        histogram
    }
}

/// The server's request times (ns), every worker's together: all requests,
/// and those a GC pause overlapped (V8 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerLatency {
    /// Every answered request's time in the server.
    pub all: Buckets,
    /// Those a GC pause overlapped; absent on an engine without GC hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during_gc: Option<Buckets>,
}

/// The slowest requests of a window and how many of them overlapped a GC
/// pause.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyTail {
    /// Requests answered in the window.
    pub requests: u64,
    /// The median time in the server, ns.
    pub p50_ns: u64,
    /// The p99 time in the server, ns.
    pub p99_ns: u64,
    /// Requests slower than the p99 (the p99's own bucket excluded).
    pub slower: u64,
    /// Of those, how many a GC pause overlapped; absent without GC hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slower_during_gc: Option<u64>,
    /// Of all requests, how many a GC pause overlapped: the share to
    /// compare the tail's with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during_gc: Option<u64>,
}

impl LatencyTail {
    /// The share of the requests slower than the p99 that overlapped a GC
    /// pause (0 to 1); `None` without GC hooks or with no such request.
    pub fn tail_gc_share(&self) -> Option<f64> {
        let during = self.slower_during_gc?;
        (self.slower > 0).then(|| during as f64 / self.slower as f64)
    }

    /// The share of all requests that overlapped a GC pause (0 to 1).
    pub fn gc_share(&self) -> Option<f64> {
        let during = self.during_gc?;
        (self.requests > 0).then(|| during as f64 / self.requests as f64)
    }
}

impl ServerLatency {
    /// The sum of two servers' or workers' times.
    pub fn plus(&self, other: &ServerLatency) -> ServerLatency {
        let add = |a: &Buckets, b: &Buckets| {
            let mut sum = a.histogram();
            // Same bounds on both sides: adding cannot fail.
            let _ = sum.add(b.histogram());
            Buckets::of(&sum)
        };
        ServerLatency {
            all: add(&self.all, &other.all),
            during_gc: self
                .during_gc
                .as_ref()
                .zip(other.during_gc.as_ref())
                .map(|(a, b)| add(a, b)),
        }
    }

    /// The tail of the window between `earlier` and `self` (both
    /// cumulative); `None` when no request was answered in it.
    pub fn tail_since(&self, earlier: &ServerLatency) -> Option<LatencyTail> {
        let window = |later: &Buckets, earlier: &Buckets| {
            let mut window = later.histogram();
            // A window's counts never exceed the later snapshot's.
            let _ = window.subtract(earlier.histogram());
            window
        };
        let all = window(&self.all, &earlier.all);
        if all.is_empty() {
            return None;
        }
        let p99 = all.value_at_quantile(0.99);
        let above = |h: &Histogram<u64>| h.len() - h.count_between(0, p99);
        let none_yet = Buckets::default();
        let during_gc = self
            .during_gc
            .as_ref()
            .map(|later| window(later, earlier.during_gc.as_ref().unwrap_or(&none_yet)));
        Some(LatencyTail {
            requests: all.len(),
            p50_ns: all.value_at_quantile(0.5),
            p99_ns: p99,
            slower: above(&all),
            slower_during_gc: during_gc.as_ref().map(above),
            during_gc: during_gc.as_ref().map(|h| h.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latency(all: &[(u64, u64)], during_gc: &[(u64, u64)]) -> ServerLatency {
        let buckets = |pairs: &[(u64, u64)]| {
            let mut h = new_histogram();
            for &(value, count) in pairs {
                h.record_n(value, count).expect("in bounds");
            }
            Buckets::of(&h)
        };
        ServerLatency {
            all: buckets(all),
            during_gc: Some(buckets(during_gc)),
        }
    }

    #[test]
    fn the_tail_counts_the_requests_past_the_p99_and_those_a_pause_overlapped() {
        let before = latency(&[(5_000, 500)], &[]);
        // In the window: 990 fast requests, 10 slow ones, 8 of the slow
        // ones and 20 of the fast ones overlapped a pause.
        let after = latency(
            &[(5_000, 500 + 990), (2_000_000, 10)],
            &[(5_000, 20), (2_000_000, 8)],
        );
        let tail = after.tail_since(&before).expect("requests in the window");
        assert_eq!(tail.requests, 1000);
        assert!((4_990..=5_010).contains(&tail.p99_ns), "p99 {}", tail.p99_ns);
        assert_eq!(tail.slower, 10);
        assert_eq!(tail.slower_during_gc, Some(8));
        assert_eq!(tail.tail_gc_share(), Some(0.8));
        assert_eq!(tail.gc_share(), Some(0.028));
    }

    #[test]
    fn an_empty_window_has_no_tail_and_workers_add() {
        let one = latency(&[(1_000, 3)], &[(1_000, 1)]);
        assert_eq!(one.tail_since(&one), None);
        let two = one.plus(&one);
        let tail = two.tail_since(&ServerLatency::default()).expect("six requests");
        assert_eq!((tail.requests, tail.during_gc), (6, Some(2)));
        assert_eq!(
            tail.tail_gc_share(),
            None,
            "no request is slower than a p99 all share"
        );
    }

    #[test]
    fn without_gc_hooks_no_share_is_made_up() {
        let mut no_hooks = latency(&[(1_000, 99), (9_000_000, 1)], &[]);
        no_hooks.during_gc = None;
        let tail = no_hooks.tail_since(&ServerLatency::default()).expect("requests");
        assert_eq!(
            (tail.slower_during_gc, tail.tail_gc_share(), tail.gc_share()),
            (None, None, None)
        );
    }

    #[test]
    fn a_request_is_in_gc_when_the_pause_count_moved_while_it_waited() {
        if !heap_stats_enabled() {
            return; // nothing is split without the hooks (QuickJS-ng)
        }
        let counters = Arc::new(HeapCounters::default());
        let timing = RequestTiming::new(counters.clone());
        let calm = timing.arrival();
        timing.answered(calm);
        let unlucky = timing.arrival();
        counters.simulate_pause();
        timing.answered(unlucky);
        timing.publish();
        let tail = timing
            .published()
            .latency()
            .tail_since(&ServerLatency::default())
            .expect("two requests");
        assert_eq!((tail.requests, tail.during_gc), (2, Some(1)));
    }
}
