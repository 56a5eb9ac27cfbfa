//! What the JS engine's own hooks say about allocation and garbage
//! collection: V8's GC prologue and epilogue callbacks (count and time of
//! every pause, young or full) and its running total of bytes allocated.
//!
//! The counters are cumulative and shared (`Arc`, atomics), so another
//! thread can read them while the isolate runs; whoever wants a window
//! takes two [`HeapSnapshot`]s and subtracts. Nothing here runs per
//! request: the callbacks run once per GC, and the allocation total is read
//! from the isolate only when [`HeapCounters::publish_requested`] asks.
//!
//! QuickJS-ng exposes no allocation counter and no GC hooks through its
//! V8-shaped API (its "total allocated" is the heap's size), so on that
//! build [`heap_stats_enabled`] is false and no figure is made up.
//! `FWBENCH_HEAP_STATS=off` turns them off on V8 too: the switch for
//! measuring what they cost.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::task::Waker;
use std::time::Instant;

use deno_core::v8;
use serde::{Deserialize, Serialize};

/// Whether allocation and GC figures are counted: on V8, unless
/// `FWBENCH_HEAP_STATS=off`.
pub fn heap_stats_enabled() -> bool {
    cfg!(feature = "v8") && telemetry_switched_on()
}

/// Whether `FWBENCH_HEAP_STATS` leaves the server's telemetry on (it does
/// unless `off`): the heap counters, and the request times of
/// adapter/request_timing.rs.
pub fn telemetry_switched_on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(super::switches::HEAP_STATS).is_none_or(|v| v != "off"))
}

/// One isolate's (or a worker's successive isolates') allocation and GC
/// counters, cumulative since they were made.
#[derive(Debug)]
pub struct HeapCounters {
    epoch: Instant,
    /// When the pause in progress began (ns since `epoch`); written and
    /// read on the isolate's thread only.
    pause_started_ns: AtomicU64,
    young_pauses: AtomicU64,
    young_pause_ns: AtomicU64,
    full_pauses: AtomicU64,
    /// Full (mark-compact) pauses, and the incremental-marking and
    /// weak-callback steps that belong to them.
    full_pause_ns: AtomicU64,
    longest_pause_ns: AtomicU64,
    /// Every pause so far, incremental steps included: a request during
    /// which it moved overlapped a pause (adapter/request_timing.rs).
    pauses: AtomicU64,
    /// Bytes allocated by the isolates before the current one (a worker
    /// rebuilds its runtime after a heap-limit or CPU-limit interrupt).
    allocated_before: AtomicU64,
    /// The current isolate's total, as last published.
    allocated_now: AtomicU64,
    publish: AtomicBool,
    /// Whether the publish asked for should first collect all garbage and
    /// then record the heap's sizes.
    collect: AtomicBool,
    /// The heap's sizes after the last collection asked for; `sizes_known`
    /// once there has been one.
    used_bytes: AtomicU64,
    total_bytes: AtomicU64,
    external_bytes: AtomicU64,
    sizes_known: AtomicBool,
    /// Wakes the isolate's thread for a publish when it is idle.
    waker: Mutex<Option<Waker>>,
}

/// The JS heap's size right after a full collection: what the app keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct HeapSizes {
    /// Bytes of live objects on the JS heap.
    pub used_bytes: u64,
    /// Bytes the JS heap has reserved from the system.
    pub total_bytes: u64,
    /// Bytes held outside the heap for JS objects (ArrayBuffers' stores).
    pub external_bytes: u64,
}

impl HeapSizes {
    /// The sum of two workers' sizes.
    pub fn plus(&self, other: &HeapSizes) -> HeapSizes {
        HeapSizes {
            used_bytes: self.used_bytes + other.used_bytes,
            total_bytes: self.total_bytes + other.total_bytes,
            external_bytes: self.external_bytes + other.external_bytes,
        }
    }
}

