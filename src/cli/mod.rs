//! Command-line definitions (clap derive) and value parsers. Raw values
//! only: each command turns its args into a validated plan in its own module.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::header_sets::HeaderSet;
use crate::load::parse_duration;
use crate::scenario::Suite;

mod internal;
mod parse;
mod serve;

pub use serve::ServeArgs;

pub use internal::{DescribeScenarioArgs, RuntimeKitArgs, TestFileArgs};
use parse::{
    parse_app, parse_depths, parse_precision, parse_rate, parse_request_header, parse_request_line,
    parse_suite,
};
pub use parse::{parse_header_set, Depths, MAX_DEPTH};

/// The exit-status contract of every command, shown by `--help`.
pub const EXIT_STATUS: &str = "\
Exit status (every command): 0 ok; 1 the command ran but something failed (a failed row, \
a run cut short by Ctrl-C or SIGTERM, a flagged load run, a failed JS test, a regression past \
--fail-below); 2 a usage or set-up \
error (a bad flag or value, an unknown framework or scenario, a CPU that cannot be used, an \
output directory that cannot be created, an app that fails to load, a load target that refuses \
connections, a report that cannot be read or written, a file past its size cap); 70 a server whose JS \
could not be interrupted (a built-in looping in native code past the CPU limit); 71 a server the JS \
engine gave up in (out of memory past the heap limit's reach, a size past its limits). A second \
Ctrl-C or SIGTERM quits at once with 130 or 143.";

/// Host JavaScript web frameworks in embedded JS runtimes and load-test them
/// beside native Rust servers.
#[derive(Debug, Parser)]
#[command(name = "fwbench", version, long_version = long_version(), propagate_version = true)]
#[command(after_help = EXIT_STATUS)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// fwbench's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve a JavaScript app over HTTP/1.1: an npm project as Node runs it
    /// (CommonJS or ES modules, TypeScript, its node_modules, its listen()),
    /// or a module whose default export is `{ fetch(request) }`, a hono or
    /// elysia app, an express app or a fastify instance.
    #[command(after_help = EXIT_STATUS)]
    Serve(ServeArgs),
    /// Send HTTP/1.1 load to a server on loopback (or at an address named
    /// with --allow-host) and report throughput,
    /// latency percentiles, statuses, errors and validation.
    Load(Box<crate::load::LoadArgs>),
    /// Run node:test-style JS test files inside the embedded engine (one
    /// runtime per file), e.g. `fwbench test js/s200`.
    #[command(after_help = EXIT_STATUS)]
    Test(TestArgs),
    /// The main job: benchmark every framework (JS and native rows) on
    /// every scenario, under identical conditions, and report the table of
    /// the unwind-tax article plus latency, errors and ratios to hyper.
    #[command(after_help = EXIT_STATUS)]
    Bench(BenchArgs),
    /// Measure the cost of one more middleware link: serve each framework's
    /// mw chain at several depths (0, 1, 2, 4, 8, 16 links), measure them
    /// like bench rows, and fit µs per request against depth: the fixed
    /// cost, the marginal µs per link with its 95% confidence interval, and
    /// whether the cost per link grows with the chain. With `--ablate
    /// prod`: the price of each concern of a production chain (cors,
    /// security headers, request id, access log, JWT auth) per framework.
    #[command(after_help = EXIT_STATUS)]
    Sweep(SweepArgs),
    /// Find each row's capacity under a latency target: the highest rate
    /// (req/s, open loop, coordinated omission corrected) whose p99 stays
    /// at most --p99, by a ramp that doubles the rate and a bisection, each
    /// step held --step, the search repeated for a confidence interval;
    /// with the server's CPU per request at 10%, 50% and 90% of it and a
    /// latency-against-rate chart per row (capacity.html).
    #[command(after_help = EXIT_STATUS)]
    Capacity(CapacityArgs),
    /// Validate every row (framework × scenario) against its scenario's
    /// expectations, without load; exits 1 if any row fails.
    #[command(after_help = EXIT_STATUS)]
    Check(CheckArgs),
    /// List the engine, the frameworks (with versions) and the built-in
    /// scenarios.
    List,
    /// Compare two `fwbench bench --json` reports: per row and scenario the
    /// ratio B/A of median req/s, marked where the rounds' ranges don't
    /// overlap, also written as compare.html; over more reports (or a
    /// directory of them), each row's history, written as history.html.
    #[command(after_help = EXIT_STATUS)]
    Compare(crate::report::CompareArgs),
    /// Write the HTML report (report.html: one self-contained page, with
    /// sortable tables and charts) of a report.json, e.g. an earlier run's.
    Html(crate::report::html::HtmlArgs),
    /// Add several `fwbench load --json=FILE` reports (e.g. the segments of
    /// one load, `load --segment K/N`, run from several machines) into one:
    /// counts summed, latency histograms added exactly, req/s over the
    /// union of their windows; runs that never overlapped are refused.
    #[command(after_help = EXIT_STATUS)]
    Merge(crate::report::merge::MergeArgs),
    /// Write the Kubernetes manifests of a load too large for one machine:
    /// an Indexed Job of N pods, each sending one segment of the load
    /// (whole CPUs, requests = limits), and a Job that merges their
    /// reports (docs/kubernetes.md). Talks to no cluster.
    #[command(name = "k8s-job")]
    K8sJob(Box<crate::k8s::K8sJobArgs>),
    /// Print this machine's CPU model, kernel, OS and usable CPUs as one
    /// JSON line (internal: what `bench --server-host` asks the other
    /// machine's fwbench).
    #[command(hide = true)]
    MachineFacts,
    /// Print a scenario's data as one JSON line (internal: how `bench`,
    /// `check` and `sweep` read a scenario in a child process, so that its
    /// top level cannot take the run down).
    #[command(hide = true)]
    DescribeScenario(DescribeScenarioArgs),
    /// Run one test file and print its counts as JSON (internal: how
    /// `fwbench test` runs each file in a child process).
    #[command(hide = true)]
    TestFile(TestFileArgs),
    /// Write the directory runtime rows serve from, kept, with a main
    /// module per JS framework and scenario, and print them as JSON lines
    /// (internal: what benches/runtimes/bench.py --kit serves).
    #[command(hide = true)]
    RuntimeKit(RuntimeKitArgs),
}

