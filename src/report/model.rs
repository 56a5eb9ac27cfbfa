/*!
The results of one `fwbench bench` run, as the orchestrator fills them and
as `--json` writes them.

Everything here is *measured or given*; nothing is derived. Medians, ranks,
ratios to hyper and `mw vs hello` are computed from these figures by
[`crate::report::summary`], so a figure is never stored twice and cannot
disagree with itself.

Filling a report round by round:

```
use fwbench::report::{BenchReport, Percentiles, Round, RowKind};
# let (tool, machine, pinning) = Default::default();
let mut report = BenchReport::new(tool, machine, pinning, serde_json::json!({"rounds": 3}), "2026-09-30T10:00:00Z");
let latency = Percentiles { mean: 95.0, stdev: 12.0, p50: 90, p90: 120, p99: 180, p999: 400, p9999: 900, max: 1500 };
// One round of one row: 5 s, 51 000 requests, 50 990 valid 2xx answers.
let round = Round { errors: 10, ..Round::new(5.0, 51_000, 50_990, latency) };
report.row_mut("s200", "hello", RowKind::Js).push_round(round);
// A row whose server crashed:
report.row_mut("express", "mw", RowKind::Js).fail("server exited with status 1", Some("TypeError: ...".into()));
report.header.wall_time_s = 12.5;
# assert_eq!(report.rows.len(), 2);
```
*/

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A row's kind is the framework's (src/frameworks.rs); reports carry it.
pub use crate::frameworks::RowKind;
pub use crate::load::Percentiles;

use super::cost::{InRuntimeCost, RequestCost};
use super::memory::Reading;
pub use super::memory::{HeapAfterGc, LeakCheck, RowMemory};
pub use super::warmup::WarmupCurve;

/// The version of this JSON layout. Bump it when a field changes meaning,
/// moves or is removed; `fwbench compare` refuses reports of a version it
/// cannot read rather than comparing figures that mean different things.
///
/// Version 2 moved the derived figures of each row from `summary.rows`
/// into the row (`rows[].summary`) and added `rows[].startup_s`; its rounds
/// later gained the optional `client_cpu`, `server_cpu`, `server_wait` and
/// `concurrency_achieved`, which reports written before lack (an addition
/// that older readers ignore, so the version stayed).
pub const SCHEMA_VERSION: u32 = 2;

/// The oldest layout version still read: version 1 holds the same measured
/// figures (its rows have no `startup_s`), so its reports still compare.
pub const OLDEST_READABLE_SCHEMA: u32 = 1;

/// One benchmark run: who measured, on what, with which options, and every
/// row's rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Layout version of this report ([`SCHEMA_VERSION`] when written).
    pub schema_version: u32,
    /// Who measured, on what, pinned how, with which options, when: the
    /// part every command's report shares (flattened: its fields sit at
    /// the top of the JSON, as before it was one struct).
    #[serde(flatten)]
    pub header: RunHeader,
    /// Scenario names in the order they were run and are reported.
    pub scenarios: Vec<String>,
    /// The request header set each scenario's request carried (`minimal`,
    /// `browser`, `api`: src/header_sets.rs), by scenario name. Reports
    /// written before header sets existed lack it: their requests carried
    /// the scenario's own headers only, i.e. `minimal`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub header_sets: BTreeMap<String, String>,
    /// Framework names (JS and native) in the order they are reported.
    pub frameworks: Vec<String>,
    /// One entry per framework × scenario that was attempted.
    pub rows: Vec<Row>,
    /// The runtimes other than fwbench's own that served rows
    /// (`--runtime`), with their versions; empty when fwbench's alone did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<RuntimeInfo>,
    /// Runtimes asked for and not found, with why (their rows were left
    /// out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes_missing: Vec<String>,
    /// Run-level warnings the writers print above the tables, e.g. "stopped
    /// by Ctrl-C after round 2 of 3" or "servers and load generator share
    /// CPUs".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// What every report of a run says about it first: fwbench, the engine
