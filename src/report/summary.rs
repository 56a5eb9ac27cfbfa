/*!
Figures derived from a [`BenchReport`]: medians over rounds, ranks, the
ratio to the native hyper row, and each framework's `mw vs hello`.

They are computed on demand ([`Summary::of`]) and never stored in the
report itself, so they cannot drift from the rounds they come from. The
JSON writer adds them beside the figures they come from (each row's in
the row) for readers who do not want to recompute them.

Rules (the same in every writer):
- Throughput is `rps_ok` (valid 2xx answers per second); a row's figure is
  the median over its rounds, with the min and max beside it. Medians, not
  means: the reference's single cells wobble up to ±10 % run to run, and a
  median of interleaved rounds shrugs off one disturbed round.
- A failed row, or one with no rounds, gets no rank, no ratio and no
  `mw vs hello`; it is listed after the ranked rows.
- Ranks are per scenario, by median throughput, highest first; equal
  medians share a rank (1, 2, 2, 4).
- The ratio to hyper divides the row's median by the median of the native
  `hyper` row of the same scenario.
- `mw vs hello` is `(mw - hello) / hello` in percent, from the two medians
  of the same framework (the reference's last column).
- A row is *client-bound* when, in the medians over its rounds, the load
  generator used more than [`CLIENT_BUSY`] (80 %) of its CPU set while the
  server used less than [`SERVER_BUSY`] (90 %) of the cores it could use:
  the server had headroom and the client had none, so the row's req/s is a
  lower bound of what the server can do, not its figure. Writers mark such
  a row with `‡`. A row whose rounds lack either share (reports written
  before they were recorded) is not client-bound: nothing says it was.
- A row was *held back* when, in the median over its rounds, its server
  spent more than [`SERVER_WAITED`] (10 %) of the round ready to run but
  waiting for a CPU that other processes held (waits behind its own
  threads do not count) or that the hypervisor took (steal time). [`held_back_warning`] says so, naming the
  rows, and every writer prints it with the run's other warnings: those
  figures are lower and noisier than on a quiet machine.
*/

use serde::Serialize;

use super::cost::{HeapCost, InRuntimeCost, RequestCost, ServerTime};
use super::model::{BenchReport, Row, RowKind, StartupSplit};

/// The native row every other row is divided by.
pub const BASELINE: &str = "hyper";
/// The middleware-free scenario of the `mw vs hello` column.
pub const HELLO: &str = "hello";
/// The five-link middleware scenario of the `mw vs hello` column.
pub const MW: &str = "mw";
/// A load generator busier than this share of its CPU set (median over a
/// row's rounds) may have set the pace instead of the server. Well below 1:
/// the share is a mean over the round, and a load thread that is busy most
/// of the time already delays answers that wait for it to be read.
pub const CLIENT_BUSY: f64 = 0.8;
/// A server using less than this share of the cores it could use (median
/// over a row's rounds) still had headroom: it was not what set the pace.
pub const SERVER_BUSY: f64 = 0.9;
/// A server waiting for a CPU more than this share of a round (median over
/// a row's rounds) was held back. On a quiet machine it waits well under
/// 1 %.
pub const SERVER_WAITED: f64 = 0.1;

/// Median, min and max of a set of values (one per round).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// Median; for an even count, the mean of the two middle values.
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`, or `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Spread {
            median: median_of_sorted(&sorted)?,
            min: *sorted.first()?,
            max: *sorted.last()?,
        })
    }

    /// Whether the ranges [min, max] of the two spreads share any value.
    pub fn overlaps(&self, other: &Spread) -> bool {
        self.min <= other.max && other.min <= self.max
    }
}

/// The median of `values`: the middle one, or the mean of the two middle
/// ones for an even count; `None` for no values.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    median_of_sorted(&sorted)
}

fn median_of_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        None
    } else if n % 2 == 1 {
        Some(sorted[n / 2])
    } else {
        Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0)
    }
}

