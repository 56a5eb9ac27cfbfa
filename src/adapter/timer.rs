//! The timer behind hyper's header-read timeout, made for a timeout that
//! almost never fires.
//!
//! hyper arms a sleep every time it starts reading a request head and drops
//! it once the head is in: on a keep-alive connection, for every request.
//! With tokio's timer that is an allocation, a clock read, an entry put into
//! and taken out of the timer wheel: a few percent of a small request
//! (docs/ARCHITECTURE.md, the ledger). Here a sleep is a deadline and,
//! once it has been polled, a waker in a table the worker shares; one
//! tokio sleep per worker (the watchman) waits for the earliest deadline
//! in the table, wakes the sleeps that are due, and waits for the next.
//! Deadlines are exact, as with tokio's timer: the watchman sleeps until
//! the earliest one.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};
use slab::Slab;

/// A [`Timer`] whose sleeps share one watchman task; see the module docs.
/// Clones share the table. [`WatchedTimer::watch`] must run (on the same
/// runtime) for sleeps to wake up.
#[derive(Clone, Default)]
pub struct WatchedTimer {
    /// `Arc<Mutex<…>>` although a worker uses it from one thread only:
    /// hyper's `Timer` trait and the `Sleep` futures it returns must be
    /// `Send + Sync`. The lock is never contended, so taking it is a few
    /// uncontended atomic operations.
    table: Arc<Mutex<Table>>,
}

/// The sleeps that have been polled and are not yet done or dropped.
#[derive(Default)]
struct Table {
    entries: Slab<Entry>,
    /// The watchman's waker, and the deadline it waits for (`None`:
    /// it waits for an entry).
    watchman: Option<Waker>,
    watching: Option<Instant>,
}

struct Entry {
    deadline: Instant,
    /// Taken when the watchman wakes it, which tells the sleep its
    /// deadline has passed.
    waker: Option<Waker>,
}

impl Table {
    /// Wakes the entries due at `now`; returns the earliest deadline still
    /// ahead.
    fn wake_due(&mut self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        for (_, entry) in &mut self.entries {
            if entry.deadline <= now {
                if let Some(waker) = entry.waker.take() {
                    waker.wake();
                }
            } else if entry.waker.is_some() {
                next = Some(next.map_or(entry.deadline, |n| n.min(entry.deadline)));
            }
        }
        next
    }
}

impl WatchedTimer {
    fn lock(&self) -> MutexGuard<'_, Table> {
        // The table holds no invariant a panic elsewhere could break.
        self.table.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The watchman: wakes every sleep whose deadline has passed, for as
    /// long as it runs (it never ends on its own; abort it with the server).
    pub async fn watch(self) {
        loop {
            let next = std::future::poll_fn(|cx| {
                let mut table = self.lock();
                let next = table.wake_due(Instant::now());
                table.watching = next;
                match &table.watchman {
                    Some(waker) if waker.will_wake(cx.waker()) => {}
                    _ => table.watchman = Some(cx.waker().clone()),
                }
                match next {
                    Some(deadline) => Poll::Ready(deadline),
                    None => Poll::Pending,
                }
            })
            .await;
            // Woken early when a sleep with an earlier deadline arrives.
            let early = std::future::poll_fn(|cx| {
                let mut table = self.lock();
                if table.watching != Some(next) {
                    return Poll::Ready(());
                }
                table.watchman = Some(cx.waker().clone());
                Poll::Pending
            });
            tokio::select! {
                _ = tokio::time::sleep_until(next.into()) => {}
                _ = early => {}
            }
        }
    }
}

impl Timer for WatchedTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        // Past the clock's range: as good as never (tokio's saturates too).
        let far = Duration::from_secs(86_400 * 365 * 30);
        let now = Instant::now();
        self.sleep_until(now.checked_add(duration).unwrap_or_else(|| now + far))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(WatchedSleep {
            timer: self.clone(),
            deadline,
            key: None,
            done: false,
        })
    }
}

