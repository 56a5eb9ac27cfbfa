//! `fwbench bench`, the main job, in its phases: start (and validate) every
//! row, measure them in interleaved rounds (A B C A B C …) with the load
//! generator pinned to one CPU set and each row's server to the other,
//! write each row's HDR file, stop the rows, write the reports.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::live::LiveRow;
use super::matrix::{MatrixRow, NotRun};
use super::measure::{measure, server_cores, to_round, Pace, RoundWindow};
use super::plan::BenchPlan;
use super::progress::Progress;
use super::row::{self, RowFailure};
use super::spec::ServerSpec;
use super::{clock, cpus, in_runtime, machine, memory, output, per_connection, warmup_curve};
use crate::cli::BenchArgs;
use crate::load;
use crate::outcome::Outcome;
use crate::report::{printable, summary, BenchReport, Pinning, RowKind, RuntimeInfo, StartupSplit};

/// Runs `fwbench bench`: builds the plan (a usage or set-up error is an
/// `Err`, before any row starts), measures it and writes the reports; fails
/// (exit 1) when any row failed or Ctrl-C or SIGTERM cut the run short.
pub fn run(args: &BenchArgs) -> anyhow::Result<Outcome> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let plan = BenchPlan::from_args(args, &tokio)?;
    let measured = measure_plan(&plan, &tokio)?;
    output::write_reports(&measured.report, &plan)?;
    Ok(measured.outcome())
}

/// A measured plan: its report, complete but for being written.
pub struct MeasuredPlan {
    /// Every row's status and rounds, the tool, the machine, the options.
    pub report: BenchReport,
    /// Whether Ctrl-C or SIGTERM stopped the rounds early.
    pub interrupted: bool,
}

impl MeasuredPlan {
    /// Passed, or failed (exit 1) when a row failed or Ctrl-C or SIGTERM
    /// cut the run short.
    pub fn outcome(&self) -> Outcome {
        let failed = self.report.rows.iter().filter(|row| !row.is_ok()).count();
        if failed > 0 {
            return Outcome::Failed(format!(
                "{failed} of {} rows failed (see the table)",
                self.report.rows.len()
            ));
        }
        // As for a load run: figures cut short by a signal are not a clean run.
        if self.interrupted {
            return Outcome::Failed(format!("stopped by {} before the last round", stop_signal()));
        }
        Outcome::Passed
    }
}

/// Runs a plan's phases: start (and validate) every row, measure the rounds,
/// write each row's HDR file, stop the rows. Writes no report: `bench` and
/// `sweep` present the figures each in its own way.
pub fn measure_plan(plan: &BenchPlan, tokio: &tokio::runtime::Runtime) -> anyhow::Result<MeasuredPlan> {
    let started = Instant::now();
    let mut report = new_report(plan)?;
    // The load generator's threads inherit this thread's CPU set; each row's
    // server is pinned to the other set when it starts.
    if plan.cpus.pinned() {
        cpus::pin_current_thread(&plan.cpus.load)?;
    }
    let cancel = load::cancel_on_signal();

    let mut live = start_rows(plan, tokio, &mut report, &cancel);
    if let Some(requests) = plan.warmup_curve {
        warmup_curve::measure(plan, requests, &mut live, &mut report, &cancel);
    }
    measure_rounds(plan, &mut live, &mut report, &cancel);
    let interrupted = cancel.load(Ordering::Relaxed);
    if interrupted {
        report.warnings.push(format!(
            "stopped by {}: only the rounds finished before it are reported",
            stop_signal()
        ));
    }
    report.warnings.extend(summary::held_back_warning(&report));
    report.warnings.extend(summary::idle_server_warning(&report));
    // The peak before any --memory-connections load: start-up and rounds.
    for row in &live {
        let peak = row
            .server
            .local_pid()
            .and_then(memory::resident)
            .map(|r| r.peak_mib);
        report
            .row_mut(row.framework, &row.scenario, row.kind)
            .note_memory(peak);
    }
    if let Some(connections) = plan
        .memory_connections
        .filter(|_| !cancel.load(Ordering::Relaxed))
    {
        per_connection::measure(plan, connections, &mut live, &mut report, &cancel);
    }
    write_hdr_files(plan, &live, &mut report);
    note_runtimes(plan, &mut report);
    let mut stopped = Vec::with_capacity(live.len());
    for row in live {
        row.server.stop();
        stopped.push((row.spec, row.scenario, row.kind));
    }
    if !interrupted && !plan.in_runtime.is_zero() {
        measure_in_runtime(plan, &stopped, &mut report, &cancel);
        report.warnings.extend(summary::in_runtime_warning(&report));
    }
    report.header.wall_time_s = started.elapsed().as_secs_f64();
    Ok(MeasuredPlan { report, interrupted })
}

