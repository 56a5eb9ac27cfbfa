//! What a bench run writes: the tables on stdout and every file in the
//! output directory (report.json, report.md, report.csv, chart.svg,
//! anatomy.svg when a row recorded its cost, and one HDR percentile file
//! per row), plus the `--json` and `--csv` copies.

use std::path::{Path, PathBuf};

use anyhow::Context;
use hdrhistogram::Histogram;

use super::plan::BenchPlan;
use crate::load;
use crate::report::{self, BenchReport};

/// Writes `histogram` (a row's latency over all its rounds) as
/// `hdr/<framework>-<scenario>.hgrm` under `out_dir`; returns the path.
pub fn write_hdr(
    histogram: &Histogram<u64>,
    framework: &str,
    scenario: &str,
    out_dir: &Path,
) -> anyhow::Result<PathBuf> {
    let file = out_dir.join("hdr").join(format!("{framework}-{scenario}.hgrm"));
    std::fs::File::create(&file)
        .and_then(|mut f| load::write_percentiles(histogram, &mut f))
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok(file)
}

/// Creates `path` and fills it with `writer`; errors name the file.
pub fn write_file(
    path: &Path,
    writer: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let mut file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    writer(&mut file).with_context(|| format!("cannot write {}", path.display()))
}

/// The terminal (or Markdown) tables on stdout; every report file.
pub fn write_reports(report: &BenchReport, plan: &BenchPlan) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    if plan.markdown {
        report::write_markdown(report, &mut stdout)?;
    } else {
        report::write_terminal(report, &mut stdout)?;
    }
    let out_dir = &plan.out_dir;
    write_file(&out_dir.join("report.json"), &|w| report::write_json(report, w))?;
    write_file(&out_dir.join("report.md"), &|w| report::write_markdown(report, w))?;
    write_file(&out_dir.join("report.csv"), &|w| report::write_csv(report, w))?;
    write_file(&out_dir.join("chart.svg"), &|w| report::write_svg(report, w))?;
    let mut anatomy = Vec::new();
    let anatomy_drawn = report::write_anatomy_svg(report, &mut anatomy)?;
    if anatomy_drawn {
        write_file(&out_dir.join("anatomy.svg"), &|w| w.write_all(&anatomy))?;
    }
    if let Some(path) = &plan.json {
        write_file(path, &|w| report::write_json(report, w))?;
    }
    if let Some(path) = &plan.csv {
        write_file(path, &|w| report::write_csv(report, w))?;
    }
    println!(
        "\nwall time {:.0} s; reports in {} (report.json, report.md, report.csv, chart.svg, {}hdr/)",
        report.header.wall_time_s,
        out_dir.display(),
        if anatomy_drawn { "anatomy.svg, " } else { "" }
    );
    Ok(())
}
