/*!
`fwbench merge`: several `fwbench load --json=FILE` reports (usually the
N segments of one load, `--segment K/N`, run from N load generators) added
into one report.

Counts, statuses, errors and bytes are summed; the latency histograms are
added exactly (HdrHistogram's encoding travels in each report, and added
histograms give the percentiles one histogram of every sample would);
throughput is the total over the union of the runs' measured windows. The
runs must have overlapped in time: a merge of runs that never ran together
is refused, since their sum describes no load the server ever saw. The
start skew and the overlap are stated, with a warning when the overlap is
short of the union, and the segments are checked (same N, each K once).
*/

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use super::format::printable;
use super::json::MAX_REPORT_BYTES;
use crate::capped_read::read_capped;
use crate::load::{self, LatencyStats, Segment, WallWindow};
use crate::outcome::Outcome;

/// `fwbench merge A.json B.json …`
#[derive(Debug, Clone, clap::Args)]
pub struct MergeArgs {
    /// The load reports, each written by `fwbench load --json=FILE` (64
    /// MiB at most each).
    #[arg(value_name = "LOAD.json", num_args = 2.., required = true)]
    pub reports: Vec<PathBuf>,
    /// The merged report as JSON: `--json` prints it instead of the
    /// summary, `--json=FILE` writes it to FILE as well.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "-"
    )]
    pub json: Option<PathBuf>,
}

/// What merge reads of one load report.
#[derive(Debug, Clone, Deserialize)]
struct Run {
    url: String,
    mode: String,
    connections: usize,
    rate: Option<f64>,
    responses: u64,
    successes: u64,
    errors_total: u64,
    bytes_read: u64,
    status: BTreeMap<u16, u64>,
    errors: BTreeMap<String, u64>,
    mismatches_total: u64,
    flagged: bool,
    #[serde(default)]
    segment: Option<Segment>,
    window: WallWindow,
    histogram_hdr: String,
}

/// The runs added into one.
#[derive(Debug, Clone, Serialize)]
pub struct MergedReport {
    /// How many reports were added.
    pub runs: usize,
    /// The target URL (the first run's; others are warned about).
    pub url: String,
    /// `"closed"` or `"open"` loop.
    pub mode: String,
    /// Each run's segment, in the order given.
    pub segments: Vec<Option<Segment>>,
    /// Connections over all runs.
    pub connections: usize,
    /// Open loop: the rates summed.
    pub rate: Option<f64>,
    /// The union of the measured windows.
    pub window: WallWindow,
    /// Seconds from the first run's start to the last's.
    pub start_skew_s: f64,
    /// Seconds during which every run was measuring.
    pub overlap_s: f64,
    /// The union's length, seconds: what the rates are over.
    pub measured_s: f64,
    /// Responses, any status.
    pub responses: u64,
    /// 2xx responses that passed validation.
    pub successes: u64,
    /// Failed requests and connection attempts.
    pub errors_total: u64,
    /// Validation mismatches.
    pub mismatches_total: u64,
    /// Response bytes.
    pub bytes_read: u64,
    /// Responses per second over the union.
    pub requests_per_sec: f64,
    /// Successes per second over the union.
    pub successes_per_sec: f64,
    /// Responses by status.
    pub status: BTreeMap<u16, u64>,
    /// Errors by kind.
    pub errors: BTreeMap<String, u64>,
    /// Latency of every run's requests together.
    pub latency: LatencyStats,
    /// Whether any run was flagged.
    pub flagged: bool,
    /// What makes the sum less than one run of the whole load would be.
    pub warnings: Vec<String>,
    /// The added histogram, encoded as in a load report.
    pub histogram_hdr: String,
}