/// Derived figures of one row. Written into its row of the JSON report,
/// so the row's identity and status are not repeated there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowSummary {
    /// Framework name.
    #[serde(skip)]
    pub framework: String,
    /// Scenario name.
    #[serde(skip)]
    pub scenario: String,
    /// JS or native.
    #[serde(skip)]
    pub kind: RowKind,
    /// The failure reason, if the row failed.
    #[serde(skip)]
    pub failure: Option<String>,
    /// Seconds from starting the row's server to its first validated
    /// answer, as measured (not a median: a row starts once).
    pub startup_s: Option<f64>,
    /// Where that start-up went (a JS row whose server said).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_split: Option<StartupSplit>,
    /// Number of rounds measured.
    pub rounds: usize,
    /// Median, min and max of `rps_ok` over the rounds; `None` without
    /// rounds.
    pub rps_ok: Option<Spread>,
    /// Median over the rounds of the round's p50 latency, µs.
    pub p50_us: Option<f64>,
    /// Median over the rounds of the round's p99 latency, µs.
    pub p99_us: Option<f64>,
    /// Transport errors, summed over the rounds.
    pub errors: u64,
    /// Non-2xx answers, summed over the rounds.
    pub non_2xx: u64,
    /// Validation mismatches, summed over the rounds.
    pub mismatches: u64,
    /// Median throughput divided by that of the native hyper row of the same
    /// scenario; `None` when either is failed or missing.
    pub ratio_to_hyper: Option<f64>,
    /// 1-based rank within the scenario by median throughput; `None` for a
    /// failed row or one without rounds.
    pub rank: Option<usize>,
    /// Median over the rounds of the load generator's CPU share of its CPU
    /// set (0 to 1); `None` when no round recorded it.
    pub client_cpu: Option<f64>,
    /// Median over the rounds of the server's CPU share of the cores it
    /// could use (0 to 1); `None` when no round recorded it.
    pub server_cpu: Option<f64>,
    /// Whether the client, not the server, set the pace (the rule in the
    /// module doc): the row's req/s is then a lower bound.
    pub client_bound: bool,
    /// Median over the rounds of the server's share of waiting for a CPU;
    /// `None` when no round recorded it.
    pub server_wait: Option<f64>,
    /// What a request cost (anatomy.rs), medians over the rounds; `None`
    /// when no round recorded it.
    pub cost: Option<CostSummary>,
    /// The row's cost without the transport (JS rows).
    #[serde(skip)]
    pub in_runtime: Option<InRuntimeCost>,
}

impl RowSummary {
    /// Summarizes one row (rank and ratio are filled by [`Summary::of`]).
    fn of(row: &Row) -> RowSummary {
        let rps: Vec<f64> = row.rounds.iter().map(|r| r.rps_ok).collect();
        let p50: Vec<f64> = row.rounds.iter().map(|r| r.latency_us.p50 as f64).collect();
        let p99: Vec<f64> = row.rounds.iter().map(|r| r.latency_us.p99 as f64).collect();
        let client: Vec<f64> = row.rounds.iter().filter_map(|r| r.client_cpu).collect();
        let server: Vec<f64> = row.rounds.iter().filter_map(|r| r.server_cpu).collect();
        let waits: Vec<f64> = row.rounds.iter().filter_map(|r| r.server_wait).collect();
        let (client_cpu, server_cpu) = (median(&client), median(&server));
        RowSummary {
            framework: row.framework.clone(),
            scenario: row.scenario.clone(),
            kind: row.kind,
            failure: row.failure().map(str::to_owned),
            startup_s: row.startup_s,
            startup_split: row.startup_split,
            rounds: row.rounds.len(),
            rps_ok: Spread::of(&rps),
            p50_us: median(&p50),
            p99_us: median(&p99),
            errors: row.rounds.iter().map(|r| r.errors).sum(),
            non_2xx: row.rounds.iter().map(|r| r.non_2xx).sum(),
            mismatches: row.rounds.iter().map(|r| r.mismatches).sum(),
            ratio_to_hyper: None,
            rank: None,
            client_cpu,
            server_cpu,
            client_bound: client_bound(client_cpu, server_cpu),
            server_wait: median(&waits),
            cost: CostSummary::of(row),
            in_runtime: row.in_runtime.clone(),
        }
    }

    /// Requests that did not succeed over all rounds: errors, non-2xx and
    /// mismatches.
    pub fn failures(&self) -> u64 {
        self.errors + self.non_2xx + self.mismatches
    }