/// The counters at one moment. Subtract two with [`HeapSnapshot::since`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct HeapSnapshot {
    /// Bytes allocated on the JS heap.
    pub allocated_bytes: u64,
    /// Young-generation collections (scavenges).
    pub young_gcs: u64,
    /// Time in young-generation pauses, ns.
    pub young_gc_ns: u64,
    /// Full collections (mark-compact).
    pub full_gcs: u64,
    /// Time in full-collection pauses and their incremental steps, ns.
    pub full_gc_ns: u64,
    /// The longest single pause since the previous snapshot was taken
    /// (not a difference: [`HeapSnapshot::since`] keeps the later one's).
    pub longest_pause_ns: u64,
}

impl HeapSnapshot {
    /// The figures between `earlier` and `self`.
    pub fn since(&self, earlier: &HeapSnapshot) -> HeapSnapshot {
        HeapSnapshot {
            allocated_bytes: self.allocated_bytes.saturating_sub(earlier.allocated_bytes),
            young_gcs: self.young_gcs.saturating_sub(earlier.young_gcs),
            young_gc_ns: self.young_gc_ns.saturating_sub(earlier.young_gc_ns),
            full_gcs: self.full_gcs.saturating_sub(earlier.full_gcs),
            full_gc_ns: self.full_gc_ns.saturating_sub(earlier.full_gc_ns),
            longest_pause_ns: self.longest_pause_ns,
        }
    }

    /// The sum of two workers' figures (the longest pause is the longer).
    pub fn plus(&self, other: &HeapSnapshot) -> HeapSnapshot {
        HeapSnapshot {
            allocated_bytes: self.allocated_bytes + other.allocated_bytes,
            young_gcs: self.young_gcs + other.young_gcs,
            young_gc_ns: self.young_gc_ns + other.young_gc_ns,
            full_gcs: self.full_gcs + other.full_gcs,
            full_gc_ns: self.full_gc_ns + other.full_gc_ns,
            longest_pause_ns: self.longest_pause_ns.max(other.longest_pause_ns),
        }
    }
}

impl Default for HeapCounters {
    fn default() -> Self {
        Self {
            epoch: Instant::now(),
            pause_started_ns: AtomicU64::new(0),
            young_pauses: AtomicU64::new(0),
            young_pause_ns: AtomicU64::new(0),
            full_pauses: AtomicU64::new(0),
            full_pause_ns: AtomicU64::new(0),
            longest_pause_ns: AtomicU64::new(0),
            pauses: AtomicU64::new(0),
            allocated_before: AtomicU64::new(0),
            allocated_now: AtomicU64::new(0),
            publish: AtomicBool::new(false),
            collect: AtomicBool::new(false),
            used_bytes: AtomicU64::new(0),
            total_bytes: AtomicU64::new(0),
            external_bytes: AtomicU64::new(0),
            sizes_known: AtomicBool::new(false),
            waker: Mutex::new(None),
        }
    }
}

impl HeapCounters {
    /// Asks the isolate's thread to publish its allocation total at its
    /// next chance ([`HeapCounters::publish_requested`]), waking it with
    /// the waker it left.
    pub fn request_publish(&self) {
        self.publish.store(true, Ordering::Release);
        let waker = self.waker.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some(waker) = &*waker {
            waker.wake_by_ref();
        }
    }

    /// Asks the isolate's thread to collect all its garbage (V8's
    /// low-memory notification: full collections until nothing more is
    /// freed) and then publish, the heap's sizes included. Runs between
    /// requests, never inside the app's code, and no app-visible `gc()` is
    /// exposed for it.
    pub fn request_sizes(&self) {
        self.collect.store(true, Ordering::Release);
        self.request_publish();
    }

    /// The heap's sizes after the last collection asked for by
    /// [`request_sizes`](Self::request_sizes); `None` before one.
    pub fn sizes(&self) -> Option<HeapSizes> {
        let relaxed = Ordering::Relaxed;
        self.sizes_known.load(Ordering::Acquire).then(|| HeapSizes {
            used_bytes: self.used_bytes.load(relaxed),
            total_bytes: self.total_bytes.load(relaxed),
            external_bytes: self.external_bytes.load(relaxed),
        })
    }

