//! What `sweep` and `sweep --ablate` write, the same way for both: the
//! result's tables on stdout; its JSON, CSV and SVG in the output
//! directory (`sweep.json`, …, or `ablation.json`, …) beside the bench
//! report it was derived from; and the `--json` and `--csv` copies.

use std::io::{self, Write};

use serde::Serialize;

use crate::bench::output::write_file;
use crate::bench::BenchPlan;
use crate::report::{BenchReport, RunHeader};

/// The writers of a result derived from a bench report.
pub(crate) struct Writers<R> {
    /// The stem of its files (`sweep` for sweep.json, sweep.csv, sweep.svg).
    pub name: &'static str,
    /// Its section's title in report.html.
    pub title: &'static str,
    /// Its tables, for the terminal.
    pub terminal: fn(&R, &mut dyn Write) -> io::Result<()>,
    /// Its CSV.
    pub csv: fn(&R, &mut dyn Write) -> io::Result<()>,
    /// Its chart.
    pub svg: fn(&R, &mut dyn Write) -> io::Result<()>,
}

/// Writes `result` (whose run header is `header`) with `writers`, and the
/// `report` it came from, as the module doc says.
pub(crate) fn write_outputs<R: Serialize>(
    result: &R,
    header: &RunHeader,
    writers: &Writers<R>,
    report: &BenchReport,
    plan: &BenchPlan,
) -> anyhow::Result<()> {
    // The tables and the chart are rendered once: for the terminal and
    // report.html, and for the .svg file and report.html.
    let (mut tables, mut svg) = (Vec::new(), Vec::new());
    (writers.terminal)(result, &mut tables)?;
    (writers.svg)(result, &mut svg)?;
    io::stdout().lock().write_all(&tables)?;
    let json = |out: &mut dyn Write| {
        serde_json::to_writer_pretty(&mut *out, result)?;
        writeln!(out)
    };
    let csv = |out: &mut dyn Write| (writers.csv)(result, out);
    let name = writers.name;
    let out_dir = &plan.out_dir;
    write_file(&out_dir.join(format!("{name}.json")), &json)?;
    write_file(&out_dir.join(format!("{name}.csv")), &csv)?;
    write_file(&out_dir.join(format!("{name}.svg")), &|out| out.write_all(&svg))?;
    write_file(&out_dir.join("report.json"), &|out| {
        crate::report::write_json(report, out)
    })?;
    write_file(&out_dir.join("report.html"), &|out| {
        let lead = crate::report::Lead {
            title: writers.title,
            svg: &String::from_utf8_lossy(&svg),
            tables: &String::from_utf8_lossy(&tables),
        };
        crate::report::write_html_with(report, Some(lead), out)
    })?;
    if let Some(path) = &plan.json {
        write_file(path, &json)?;
    }
    if let Some(path) = &plan.csv {
        write_file(path, &csv)?;
    }
    println!(
        "\nwall time {:.0} s; results in {} (report.html, {name}.json, {name}.csv, {name}.svg, report.json, hdr/)",
        header.wall_time_s,
        out_dir.display()
    );
    Ok(())
}
