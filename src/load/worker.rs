/*!
The workers: threads, their event loops, and the one request loop every
connection runs.

Shape (oha's `fast` module): one OS thread per `-t`, each with a
current-thread tokio runtime and a `LocalSet`; connections are spread over
the threads and each runs as a local task. Nothing is shared between threads
on the hot path except, in `-n` mode, the atomic ticket counter.

One loop serves every mode: it asks the [`Pacer`] when the next request is
due (now in closed loop, a schedule slot in open loop) and the [`Stop`] rule
whether that request may go (deadline, request tickets, hard cap, warm-up),
then writes pre-serialized bytes and reads the answers. Every outcome goes to
the thread's [`Collector`]; a failed request is counted and the connection
reopened, never fatal.
*/

use std::cell::{Cell, RefCell};
use std::io;
use std::net::SocketAddr;
use std::ops::Range;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use tokio::task::LocalSet;
use tokio::time::{Instant, Sleep};

use super::blocks::BlockRecorder;
use super::collector::{Collector, Exchange, LiveCounters};
use super::conn::Conn;
use super::cpu;
use super::error::RequestError;
use super::limits::HARD_CAP;
use super::pacer::Pacer;
use super::plan::LoadPlan;
use super::validate::Checker;

/// An edge of the measurement window: the warm-up is over, or the last
/// measured request is answered (or failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowEdge {
    /// The warm-up has ended: requests sent from now on are measured.
    Start,
    /// Every worker has finished: nothing is in flight any more.
    End,
}

/// A connection that failed to connect this many times in a row stops
/// trying (with the backoff below that is about a second), so a server that
/// went away ends the run instead of spinning until the deadline.
pub(crate) const MAX_CONNECT_FAILURES: u32 = 8;

/// When the run stops, and which requests are measured.
pub(crate) struct Stop {
    /// When the workers started.
    pub(crate) start: Instant,
    /// End of the warm-up: requests due before it are not measured.
    pub(crate) measure_start: Instant,
    /// Nothing is sent at or after this instant: the end of `-d`, or the
    /// hard cap.
    pub(crate) end: Instant,
    /// `-n`: measured requests still to send.
    tickets: Option<AtomicU64>,
    /// Set from outside (Ctrl-C, SIGTERM) to stop early.
    cancel: Arc<AtomicBool>,
}

/// The stop rule's answer for one due request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// The run is over for this connection.
    Over,
    /// Send `n` requests; `measured` is false during the warm-up.
    Go { n: u32, measured: bool },
}

impl Stop {
    pub(crate) fn new(start: Instant, plan: &LoadPlan, cancel: Arc<AtomicBool>) -> Stop {
        let measure_start = start + plan.warmup;
        let end = measure_start + plan.duration.unwrap_or(HARD_CAP).min(HARD_CAP);
        Stop {
            start,
            measure_start,
            end,
            tickets: plan.requests.map(AtomicU64::new),
            cancel,
        }
    }

    /// May up to `want` requests due at `at` go out?
    pub(crate) fn claim(&self, at: Instant, want: u32) -> Claim {
        if at >= self.end || self.cancel.load(Ordering::Relaxed) {
            return Claim::Over;
        }
        if at < self.measure_start {
            return Claim::Go {
                n: want,
                measured: false,
            };
        }
        let Some(tickets) = &self.tickets else {
            return Claim::Go {
                n: want,
                measured: true,
            };
        };
        let mut left = tickets.load(Ordering::Relaxed);
        loop {
            if left == 0 {
                return Claim::Over;
            }
            let take = left.min(u64::from(want));
            match tickets.compare_exchange_weak(left, left - take, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    return Claim::Go {
                        n: take as u32,
                        measured: true,
                    }
                }
                Err(now) => left = now,
            }
        }
    }

    /// Whether nothing more will be sent, whoever asks.
    pub(crate) fn is_over(&self, now: Instant) -> bool {
        now >= self.end
            || self.cancel.load(Ordering::Relaxed)
            || self
                .tickets
                .as_ref()
                .is_some_and(|t| t.load(Ordering::Relaxed) == 0 && now >= self.measure_start)
    }
}