    /// The median client and server CPU shares of a row whose figure is
    /// shown marked: client-bound, ok and with rounds.
    pub fn client_bound_shares(&self) -> Option<(f64, f64)> {
        if !self.client_bound {
            return None;
        }
        self.comparable_rps()?;
        Some((self.client_cpu?, self.server_cpu?))
    }

    /// The median throughput of a row that takes part in comparisons: ok
    /// and with at least one round.
    pub fn comparable_rps(&self) -> Option<f64> {
        match self.failure {
            Some(_) => None,
            None => self.rps_ok.map(|s| s.median),
        }
    }
}

/// The client-bound rule on a row's two median shares: the client busy,
/// the server not; never when either share is unknown.
fn client_bound(client_cpu: Option<f64>, server_cpu: Option<f64>) -> bool {
    match (client_cpu, server_cpu) {
        (Some(client), Some(server)) => client > CLIENT_BUSY && server < SERVER_BUSY,
        _ => false,
    }
}

/// The run-level warning for rows a busy machine held back (the rule in
/// the module doc), naming them; `None` when none was.
pub fn held_back_warning(report: &BenchReport) -> Option<String> {
    let held_back: Vec<(String, f64)> = report
        .rows
        .iter()
        .filter_map(|row| {
            let wait = RowSummary::of(row).server_wait?;
            (wait > SERVER_WAITED).then(|| (format!("{} × {}", row.framework, row.scenario), wait))
        })
        .collect();
    let most = held_back.iter().map(|(_, wait)| *wait).fold(0.0, f64::max);
    let rows = match held_back.len() {
        0 => return None,
        n if n == report.rows.len() => "every row".to_owned(),
        _ => held_back
            .iter()
            .map(|(row, _)| row.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    };
    Some(format!(
        "the server waited for a CPU up to {:.0}% of the time (median over a row's rounds; {rows}): \
         other processes on its CPUs, or the hypervisor (steal time), held it back, so those figures \
         are lower and noisier than on a quiet machine",
        most * 100.0
    ))
}

/// Answers in a round past which a server that answered them must have
/// used some CPU: at 1 µs a request (a fifth of the fastest row here),
/// 10,000 answers are 10 ms, one tick of the /proc clock.
pub const IDLE_SERVER_ANSWERS: u64 = 10_000;

/// The run-level warning for rows whose server used no CPU in a round in
/// which at least [`IDLE_SERVER_ANSWERS`] answers came back: the answers
/// came from somewhere else than the row's server process, so its figures
/// are not the row's. `None` when no row is such.
pub fn idle_server_warning(report: &BenchReport) -> Option<String> {
    let idle: Vec<String> = report
        .rows
        .iter()
        .filter(|row| {
            row.rounds.iter().any(|round| {
                round.successes >= IDLE_SERVER_ANSWERS
                    && round.cost.is_some_and(|cost| cost.server_us() == 0.0)
            })
        })
        .map(|row| format!("{} × {}", row.framework, row.scenario))
        .collect();
    (!idle.is_empty()).then(|| {
        format!(
            "the server process used no CPU while its answers came back ({}): something else answered, \
             so those figures are not the row's",
            idle.join(", ")
        )
    })
}

/// The run-level warning for JS rows whose in-runtime cost (their request
/// served inside the runtime, no socket) is above their server's whole CPU
/// per request, which includes it: the app behaved otherwise without the
/// transport (an app can tell the two apart and, say, spin only there), so
/// its in-runtime figure is not its cost. `None` when no row is such.
pub fn in_runtime_warning(report: &BenchReport) -> Option<String> {
    let above: Vec<String> = report
        .rows
        .iter()
        .filter_map(|row| {
            let in_runtime = row.in_runtime.as_ref()?.cpu_us;
            let server = CostSummary::of(row)?.server_us();
            (in_runtime > server).then(|| {
                format!(
                    "{} × {}: {in_runtime:.2} µs against {server:.2}",
                    row.framework, row.scenario
                )
            })
        })
        .collect();
    (!above.is_empty()).then(|| {
        format!(
            "the in-runtime cost is above the server's whole CPU per request, which includes it ({}): the \
             app ran otherwise without the socket, so that figure is not its cost",
            above.join("; ")
        )
    })
}

/// Derived figures of one framework across scenarios.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameworkSummary {
    /// Framework name.
    pub framework: String,
    /// JS or native (from its first row).
    pub kind: RowKind,
    /// `(mw - hello) / hello` in percent, from the medians; `None` when
    /// either row is missing, failed or without rounds.
    pub mw_vs_hello_pct: Option<f64>,
    /// What the chain adds to each request, in µs of the server's time:
    /// `1e6/mw - 1e6/hello` from the medians (one worker serves requests
    /// one at a time, so the inverse throughput is its time per request).
    /// Unlike the percentage, it does not depend on the framework's floor.
    pub mw_cost_us: Option<f64>,
}

