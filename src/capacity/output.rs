//! What a capacity run writes: its table on stdout, and capacity.json,
//! capacity.md and capacity.html in the output directory (each whole or
//! not at all).

use crate::bench::output::write_file;
use crate::bench::BenchPlan;
use crate::report::capacity::{write_capacity, CapacityReport};
use crate::report::html::write_capacity_html;

/// The table on stdout (Markdown with `--markdown`) and every file.
pub fn write(report: &CapacityReport, plan: &BenchPlan) -> anyhow::Result<()> {
    write_capacity(report, plan.markdown, &mut std::io::stdout().lock())?;
    let dir = &plan.out_dir;
    write_file(&dir.join("capacity.json"), &|w| {
        serde_json::to_writer_pretty(&mut *w, report).map_err(std::io::Error::other)?;
        writeln!(w)
    })?;
    write_file(&dir.join("capacity.md"), &|w| write_capacity(report, true, w))?;
    write_file(&dir.join("capacity.html"), &|w| write_capacity_html(report, w))?;
    eprintln!(
        "fwbench capacity: wrote capacity.json, capacity.md and capacity.html in {}",
        dir.display()
    );
    Ok(())
}
