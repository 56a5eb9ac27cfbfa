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
    /// execution and grants a bounded room to unwind in, the engine's way
    /// ([`HeapGrant`]). Granting `current * 2` each time, as before, let a
    /// loop of large allocations double the heap until the interrupt
    /// landed, gigabytes later.
    pub fn heap_limit_callback(&self) -> impl FnMut(usize, usize) -> usize + 'static {
        let shared = self.shared.clone();
        let grant = HeapGrant::FOR_THIS_ENGINE;
        move |current, initial| {
            shared.fired_heap.store(true, Ordering::Release);
            shared.handle.terminate_execution();
            grant.next_limit(current, initial)
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

/// How the near-heap-limit callback raises the limit for the terminated JS
/// to unwind in. The room is counted from the initial limit, not the
/// current one, so repeated calls cannot compound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapGrant {
    /// Once: the initial limit plus [`unwind_room`], and nothing more on
    /// later calls. QuickJS fails the next allocation past it (the
    /// allocation is never made: a real cap), which the terminated JS
    /// survives as an exception.
    Once,
    /// A room more on each call, up to [`ESCALATION_ROOMS`] rooms. On V8 a
    /// callback that returns the current limit again is a fatal
    /// out-of-memory error that aborts the whole process, and termination
    /// only lands at the next call or loop back-edge, so a single builtin
    /// call that allocates more than a room (one huge string) needs
    /// another. Past the last room V8 aborts: the memory stays bounded.
    Escalate,
}

/// How many rooms [`HeapGrant::Escalate`] grants in all.
pub const ESCALATION_ROOMS: usize = 4;

impl HeapGrant {
    /// The grant that suits the engine this binary was built with.
    pub const FOR_THIS_ENGINE: HeapGrant = if cfg!(feature = "v8") {
        HeapGrant::Escalate
    } else {
        HeapGrant::Once
    };

    /// The heap limit to return from the callback, called at `current`
    /// with the runtime's `initial` limit.
    pub fn next_limit(self, current: usize, initial: usize) -> usize {
        let room = unwind_room(initial);
        let first = initial.saturating_add(room);
        match self {
            HeapGrant::Once => current.max(first),
            HeapGrant::Escalate => {
                let last = initial.saturating_add(room.saturating_mul(ESCALATION_ROOMS));
                if current < first {
                    first
                } else {
                    current.saturating_add(room).min(last).max(current)
                }
            }
        }
    }
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
    fn quickjs_gets_one_room_and_nothing_more() {
        let grant = HeapGrant::Once;
        assert_eq!(grant.next_limit(64 * MIB, 64 * MIB), 96 * MIB);
        assert_eq!(grant.next_limit(96 * MIB, 64 * MIB), 96 * MIB);
        // The room is at least 16 MiB and at most 256 MiB.
        assert_eq!(grant.next_limit(8 * MIB, 8 * MIB), 24 * MIB);
        assert_eq!(grant.next_limit(1024 * MIB, 1024 * MIB), 1280 * MIB);
    }

    #[test]
    fn v8_gets_a_room_per_call_up_to_a_bound() {
        let grant = HeapGrant::Escalate;
        let mut limit = 64 * MIB;
        let mut limits = Vec::new();
        for _ in 0..6 {
            limit = grant.next_limit(limit, 64 * MIB);
            limits.push(limit / MIB);
        }
        // 64 MiB plus up to four rooms of 32 MiB; then the same limit,
        // which V8 takes as out of memory.
        assert_eq!(limits, [96, 128, 160, 192, 192, 192]);
    }

    #[test]
    fn a_grant_never_lowers_the_limit() {
        for grant in [HeapGrant::Once, HeapGrant::Escalate] {
            assert_eq!(grant.next_limit(4096 * MIB, 64 * MIB), 4096 * MIB, "{grant:?}");
        }
    }
}
