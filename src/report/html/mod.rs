/*!
The HTML report (`report.html`): one self-contained file, beside
report.json, that opens from disk with no network access. Its style, its
script and the report's data are inline; its charts are inline SVG drawn
here. No chart library: the plots a report needs (a percentile line per
row, stacked bars) are a few hundred lines of SVG, hover values are SVG
`<title>`s, and the page's script only sorts tables and hides series, so
the file prints as it shows and has no third-party code to pin. Its size
is mostly the report's own JSON (207 KB for a bench of 22 rows, 126 KB of
it report.json).

What it holds, in the terminal report's order and from the same tables
(text.rs builds them; here they become HTML): the run header and warnings,
requests/s by framework, per scenario the ranking (sortable by any column)
and a latency percentile plot (latency.rs; each row can be hidden), the
start-up split, the anatomy as stacked bars with the anatomy table, the
runtime fidelity tables, the failed rows with their stderr, and the report
itself as JSON (`<script type="application/json" id="report-data">`).
Every string from the report is escaped (escape.rs): a framework named
`<script>…` is shown as text.
*/

mod anatomy;
mod capacity;
mod compare;
pub mod escape;
mod history;
mod latency;
mod plot;
mod warmup;

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Context;

use super::model::SCHEMA_VERSION;
use super::summary::Summary;
use super::table::{Align, Table};
use super::text;
use super::BenchReport;
pub use capacity::write_capacity_html;
pub use compare::write_compare_html;
use escape::text as esc;
pub use history::write_history_html;

/// The page's style: light and dark from the browser's preference, and a
/// print layout.
const STYLE: &str = include_str!("report.css");
/// The page's script: sortable tables and series toggles.
const SCRIPT: &str = include_str!("report.js");

/// Line colours (Tableau 10, as the SVG charts).
pub(super) const COLORS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#bab0ac",
];

/// Writes the HTML report of `report` to `out`.
pub fn write_html(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    write_html_with(report, None, out)
}

/// What a command derived from the bench report puts first on its page:
/// `sweep`'s fit per link, `sweep --ablate`'s price per concern.
pub struct Lead<'a> {
    /// Its section's title.
    pub title: &'a str,
    /// Its chart, an SVG document (sweep.svg, ablation.svg).
    pub svg: &'a str,
    /// Its tables as the terminal shows them.
    pub tables: &'a str,
}

