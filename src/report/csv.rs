//! `--csv`: one line per row × round with every figure, for spreadsheets
//! and scripts (ripgrep's benchsuite keeps a `raw.csv` the same way).
//!
//! A row without rounds (failed before measuring, or interrupted) still gets
//! one line, with its status and reason and the figures left empty, so no
//! row silently disappears. Quoting follows RFC 4180.
//!
//! The last columns say how busy each side was in the round (empty where
//! the report did not record it) and whether the row is client-bound: the
//! row's verdict from the medians over its rounds (see
//! [`crate::report::summary`]), repeated on each of its lines.

use std::io::{self, Write};

use super::model::{BenchReport, Round, Row, RowKind, RowStatus};
use super::summary::Summary;

/// The header line's columns, in order.
pub const COLUMNS: &[&str] = &[
    "framework",
    "scenario",
    "kind",
    "status",
    "reason",
    "round",
    "duration_s",
    "requests",
    "successes",
    "rps_ok",
    "rps_all",
    "latency_mean_us",
    "latency_stdev_us",
    "latency_p50_us",
    "latency_p90_us",
    "latency_p99_us",
    "latency_p999_us",
    "latency_p9999_us",
    "latency_max_us",
    "errors",
    "non_2xx",
    "mismatches",
    "client_cpu",
    "server_cpu",
    "concurrency_achieved",
    "client_bound",
    "server_wait",
    "server_user_us_per_req",
    "server_system_us_per_req",
    "client_us_per_req",
    "heap_bytes_per_req",
    "gc_us_per_req",
    "gc_share",
    "young_gcs",
    "full_gcs",
    "longest_gc_pause_us",
    "server_p50_us",
    "server_p99_us",
    "tail_in_gc",
    "all_in_gc",
    "runtime",
    "rss_mib",
    "steady_rss_mib",
    "peak_rss_mib",
    "heap_used_mib",
    "heap_total_mib",
    "external_mib",
    "per_connection_kib",
    "growth_bytes_per_million",
    "leak",
];

/// The columns after the cost figures, which every line fills: what served
/// the row and its memory (see [`tail`]).
const TAIL_COLUMNS: usize = 10;

/// Writes `report` as CSV to `out`.
pub fn write_csv(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", COLUMNS.join(","))?;
    let summary = Summary::of(report);
    // Summary::of keeps one summary per row, in the rows' order.
    for (row, row_summary) in report.rows.iter().zip(&summary.rows) {
        let kind = match row.kind {
            RowKind::Js => "js",
            RowKind::Native => "native",
        };
        let (status, reason) = match &row.status {
            RowStatus::Ok => ("ok", ""),
            RowStatus::Failed { reason, .. } => ("failed", reason.as_str()),
        };
        let lead = [
            quote(&row.framework),
            quote(&row.scenario),
            kind.to_owned(),
            status.to_owned(),
            quote(reason),
        ]
        .join(",");
        if row.rounds.is_empty() {
            let mut fields = vec![String::new(); COLUMNS.len() - 5 - TAIL_COLUMNS];
            fields.extend(tail(row, None));
            writeln!(out, "{lead},{}", fields.join(","))?;
        }
        for round in &row.rounds {
            let mut fields = figures(round);
            fields.push(row_summary.client_bound.to_string());
            fields.push(round.server_wait.map_or(String::new(), |v| v.to_string()));
            fields.extend(cost_figures(round));
            fields.extend(tail(row, Some(round)));
            writeln!(out, "{lead},{}", fields.join(","))?;
        }
    }
    Ok(())
}

/// A round's figures in [`COLUMNS`] order, each at full precision, up to
/// the row's own `client_bound` (`server_wait`, added later, comes after
/// it, so columns keep their positions).
fn figures(round: &Round) -> Vec<String> {
    let l = &round.latency_us;
    let optional = |value: Option<f64>| value.map_or(String::new(), |v| v.to_string());
    vec![
        round.index.to_string(),
        round.duration_s.to_string(),
        round.requests.to_string(),
        round.successes.to_string(),
        round.rps_ok.to_string(),
        round.rps_all.to_string(),
        l.mean.to_string(),
        l.stdev.to_string(),
        l.p50.to_string(),
        l.p90.to_string(),
        l.p99.to_string(),
        l.p999.to_string(),
        l.p9999.to_string(),
        l.max.to_string(),
        round.errors.to_string(),
        round.non_2xx.to_string(),
        round.mismatches.to_string(),
        optional(round.client_cpu),
        optional(round.server_cpu),
        optional(round.concurrency_achieved),
    ]
}

/// A round's cost per request (anatomy.rs), empty where not measured.
fn cost_figures(round: &Round) -> Vec<String> {
    let cost = round.cost.as_ref();
    let heap = cost.and_then(|c| c.heap.as_ref());
    let time = cost.and_then(|c| c.server_time.as_ref());
    let field = |value: Option<String>| value.unwrap_or_default();
    vec![
        field(cost.map(|c| c.server_user_us.to_string())),
        field(cost.map(|c| c.server_system_us.to_string())),
        field(cost.and_then(|c| c.client_us).map(|v| v.to_string())),
        field(heap.map(|h| h.bytes_per_request.to_string())),
        field(heap.map(|h| h.gc_us.to_string())),
        field(heap.map(|h| h.gc_share.to_string())),
        field(heap.map(|h| h.young_gcs.to_string())),
        field(heap.map(|h| h.full_gcs.to_string())),
        field(heap.map(|h| h.longest_pause_us.to_string())),
        field(time.map(|t| t.p50_us.to_string())),
        field(time.map(|t| t.p99_us.to_string())),
        field(time.and_then(|t| t.tail_in_gc).map(|v| v.to_string())),
        field(time.and_then(|t| t.all_in_gc).map(|v| v.to_string())),
    ]
}

/// What served the row, the round's resident set and heap after
/// collection, and the row's memory figures (empty where not measured).
fn tail(row: &Row, round: Option<&Round>) -> [String; TAIL_COLUMNS] {
    let optional = |value: Option<f64>| value.map_or(String::new(), |v| v.to_string());
    [
        quote(row.runtime()),
        optional(round.and_then(|r| r.rss_mib)),
        optional(row.memory.map(|m| m.steady_rss_mib)),
        optional(row.memory.map(|m| m.peak_rss_mib)),
        optional(round.and_then(|r| r.heap_after_gc).map(|h| h.used_mib)),
        optional(round.and_then(|r| r.heap_after_gc).map(|h| h.total_mib)),
        optional(round.and_then(|r| r.heap_after_gc).map(|h| h.external_mib)),
        optional(row.memory.and_then(|m| m.per_connection_kib)),
        optional(
            row.memory
                .and_then(|m| m.leak)
                .map(|l| l.heap_bytes_per_million.unwrap_or(l.rss_bytes_per_million)),
        ),
        row.memory
            .and_then(|m| m.leak)
            .map_or(String::new(), |l| l.flagged.to_string()),
    ]
}

/// A field quoted when it holds a comma, quote or line break (RFC 4180).
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(quote("hono"), "hono");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\"\n"), "\"say \"\"hi\"\"\n\"");
    }
}