/// Runs `fwbench merge`: reads, adds and writes.
pub fn run(args: &MergeArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let runs = args
        .reports
        .iter()
        .map(|path| read_run(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let merged = merge(&runs, &args.reports)?;
    match args.json.as_deref() {
        Some(path) if path == Path::new("-") => {
            serde_json::to_writer_pretty(&mut *out, &merged)?;
            writeln!(out)?;
        }
        other => {
            print(&merged, out).context("cannot write the merged report")?;
            if let Some(path) = other {
                let text = serde_json::to_string_pretty(&merged)?;
                std::fs::write(path, text + "\n")
                    .with_context(|| format!("cannot write --json file {}", path.display()))?;
            }
        }
    }
    Ok(if merged.flagged {
        Outcome::Failed("a merged run is flagged (errors or mismatches; see above)".into())
    } else {
        Outcome::Passed
    })
}

fn read_run(path: &Path) -> anyhow::Result<Run> {
    let bytes =
        read_capped(path, MAX_REPORT_BYTES).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not a `fwbench load --json` report of this version (it needs window and histogram_hdr)",
            path.display()
        )
    })
}

/// Adds `runs` (read from `paths`, for messages) into one report.
fn merge(runs: &[Run], paths: &[PathBuf]) -> anyhow::Result<MergedReport> {
    let Some(first) = runs.first() else {
        bail!("nothing to merge");
    };
    let name = |i: usize| {
        paths
            .get(i)
            .map_or_else(|| format!("run {}", i + 1), |p| p.display().to_string())
    };
    let mut warnings = Vec::new();
    for (i, run) in runs.iter().enumerate().skip(1) {
        if run.mode != first.mode {
            bail!(
                "{} is an {} loop run and {} a {} loop one: they are not parts of one load",
                name(0),
                first.mode,
                name(i),
                run.mode
            );
        }
        if run.url != first.url {
            warnings.push(format!(
                "{} loaded {} and {} loaded {}: merged as one target",
                name(0),
                printable(&first.url),
                name(i),
                printable(&run.url)
            ));
        }
    }
    warnings.extend(segment_warnings(runs));
    let start = runs
        .iter()
        .map(|r| r.window.start_unix_s)
        .fold(f64::INFINITY, f64::min);
    let end = runs
        .iter()
        .map(|r| r.window.end_unix_s)
        .fold(f64::NEG_INFINITY, f64::max);
    let latest_start = runs
        .iter()
        .map(|r| r.window.start_unix_s)
        .fold(f64::NEG_INFINITY, f64::max);
    let earliest_end = runs
        .iter()
        .map(|r| r.window.end_unix_s)
        .fold(f64::INFINITY, f64::min);
    let overlap = earliest_end - latest_start;
    if overlap <= 0.0 {
        bail!(
            "the runs never measured at the same time (the last started {:.3}s after the first ended): \
             their sum is no load the server saw; start them together",
            -overlap
        );
    }
    let union = end - start;
    if overlap < 0.9 * union {
        warnings.push(format!(
            "the runs all measured together for {:.2}s of {:.2}s ({:.0}%): the rates over the union \
             understate the load while all ran (start skew {:.3}s)",
            overlap,
            union,
            overlap / union * 100.0,
            latest_start - start
        ));
    }
    let mut histogram = load::histogram::new();
    for (i, run) in runs.iter().enumerate() {
        let h = load::histogram::decode(&run.histogram_hdr)
            .map_err(|e| anyhow::anyhow!("{}: histogram_hdr: {e}", name(i)))?;
        // One sample per response: a histogram that says otherwise would
        // rewrite the merged percentiles with figures of no run.
        if h.len() != run.responses {
            bail!(
                "{}: its histogram holds {} samples and its report {} responses: they are not one run's",
                name(i),
                h.len(),
                run.responses
            );
        }
        histogram
            .add(&h)
            .map_err(|e| anyhow::anyhow!("{}: its histogram cannot be added: {e:?}", name(i)))?;
    }
    // Counts read from files: a sum past 2^64 is no load that ran.
    let too_large = || anyhow::anyhow!("the runs' counts add up past 2^64: they are not real load reports");
    let sum = |f: fn(&Run) -> u64| runs.iter().try_fold(0u64, |total, run| total.checked_add(f(run)));
    let mut status: BTreeMap<u16, u64> = BTreeMap::new();
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    for run in runs {
        for (code, n) in &run.status {
            let count = status.entry(*code).or_insert(0);
            *count = count.checked_add(*n).ok_or_else(too_large)?;
        }
        for (kind, n) in &run.errors {
            let count = errors.entry(kind.clone()).or_insert(0);
            *count = count.checked_add(*n).ok_or_else(too_large)?;
        }
    }
    let (responses, successes) = (
        sum(|r| r.responses).ok_or_else(too_large)?,
        sum(|r| r.successes).ok_or_else(too_large)?,
    );
    let (errors_total, mismatches_total, bytes_read) = (
        sum(|r| r.errors_total).ok_or_else(too_large)?,
        sum(|r| r.mismatches_total).ok_or_else(too_large)?,
        sum(|r| r.bytes_read).ok_or_else(too_large)?,
    );
    let per_sec = |n: u64| if union > 0.0 { n as f64 / union } else { 0.0 };
    Ok(MergedReport {
        runs: runs.len(),
        url: first.url.clone(),
        mode: first.mode.clone(),
        segments: runs.iter().map(|r| r.segment).collect(),
        connections: runs.iter().map(|r| r.connections).sum(),
        rate: runs.iter().map(|r| r.rate).sum(),
        window: WallWindow {
            start_unix_s: start,
            end_unix_s: end,
        },
        start_skew_s: latest_start - start,
        overlap_s: overlap,
        measured_s: union,
        responses,
        successes,
        errors_total,
        mismatches_total,
        bytes_read,
        requests_per_sec: per_sec(responses),
        successes_per_sec: per_sec(successes),
        status,
        errors,
        latency: LatencyStats::of(&histogram),
        flagged: runs.iter().any(|r| r.flagged),
        warnings,
        histogram_hdr: load::histogram::encode(&histogram),
    })
}

