//! Time and memory limits for one JS runtime.
//!
//! A request handler that loops forever would block its worker thread for
//! good, since JS runs to completion. A watchdog thread watches how long the
//! worker has been inside JS without coming back; past the limit it
//! terminates execution (an uncatchable interrupt in QuickJS, the same
//! `terminate_execution` call on V8). The worker then answers 500 and goes
//! on. Heap growth past `--max-heap-mb` is caught by the engine's
//! near-heap-limit callback, which also terminates; the worker then rebuilds
//! the runtime (see adapter), since a heap that full is not worth trusting.

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
    /// execution and grants headroom so the engine can unwind instead of
    /// aborting the process.
    pub fn heap_limit_callback(&self) -> impl FnMut(usize, usize) -> usize + 'static {
        let shared = self.shared.clone();
        move |current, _initial| {
            shared.fired_heap.store(true, Ordering::Release);
            shared.handle.terminate_execution();
            current.saturating_mul(2)
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

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
