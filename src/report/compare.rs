/*!
`fwbench compare A.json B.json`: how run B differs from run A.

Per framework × scenario present in both, the ratio B/A of the median
req/s, marked `*` where the two rows' ranges [min, max] over rounds do not
overlap (the change is larger than either run's own round-to-round spread),
and `‡` after a run's req/s where that run's row was client-bound (its
figure a lower bound; reports that predate the mark have none).
Rows present in only one report are listed, and so is every difference in
fwbench or engine version, framework and dependency versions, machine,
pinning and options, because figures from different set-ups are not the
same experiment (DESIGN.md: results never silently mix engines or
versions).

With `--fail-below PCT` it is a CI gate: the run exits 1 when a row got
slower than `1 - PCT/100` of A with non-overlapping ranges, or was ok in A
and failed in B.
*/

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::format::{self, printable};
use super::json::load_json;
use super::model::BenchReport;
use super::summary::{RowSummary, Summary};
use super::table::{Align, Table};

/// `fwbench compare A.json B.json [--fail-below PCT]`, or over more
/// reports (or a directory of them) a history (history.rs).
#[derive(Debug, Clone, clap::Args)]
pub struct CompareArgs {
    /// The baseline report, written by `fwbench bench --json A.json`. A
    /// file larger than 64 MiB is refused unread (exit 2). Alone, a
    /// directory: the history of the bench reports in it (its *.json and
    /// */report.json).
    #[arg(value_name = "A.json")]
    pub a: PathBuf,
    /// The report to compare with the baseline (64 MiB at most, as A).
    #[arg(value_name = "B.json")]
    pub b: Option<PathBuf>,
    /// More reports: A, B and these are then a history, put in the order
    /// they were run; each row's last run is read against the median of
    /// its earlier ones (and `--fail-below` gates on that).
    #[arg(value_name = "MORE.json")]
    pub more: Vec<PathBuf>,
    /// Exit with status 1 when a row of B is more than PCT percent slower
    /// than in A and the rounds' ranges do not overlap, or when a row that
    /// was ok in A failed in B (for CI).
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub fail_below: Option<f64>,
    /// Where to write the comparison as a page (default: compare.html
    /// beside B.json; for a history, history.html in the directory or
    /// beside the last report named).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

impl CompareArgs {
    /// Whether these are a history (one directory, or three reports or
    /// more) rather than B against A.
    pub fn is_history(&self) -> bool {
        self.b.is_none() || !self.more.is_empty()
    }

    /// Every report named, in the order given.
    pub fn reports(&self) -> Vec<PathBuf> {
        std::iter::once(self.a.clone())
            .chain(self.b.clone())
            .chain(self.more.iter().cloned())
            .collect()
    }

    /// Where the page goes: `--html`, else compare.html beside B, or
    /// history.html in A's directory (A being one) or beside the last.
    pub fn html_path(&self) -> PathBuf {
        if let Some(path) = &self.html {
            return path.clone();
        }
        if !self.is_history() {
            let b = self.b.as_ref().unwrap_or(&self.a);
            return b.with_file_name("compare.html");
        }
        let last = self.reports().pop().unwrap_or_else(|| self.a.clone());
        if last.is_dir() {
            last.join("history.html")
        } else {
            last.with_file_name("history.html")
        }
    }
}

/// Parses a percentage such as `5` or `5%` (0 to 100).
fn parse_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%');
    match number.parse::<f64>() {
        Ok(value) if (0.0..=100.0).contains(&value) => Ok(value),
        _ => Err(format!(
            "invalid percentage '{text}': expected a number from 0 to 100, e.g. 5 or 5%"
        )),
    }
}

/// What `fwbench compare` concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOutcome {
    /// No gate was asked for, or no row crossed it.
    Passed,
    /// This many rows crossed the `--fail-below` gate.
    Regressed {
        /// Rows slower beyond the threshold, or newly failed.
        rows: usize,
    },
}

