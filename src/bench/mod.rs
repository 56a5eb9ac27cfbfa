//! Orchestration: the framework × scenario matrix, one server process per
//! row pinned to its CPU set, validation before load, and (in `run`) warm-up
//! and interleaved rounds.
//!
//! - `plan.rs`: [`BenchPlan`], `bench`'s flags validated before anything
//!   starts; `cpus.rs` the CPU sets; `matrix.rs` the rows.
//! - `spec.rs`: what a row's server is (its `serve` command line, CPUs and
//!   machine); `server.rs`: its running process, started and stopped
//!   through `launch.rs` (here, or on another machine), its banner read by
//!   `banner.rs` (the port it names checked to be its own by
//!   `listening.rs`) and its end told by `exit.rs`; `row.rs`: bringing a row
//!   up (start, validate, the typed [`RowFailure`]), for `check` and
//!   `bench`.
//! - `run.rs`: `bench` in its phases, over its [`LiveRow`]s (`live.rs`);
//!   `measure.rs` one measurement (closed loop or at a rate, for a time
//!   or a number of requests), `cpu_time.rs` how busy and how held back
//!   the server was during it, `memory.rs` its resident memory and JS
//!   heap; `warmup_curve.rs` (`--warmup-curve`) each row's first requests
//!   block by block, `per_connection.rs` (`--memory-connections`) what one
//!   more open connection costs; `output.rs` the files it writes;
//!   `machine.rs`, `clock.rs` what the report records about the run.
//! - `child.rs`: a child process's output, bounded in time and size (the
//!   server machine's checks, the in-runtime runs).
//! - `runtimes/`: `--runtime`, rows served by Node, Deno or Bun from the
//!   app files written out (`kit.rs`) and started by js/launch/launch.mjs.
//! - `remote.rs`: `--server-host`, the row servers on another machine over
//!   SSH (checked before any row; its command built there, launched
//!   through `launch.rs`).

mod banner;
mod child;
mod clock;
mod cpu_time;
pub mod cpus;
mod exit;
mod in_runtime;
mod launch;
mod listening;
mod live;
mod machine;
pub mod matrix;
pub mod measure;
pub mod memory;
pub mod output;
mod per_connection;
pub mod plan;
mod probe;
mod progress;
pub mod remote;
pub mod row;
mod run;
pub mod runtimes;
pub mod server;
pub mod spec;
mod telemetry;
mod warmup_curve;

pub use live::LiveRow;
pub use plan::BenchPlan;
pub use row::RowFailure;
pub use run::{measure_plan, new_report, run, start_row, start_rows, MeasuredPlan};

use crate::cli::CheckArgs;
use crate::frameworks::{self, RowKind};
use crate::outcome::Outcome;
use crate::report::printable;
use crate::scenario::Suite;
use spec::ServerSpec;