/// Every derived figure of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Scenarios in report order (listed ones first, then any that only
    /// appear in rows).
    pub scenarios: Vec<String>,
    /// Frameworks in report order (same rule).
    pub frameworks: Vec<String>,
    /// The largest number of rounds any row has.
    pub max_rounds: usize,
    /// One per report row, in the report's row order.
    pub rows: Vec<RowSummary>,
    /// One per framework, in framework order.
    pub by_framework: Vec<FrameworkSummary>,
}

impl Summary {
    /// Computes every derived figure of `report`.
    pub fn of(report: &BenchReport) -> Summary {
        let scenarios = in_order(&report.scenarios, report.rows.iter().map(|r| &r.scenario));
        let frameworks = in_order(&report.frameworks, report.rows.iter().map(|r| &r.framework));
        let mut rows: Vec<RowSummary> = report.rows.iter().map(RowSummary::of).collect();

        for scenario in &scenarios {
            let baseline = rows
                .iter()
                .find(|r| &r.scenario == scenario && r.framework == BASELINE && r.kind == RowKind::Native)
                .and_then(RowSummary::comparable_rps)
                .filter(|&rps| rps > 0.0);
            let figures: Vec<f64> = rows
                .iter()
                .filter(|r| &r.scenario == scenario)
                .filter_map(RowSummary::comparable_rps)
                .collect();
            for row in rows.iter_mut().filter(|r| &r.scenario == scenario) {
                let Some(rps) = row.comparable_rps() else {
                    continue;
                };
                row.rank = Some(1 + figures.iter().filter(|&&other| other > rps).count());
                row.ratio_to_hyper = baseline.map(|base| rps / base);
            }
        }

        let by_framework = frameworks
            .iter()
            .map(|framework| {
                let medians = |scenario: &str| {
                    rows.iter()
                        .find(|r| &r.framework == framework && r.scenario == scenario)
                        .and_then(RowSummary::comparable_rps)
                };
                let kind = rows
                    .iter()
                    .find(|r| &r.framework == framework)
                    .map_or(RowKind::Js, |r| r.kind);
                let (mw_vs_hello_pct, mw_cost_us) = match (medians(HELLO), medians(MW)) {
                    (Some(hello), Some(mw)) if hello > 0.0 && mw > 0.0 => {
                        (Some((mw - hello) / hello * 100.0), Some(1e6 / mw - 1e6 / hello))
                    }
                    _ => (None, None),
                };
                FrameworkSummary {
                    framework: framework.clone(),
                    kind,
                    mw_vs_hello_pct,
                    mw_cost_us,
                }
            })
            .collect();

        Summary {
            max_rounds: rows.iter().map(|r| r.rounds).max().unwrap_or(0),
            scenarios,
            frameworks,
            rows,
            by_framework,
        }
    }

    /// The summary of `framework` × `scenario`, if that row exists.
    pub fn row(&self, framework: &str, scenario: &str) -> Option<&RowSummary> {
        self.rows
            .iter()
            .find(|r| r.framework == framework && r.scenario == scenario)
    }

    /// The rows of `scenario`, ranked first (by rank), then the rows without
    /// a rank (failed or without rounds) in report order.
    pub fn ranked(&self, scenario: &str) -> Vec<&RowSummary> {
        let mut rows: Vec<&RowSummary> = self.rows.iter().filter(|r| r.scenario == scenario).collect();
        // Stable sort: equal ranks and unranked rows keep report order.
        rows.sort_by_key(|r| r.rank.unwrap_or(usize::MAX));
        rows
    }

