//! One measurement of a row: the scenario's request as a load plan, run
//! with every response validated, turned into a report round with how busy
//! each side was (the load generator's CPU share from its own report, the
//! server's from its CPU time before and after), so the report can tell a
//! row the client held back.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::cpus::allowed_cpus;
use super::plan::BenchPlan;
use super::server::ServerProcess;
use crate::load::{self, ExpectHeader, Expectations, LoadPlan, LoadReport, RequestSpec};
use crate::report::Round;
use crate::scenario::ScenarioInfo;

/// Warm-up, then the plan's duration of closed-loop load on `addr` with
/// `threads` load threads; stops early (the report says so) on `cancel`.
pub fn measure(
    addr: SocketAddr,
    info: &ScenarioInfo,
    plan: &BenchPlan,
    threads: usize,
    cancel: &Arc<AtomicBool>,
) -> anyhow::Result<LoadReport> {
    let url = format!("http://{addr}{}", info.request.path);
    let mut load = LoadPlan::new(&url)?;
    load.request = RequestSpec {
        method: info.request.method.clone(),
        headers: info.request.headers.clone(),
        body: info.request.body.clone().unwrap_or_default().into_bytes(),
    };
    load.connections = plan.connections;
    load.threads = threads;
    load.duration = Some(plan.duration);
    load.warmup = plan.warmup;
    load.progress = false;
    let expect = &info.expect;
    let mut headers: Vec<ExpectHeader> = expect
        .headers
        .iter()
        .map(|(name, value)| ExpectHeader {
            name: name.clone(),
            value: Some(value.clone()),
        })
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
    Ok(load::execute_until(&load, cancel.clone())?)
}

/// The server's CPU time at the start of a measurement, to take its share
/// of the cores over the measurement at the end.
pub struct ServerCpuClock {
    cpu: Option<Duration>,
    started: Instant,
}

impl ServerCpuClock {
    /// Reads `server`'s CPU time now.
    pub fn start(server: &ServerProcess) -> ServerCpuClock {
        ServerCpuClock {
            cpu: server.cpu_time(),
            started: Instant::now(),
        }
    }

    /// The share of `cores` that `server` used since [`ServerCpuClock::start`]
    /// (1.0: every core it could use busy all the time); `None` when its
    /// CPU time could not be read at either end.
    pub fn share(&self, server: &ServerProcess, cores: usize) -> Option<f64> {
        let used = server.cpu_time()?.checked_sub(self.cpu?)?;
        cpu_share(used, self.started.elapsed(), cores)
    }
}

/// `used / (wall × cores)`, or `None` for no wall time or no cores.
fn cpu_share(used: Duration, wall: Duration, cores: usize) -> Option<f64> {
    let capacity = wall.as_secs_f64() * cores as f64;
    (capacity > 0.0).then(|| used.as_secs_f64() / capacity)
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
/// CPU share per thread of its `load_threads`, and the server's share
/// `server_cpu` (from [`ServerCpuClock`]).
pub fn to_round(
    measured: &LoadReport,
    expected_status: u16,
    load_threads: usize,
    server_cpu: Option<f64>,
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
        server_cpu,
        concurrency_achieved: Some(measured.concurrency.achieved),
        ..Round::new(
            measured.measured_s,
            measured.responses,
            successes,
            latency.percentiles,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_cpu_time_over_wall_time_times_cores() {
        let second = Duration::from_secs(1);
        assert_eq!(cpu_share(second / 2, second, 1), Some(0.5));
        assert_eq!(cpu_share(second, second * 2, 2), Some(0.25));
        assert_eq!(cpu_share(second, Duration::ZERO, 1), None);
        assert_eq!(cpu_share(second, second, 0), None);
    }
}