/// Read-only state shared by every worker.
struct Shared {
    addr: SocketAddr,
    /// The request, repeated `pipeline` times.
    request: Vec<u8>,
    one_len: usize,
    pipeline: u32,
    timeout: Duration,
    head_request: bool,
    checker: Checker,
    stop: Stop,
    /// Open loop: per-connection interval and the rate (for staggering).
    open: Option<(Duration, f64)>,
    /// Block size and the shared answer counter (`LoadPlan::blocks`).
    blocks: Option<(u64, Arc<AtomicU64>)>,
}

/// What one thread reports at the end.
pub(crate) struct ThreadResult {
    pub(crate) collector: Collector,
    pub(crate) cpu: Duration,
    pub(crate) wall: Duration,
    pub(crate) connections: usize,
    pub(crate) opened: u64,
    pub(crate) gave_up: u64,
    pub(crate) finished: Instant,
}

/// What the whole run produced.
pub(crate) struct RawRun {
    pub(crate) threads: Vec<ThreadResult>,
    pub(crate) stop_measure_start: Instant,
    pub(crate) stop_end: Instant,
    pub(crate) started: Instant,
}

/// Per-thread context of the connection tasks.
struct Ctx {
    shared: Arc<Shared>,
    collector: RefCell<Collector>,
    opened: Cell<u64>,
    gave_up: Cell<u64>,
}