    /// Leaves the waker of the task that publishes (once: a task's waker
    /// stays valid for its life).
    pub fn set_waker(&self, waker: &Waker) {
        let mut slot = self.waker.lock().unwrap_or_else(|poison| poison.into_inner());
        if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
    }

    /// Whether the published figures are current: no publish is pending.
    pub fn published(&self) -> bool {
        !self.publish_requested()
    }

    /// Marks the publish asked for done (whatever was published).
    pub fn mark_published(&self) {
        self.publish.store(false, Ordering::Release);
    }

    /// Whether a publish was asked for and not yet done.
    pub fn publish_requested(&self) -> bool {
        self.publish.load(Ordering::Acquire)
    }

    /// The figures as of the last publish (and every GC so far); resets
    /// the longest pause, so the next snapshot's is its window's.
    pub fn snapshot(&self) -> HeapSnapshot {
        let relaxed = Ordering::Relaxed;
        HeapSnapshot {
            allocated_bytes: self.allocated_before.load(relaxed) + self.allocated_now.load(relaxed),
            young_gcs: self.young_pauses.load(relaxed),
            young_gc_ns: self.young_pause_ns.load(relaxed),
            full_gcs: self.full_pauses.load(relaxed),
            full_gc_ns: self.full_pause_ns.load(relaxed),
            longest_pause_ns: self.longest_pause_ns.swap(0, relaxed),
        }
    }

    /// How many pauses, of any kind, have ended so far.
    pub fn pauses(&self) -> u64 {
        self.pauses.load(Ordering::Relaxed)
    }

    /// Counts one young pause of no length, as a GC would (for tests of
    /// what reads the counters).
    #[cfg(test)]
    pub(crate) fn simulate_pause(&self) {
        self.pause_began();
        self.pause_ended(v8::GCType::kGCTypeScavenge);
    }

    /// Publishes `isolate`'s allocation total (on its thread).
    pub(super) fn publish(&self, isolate: &mut v8::Isolate) {
        if self.collect.swap(false, Ordering::AcqRel) && heap_stats_enabled() {
            self.record_sizes(isolate);
        }
        let total = allocated_total(isolate);
        self.allocated_now.store(total, Ordering::Relaxed);
        self.publish.store(false, Ordering::Release);
    }

    /// Collects all garbage, then records the heap's sizes.
    #[cfg(feature = "v8")]
    fn record_sizes(&self, isolate: &mut v8::Isolate) {
        isolate.low_memory_notification();
        let stats = isolate.get_heap_statistics();
        let relaxed = Ordering::Relaxed;
        self.used_bytes.store(stats.used_heap_size() as u64, relaxed);
        self.total_bytes.store(stats.total_heap_size() as u64, relaxed);
        self.external_bytes.store(stats.external_memory() as u64, relaxed);
        self.sizes_known.store(true, Ordering::Release);
    }

    /// QuickJS-ng's V8-shaped API has no such figures: none are made up.
    #[cfg(not(feature = "v8"))]
    fn record_sizes(&self, _isolate: &mut v8::Isolate) {}

    /// The isolate whose total was published is gone: keep what it
    /// allocated, and count the next one's from zero.
    pub(super) fn retire_isolate(&self, isolate: &mut v8::Isolate) {
        let total = allocated_total(isolate);
        self.allocated_before.fetch_add(total, Ordering::Relaxed);
        self.allocated_now.store(0, Ordering::Relaxed);
    }

