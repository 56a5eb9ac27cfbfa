//! capacity.html: `fwbench capacity`'s page. The run header, the capacity
//! table, then per row its latency against offered rate (p50, p99 and
//! p99.9 of every step, on a log scale, so a knee from 0.2 ms to seconds
//! stays readable), the target as a horizontal line and the capacity as a
//! vertical one; then every step as a table, and the report as JSON.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::escape::{json_in_script, text as esc};
use super::plot::{Frame, LINE_PLOT};
use super::{Page, COLORS};
use crate::report::capacity::{capacity_table, CapacityReport, CapacityRow, Step, LEGEND};
use crate::report::table::{Align, Table};
use crate::report::text::run_header;

/// The plot's size, and room for the axes' labels.
const FRAME: Frame = LINE_PLOT;

/// A step's figure, µs.
type Figure = fn(&Step) -> f64;

/// The percentiles drawn, with their names.
const LINES: [(&str, Figure); 3] = [
    ("p50", |s| s.p50_us),
    ("p99", |s| s.p99_us),
    ("p99.9", |s| s.p999_us),
];

/// Writes `report` as one page to `out`.
pub fn write_capacity_html(report: &CapacityReport, out: &mut dyn Write) -> io::Result<()> {
    let mut page = Page::new(&format!("fwbench capacity · {}", report.header.started_at));
    page.raw("<header><h1>fwbench capacity</h1><ul class=\"about\">");
    let extent = format!(
        "{} rows, p99 target {}",
        report.rows.len(),
        crate::units::latency(report.p99_target_us)
    );
    for line in run_header(&report.header, &extent) {
        page.raw(&format!("<li>{}</li>", esc(&line)));
    }
    for warning in &report.warnings {
        page.raw(&format!("<li class=\"warning\">WARNING: {}</li>", esc(warning)));
    }
    page.raw("</ul></header><main>");
    page.section(
        "capacity",
        "Capacity: the highest rate held within the p99 target",
    );
    page.table(&capacity_table(report), "sortable ranking");
    page.raw(&format!("<p class=\"legend\">{}</p>", esc(&LEGEND.join(" "))));
    page.end_section();
    for (i, row) in report.rows.iter().enumerate() {
        let steps: Vec<&Step> = row
            .searches
            .iter()
            .flat_map(|search| &search.steps)
            .chain(&row.below)
            .collect();
        if steps.is_empty() {
            continue;
        }
        page.section(
            &format!("row-{i}"),
            &format!(
                "{} / {}: latency against offered rate",
                row.framework, row.scenario
            ),
        );
        page.raw("<figure class=\"plot\">");
        page.raw(&svg(row, &steps, report.p99_target_us));
        page.raw("<figcaption>Every step of every search and below capacity. Lines: ");
        page.toggles(LINES.iter().map(|(name, _)| *name));
        page.raw("</figcaption></figure>");
        page.table(&steps_table(&steps), "sortable");
        page.end_section();
    }
    page.raw("</main>");
    let json = serde_json::to_string(report).map_err(io::Error::other)?;
    page.raw(&format!(
        "<script type=\"application/json\" id=\"report-data\">{}</script>",
        json_in_script(&json)
    ));
    out.write_all(page.finish().as_bytes())
}