/// Runs the plan's workers to the end. `tick` is called about every
/// `tick_every` with the elapsed time and the live response and error
/// counts (for the progress line).
pub(crate) fn run(
    plan: &LoadPlan,
    cancel: Arc<AtomicBool>,
    tick_every: Duration,
    tick: &mut dyn FnMut(Duration, u64, u64),
    window: &mut dyn FnMut(WindowEdge),
) -> io::Result<RawRun> {
    let threads = plan.effective_threads();
    // A socket per connection, a timerfd per paced one, and some spare.
    let per_connection = if plan.is_open_loop() { 2 } else { 1 };
    cpu::raise_fd_limit((plan.connections * per_connection + 64) as u64);
    let mut request = Vec::new();
    let one = plan.request_bytes();
    for _ in 0..plan.pipeline {
        request.extend_from_slice(&one);
    }
    let start = Instant::now();
    let shared = Arc::new(Shared {
        addr: plan.target.addr,
        request,
        one_len: one.len(),
        pipeline: plan.pipeline,
        timeout: plan.timeout,
        head_request: plan.is_head_request(),
        checker: Checker::new(&plan.expect),
        stop: Stop::new(start, plan, cancel),
        open: plan
            .rate
            .map(|rate| (Duration::from_secs_f64(plan.connections as f64 / rate), rate)),
        blocks: plan.blocks.map(|size| (size, Arc::new(AtomicU64::new(0)))),
    });
    let progress: Vec<Arc<LiveCounters>> = (0..threads).map(|_| Arc::default()).collect();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut handles = Vec::with_capacity(threads);
    for (t, progress) in progress.iter().enumerate() {
        let ids = share(plan.connections, threads, t);
        let shared = shared.clone();
        let progress = progress.clone();
        let done = done_tx.clone();
        let handle = std::thread::Builder::new()
            .name(format!("fwbench-load-{t}"))
            .spawn(move || {
                let result = thread_main(shared, ids, progress);
                let _ = done.send(());
                result
            })?;
        handles.push(handle);
    }
    drop(done_tx);
    let measure_start = shared.stop.measure_start;
    let mut window_open = false;
    let mut finished = 0;
    while finished < threads {
        let now = Instant::now();
        if !window_open && now >= measure_start {
            window_open = true;
            window(WindowEdge::Start);
        }
        // Wake at the warm-up's end, so the window opens on time.
        let wait = if window_open {
            tick_every
        } else {
            tick_every.min(measure_start - now)
        };
        match done_rx.recv_timeout(wait) {
            Ok(()) => finished += 1,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let responses = progress.iter().map(|p| p.responses.load(Ordering::Relaxed)).sum();
        let errors = progress.iter().map(|p| p.errors.load(Ordering::Relaxed)).sum();
        tick(start.elapsed(), responses, errors);
    }
    if window_open {
        window(WindowEdge::End);
    }
    let mut results = Vec::with_capacity(threads);
    for h in handles {
        match h.join() {
            Ok(r) => results.push(r?),
            Err(_) => return Err(io::Error::other("a load worker thread panicked")),
        }
    }
    Ok(RawRun {
        threads: results,
        stop_measure_start: shared.stop.measure_start,
        stop_end: shared.stop.end,
        started: start,
    })
}

/// The connection ids of thread `t` of `threads`: an even share, the
/// remainder going to the first threads.
fn share(connections: usize, threads: usize, t: usize) -> Range<usize> {
    let base = connections / threads;
    let extra = connections % threads;
    let start = t * base + t.min(extra);
    start..start + base + usize::from(t < extra)
}

fn thread_main(
    shared: Arc<Shared>,
    ids: Range<usize>,
    progress: Arc<LiveCounters>,
) -> io::Result<ThreadResult> {
    let cpu0 = cpu::thread_cpu_time();
    let wall0 = Instant::now();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ctx = Rc::new(Ctx {
        collector: RefCell::new(
            Collector::new(shared.open.is_some(), progress).with_blocks(
                shared
                    .blocks
                    .as_ref()
                    .map(|(size, counter)| BlockRecorder::new(*size, counter.clone())),
            ),
        ),
        shared,
        opened: Cell::new(0),
        gave_up: Cell::new(0),
    });
    let connections = ids.len();
    let local = LocalSet::new();
    local.block_on(&rt, async {
        let end = ctx.shared.stop.end;
        let tasks: Vec<_> = ids
            .map(|k| {
                let ctx = ctx.clone();
                tokio::task::spawn_local(async move {
                    // Requests still in flight at the end are abandoned, as
                    // wrk does: they belong to no complete interval.
                    let _ = tokio::time::timeout_at(end, drive(&ctx, k)).await;
                })
            })
            .collect();
        for task in tasks {
            let _ = task.await;
        }
    });
    drop(local);
    let finished = Instant::now();
    let ctx = Rc::try_unwrap(ctx).map_err(|_| io::Error::other("connection tasks outlived their thread"))?;
    Ok(ThreadResult {
        collector: ctx.collector.into_inner(),
        cpu: cpu::thread_cpu_time().saturating_sub(cpu0),
        wall: finished - wall0,
        connections,
        opened: ctx.opened.get(),
        gave_up: ctx.gave_up.get(),
        finished,
    })
}

/// The request loop of connection `k`.
async fn drive(ctx: &Ctx, k: usize) {
    let sh = &*ctx.shared;
    let mut pacer = match sh.open {
        // Stagger the connections' schedules evenly over one interval.
        Some((interval, rate)) => {
            Pacer::open(sh.stop.start + Duration::from_secs_f64(k as f64 / rate), interval)
        }
        None => Pacer::closed(),
    };
    let mut conn: Option<Conn> = None;
    let mut connect_failures = 0u32;
    // One timer per connection for the per-request timeout, armed lazily
    // (see `Deadline`): its deadline never lies after the pending request's,
    // so a request never times out late, yet sending a request touches no
    // timer.
    let timer = tokio::time::sleep_until(Instant::now() + sh.timeout);
    tokio::pin!(timer);
    loop {
        let c = match &mut conn {
            Some(c) => c,
            None => match connect(ctx, &mut connect_failures).await {
                Connected::Yes(c) => conn.insert(c),
                Connected::Retry => continue,
                Connected::Stop => return,
            },
        };
        let due = pacer.next_due();
        let (n, measured) = match sh.stop.claim(due, sh.pipeline) {
            Claim::Over => {
                // The last answers may have brought a surplus with them.
                if let Err(e) = c.check_idle() {
                    let measured = Instant::now() >= sh.stop.measure_start;
                    ctx.collector.borrow_mut().push(Err(e), measured);
                }
                return;
            }
            Claim::Go { n, measured } => (n, measured),
        };
        pacer.wait(due).await;
        let mut deadline = Deadline {
            timer: timer.as_mut(),
            at: due,
            timeout: sh.timeout,
        };
        if !exchange(ctx, c, &mut deadline, due, n, measured).await {
            conn = None;
        }
    }
}

/// The per-request timeout of one connection: `at + timeout`, on a tokio
/// timer that is only moved when it fires. Requests on a connection are
/// sent in order, so the timer, once at or before one request's deadline,
/// is at or before every later one's; when it fires early it is pushed to
/// the pending request's deadline. So a healthy connection re-arms its
/// timer about once per timeout (5 s by default) instead of on every
/// request, which costs the timer wheel's lock and bookkeeping each time.
struct Deadline<'a> {
    timer: Pin<&'a mut Sleep>,
    /// When the pending request was sent.
    at: Instant,
    timeout: Duration,
}

