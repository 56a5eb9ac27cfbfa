/*!
Where one request's cost goes: the server's CPU time per answered request
(user and kernel apart), the load generator's, and on the JS engine's side
the bytes allocated and the garbage collection it caused.

Every figure is per request and measured over the round's window only (the
warm-up excluded), so it stays right when the client, not the server, sets
the pace: a row whose req/s is a lower bound still has its true cost per
request. A row's figure is the median over its rounds.

A figure the engine cannot give (QuickJS-ng has no GC hooks, a native row
has no JS heap) is absent, never made up.
*/

use std::io::{self, Write};

use super::cost::{InRuntimeCost, ServerTime};
use super::format::printable;
use super::summary::Summary;
use super::table::{Align, Table};

/// The anatomy table of `scenario`: its rows in rank order, each with its
/// cost per request; `None` when no row recorded one.
pub fn anatomy_table(summary: &Summary, scenario: &str) -> Option<Table> {
    let rows = summary.ranked(scenario);
    if rows.iter().all(|r| r.cost.is_none()) {
        return None;
    }
    let mut table = Table::new(&[
        ("Framework", Align::Left),
        ("server µs/req", Align::Right),
        ("user", Align::Right),
        ("sys", Align::Right),
        ("in-runtime µs", Align::Right),
        ("client µs/req", Align::Right),
        ("bytes/req", Align::Right),
        ("GC µs/req", Align::Right),
        ("GC share", Align::Right),
        ("GCs young/full", Align::Right),
        ("longest pause", Align::Right),
        ("p99", Align::Right),
        ("server p99", Align::Right),
        ("p99+ in GC", Align::Right),
    ]);
    let none = || "-".to_owned();
    for row in rows {
        let Some(cost) = &row.cost else {
            continue;
        };
        let heap = cost.heap;
        table.push(vec![
            printable(&row.framework).into_owned(),
            format!("{:.2}", cost.server_us()),
            format!("{:.2}", cost.server_user_us),
            format!("{:.2}", cost.server_system_us),
            in_runtime(row.in_runtime.as_ref()),
            cost.client_us.map_or_else(none, |us| format!("{us:.2}")),
            heap.map_or_else(none, |h| bytes(h.bytes_per_request)),
            heap.map_or_else(none, |h| format!("{:.2}", h.gc_us)),
            heap.map_or_else(none, |h| format!("{:.1}%", h.gc_share * 100.0)),
            heap.map_or_else(none, |h| format!("{}/{}", h.young_gcs, h.full_gcs)),
            heap.map_or_else(none, |h| crate::units::latency(h.longest_pause_us)),
            row.p99_us.map_or_else(none, crate::units::latency),
            cost.server_time
                .map_or_else(none, |t| crate::units::latency(t.p99_us)),
            cost.server_time.map_or_else(none, tail_in_gc),
        ]);
    }
    Some(table)
}

/// The in-runtime cell: µs, `!` when its answers were wrong, `-` when not
/// measured or it failed.
fn in_runtime(cost: Option<&InRuntimeCost>) -> String {
    match cost {
        Some(cost) if cost.error.is_none() && cost.requests > 0 => {
            let wrong = if cost.mismatches > 0 { "!" } else { "" };
            format!("{:.2}{wrong}", cost.cpu_us)
        }
        _ => "-".to_owned(),
    }
}

/// The tail's GC share beside all requests': `62% / 4%`.
fn tail_in_gc(time: ServerTime) -> String {
    match (time.tail_in_gc, time.all_in_gc) {
        (Some(tail), Some(all)) => format!("{:.0}% / {:.0}%", tail * 100.0, all * 100.0),
        _ => "-".to_owned(),
    }
}

/// Bytes for people: B, KiB or MiB with one decimal.
fn bytes(n: f64) -> String {
    if n >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", n / (1024.0 * 1024.0))
    } else if n >= 1024.0 {
        format!("{:.1} KiB", n / 1024.0)
    } else {
        format!("{n:.0} B")
    }
}

/// Writes every scenario's anatomy table, with its legend, to `out`.
pub fn write_anatomy(summary: &Summary, out: &mut dyn Write) -> io::Result<()> {
    let tables: Vec<(&String, Table)> = summary
        .scenarios
        .iter()
        .filter_map(|s| Some((s, anatomy_table(summary, s)?)))
        .collect();
    if tables.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    for line in LEGEND {
        writeln!(out, "{line}")?;
    }
    for (scenario, table) in tables {
        writeln!(out)?;
        writeln!(
            out,
            "Anatomy of scenario {} (per request, median over rounds)",
            printable(scenario)
        )?;
        table.write_text("  ", out)?;
    }
    Ok(())
}

/// What the anatomy columns mean.
pub const LEGEND: [&str; 10] = [
    "Anatomy: CPU time per answered request over each round's window (warm-up excluded), so it holds",
    "  even when the client set the pace. server = user + sys of the row's process; in-runtime = the same",
    "  request served inside the runtime with no socket or hyper (the app and framework; server minus it",
    "  is the transport; ! = some answers were wrong); client = the load generator's. bytes/req and GC",
    "  come from the JS engine's own hooks (V8 only; '-' where the engine or a native row has none); on",
    "  @node and @deno rows from V8's --trace-gc-nvp lines (bytes counted at each collection; none on Bun);",
    "  GC share = GC pause time / server CPU time. p99 is the client's; server p99 times each request in",
    "  the server, from its parsed head to the app's answer; p99+ in GC = of the requests slower than the",
    "  server p99, the share a GC pause overlapped / the same share of all requests (a tail that is the",
    "  row's garbage shows a first figure well above the second).",
];