    /// The framework summary of `framework`, if it exists.
    pub fn framework(&self, framework: &str) -> Option<&FrameworkSummary> {
        self.by_framework.iter().find(|f| f.framework == framework)
    }

    /// Whether the report has both a `hello` and an `mw` scenario, so the
    /// `mw vs hello` column means something.
    pub fn has_mw_vs_hello(&self) -> bool {
        self.scenarios.iter().any(|s| s == HELLO) && self.scenarios.iter().any(|s| s == MW)
    }
}

/// `listed` first, then every name of `seen` that is not listed yet, each
/// once, in order of first appearance.
fn in_order<'a>(listed: &'a [String], seen: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in listed.iter().chain(seen) {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// A row's cost: the median of each figure over its rounds (each median on
/// its own, so the figures need not come from one round).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CostSummary {
    /// Server user µs per request.
    pub server_user_us: f64,
    /// Server kernel µs per request.
    pub server_system_us: f64,
    /// Client µs per request.
    pub client_us: Option<f64>,
    /// Heap figures, when every round had them.
    pub heap: Option<HeapCost>,
    /// Time in the server, when every round had it.
    pub server_time: Option<ServerTime>,
}

impl CostSummary {
    /// The medians over `row`'s rounds that recorded a cost; `None` when
    /// none did.
    pub fn of(row: &Row) -> Option<CostSummary> {
        let costs: Vec<&RequestCost> = row.rounds.iter().filter_map(|r| r.cost.as_ref()).collect();
        let of = |f: &dyn Fn(&RequestCost) -> Option<f64>| {
            median(&costs.iter().filter_map(|c| f(c)).collect::<Vec<_>>())
        };
        let heaps: Vec<&HeapCost> = costs.iter().filter_map(|c| c.heap.as_ref()).collect();
        let heap_of = |f: &dyn Fn(&HeapCost) -> f64| median(&heaps.iter().map(|h| f(h)).collect::<Vec<_>>());
        let heap = (!heaps.is_empty() && heaps.len() == costs.len()).then(|| HeapCost {
            bytes_per_request: heap_of(&|h| h.bytes_per_request).unwrap_or(0.0),
            gc_us: heap_of(&|h| h.gc_us).unwrap_or(0.0),
            gc_share: heap_of(&|h| h.gc_share).unwrap_or(0.0),
            young_gcs: heap_of(&|h| h.young_gcs as f64).unwrap_or(0.0).round() as u64,
            full_gcs: heap_of(&|h| h.full_gcs as f64).unwrap_or(0.0).round() as u64,
            longest_pause_us: heaps.iter().map(|h| h.longest_pause_us).fold(0.0, f64::max),
        });
        let times: Vec<&ServerTime> = costs.iter().filter_map(|c| c.server_time.as_ref()).collect();
        let time_of = |f: &dyn Fn(&ServerTime) -> Option<f64>| {
            median(&times.iter().filter_map(|t| f(t)).collect::<Vec<_>>())
        };
        let server_time = (!times.is_empty() && times.len() == costs.len()).then(|| ServerTime {
            p50_us: time_of(&|t| Some(t.p50_us)).unwrap_or(0.0),
            p99_us: time_of(&|t| Some(t.p99_us)).unwrap_or(0.0),
            slower_than_p99: times.iter().map(|t| t.slower_than_p99).sum(),
            tail_in_gc: time_of(&|t| t.tail_in_gc),
            all_in_gc: time_of(&|t| t.all_in_gc),
        });
        Some(CostSummary {
            server_user_us: of(&|c| Some(c.server_user_us))?,
            server_system_us: of(&|c| Some(c.server_system_us))?,
            client_us: of(&|c| c.client_us),
            heap,
            server_time,
        })
    }

    /// Server user plus kernel µs per request.
    pub fn server_us(&self) -> f64 {
        self.server_user_us + self.server_system_us
    }
}

#[cfg(test)]
mod tests;
