//! `bench --warmup-curve`: each row's fresh server (started and validated,
//! nothing else sent yet) is sent N requests with the plan's connections,
//! closed loop, no warm-up, its latency recorded per block of 1,000
//! answers; the curve and where it settled go to the row's report
//! (report/warmup.rs). Rows are measured one after another, before any
//! round, so no row's curve is another's load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::live::LiveRow;
use super::measure::{measure as measure_load, Pace};
use super::plan::BenchPlan;
use crate::report::warmup::WarmupCurve;
use crate::report::{printable, BenchReport};

/// Answers per block of the curve.
pub const BLOCK: u64 = 1000;

/// Measures every live row's curve of `requests` requests.
pub fn measure(
    plan: &BenchPlan,
    requests: u64,
    live: &mut [LiveRow],
    report: &mut BenchReport,
    cancel: &Arc<AtomicBool>,
) {
    let load_threads = plan.load_threads();
    let pace = Pace {
        warmup: Duration::ZERO,
        requests: Some(requests),
        blocks: Some(BLOCK),
        ..Pace::of_round(plan)
    };
    for row in live.iter_mut() {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        eprintln!(
            "fwbench bench: {} / {} warm-up curve ({requests} requests)",
            row.framework,
            printable(&row.scenario)
        );
        let addr = row.server.addr;
        let measured = measure_load(addr, &row.info, plan, pace, load_threads, cancel, &mut |_| {});
        let problem = match &measured {
            Ok(measured) if measured.interrupted => return,
            Ok(measured) if measured.errors_total + measured.mismatches_total > 0 => Some(format!(
                "{} errors and {} unexpected answers",
                measured.errors_total, measured.mismatches_total
            )),
            Ok(_) => None,
            Err(error) => Some(format!("{error:#}")),
        };
        if let Some(problem) = problem {
            report.warnings.push(format!(
                "{} × {}: no warm-up curve: {problem}",
                row.framework, row.scenario
            ));
            continue;
        }
        let Ok(measured) = measured else { continue };
        // Its requests are served requests: the leak check counts them.
        row.served += measured.responses;
        report
            .row_mut(row.framework, &row.scenario, row.kind)
            .warmup_curve = WarmupCurve::of(BLOCK, &measured.blocks);
    }
}