/// Which rows a command covers: frameworks × scenarios, and the request
/// headers their scenarios send.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Built-in scenarios, comma-separated (default: the default suite:
    /// hello, param, mw; `fwbench list` names every built-in one).
    #[arg(long, value_name = "SCENARIO,...", conflicts_with = "suite")]
    pub only: Option<String>,
    /// A suite of built-in scenarios: `default` (hello, param, mw) or
    /// `full` (every built-in scenario). With --scenario, the suite's
    /// scenarios run as well as the file's.
    #[arg(long, value_name = "SUITE", value_parser = parse_suite)]
    pub suite: Option<Suite>,
    /// Frameworks, comma-separated (default: all; see `fwbench list`).
    #[arg(long, value_name = "NAME,...")]
    pub frameworks: Option<String>,
    /// A scenario file (repeatable; format in scenarios/README.md). With
    /// it, built-in scenarios are included only if named in --only or
    /// --suite.
    #[arg(long, value_name = "FILE")]
    pub scenario: Vec<String>,
    /// The request header set every scenario's request carries besides its
    /// own headers (which win over the set's): minimal (none: the
    /// scenario's own only), browser (a desktop Chrome's same-origin fetch,
    /// with 600 bytes of cookies) or api (an API client with a bearer
    /// token). Default: each scenario's own `headerSet`, else minimal.
    /// docs/header-sets.md lists each set.
    #[arg(long, value_name = "SET", value_parser = parse_header_set)]
    pub headers: Option<HeaderSet>,
    /// The runtimes that serve the JS rows (`--runtime`, `--node`, …).
    #[command(flatten)]
    pub runtimes: RuntimeArgs,
    /// Your app as a row (repeatable): an npm project's directory or its
    /// entry file, served as `fwbench serve` serves it (as on Node: its
    /// node_modules, CommonJS, TypeScript). `NAME=DIR` names the row (by
    /// default the directory's name). With --app alone only app rows run;
    /// --frameworks, --only, --suite or --scenario add built-in rows beside
    /// them. The same project on two frameworks is two --app rows.
    #[arg(long = "app", value_name = "[NAME=]DIR", value_parser = parse_app)]
    pub apps: Vec<(String, PathBuf)>,
    /// The request the app rows are sent: `METHOD PATH` (default `GET /`).
    #[arg(long, value_name = "'METHOD PATH'", requires = "apps", value_parser = parse_request_line)]
    pub request: Option<(String, String)>,
    /// A header of the app rows' request (repeatable): `name: value`.
    #[arg(long = "request-header", short = 'H', value_name = "'NAME: VALUE'", requires = "apps",
          value_parser = parse_request_header)]
    pub request_headers: Vec<(String, String)>,
    /// The body of the app rows' request.
    #[arg(long, value_name = "TEXT", requires = "apps")]
    pub request_body: Option<String>,
    /// The status every app row must answer the request with (checked
    /// before load, as scenarios' expectations are).
    #[arg(long, default_value_t = 200, requires = "apps", value_parser = clap::value_parser!(u16).range(100..=599))]
    pub expect_status: u16,
}