impl Deadline<'_> {
    /// Resolves once the pending request has run past its timeout.
    async fn expired(&mut self) -> RequestError {
        let deadline = self.at + self.timeout;
        loop {
            (&mut self.timer).await;
            if Instant::now() >= deadline {
                return RequestError::timeout(self.timeout);
            }
            self.timer.as_mut().reset(deadline);
        }
    }
}

enum Connected {
    Yes(Conn),
    Retry,
    Stop,
}

/// Opens a connection, counting a failure as a connect error and backing
/// off before the retry; stops after [`MAX_CONNECT_FAILURES`] in a row.
async fn connect(ctx: &Ctx, failures: &mut u32) -> Connected {
    let sh = &*ctx.shared;
    let at = Instant::now();
    if sh.stop.is_over(at) {
        return Connected::Stop;
    }
    let attempt = match tokio::time::timeout(sh.timeout, Conn::connect(sh.addr)).await {
        Ok(r) => r,
        Err(_) => Err(RequestError::connect_timeout(sh.timeout)),
    };
    match attempt {
        Ok(c) => {
            *failures = 0;
            ctx.opened.set(ctx.opened.get() + 1);
            Connected::Yes(c)
        }
        Err(e) => {
            let measured = at >= sh.stop.measure_start;
            ctx.collector.borrow_mut().push(Err(e), measured);
            *failures += 1;
            if *failures >= MAX_CONNECT_FAILURES {
                ctx.gave_up.set(ctx.gave_up.get() + 1);
                return Connected::Stop;
            }
            let backoff = Duration::from_millis(10 << (*failures).min(6)).min(Duration::from_millis(500));
            tokio::time::sleep(backoff).await;
            Connected::Retry
        }
    }
}

