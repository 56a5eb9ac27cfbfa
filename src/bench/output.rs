//! What a bench run writes: the tables on stdout and every file in the
//! output directory (report.html, report.json, report.md, report.csv, chart.svg,
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

/// Fills `path` with `writer`, whole or not at all: the bytes go to a
/// temporary file beside it, which replaces `path` only once written and
/// flushed, so a full disk or a failed writer leaves no truncated report
/// (the old file, if any, stays). A path that is not a regular file
/// (`/dev/stdout`, a pipe) is written directly. Errors name the file.
pub fn write_file(
    path: &Path,
    writer: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if path.metadata().is_ok_and(|meta| !meta.is_file()) {
        let mut file =
            std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        return writer(&mut file).with_context(|| format!("cannot write {}", path.display()));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let partial = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let written = std::fs::File::create(&partial)
        .and_then(|file| {
            let mut out = std::io::BufWriter::new(file);
            writer(&mut out)?;
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        })
        .and_then(|()| std::fs::rename(&partial, path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(error).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
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
    write_file(&out_dir.join("report.html"), &|w| report::write_html(report, w))?;
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
        "\nwall time {:.0} s; reports in {} (report.html, report.json, report.md, report.csv, chart.svg, {}hdr/)",
        report.header.wall_time_s,
        out_dir.display(),
        if anatomy_drawn { "anatomy.svg, " } else { "" }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_that_fails_leaves_the_old_file_and_no_partial_one() {
        let dir = std::env::temp_dir().join(format!("fwbench-write-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let path = dir.join("report.json");
        write_file(&path, &|out| out.write_all(b"{\"first\": 1}")).expect("written");
        let error = write_file(&path, &|out| {
            out.write_all(b"{\"half")?;
            Err(std::io::Error::other("No space left on device"))
        })
        .expect_err("the writer failed");
        assert!(
            format!("{error:#}").contains("No space left on device"),
            "{error:#}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "{\"first\": 1}");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("report.json")]);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
