//! One measurement of a row: the scenario's request as a load plan, run
//! with every response validated, turned into a report round with how busy
//! each side was (the load generator's CPU share from its own report, the
//! server's, and how long it waited for a CPU, from [`super::cpu_time`]), so
//! the report can tell a row the client held back, or a round a busy
//! machine held back.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::cpu_time::{RoundClock, RoundCpu};
use super::cpus::allowed_cpus;
use super::cpus::CpuSets;
use super::plan::BenchPlan;
use super::server::ServerProcess;
use crate::adapter::{LatencyTail, ServerSnapshot};
use crate::engine::HeapSnapshot;
use crate::load::{self, ExpectHeader, Expectations, LoadPlan, LoadReport, RequestSpec, WindowEdge};
use crate::report::cost::{HeapCost, RequestCost, ServerTime};
use crate::report::Round;
use crate::scenario::ScenarioInfo;

/// How one measurement sends its load: for how long (after an unmeasured
/// warm-up) and at what rate.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Load before the measured window, not counted.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
    /// Open loop at this many requests/s (latency from each request's due
    /// time), or closed loop (`None`: each connection sends when answered).
    pub rate: Option<f64>,
    /// Keep-alive connections.
    pub connections: usize,
    /// Send this many requests instead of loading for `duration`.
    pub requests: Option<u64>,
    /// Record latency per block of this many answers (a warm-up curve).
    pub blocks: Option<u64>,
}

impl Pace {
    /// A bench round: the plan's warm-up and duration, closed loop.
    pub fn of_round(plan: &BenchPlan) -> Pace {
        Pace {
            warmup: plan.warmup,
            duration: plan.duration,
            rate: None,
            connections: plan.connections,
            requests: None,
            blocks: None,
        }
    }
}

/// Warm-up, then `pace`'s duration of load on `addr` with `threads` load
/// threads; stops early (the report says so) on
/// `cancel`. `window` is called at each edge of the measured window.
pub fn measure(
    addr: SocketAddr,
    info: &ScenarioInfo,
    plan: &BenchPlan,
    pace: Pace,
    threads: usize,
    cancel: &Arc<AtomicBool>,
    window: &mut dyn FnMut(WindowEdge),
) -> anyhow::Result<LoadReport> {
    let url = format!("http://{addr}{}", info.request.path);
    // The server host's address is one the user named (--server-host).
    let allowed: Vec<_> = plan
        .server_machine
        .iter()
        .map(|host| host.address.into())
        .collect();
    let mut load = LoadPlan::new_allowing(&url, &allowed)?;
    load.request = RequestSpec {
        method: info.request.method.clone(),
        headers: info.request.headers.clone(),
        body: info.request.body.clone().unwrap_or_default().into_bytes(),
    };
    load.connections = pace.connections;
    load.threads = threads;
    load.duration = pace.requests.is_none().then_some(pace.duration);
    load.requests = pace.requests;
    load.blocks = pace.blocks;
    load.warmup = pace.warmup;
    load.rate = pace.rate;
    load.progress = false;
    let expect = &info.expect;
    let mut headers: Vec<ExpectHeader> = expect
        .headers
        .iter()
        .map(|(name, value)| ExpectHeader {
            name: name.clone(),
            value: Some(value.clone()),
        })
        .chain(expect.headers_present.iter().map(|name| ExpectHeader {
            name: name.clone(),
            value: None,
        }))
        .collect();
    if expect.content_type.is_some() {
        // Validated by media type before load; during load, its presence.
        headers.push(ExpectHeader {
            name: "content-type".into(),
            value: None,
        });
    }
    load.expect = Expectations {
        status: Some(expect.status),
        headers,
        body: expect.body.clone().map(String::into_bytes),
    };
    Ok(load::execute_observed(&load, cancel.clone(), window)?)
}

/// How many cores a row server can keep busy: one per worker, at most the
/// size of its CPU set (of every CPU this process may use when the servers
/// are not pinned).
pub fn server_cores(plan: &BenchPlan) -> usize {
    let set = plan.cpus.for_servers();
    let available = if set.is_empty() {
        allowed_cpus().len()
    } else {
        set.len()
    };
    plan.workers.min(available).max(1)
}

/// A measurement as a report round. A success is a validated answer: for
/// the usual 2xx expectation the load generator's own count; for a
/// scenario that expects another status (say 404), every answer that
/// passed validation, and only other statuses count against the row.
///
/// The round also records how busy each side was: the load generator's
/// CPU share per thread of its `load_threads`, and from `cpu` the server's
/// shares of running and of waiting for a CPU.
pub fn to_round(
    measured: &LoadReport,
    expected_status: u16,
    load_threads: usize,
    cpu: RoundCpu,
    server: ServerWindow,
) -> Round {
    let latency = &measured.latency;
    let expects_2xx = (200..300).contains(&expected_status);
    let successes = if expects_2xx {
        measured.successes
    } else {
        measured.responses.saturating_sub(measured.mismatches_total)
    };
    let non_2xx = measured
        .status
        .iter()
        .filter(|(code, _)| {
            if expects_2xx {
                !(200..300).contains(*code)
            } else {
                **code != expected_status
            }
        })
        .map(|(_, n)| n)
        .sum();
    Round {
        errors: measured.errors_total,
        non_2xx,
        mismatches: measured.mismatches_total,
        client_cpu: Some(measured.client.process_cpu_per_wall / load_threads.max(1) as f64),
        server_cpu: cpu.busy,
        server_wait: cpu.waiting,
        concurrency_achieved: Some(measured.concurrency.achieved),
        rss_mib: server.rss_mib,
        cost: request_cost(measured, &cpu, server),
        ..Round::new(
            measured.measured_s,
            measured.responses,
            successes,
            latency.percentiles,
        )
    }
}

