//! One step of a search: the row's request at a fixed rate (open loop,
//! latency from each request's due time, so a server that falls behind
//! shows it in the percentiles), measured as a bench round is (the
//! server's CPU from /proc over the window), and judged against the
//! target.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::bench::measure::{measure, server_cores, to_round, Pace, RoundWindow};
use crate::bench::{BenchPlan, LiveRow, RowFailure};
use crate::report::capacity::{Step, Verdict, ACHIEVED_SHARE, CLIENT_BUSY};

/// What a step's measurement came to: a step, or the end of the row.
pub enum StepRun {
    /// The step was measured.
    Measured(Step),
    /// Ctrl-C or SIGTERM cut it short: not a step.
    Interrupted,
    /// The server ended, or the load could not run.
    Failed(RowFailure),
}

/// Measures `row` for the plan's step at `rate` requests/s and judges it
/// against `p99_target_us`.
pub fn run_step(
    plan: &BenchPlan,
    row: &mut LiveRow,
    rate: f64,
    p99_target_us: f64,
    cancel: &Arc<AtomicBool>,
) -> StepRun {
    let load_threads = plan.load_threads();
    let pace = Pace {
        rate: Some(rate),
        ..Pace::of_round(plan)
    };
    let addr = row.server.addr;
    let mut window = RoundWindow::new(&mut row.server, &plan.cpus, server_cores(plan));
    let measured = measure(addr, &row.info, plan, pace, load_threads, cancel, &mut |edge| {
        window.mark(edge)
    });
    let (cpu, server) = window.finish();
    let measured = match measured {
        Ok(measured) if measured.interrupted => return StepRun::Interrupted,
        Ok(_) if row.server.exited().is_some() => {
            return StepRun::Failed(RowFailure::of_round(
                &mut row.server,
                &anyhow::anyhow!("the server ended"),
            ))
        }
        Ok(measured) => measured,
        Err(error) => return StepRun::Failed(RowFailure::of_round(&mut row.server, &error)),
    };
    let round = to_round(&measured, row.info.expect.status, load_threads, cpu, server);
    let wall = measured.measured_s.max(f64::EPSILON);
    let achieved = measured.responses as f64 / wall;
    let sent = (measured.responses + measured.errors_total).max(1);
    let late = measured.late.map_or(0, |late| late.count);
    let percentiles = &measured.latency.percentiles;
    let mut step = Step {
        offered: rate,
        achieved,
        p50_us: percentiles.p50 as f64,
        p99_us: percentiles.p99 as f64,
        p999_us: percentiles.p999 as f64,
        errors: round.errors + round.non_2xx + round.mismatches,
        client_cpu: round.client_cpu.unwrap_or(0.0),
        sent_late: late as f64 / sent as f64,
        server_cores: round
            .cost
            .as_ref()
            .map(|cost| cost.server_us() * measured.responses as f64 / 1e6 / wall),
        server_user_us: round.cost.as_ref().map(|cost| cost.server_user_us),
        server_system_us: round.cost.as_ref().map(|cost| cost.server_system_us),
        verdict: Verdict::Held,
    };
    step.verdict = judge(&step, p99_target_us);
    StepRun::Measured(step)
}

/// A step's verdict. A busy load generator (its CPU at [`CLIENT_BUSY`])
/// that missed the rate or the target is client-bound: the miss may be its
/// own. Otherwise errors, then a shortfall, then the p99.
pub fn judge(step: &Step, p99_target_us: f64) -> Verdict {
    let short = step.achieved < step.offered * ACHIEVED_SHARE;
    let slow = step.p99_us > p99_target_us;
    if step.client_cpu >= CLIENT_BUSY && (short || slow) {
        Verdict::ClientBound
    } else if step.errors > 0 {
        Verdict::Errors
    } else if short {
        Verdict::Short
    } else if slow {
        Verdict::Slow
    } else {
        Verdict::Held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(achieved: f64, p99_us: f64, client_cpu: f64, errors: u64) -> Step {
        Step {
            offered: 10_000.0,
            achieved,
            p50_us: 100.0,
            p99_us,
            p999_us: p99_us * 2.0,
            errors,
            client_cpu,
            sent_late: 0.0,
            server_cores: None,
            server_user_us: None,
            server_system_us: None,
            verdict: Verdict::Held,
        }
    }

    #[test]
    fn a_step_holds_only_at_the_rate_within_the_target_without_errors() {
        assert_eq!(judge(&step(9_995.0, 900.0, 0.3, 0), 1000.0), Verdict::Held);
        assert_eq!(judge(&step(9_995.0, 1100.0, 0.3, 0), 1000.0), Verdict::Slow);
        assert_eq!(judge(&step(9_800.0, 900.0, 0.3, 0), 1000.0), Verdict::Short);
        assert_eq!(judge(&step(9_995.0, 900.0, 0.3, 3), 1000.0), Verdict::Errors);
    }

    #[test]
    fn a_busy_client_that_missed_is_client_bound_never_a_server_miss() {
        assert_eq!(
            judge(&step(9_000.0, 5000.0, 0.95, 0), 1000.0),
            Verdict::ClientBound
        );
        assert_eq!(
            judge(&step(9_995.0, 5000.0, 0.95, 0), 1000.0),
            Verdict::ClientBound
        );
        // Busy but on time and within the target: the server held it.
        assert_eq!(judge(&step(9_995.0, 900.0, 0.95, 0), 1000.0), Verdict::Held);
    }
}