/// `fwbench bench`
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The rows to run.
    #[command(flatten)]
    pub matrix: MatrixArgs,
    /// How rows are measured and where the results go.
    #[command(flatten)]
    pub run: RunArgs,
    /// Print the tables as Markdown instead of for the terminal.
    #[arg(long)]
    pub markdown: bool,
    /// After the rounds, serve each JS row's request inside its runtime for
    /// this long (no socket, no hyper: `serve --in-runtime`), for the
    /// anatomy's in-runtime column; 0s skips it.
    #[arg(long, default_value = "1s", value_parser = parse_duration, value_name = "DURATION")]
    pub in_runtime: Duration,
    /// After the rounds, load each row once more with this many
    /// connections (more than --connections) and report the resident set
    /// each extra open connection costs (memory table, "per conn.").
    #[arg(long, value_name = "N")]
    pub memory_connections: Option<usize>,
    /// Before any other load, send each row's fresh server this many
    /// requests (default 50000 with the flag alone) and report its warm-up
    /// curve: p50, p99 and req/s per 1,000 answers, and after how many
    /// requests and how long its median settled.
    #[arg(long, value_name = "REQUESTS", num_args = 0..=1, default_missing_value = "50000",
          value_parser = clap::value_parser!(u64).range(4000..=10_000_000))]
    pub warmup_curve: Option<u64>,
}

/// How `bench` and `sweep` measure their rows, and where results go.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Measured time per row per round.
    #[arg(long, short, default_value = "2s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Load before each measurement that is not counted (connections warm,
    /// caches hot).
    #[arg(long, default_value = "500ms", value_parser = parse_duration)]
    pub warmup: Duration,
    /// Keep-alive connections of the load generator.
    #[arg(long, short, default_value_t = 50)]
    pub connections: usize,
    /// Rounds; rows are interleaved within each round (A B C A B C ...), and
    /// reports give the median and the min-max over rounds.
    #[arg(long, short, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// Worker threads (JS runtimes) per server.
    #[arg(long, short, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: u16,
    /// CPUs for the servers, e.g. `0` or `0-1` (default: the first half of
    /// the CPUs this process may use).
    #[arg(long, value_name = "CPUS")]
    pub server_cpus: Option<String>,
    /// CPUs for the load generator (default: the other half).
    #[arg(long, value_name = "CPUS")]
    pub load_cpus: Option<String>,
    /// How long a row's server may take to listen; a server still silent
    /// then (or killed by a signal) is tried once more.
    #[arg(long, default_value = START_TIMEOUT, value_parser = parse_duration)]
    pub start_timeout: Duration,
    /// Directory for every artifact (bench: report.json, report.md,
    /// report.csv, chart.svg, hdr/<framework>-<scenario>.hgrm; sweep:
    /// sweep.json, sweep.csv, sweep.svg, report.json, hdr/); default
    /// fwbench-results/<date-time>.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write the JSON results here (bench: report.json; sweep:
    /// sweep.json); `--json=FILE` works too, as in `load`.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the CSV (one line per row, or per framework and depth, and
    /// round) here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Where the row servers run.
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// Where the row servers run: here (the default), or on another machine
/// reached over SSH.
#[derive(Debug, Clone, Default, Args)]
pub struct RemoteArgs {
    /// Run each row's server on this machine instead, over SSH (the
    /// system's OpenSSH client, with your ~/.ssh/config, keys and agent;
    /// never a password prompt), and load it from here at the address
    /// `ssh -G` resolves the host to. The server listens on all of that
    /// machine's addresses (0.0.0.0) while its row runs, and stops when
    /// the row ends, on Ctrl-C, or if this process dies. --server-cpus
    /// then names that machine's CPUs (default: all of them), --load-cpus
    /// this one's (default: all). A host that SSH cannot reach, or whose
    /// fwbench is another version, stops the run before any row (exit 2).
    #[arg(long, value_name = "USER@HOST")]
    pub server_host: Option<String>,
    /// An ssh option for every connection to --server-host, as `ssh -o`
    /// takes it, e.g. `--ssh-option Port=2222` or `--ssh-option
    /// IdentityFile=~/.ssh/bench`; repeatable.
    #[arg(long = "ssh-option", value_name = "KEY=VALUE", requires = "server_host")]
    pub ssh_options: Vec<String>,
    /// The fwbench to run on --server-host: a path there, or a name on its
    /// PATH. It must be this same build (`fwbench --version` is compared).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "fwbench",
        requires = "server_host"
    )]
    pub remote_bin: String,
}