    fn now_ns(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn pause_began(&self) {
        self.pause_started_ns.store(self.now_ns(), Ordering::Relaxed);
    }

    fn pause_ended(&self, kind: v8::GCType) {
        let paused = self
            .now_ns()
            .saturating_sub(self.pause_started_ns.load(Ordering::Relaxed));
        let young = kind == v8::GCType::kGCTypeScavenge || kind == v8::GCType::kGCTypeMinorMarkSweep;
        let (count, time) = if young {
            (&self.young_pauses, &self.young_pause_ns)
        } else {
            (&self.full_pauses, &self.full_pause_ns)
        };
        // Incremental steps are parts of a full collection, not another.
        if young || kind == v8::GCType::kGCTypeMarkSweepCompact {
            count.fetch_add(1, Ordering::Relaxed);
        }
        time.fetch_add(paused, Ordering::Relaxed);
        self.pauses.fetch_add(1, Ordering::Relaxed);
        self.longest_pause_ns.fetch_max(paused, Ordering::Relaxed);
    }

    /// Installs the GC hooks on `isolate`. `self` must outlive the isolate
    /// (the engine holds an `Arc` of it, dropped after its runtime).
    pub(super) fn install(&self, isolate: &mut v8::Isolate) {
        if !heap_stats_enabled() {
            return;
        }
        let data = self as *const HeapCounters as *mut std::ffi::c_void;
        isolate.add_gc_prologue_callback(on_gc_start, data, v8::GCType::kGCTypeAll);
        isolate.add_gc_epilogue_callback(on_gc_end, data, v8::GCType::kGCTypeAll);
    }
}

fn allocated_total(isolate: &mut v8::Isolate) -> u64 {
    if heap_stats_enabled() {
        isolate.get_heap_statistics().total_allocated_bytes()
    } else {
        0
    }
}

/// SAFETY (both callbacks): `data` is the `HeapCounters` that
/// [`HeapCounters::install`] registered, alive as long as the isolate.
unsafe extern "C" fn on_gc_start(
    _isolate: v8::UnsafeRawIsolatePtr,
    _kind: v8::GCType,
    _flags: v8::GCCallbackFlags,
    data: *mut std::ffi::c_void,
) {
    let counters = unsafe { &*(data as *const HeapCounters) };
    counters.pause_began();
}

unsafe extern "C" fn on_gc_end(
    _isolate: v8::UnsafeRawIsolatePtr,
    kind: v8::GCType,
    _flags: v8::GCCallbackFlags,
    data: *mut std::ffi::c_void,
) {
    let counters = unsafe { &*(data as *const HeapCounters) };
    counters.pause_ended(kind);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_the_difference_but_keeps_the_later_longest_pause() {
        let earlier = HeapSnapshot {
            allocated_bytes: 100,
            young_gcs: 1,
            young_gc_ns: 10,
            full_gcs: 0,
            full_gc_ns: 0,
            longest_pause_ns: 50,
        };
        let later = HeapSnapshot {
            allocated_bytes: 1100,
            young_gcs: 4,
            young_gc_ns: 40,
            full_gcs: 1,
            full_gc_ns: 500,
            longest_pause_ns: 480,
        };
        let window = later.since(&earlier);
        assert_eq!(window.allocated_bytes, 1000);
        assert_eq!((window.young_gcs, window.young_gc_ns), (3, 30));
        assert_eq!((window.full_gcs, window.full_gc_ns), (1, 500));
        assert_eq!(window.longest_pause_ns, 480);
        assert_eq!(window.plus(&earlier).longest_pause_ns, 480);
        assert_eq!(window.plus(&earlier).allocated_bytes, 1100);
    }

    #[test]
    fn incremental_steps_add_time_to_full_collections_but_not_a_count() {
        let counters = HeapCounters::default();
        counters.pause_began();
        counters.pause_ended(v8::GCType::kGCTypeScavenge);
        counters.pause_began();
        counters.pause_ended(v8::GCType::kGCTypeIncrementalMarking);
        counters.pause_began();
        counters.pause_ended(v8::GCType::kGCTypeMarkSweepCompact);
        let seen = counters.snapshot();
        assert_eq!((seen.young_gcs, seen.full_gcs), (1, 1));
        assert_eq!(counters.pauses(), 3, "every pause moves the overlap count");
        assert_eq!(
            counters.snapshot().longest_pause_ns,
            0,
            "reset by the first snapshot"
        );
    }
}