/// Writes `n` requests due at `due` and reads their answers, pushing every
/// outcome (exactly `n`) to the collector. Returns whether the connection
/// can carry the next request.
async fn exchange(
    ctx: &Ctx,
    c: &mut Conn,
    deadline: &mut Deadline<'_>,
    due: Instant,
    n: u32,
    measured: bool,
) -> bool {
    let sh = &*ctx.shared;
    // Closed loop: the request goes out the moment it is due. Open loop:
    // the pacer may wake a little after the slot, and both are recorded.
    let sent = if sh.open.is_some() { Instant::now() } else { due };
    deadline.at = sent;
    let bytes = &sh.request[..n as usize * sh.one_len];
    // Bytes already here answer none of these requests: the connection is
    // out of step with its server, and the requests are not sent on it.
    let written = match c.check_idle() {
        Err(e) => Err(e),
        Ok(()) => tokio::select! {
            biased;
            r = c.send(bytes) => r,
            e = deadline.expired() => Err(e),
        },
    };
    let mut failed: Option<RequestError> = written.err();
    let mut answered = 0;
    while failed.is_none() && answered < n {
        let describe = ctx.collector.borrow().wants_example();
        let read = tokio::select! {
            biased;
            r = c.read_response(sh.head_request, &sh.checker, describe) => r,
            e = deadline.expired() => Err(e),
        };
        match read {
            Ok(answer) => {
                answered += 1;
                let keep = answer.keep_alive;
                let x = Exchange {
                    intended: due,
                    sent,
                    done: Instant::now(),
                    answer,
                };
                ctx.collector.borrow_mut().push(Ok(x), measured);
                if !keep {
                    if answered == n {
                        return false;
                    }
                    // The server closed with pipelined requests unanswered.
                    failed = Some(RequestError::closed(true));
                }
            }
            Err(e) => failed = Some(e),
        }
    }
    let Some(e) = failed else {
        return true;
    };
    let kind = e.kind;
    let mut collector = ctx.collector.borrow_mut();
    collector.push(Err(e), measured);
    for _ in answered + 1..n {
        collector.push(Err(RequestError::abandoned(kind)), measured);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_shared_evenly() {
        let shares: Vec<Range<usize>> = (0..3).map(|t| share(10, 3, t)).collect();
        assert_eq!(shares, vec![0..4, 4..7, 7..10]);
        assert_eq!(share(1, 1, 0), 0..1);
    }

    fn plan(duration: Option<u64>, requests: Option<u64>, warmup_ms: u64) -> LoadPlan {
        let mut p = LoadPlan::new("http://127.0.0.1:9/").unwrap();
        p.duration = duration.map(Duration::from_secs);
        p.requests = requests;
        p.warmup = Duration::from_millis(warmup_ms);
        p
    }

    #[test]
    fn tickets_are_exact_and_shared() {
        let start = Instant::now();
        let stop = Stop::new(start, &plan(None, Some(5), 0), Arc::default());
        assert_eq!(stop.claim(start, 2), Claim::Go { n: 2, measured: true });
        assert_eq!(stop.claim(start, 2), Claim::Go { n: 2, measured: true });
        assert_eq!(stop.claim(start, 2), Claim::Go { n: 1, measured: true });
        assert_eq!(stop.claim(start, 2), Claim::Over);
        assert!(stop.is_over(start));
        // A count run still ends at the hard cap.
        assert_eq!(stop.end, start + HARD_CAP);
    }

    #[test]
    fn warmup_is_unmeasured_and_takes_no_tickets() {
        let start = Instant::now();
        let stop = Stop::new(start, &plan(Some(1), Some(1), 100), Arc::default());
        assert_eq!(
            stop.claim(start, 1),
            Claim::Go {
                n: 1,
                measured: false
            }
        );
        assert!(!stop.is_over(start));
        let later = start + Duration::from_millis(100);
        assert_eq!(stop.claim(later, 1), Claim::Go { n: 1, measured: true });
        assert_eq!(stop.claim(later, 1), Claim::Over);
        // The duration counts from the end of the warm-up.
        assert_eq!(stop.end, start + Duration::from_millis(1100));
        assert_eq!(
            Stop::new(start, &plan(Some(1), None, 100), Arc::default()).claim(stop.end, 1),
            Claim::Over
        );
    }

    #[test]
    fn cancel_stops_every_connection() {
        let start = Instant::now();
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = Stop::new(start, &plan(Some(10), None, 0), cancel.clone());
        assert_eq!(stop.claim(start, 1), Claim::Go { n: 1, measured: true });
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(stop.claim(start, 1), Claim::Over);
        assert!(stop.is_over(start));
    }
}
