//! The memory table of a bench report: per row its resident set while
//! serving and at its peak, the JS heap after a full collection (used, of
//! reserved) and the memory outside it, what one more connection costs,
//! and the leak check's growth per million requests, flagged past its
//! threshold (memory.rs).

use super::format::printable;
use super::memory::{HEAP_LEAK_BYTES_PER_REQUEST, RSS_LEAK_BYTES_PER_REQUEST};
use super::table::{Align, Table};
use super::BenchReport;

/// The table's title.
pub const MEMORY_TITLE: &str =
    "Memory per row: resident set, JS heap after a full collection, growth with requests";

/// The table's explanation.
pub fn legend() -> String {
    format!(
        "steady: resident set at the end of each round (median); heap: live JS objects / what the heap \
         reserved, after a full collection between rounds; external: ArrayBuffer stores and the like; \
         per conn.: resident set per extra open connection (--memory-connections); growth: the slope \
         of heap (else resident set) against requests served over the rounds, per million requests, \
         LEAK past {HEAP_LEAK_BYTES_PER_REQUEST} B (heap) or {RSS_LEAK_BYTES_PER_REQUEST} B (resident \
         set) a request."
    )
}

/// One line per row with memory figures; `None` when no row has any.
pub fn memory_table(report: &BenchReport) -> Option<Table> {
    if report.rows.iter().all(|row| row.memory.is_none()) {
        return None;
    }
    let mut table = Table::new(&[
        ("framework", Align::Left),
        ("scenario", Align::Left),
        ("steady RSS", Align::Right),
        ("peak RSS", Align::Right),
        ("heap used/total", Align::Right),
        ("external", Align::Right),
        ("per conn.", Align::Right),
        ("growth / 1M req", Align::Right),
    ]);
    let mib = |value: f64| format!("{value:.1} MiB");
    for row in &report.rows {
        let Some(memory) = row.memory else { continue };
        let growth = memory.leak.map_or("-".to_owned(), |leak| {
            let (bytes, what) = match leak.heap_bytes_per_million {
                Some(heap) => (heap, "heap"),
                None => (leak.rss_bytes_per_million, "RSS"),
            };
            let flag = if leak.flagged { " LEAK" } else { "" };
            format!("{} {what}{flag}", signed_mib(bytes))
        });
        table.push(vec![
            printable(&row.framework).into_owned(),
            printable(&row.scenario).into_owned(),
            mib(memory.steady_rss_mib),
            mib(memory.peak_rss_mib),
            memory.heap.map_or("-".to_owned(), |heap| {
                format!("{:.1}/{:.1} MiB", heap.used_mib, heap.total_mib)
            }),
            memory.heap.map_or("-".to_owned(), |heap| mib(heap.external_mib)),
            memory
                .per_connection_kib
                .map_or("-".to_owned(), |kib| format!("{kib:.1} KiB")),
            growth,
        ]);
    }
    Some(table)
}

/// Bytes as signed MiB (`+1.0 MiB`, `-0.02 MiB`).
fn signed_mib(bytes: f64) -> String {
    let mib = bytes / (1024.0 * 1024.0);
    if mib.abs() >= 10.0 {
        format!("{mib:+.0} MiB")
    } else {
        format!("{mib:+.2} MiB")
    }
}