/// [`write_html`], with `lead` as the page's first section.
pub fn write_html_with(report: &BenchReport, lead: Option<Lead<'_>>, out: &mut dyn Write) -> io::Result<()> {
    let summary = Summary::of(report);
    let mut page = Page::new(&format!("fwbench report · {}", report.header.started_at));
    page.raw("<header><h1>fwbench report</h1><ul class=\"about\">");
    for line in text::about(report, &summary) {
        let class = if line.starts_with("WARNING") {
            " class=\"warning\""
        } else {
            ""
        };
        page.raw(&format!("<li{class}>{}</li>", esc(&line)));
    }
    if report.schema_version < SCHEMA_VERSION {
        page.raw(&format!(
            "<li class=\"warning\">This report was written in schema {} (this fwbench writes {}): \
             figures added since (the CPU shares, the per-request cost and anatomy, memory) are \
             not in it and show as - or are left out.</li>",
            report.schema_version, SCHEMA_VERSION
        ));
    }
    page.raw("</ul></header>");

    let mut nav = vec![("overview".to_owned(), "requests/s".to_owned())];
    if let Some(lead) = &lead {
        nav.insert(0, ("lead".to_owned(), lead.title.to_owned()));
    }
    for (i, scenario) in summary.scenarios.iter().enumerate() {
        nav.push((format!("scenario-{i}"), scenario.clone()));
    }
    page.raw("<nav><ul>");
    for (id, label) in &nav {
        page.raw(&format!("<li><a href=\"#{id}\">{}</a></li>", esc(label)));
    }
    page.raw("<li><a href=\"#anatomy\">anatomy</a></li>");
    if report.rows.iter().any(|row| row.memory.is_some()) {
        page.raw("<li><a href=\"#memory\">memory</a></li>");
    }
    if report.rows.iter().any(|row| row.warmup_curve.is_some()) {
        page.raw("<li><a href=\"#warmup\">warm-up</a></li>");
    }
    let fidelity = text::fidelity_tables(report, &summary);
    if !fidelity.is_empty() {
        page.raw("<li><a href=\"#runtimes\">runtimes</a></li>");
    }
    page.raw("</ul></nav><main>");

    if let Some(lead) = &lead {
        page.section("lead", lead.title);
        // The chart is this program's own SVG (plotters escapes its text);
        // the XML declaration, if any, cannot stand inside HTML.
        let svg = lead.svg.trim_start();
        let svg = match svg.strip_prefix("<?xml") {
            Some(rest) => rest.split_once("?>").map_or(svg, |(_, after)| after.trim_start()),
            None => svg,
        };
        page.raw("<figure class=\"plot inline-svg\">");
        page.raw(&svg.replacen("<svg ", "<svg class=\"chart\" ", 1));
        page.raw("</figure>");
        page.raw(&format!("<pre class=\"tables\">{}</pre>", esc(lead.tables)));
        page.end_section();
    }
    page.section("overview", "Requests/s by framework (median over rounds)");
    page.table(&text::framework_table(report, &summary), "sortable");
    page.end_section();

    for (i, scenario) in summary.scenarios.iter().enumerate() {
        page.section(&format!("scenario-{i}"), &format!("Scenario {scenario}"));
        page.raw(&format!(
            "<p class=\"legend\">{}</p>",
            esc(&text::SCENARIO_LEGEND.join(" "))
        ));
        page.table(&text::scenario_table(&summary, scenario), "sortable ranking");
        let curves: Vec<latency::Curve> = summary
            .ranked(scenario)
            .iter()
            .filter_map(|row| {
                report
                    .rows
                    .iter()
                    .find(|r| r.framework == row.framework && &r.scenario == scenario)
            })
            .filter_map(latency::curve)
            .collect();
        if !curves.is_empty() {
            page.raw("<figure class=\"plot\">");
            page.raw(&latency::svg(&curves, &COLORS));
            page.raw("<figcaption>Latency by percentile (the client's, all rounds). Rows: ");
            page.toggles(curves.iter().map(|curve| curve.name.as_str()));
            page.raw("</figcaption></figure>");
        }
        page.end_section();
    }

    if let Some(table) = text::startup_table(&summary) {
        page.section("startup", text::STARTUP_TITLE);
        page.table(&table, "sortable");
        page.end_section();
    }

    page.section("anatomy", "Anatomy: where each request's server CPU time went");
    let drawn = anatomy::write(&mut page, &summary);
    if !drawn {
        page.raw("<p class=\"missing\">No row recorded its cost (the server's CPU time per request).</p>");
    }
    page.end_section();

    if let Some(table) = super::warmup_table::warmup_table(report) {
        page.section("warmup", super::warmup_table::WARMUP_TITLE);
        for scenario in &summary.scenarios {
            let curves: Vec<(&str, &crate::report::warmup::WarmupCurve)> = report
                .rows
                .iter()
                .filter(|row| &row.scenario == scenario)
                .filter_map(|row| Some((row.framework.as_str(), row.warmup_curve.as_ref()?)))
                .filter(|(_, curve)| !curve.blocks.is_empty())
                .collect();
            if curves.is_empty() {
                continue;
            }
            page.raw("<figure class=\"plot\">");
            page.raw(&warmup::svg(&curves));
            page.raw(&format!("<figcaption>Scenario {}. Rows: ", esc(scenario)));
            page.toggles(curves.iter().map(|(name, _)| *name));
            page.raw("</figcaption></figure>");
        }
        page.table(&table, "sortable");
        page.raw(&format!(
            "<p class=\"legend\">{}</p>",
            esc(&super::warmup_table::legend())
        ));
        page.end_section();
    }
    if let Some(table) = super::memory_table::memory_table(report) {
        page.section("memory", super::memory_table::MEMORY_TITLE);
        page.table(&table, "sortable");
        page.raw(&format!(
            "<p class=\"legend\">{}</p>",
            esc(&super::memory_table::legend())
        ));
        page.end_section();
    }
    if !fidelity.is_empty() {
        page.section("runtimes", "Runtimes");
        for (title, table) in &fidelity {
            page.raw(&format!("<h3>{}</h3>", esc(title)));
            page.table(table, "sortable");
        }
        page.end_section();
    }

    let failed = text::failures(report);
    if !failed.is_empty() {
        page.section("failed", "Failed rows");
        page.raw("<ul class=\"failed\">");
        for failure in failed {
            page.raw(&format!(
                "<li><strong>{}</strong>: {}",
                esc(&failure.row),
                esc(failure.reason)
            ));
            if let Some(tail) = failure.stderr_tail {
                page.raw(&format!("<pre>{}</pre>", esc(tail)));
            }
            page.raw("</li>");
        }
        page.raw("</ul>");
        page.end_section();
    }
    page.raw("</main>");

    let mut data = Vec::new();
    super::json::write_json(report, &mut data)?;
    page.raw(&format!(
        "<script type=\"application/json\" id=\"report-data\">{}</script>",
        escape::json_in_script(&String::from_utf8_lossy(&data))
    ));
    out.write_all(page.finish().as_bytes())
}