/// `fwbench sweep`
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Frameworks, comma-separated (default: all; see `fwbench list`).
    #[arg(long, value_name = "NAME,...")]
    pub frameworks: Option<String>,
    /// The scenario whose chain is swept: a built-in name or a scenario
    /// file that exports `depth` (scenarios/README.md, "A chain you can
    /// sweep"). Native rows run only the built-in mw.
    #[arg(long, default_value = "mw", value_name = "SCENARIO")]
    pub scenario: String,
    /// Chain depths (links), comma-separated: at least two distinct ones;
    /// four or more also tell whether a link's cost grows with the chain.
    #[arg(long, default_value = "0,1,2,4,8,16", value_name = "N,...", value_parser = parse_depths)]
    pub depths: Depths,
    /// Instead of depths, price each concern of this scenario's chain: a
    /// built-in name (prod) or a scenario file that exports `concerns`
    /// (scenarios/README.md, "Concerns"). Every JS framework serves it
    /// whole, without each concern in turn and with none, in interleaved
    /// rounds; a concern's price is whole minus without it, paired by
    /// round, ± its 95% confidence interval (use --rounds 5 or more).
    #[arg(long, value_name = "SCENARIO", conflicts_with_all = ["scenario", "depths", "runtime", "node", "deno", "bun"])]
    pub ablate: Option<String>,
    /// The request header set the scenario's request carries besides its
    /// own headers: minimal, browser or api (as `bench --headers`).
    /// Default: the scenario's own `headerSet`, else minimal.
    #[arg(long, value_name = "SET", value_parser = parse_header_set)]
    pub headers: Option<HeaderSet>,
    /// The runtimes that serve the JS rows (a depth sweep; `--ablate`
    /// runs on fwbench's own).
    #[command(flatten)]
    pub runtimes: RuntimeArgs,
    /// How rows are measured and where the results go.
    #[command(flatten)]
    pub run: RunArgs,
}

/// `fwbench capacity`
#[derive(Debug, Args)]
pub struct CapacityArgs {
    /// The rows to search (as `bench`: --frameworks, --only, --scenario,
    /// --app, --runtime).
    #[command(flatten)]
    pub matrix: MatrixArgs,
    /// The latency target: a rate is held when the p99 of its step (the
    /// load generator's, measured from each request's due time, so queueing
    /// counts) is at most this.
    #[arg(long, default_value = "1ms", value_parser = parse_duration, value_name = "DURATION")]
    pub p99: Duration,
    /// How long each step of the search is measured at its rate (after
    /// --warmup at the same rate).
    #[arg(long, default_value = "5s", value_parser = parse_duration, value_name = "DURATION")]
    pub step: Duration,
    /// Load at the step's rate before its measurement, not counted.
    #[arg(long, default_value = "1s", value_parser = parse_duration, value_name = "DURATION")]
    pub warmup: Duration,
    /// Searches per row, each from the start: their spread gives the
    /// capacity's 95% confidence interval (2 or more).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub repeats: u32,
    /// The lowest rate tried (req/s): the search starts here and doubles
    /// until a step misses the target. A row that misses it already has a
    /// capacity below this.
    #[arg(long, default_value_t = 1000.0, value_parser = parse_rate, value_name = "REQ/S")]
    pub min_rate: f64,
    /// The highest rate tried (req/s): a row that still holds here is
    /// reported as "at least".
    #[arg(long, default_value_t = 1_000_000.0, value_parser = parse_rate, value_name = "REQ/S")]
    pub max_rate: f64,
    /// The search stops when the highest held and lowest missed rates are
    /// this close (relative: 0.05 = within 5%).
    #[arg(long, default_value_t = 0.05, value_parser = parse_precision, value_name = "FRACTION")]
    pub precision: f64,
    /// Keep-alive connections the paced load is spread over.
    #[arg(long, short, default_value_t = 50)]
    pub connections: usize,
    /// Worker threads (JS runtimes) per server.
    #[arg(long, short, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: u16,
    /// CPUs for the servers (default: the first half of the CPUs this
    /// process may use).
    #[arg(long, value_name = "CPUS")]
    pub server_cpus: Option<String>,
    /// CPUs for the load generator (default: the other half).
    #[arg(long, value_name = "CPUS")]
    pub load_cpus: Option<String>,
    /// How long a row's server may take to listen.
    #[arg(long, default_value = START_TIMEOUT, value_parser = parse_duration)]
    pub start_timeout: Duration,
    /// Directory for capacity.json, capacity.md and capacity.html (default
    /// fwbench-results/<date-time>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the tables as Markdown instead of for the terminal.
    #[arg(long)]
    pub markdown: bool,
}