/// Records what served each row (`fwbench`, `node`, …, `native`) and the
/// other runtimes' versions and binaries.
fn note_runtimes(plan: &BenchPlan, report: &mut BenchReport) {
    let runtimes = &plan.matrix.runtimes;
    for row in &mut report.rows {
        let foreign = runtimes.rows.iter().find(|r| r.framework.name == row.framework);
        // Another runtime's name, else what Row::runtime says of fwbench's
        // own and the native rows.
        row.served_by = match foreign {
            Some(foreign) => foreign.foreign.runtime.kind.name().to_owned(),
            None => row.runtime().to_owned(),
        };
    }
    report.runtimes = runtimes
        .found
        .iter()
        .map(|runtime| RuntimeInfo {
            name: runtime.kind.name().to_owned(),
            version: runtime.version.clone(),
            binary: runtime.binary.display().to_string(),
            fetch_apps_served_by: runtime.kind.serves_fetch_apps_with().to_owned(),
        })
        .collect();
    report.runtimes_missing = runtimes
        .missing
        .iter()
        .map(|(kind, why)| format!("{}: {why}", kind.name()))
        .collect();
}

/// The signal that cut the run short, for its messages.
fn stop_signal() -> &'static str {
    load::stopped_by().unwrap_or("a signal")
}

/// An empty report that records the plan, the tool and the machine.
pub fn new_report(plan: &BenchPlan) -> anyhow::Result<BenchReport> {
    let options = serde_json::to_value(plan)?;
    let mut report = BenchReport::new(
        machine::tool_info(&plan.matrix.frameworks),
        machine::describe(),
        Pinning {
            server_cpus: plan.cpus.server.clone(),
            load_cpus: plan.cpus.load.clone(),
            applied: plan.cpus.pinned(),
            note: plan.cpus.not_pinned.clone(),
        },
        options,
        clock::rfc3339_now(),
    );
    report.header_sets = plan.matrix.header_sets();
    if let Some(host) = &plan.server_machine {
        eprintln!(
            "fwbench bench: row servers on {} ({}), timing the network path",
            host.destination, host.address
        );
        report.header.server_host = Some(host.info(host.round_trips()));
    }
    report.warnings.extend(plan.cpus.not_pinned.clone());
    Ok(report)
}

/// Phase 1: starts and validates every row, in matrix order. A row that
/// fails is reported with its reason and the run goes on.
pub fn start_rows(
    plan: &BenchPlan,
    tokio: &tokio::runtime::Runtime,
    report: &mut BenchReport,
    cancel: &Arc<AtomicBool>,
) -> Vec<LiveRow> {
    let rows = plan.matrix.rows();
    eprintln!("fwbench bench: starting and validating {} rows", rows.len());
    let mut live = Vec::new();
    for row in &rows {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        live.extend(start_row(plan, row, tokio, report));
    }
    live
}

/// Starts and validates one row; `None` when it is skipped (no app for
/// its framework) or failed (recorded in `report`).
pub fn start_row(
    plan: &BenchPlan,
    row: &MatrixRow<'_>,
    tokio: &tokio::runtime::Runtime,
    report: &mut BenchReport,
) -> Option<LiveRow> {
    let framework = row.framework.name;
    let scenario = row.scenario.source.label();
    let kind = row.framework.kind();
    let info = match row.runnable() {
        Ok(info) => info,
        Err(NotRun::Skipped(_)) => return None,
        Err(NotRun::Failed(reason)) => {
            fail(
                report,
                framework,
                &scenario,
                kind,
                &RowFailure::NotRunnable(reason),
            );
            return None;
        }
    };
    let spec = ServerSpec::for_row(
        row,
        plan.workers,
        plan.cpus.for_servers(),
        plan.server_machine.clone(),
    );
    match row::start_and_validate(&spec, info, plan.start_timeout, tokio) {
        Ok(started) => {
            if let Some(first) = &started.retried_after {
                report.warnings.push(format!(
                    "{framework} / {scenario}: the first start {first}; the second started in {:.1} s",
                    started.startup.as_secs_f64()
                ));
            }
            let entry = report.row_mut(framework, &scenario, kind);
            entry.startup_s = Some(started.startup.as_secs_f64());
            entry.startup_split = started.loaded.map(|loaded| StartupSplit {
                runtime_ready_s: loaded.runtime_ready.as_secs_f64(),
                app_loaded_s: loaded.app_loaded.as_secs_f64(),
            });
            Some(LiveRow {
                framework,
                scenario,
                kind,
                server: started.server,
                spec,
                info: info.clone(),
                histogram: None,
                served: 0,
            })
        }
        Err(failure) => {
            eprintln!(
                "fwbench: {framework} / {} failed: {}",
                printable(&scenario),
                printable(&failure.to_string())
            );
            fail(report, framework, &scenario, kind, &failure);
            None
        }
    }
}

