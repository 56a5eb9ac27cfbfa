//! Time and memory limits for one JS runtime.
//!
//! A request handler that loops forever would block its worker thread for
//! good, since JS runs to completion. A watchdog thread watches how long the
//! worker has been inside JS without coming back; past the limit it
//! terminates execution (an uncatchable interrupt in QuickJS, the same
//! `terminate_execution` call on V8). The worker then answers 500 and goes
//! on. Heap growth past `--max-heap-mb` is caught by the engine's
//! near-heap-limit callback, which also terminates and grants a bounded
//! room to unwind ([`UNWIND_ROOMS`]); the worker then rebuilds the runtime (see
//! adapter), since a heap that full is not worth trusting. (QuickJS skips
//! the callback for one allocation bigger than what is left and fails it
//! with an `InternalError`; the adapter's serve.js reports that one.)
//!
//! "How long" counts only the time the worker is inside JS: the driver
//! enters the watchdog around each call and each poll of the event loop,
//! never across an idle wait (a timer, a pending promise).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use deno_core::v8::IsolateHandle;

/// Why JS execution was interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// JS ran longer than the CPU time limit without returning.
    TimeLimit,
    /// The heap grew past its limit.
    HeapLimit,
}

struct Shared {
    /// Nanoseconds since `epoch` at which the worker entered JS, or 0.
    entered_at: AtomicU64,
    fired_time: AtomicBool,
    fired_heap: AtomicBool,
    stop: AtomicBool,
    epoch: Instant,
    handle: IsolateHandle,
    limit: Duration,
}

impl Shared {
    fn now(&self) -> u64 {
        // +1 so that 0 always means "not in JS".
        self.epoch.elapsed().as_nanos() as u64 + 1
    }
}

/// Watches one isolate; dropping it stops the watchdog thread.
pub struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<thread::JoinHandle<()>>,
}

/// Marks the worker as inside JS until dropped.
pub struct InJs<'a>(&'a Shared);

impl Drop for InJs<'_> {
    fn drop(&mut self) {
        self.0.entered_at.store(0, Ordering::Release);
    }
}

impl Watchdog {
    /// Starts watching `handle`'s isolate with the given time limit.
    pub fn start(handle: IsolateHandle, limit: Duration) -> Self {
        let shared = Arc::new(Shared {
            entered_at: AtomicU64::new(0),
            fired_time: AtomicBool::new(false),
            fired_heap: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            epoch: Instant::now(),
            handle,
            limit,
        });
        let watcher = shared.clone();
        // Checking a few times per limit keeps the overshoot small without
        // waking up often: at the default 2 s limit, every 100 ms.
        let tick = (limit / 20).clamp(Duration::from_millis(5), Duration::from_millis(100));
        let thread = thread::Builder::new()
            .name("fwbench-watchdog".into())
            .spawn(move || {
                while !watcher.stop.load(Ordering::Acquire) {
                    thread::park_timeout(tick);
                    let entered = watcher.entered_at.load(Ordering::Acquire);
                    if entered != 0
                        && Duration::from_nanos(watcher.now().saturating_sub(entered)) > watcher.limit
                        && !watcher.fired_time.swap(true, Ordering::AcqRel)
                    {
                        watcher.handle.terminate_execution();
                    }
                }
            })
            .expect("spawn watchdog thread");
        Self {
            shared,
            thread: Some(thread),
        }
    }

    /// The time limit this watchdog enforces.
    pub fn limit(&self) -> Duration {
        self.shared.limit
    }

    /// Marks the start of a stretch of JS execution.
    pub fn enter(&self) -> InJs<'_> {
        self.shared.entered_at.store(self.shared.now(), Ordering::Release);
        InJs(&self.shared)
    }

    /// A callback for `JsRuntime::add_near_heap_limit_callback`: terminates
    /// execution and raises the limit once to [`unwind_ceiling`], counted
    /// from the initial limit so that later calls grant nothing more: on
    /// QuickJS the next allocation past it fails (a real cap, the allocation
    /// is never made), on V8 the isolate is out of memory and the process
    /// aborts. Granting `current * 2` each time, as before, let a loop of
    /// large allocations double the heap until the interrupt landed,
    /// gigabytes later.
    pub fn heap_limit_callback(&self) -> impl FnMut(usize, usize) -> usize + 'static {
        let shared = self.shared.clone();
        move |current, initial| {
            shared.fired_heap.store(true, Ordering::Release);
            shared.handle.terminate_execution();
            current.max(unwind_ceiling(initial, UNWIND_ROOMS))
        }
    }

    /// The interrupt that fired since the last call, if any. The caller must
    /// also cancel the isolate's termination before running JS again.
    pub fn take_interrupt(&self) -> Option<Interrupt> {
        if self.shared.fired_heap.swap(false, Ordering::AcqRel) {
            self.shared.fired_time.store(false, Ordering::Release);
            return Some(Interrupt::HeapLimit);
        }
        if self.shared.fired_time.swap(false, Ordering::AcqRel) {
            return Some(Interrupt::TimeLimit);
        }
        None
    }
}

/// How many rooms of [`unwind_room`] the heap limit is raised by, once,
/// for the terminated JS to unwind in. QuickJS fails any allocation past
/// it, which the unwinding JS survives as an exception: one room is
/// enough. V8 cannot fail an allocation: when its last-resort collection
/// (where it asks the callback, once per failed allocation) leaves no room
/// for the object, it aborts the whole process; and its termination only
/// lands at the next call or loop back-edge. So on V8 the one grant must
/// also hold the largest single allocation fwbench survives (one huge
/// string: up to the limit plus four rooms, e.g. 192 MiB at 64 MiB).
pub const UNWIND_ROOMS: usize = if cfg!(feature = "v8") { 4 } else { 1 };

/// The heap limit granted when the limit is reached: the initial limit
/// plus `rooms` of [`unwind_room`].
pub fn unwind_ceiling(initial: usize, rooms: usize) -> usize {
    initial.saturating_add(unwind_room(initial).saturating_mul(rooms))
}

/// The room granted past the heap limit for the engine to unwind the
/// terminated JS: half the limit, 16 to 256 MiB. It must hold what runs
/// before the termination lands: on V8 one loop iteration's allocations
/// (termination lands at the next back-edge or call); QuickJS adds its own
/// eighth on top before an allocation fails.
pub fn unwind_room(initial: usize) -> usize {
    (initial / 2).clamp(16 << 20, 256 << 20)
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn the_room_is_half_the_limit_within_16_and_256_mib() {
        assert_eq!(unwind_ceiling(64 * MIB, 1), 96 * MIB);
        assert_eq!(unwind_ceiling(64 * MIB, 4), 192 * MIB);
        assert_eq!(unwind_ceiling(8 * MIB, 1), 24 * MIB);
        assert_eq!(unwind_ceiling(1024 * MIB, 1), 1280 * MIB);
    }
}
