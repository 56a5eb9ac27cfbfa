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

use serde::{Deserialize, Serialize};

use super::format::printable;
use super::model::Row;
use super::summary::{median, Summary};
use super::table::{Align, Table};

/// What one round's requests cost, per request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RequestCost {
    /// The server process's user-space CPU time per answered request, µs.
    pub server_user_us: f64,
    /// Its kernel time per answered request, µs.
    pub server_system_us: f64,
    /// The load generator's CPU time per request it sent, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_us: Option<f64>,
    /// The JS heap's side; absent for native rows and engines without the
    /// hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap: Option<HeapCost>,
    /// The requests' time in the server; absent for native rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_time: Option<ServerTime>,
}

impl RequestCost {
    /// User plus kernel time per request, µs.
    pub fn server_us(&self) -> f64 {
        self.server_user_us + self.server_system_us
    }
}

/// Allocation and garbage collection over a round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeapCost {
    /// Bytes allocated on the JS heap per answered request.
    pub bytes_per_request: f64,
    /// GC pause time per answered request, µs.
    pub gc_us: f64,
    /// GC pause time as a share of the server's CPU time (0 to 1).
    pub gc_share: f64,
    /// Young-generation collections in the round.
    pub young_gcs: u64,
    /// Full collections in the round.
    pub full_gcs: u64,
    /// The longest single pause in the round, µs.
    pub longest_pause_us: f64,
}

/// The requests' time in the server, from arrival (the parsed head handed
/// to the app's worker) to answer (the app's response committed), and
/// whether the tail is garbage collection: the share of the requests
/// slower than this p99 that a GC pause overlapped, beside the share of all
/// requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ServerTime {
    /// The median, µs.
    pub p50_us: f64,
    /// The 99th percentile, µs.
    pub p99_us: f64,
    /// Requests slower than the p99 in the round.
    pub slower_than_p99: u64,
    /// The share of those a GC pause overlapped (0 to 1); absent on an
    /// engine without GC hooks, or with no request past the p99.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_in_gc: Option<f64>,
    /// The share of all requests a GC pause overlapped (0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_in_gc: Option<f64>,
}

/// A JS row's request served inside its runtime, with no transport (`serve
/// --in-runtime`), once after the rounds, pinned like the row's server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InRuntimeCost {
    /// Requests measured.
    pub requests: u64,
    /// CPU µs per request: the app, the framework and the adapter's JS side.
    pub cpu_us: f64,
    /// Bytes allocated on the JS heap per request (V8 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_request: Option<f64>,
    /// GC pause µs per request (V8 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_us: Option<f64>,
    /// Answers that differed from the scenario's expectation.
    pub mismatches: u64,
    /// Why the measurement could not be made, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A row's cost: the median of each figure over its rounds (each median on
/// its own, so the figures need not come from one round).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CostSummary {
    /// Server user µs per request.
    pub server_user_us: f64,
    /// Server kernel µs per request.
    pub server_system_us: f64,
    /// Client µs per request.
    pub client_us: Option<f64>,
    /// Heap figures, when every round had them.
    pub heap: Option<HeapCost>,
    /// Time in the server, when every round had it.
    pub server_time: Option<ServerTime>,
}