/// Records `failure` as the row's status.
fn fail(report: &mut BenchReport, framework: &str, scenario: &str, kind: RowKind, failure: &RowFailure) {
    report
        .row_mut(framework, scenario, kind)
        .fail(failure.to_string(), failure.stderr_tail());
}

/// Phase 2: every live row once per round, in the same order, until the
/// rounds are done or Ctrl-C or SIGTERM. A row that fails leaves the rounds.
fn measure_rounds(
    plan: &BenchPlan,
    live: &mut [LiveRow],
    report: &mut BenchReport,
    cancel: &Arc<AtomicBool>,
) {
    let progress = Progress::new(live.len() * plan.rounds as usize, plan.duration + plan.warmup);
    let load_threads = plan.load_threads();
    let server_cores = server_cores(plan);
    let mut step = 0;
    for round in 0..plan.rounds {
        for row in live.iter_mut() {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            progress.step(
                step,
                format!(
                    "round {}/{}  {} / {}",
                    round + 1,
                    plan.rounds,
                    row.framework,
                    row.scenario
                ),
            );
            step += 1;
            if report
                .row(row.framework, &row.scenario)
                .is_some_and(|r| !r.is_ok())
            {
                continue;
            }
            // Honesty about the conditions: each round records how busy
            // both sides were, so the report can mark a row whose load
            // generator, not its server, set the pace, and how long the
            // server waited for a CPU (a busy machine).
            let addr = row.server.addr;
            let mut window = RoundWindow::new(&mut row.server, &plan.cpus, server_cores);
            let measured = measure(
                addr,
                &row.info,
                plan,
                Pace::of_round(plan),
                load_threads,
                cancel,
                &mut |edge| window.mark(edge),
            );
            let (cpu, server) = window.finish();
            match measured {
                // A run cut short by a signal is not a round.
                Ok(measured) if measured.interrupted => return,
                // A server that ended during the round: its figures are the
                // load generator's errors against a closed port, not a
                // round (they read as a slow ok row before).
                Ok(_) if row.server.exited().is_some() => {
                    let failure = RowFailure::of_round(&mut row.server, &anyhow::anyhow!("the server ended"));
                    fail(report, row.framework, &row.scenario, row.kind, &failure);
                }
                Ok(measured) => {
                    let mut round = to_round(&measured, row.info.expect.status, load_threads, cpu, server);
                    row.served += measured.responses + measured.warmup_excluded;
                    round.served = Some(row.served);
                    // Between rounds, outside every window: the heap after
                    // a full collection in each worker.
                    round.heap_after_gc = row.server.heap_sizes().map(memory::heap_after_gc);
                    let entry = report.row_mut(row.framework, &row.scenario, row.kind);
                    entry.push_round(round);
                    match &mut row.histogram {
                        Some(all) => {
                            let _ = all.add(&measured.histogram);
                        }
                        None => row.histogram = Some(measured.histogram),
                    }
                }
                Err(error) => {
                    let failure = RowFailure::of_round(&mut row.server, &error);
                    fail(report, row.framework, &row.scenario, row.kind, &failure);
                }
            }
        }
    }
}

/// Phase 4: each JS row's request served inside its runtime, one row at a
/// time on the servers' CPUs (the row servers are stopped by then).
fn measure_in_runtime(
    plan: &BenchPlan,
    rows: &[(ServerSpec, String, RowKind)],
    report: &mut BenchReport,
    cancel: &AtomicBool,
) {
    let warmup = plan.warmup.min(plan.in_runtime);
    for (spec, scenario, kind) in rows {
        let framework = &spec.framework;
        // An app row (`--app`) has no scenario app to serve in-process:
        // its cost is the row's own telemetry.
        if *kind != RowKind::Js
            || spec.app.is_some()
            || spec.foreign.is_some()
            || cancel.load(Ordering::Relaxed)
        {
            continue;
        }
        if !report.row(framework, scenario).is_some_and(|r| r.is_ok()) {
            continue;
        }
        eprintln!(
            "fwbench bench: {framework} / {} inside its runtime",
            printable(scenario)
        );
        let cost = in_runtime::measure(spec, warmup, plan.in_runtime);
        if let Some(error) = &cost.error {
            report
                .warnings
                .push(format!("{framework} × {scenario}: no in-runtime figure: {error}"));
        }
        report.row_mut(framework, scenario, *kind).in_runtime = Some(cost);
    }
}

/// Phase 3: one HDR percentile file per row, over all its rounds.
fn write_hdr_files(plan: &BenchPlan, live: &[LiveRow], report: &mut BenchReport) {
    for row in live {
        let Some(histogram) = &row.histogram else { continue };
        match output::write_hdr(histogram, row.framework, &row.scenario, &plan.out_dir) {
            Ok(file) => {
                report.row_mut(row.framework, &row.scenario, row.kind).hdr_file =
                    Some(file.display().to_string());
            }
            Err(error) => report.warnings.push(format!("{error:#}")),
        }
    }
}
