/*!
The pacer: when each request of a connection is due.

Closed loop: a request is due as soon as the previous answer is in, so its
intended send time is "now". Open loop (`--rate`): requests are due on a
fixed schedule, one every `connections / rate` seconds per connection,
whatever happened to the previous ones. The worker measures latency from the
due time, so when a stalled server makes requests queue up, the queueing
shows in the percentiles (coordinated-omission correction, as wrk2 does).

The schedule is computed as `first + k * interval` rather than by adding
intervals, so it never drifts, and a connection that fell behind catches up
without skipping slots.

Waiting for a slot: tokio's timer rounds every deadline up to the next
millisecond, and since latency is measured from the due time that rounding
would add up to 1 ms to every open-loop latency. On Linux each paced
connection therefore waits on its own `timerfd` (nanosecond resolution,
woken by the same epoll as the sockets); elsewhere, or if a timerfd cannot be
created, it falls back to tokio's sleep and its 1 ms granularity.
*/

use std::time::Duration;

use tokio::time::Instant;

/// Decides when each request of one connection is due and waits for it.
pub(crate) struct Pacer {
    pace: Pace,
}

/// Closed loop (each request when the last was answered) or open loop (on
/// a schedule).
enum Pace {
    Closed,
    Open { schedule: Schedule, timer: Timer },
}

impl Pacer {
    /// Closed loop: every request is due immediately.
    pub(crate) fn closed() -> Pacer {
        Pacer { pace: Pace::Closed }
    }

    /// Open loop: the first request is due at `first`, then one every
    /// `interval`. Uses the precise timer where the platform has one.
    pub(crate) fn open(first: Instant, interval: Duration) -> Pacer {
        Pacer {
            pace: Pace::Open {
                schedule: Schedule::new(first, interval),
                timer: Timer::precise(),
            },
        }
    }

    /// Like [`open`](Self::open) but always with tokio's timer (which tests
    /// can pause).
    #[cfg(test)]
    fn open_with_tokio_timer(first: Instant, interval: Duration) -> Pacer {
        Pacer {
            pace: Pace::Open {
                schedule: Schedule::new(first, interval),
                timer: Timer::Tokio,
            },
        }
    }

    /// When the next request is due: now in closed loop, the next slot of
    /// the schedule in open loop.
    pub(crate) fn next_due(&mut self) -> Instant {
        match &mut self.pace {
            Pace::Closed => Instant::now(),
            Pace::Open { schedule, .. } => schedule.next(),
        }
    }

    /// Waits until `due` (returns at once if it has passed).
    pub(crate) async fn wait(&mut self, due: Instant) {
        if let Pace::Open { timer, .. } = &mut self.pace {
            timer.wait_until(due).await;
        }
    }
}

/// An open-loop schedule: slot `k` is at `first + k * interval`.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    first: Instant,
    interval_ns: f64,
    k: u64,
}

impl Schedule {
    pub(crate) fn new(first: Instant, interval: Duration) -> Schedule {
        Schedule {
            first,
            interval_ns: interval.as_nanos() as f64,
            k: 0,
        }
    }

    /// The next slot.
    pub(crate) fn next(&mut self) -> Instant {
        let offset = Duration::from_nanos((self.k as f64 * self.interval_ns).round() as u64);
        self.k += 1;
        self.first + offset
    }
}

enum Timer {
    Tokio,
    #[cfg(target_os = "linux")]
    Fd(timerfd::TimerFd),
}

impl Timer {
    fn precise() -> Timer {
        #[cfg(target_os = "linux")]
        if let Ok(fd) = timerfd::TimerFd::new() {
            return Timer::Fd(fd);
        }
        Timer::Tokio
    }

    async fn wait_until(&mut self, due: Instant) {
        let now = Instant::now();
        if due <= now {
            return;
        }
        match self {
            Timer::Tokio => tokio::time::sleep_until(due).await,
            #[cfg(target_os = "linux")]
            Timer::Fd(fd) => {
                if fd.wait(due - now).await.is_err() {
                    // The timerfd failed: keep pacing, coarsely.
                    *self = Timer::Tokio;
                    tokio::time::sleep_until(due).await;
                }
            }
        }
    }
}

#[cfg(target_os = "linux")]
mod timerfd {
    //! A one-shot Linux timerfd registered with tokio's reactor.

    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::time::Duration;

    use tokio::io::unix::AsyncFd;

    pub(super) struct TimerFd {
        fd: AsyncFd<OwnedFd>,
    }

    impl TimerFd {
        pub(super) fn new() -> io::Result<TimerFd> {
            // SAFETY: plain syscall with constant flags; the result is
            // checked before use.
            let raw = unsafe {
                libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC)
            };
            if raw < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `raw` is a freshly created descriptor nobody else owns.
            let owned = unsafe { OwnedFd::from_raw_fd(raw) };
            // SAFETY: `owned` is a valid open descriptor, moved into the
            // AsyncFd, which alone closes it (on drop).
            let fd = unsafe { AsyncFd::register_with_interest(owned, tokio::io::Interest::READABLE) }
                .map_err(|e| e.into_parts().1)?;
            Ok(TimerFd { fd })
        }