/// and the versions of what was measured, the machine(s), the pinning, the
/// exact options, and when and for how long it ran. `bench`'s report,
/// `sweep`'s and `sweep --ablate`'s each hold one, flattened into their
/// JSON, and print it the same way (`report::run_header`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// fwbench, its JS engine and the versions of everything measured.
    pub tool: ToolInfo,
    /// The machine the run happened on (with `--server-host`, the load
    /// generator's).
    pub machine: MachineInfo,
    /// With `bench --server-host`: the machine the row servers ran on and
    /// the network path to it. Absent when the servers ran on `machine`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_host: Option<ServerHostInfo>,
    /// Which CPUs the servers and the load generator were pinned to.
    pub pinning: Pinning,
    /// The exact options of the run (the validated bench plan, serialized),
    /// so a run can be repeated and two runs' settings compared.
    pub options: serde_json::Value,
    /// When the run started, RFC 3339 (e.g. `2026-09-30T10:00:00Z`).
    pub started_at: String,
    /// Wall-clock time of the whole run in seconds, warm-up and validation
    /// included.
    pub wall_time_s: f64,
}

/// The measuring tool and the versions of what it measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// fwbench's own version (`CARGO_PKG_VERSION`).
    pub fwbench_version: String,
    /// The JS engine that ran the JS rows, e.g. `quickjs` or `v8 13.0`.
    pub engine: String,
    /// Bundled framework name → version (s200, hono, express, ...).
    pub framework_versions: BTreeMap<String, String>,
    /// Other components that shape the figures → version (deno_core, hyper,
    /// axum, ...).
    pub dependency_versions: BTreeMap<String, String>,
    /// The engine switches the run set (`FWBENCH_SNAPSHOT`,
    /// `FWBENCH_HEAP_STATS`, `FWBENCH_V8_FLAGS`) → value; absent when none
    /// was, as in reports written before they were recorded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub engine_switches: BTreeMap<String, String>,
}

/// The other machine of a `--server-host` run: where the row servers ran,
/// and how far it is from the load generator.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerHostInfo {
    /// The SSH destination as given (`user@host`, or a `~/.ssh/config`
    /// alias).
    pub destination: String,
    /// The address the load went to.
    pub address: String,
    /// That machine's CPU, kernel and OS, as its fwbench read them.
    pub machine: MachineInfo,
    /// Round-trip times measured before the rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<RoundTrips>,
}

/// Round-trip times from the load generator's machine to the server host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundTrips {
    /// What was timed, e.g. `TCP connect to 10.0.0.2:22`.
    pub method: String,
    /// How many times.
    pub samples: usize,
    /// Median, in milliseconds.
    pub median_ms: f64,
    /// Fastest, in milliseconds.
    pub min_ms: f64,
    /// Slowest, in milliseconds.
    pub max_ms: f64,
}

/// The machine a run happened on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// CPU model name, e.g. `AMD Ryzen 7 8745HS`.
    pub cpu_model: String,
    /// Logical CPUs the OS reports.
    pub logical_cpus: usize,
    /// Kernel name and release, e.g. `Linux 6.14.0`.
    pub kernel: String,
    /// Operating system or distribution, e.g. `Fedora 42`.
    pub os: String,
}

/// CPU pinning of the run: servers on one set, the load generator on the
/// other, so the two never compete for a core.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Pinning {
    /// Logical CPU ids the server processes were pinned to.
    pub server_cpus: Vec<usize>,
    /// Logical CPU ids the load generator was pinned to.
    pub load_cpus: Vec<usize>,
    /// Whether the pinning actually took effect (it can fail, e.g. in a
    /// container that forbids `sched_setaffinity`).
    pub applied: bool,
    /// Why pinning was not applied, or anything else worth knowing about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A JS row's start-up split: seconds from starting its server process to
