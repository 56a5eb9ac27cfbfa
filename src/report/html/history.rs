//! history.html: `fwbench compare` over several reports as a page. What
//! differs between the first and last runs' set-up first, then per
//! scenario each row's req/s across the runs (a line per framework, the
//! last point's change in its hover text; rows can be hidden), then the
//! table of every series.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::escape::text as esc;
use super::plot::{Frame, LINE_PLOT};
use super::{Page, COLORS};
use crate::report::history::{self, History, Series};

/// The plot's size, and room for the axes' labels.
const FRAME: Frame = LINE_PLOT;

/// Writes `history` as one page to `out`.
pub fn write_history_html(history: &History, out: &mut dyn Write) -> io::Result<()> {
    let mut page = Page::new("fwbench history");
    page.raw(&format!(
        "<header><h1>fwbench history</h1><ul class=\"about\"><li>{} reports, oldest first</li>",
        history.reports.len()
    ));
    for (i, (path, started)) in history.reports.iter().enumerate() {
        page.raw(&format!(
            "<li>{}: {} ({})</li>",
            i + 1,
            esc(started),
            esc(&path.display().to_string())
        ));
    }
    page.raw("</ul></header><main>");
    page.section("environment", "What differs between the first and last runs");
    if history.differences.is_empty() {
        page.raw("<p>Same machine, kernel, engine, versions, fwbench and options.</p>");
    } else {
        page.raw("<ul class=\"differences warning\">");
        for line in &history.differences {
            page.raw(&format!("<li>{}</li>", esc(line)));
        }
        page.raw("</ul>");
    }
    page.end_section();
    let mut scenarios: Vec<&str> = Vec::new();
    for series in &history.series {
        if !scenarios.contains(&series.scenario.as_str()) {
            scenarios.push(&series.scenario);
        }
    }
    for (i, scenario) in scenarios.iter().enumerate() {
        page.section(
            &format!("scenario-{i}"),
            &format!("Scenario {scenario}: req/s per run"),
        );
        let lines: Vec<&Series> = history
            .series
            .iter()
            .filter(|s| s.scenario == *scenario)
            .collect();
        page.raw("<figure class=\"plot\">");
        page.raw(&svg(&lines, history.reports.len()));
        page.raw("<figcaption>Rows: ");
        page.toggles(lines.iter().map(|series| series.framework.as_str()));
        page.raw("</figcaption></figure>");
        page.end_section();
    }
    page.section(
        "series",
        "Every row: its last run against the median of the earlier ones",
    );
    page.table(&history::table(history), "sortable");
    page.end_section();
    page.raw("</main>");
    out.write_all(page.finish().as_bytes())
}

/// Lines of req/s across `runs` runs, one `<g data-series>` per row.
fn svg(lines: &[&Series], runs: usize) -> String {
    let top = lines
        .iter()
        .flat_map(|s| s.points.iter().flatten().copied())
        .fold(0.0_f64, f64::max)
        .max(1.0)
        * 1.08;
    let last = (runs.max(2) - 1) as f64;
    let x = |i: usize| FRAME.x(i as f64 / last);
    let y = |rps: f64| FRAME.y(rps, top);
    let mut svg = FRAME.open("history", "req/s per run");
    for i in 0..runs {
        FRAME.x_tick(&mut svg, x(i), &(i + 1).to_string());
    }
    FRAME.y_ticks(&mut svg, top, |rps| format!("{rps:.0}"));
    FRAME.x_title(&mut svg, "run (oldest first)");
    for (j, series) in lines.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let name = esc(&series.framework);
        let change = series.change.map_or("no earlier run".to_owned(), |c| {
            format!("last {:+.1}% vs the earlier median", (c - 1.0) * 100.0)
        });
        let _ = write!(
            svg,
            "<g class=\"series\" data-series=\"{name}\"><title>{name}: {change}</title>"
        );
        // A run the row missed breaks its line.
        let mut segment: Vec<String> = Vec::new();
        let flush = |segment: &mut Vec<String>, svg: &mut String| {
            if segment.len() > 1 {
                let _ = write!(
                    svg,
                    "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
                    segment.join(" ")
                );
            }
            segment.clear();
        };
        for (i, point) in series.points.iter().enumerate() {
            match point {
                Some(rps) => {
                    segment.push(format!("{:.1},{:.1}", x(i), y(*rps)));
                    let _ = write!(
                        svg,
                        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"><title>{name}, run {}: {rps:.0} req/s</title></circle>",
                        x(i),
                        y(*rps),
                        i + 1
                    );
                }
                None => flush(&mut segment, &mut svg),
            }
        }
        flush(&mut segment, &mut svg);
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    svg
}
