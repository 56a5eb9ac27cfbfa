//! A thread's CPU time: read by the thread itself (the load generator's
//! workers, for their CPU share) or by another thread (the engine's
//! watchdog, for the worker it watches).

use std::time::Duration;

/// The clock of one thread's CPU time.
#[derive(Clone, Copy)]
pub(crate) struct ThreadCpuClock(libc::clockid_t);

impl ThreadCpuClock {
    /// The clock of whichever thread reads it.
    pub(crate) const CALLING_THREAD: Self = Self(libc::CLOCK_THREAD_CPUTIME_ID);

    /// The calling thread's own clock, readable from any other thread, if
    /// the system gives one out.
    pub(crate) fn of_current_thread() -> Option<Self> {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: pthread_self() is the calling thread, alive for the call;
        // `clock` is a valid place for the result.
        let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
        (status == 0).then_some(Self(clock))
    }

    /// CPU time used so far; `None` if the clock cannot be read (its thread
    /// has exited).
    pub(crate) fn read(self) -> Option<Duration> {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec.
        let status = unsafe { libc::clock_gettime(self.0, &mut now) };
        (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
    }
}