/// each phase's end. The last phase, to the first validated answer, is the
/// row's `startup_s`; so a regression shows where it went: the runtime
/// (the engine, the Web globals, the Node shims), the app (the framework
/// bundle, the scenario, the app's own set-up) or the answer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StartupSplit {
    /// The runtime was built, with the Web globals and the Node globals in
    /// place (every worker's).
    pub runtime_ready_s: f64,
    /// Every worker had loaded and installed the app.
    pub app_loaded_s: f64,
}

/// Whether a row produced figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum RowStatus {
    /// The row was measured (its rounds may still have counted errors).
    Ok,
    /// The row could not be measured, or stopped being measurable: its
    /// server did not start, failed validation or crashed. Rounds finished
    /// before the failure are kept in [`Row::rounds`].
    Failed {
        /// What went wrong, in one line, e.g. `validation: expected status
        /// 200, got 500`.
        reason: String,
        /// The last lines the server process wrote to stderr, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stderr_tail: Option<String>,
    },
}

/// One framework × scenario: its status and its rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Framework name as listed in [`BenchReport::frameworks`].
    pub framework: String,
    /// Scenario name as listed in [`BenchReport::scenarios`].
    pub scenario: String,
    /// JS or native.
    pub kind: RowKind,
    /// What served it: `fwbench` (its embedded runtime), `node`, `deno` or
    /// `bun` (`--runtime`), or `native` (hyper, axum). Empty in reports
    /// written before it was recorded: read it with [`Row::runtime`].
    #[serde(default, rename = "runtime", skip_serializing_if = "String::is_empty")]
    pub served_by: String,
    /// The server's resident memory (its process, from /proc): absent for
    /// a server on another machine, and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<RowMemory>,
    /// Its warm-up curve from the server's first requests
    /// (`--warmup-curve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_curve: Option<WarmupCurve>,
    /// Ok, or failed with the reason.
    pub status: RowStatus,
    /// Seconds from starting the row's server process to its first
    /// validated answer (at the attempt that started); absent for a row
    /// whose server never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_s: Option<f64>,
    /// Where that start-up went (a JS row whose server said): when its
    /// runtime was ready and its app loaded, on the same clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_split: Option<StartupSplit>,
    /// Measured rounds in the order they ran (rounds of different rows
    /// interleave, so each is measured under the same conditions).
    pub rounds: Vec<Round>,
    /// Path of the HDR percentile-distribution file written for this row,
    /// if one was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hdr_file: Option<String>,
    /// The app's cost without the transport (JS rows; anatomy.rs): its
    /// request served inside the runtime, no socket, no hyper.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_runtime: Option<InRuntimeCost>,
}

/// A runtime other than fwbench's own that served rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeInfo {
    /// `node`, `deno` or `bun`.
    pub name: String,
    /// Its version, as it says (`26.12.1`).
    pub version: String,
    /// Its executable.
    pub binary: String,
    /// How it serves a fetch-style app (Node: @hono/node-server).
    pub fetch_apps_served_by: String,
}