/// Loads both reports of `args`, writes the comparison to `out` and applies
impl From<CompareOutcome> for crate::outcome::Outcome {
    fn from(outcome: CompareOutcome) -> Self {
        match outcome {
            CompareOutcome::Passed => Self::Passed,
            CompareOutcome::Regressed { rows } => {
                Self::Failed(format!("{rows} row(s) regressed past --fail-below"))
            }
        }
    }
}

/// the `--fail-below` gate. Errors name the file that could not be loaded.
pub fn run(args: &CompareArgs, out: &mut dyn Write) -> anyhow::Result<CompareOutcome> {
    run_keeping(args, out).map(|(outcome, _)| outcome)
}

/// [`run`], also returning the comparison (for its page).
pub fn run_keeping(args: &CompareArgs, out: &mut dyn Write) -> anyhow::Result<(CompareOutcome, Comparison)> {
    let Some(b_path) = args.b.as_ref().filter(|_| !args.is_history()) else {
        anyhow::bail!("compare needs two reports, A and B (more, or a directory, are a history)");
    };
    let a = load_json(&args.a)?;
    let b = load_json(b_path)?;
    let comparison = Comparison::of(&a, &b);
    write(&comparison, Some((&args.a, b_path)), out).context("writing the comparison")?;
    let Some(threshold) = args.fail_below else {
        return Ok((CompareOutcome::Passed, comparison));
    };
    let regressed = comparison.regressions(threshold);
    if regressed.is_empty() {
        writeln!(out, "\nNo row regressed by more than {threshold}%.")?;
        return Ok((CompareOutcome::Passed, comparison));
    }
    writeln!(out, "\nRegressed by more than {threshold}% (or newly failed):")?;
    for row in &regressed {
        writeln!(
            out,
            "  {} × {}",
            printable(&row.framework),
            printable(&row.scenario)
        )?;
    }
    let rows = regressed.len();
    Ok((CompareOutcome::Regressed { rows }, comparison))
}

/// Writes the comparison of `b` against the baseline `a` to `out`.
pub fn compare(a: &BenchReport, b: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    write(&Comparison::of(a, b), None, out)
}

/// One framework × scenario in both reports.
#[derive(Debug, Clone, PartialEq)]
pub struct RowComparison {
    /// Framework name.
    pub framework: String,
    /// Scenario name.
    pub scenario: String,
    /// The row's summary in A.
    pub a: RowSummary,
    /// The row's summary in B.
    pub b: RowSummary,
    /// Median req/s of B divided by that of A; `None` when either is failed
    /// or without rounds.
    pub ratio: Option<f64>,
    /// Whether the rounds' [min, max] ranges of A and B do not overlap.
    pub separated: bool,
    /// Server CPU µs per request of B divided by that of A (below 1: B's
    /// server does less per request); `None` when either lacks it.
    pub server_us_ratio: Option<f64>,
}

/// Everything `compare` reports, as data.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// A's run: fwbench version, engine, start time.
    pub about_a: String,
    /// B's run, likewise.
    pub about_b: String,
    /// Each run's own warnings, prefixed `A: ` or `B: `.
    pub warnings: Vec<String>,
    /// Differences in versions, machine, pinning and options, one per line.
    pub differences: Vec<String>,
    /// Rows present in both reports, scenario by scenario.
    pub rows: Vec<RowComparison>,
    /// `framework × scenario` of rows only A has.
    pub only_in_a: Vec<String>,
    /// `framework × scenario` of rows only B has.
    pub only_in_b: Vec<String>,
}

impl Comparison {
    /// Compares `b` with the baseline `a`.
    pub fn of(a: &BenchReport, b: &BenchReport) -> Comparison {
        let (sa, sb) = (Summary::of(a), Summary::of(b));
        let scenarios = union(&sa.scenarios, &sb.scenarios);
        let frameworks = union(&sa.frameworks, &sb.frameworks);
        let mut rows = Vec::new();
        let (mut only_in_a, mut only_in_b) = (Vec::new(), Vec::new());
        for scenario in &scenarios {
            for framework in &frameworks {
                let name = format!("{framework} × {scenario}");
                match (sa.row(framework, scenario), sb.row(framework, scenario)) {
                    (Some(ra), Some(rb)) => rows.push(row_comparison(ra, rb)),
                    (Some(_), None) => only_in_a.push(name),
                    (None, Some(_)) => only_in_b.push(name),
                    (None, None) => {}
                }
            }
        }
        Comparison {
            about_a: about(a),
            about_b: about(b),
            warnings: (a.warnings.iter().map(|w| format!("A: {w}")))
                .chain(b.warnings.iter().map(|w| format!("B: {w}")))
                .collect(),
            differences: differences(a, b),
            rows,
            only_in_a,
            only_in_b,
        }
    }

