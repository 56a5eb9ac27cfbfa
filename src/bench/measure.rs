//! One measurement of a row: the scenario's request as a load plan, run
//! with every response validated, turned into a report round with how busy
//! each side was (the load generator's CPU share from its own report, the
//! server's, and how long it waited for a CPU, from [`super::cpu_time`]), so
//! the report can tell a row the client held back, or a round a busy
//! machine held back.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::cpu_time::RoundCpu;
use super::cpus::allowed_cpus;
use super::plan::BenchPlan;
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
pub fn to_round(measured: &LoadReport, expected_status: u16, load_threads: usize, cpu: RoundCpu) -> Round {
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
        ..Round::new(
            measured.measured_s,
            measured.responses,
            successes,
            latency.percentiles,
        )
    }
}