/// What each answered request of the round cost: the server's CPU time
/// over the window (user and kernel), the client's, and the heap's side
/// and the time in the server when the server reported them. `None`
/// without the server's clocks or without answers.
fn request_cost(measured: &LoadReport, cpu: &RoundCpu, server: ServerWindow) -> Option<RequestCost> {
    let used = cpu.used?;
    let answered = measured.responses;
    if answered == 0 {
        return None;
    }
    let per_request_us = |time: std::time::Duration| time.as_secs_f64() * 1e6 / answered as f64;
    let server_time = used.user + used.system;
    let heap = server.heap.map(|heap| {
        let gc_ns = heap.young_gc_ns + heap.full_gc_ns;
        HeapCost {
            bytes_per_request: heap.allocated_bytes as f64 / answered as f64,
            gc_us: gc_ns as f64 / 1e3 / answered as f64,
            gc_share: if server_time.is_zero() {
                0.0
            } else {
                gc_ns as f64 / 1e9 / server_time.as_secs_f64()
            },
            young_gcs: heap.young_gcs,
            full_gcs: heap.full_gcs,
            longest_pause_us: heap.longest_pause_ns as f64 / 1e3,
        }
    });
    Some(RequestCost {
        server_user_us: per_request_us(used.user),
        server_system_us: per_request_us(used.system),
        client_us: Some(measured.client.cpu_us_per_request).filter(|us| us.is_finite()),
        heap,
        server_time: server.tail.map(|tail| ServerTime {
            p50_us: tail.p50_ns as f64 / 1e3,
            p99_us: tail.p99_ns as f64 / 1e3,
            slower_than_p99: tail.slower,
            tail_in_gc: tail.tail_gc_share(),
            all_in_gc: tail.gc_share(),
        }),
    })
}

/// What the row server's telemetry said about one round's window.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerWindow {
    /// Allocation and GC in the window.
    pub heap: Option<HeapSnapshot>,
    /// The window's requests timed in the server.
    pub tail: Option<LatencyTail>,
    /// Its resident set at the window's end (connections still open), MiB.
    pub rss_mib: Option<f64>,
}

impl ServerWindow {
    /// The window between two snapshots of the server's cumulative figures.
    fn between(start: &ServerSnapshot, end: &ServerSnapshot) -> ServerWindow {
        ServerWindow {
            heap: start.heap.zip(end.heap).map(|(start, end)| end.since(&start)),
            tail: start
                .latency
                .as_ref()
                .zip(end.latency.as_ref())
                .and_then(|(start, end)| end.tail_since(start)),
            rss_mib: None,
        }
    }
}

/// The server's clocks and counters at the edges of one round's window.
pub struct RoundWindow<'a> {
    server: &'a mut ServerProcess,
    cpus: &'a CpuSets,
    cores: usize,
    clock: Option<RoundClock>,
    at_start: Option<ServerSnapshot>,
    cpu: Option<RoundCpu>,
    figures: ServerWindow,
}

impl<'a> RoundWindow<'a> {
    /// A window on `server`, pinned as `cpus` says, over `cores` cores.
    pub fn new(server: &'a mut ServerProcess, cpus: &'a CpuSets, cores: usize) -> Self {
        RoundWindow {
            server,
            cpus,
            cores,
            clock: None,
            at_start: None,
            cpu: None,
            figures: ServerWindow::default(),
        }
    }

    /// Reads the clocks at `edge`.
    pub fn mark(&mut self, edge: WindowEdge) {
        // A server on another host has no /proc here: no CPU figures.
        let Some(pid) = self.server.local_pid() else {
            return;
        };
        match edge {
            WindowEdge::Start => {
                self.clock = Some(RoundClock::start(pid, self.cpus));
                self.at_start = self.server.telemetry();
            }
            WindowEdge::End => {
                self.cpu = self.clock.as_ref().map(|clock| clock.stop(pid, self.cores));
                let now = self.server.telemetry();
                if let Some((start, now)) = self.at_start.as_ref().zip(now.as_ref()) {
                    self.figures = ServerWindow::between(start, now);
                }
                self.figures.rss_mib = super::memory::resident(pid).map(|r| r.now_mib);
            }
        }
    }

    /// The round's CPU shares and the server's figures (empty when a
    /// window edge was never reached).
    pub fn finish(self) -> (RoundCpu, ServerWindow) {
        let cpu = self.cpu.unwrap_or(RoundCpu {
            busy: None,
            waiting: None,
            used: None,
        });
        (cpu, self.figures)
    }
}
