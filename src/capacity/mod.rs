//! `fwbench capacity`: the highest request rate each row holds with its
//! p99 within a target, the question a team sizing a service asks rather
//! than the flat-out req/s of `bench`.
//!
//! Rows are started and validated as `bench` starts them (same matrix
//! flags, one pinned server process per row). Each search ([`search`]) is
//! a sequence of fixed-rate steps ([`step`]): open loop from the load
//! generator's pacer, latency from each request's due time, the server's
//! CPU from /proc. One row's server runs at a time (unlike bench's
//! interleaved rounds): at a millisecond target, the idle servers of other
//! rows on the same CPUs (their runtimes' timers and idle-time garbage
//! collections) put milliseconds into the measured row's tail. Its
//! searches run back to back; their spread is the capacity's interval.
//! Then the row is measured at 10 %, 50 % and 90 % of its capacity: the
//! server's CPU per request below saturation, which is what a bill
//! reflects.
//!
//! - `search.rs`: the ramp and bisection, with no I/O;
//! - `step.rs`: one step and its verdict;
//! - `output.rs`: capacity.json, capacity.md, capacity.html.

mod output;
pub mod search;
pub mod step;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;

use crate::bench::matrix::Matrix;
use crate::bench::{self, cpus, BenchPlan, LiveRow};
use crate::cli::CapacityArgs;
use crate::load;
use crate::outcome::Outcome;
use crate::report::capacity::{CapacityReport, CapacityRow, Found, Search, CAPACITY_SCHEMA_VERSION};
use crate::report::{printable, RowStatus};
use search::{Bounds, RateSearch};
use step::{run_step, StepRun};

/// The shares of its capacity each row is measured at after the searches.
pub const BELOW: [f64; 3] = [0.1, 0.5, 0.9];

/// Runs `fwbench capacity`: starts the rows, searches each one's capacity
/// `--repeats` times, measures it below saturation, writes the reports.
/// Fails (exit 1) when a row failed or a signal cut the run short.
pub fn run(args: &CapacityArgs) -> anyhow::Result<Outcome> {
    if args.min_rate >= args.max_rate {
        bail!(
            "--min-rate ({}) must be below --max-rate ({})",
            args.min_rate,
            args.max_rate
        );
    }
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let matrix = Matrix::resolve(&args.matrix, &tokio)?;
    let mut plan = BenchPlan::new(matrix, &args.run_args())?;
    plan.markdown = args.markdown;
    let started = Instant::now();
    // Before pinning: the report counts the CPUs this process may use.
    let mut bench_report = bench::new_report(&plan)?;
    if plan.cpus.pinned() {
        cpus::pin_current_thread(&plan.cpus.load)?;
    }
    let cancel = load::cancel_on_signal();
    if let serde_json::Value::Object(options) = &mut bench_report.header.options {
        options.insert("p99_target_us".into(), (args.p99.as_secs_f64() * 1e6).into());
        options.insert("min_rate".into(), args.min_rate.into());
        options.insert("max_rate".into(), args.max_rate.into());
        options.insert("precision".into(), args.precision.into());
    }
    let mut report = CapacityReport {
        schema_version: CAPACITY_SCHEMA_VERSION,
        header: bench_report.header.clone(),
        p99_target_us: args.p99.as_secs_f64() * 1e6,
        rows: Vec::new(),
        warnings: bench_report.warnings.clone(),
    };
    let bounds = Bounds {
        floor: args.min_rate,
        ceiling: args.max_rate,
        precision: args.precision,
    };
    // One row's server at a time: at a tight target, other rows' idle
    // servers on the same CPUs (their runtimes' timers and idle-time
    // collections) put milliseconds into the measured row's tail.
    for row in plan.matrix.rows() {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        let Some(mut live) = bench::start_row(&plan, &row, &tokio, &mut bench_report) else {
            continue;
        };
        measure_row(&plan, &mut live, bounds, &mut report, &cancel);
        live.server.stop();
    }
    // Rows that failed to start or validate.
    for row in &bench_report.rows {
        if let RowStatus::Failed { reason, .. } = &row.status {
            report.rows.push(CapacityRow {
                framework: row.framework.clone(),
                scenario: row.scenario.clone(),
                failed: Some(reason.clone()),
                searches: Vec::new(),
                below: Vec::new(),
            });
        }
    }
    let interrupted = cancel.load(Ordering::Relaxed);
    if interrupted {
        report.warnings.push(format!(
            "stopped by {}: only the steps finished before it are reported",
            load::stopped_by().unwrap_or("a signal")
        ));
    }
    report.header.wall_time_s = started.elapsed().as_secs_f64();
    output::write(&report, &plan)?;
    let failed = report.rows.iter().filter(|row| row.failed.is_some()).count();
    Ok(if failed > 0 {
        Outcome::Failed(format!(
            "{failed} of {} rows failed (see the table)",
            report.rows.len()
        ))
    } else if interrupted {
        Outcome::Failed("stopped by a signal before the last search".into())
    } else {
        Outcome::Passed
    })
}

