/*!
The report of a load run: every figure, built once from the merged
collector, with the warnings that keep it honest. The human printer and the
JSON writer both read this struct; `fwbench bench` gets it from
[`execute`](super::execute).
*/

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::blocks::BlockStats;
use super::collector::{Collector, LATE_AFTER};
use super::cpu;
use super::error::ErrorKind;
use super::histogram::LatencyStats;
use super::plan::LoadPlan;
use super::segment::Segment;
use super::validate::MismatchKind;
use super::worker::RawRun;

/// A worker thread busier than this (CPU time / wall time) is reported as
/// near saturation: the figures may then describe the client, not the
/// server.
pub const SATURATION: f64 = 0.9;

/// Closed loop: a mean concurrency below this share of the requested one is
/// reported (connections failed, or time went to reconnecting).
pub const CONCURRENCY_SHORTFALL: f64 = 0.9;

/// The figures of one load run.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// Target URL as given.
    pub url: String,
    /// `"closed"` or `"open"` loop.
    pub mode: &'static str,
    /// Connections requested.
    pub connections: usize,
    /// Worker threads used.
    pub threads: usize,
    /// Pipeline depth.
    pub pipeline: u32,
    /// Open loop: requested requests per second.
    pub rate: Option<f64>,
    /// Planned measured duration, seconds.
    pub duration_s: Option<f64>,
    /// Planned measured request count.
    pub requests_planned: Option<u64>,
    /// Warm-up, seconds.
    pub warmup_s: f64,
    /// Per-request timeout, seconds.
    pub timeout_s: f64,
    /// Measured wall time, seconds (warm-up excluded).
    pub measured_s: f64,
    /// Complete responses received, any status.
    pub responses: u64,
    /// Responses that were 2xx and passed validation.
    pub successes: u64,
    /// Failed requests and connection attempts.
    pub errors_total: u64,
    /// Responses per second, any status.
    pub requests_per_sec: f64,
    /// Successful (2xx, validated) responses per second.
    pub successes_per_sec: f64,
    /// Response bytes read (heads and bodies as on the wire).
    pub bytes_read: u64,
    /// Response bytes per second.
    pub bytes_per_sec: f64,
    /// Latency: from the intended send time in open loop (corrected for
    /// coordinated omission), from the send in closed loop.
    pub latency: LatencyStats,
    /// Open loop only: latency from the actual send (uncorrected).
    pub service_time: Option<LatencyStats>,
    /// Responses by status code.
    pub status: BTreeMap<u16, u64>,
    /// Errors by kind (every kind listed).
    pub errors: BTreeMap<&'static str, u64>,
    /// The first error message of each kind seen.
    pub error_examples: BTreeMap<&'static str, String>,
    /// Validation mismatches by kind (every kind listed).
    pub mismatches: BTreeMap<&'static str, u64>,
    /// All validation mismatches.
    pub mismatches_total: u64,
    /// One described mismatch.
    pub mismatch_example: Option<String>,
    /// Open loop only: requests that went out late.
    pub late: Option<LateReport>,
    /// The generator's own resource use.
    pub client: ClientReport,
    /// Requested and achieved concurrency.
    pub concurrency: ConcurrencyReport,
    /// Outcomes excluded as warm-up.
    pub warmup_excluded: u64,
    /// Why the figures may not mean what they seem.
    pub warnings: Vec<String>,
    /// Whether the run had errors or validation mismatches (any unexpected
    /// status included), or was interrupted.
    pub flagged: bool,
    /// Whether the run was stopped early (Ctrl-C or SIGTERM).
    pub interrupted: bool,
    /// The part of a larger load this run was (`--segment K/N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<Segment>,
    /// The measured window on the wall clock: what `fwbench merge` lines
    /// runs on several machines up by.
    pub window: WallWindow,
    /// The latency histogram (µs) in HdrHistogram's own interchange form
    /// (V2 compressed, base64), so runs add up exactly (`fwbench merge`).
    pub histogram_hdr: String,
    /// The latency histogram (µs), for HDR output and merging.
    #[serde(skip)]
    pub histogram: Histogram<u64>,
    /// Latency per block of consecutive answers (`LoadPlan::blocks`);
    /// empty unless asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockStats>,
}

/// A measured window on the wall clock, in seconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WallWindow {
    /// When measuring began (the warm-up's end).
    pub start_unix_s: f64,
    /// When the last measured request was done.
    pub end_unix_s: f64,
}

impl WallWindow {
    /// The window between two instants of this process's monotonic clock.
    fn of(start: Instant, end: Instant) -> WallWindow {
        let (now, wall_now) = (Instant::now(), SystemTime::now());
        let unix = |at: Instant| {
            let wall = wall_now
                .checked_sub(now.saturating_duration_since(at))
                .unwrap_or(UNIX_EPOCH);
            wall.duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
        };
        WallWindow {
            start_unix_s: unix(start),
            end_unix_s: unix(end),
        }
    }
}

