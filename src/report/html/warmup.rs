//! The warm-up curves on report.html (`bench --warmup-curve`): per
//! scenario, each row's median latency per block of answers from its
//! server's first request, a line per row (each can be hidden), the point
//! where it settled marked.

use std::fmt::Write as _;

use super::escape::text as esc;
use super::plot::{Frame, LINE_PLOT};
use super::COLORS;
use crate::report::warmup::WarmupCurve;

/// The plot's size, and room for the axes' labels.
const FRAME: Frame = LINE_PLOT;

/// The `<svg>` of `curves` (row name, curve), in the legend's order.
pub fn svg(curves: &[(&str, &WarmupCurve)]) -> String {
    let requests = |curve: &WarmupCurve, blocks: usize| -> f64 {
        curve.blocks[..blocks].iter().map(|b| b.answers as f64).sum()
    };
    let right = curves
        .iter()
        .map(|(_, c)| requests(c, c.blocks.len()))
        .fold(1.0_f64, f64::max);
    let top_ms = curves
        .iter()
        .flat_map(|(_, c)| c.blocks.iter().map(|b| b.p50_us / 1e3))
        .fold(0.001_f64, f64::max)
        * 1.05;
    let x = |n: f64| FRAME.x(n / right);
    let y = |ms: f64| FRAME.y(ms, top_ms);
    let mut svg = FRAME.open("warmup", "median latency per block of answers");
    for quarter in 0..=4 {
        let n = right * f64::from(quarter) / 4.0;
        FRAME.x_tick(&mut svg, x(n), &format!("{:.0}k", n / 1000.0));
    }
    FRAME.y_ticks(&mut svg, top_ms, |ms| format!("{ms:.2}"));
    FRAME.x_title(&mut svg, "requests answered since the server started");
    FRAME.y_title(&mut svg, "p50 per block, ms");
    for (j, (name, curve)) in curves.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let name = esc(name);
        let points: Vec<String> = (0..curve.blocks.len())
            .map(|k| {
                format!(
                    "{:.1},{:.1}",
                    x(requests(curve, k + 1)),
                    y(curve.blocks[k].p50_us / 1e3)
                )
            })
            .collect();
        let settled = curve.steady.map_or("did not settle".to_owned(), |s| {
            format!("settled after {} requests ({:.2} s)", s.requests, s.seconds)
        });
        let _ = write!(
            svg,
            "<g class=\"series\" data-series=\"{name}\"><title>{name}: {settled}</title>\
             <polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
            points.join(" ")
        );
        if let Some(steady) = curve.steady.filter(|s| s.blocks < curve.blocks.len()) {
            let at = x(steady.requests as f64);
            let _ = write!(
                svg,
                "<circle cx=\"{at:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{color}\"><title>{name}: {settled}</title></circle>",
                y(curve.blocks[steady.blocks].p50_us / 1e3)
            );
        }
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    svg
}
