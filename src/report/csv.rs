//! `--csv`: one line per row × round with every figure, for spreadsheets
//! and scripts (ripgrep's benchsuite keeps a `raw.csv` the same way).
//!
//! A row without rounds (failed before measuring, or interrupted) still gets
//! one line, with its status and reason and the figures left empty, so no
//! row silently disappears. Quoting follows RFC 4180.

use std::io::{self, Write};

use super::model::{BenchReport, Round, RowKind, RowStatus};

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
];

/// Writes `report` as CSV to `out`.
pub fn write_csv(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", COLUMNS.join(","))?;
    for row in &report.rows {
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
            let empty = vec![""; COLUMNS.len() - 5];
            writeln!(out, "{lead},{}", empty.join(","))?;
        }
        for round in &row.rounds {
            writeln!(out, "{lead},{}", figures(round).join(","))?;
        }
    }
    Ok(())
}

/// A round's figures in [`COLUMNS`] order, each at full precision.
fn figures(round: &Round) -> Vec<String> {
    let l = &round.latency_us;
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