/// Open-loop send delays.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LateReport {
    /// A request counts as late past this delay, µs.
    pub threshold_us: u64,
    /// Requests sent late.
    pub count: u64,
    /// Mean delay of the late requests, µs.
    pub mean_us: f64,
    /// Largest delay of any request, µs.
    pub max_us: u64,
}

/// The load generator's own resource use.
#[derive(Debug, Clone, Serialize)]
pub struct ClientReport {
    /// Per worker thread.
    pub threads: Vec<ThreadCpu>,
    /// Whole process CPU time (user + system) during the run, seconds.
    pub process_cpu_s: f64,
    /// Process CPU time / wall time (1.0 = one CPU busy).
    pub process_cpu_per_wall: f64,
    /// Process CPU time per request sent (answered, failed or warm-up), µs:
    /// the client's own cost of one request, comparable across runs and
    /// tools whatever the throughput. A share near 1.0 with the server also
    /// busy says both were near their limit; this says how much headroom a
    /// faster server would find.
    pub cpu_us_per_request: f64,
    /// Peak resident set size of the process, KiB.
    pub peak_rss_kib: u64,
}

/// One worker thread's CPU use.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ThreadCpu {
    /// CPU time, seconds.
    pub cpu_s: f64,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// `cpu_s / wall_s`.
    pub utilization: f64,
    /// Connections the thread drove.
    pub connections: usize,
}

/// Requested and achieved concurrency.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ConcurrencyReport {
    /// Closed loop: connections × pipeline.
    pub requested: Option<f64>,
    /// Mean requests in flight (total service time / measured time).
    pub achieved: f64,
    /// Connections opened, reconnections included.
    pub connections_opened: u64,
    /// Connections that stopped after repeated connect failures.
    pub connections_gave_up: u64,
}

/// How a run ended, for the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every measured response passed validation, no errors.
    Clean,
    /// Figures were measured, but with errors, mismatches (an unexpected
    /// status included) or an interruption.
    Flagged,
    /// Not one response was measured.
    NothingMeasured,
}

impl LoadReport {
    /// How the run ended.
    pub fn verdict(&self) -> Verdict {
        if self.responses == 0 {
            Verdict::NothingMeasured
        } else if self.flagged {
            Verdict::Flagged
        } else {
            Verdict::Clean
        }
    }

