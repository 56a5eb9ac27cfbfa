//! compare.html: `fwbench compare A B` as a page. What changed in the
//! set-up comes first (machine, kernel, engine, framework and fwbench
//! versions, options, pinning: the comparison's own list of differences),
//! so a reader sees "the kernel changed" before "hono got slower"; then the
//! rows past `--fail-below`, then every row's ratio B/A with the interval
//! the rounds allow (B's slowest over A's fastest to B's fastest over A's
//! slowest), as a sortable table and as bars around 1.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::escape::text as esc;
use super::Page;
use crate::report::compare::{Comparison, RowComparison};
use crate::report::table::{Align, Table};

/// Bar chart size in SVG units.
const WIDTH: f64 = 760.0;
const LABEL: f64 = 220.0;
const BAR: f64 = 16.0;
const GAP: f64 = 6.0;

/// Writes `comparison` (B against the baseline A) as one page to `out`;
/// `fail_below` marks the rows that gate would fail.
pub fn write_compare_html(
    comparison: &Comparison,
    fail_below: Option<f64>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut page = Page::new("fwbench compare");
    page.raw("<header><h1>fwbench compare</h1><ul class=\"about\">");
    page.raw(&format!("<li>A (baseline): {}</li>", esc(&comparison.about_a)));
    page.raw(&format!("<li>B: {}</li>", esc(&comparison.about_b)));
    page.raw("</ul></header><main>");

    page.section("environment", "What differs between the two runs");
    if comparison.differences.is_empty() {
        page.raw("<p>Same machine, kernel, engine, framework versions, fwbench and options.</p>");
    } else {
        page.raw(
            "<p class=\"warning\">The runs differ in set-up: a ratio below may be this, not the code.</p>\
             <ul class=\"differences\">",
        );
        for line in &comparison.differences {
            page.raw(&format!("<li>{}</li>", esc(line)));
        }
        page.raw("</ul>");
    }
    if !comparison.warnings.is_empty() {
        page.raw("<h3>Warnings of the runs</h3><ul>");
        for warning in &comparison.warnings {
            page.raw(&format!("<li class=\"warning\">{}</li>", esc(warning)));
        }
        page.raw("</ul>");
    }
    page.end_section();

    if let Some(threshold) = fail_below {
        page.section("regressions", &format!("Past --fail-below {threshold}%"));
        let regressed = comparison.regressions(threshold);
        if regressed.is_empty() {
            page.raw(&format!("<p>No row regressed by more than {threshold}%.</p>"));
        } else {
            page.table(&rows_table(regressed.into_iter()), "sortable regressed");
        }
        page.end_section();
    }

    page.section("rows", "Every row: req/s of B over A");
    page.raw(
        "<p class=\"legend\">ratio = B's median req/s over A's; interval = B's slowest round over A's \
         fastest to B's fastest over A's slowest; * = the rounds' ranges do not overlap; µs ratio = \
         B's server CPU µs per request over A's (below 1 is cheaper).</p>",
    );
    if !comparison.rows.is_empty() {
        page.raw("<figure class=\"plot\">");
        page.raw(&bars(&comparison.rows));
        page.raw("</figure>");
    }
    page.table(&rows_table(comparison.rows.iter()), "sortable ratios");
    for (label, names) in [
        ("Only in A", &comparison.only_in_a),
        ("Only in B", &comparison.only_in_b),
    ] {
        if !names.is_empty() {
            page.raw(&format!("<h3>{label}</h3><ul>"));
            for name in names {
                page.raw(&format!("<li>{}</li>", esc(name)));
            }
            page.raw("</ul>");
        }
    }
    page.end_section();
    page.raw("</main>");
    out.write_all(page.finish().as_bytes())
}

/// The interval of B/A the rounds allow, if both have rounds.
fn interval(row: &RowComparison) -> Option<(f64, f64)> {
    let (a, b) = (row.a.rps_ok?, row.b.rps_ok?);
    (a.min > 0.0 && a.max > 0.0).then(|| (b.min / a.max, b.max / a.min))
}

