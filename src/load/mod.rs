/*!
The load generator behind `fwbench load`, and the engine `fwbench bench`
drives in-process.

# Using it from code

```no_run
use fwbench::load::{execute, LoadPlan};
use std::time::Duration;

let mut plan = LoadPlan::new("http://127.0.0.1:3000/")?;
plan.connections = 50;
plan.duration = Some(Duration::from_secs(10));
let report = execute(&plan)?;
println!("{:.0} req/s, p99 {} µs", report.successes_per_sec, report.latency.percentiles.p99);
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Layout (one file per concern, after oha's `src/`)

- `args.rs`: the raw clap flags ([`LoadArgs`]) and value parsers.
- `plan.rs`: the validated [`LoadPlan`] (flags → plan in one place);
  `limits.rs`: its bounds and defaults.
- `target.rs`: URL parsing and the loopback-only rule (`--allow-host`
  lifts it).
- `segment.rs`: the K-th of N parts of a load (`--segment`,
  `--segment-from-job-index`).
- `worker.rs`: threads, event loops, the stop rule and the one request loop.
- `pacer.rs`: when requests are due (closed loop, open loop schedule).
- `conn.rs`: the hand-written HTTP/1.1 client connection.
- `response.rs`: response framing (head, Content-Length, chunked), no I/O.
- `validate.rs`: expectations and the per-response checks.
- `collector.rs`: per-thread aggregation of outcomes; `error.rs`: why a
  request failed (the error kinds).
- `histogram.rs`: HDR histograms and their text output; `blocks.rs`:
  latency per block of consecutive answers (a warm-up curve).
- `cpu.rs`: the generator's own CPU time and memory.
- `report.rs`: [`LoadReport`], every figure plus warnings.
- `printer.rs`: the human summary; `monitor.rs`: the live progress line.

Safety: load only goes to loopback unless `--allow-host` names the target too,
and every run is bounded by its duration or request count and by
[`HARD_CAP`].
*/

mod args;
mod blocks;
mod collector;
mod conn;
mod cpu;
mod error;
pub mod histogram;
mod limits;
mod monitor;
mod pacer;
mod plan;
mod printer;
mod report;
mod response;
mod segment;
mod target;
mod validate;
mod worker;

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::Context;

pub use args::{parse_duration, parse_expect_header, parse_header, ExpectHeaderArg, HeaderArg, LoadArgs};
pub use blocks::BlockStats;
pub use error::ErrorKind;
pub use histogram::{write_percentiles, LatencyStats, Percentiles};
pub use limits::{
    DEFAULT_DURATION, DEFAULT_TIMEOUT, HARD_CAP, MAX_BODY_BYTES, MAX_CONNECTIONS, MAX_PIPELINE, MAX_THREADS,
};
pub use plan::{available_cpus, LoadPlan, PlanError, RequestSpec};
pub use printer::print as print_report;
pub use report::{ClientReport, ConcurrencyReport, LateReport, LoadReport, ThreadCpu, Verdict, WallWindow};
pub use segment::{Segment, JOB_INDEX_VAR, MAX_SEGMENTS};
pub use target::{
    is_loopback, parse_target, parse_target_allowing, url_host, AllowedHost, Target, TargetError,
};
pub use validate::{ExpectHeader, Expectations, MismatchKind};
pub use worker::WindowEdge;

/// Why a load run could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The plan is invalid.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// Nothing accepts connections at the target.
    #[error("cannot connect to {addr} (from {url}): {cause}; is the server running and listening there?")]
    Connect {
        /// The URL as given.
        url: String,
        /// The address tried.
        addr: SocketAddr,
        /// The OS error (in the message, so not also a `source`).
        cause: std::io::Error,
    },
    /// The worker threads or their runtimes could not be created.
    #[error("cannot start the load workers: {0}")]
    Workers(std::io::Error),
}

/// What `fwbench load` produced: the report and how the run ended.
#[derive(Debug, Clone)]
pub struct LoadOutcome {
    /// Every figure.
    pub report: LoadReport,
    /// Clean, flagged or nothing measured; maps to the exit status.
    pub verdict: Verdict,
}

/// Runs `plan` and returns its report. Checks the plan, makes sure the
/// target accepts connections (so a refused connection is one clear error,
/// not a run full of connect errors), then runs the workers. Per-request
/// failures are counted in the report, never returned as errors.
///
/// Blocks the calling thread for the length of the run; the live progress
/// line is drawn only when `plan.progress` is set and stderr is a terminal.
pub fn execute(plan: &LoadPlan) -> Result<LoadReport, LoadError> {
    execute_until(plan, Arc::default())
}

/// [`execute`], stopping early (figures kept, `interrupted` set) once
/// `cancel` turns true: how the CLI honours Ctrl-C and SIGTERM, and how `fwbench bench`
/// can stop a row. Connections stop sending at once; requests in flight get
/// up to `--timeout` to finish.
pub fn execute_until(plan: &LoadPlan, cancel: Arc<AtomicBool>) -> Result<LoadReport, LoadError> {
    execute_observed(plan, cancel, &mut |_| {})
}