    /// Rows slower in B than `1 - threshold_pct/100` of A with separated
    /// ranges, and rows ok (with rounds) in A but failed in B.
    pub fn regressions(&self, threshold_pct: f64) -> Vec<&RowComparison> {
        let floor = 1.0 - threshold_pct / 100.0;
        self.rows
            .iter()
            .filter(|row| {
                let slower = row.ratio.is_some_and(|r| r < floor) && row.separated;
                let newly_failed = row.a.comparable_rps().is_some() && row.b.failure.is_some();
                slower || newly_failed
            })
            .collect()
    }
}

fn row_comparison(a: &RowSummary, b: &RowSummary) -> RowComparison {
    let ratio = match (a.comparable_rps(), b.comparable_rps()) {
        (Some(ra), Some(rb)) if ra > 0.0 => Some(rb / ra),
        _ => None,
    };
    let separated = match (
        a.failure.is_none().then_some(a.rps_ok),
        b.failure.is_none().then_some(b.rps_ok),
    ) {
        (Some(Some(sa)), Some(Some(sb))) => !sa.overlaps(&sb),
        _ => false,
    };
    let server_us = |row: &RowSummary| row.cost.filter(|_| row.failure.is_none()).map(|c| c.server_us());
    let server_us_ratio = match (server_us(a), server_us(b)) {
        (Some(ua), Some(ub)) if ua > 0.0 => Some(ub / ua),
        _ => None,
    };
    RowComparison {
        framework: a.framework.clone(),
        scenario: a.scenario.clone(),
        a: a.clone(),
        b: b.clone(),
        ratio,
        separated,
        server_us_ratio,
    }
}

