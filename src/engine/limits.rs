//! Time and memory limits for one JS runtime.
//!
//! A request handler that loops forever would block its worker thread for
//! good, since JS runs to completion. A watchdog thread watches how much
//! CPU time the worker thread has spent inside JS without coming back;
//! past the limit it terminates execution (an uncatchable interrupt in
//! QuickJS, the same `terminate_execution` call on V8). The worker then
//! answers 500 and goes on. Heap growth past `--max-heap-mb` is caught by
//! the engine's near-heap-limit callback, which also terminates and grants
//! a bounded room to unwind ([`UNWIND_ROOMS`]); the worker then rebuilds
//! the runtime (see adapter), since a heap that full is not worth trusting.
//! (QuickJS skips the callback for one allocation bigger than what is left
//! and fails it with an `InternalError`; the adapter's serve.js reports
//! that one.)
//!
//! "How much" counts only the time the worker is inside JS: the driver
//! enters the watchdog around each call and each poll of the event loop,
//! never across an idle wait (a timer, a pending promise). And it is CPU
//! time, read from the worker thread's own clock, not time on the wall: on
//! a busy machine (a build beside the benchmark, two servers on one core)
//! a loading framework waits for the CPU as long again as it runs, and a
//! wall-clock limit interrupted it. The watchdog reads that clock once per
//! tick, from the first tick that sees a stretch of JS, so it fires no
//! sooner than the limit and at most two ticks (a tenth of it) past.
//!
//! The interrupt lands only where the engine checks for it: a JS call or a
//! loop's back-edge. A built-in that loops in native code checks neither
//! (`Array.prototype.includes.call({ length: 2 ** 53 - 1 }, x)` on V8 and
//! QuickJS alike): interrupted, it runs on. An isolate cannot be torn down
//! from another thread while it runs, so when the stretch is still going
//! [`GRACE`] (or the limit, if longer) after the interrupt, the watchdog
//! says why on stderr and ends the process with [`STUCK_EXIT`]: a server
//! whose worker can never answer again is better gone (bench reports the
//! row failed with that line) than silently hung.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use deno_core::v8::IsolateHandle;

use crate::thread_cpu::ThreadCpuClock;

/// How long an interrupted stretch may go on before the process is ended
/// (at least; the limit itself when it is longer).
pub const GRACE: Duration = Duration::from_secs(1);

/// The exit status of a process ended because its JS could not be
/// interrupted (EX_SOFTWARE).
pub const STUCK_EXIT: i32 = 70;

/// The exit status of a process the engine could not go on in: V8 ran out
/// of memory where the heap limit could not stop it (one string grown past
/// what the heap has room for), or met a size past its own limits
/// (`Array.prototype.sort.call({ length: 2 ** 32 + 5 })`). V8 aborts the
/// process there (a bare SIGTRAP, status 133); [`engine_gave_up`] says why
/// and exits with this instead (EX_OSERR), so bench reports the row with a
/// reason.
#[cfg(feature = "v8")]
pub const ENGINE_FATAL_EXIT: i32 = 71;

/// V8's out-of-memory handler (`Isolate::set_oom_error_handler`): says why on
/// stderr and ends the process with [`ENGINE_FATAL_EXIT`], as V8 would have
/// ended it, but with a reason. No destructors or exit handlers run: the
/// engine is past saving.
///
/// # Safety
///
/// Called by V8 only, with `location` and `details.detail` null or
/// NUL-terminated strings.
#[cfg(feature = "v8")]
pub unsafe extern "C" fn engine_gave_up(
    location: *const std::ffi::c_char,
    details: &deno_core::v8::OomDetails,
) {
    let text = |pointer: *const std::ffi::c_char| {
        // SAFETY: V8 passes null or a NUL-terminated string (see above).
        (!pointer.is_null()).then(|| {
            unsafe { std::ffi::CStr::from_ptr(pointer) }
                .to_string_lossy()
                .into_owned()
        })
    };
    let what = if details.is_heap_oom {
        "out of memory where the heap limit could not stop it"
    } else {
        "a fatal error"
    };
    let at = [text(location), text(details.detail)]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(": ");
    eprintln!(
        "fwbench: the JS engine gave up: {what} ({at}): one allocation larger than what is left, or a size \
         past V8's own limits; exiting with status {ENGINE_FATAL_EXIT}"
    );
    // SAFETY: _exit ends the process without running anything else.
    unsafe { libc::_exit(ENGINE_FATAL_EXIT) }
}