/// The row's steps, in rate order.
fn steps_table(steps: &[&Step]) -> Table {
    let mut sorted = steps.to_vec();
    sorted.sort_by(|a, b| a.offered.total_cmp(&b.offered));
    let mut table = Table::new(&[
        ("offered", Align::Right),
        ("answered/s", Align::Right),
        ("p50", Align::Right),
        ("p99", Align::Right),
        ("p99.9", Align::Right),
        ("server µs/req", Align::Right),
        ("server cores", Align::Right),
        ("client CPU", Align::Right),
        ("sent late", Align::Right),
        ("errors", Align::Right),
        ("verdict", Align::Left),
    ]);
    let latency = crate::units::latency;
    for step in sorted {
        table.push(vec![
            format!("{:.0}", step.offered),
            format!("{:.0}", step.achieved),
            latency(step.p50_us),
            latency(step.p99_us),
            latency(step.p999_us),
            step.server_us().map_or("-".into(), |us| format!("{us:.2}")),
            step.server_cores.map_or("-".into(), |c| format!("{c:.2}")),
            format!("{:.0}%", step.client_cpu * 100.0),
            format!("{:.2}%", step.sent_late * 100.0),
            step.errors.to_string(),
            format!("{:?}", step.verdict).to_lowercase(),
        ]);
    }
    table
}

/// Latency (log scale) against offered rate: a `<g data-series>` per
/// percentile, the target and the capacity as dashed lines.
fn svg(row: &CapacityRow, steps: &[&Step], target_us: f64) -> String {
    let mut sorted = steps.to_vec();
    sorted.sort_by(|a, b| a.offered.total_cmp(&b.offered));
    let right = sorted.last().map_or(1.0, |s| s.offered).max(1.0) * 1.05;
    let highest = sorted
        .iter()
        .map(|s| s.p999_us)
        .fold(target_us, f64::max)
        .max(1.0);
    let lowest = sorted.iter().map(|s| s.p50_us).fold(target_us, f64::min).max(1.0);
    let (lo, hi) = (
        lowest.log10().floor(),
        highest.log10().ceil().max(lowest.log10().floor() + 1.0),
    );
    let x = |rate: f64| FRAME.x(rate / right);
    let y = |us: f64| FRAME.y(us.max(1.0).log10() - lo, hi - lo);
    let mut svg = FRAME.open("capacity", "latency against offered rate");
    for quarter in 0..=4 {
        let rate = right * f64::from(quarter) / 4.0;
        FRAME.x_tick(&mut svg, x(rate), &format!("{rate:.0}"));
    }
    for power in (lo as i32)..=(hi as i32) {
        let us = 10f64.powi(power);
        FRAME.y_tick(&mut svg, y(us), &crate::units::latency(us));
    }
    FRAME.x_title(&mut svg, "offered rate, req/s");
    FRAME.y_title(&mut svg, "latency (log)");
    let target = y(target_us);
    let _ = write!(
        svg,
        "<line class=\"target\" x1=\"{}\" y1=\"{target:.1}\" x2=\"{:.1}\" y2=\"{target:.1}\" \
         stroke=\"#e15759\" stroke-dasharray=\"6 4\"><title>p99 target {}</title></line>",
        FRAME.left,
        FRAME.width - FRAME.right,
        crate::units::latency(target_us)
    );
    if let Some(capacity) = row.median() {
        let knee = x(capacity);
        let _ = write!(
            svg,
            "<line class=\"knee\" x1=\"{knee:.1}\" y1=\"{}\" x2=\"{knee:.1}\" y2=\"{:.1}\" \
             stroke=\"currentColor\" stroke-dasharray=\"3 3\"><title>capacity {capacity:.0} req/s</title></line>",
            FRAME.top,
            FRAME.height - FRAME.bottom
        );
    }
    for (j, (name, value)) in LINES.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let points: Vec<String> = sorted
            .iter()
            .map(|s| format!("{:.1},{:.1}", x(s.offered), y(value(s))))
            .collect();
        let _ = write!(
            svg,
            "<g class=\"series\" data-series=\"{name}\"><polyline fill=\"none\" stroke=\"{color}\" \
             stroke-width=\"1.5\" points=\"{}\"/>",
            points.join(" ")
        );
        for step in &sorted {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"><title>{name} {} at {:.0} req/s \
                 offered ({:?})</title></circle>",
                x(step.offered),
                y(value(step)),
                crate::units::latency(value(step)),
                step.offered,
                step.verdict
            );
        }
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    svg
}