/// `first`'s names, then `second`'s that `first` lacks.
fn union(first: &[String], second: &[String]) -> Vec<String> {
    let mut names = first.to_vec();
    for name in second {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

fn about(report: &BenchReport) -> String {
    let mut parts = vec![
        format!("fwbench {}", report.header.tool.fwbench_version),
        format!("engine {}", report.header.tool.engine),
    ];
    if !report.header.machine.cpu_model.is_empty() {
        parts.push(report.header.machine.cpu_model.clone());
    }
    parts.push(format!("started {}", report.header.started_at));
    parts.join(", ")
}

/// Every difference in set-up between the two runs, one line each.
pub(super) fn differences(a: &BenchReport, b: &BenchReport) -> Vec<String> {
    let mut lines = Vec::new();
    let mut differ = |what: &str, va: String, vb: String| {
        let shown = |v: String| if v.is_empty() { "(unknown)".to_owned() } else { v };
        if va != vb {
            lines.push(format!("{what}: A {}, B {}", shown(va), shown(vb)));
        }
    };
    differ(
        "fwbench",
        a.header.tool.fwbench_version.clone(),
        b.header.tool.fwbench_version.clone(),
    );
    differ(
        "engine",
        a.header.tool.engine.clone(),
        b.header.tool.engine.clone(),
    );
    let switches = |report: &BenchReport| match &report.header.tool.engine_switches {
        set if set.is_empty() => "none".to_owned(),
        set => super::text::switches(set),
    };
    differ("engine switches", switches(a), switches(b));
    for (label, ma, mb) in [
        (
            "framework",
            &a.header.tool.framework_versions,
            &b.header.tool.framework_versions,
        ),
        (
            "dependency",
            &a.header.tool.dependency_versions,
            &b.header.tool.dependency_versions,
        ),
    ] {
        for name in union(
            &ma.keys().cloned().collect::<Vec<_>>(),
            &mb.keys().cloned().collect::<Vec<_>>(),
        ) {
            let version = |m: &std::collections::BTreeMap<String, String>| {
                m.get(&name).cloned().unwrap_or_else(|| "(absent)".to_owned())
            };
            differ(&format!("{label} {name}"), version(ma), version(mb));
        }
    }
    differ(
        "CPU",
        a.header.machine.cpu_model.clone(),
        b.header.machine.cpu_model.clone(),
    );
    differ(
        "logical CPUs",
        a.header.machine.logical_cpus.to_string(),
        b.header.machine.logical_cpus.to_string(),
    );
    differ(
        "kernel",
        a.header.machine.kernel.clone(),
        b.header.machine.kernel.clone(),
    );
    differ("OS", a.header.machine.os.clone(), b.header.machine.os.clone());
    differ(
        "server CPUs",
        format::cpus(&a.header.pinning.server_cpus),
        format::cpus(&b.header.pinning.server_cpus),
    );
    differ(
        "load CPUs",
        format::cpus(&a.header.pinning.load_cpus),
        format::cpus(&b.header.pinning.load_cpus),
    );
    // Different request headers are a different experiment, per scenario.
    for scenario in union(&a.scenarios, &b.scenarios) {
        if a.scenarios.contains(&scenario) && b.scenarios.contains(&scenario) {
            differ(
                &format!("request headers of {scenario}"),
                a.header_set(&scenario).to_owned(),
                b.header_set(&scenario).to_owned(),
            );
        }
    }
    let applied = |applied: bool| if applied { "applied" } else { "not applied" }.to_owned();
    differ(
        "pinning",
        applied(a.header.pinning.applied),
        applied(b.header.pinning.applied),
    );
    match (a.header.options.as_object(), b.header.options.as_object()) {
        (Some(oa), Some(ob)) => {
            let keys = union(
                &oa.keys().cloned().collect::<Vec<_>>(),
                &ob.keys().cloned().collect::<Vec<_>>(),
            );
            for key in keys {
                let value = |o: &serde_json::Map<String, serde_json::Value>| {
                    o.get(&key).map_or("(absent)".to_owned(), |v| v.to_string())
                };
                differ(&format!("option {key}"), value(oa), value(ob));
            }
        }
        _ => differ(
            "options",
            a.header.options.to_string(),
            b.header.options.to_string(),
        ),
    }
    lines
}

/// Renders a comparison; `paths` names the two files when known.
fn write(comparison: &Comparison, paths: Option<(&Path, &Path)>, out: &mut dyn Write) -> io::Result<()> {
    let (name_a, name_b) = match paths {
        Some((pa, pb)) => (
            format!("A = {}: ", printable(&pa.display().to_string())),
            format!("B = {}: ", printable(&pb.display().to_string())),
        ),
        None => ("A: ".to_owned(), "B: ".to_owned()),
    };
    // Every string below but the fixed text comes from the two files.
    writeln!(out, "{name_a}{}", printable(&comparison.about_a))?;
    writeln!(out, "{name_b}{}", printable(&comparison.about_b))?;
    for warning in &comparison.warnings {
        writeln!(out, "WARNING {}", printable(warning))?;
    }
    writeln!(out)?;
    if comparison.differences.is_empty() {
        writeln!(
            out,
            "Same fwbench, engine, versions, machine, pinning and options in both runs."
        )?;
    } else {
        writeln!(
            out,
            "The runs differ in set-up; the ratios below mix these changes with any in the code:"
        )?;
        for line in &comparison.differences {
            writeln!(out, "  {}", printable(line))?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "B/A of median req/s per row; * = the rounds' [min–max] ranges do not overlap; \
         µs/req = the server's CPU time per request (lower is better)"
    )?;
    let mut table = Table::new(&[
        ("scenario", Align::Left),
        ("framework", Align::Left),
        ("A req/s", Align::Right),
        ("A [min–max]", Align::Right),
        ("B req/s", Align::Right),
        ("B [min–max]", Align::Right),
        ("B/A", Align::Right),
        ("", Align::Left),
        ("A µs/req", Align::Right),
        ("B µs/req", Align::Right),
        ("B/A µs", Align::Right),
    ]);
    for row in &comparison.rows {
        let (a_median, a_range) = figures(&row.a);
        let (b_median, b_range) = figures(&row.b);
        table.push(vec![
            row.scenario.clone(),
            row.framework.clone(),
            a_median,
            a_range,
            b_median,
            b_range,
            row.ratio.map_or("-".to_owned(), |r| format!("{r:.2}")),
            note(row).to_owned(),
            server_us(&row.a),
            server_us(&row.b),
            row.server_us_ratio.map_or("-".to_owned(), |r| format!("{r:.2}")),
        ]);
    }
    table.write_text("  ", out)?;
    let marked = comparison
        .rows
        .iter()
        .any(|r| r.a.client_bound_shares().is_some() || r.b.client_bound_shares().is_some());
    if marked {
        writeln!(
            out,
            "  {}: client-bound in that run (its load generator, not the server, set the pace): a lower bound",
            format::CLIENT_BOUND
        )?;
    }
    let single = comparison
        .rows
        .iter()
        .any(|r| r.ratio.is_some() && (r.a.rounds < 2 || r.b.rounds < 2));
    if single {
        writeln!(
            out,
            "  (rows with a single round have no range, so their * says little: use --rounds 3 or more)"
        )?;
    }
    for (label, names) in [("A", &comparison.only_in_a), ("B", &comparison.only_in_b)] {
        if !names.is_empty() {
            writeln!(out)?;
            writeln!(out, "Only in {label}: {}", printable(&names.join(", ")))?;
        }
    }
    Ok(())
}

/// The last column: `*` for separated ranges, or which run failed.
fn note(row: &RowComparison) -> &'static str {
    match (row.a.failure.is_some(), row.b.failure.is_some()) {
        (true, true) => "failed in both",
        (true, false) => "failed in A",
        (false, true) => "failed in B",
        (false, false) if row.separated => "*",
        (false, false) => "",
    }
}

/// A row's server CPU µs per request, or `-`.
fn server_us(row: &RowSummary) -> String {
    match (&row.failure, row.cost) {
        (None, Some(cost)) => format!("{:.2}", cost.server_us()),
        _ => "-".to_owned(),
    }
}

/// A row's median and range cells, or FAILED / no rounds.
fn figures(row: &RowSummary) -> (String, String) {
    match (&row.failure, row.rps_ok) {
        (Some(_), _) => ("FAILED".to_owned(), "-".to_owned()),
        (None, None) => ("no rounds".to_owned(), "-".to_owned()),
        (None, Some(s)) => (
            format::rps_marked(s.median, row.client_bound_shares().is_some()),
            format::rps_range(s.min, s.max),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_parse_with_or_without_sign() {
        assert_eq!(parse_percent("5"), Ok(5.0));
        assert_eq!(parse_percent("2.5%"), Ok(2.5));
        assert!(parse_percent("-1").is_err());
        assert!(parse_percent("five").unwrap_err().contains("e.g. 5"));
    }

    #[test]
    fn runs_that_sent_other_header_sets_say_so_per_scenario() {
        let report = |sets: &[(&str, &str)]| {
            let mut report = BenchReport::new(
                Default::default(),
                Default::default(),
                Default::default(),
                serde_json::json!({}),
                "2026-12-01T00:00:00Z",
            );
            report.scenarios = vec!["hello".into(), "mw".into()];
            report.header_sets = sets.iter().map(|(s, h)| (s.to_string(), h.to_string())).collect();
            report
        };
        // A report from before header sets sent minimal everywhere.
        let old = report(&[]);
        let browser_hello = report(&[("hello", "browser"), ("mw", "minimal")]);
        assert_eq!(
            differences(&old, &browser_hello),
            ["request headers of hello: A minimal, B browser"]
        );
        assert!(differences(&browser_hello, &browser_hello).is_empty());
    }

    #[test]
    fn union_keeps_first_order() {
        let a = vec!["x".to_owned(), "y".to_owned()];
        let b = vec!["z".to_owned(), "x".to_owned()];
        assert_eq!(union(&a, &b), ["x", "y", "z"]);
    }
}