/// Why JS execution was interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// JS ran longer than the CPU time limit without returning.
    TimeLimit,
    /// The heap grew past its limit.
    HeapLimit,
}

struct Shared {
    /// The number of the stretch of JS the worker is in, or 0 outside JS.
    /// A count, not a time stamp: the watchdog measures a stretch from when
    /// it first sees it, so entering JS (once per request) reads no clock.
    stretch: AtomicU64,
    fired_time: AtomicBool,
    fired_heap: AtomicBool,
    /// The heap's size when a collection found it past the limit before
    /// the engine asked for more room (see [`Watchdog::check_heap_after_gc`]),
    /// else 0: the room granted to unwind starts there.
    overshoot: AtomicUsize,
    stop: AtomicBool,
    /// Interrupts the JS running on the worker (the isolate's
    /// `terminate_execution`).
    terminate: Box<dyn Fn() + Send + Sync>,
    /// Called when an interrupted stretch runs on past the grace, with its
    /// CPU time so far: ends the process.
    give_up: Box<dyn Fn(Duration) + Send + Sync>,
    limit: Duration,
}

/// How far the worker is into the stretch of JS the watchdog last saw.
struct Stretch {
    /// Its number.
    number: u64,
    /// The worker's CPU time (or, with no CPU clock, the wall time) when
    /// the watchdog first saw it.
    first_seen: Duration,
}

/// Watches one isolate; dropping it stops the watchdog thread.
pub struct Watchdog {
    shared: Arc<Shared>,
    /// Stretches of JS entered so far (only the worker thread enters).
    stretches: Cell<u64>,
    thread: Option<thread::JoinHandle<()>>,
}

/// Marks the worker as inside JS until dropped.
pub struct InJs<'a>(&'a Shared);

impl Drop for InJs<'_> {
    fn drop(&mut self) {
        self.0.stretch.store(0, Ordering::Release);
    }
}

impl Watchdog {
    /// Starts watching `handle`'s isolate with the given time limit. Call
    /// it on the thread that runs the isolate's JS: that thread's CPU time
    /// is what the limit counts.
    pub fn start(handle: IsolateHandle, limit: Duration) -> Self {
        Self::start_with(
            Box::new(move || {
                handle.terminate_execution();
            }),
            Box::new(move |ran| end_stuck_process(ran, limit)),
            limit,
        )
    }

    /// [`Watchdog::start`] with `terminate` called where the isolate's
    /// execution would be terminated, and `give_up` where the process would
    /// be ended.
    fn start_with(
        terminate: Box<dyn Fn() + Send + Sync>,
        give_up: Box<dyn Fn(Duration) + Send + Sync>,
        limit: Duration,
    ) -> Self {
        let shared = Arc::new(Shared {
            stretch: AtomicU64::new(0),
            fired_time: AtomicBool::new(false),
            fired_heap: AtomicBool::new(false),
            overshoot: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            terminate,
            give_up,
            limit,
        });
        let given_up_after = limit + limit.max(GRACE);
        let watcher = shared.clone();
        let cpu_clock = ThreadCpuClock::of_current_thread();
        let epoch = Instant::now();
        // Checking a few times per limit keeps the overshoot small without
        // waking up often: at the default 2 s limit, every 100 ms.
        let tick = (limit / 20).clamp(Duration::from_millis(5), Duration::from_millis(100));
        let thread = thread::Builder::new()
            .name("fwbench-watchdog".into())
            .spawn(move || {
                // The worker's time so far: its CPU time, or where the
                // system gives no CPU clock, the wall time.
                let worker_time = || match cpu_clock {
                    Some(clock) => clock.read(),
                    None => Some(epoch.elapsed()),
                };
                let mut seen: Option<Stretch> = None;
                while !watcher.stop.load(Ordering::Acquire) {
                    thread::park_timeout(tick);
                    let number = watcher.stretch.load(Ordering::Acquire);
                    let now = if number == 0 { None } else { worker_time() };
                    let Some(now) = now else {
                        seen = None;
                        continue;
                    };
                    match &seen {
                        Some(stretch) if stretch.number == number => {
                            let ran = now.saturating_sub(stretch.first_seen);
                            if ran > given_up_after {
                                (watcher.give_up)(ran);
                            } else if ran > watcher.limit && !watcher.fired_time.swap(true, Ordering::AcqRel)
                            {
                                (watcher.terminate)();
                            }
                        }
                        _ => {
                            seen = Some(Stretch {
                                number,
                                first_seen: now,
                            })
                        }
                    }
                }
            })
            .expect("spawn watchdog thread");
        Self {
            shared,
            stretches: Cell::new(0),
            thread: Some(thread),
        }
    }