fn rows_table<'a>(rows: impl Iterator<Item = &'a RowComparison>) -> Table {
    let mut table = Table::new(&[
        ("framework", Align::Left),
        ("scenario", Align::Left),
        ("A req/s", Align::Right),
        ("B req/s", Align::Right),
        ("ratio", Align::Right),
        ("interval", Align::Right),
        ("µs ratio", Align::Right),
    ]);
    let rps = |row: &crate::report::summary::RowSummary| match (&row.failure, row.rps_ok) {
        (Some(_), _) => "FAILED".to_owned(),
        (None, Some(spread)) => format!("{:.0}", spread.median),
        (None, None) => "-".to_owned(),
    };
    for row in rows {
        table.push(vec![
            row.framework.clone(),
            row.scenario.clone(),
            rps(&row.a),
            rps(&row.b),
            row.ratio.map_or("-".to_owned(), |r| {
                format!("{r:.3}{}", if row.separated { " *" } else { "" })
            }),
            interval(row).map_or("-".to_owned(), |(lo, hi)| format!("{lo:.2}–{hi:.2}")),
            row.server_us_ratio.map_or("-".to_owned(), |r| format!("{r:.3}")),
        ]);
    }
    table
}

/// One bar per row from 1.0 to its ratio, its interval as a whisker.
fn bars(rows: &[RowComparison]) -> String {
    let widest = rows
        .iter()
        .filter_map(|row| {
            let (lo, hi) = interval(row).unwrap_or((1.0, 1.0));
            Some(
                (row.ratio? - 1.0)
                    .abs()
                    .max((lo - 1.0).abs())
                    .max((hi - 1.0).abs()),
            )
        })
        .fold(0.05_f64, f64::max)
        .min(2.0);
    let height = rows.len() as f64 * (BAR + GAP) + 30.0;
    let one = LABEL + (WIDTH - LABEL - 20.0) / 2.0;
    let scale = (WIDTH - LABEL - 20.0) / 2.0 / widest;
    let x = |ratio: f64| (one + (ratio - 1.0) * scale).clamp(LABEL, WIDTH - 20.0);
    let mut svg = format!(
        "<svg class=\"chart compare\" viewBox=\"0 0 {WIDTH} {height:.0}\" role=\"img\" aria-label=\"B over A per row\">\
         <line class=\"grid\" x1=\"{one:.1}\" y1=\"0\" x2=\"{one:.1}\" y2=\"{:.1}\"/>",
        height - 24.0
    );
    for (i, row) in rows.iter().enumerate() {
        let y = i as f64 * (BAR + GAP);
        let name = esc(&format!("{} × {}", row.framework, row.scenario));
        let _ = write!(
            svg,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{name}</text>",
            LABEL - 8.0,
            y + BAR * 0.75
        );
        let Some(ratio) = row.ratio else { continue };
        let (from, to) = if ratio < 1.0 {
            (x(ratio), one)
        } else {
            (one, x(ratio))
        };
        let color = if ratio < 1.0 { "#e15759" } else { "#59a14f" };
        let _ = write!(
            svg,
            "<g class=\"bar\"><title>{name}: B/A {ratio:.3}</title><rect x=\"{from:.1}\" y=\"{y:.1}\" \
             width=\"{:.1}\" height=\"{BAR}\" fill=\"{color}\"/></g>",
            (to - from).max(1.0)
        );
        if let Some((lo, hi)) = interval(row) {
            let mid = y + BAR / 2.0;
            let _ = write!(
                svg,
                "<line class=\"whisker\" x1=\"{:.1}\" y1=\"{mid:.1}\" x2=\"{:.1}\" y2=\"{mid:.1}\" stroke=\"currentColor\"/>",
                x(lo),
                x(hi)
            );
        }
    }
    let _ = write!(
        svg,
        "<text class=\"axis\" x=\"{one:.1}\" y=\"{:.1}\" text-anchor=\"middle\">1.0 (B = A); left slower, right faster</text></svg>",
        height - 8.0
    );
    svg
}