/// One sleep: only a deadline until it is first polled.
struct WatchedSleep {
    timer: WatchedTimer,
    deadline: Instant,
    /// Its entry in the table, once polled.
    key: Option<usize>,
    /// Ended: polled again, it stays ended instead of waiting anew.
    done: bool,
}

impl Future for WatchedSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // No clock read here: the watchman decides when a deadline has
        // passed (a clock read on every poll was one of a request's three).
        // A sleep polled past its deadline is woken by the watchman soon
        // after it is put in the table.
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(());
        }
        let mut table = this.timer.lock();
        match this.key.and_then(|key| Some((key, table.entries.get_mut(key)?))) {
            Some((key, entry)) => match &entry.waker {
                // The watchman took the waker: the deadline has passed.
                None => {
                    table.entries.remove(key);
                    this.key = None;
                    this.done = true;
                    return Poll::Ready(());
                }
                Some(waker) if waker.will_wake(cx.waker()) => {}
                Some(_) => entry.waker = Some(cx.waker().clone()),
            },
            None => {
                let entry = Entry {
                    deadline: this.deadline,
                    waker: Some(cx.waker().clone()),
                };
                this.key = Some(table.entries.insert(entry));
                // The watchman waits for a later deadline, or for none.
                if table.watching.is_none_or(|watching| this.deadline < watching) {
                    table.watching = Some(this.deadline);
                    if let Some(watchman) = table.watchman.take() {
                        watchman.wake();
                    }
                }
            }
        }
        Poll::Pending
    }
}

impl Drop for WatchedSleep {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            self.timer.lock().entries.try_remove(key);
        }
    }
}

impl Sleep for WatchedSleep {}

#[cfg(test)]
mod tests {
    use super::*;

    // Real time, not tokio's paused clock: the watchman reads the system
    // clock, as hyper's own timer does. The bounds only catch a sleep
    // that ends early or never.

    #[tokio::test]
    async fn sleeps_end_at_their_deadlines_in_any_order() {
        let timer = WatchedTimer::default();
        let watchman = tokio::spawn(timer.clone().watch());
        let start = Instant::now();
        let (late, early) = tokio::join!(
            async {
                timer.sleep(Duration::from_millis(300)).await;
                start.elapsed()
            },
            async {
                // Armed after the later one: the watchman must wake sooner.
                tokio::task::yield_now().await;
                timer.sleep(Duration::from_millis(100)).await;
                start.elapsed()
            }
        );
        assert!(early >= Duration::from_millis(100), "{early:?}");
        assert!(late >= Duration::from_millis(300), "{late:?}");
        assert!(
            early < late && late < Duration::from_secs(5),
            "{early:?} {late:?}"
        );
        watchman.abort();
    }

    #[tokio::test]
    async fn a_dropped_sleep_leaves_the_table_and_the_next_one_still_fires() {
        let timer = WatchedTimer::default();
        let watchman = tokio::spawn(timer.clone().watch());
        for _ in 0..1000 {
            let mut armed = timer.sleep(Duration::from_secs(5));
            // Polled once (hyper polls while the head is incomplete), then
            // dropped when the head arrives.
            assert!(armed
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
                .is_pending());
        }
        assert!(timer.lock().entries.is_empty());
        // One place, taken and given back a thousand times.
        assert!(timer.lock().entries.capacity() < 1000, "entries are reused");
        let start = Instant::now();
        timer.sleep(Duration::from_millis(50)).await;
        let waited = start.elapsed();
        assert!(
            waited >= Duration::from_millis(50) && waited < Duration::from_secs(5),
            "{waited:?}"
        );
        watchman.abort();
    }

    #[tokio::test]
    async fn a_sleep_past_its_deadline_when_first_polled_still_ends_and_stays_ended() {
        let timer = WatchedTimer::default();
        let watchman = tokio::spawn(timer.clone().watch());
        let start = Instant::now();
        let mut ended = timer.sleep(Duration::ZERO);
        ended.as_mut().await;
        assert!(
            ended
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
                .is_ready(),
            "an ended sleep stays ended"
        );
        timer.sleep_until(start - Duration::from_secs(1)).await;
        assert!(start.elapsed() < Duration::from_secs(5));
        watchman.abort();
    }
}