/// [`execute_until`], calling `window` at each edge of the measurement
/// window (on the calling thread, within a millisecond of it): how `bench`
/// reads the server's clocks and counters over exactly the requests it
/// measures, not the warm-up. A run stopped before its warm-up ended calls
/// it never.
pub fn execute_observed(
    plan: &LoadPlan,
    cancel: Arc<AtomicBool>,
    window: &mut dyn FnMut(WindowEdge),
) -> Result<LoadReport, LoadError> {
    plan.validate()?;
    let probe_timeout = plan.timeout.min(Duration::from_secs(5));
    std::net::TcpStream::connect_timeout(&plan.target.addr, probe_timeout).map_err(|cause| {
        LoadError::Connect {
            url: plan.target.url.clone(),
            addr: plan.target.addr,
            cause,
        }
    })?;
    let usage_before = cpu::process_usage();
    let total = plan.duration.map(|d| d + plan.warmup);
    let mut monitor = monitor::Monitor::new(plan.progress && std::io::stderr().is_terminal(), total);
    let raw = worker::run(
        plan,
        cancel.clone(),
        Duration::from_millis(100),
        &mut |elapsed, responses, errors| monitor.tick(elapsed, responses, errors),
        window,
    );
    monitor.finish();
    let raw = raw.map_err(LoadError::Workers)?;
    let mut report = LoadReport::build(plan, raw, usage_before);
    if cancel.load(Ordering::Relaxed) {
        report.interrupted = true;
        report.flagged = true;
        report.warnings.insert(
            0,
            format!(
                "interrupted: the figures cover the first {:.2}s only",
                report.measured_s
            ),
        );
    }
    Ok(report)
}

impl From<Verdict> for crate::outcome::Outcome {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Clean => Self::Passed,
            Verdict::Flagged => Self::Failed("the load run is flagged (see the report above)".into()),
            Verdict::NothingMeasured => Self::Failed("the load run measured no response".into()),
        }
    }
}

/// The signal that stopped the run, once one has: `"Ctrl-C"` or `"SIGTERM"`.
static STOPPED_BY: OnceLock<&'static str> = OnceLock::new();

/// Which signal set the flag of [`cancel_on_signal`], if one did: for the
/// messages that say why a run was cut short.
pub fn stopped_by() -> Option<&'static str> {
    STOPPED_BY.get().copied()
}

/// Sets the returned flag on the first Ctrl-C or SIGTERM (the run then
/// stops and reports what it finished: a SIGTERM from a service manager or
/// `kill` keeps the finished rounds as Ctrl-C does) and exits at once on the
/// second, with status 130 (Ctrl-C) or 143 (SIGTERM).
///
/// The handlers are installed before this returns, so a signal that comes
/// right after can no longer kill the process with nothing reported.
pub fn cancel_on_signal() -> Arc<AtomicBool> {
    use tokio::signal::unix::{signal, SignalKind};
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        // Without handlers both signals end the process as usual.
        return cancel;
    };
    let signals = rt.block_on(async {
        Some((
            signal(SignalKind::interrupt()).ok()?,
            signal(SignalKind::terminate()).ok()?,
        ))
    });
    let Some((mut interrupt, mut terminate)) = signals else {
        return cancel;
    };
    // If the thread cannot start, the handlers stay installed (tokio never
    // removes them) but nothing listens, so both signals are ignored: say so.
    let started = std::thread::Builder::new()
        .name("fwbench-signals".into())
        .spawn(move || {
            rt.block_on(async {
                let (first, _) = next_signal(&mut interrupt, &mut terminate).await;
                let _ = STOPPED_BY.set(first);
                flag.store(true, Ordering::Relaxed);
                eprintln!("\nfwbench: {first}: stopping after what has finished (again to quit now)");
                let (_, status) = next_signal(&mut interrupt, &mut terminate).await;
                std::process::exit(status);
            });
        });
    if let Err(error) = started {
        eprintln!("fwbench: cannot watch for Ctrl-C and SIGTERM ({error}): they will be ignored");
    }
    cancel
}

/// Waits for the next Ctrl-C or SIGTERM: its name and the exit status a
/// second one quits with (128 + its number, as a shell reports it).
async fn next_signal(
    interrupt: &mut tokio::signal::unix::Signal,
    terminate: &mut tokio::signal::unix::Signal,
) -> (&'static str, i32) {
    tokio::select! {
        _ = interrupt.recv() => ("Ctrl-C", 130),
        _ = terminate.recv() => ("SIGTERM", 143),
    }
}

/// `fwbench load`: builds the plan from `args`, runs it, writes the report
/// (human summary, or JSON with `--json`; `--json=FILE` adds a file) to `out` and the HDR percentile
/// file if asked. Partial figures are written even when the run is flagged
/// or measured nothing; the [`Verdict`] tells the caller which.
pub fn run(args: LoadArgs, out: &mut dyn Write) -> anyhow::Result<LoadOutcome> {
    let plan = LoadPlan::from_args(&args)?;
    let report = execute_until(&plan, cancel_on_signal())?;
    let write_json = |out: &mut dyn Write| -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)
    };
    match args.json.as_deref() {
        Some(path) if path == Path::new("-") => {
            write_json(out).context("cannot write the JSON report")?;
        }
        Some(path) => {
            printer::print(&report, out).context("cannot write the report")?;
            let mut file = std::fs::File::create(path)
                .with_context(|| format!("cannot create --json file {}", path.display()))?;
            write_json(&mut file)
                .and_then(|()| file.flush())
                .with_context(|| format!("cannot write --json file {}", path.display()))?;
        }
        None => printer::print(&report, out).context("cannot write the report")?,
    }
    if let Some(path) = &args.hdr_out {
        let mut file = std::fs::File::create(path)
            .with_context(|| format!("cannot create --hdr-out file {}", path.display()))?;
        write_percentiles(&report.histogram, &mut file)
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write --hdr-out file {}", path.display()))?;
    }
    Ok(LoadOutcome {
        verdict: report.verdict(),
        report,
    })
}
