//! `bench --memory-connections N`: after the rounds, each row loaded once
//! more with N connections open; its resident set at the window's end
//! against its steady figure (the rounds', with the plan's connections)
//! is what one more open connection costs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::live::LiveRow;
use super::measure::{measure as measure_load, server_cores, Pace, RoundWindow};
use super::plan::BenchPlan;
use crate::report::{printable, BenchReport};

/// Phase 2b (`--memory-connections`): each row loaded once more with
/// `connections` open, its resident set at the window's end against its
/// steady figure (the rounds', with the plan's connections): the memory
/// one more open connection costs.
pub fn measure(
    plan: &BenchPlan,
    connections: usize,
    live: &mut [LiveRow],
    report: &mut BenchReport,
    cancel: &Arc<AtomicBool>,
) {
    let load_threads = plan.load_threads();
    let pace = Pace {
        connections,
        ..Pace::of_round(plan)
    };
    for row in live.iter_mut() {
        let entry = report.row(row.framework, &row.scenario);
        let Some(steady) = entry
            .filter(|r| r.is_ok())
            .and_then(|r| r.memory)
            .map(|m| m.steady_rss_mib)
        else {
            continue;
        };
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        eprintln!(
            "fwbench bench: {} / {} with {connections} connections (memory per connection)",
            row.framework,
            printable(&row.scenario)
        );
        let addr = row.server.addr;
        let mut window = RoundWindow::new(&mut row.server, &plan.cpus, server_cores(plan));
        let measured = measure_load(addr, &row.info, plan, pace, load_threads, cancel, &mut |edge| {
            window.mark(edge)
        });
        let (_, server) = window.finish();
        match (measured, server.rss_mib) {
            (Ok(measured), Some(rss)) if !measured.interrupted && measured.errors_total == 0 => {
                let extra = (connections - plan.connections) as f64;
                let entry = report.row_mut(row.framework, &row.scenario, row.kind);
                if let Some(memory) = &mut entry.memory {
                    memory.per_connection_kib = Some((rss - steady) * 1024.0 / extra);
                }
            }
            (Ok(measured), _) if measured.errors_total > 0 => report.warnings.push(format!(
                "{} × {}: no memory per connection: {} errors with {connections} connections",
                row.framework, row.scenario, measured.errors_total
            )),
            (Err(error), _) => report.warnings.push(format!(
                "{} × {}: no memory per connection: {error:#}",
                row.framework, row.scenario
            )),
            _ => {}
        }
    }
}