/// `fwbench check`: validates every row against its scenario's
/// expectations, writes one line per row (with its start-up time) to
/// `out`, and fails if any row fails.
pub fn check(args: &CheckArgs, out: &mut dyn std::io::Write) -> anyhow::Result<Outcome> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let matrix = matrix::Matrix::resolve(&args.matrix, &runtime)?;
    let machine = remote::ServerMachine::connect(&args.remote)?.map(std::sync::Arc::new);
    let rows = matrix.rows();
    let width = matrix
        .framework_names()
        .iter()
        .map(|name| name.len())
        .max()
        .unwrap_or(0);
    let scenario_width = matrix
        .scenarios
        .iter()
        .map(|s| s.source.label().chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    let (mut failed, mut skipped) = (0, 0);
    for row in &rows {
        let name = &row.scenario.source.label();
        let outcome = match row.runnable() {
            Err(matrix::NotRun::Skipped(reason)) => {
                skipped += 1;
                writeln!(
                    out,
                    "skip    {:<scenario_width$} {:<width$}  {}",
                    printable(name),
                    row.framework.name,
                    printable(&reason)
                )?;
                continue;
            }
            Err(matrix::NotRun::Failed(reason)) => Err(RowFailure::NotRunnable(reason)),
            Ok(info) => {
                let spec = ServerSpec::for_row(row, 1, Vec::new(), machine.clone());
                row::start_and_validate(&spec, info, args.start_timeout, &runtime).map(|started| {
                    let ms = |d: std::time::Duration| crate::units::start_up(d.as_secs_f64());
                    let split = started.loaded.map(|loaded| {
                        format!(
                            " (runtime ready {}, app loaded {}, first answer {})",
                            ms(loaded.runtime_ready),
                            ms(loaded.app_loaded),
                            ms(started.startup)
                        )
                    });
                    let startup = (started.startup, split.unwrap_or_default());
                    started.server.stop();
                    startup
                })
            }
        };
        match outcome {
            Ok((startup, split)) => writeln!(
                out,
                "ok      {:<scenario_width$} {:<width$}  started in {:.2} s{split}",
                printable(name),
                row.framework.name,
                startup.as_secs_f64()
            )?,
            Err(failure) => {
                failed += 1;
                let mut text = failure.to_string();
                if let Some(tail) = failure.stderr_tail() {
                    text = format!("{text}\n{tail}");
                }
                // The reason and the tail come from the scenario and its
                // server: each line escaped, the line breaks kept.
                let lines: Vec<_> = text.lines().map(printable).collect();
                writeln!(
                    out,
                    "FAILED  {:<scenario_width$} {:<width$}  {}",
                    printable(name),
                    row.framework.name,
                    lines.join("\n        ")
                )?;
            }
        }
    }
    let passed = rows.len() - failed - skipped;
    writeln!(
        out,
        "fwbench check: {passed} passed, {failed} failed, {skipped} skipped"
    )?;
    if failed > 0 {
        return Ok(Outcome::Failed(format!(
            "{failed} of {} rows failed validation",
            rows.len() - skipped
        )));
    }
    Ok(Outcome::Passed)
}

/// `fwbench list`: the engine, every framework with its version, and the
/// built-in scenarios with what they measure.
pub fn list() -> anyhow::Result<()> {
    list_to(&mut std::io::stdout().lock())
}

/// [`list`] into `out` (its write errors, e.g. a closed pipe, are returned,
/// not a panic as `println!` would make them).
fn list_to(out: &mut impl std::io::Write) -> anyhow::Result<()> {
    writeln!(out, "engine: {}", crate::engine::engine_name())?;
    writeln!(out, "snapshot: {}", crate::engine::snapshot::describe())?;
    writeln!(out, "\nframeworks:")?;
    let width = frameworks::FRAMEWORKS
        .iter()
        .map(|f| f.name.len())
        .max()
        .unwrap_or(0);
    for framework in frameworks::FRAMEWORKS {
        let kind = match framework.kind() {
            RowKind::Js => "js",
            RowKind::Native => "native",
        };
        writeln!(
            out,
            "  {:<width$}  {kind:<6}  {:<34}  {}",
            framework.name,
            frameworks::version(framework),
            framework.about
        )?;
    }
    writeln!(
        out,
        "\nscenarios (built in, with their suite: `bench` runs the default one, `--suite full` \
         all; pass --scenario FILE for your own, format in scenarios/README.md):"
    )?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let scenarios = runtime.block_on(matrix::load(matrix::scenarios(None, Some(Suite::Full), &[])?));
    let width = scenarios
        .iter()
        .map(|s| s.source.name.len())
        .max()
        .unwrap_or(0)
        .max(8);
    for scenario in &scenarios {
        // `bench` with no arguments runs the default suite; the others run
        // with --suite full or --only.
        let suite = if Suite::Default.contains(&scenario.source.name) {
            "default"
        } else {
            "full"
        };
        match &scenario.info {
            Ok(info) => writeln!(
                out,
                "  {:<width$} {suite:<7} {} {:<10} {}",
                scenario.source.name, info.request.method, info.request.path, info.description
            )?,
            Err(error) => writeln!(
                out,
                "  {:<width$} {suite:<7} (fails to load: {error})",
                scenario.source.name
            )?,
        }
    }
    Ok(())
}
