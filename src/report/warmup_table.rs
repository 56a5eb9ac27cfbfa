//! The warm-up table of a bench report (`--warmup-curve`): per row its
//! first block of answers against its final state, and after how many
//! requests and how long its median settled (report/warmup.rs).

use super::format::{self, printable};
use super::table::{Align, Table};
use super::warmup::{FINAL_BLOCKS, STEADY_BLOCKS, STEADY_WITHIN, STEADY_WITHIN_AT_MOST};
use super::BenchReport;

/// The table's title.
pub const WARMUP_TITLE: &str = "Warm-up from the server's first request (blocks of 1,000 answers)";

/// The table's explanation.
pub fn legend() -> String {
    format!(
        "first: the first block's p50, p99 and req/s; final: the median of the last {FINAL_BLOCKS} \
         blocks; settled: the requests and time before the first of {STEADY_BLOCKS} blocks in a row \
         with a p50 within {:.0}% of the final one, or within the final blocks' own spread when that \
         is wider (at most {:.0}%: band); \"not within N\" when the curve never settled.",
        STEADY_WITHIN * 100.0,
        STEADY_WITHIN_AT_MOST * 100.0
    )
}

/// One line per row with a curve; `None` when none has one.
pub fn warmup_table(report: &BenchReport) -> Option<Table> {
    if report.rows.iter().all(|row| row.warmup_curve.is_none()) {
        return None;
    }
    let mut table = Table::new(&[
        ("framework", Align::Left),
        ("scenario", Align::Left),
        ("first p50", Align::Right),
        ("first p99", Align::Right),
        ("first req/s", Align::Right),
        ("final p50", Align::Right),
        ("final req/s", Align::Right),
        ("band", Align::Right),
        ("settled after", Align::Right),
        ("in", Align::Right),
    ]);
    let latency = crate::units::latency;
    for row in &report.rows {
        let Some(curve) = &row.warmup_curve else { continue };
        let Some(first) = curve.blocks.first() else {
            continue;
        };
        let mut last: Vec<f64> = curve
            .blocks
            .iter()
            .rev()
            .take(FINAL_BLOCKS)
            .map(|b| b.requests_per_sec)
            .collect();
        last.sort_by(f64::total_cmp);
        let total: u64 = curve.blocks.iter().map(|b| b.answers).sum();
        let (after, time) = match curve.steady {
            Some(steady) => (
                format!("{} req", steady.requests),
                crate::units::start_up(steady.seconds),
            ),
            None => (format!("not within {total}"), "-".to_owned()),
        };
        table.push(vec![
            printable(&row.framework).into_owned(),
            printable(&row.scenario).into_owned(),
            latency(first.p50_us),
            latency(first.p99_us),
            format::rps(first.requests_per_sec),
            latency(curve.final_p50_us),
            format::rps(last[last.len() / 2]),
            format!("±{:.0}%", curve.band * 100.0),
            after,
            time,
        ]);
    }
    Some(table)
}