/// One timed round of one row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// 0-based position of this round within its row.
    pub index: usize,
    /// Measured duration of the round in seconds.
    pub duration_s: f64,
    /// Requests completed or failed during the round.
    pub requests: u64,
    /// Requests answered 2xx whose response passed the scenario's
    /// validation.
    pub successes: u64,
    /// `successes / duration_s`: the throughput figure reported everywhere.
    pub rps_ok: f64,
    /// `requests / duration_s`, whatever the outcome.
    pub rps_all: f64,
    /// Latency distribution of the round's requests, microseconds.
    pub latency_us: Percentiles,
    /// Transport errors: connect, read, write, timeouts, malformed
    /// responses.
    pub errors: u64,
    /// Responses whose status was not 2xx.
    pub non_2xx: u64,
    /// 2xx responses that failed the scenario's validation (body, headers).
    pub mismatches: u64,
    /// The load generator's CPU share of its CPU set over the round, warm-up
    /// included: process CPU time / wall time / load threads, so 1.0 means
    /// every load thread was busy all the time. Near 1 the client, not the
    /// server, may have set the pace. Absent in reports written before it
    /// was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cpu: Option<f64>,
    /// The server process's CPU share over the same measurement: its user +
    /// system time / wall time / the cores it could use (its workers, at
    /// most the size of its CPU set). Near 1 the server was the limit.
    /// Absent when its CPU time could not be read, and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu: Option<f64>,
    /// The share of the same cores the server's threads spent ready to run
    /// but waiting for a CPU while other processes held it: their
    /// run-queue delay, at most the time others ran on the server's CPUs
    /// (waits behind the server's own threads do not count), plus the
    /// steal time of those CPUs on a virtual machine. What a busy machine
    /// cost the round. Absent without the kernel's scheduler
    /// statistics, and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_wait: Option<f64>,
    /// Mean requests in flight over the round, as the load generator
    /// measured it (below the connections when time went elsewhere than
    /// waiting for answers). Absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_achieved: Option<f64>,
    /// The server's resident set at the end of the round, MiB. Absent for
    /// a server on another machine, and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_mib: Option<f64>,
    /// The JS heap after a full collection, read after the round (fwbench's
    /// own JS rows on V8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_after_gc: Option<HeapAfterGc>,
    /// Requests the server had answered by the end of the round, warm-ups
    /// included: what the leak check fits memory against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served: Option<u64>,
    /// What each request cost over the round: server and client CPU time,
    /// JS heap allocation and GC (anatomy.rs). Absent when the server's
    /// clocks could not be read, and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<RequestCost>,
}

impl BenchReport {
    /// An empty report of the current [`SCHEMA_VERSION`], ready to be filled
    /// row by row; `wall_time_s` starts at 0.
    pub fn new(
        tool: ToolInfo,
        machine: MachineInfo,
        pinning: Pinning,
        options: serde_json::Value,
        started_at: impl Into<String>,
    ) -> BenchReport {
        BenchReport {
            schema_version: SCHEMA_VERSION,
            header: RunHeader {
                tool,
                machine,
                server_host: None,
                pinning,
                options,
                started_at: started_at.into(),
                wall_time_s: 0.0,
            },
            scenarios: Vec::new(),
            header_sets: BTreeMap::new(),
            frameworks: Vec::new(),
            rows: Vec::new(),
            runtimes: Vec::new(),
            runtimes_missing: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The row of `framework` × `scenario`, created (status ok, no rounds)
    /// if it does not exist yet. A new framework or scenario name is also
    /// appended to [`BenchReport::frameworks`] / [`BenchReport::scenarios`],
    /// so the order of first use is the order of the report.
    pub fn row_mut(&mut self, framework: &str, scenario: &str, kind: RowKind) -> &mut Row {
        if !self.frameworks.iter().any(|f| f == framework) {
            self.frameworks.push(framework.to_owned());
        }
        if !self.scenarios.iter().any(|s| s == scenario) {
            self.scenarios.push(scenario.to_owned());
        }
        let position = self
            .rows
            .iter()
            .position(|row| row.framework == framework && row.scenario == scenario);
        let index = match position {
            Some(index) => index,
            None => {
                self.rows.push(Row::new(framework, scenario, kind));
                self.rows.len() - 1
            }
        };
        &mut self.rows[index]
    }

    /// The header set `scenario`'s requests carried: as recorded, else
    /// `minimal` (what every run sent before sets were recorded).
    pub fn header_set(&self, scenario: &str) -> &str {
        self.header_sets.get(scenario).map_or("minimal", String::as_str)
    }

    /// The row of `framework` × `scenario`, if any.
    pub fn row(&self, framework: &str, scenario: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|row| row.framework == framework && row.scenario == scenario)
    }
}

impl Row {
    /// A row with status ok and no rounds yet.
    pub fn new(framework: impl Into<String>, scenario: impl Into<String>, kind: RowKind) -> Row {
        Row {
            framework: framework.into(),
            scenario: scenario.into(),
            served_by: String::new(),
            memory: None,
            warmup_curve: None,
            kind,
            status: RowStatus::Ok,
            startup_s: None,
            startup_split: None,
            rounds: Vec::new(),
            hdr_file: None,
            in_runtime: None,
        }
    }