impl CapacityArgs {
    /// `bench`'s measuring arguments for the same rows: the plan capacity
    /// starts its servers from.
    pub fn run_args(&self) -> RunArgs {
        RunArgs {
            duration: self.step,
            warmup: self.warmup,
            connections: self.connections,
            rounds: self.repeats,
            workers: self.workers,
            server_cpus: self.server_cpus.clone(),
            load_cpus: self.load_cpus.clone(),
            start_timeout: self.start_timeout,
            out: self.out.clone(),
            json: None,
            csv: None,
            remote: RemoteArgs::default(),
        }
    }
}

/// Which runtimes serve the JS rows, and where their binaries are.
#[derive(Debug, Args)]
pub struct RuntimeArgs {
    /// The runtimes that serve each JS framework's rows, comma-separated:
    /// fwbench (its embedded runtime), node, deno, bun. Another runtime
    /// serves the same app files (fwbench's framework bundles and built-in
    /// scenario modules, written to a private directory) as its own process,
    /// as that runtime ordinarily serves such an app (node:http for
    /// express and fastify; fetch-style apps by Deno.serve, Bun.serve, and
    /// on Node by @hono/node-server); its rows are named `hono@node`. A
    /// runtime that cannot be found is reported once and its rows skipped.
    #[arg(long, value_name = "RUNTIME,...", default_value = "fwbench")]
    pub runtime: String,
    /// The node binary for `--runtime node` (default: on PATH, else
    /// fwbench's runtime cache, ~/.cache/fwbench/runtimes).
    #[arg(long, value_name = "PATH")]
    pub node: Option<PathBuf>,
    /// The deno binary for `--runtime deno` (default: as for --node).
    #[arg(long, value_name = "PATH")]
    pub deno: Option<PathBuf>,
    /// The bun binary for `--runtime bun` (default: as for --node).
    #[arg(long, value_name = "PATH")]
    pub bun: Option<PathBuf>,
    /// Serve Node and Deno rows without V8's `--trace-gc-nvp`, which their
    /// GC and allocation columns are read from (one line per collection on
    /// the server's stdout); those columns then show `-`.
    #[arg(long)]
    pub no_gc_trace: bool,
}

/// `fwbench check`
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The rows to check.
    #[command(flatten)]
    pub matrix: MatrixArgs,
    /// How long a row's server may take to listen; a server still silent
    /// then (or killed by a signal) is tried once more.
    #[arg(long, default_value = START_TIMEOUT, value_parser = parse_duration)]
    pub start_timeout: Duration,
    /// Where the row servers run.
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// How long a row's server may take to listen by default. Frameworks load in
/// 0.1–0.4 s on an idle machine; the margin is for a loaded one.
const START_TIMEOUT: &str = "60s";

/// `fwbench test PATH...`
#[derive(Debug, Args)]
pub struct TestArgs {
    /// Test files, or directories to search for *.test.js / *.test.mjs.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// `--version` in full: the engine and every bundled framework.
fn long_version() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = format!(
            "{}\nengine: {}\nsnapshot: {}\n",
            env!("CARGO_PKG_VERSION"),
            crate::engine::engine_name(),
            crate::engine::snapshot::describe()
        );
        let frameworks = &crate::engine::embedded::vendor_manifest().frameworks;
        if frameworks.is_empty() {
            text.push_str("frameworks: none bundled (run `node vendor/build.mjs` before building)\n");
        } else {
            text.push_str("frameworks:\n");
            for (name, version) in frameworks {
                text.push_str(&format!("  {name} {version}\n"));
            }
        }
        text
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
