//! Time and memory limits for one JS runtime.
//!
//! A request handler that loops forever would block its worker thread for
//! good, since JS runs to completion. A watchdog thread watches how long the
//! worker has been inside JS without coming back; past the limit it
//! terminates execution (an uncatchable interrupt in QuickJS, the same
//! `terminate_execution` call on V8). The worker then answers 500 and goes
//! on. Heap growth past `--max-heap-mb` is caught by the engine's
//! near-heap-limit callback, which also terminates and grants a bounded
//! room to unwind; the worker then rebuilds the runtime (see adapter), since
//! a heap that full is not worth trusting.
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
    /// execution and grants a fixed amount of room to unwind in (see
    /// [`unwind_ceiling`]). The room is counted from the initial limit, not
    /// the current one, so calling again grants nothing more: on QuickJS the
    /// next allocation past it fails (a real cap, the allocation is never
    /// made), on V8 the isolate is out of memory. Granting `current * 2`
    /// each time let a loop of large allocations double the heap until the
    /// interrupt landed, gigabytes later.
    pub fn heap_limit_callback(&self) -> impl FnMut(usize, usize) -> usize + 'static {
        let shared = self.shared.clone();
        move |current, initial| {
            shared.fired_heap.store(true, Ordering::Release);
            shared.handle.terminate_execution();
            current.max(unwind_ceiling(initial))
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

/// The heap limit granted once the limit is reached: the initial limit plus
/// room for the engine to unwind the terminated JS (half the limit, 16 to
/// 256 MiB). On V8, termination lands at the next loop back-edge or call, so
/// the room must hold one iteration's allocations; QuickJS adds its own
/// eighth on top before an allocation fails.
pub fn unwind_ceiling(initial: usize) -> usize {
    initial.saturating_add((initial / 2).clamp(16 << 20, 256 << 20))
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
