//! The anatomy in the HTML report: per scenario, one stacked bar per row
//! (the server's CPU µs per request split as anatomy.svg splits it:
//! app + framework, GC, transport, kernel), each part's value its hover
//! text, and below it the anatomy table.

use std::fmt::Write as _;

use super::escape::text as esc;
use super::Page;
use crate::report::anatomy::{anatomy_table, LEGEND};
use crate::report::anatomy_svg::{bars, Part};
use crate::report::summary::Summary;

/// Bar chart size in SVG units.
const WIDTH: f64 = 760.0;
const LABEL: f64 = 170.0;
const BAR: f64 = 22.0;
const GAP: f64 = 8.0;
const AXIS: f64 = 28.0;

/// Writes every scenario's bars and table; false when no row had a cost.
pub(super) fn write(page: &mut Page, summary: &Summary) -> bool {
    let mut drawn = false;
    for scenario in &summary.scenarios {
        let bars = bars(summary, scenario);
        let Some(table) = anatomy_table(summary, scenario) else {
            continue;
        };
        drawn = true;
        page.raw(&format!("<h3>{}</h3>", esc(scenario)));
        if !bars.is_empty() {
            page.raw("<figure class=\"plot\">");
            page.raw(&svg(&bars));
            page.raw("<figcaption>");
            for part in Part::ALL {
                if bars.iter().any(|b| b.parts.iter().any(|&(p, _)| p == part)) {
                    page.raw(&format!(
                        "<span class=\"key\"><span class=\"swatch\" style=\"background:{}\"></span>{}</span> ",
                        part.hex(),
                        esc(part.label())
                    ));
                }
            }
            page.raw("</figcaption></figure>");
        }
        page.table(&table, "sortable");
    }
    if drawn {
        page.raw(&format!("<p class=\"legend\">{}</p>", esc(&LEGEND.join(" "))));
    }
    drawn
}

/// The stacked bars as an `<svg>`; each part a `<rect>` with a `<title>`.
fn svg(bars: &[crate::report::anatomy_svg::Bar]) -> String {
    let longest = bars
        .iter()
        .map(|b| b.parts.iter().map(|&(_, us)| us).sum::<f64>())
        .fold(0.0_f64, f64::max)
        .max(0.001);
    let height = bars.len() as f64 * (BAR + GAP) + AXIS;
    let scale = (WIDTH - LABEL - 16.0) / longest;
    let mut svg = format!(
        "<svg class=\"chart anatomy\" viewBox=\"0 0 {WIDTH} {height:.0}\" role=\"img\" \
         aria-label=\"server CPU per request by part\">"
    );
    for (i, bar) in bars.iter().enumerate() {
        let y = i as f64 * (BAR + GAP);
        let total: f64 = bar.parts.iter().map(|&(_, us)| us).sum();
        let _ = write!(
            svg,
            "<g class=\"bar\"><title>{name}: {total:.2} µs/request</title>\
             <text class=\"tick\" x=\"{lx:.1}\" y=\"{ty:.1}\" text-anchor=\"end\">{name}</text>",
            name = esc(&bar.label),
            lx = LABEL - 8.0,
            ty = y + BAR * 0.7,
        );
        let mut x = LABEL;
        for &(part, us) in &bar.parts {
            let w = us * scale;
            let _ = write!(
                svg,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{BAR}\" fill=\"{}\">\
                 <title>{}: {}: {us:.2} µs/request ({:.0}%)</title></rect>",
                part.hex(),
                esc(&bar.label),
                esc(part.label()),
                us / total.max(f64::MIN_POSITIVE) * 100.0
            );
            x += w;
        }
        let _ = write!(
            svg,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\">{total:.1}</text></g>",
            (x + 4.0).min(WIDTH - 40.0),
            y + BAR * 0.7
        );
    }
    let axis_y = bars.len() as f64 * (BAR + GAP) + 16.0;
    let _ = write!(
        svg,
        "<text class=\"axis\" x=\"{LABEL}\" y=\"{axis_y:.1}\">server CPU µs per request →</text></svg>"
    );
    svg
}