/// What the runs' segments say about the whole: a part missing or given
/// twice, parts of different cuts, runs that were no part.
fn segment_warnings(runs: &[Run]) -> Vec<String> {
    let segments: Vec<Segment> = runs.iter().filter_map(|r| r.segment).collect();
    if segments.is_empty() {
        return Vec::new();
    }
    if segments.len() < runs.len() {
        return vec!["some runs were segments of a load (--segment) and some were not".into()];
    }
    let n = segments[0].n;
    if segments.iter().any(|s| s.n != n) {
        return vec!["the runs are segments of different cuts (--segment K/N with different N)".into()];
    }
    let mut warnings = Vec::new();
    let missing: Vec<String> = (1..=n)
        .filter(|k| !segments.iter().any(|s| s.k == *k))
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "segments {} of {n} are missing: the merge covers part of the load",
            missing.join(", ")
        ));
    }
    for k in 1..=n {
        if segments.iter().filter(|s| s.k == k).count() > 1 {
            warnings.push(format!("segment {k}/{n} was given more than once"));
        }
    }
    warnings
}

fn print(merged: &MergedReport, out: &mut dyn Write) -> std::io::Result<()> {
    let p = &merged.latency.percentiles;
    writeln!(
        out,
        "Merged:        {} runs against {} ({} loop, {} connections)",
        merged.runs,
        printable(&merged.url),
        merged.mode,
        merged.connections
    )?;
    writeln!(
        out,
        "Windows:       union {:.2}s, all measuring together {:.2}s, start skew {:.3}s",
        merged.measured_s, merged.overlap_s, merged.start_skew_s
    )?;
    writeln!(
        out,
        "Requests:      {} responses, {:.0} req/s over the union ({} successes, {} errors, {} mismatches)",
        merged.responses,
        merged.requests_per_sec,
        merged.successes,
        merged.errors_total,
        merged.mismatches_total
    )?;
    let us = |v: u64| crate::units::latency(v as f64);
    writeln!(
        out,
        "Latency:       p50 {}  p90 {}  p99 {}  p99.9 {}  max {} (all runs' samples in one histogram)",
        us(p.p50),
        us(p.p90),
        us(p.p99),
        us(p.p999),
        us(p.max)
    )?;
    for warning in &merged.warnings {
        writeln!(out, "WARNING: {warning}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(k: u32, start: f64, end: f64, values: &[u64]) -> Run {
        let mut h = load::histogram::new();
        for &v in values {
            h.record(v).expect("in range");
        }
        Run {
            url: "http://127.0.0.1:1/".into(),
            mode: "closed".into(),
            connections: 10,
            rate: None,
            responses: values.len() as u64,
            successes: values.len() as u64,
            errors_total: 0,
            bytes_read: 100,
            status: BTreeMap::from([(200, values.len() as u64)]),
            errors: BTreeMap::new(),
            mismatches_total: 0,
            flagged: false,
            segment: Some(Segment { k, n: 2 }),
            window: WallWindow {
                start_unix_s: start,
                end_unix_s: end,
            },
            histogram_hdr: load::histogram::encode(&h),
        }
    }

    #[test]
    fn two_segments_add_up_and_rate_over_the_union() {
        let runs = [
            run(1, 100.0, 110.0, &[100, 200]),
            run(2, 100.5, 110.5, &[300, 400]),
        ];
        let merged = merge(&runs, &[]).expect("they overlap");
        assert_eq!((merged.responses, merged.connections), (4, 20));
        assert_eq!(merged.status[&200], 4);
        assert!((merged.measured_s - 10.5).abs() < 1e-9);
        assert!((merged.start_skew_s - 0.5).abs() < 1e-9);
        assert!((merged.overlap_s - 9.5).abs() < 1e-9);
        assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
        assert_eq!(merged.latency.count, 4);
        assert_eq!(merged.latency.percentiles.max, 400);
    }

    #[test]
    fn runs_that_never_overlapped_are_refused() {
        let runs = [run(1, 100.0, 110.0, &[100]), run(2, 111.0, 120.0, &[100])];
        let error = merge(&runs, &[]).expect_err("disjoint").to_string();
        assert!(error.contains("never measured at the same time"), "{error}");
    }

    /// The files are anyone's: a histogram that is not its report's, and
    /// counts that add up past 2^64, are refused, not merged.
    #[test]
    fn a_histogram_that_is_not_its_reports_and_counts_past_2_64_are_refused() {
        let mut forged = run(2, 100.0, 110.0, &[100]);
        forged.responses = 1_000_000;
        let runs = [run(1, 100.0, 110.0, &[100]), forged];
        let error = merge(&runs, &[]).expect_err("forged").to_string();
        assert!(
            error.contains("holds 1 samples and its report 1000000 responses"),
            "{error}"
        );
        let mut huge = run(2, 100.0, 110.0, &[100]);
        huge.bytes_read = u64::MAX;
        let error = merge(&[run(1, 100.0, 110.0, &[100]), huge], &[])
            .expect_err("wraps")
            .to_string();
        assert!(error.contains("past 2^64"), "{error}");
    }

    #[test]
    fn a_missing_or_doubled_segment_and_a_short_overlap_are_warned() {
        let runs = [run(1, 100.0, 110.0, &[100]), run(1, 105.0, 115.0, &[100])];
        let merged = merge(&runs, &[]).expect("they overlap");
        let all = merged.warnings.join("\n");
        assert!(all.contains("segments 2 of 2 are missing"), "{all}");
        assert!(all.contains("segment 1/2 was given more than once"), "{all}");
        assert!(all.contains("all measured together for 5.00s of 15.00s"), "{all}");
    }
}
