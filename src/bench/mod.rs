//! Orchestration: the framework × scenario matrix, one server process per
//! row pinned to its CPU set, validation before load, and (in `run`) warm-up
//! and interleaved rounds.

mod machine;
pub mod matrix;
mod probe;
mod progress;
pub mod registry;
mod run;
mod server;

pub use run::run;

use std::time::Duration;

use crate::cli::{CheckArgs, Outcome};
use crate::scenario;
use server::{ServerProcess, ServerSpec};

/// How long a row's server may take to start (frameworks load in ~0.1–0.3 s).
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// `fwbench check`: validates every row against its scenario's
/// expectations, prints one line per row, and fails if any row fails.
pub fn check(args: &CheckArgs) -> anyhow::Result<Outcome> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let matrix = matrix::Matrix::resolve(&args.matrix, &runtime)?;
    let rows = matrix.rows();
    let width = matrix.frameworks.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let (mut failed, mut skipped) = (0, 0);
    for row in &rows {
        let name = &row.scenario.source.name;
        let outcome = match &row.not_run {
            Some(matrix::NotRun::Skipped(reason)) => {
                skipped += 1;
                println!("skip    {name:<8} {:<width$}  {reason}", row.framework.name);
                continue;
            }
            Some(matrix::NotRun::Failed(reason)) => Err(reason.clone()),
            None => runtime.block_on(validate_row(row)),
        };
        match outcome {
            Ok(()) => println!("ok      {name:<8} {:<width$}", row.framework.name),
            Err(reason) => {
                failed += 1;
                println!(
                    "FAILED  {name:<8} {:<width$}  {}",
                    row.framework.name,
                    reason.replace('\n', "\n        ")
                );
            }
        }
    }
    let passed = rows.len() - failed - skipped;
    println!("fwbench check: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        return Ok(Outcome::Failed(format!(
            "{failed} of {} rows failed validation",
            rows.len() - skipped
        )));
    }
    Ok(Outcome::Passed)
}

/// Starts a row's server, sends the scenario's request once and checks the
/// answer; the error says what differed (or why the server did not start).
async fn validate_row(row: &matrix::Row<'_>) -> Result<(), String> {
    let Ok(info) = &row.scenario.info else {
        return Err("the scenario failed to load".into());
    };
    let spec = ServerSpec {
        framework: row.framework.name.to_owned(),
        scenario: row.scenario.source.url_arg(),
        workers: 1,
        cpus: Vec::new(),
    };
    let mut server = ServerProcess::start(&spec, START_TIMEOUT).map_err(|e| format!("{e:#}"))?;
    let seen = probe::send(server.addr, &info.request, Duration::from_secs(10)).await;
    let seen = match seen {
        Ok(seen) => seen,
        Err(error) => {
            let crashed = server
                .check_alive()
                .err()
                .map(|e| format!("; {e:#}"))
                .unwrap_or_default();
            return Err(format!("{error:#}{crashed}"));
        }
    };
    let problems = scenario::mismatches(&info.expect, &seen);
    server.stop();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// `fwbench list`: the engine, every framework with its version, and the
/// built-in scenarios with what they measure.
pub fn list() -> anyhow::Result<()> {
    println!("engine: {}", crate::engine::engine_name());
    println!("\nframeworks:");
    let width = registry::FRAMEWORKS
        .iter()
        .map(|f| f.name.len())
        .max()
        .unwrap_or(0);
    for framework in registry::FRAMEWORKS {
        let kind = match framework.kind {
            registry::Kind::Js => "js",
            registry::Kind::Native => "native",
        };
        println!(
            "  {:<width$}  {kind:<6}  {:<34}  {}",
            framework.name,
            registry::version(framework),
            framework.about
        );
    }
    println!("\nscenarios (built in; pass --scenario FILE for your own, format in scenarios/README.md):");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let scenarios = runtime.block_on(matrix::load(matrix::scenarios(None, &[])?));
    for scenario in &scenarios {
        match &scenario.info {
            Ok(info) => println!(
                "  {:<8} {} {:<10} {}",
                scenario.source.name, info.request.method, info.request.path, info.description
            ),
            Err(error) => println!("  {:<8} (fails to load: {error})", scenario.source.name),
        }
    }
    Ok(())
}
