/*!
The human summary of a [`LoadReport`], in wrk's spirit (latency table,
requests/sec, transfer/sec) plus what wrk leaves out: throughput of
successes apart from all responses, status and error counts, validation,
open-loop send delays, the client's own CPU use and the warnings. Written to
an injected writer so tests can read it.
*/

use std::io::{self, Write};

use super::histogram::LatencyStats;
use super::report::LoadReport;
use crate::units;

/// Writes the human summary of `r` to `out`.
pub fn print(r: &LoadReport, out: &mut dyn Write) -> io::Result<()> {
    let what = match (r.duration_s, r.requests_planned) {
        (Some(d), None) => format!("{} test", units::wall_time(d)),
        (None, Some(n)) => format!("{n}-request test"),
        (Some(d), Some(n)) => format!("{n}-request test (at most {})", units::wall_time(d)),
        (None, None) => "test".to_string(),
    };
    writeln!(out, "Running {what} @ {}", r.url)?;
    let mut shape = format!(
        "  {} loop, {} thread{}, {} connection{}",
        r.mode,
        r.threads,
        plural(r.threads as u64),
        r.connections,
        plural(r.connections as u64)
    );
    if let Some(rate) = r.rate {
        shape += &format!(", {rate} requests/s");
    }
    if r.pipeline > 1 {
        shape += &format!(", pipeline {}", r.pipeline);
    }
    if r.warmup_s > 0.0 {
        shape += &format!(", warm-up {} excluded", units::wall_time(r.warmup_s));
    }
    writeln!(out, "{shape}\n")?;

    writeln!(
        out,
        "  {:<13}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}",
        "Latency", "mean", "stdev", "p50", "p90", "p99", "p99.9", "p99.99", "max"
    )?;
    let label = if r.mode == "open" { "  corrected" } else { "" };
    latency_row(out, label, &r.latency)?;
    if let Some(s) = &r.service_time {
        latency_row(out, "  uncorrected", s)?;
        writeln!(
            out,
            "  (corrected: from each request's intended send time; uncorrected: from the actual send)"
        )?;
    }
    writeln!(out)?;

    writeln!(
        out,
        "  {} responses in {}, {} read",
        r.responses,
        units::wall_time(r.measured_s),
        fmt_bytes(r.bytes_read as f64)
    )?;
    writeln!(
        out,
        "  Requests/sec:  {:>12.2}  (all responses)",
        r.requests_per_sec
    )?;
    writeln!(
        out,
        "  Successes/sec: {:>12.2}  (2xx and validated: {} of {})",
        r.successes_per_sec, r.successes, r.responses
    )?;
    writeln!(out, "  Transfer/sec:  {:>12}", fmt_bytes(r.bytes_per_sec))?;

    let statuses: Vec<String> = r.status.iter().map(|(s, n)| format!("{s}: {n}")).collect();
    writeln!(
        out,
        "  Status:        {}",
        if statuses.is_empty() {
            "none".to_string()
        } else {
            statuses.join(", ")
        }
    )?;
    if r.errors_total == 0 {
        writeln!(out, "  Errors:        none")?;
    } else {
        let kinds: Vec<String> = r
            .errors
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(out, "  Errors:        {} ({})", r.errors_total, kinds.join(", "))?;
        for example in r.error_examples.values() {
            writeln!(out, "                 first: {example}")?;
        }
    }
    if r.mismatches_total == 0 {
        writeln!(out, "  Validation:    passed ({} responses checked)", r.responses)?;
    } else {
        let kinds: Vec<String> = r.mismatches.iter().map(|(k, n)| format!("{k} {n}")).collect();
        writeln!(
            out,
            "  Validation:    FAILED: {} mismatches ({})",
            r.mismatches_total,
            kinds.join(", ")
        )?;
        if let Some(e) = &r.mismatch_example {
            writeln!(out, "                 example: {e}")?;
        }
    }
    if let Some(late) = &r.late {
        writeln!(
            out,
            "  Late sends:    {} of {} more than {} behind schedule (mean {}, worst {})",
            late.count,
            r.responses,
            units::latency(late.threshold_us as f64),
            units::latency(late.mean_us),
            units::latency(late.max_us as f64)
        )?;
    }
    let threads: Vec<String> = r
        .client
        .threads
        .iter()
        .map(|t| format!("{:.0}%", t.utilization * 100.0))
        .collect();
    writeln!(
        out,
        "  Client:        thread CPU {}; process {:.2} CPU-s ({:.0}% of one CPU, {:.2} µs/request); peak RSS {}",
        threads.join(" "),
        r.client.process_cpu_s,
        r.client.process_cpu_per_wall * 100.0,
        r.client.cpu_us_per_request,
        fmt_bytes(r.client.peak_rss_kib as f64 * 1024.0)
    )?;
    let requested = r
        .concurrency
        .requested
        .map_or(String::new(), |q| format!(" of {q:.0} requested"));
    writeln!(
        out,
        "  Concurrency:   {:.1} in flight on average{requested}; {} connections opened",
        r.concurrency.achieved, r.concurrency.connections_opened
    )?;
    if r.warmup_excluded > 0 {
        writeln!(out, "  Warm-up:       {} outcomes excluded", r.warmup_excluded)?;
    }
    if !r.warnings.is_empty() {
        writeln!(out)?;
        for w in &r.warnings {
            writeln!(out, "WARNING: {w}")?;
        }
    }
    Ok(())
}

fn latency_row(out: &mut dyn Write, label: &str, s: &LatencyStats) -> io::Result<()> {
    let p = &s.percentiles;
    writeln!(
        out,
        "  {:<13}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}",
        label,
        units::latency(p.mean),
        units::latency(p.stdev),
        units::latency(p.p50 as f64),
        units::latency(p.p90 as f64),
        units::latency(p.p99 as f64),
        units::latency(p.p999 as f64),
        units::latency(p.p9999 as f64),
        units::latency(p.max as f64),
    )
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Formats a byte count with binary units, as wrk does.
pub fn fmt_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = b;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.2}{}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_take_binary_units() {
        assert_eq!(fmt_bytes(512.0), "512.00B");
        assert_eq!(fmt_bytes(1536.0), "1.50KB");
        assert_eq!(fmt_bytes(3.0 * 1024.0 * 1024.0), "3.00MB");
    }
}