/// `fwbench html REPORT.json`: the HTML report of an earlier run.
#[derive(Debug, clap::Args)]
pub struct HtmlArgs {
    /// A report.json that `fwbench bench` wrote (its --out directory's, or
    /// --json's).
    pub report: PathBuf,
    /// Where to write the page (default: REPORT with .html for .json).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
}

/// Runs `fwbench html`: reads the report, writes its page, says where.
pub fn run(args: &HtmlArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let report = super::load_json(&args.report)?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| args.report.with_extension("html"));
    let mut page = Vec::new();
    write_html(&report, &mut page)?;
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(out, "{}", path.display())?;
    Ok(())
}

/// The document being written.
pub(super) struct Page {
    html: String,
}

impl Page {
    fn new(title: &str) -> Page {
        Page {
            html: format!(
                "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
                 <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
                 <meta name=\"color-scheme\" content=\"light dark\">\
                 <title>{}</title><style>{STYLE}</style></head><body>",
                esc(title)
            ),
        }
    }

    /// Appends markup as it is (escape what came from the report first).
    pub(super) fn raw(&mut self, markup: &str) {
        self.html.push_str(markup);
    }

    /// A plot's legend: per series (in the plot's colour order) a
    /// checkbox that shows or hides its line (report.js), and its name.
    fn toggles<'a>(&mut self, names: impl Iterator<Item = &'a str>) {
        for (j, name) in names.enumerate() {
            self.raw(&format!(
                "<label class=\"toggle\"><input type=\"checkbox\" checked data-toggle=\"{name}\">\
                 <span class=\"swatch\" style=\"background:{color}\"></span>{name}</label> ",
                name = esc(name),
                color = COLORS[j % COLORS.len()],
            ));
        }
    }

    fn section(&mut self, id: &str, title: &str) {
        self.raw(&format!("<section id=\"{}\"><h2>{}</h2>", esc(id), esc(title)));
    }

    fn end_section(&mut self) {
        self.raw("</section>");
    }

    /// `table` as an HTML table of class `class` (`sortable`: its headers
    /// sort it).
    pub(super) fn table(&mut self, table: &Table, class: &str) {
        self.raw(&format!(
            "<div class=\"scroll\"><table class=\"{}\"><thead><tr>",
            esc(class)
        ));
        for (header, align) in table.headers() {
            self.raw(&format!(
                "<th class=\"{}\" tabindex=\"0\">{}</th>",
                align_class(align),
                esc(header)
            ));
        }
        self.raw("</tr></thead><tbody>");
        for row in table.rows() {
            self.raw("<tr>");
            for (cell, (_, align)) in row.iter().zip(table.headers()) {
                self.raw(&format!(
                    "<td class=\"{}\">{}</td>",
                    align_class(align),
                    esc(cell)
                ));
            }
            self.raw("</tr>");
        }
        self.raw("</tbody></table></div>");
    }

    fn finish(mut self) -> String {
        self.raw(&format!("<script>{SCRIPT}</script></body></html>\n"));
        self.html
    }
}

fn align_class(align: Align) -> &'static str {
    match align {
        Align::Left => "l",
        Align::Right => "r",
    }
}