/// `--repeats` searches of `row`'s capacity, then its steps below the
/// median capacity, into `report`.
fn measure_row(
    plan: &BenchPlan,
    row: &mut LiveRow,
    bounds: Bounds,
    report: &mut CapacityReport,
    cancel: &Arc<AtomicBool>,
) {
    let target_us = report.p99_target_us;
    for repeat in 0..plan.rounds {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let label = format!(
            "{} / {} search {}/{}",
            row.framework,
            row.scenario,
            repeat + 1,
            plan.rounds
        );
        let search = search_row(plan, row, bounds, target_us, &label, cancel);
        let entry = row_entry(report, row);
        match search {
            Ok(search) => entry.searches.push(search),
            Err(failure) => {
                entry.failed = Some(failure);
                return;
            }
        }
    }
    let Some(capacity) = row_entry(report, row).median() else {
        return;
    };
    for share in BELOW {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        match run_step(plan, row, capacity * share, target_us, cancel) {
            StepRun::Measured(step) => row_entry(report, row).below.push(step),
            StepRun::Interrupted => return,
            StepRun::Failed(failure) => {
                row_entry(report, row).failed = Some(failure.to_string());
                return;
            }
        }
    }
}

/// The report's entry for `row`.
fn row_entry<'a>(report: &'a mut CapacityReport, row: &LiveRow) -> &'a mut CapacityRow {
    let index = report
        .rows
        .iter()
        .position(|entry| entry.framework == row.framework && entry.scenario == row.scenario);
    match index {
        Some(index) => &mut report.rows[index],
        None => {
            report.rows.push(CapacityRow {
                framework: row.framework.to_owned(),
                scenario: row.scenario.clone(),
                failed: None,
                searches: Vec::new(),
                below: Vec::new(),
            });
            report.rows.last_mut().expect("just pushed")
        }
    }
}

/// One search of `row`'s capacity; `Err` with the failure when its server
/// ended or could not be loaded.
fn search_row(
    plan: &BenchPlan,
    row: &mut LiveRow,
    bounds: Bounds,
    target_us: f64,
    label: &str,
    cancel: &Arc<AtomicBool>,
) -> Result<Search, String> {
    let mut search = RateSearch::new(bounds);
    let mut steps = Vec::new();
    while let Some(rate) = search.next_rate() {
        match run_step(plan, row, rate, target_us, cancel) {
            StepRun::Measured(step) => {
                eprintln!(
                    "fwbench capacity: {}: {:.0} req/s offered, {:.0} answered, p99 {} → {:?}",
                    printable(label),
                    step.offered,
                    step.achieved,
                    crate::units::latency(step.p99_us),
                    step.verdict
                );
                search.record(rate, step.verdict);
                steps.push(step);
            }
            StepRun::Interrupted => {
                return Ok(Search {
                    steps,
                    found: Found::Unfinished,
                })
            }
            StepRun::Failed(failure) => return Err(failure.to_string()),
        }
    }
    Ok(Search {
        steps,
        found: search.found(),
    })
}