    pub(crate) fn build(plan: &LoadPlan, raw: RawRun, usage_before: cpu::ProcessUsage) -> LoadReport {
        let usage = cpu::process_usage();
        let last = raw
            .threads
            .iter()
            .map(|t| t.finished)
            .max()
            .unwrap_or(raw.started);
        let measured = last
            .min(raw.stop_end)
            .saturating_duration_since(raw.stop_measure_start);
        let raw_window = (
            raw.stop_measure_start,
            last.min(raw.stop_end).max(raw.stop_measure_start),
        );
        let wall = last.saturating_duration_since(raw.started);
        let mut threads = Vec::new();
        let mut opened = 0;
        let mut gave_up = 0;
        let mut merged: Option<Collector> = None;
        for t in raw.threads {
            threads.push(ThreadCpu {
                cpu_s: t.cpu.as_secs_f64(),
                wall_s: t.wall.as_secs_f64(),
                utilization: ratio(t.cpu.as_secs_f64(), t.wall.as_secs_f64()),
                connections: t.connections,
            });
            opened += t.opened;
            gave_up += t.gave_up;
            match &mut merged {
                None => merged = Some(t.collector),
                Some(m) => m.merge(t.collector),
            }
        }
        let c = merged.unwrap_or_else(|| Collector::new(plan.is_open_loop(), Default::default()));
        let secs = measured.as_secs_f64();
        let per_sec = |n: u64| ratio(n as f64, secs);
        let errors_total: u64 = c.errors.iter().sum();
        let mismatches_total: u64 = c.mismatches.iter().sum();
        let requested = (!plan.is_open_loop()).then(|| (plan.connections * plan.pipeline as usize) as f64);
        let achieved = ratio(c.busy_us as f64, measured.as_micros() as f64);
        let late = c.service.as_ref().map(|_| LateReport {
            threshold_us: LATE_AFTER.as_micros() as u64,
            count: c.late.count,
            mean_us: ratio(c.late.total_us as f64, c.late.count as f64),
            max_us: c.late.max_us,
        });
        let process_cpu = usage.cpu.saturating_sub(usage_before.cpu);
        let mut report = LoadReport {
            url: plan.target.url.clone(),
            mode: if plan.is_open_loop() { "open" } else { "closed" },
            connections: plan.connections,
            threads: threads.len(),
            pipeline: plan.pipeline,
            rate: plan.rate,
            duration_s: plan.duration.map(|d| d.as_secs_f64()),
            requests_planned: plan.requests,
            warmup_s: plan.warmup.as_secs_f64(),
            timeout_s: plan.timeout.as_secs_f64(),
            measured_s: secs,
            responses: c.responses,
            successes: c.successes,
            errors_total,
            requests_per_sec: per_sec(c.responses),
            successes_per_sec: per_sec(c.successes),
            bytes_read: c.bytes,
            bytes_per_sec: per_sec(c.bytes),
            latency: LatencyStats::of(&c.latency),
            service_time: c.service.as_ref().map(LatencyStats::of),
            status: c
                .status
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(code, n)| (code as u16, *n))
                .collect(),
            errors: ErrorKind::ALL
                .iter()
                .map(|k| (k.name(), c.errors[*k as usize]))
                .collect(),
            error_examples: ErrorKind::ALL
                .iter()
                .filter_map(|k| c.error_examples[*k as usize].clone().map(|e| (k.name(), e)))
                .collect(),
            mismatches: MismatchKind::ALL
                .iter()
                .map(|k| (k.name(), c.mismatches[*k as usize]))
                .collect(),
            mismatches_total,
            mismatch_example: c.mismatch_example.clone(),
            late,
            client: ClientReport {
                threads,
                process_cpu_s: process_cpu.as_secs_f64(),
                process_cpu_per_wall: ratio(process_cpu.as_secs_f64(), wall.as_secs_f64()),
                cpu_us_per_request: ratio(
                    process_cpu.as_secs_f64() * 1e6,
                    (c.responses + errors_total + c.warmup) as f64,
                ),
                peak_rss_kib: usage.max_rss_kib,
            },
            concurrency: ConcurrencyReport {
                requested,
                achieved,
                connections_opened: opened,
                connections_gave_up: gave_up,
            },
            warmup_excluded: c.warmup,
            warnings: Vec::new(),
            // A non-2xx is never a success, but it flags the run only when
            // it was not expected (without --expect-status every non-2xx is
            // a status mismatch).
            flagged: errors_total > 0 || mismatches_total > 0,
            interrupted: false,
            segment: plan.segment,
            window: WallWindow::of(raw_window.0.into_std(), raw_window.1.into_std()),
            histogram_hdr: super::histogram::encode(&c.latency),
            blocks: c
                .blocks
                .as_ref()
                .map_or_else(Vec::new, |blocks| blocks.stats(raw.stop_measure_start)),
            histogram: c.latency,
        };
        report.warnings = warnings(&report, plan);
        report
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

fn warnings(r: &LoadReport, plan: &LoadPlan) -> Vec<String> {
    let mut w = Vec::new();
    if r.responses == 0 {
        w.push(if r.errors_total > 0 {
            "no response could be measured: every request failed (see the errors)".to_string()
        } else {
            "no response could be measured".to_string()
        });
    }
    for (i, t) in r.client.threads.iter().enumerate() {
        if t.utilization >= SATURATION {
            w.push(format!(
                "worker thread {i} was busy {:.0}% of the time: the load generator was near \
                 saturation, so the figures may be limited by the client; give it more CPUs \
                 and threads (-t), or fewer connections",
                t.utilization * 100.0
            ));
        }
    }
    if let Some(requested) = r.concurrency.requested {
        if r.responses > 0 && r.concurrency.achieved < requested * CONCURRENCY_SHORTFALL {
            w.push(format!(
                "achieved concurrency {:.1} is below the {requested:.0} requested \
                 (connections failed, or time went to reconnecting)",
                r.concurrency.achieved
            ));
        }
    }
    if r.concurrency.connections_gave_up > 0 {
        w.push(format!(
            "{} of {} connections stopped after {} failed connection attempts in a row",
            r.concurrency.connections_gave_up,
            r.connections,
            super::worker::MAX_CONNECT_FAILURES
        ));
    }
    if let (Some(rate), Some(late)) = (plan.rate, r.late) {
        if late.count > 0 && late.count * 100 >= r.responses.max(1) {
            w.push(format!(
                "{} requests ({:.1}%) went out more than {} late: the server (or the client) \
                 did not keep up with --rate {rate}",
                late.count,
                late.count as f64 * 100.0 / r.responses.max(1) as f64,
                crate::units::latency(late.threshold_us as f64),
            ));
        }
        if r.measured_s > 0.0 && r.requests_per_sec < rate * 0.9 {
            w.push(format!(
                "achieved {:.0} requests/s of the {rate} asked for",
                r.requests_per_sec
            ));
        }
    }
    let unsolicited = r.errors.get(ErrorKind::Unsolicited.name()).copied().unwrap_or(0);
    if unsolicited > 0 {
        w.push(format!(
            "{unsolicited} times the server sent bytes while no request was outstanding: its \
             answers cannot be matched to requests, so its req/s and latency are not to be \
             trusted; the run is flagged"
        ));
    }
    if r.mismatches_total > 0 {
        w.push(format!(
            "{} responses failed validation; the run is flagged",
            r.mismatches_total
        ));
    }
    w
}