impl CostSummary {
    /// The medians over `row`'s rounds that recorded a cost; `None` when
    /// none did.
    pub fn of(row: &Row) -> Option<CostSummary> {
        let costs: Vec<&RequestCost> = row.rounds.iter().filter_map(|r| r.cost.as_ref()).collect();
        let of = |f: &dyn Fn(&RequestCost) -> Option<f64>| {
            median(&costs.iter().filter_map(|c| f(c)).collect::<Vec<_>>())
        };
        let heaps: Vec<&HeapCost> = costs.iter().filter_map(|c| c.heap.as_ref()).collect();
        let heap_of = |f: &dyn Fn(&HeapCost) -> f64| median(&heaps.iter().map(|h| f(h)).collect::<Vec<_>>());
        let heap = (!heaps.is_empty() && heaps.len() == costs.len()).then(|| HeapCost {
            bytes_per_request: heap_of(&|h| h.bytes_per_request).unwrap_or(0.0),
            gc_us: heap_of(&|h| h.gc_us).unwrap_or(0.0),
            gc_share: heap_of(&|h| h.gc_share).unwrap_or(0.0),
            young_gcs: heap_of(&|h| h.young_gcs as f64).unwrap_or(0.0).round() as u64,
            full_gcs: heap_of(&|h| h.full_gcs as f64).unwrap_or(0.0).round() as u64,
            longest_pause_us: heaps.iter().map(|h| h.longest_pause_us).fold(0.0, f64::max),
        });
        let times: Vec<&ServerTime> = costs.iter().filter_map(|c| c.server_time.as_ref()).collect();
        let time_of = |f: &dyn Fn(&ServerTime) -> Option<f64>| {
            median(&times.iter().filter_map(|t| f(t)).collect::<Vec<_>>())
        };
        let server_time = (!times.is_empty() && times.len() == costs.len()).then(|| ServerTime {
            p50_us: time_of(&|t| Some(t.p50_us)).unwrap_or(0.0),
            p99_us: time_of(&|t| Some(t.p99_us)).unwrap_or(0.0),
            slower_than_p99: times.iter().map(|t| t.slower_than_p99).sum(),
            tail_in_gc: time_of(&|t| t.tail_in_gc),
            all_in_gc: time_of(&|t| t.all_in_gc),
        });
        Some(CostSummary {
            server_user_us: of(&|c| Some(c.server_user_us))?,
            server_system_us: of(&|c| Some(c.server_system_us))?,
            client_us: of(&|c| c.client_us),
            heap,
            server_time,
        })
    }

    /// Server user plus kernel µs per request.
    pub fn server_us(&self) -> f64 {
        self.server_user_us + self.server_system_us
    }
}

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
const LEGEND: [&str; 9] = [
    "Anatomy: CPU time per answered request over each round's window (warm-up excluded), so it holds",
    "  even when the client set the pace. server = user + sys of the row's process; in-runtime = the same",
    "  request served inside the runtime with no socket or hyper (the app and framework; server minus it",
    "  is the transport; ! = some answers were wrong); client = the load generator's. bytes/req and GC",
    "  come from the JS engine's own hooks (V8 only; '-' where the engine or a native row has none);",
    "  GC share = GC pause time / server CPU time. p99 is the client's; server p99 times each request in",
    "  the server, from its parsed head to the app's answer; p99+ in GC = of the requests slower than the",
    "  server p99, the share a GC pause overlapped / the same share of all requests (a tail that is the",
    "  row's garbage shows a first figure well above the second).",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Percentiles, Round, RowKind};

    fn round(user: f64, heap_bytes: Option<f64>) -> Round {
        Round {
            cost: Some(RequestCost {
                server_user_us: user,
                server_system_us: 2.0,
                client_us: Some(3.0),
                heap: heap_bytes.map(|bytes_per_request| HeapCost {
                    bytes_per_request,
                    gc_us: 0.5,
                    gc_share: 0.05,
                    young_gcs: 10,
                    full_gcs: 0,
                    longest_pause_us: bytes_per_request / 100.0,
                }),
                server_time: None,
            }),
            ..Round::new(1.0, 100, 100, Percentiles::default())
        }
    }

    #[test]
    fn a_rows_cost_is_the_median_of_its_rounds_and_the_longest_pause_the_longest() {
        let mut row = Row::new("hono", "mw", RowKind::Js);
        for (user, bytes) in [(10.0, 1000.0), (30.0, 3000.0), (20.0, 2000.0)] {
            row.push_round(round(user, Some(bytes)));
        }
        let cost = CostSummary::of(&row).expect("rounds with costs");
        assert_eq!(cost.server_user_us, 20.0);
        assert_eq!(cost.server_us(), 22.0);
        let heap = cost.heap.expect("every round had heap figures");
        assert_eq!(heap.bytes_per_request, 2000.0);
        assert_eq!(heap.longest_pause_us, 30.0);
    }

    #[test]
    fn heap_figures_are_left_out_unless_every_round_has_them() {
        let mut row = Row::new("hono", "mw", RowKind::Js);
        row.push_round(round(10.0, Some(1000.0)));
        row.push_round(round(10.0, None));
        assert_eq!(CostSummary::of(&row).expect("costs").heap, None);
        let empty = Row::new("hyper", "mw", RowKind::Native);
        assert_eq!(CostSummary::of(&empty), None);
    }
}
