//! The sweep's chart: µs per request against chain depth, one line per
//! framework through its medians, every round as a faint dot, and each
//! framework's per-link cost in the legend. Drawn like the bench chart
//! (plotters' SVG backend, text left to the viewer's fonts).

use std::io::{self, Write};

use plotters::prelude::*;

use super::result::SweepResult;
use crate::report::{draw_title, RowKind, SCENARIO_COLORS as COLORS, TITLE_HEIGHT};

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 640;

/// Writes the chart of `sweep` as one SVG document to `out`.
pub fn write_svg(sweep: &SweepResult, out: &mut dyn Write) -> io::Result<()> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, sweep).map_err(|e| io::Error::other(format!("drawing the sweep chart: {e}")))?;
        root.present()
            .map_err(|e| io::Error::other(format!("drawing the sweep chart: {e}")))?;
    }
    out.write_all(svg.as_bytes())
}

fn draw(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    sweep: &SweepResult,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(TITLE_HEIGHT);
    draw_title(&title, &sweep.header)?;
    let x_max = sweep.depths.iter().copied().max().unwrap_or(1).max(1) as f64;
    let y_max = sweep
        .frameworks
        .iter()
        .flat_map(|f| f.points.iter().flat_map(|p| p.rounds_us.iter().copied()))
        .fold(0.0, f64::max)
        .max(1.0)
        * 1.08;
    let mut chart = ChartBuilder::on(&body)
        .caption(
            format!("scenario {}: µs per request against chain depth", sweep.scenario),
            ("sans-serif", 16),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.3..x_max + 0.3, 0.0..y_max)?;
    let whole = |x: &f64| {
        if (x - x.round()).abs() < 1e-9 {
            format!("{x:.0}")
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_label_formatter(&whole)
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc("links in the chain")
        .y_desc("µs per request (1e6 / req/s)")
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 13))
        .draw()?;
    for (i, framework) in sweep.frameworks.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let medians: Vec<(f64, f64)> = framework
            .points
            .iter()
            .filter_map(|p| Some((p.depth as f64, p.median_us?)))
            .collect();
        let rounds = framework
            .points
            .iter()
            .flat_map(|p| p.rounds_us.iter().map(move |&us| (p.depth as f64, us)));
        chart.draw_series(rounds.map(|xy| Circle::new(xy, 2, color.mix(0.35).filled())))?;
        let mut label = framework.framework.clone();
        if framework.kind == RowKind::Native {
            label.push_str(" (native)");
        }
        if let Some(fit) = &framework.fit {
            label.push_str(&format!(
                ": {:.2} ± {:.2} µs/link",
                fit.per_link_us.value,
                fit.per_link_us.half_width()
            ));
        }
        let style = ShapeStyle::from(&color).stroke_width(2);
        chart
            .draw_series(LineSeries::new(medians.clone(), style))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
        chart.draw_series(medians.into_iter().map(|xy| Circle::new(xy, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 12))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::result::tests::report;

    #[test]
    fn the_chart_is_one_svg_with_a_line_and_legend_per_framework() {
        let sweep = SweepResult::of(&report(&["s200", "hono"], &[0, 1, 2, 4]), "mw", &[0, 1, 2, 4]);
        let mut out = Vec::new();
        write_svg(&sweep, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let lines = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "polyline")
            .count();
        // One line per framework plus one legend sample each.
        assert!(lines >= 4, "{lines} polylines");
        assert!(text.contains("hono: 2.00 ± "), "legend names the per-link cost");
        assert!(text.contains("links in the chain"));
    }
}
