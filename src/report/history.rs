//! `fwbench compare` over more than two reports, or a directory of them:
//! a history. The reports are put in the order they were run (their
//! `started_at`), each row's median req/s becomes a series, and the last
//! point is read against the median of the earlier ones: the view a
//! framework author's CI wants (did this commit move hono × mw, beyond the
//! spread of the last runs?). `--fail-below PCT` fails the command when a
//! row's last point is more than PCT percent under that median, or when a
//! row that ran before failed last.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::compare::{differences, CompareOutcome};
use super::format::printable;
use super::summary::{median, Summary};
use super::table::{Align, Table};
use super::{load_json, BenchReport};

/// One row's median req/s in each report, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The row's framework.
    pub framework: String,
    /// The row's scenario.
    pub scenario: String,
    /// Its median req/s per report; `None` where it did not run or failed.
    pub points: Vec<Option<f64>>,
    /// The median of the points before the last (those it has).
    pub earlier_median: Option<f64>,
    /// The last point over `earlier_median`.
    pub change: Option<f64>,
    /// Whether it ran before and failed (or was missing) in the last.
    pub lost: bool,
}

/// Reports in run order and each row's series.
#[derive(Debug, Clone)]
pub struct History {
    /// Each report's file and when it was run, oldest first.
    pub reports: Vec<(PathBuf, String)>,
    /// What differs in set-up between the first and the last report.
    pub differences: Vec<String>,
    /// Every row any report has, in the last report's order first.
    pub series: Vec<Series>,
}

impl History {
    /// The history of `reports` (each with its file), put in run order.
    pub fn of(mut reports: Vec<(PathBuf, BenchReport)>) -> History {
        reports.sort_by(|(pa, a), (pb, b)| a.header.started_at.cmp(&b.header.started_at).then(pa.cmp(pb)));
        let summaries: Vec<Summary> = reports.iter().map(|(_, r)| Summary::of(r)).collect();
        let mut keys: Vec<(String, String)> = Vec::new();
        for summary in summaries.iter().rev() {
            for row in &summary.rows {
                let key = (row.framework.clone(), row.scenario.clone());
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
        let series = keys
            .into_iter()
            .map(|(framework, scenario)| {
                let points: Vec<Option<f64>> = summaries
                    .iter()
                    .map(|s| s.row(&framework, &scenario).and_then(|row| row.comparable_rps()))
                    .collect();
                let (last, earlier) = points.split_last().map_or((None, &[][..]), |(l, e)| (*l, e));
                let earlier: Vec<f64> = earlier.iter().flatten().copied().collect();
                let earlier_median = median(&earlier);
                let change = match (last, earlier_median) {
                    (Some(last), Some(m)) if m > 0.0 => Some(last / m),
                    _ => None,
                };
                Series {
                    framework,
                    scenario,
                    lost: last.is_none() && !earlier.is_empty(),
                    points,
                    earlier_median,
                    change,
                }
            })
            .collect();
        let differences = match (reports.first(), reports.last()) {
            (Some((_, first)), Some((_, last))) if reports.len() > 1 => differences(first, last),
            _ => Vec::new(),
        };
        History {
            reports: reports
                .into_iter()
                .map(|(path, report)| (path, report.header.started_at))
                .collect(),
            differences,
            series,
        }
    }

    /// The series whose last point is more than `threshold_pct` under the
    /// earlier median, or that ran before and not last.
    pub fn regressions(&self, threshold_pct: f64) -> Vec<&Series> {
        let floor = 1.0 - threshold_pct / 100.0;
        self.series
            .iter()
            .filter(|s| s.lost || s.change.is_some_and(|c| c < floor))
            .collect()
    }
}

/// The report files `paths` name: files as they are, and for a directory
/// its `*.json` files and its subdirectories' `report.json` (a bench's
/// `--out` directories side by side). Errors name the file.
pub fn load_reports(paths: &[PathBuf]) -> anyhow::Result<Vec<(PathBuf, BenchReport)>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            let entries =
                std::fs::read_dir(path).with_context(|| format!("cannot read {}", path.display()))?;
            for entry in entries.flatten() {
                let entry = entry.path();
                if entry.is_dir() && entry.join("report.json").is_file() {
                    found.push(entry.join("report.json"));
                } else if entry.extension().is_some_and(|e| e == "json") && is_bench_report(&entry) {
                    found.push(entry);
                }
            }
            anyhow::ensure!(
                !found.is_empty(),
                "{} holds no bench report (*.json, */report.json)",
                path.display()
            );
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    anyhow::ensure!(
        files.len() >= 2,
        "compare needs two reports or more (A.json B.json, or a directory of them); {} is one",
        files
            .first()
            .map_or_else(String::new, |f| f.display().to_string())
    );
    files
        .into_iter()
        .map(|file| Ok((file.clone(), load_json(&file)?)))
        .collect()
}

/// Whether `path` looks like a bench report rather than another JSON file
/// of its directory (sweep.json, ablation.json).
fn is_bench_report(path: &Path) -> bool {
    !matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some("sweep.json" | "ablation.json")
    )
}

/// Prints `history` and applies the `fail_below` gate.
pub fn write(history: &History, fail_below: Option<f64>, out: &mut dyn Write) -> io::Result<CompareOutcome> {
    writeln!(out, "History of {} reports, oldest first:", history.reports.len())?;
    for (i, (path, started)) in history.reports.iter().enumerate() {
        writeln!(
            out,
            "  {}  {}  {}",
            i + 1,
            printable(started),
            printable(&path.display().to_string())
        )?;
    }
    if !history.differences.is_empty() {
        writeln!(out, "\nThe first and last runs differ in set-up:")?;
        for line in &history.differences {
            writeln!(out, "  {}", printable(line))?;
        }
    }
    writeln!(out)?;
    table(history).write_text("  ", out)?;
    let Some(threshold) = fail_below else {
        return Ok(CompareOutcome::Passed);
    };
    let regressed = history.regressions(threshold);
    if regressed.is_empty() {
        writeln!(
            out,
            "\nNo row's last run is more than {threshold}% under its earlier median."
        )?;
        return Ok(CompareOutcome::Passed);
    }
    writeln!(
        out,
        "\nLast run more than {threshold}% under the earlier median (or failed):"
    )?;
    for series in &regressed {
        writeln!(
            out,
            "  {} × {}",
            printable(&series.framework),
            printable(&series.scenario)
        )?;
    }
    Ok(CompareOutcome::Regressed {
        rows: regressed.len(),
    })
}

/// The series as a table: the points, the earlier median, the last point
/// and its change.
pub(super) fn table(history: &History) -> Table {
    let mut table = Table::new(&[
        ("framework", Align::Left),
        ("scenario", Align::Left),
        ("runs", Align::Right),
        ("earlier median", Align::Right),
        ("last", Align::Right),
        ("change", Align::Right),
    ]);
    for series in &history.series {
        let ran = series.points.iter().flatten().count();
        let last = series.points.last().copied().flatten();
        table.push(vec![
            series.framework.clone(),
            series.scenario.clone(),
            format!("{ran}/{}", series.points.len()),
            series
                .earlier_median
                .map_or("-".to_owned(), |m| format!("{m:.0}")),
            last.map_or(if series.lost { "FAILED" } else { "-" }.to_owned(), |l| {
                format!("{l:.0}")
            }),
            series
                .change
                .map_or("-".to_owned(), |c| format!("{:+.1}%", (c - 1.0) * 100.0)),
        ]);
    }
    table
}