    /// The time limit this watchdog enforces.
    pub fn limit(&self) -> Duration {
        self.shared.limit
    }

    /// Marks the start of a stretch of JS execution.
    pub fn enter(&self) -> InJs<'_> {
        // Never 0, which means "not in JS".
        let number = self.stretches.get().wrapping_add(1).max(1);
        self.stretches.set(number);
        self.shared.stretch.store(number, Ordering::Release);
        InJs(&self.shared)
    }

    /// A callback for `JsRuntime::add_near_heap_limit_callback`: terminates
    /// execution and raises the limit once to [`unwind_ceiling`], counted
    /// from the initial limit so that later calls grant nothing more: on
    /// QuickJS the next allocation past it fails (a real cap, the allocation
    /// is never made), on V8 the isolate is out of memory and the process
    /// aborts. Granting `current * 2` each time, as before, let a loop of
    /// large allocations double the heap until the interrupt landed,
    /// gigabytes later. A heap that one object took past the ceiling before
    /// the engine asked ([`Watchdog::check_heap_after_gc`]) gets one room
    /// past its size instead, once: without it the collection that follows
    /// such an object aborted the process.
    pub fn heap_limit_callback(&self) -> impl FnMut(usize, usize) -> usize + 'static {
        let shared = self.shared.clone();
        move |current, initial| {
            shared.fired_heap.store(true, Ordering::Release);
            (shared.terminate)();
            let overshoot = shared.overshoot.load(Ordering::Acquire);
            current
                .max(unwind_ceiling(initial, UNWIND_ROOMS))
                .max(overshoot.saturating_add(unwind_room(initial)))
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

/// Says why on stderr and ends the process at once: its JS has run `ran`
/// of CPU time in one stretch, past an interrupt that did not land. No
/// destructors or exit handlers run: other threads may be inside the
/// engine.
fn end_stuck_process(ran: Duration, limit: Duration) {
    eprintln!(
        "fwbench: JS has run {ran:.1?} of CPU time without returning, past the CPU time limit ({limit:?}) and \
         its interrupt: a built-in that loops in native code (such as an Array method over an array-like with \
         a huge length) cannot be interrupted, and its worker can never answer again; exiting with status \
         {STUCK_EXIT}"
    );
    // SAFETY: _exit ends the process without running anything else.
    unsafe { libc::_exit(STUCK_EXIT) }
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

/// What [`Watchdog::check_heap_after_gc`] reads after each collection.
#[cfg(feature = "v8")]
pub struct HeapCheck {
    shared: Arc<Shared>,
    limit: usize,
}

#[cfg(feature = "v8")]
impl Watchdog {
    /// Checks the heap against `limit` after every collection and, past it,
    /// fires the heap-limit interrupt as the near-heap-limit callback does.
    /// V8 lets the first large object of its young generation in whatever
    /// its size, without asking that callback: one 1 GiB string under a
    /// 256 MiB limit was kept and answered 200, and the next large
    /// allocation, finding no room, aborted the process. A collection comes
    /// soon after such an object (the next allocation of the young
    /// generation's large objects must first move it out); the runtime is
    /// then rebuilt like any other past its limit. The returned check must
    /// outlive the isolate.
    pub fn check_heap_after_gc(&self, isolate: &mut deno_core::v8::Isolate, limit: usize) -> Box<HeapCheck> {
        use deno_core::v8;

        unsafe extern "C" fn after_gc(
            mut isolate: v8::UnsafeRawIsolatePtr,
            _kind: v8::GCType,
            _flags: v8::GCCallbackFlags,
            data: *mut std::ffi::c_void,
        ) {
            // SAFETY: `data` is the `HeapCheck` registered below, which
            // outlives the isolate; V8 calls this on the isolate's thread.
            let check = unsafe { &*(data as *const HeapCheck) };
            let isolate = unsafe { v8::Isolate::ref_from_raw_isolate_ptr_mut(&mut isolate) };
            let used = isolate.get_heap_statistics().used_heap_size();
            if used > check.limit && !check.shared.fired_heap.swap(true, Ordering::AcqRel) {
                check.shared.overshoot.store(used, Ordering::Release);
                (check.shared.terminate)();
            }
        }

        let check = Box::new(HeapCheck {
            shared: self.shared.clone(),
            limit,
        });
        let data = &*check as *const HeapCheck as *mut std::ffi::c_void;
        isolate.add_gc_epilogue_callback(after_gc, data, v8::GCType::kGCTypeAll);
        check
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

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    /// A watchdog on this thread whose interrupts are counted.
    fn counting_watchdog(limit: Duration) -> (Watchdog, Arc<AtomicU64>) {
        let (watchdog, fired, _) = watchdog_that_gives_up(limit);
        (watchdog, fired)
    }

    /// A watchdog whose interrupts and give-ups are counted.
    fn watchdog_that_gives_up(limit: Duration) -> (Watchdog, Arc<AtomicU64>, Arc<AtomicU64>) {
        let (fired, gave_up) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let (count, give_ups) = (fired.clone(), gave_up.clone());
        let terminate = Box::new(move || {
            count.fetch_add(1, Ordering::AcqRel);
        });
        let give_up = Box::new(move |_ran| {
            give_ups.fetch_add(1, Ordering::AcqRel);
        });
        (Watchdog::start_with(terminate, give_up, limit), fired, gave_up)
    }

    /// A native loop the interrupt cannot reach: spinning on after it, the
    /// stretch is given up once it runs past the limit plus the grace.
    #[test]
    fn js_that_ignores_its_interrupt_is_given_up_after_the_grace() {
        let limit = Duration::from_millis(50);
        let (watchdog, fired, gave_up) = watchdog_that_gives_up(limit);
        let started = Instant::now();
        {
            let _in_js = watchdog.enter();
            while gave_up.load(Ordering::Acquire) == 0 && started.elapsed() < Duration::from_secs(20) {
                std::hint::spin_loop();
            }
        }
        assert_eq!(fired.load(Ordering::Acquire), 1);
        assert!(gave_up.load(Ordering::Acquire) >= 1);
        assert!(started.elapsed() >= limit + GRACE, "{:?}", started.elapsed());
    }

    #[test]
    fn js_that_keeps_the_cpu_past_the_limit_is_interrupted() {
        let (watchdog, fired) = counting_watchdog(Duration::from_millis(50));
        let started = Instant::now();
        {
            let _in_js = watchdog.enter();
            // Stands in for a runaway loop: spins until interrupted (or
            // gives up long after the limit, so a broken watchdog fails the
            // test instead of hanging it).
            while fired.load(Ordering::Acquire) == 0 && started.elapsed() < Duration::from_secs(20) {
                std::hint::spin_loop();
            }
        }
        assert_eq!(fired.load(Ordering::Acquire), 1);
        assert_eq!(watchdog.take_interrupt(), Some(Interrupt::TimeLimit));
    }

    #[test]
    fn time_in_js_without_the_cpu_does_not_count() {
        // As a worker that waits for a busy CPU: inside JS, not running.
        let (watchdog, fired) = counting_watchdog(Duration::from_millis(20));
        {
            let _in_js = watchdog.enter();
            thread::sleep(Duration::from_millis(400));
        }
        assert_eq!(fired.load(Ordering::Acquire), 0);
        assert_eq!(watchdog.take_interrupt(), None);
    }

    #[test]
    fn the_room_is_half_the_limit_within_16_and_256_mib() {
        assert_eq!(unwind_ceiling(64 * MIB, 1), 96 * MIB);
        assert_eq!(unwind_ceiling(64 * MIB, 4), 192 * MIB);
        assert_eq!(unwind_ceiling(8 * MIB, 1), 24 * MIB);
        assert_eq!(unwind_ceiling(1024 * MIB, 1), 1280 * MIB);
    }
}