        /// Arms the timer `after` from now and waits for it to fire.
        pub(super) async fn wait(&mut self, after: Duration) -> io::Result<()> {
            let spec = libc::itimerspec {
                it_interval: libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                },
                it_value: libc::timespec {
                    tv_sec: after.as_secs() as libc::time_t,
                    // A zero it_value would disarm the timer.
                    tv_nsec: libc::c_long::from(after.subsec_nanos().max(1)),
                },
            };
            // SAFETY: valid descriptor, valid spec, null old-value pointer.
            let rc = unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
            loop {
                let mut guard = self.fd.readable().await?;
                let read = guard.try_io(|fd| {
                    let mut expirations = 0u64;
                    // SAFETY: reads 8 bytes into a live u64.
                    let n = unsafe {
                        libc::read(
                            fd.as_raw_fd(),
                            (&mut expirations as *mut u64).cast(),
                            std::mem::size_of::<u64>(),
                        )
                    };
                    if n < 0 {
                        Err(io::Error::last_os_error())
                    } else {
                        Ok(())
                    }
                });
                match read {
                    Ok(Ok(())) => {
                        // One-shot: nothing more can arrive until re-armed,
                        // so the next wait need not try a read first.
                        guard.clear_ready();
                        return Ok(());
                    }
                    Ok(Err(e)) => return Err(e),
                    Err(_would_block) => continue,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_evenly_spaced_without_drift() {
        let first = Instant::now();
        // 3 per millisecond: 333.33 µs apart, not representable exactly.
        let mut s = Schedule::new(first, Duration::from_nanos(333_333));
        let slots: Vec<Instant> = (0..3001).map(|_| s.next()).collect();
        assert_eq!(slots[0], first);
        assert_eq!(slots[1] - first, Duration::from_nanos(333_333));
        // After 3000 slots the schedule is where 3000 intervals put it.
        assert_eq!(slots[3000] - first, Duration::from_nanos(999_999_000));
    }

    // The tests below run on the real clock (tokio's paused clock needs its
    // `test-util` feature, which would rebuild tokio and everything above it
    // for the tests alone). Their waits are short and their bounds loose:
    // only a pacer that waits when it must not, or not when it must, fails.

    #[tokio::test]
    async fn closed_loop_is_due_now_and_never_waits() {
        let mut p = Pacer::closed();
        let before = Instant::now();
        let due = p.next_due();
        p.wait(due + Duration::from_secs(60)).await;
        assert!(due >= before);
        assert!(before.elapsed() < Duration::from_secs(30), "a closed loop waited");
    }

    #[tokio::test]
    async fn open_loop_waits_for_each_slot() {
        let start = Instant::now();
        let mut p =
            Pacer::open_with_tokio_timer(start + Duration::from_millis(10), Duration::from_millis(20));
        for k in 0..5u32 {
            let due = p.next_due();
            assert_eq!(
                due,
                start + Duration::from_millis(10) + Duration::from_millis(20) * k
            );
            p.wait(due).await;
            assert!(Instant::now() >= due, "slot {k} woke before it was due");
        }
    }

    #[tokio::test]
    async fn open_loop_catches_up_after_a_stall_without_skipping() {
        // A schedule of one slot every 10 s that began 35 s ago: the
        // connection was stuck, and four slots are already due.
        let interval = Duration::from_secs(10);
        let now = Instant::now();
        let Some(start) = now.checked_sub(Duration::from_secs(35)) else {
            return; // a clock younger than 35 s: nothing to stand in for the stall
        };
        let mut p = Pacer::open_with_tokio_timer(start, interval);
        let mut dues = Vec::new();
        for _ in 0..4 {
            let due = p.next_due();
            p.wait(due).await;
            dues.push(due);
        }
        // All four were sent at once (well within one interval), none skipped.
        assert!(now.elapsed() < interval / 2, "a due slot was waited for");
        assert_eq!(dues, (0..4u32).map(|k| start + interval * k).collect::<Vec<_>>());
        // The next one is on schedule again, in the future.
        let next = p.next_due();
        assert_eq!(next, start + interval * 4);
        assert!(next > Instant::now());
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn precise_timer_fires_on_time() {
        let mut p = Pacer::open(
            Instant::now() + Duration::from_millis(2),
            Duration::from_micros(1500),
        );
        let mut worst = Duration::ZERO;
        for _ in 0..10 {
            let due = p.next_due();
            p.wait(due).await;
            let now = Instant::now();
            assert!(now >= due, "woke early");
            worst = worst.max(now - due);
        }
        // Loose bound: CI machines are busy. Typically a few µs.
        assert!(worst < Duration::from_millis(100), "worst lateness {worst:?}");
        assert!(matches!(
            p.pace,
            Pace::Open {
                timer: Timer::Fd(_),
                ..
            }
        ));
    }
}