    /// Appends a round, numbering it (its `index` becomes its position), and
    /// returns it as stored.
    pub fn push_round(&mut self, mut round: Round) -> &Round {
        let index = self.rounds.len();
        round.index = index;
        self.rounds.push(round);
        &self.rounds[index]
    }

    /// Marks the row failed. Rounds already measured are kept; the row is
    /// left out of ranks and ratios either way.
    pub fn fail(&mut self, reason: impl Into<String>, stderr_tail: Option<String>) {
        self.status = RowStatus::Failed {
            reason: reason.into(),
            stderr_tail,
        };
    }

    /// What served it (see [`Row::served_by`]): for a report written
    /// before that was recorded, `fwbench` for a JS row and `native`.
    pub fn runtime(&self) -> &str {
        match (self.served_by.as_str(), self.kind) {
            ("", RowKind::Js) => "fwbench",
            ("", RowKind::Native) => "native",
            (runtime, _) => runtime,
        }
    }

    /// The memory figures from its rounds' readings and the peak
    /// `peak_mib` (none without either); a per-connection figure already
    /// noted is kept.
    pub fn note_memory(&mut self, peak_mib: Option<f64>) {
        let readings: Vec<Reading> = self
            .rounds
            .iter()
            .filter_map(|round| {
                Some(Reading {
                    served: round.served?,
                    rss_mib: round.rss_mib?,
                    heap: round.heap_after_gc,
                })
            })
            .collect();
        let per_connection = self.memory.and_then(|m| m.per_connection_kib);
        self.memory = RowMemory::of(&readings, peak_mib).map(|memory| RowMemory {
            per_connection_kib: per_connection,
            ..memory
        });
    }

    /// Whether the row's status is ok.
    pub fn is_ok(&self) -> bool {
        matches!(self.status, RowStatus::Ok)
    }

    /// The failure reason, if the row failed.
    pub fn failure(&self) -> Option<&str> {
        match &self.status {
            RowStatus::Ok => None,
            RowStatus::Failed { reason, .. } => Some(reason),
        }
    }
}

impl Round {
    /// A round from its raw counts: computes `rps_ok` and `rps_all` (both 0
    /// when `duration_s` is not positive, so a report never holds an
    /// infinity or NaN, which JSON cannot carry), with zero error counts and
    /// index 0 ([`Row::push_round`] numbers it) and no CPU shares. Set the
    /// error counts and shares with struct update syntax:
    /// `Round { errors: 3, ..Round::new(5.0, 1000, 997, latency) }`.
    pub fn new(duration_s: f64, requests: u64, successes: u64, latency_us: Percentiles) -> Round {
        let rate = |count: u64| {
            if duration_s > 0.0 && duration_s.is_finite() {
                count as f64 / duration_s
            } else {
                0.0
            }
        };
        Round {
            index: 0,
            duration_s,
            requests,
            successes,
            rps_ok: rate(successes),
            rps_all: rate(requests),
            latency_us,
            errors: 0,
            non_2xx: 0,
            mismatches: 0,
            client_cpu: None,
            server_cpu: None,
            server_wait: None,
            concurrency_achieved: None,
            rss_mib: None,
            heap_after_gc: None,
            served: None,
            cost: None,
        }
    }

    /// Requests that did not succeed: transport errors, non-2xx answers and
    /// validation mismatches.
    pub fn failures(&self) -> u64 {
        self.errors + self.non_2xx + self.mismatches
    }
}

#[cfg(test)]
mod tests;
