//! The ablation's chart: concern × framework, one group of bars per
//! framework (one bar per concern, its 95 % interval as a whisker), drawn
//! like the other charts (plotters' SVG backend, text left to the viewer's
//! fonts).

use std::io::{self, Write};

use plotters::prelude::*;

use super::result::AblationResult;
use super::text::Basis;
use crate::report::{draw_title, SCENARIO_COLORS as COLORS, TITLE_HEIGHT};

const WIDTH: u32 = 1000;
/// Height per framework's group of bars.
const GROUP_HEIGHT: u32 = 90;

/// Writes the chart of `result` as one SVG document to `out`.
pub fn write_svg(result: &AblationResult, out: &mut dyn Write) -> io::Result<()> {
    let groups = result.frameworks.len().max(1) as u32;
    let height = TITLE_HEIGHT + 140 + groups * GROUP_HEIGHT;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        draw(&root, result).map_err(|e| io::Error::other(format!("drawing the ablation chart: {e}")))?;
        root.present()
            .map_err(|e| io::Error::other(format!("drawing the ablation chart: {e}")))?;
    }
    out.write_all(svg.as_bytes())
}

fn draw(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    result: &AblationResult,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(TITLE_HEIGHT);
    draw_title(&title, &result.header)?;
    let basis = Basis::headline(result);
    let estimates = result
        .frameworks
        .iter()
        .flat_map(|f| f.concerns.iter().filter_map(|c| basis.of(&c.price)));
    let (low, high) = estimates.fold((0.0f64, 1.0f64), |(low, high), e| {
        (low.min(e.ci95_low), high.max(e.ci95_high))
    });
    let pad = (high - low) * 0.05;
    let groups = result.frameworks.len().max(1);
    let mut chart = ChartBuilder::on(&body)
        .caption(
            format!(
                "scenario {}: what each concern costs, µs per request ({})",
                result.scenario,
                match basis {
                    Basis::ServerCpu => "server CPU",
                    Basis::Throughput => "1e6 / req/s",
                }
            ),
            ("sans-serif", 16),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(110)
        .build_cartesian_2d((low - pad)..(high + pad), 0.0..groups as f64)?;
    // Group i is drawn from the top: the first framework first.
    let names: Vec<String> = result.frameworks.iter().map(|f| f.framework.clone()).collect();
    let group_of = move |y: &f64| -> String {
        let from_top = groups as f64 - y - 0.5;
        let i = from_top.round();
        if (from_top - i).abs() < 1e-6 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .y_labels(groups * 2 + 1)
        .y_label_formatter(&group_of)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("µs per request: the whole chain minus the chain without the concern (bar: mean; whisker: 95% CI)")
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 13))
        .draw()?;
    let bars = result.concerns.len().max(1) as f64;
    let slot = 0.8 / bars;
    for (j, concern) in result.concerns.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let mut elements = Vec::new();
        let mut whiskers = Vec::new();
        for (i, framework) in result.frameworks.iter().enumerate() {
            let Some(estimate) = framework
                .concerns
                .iter()
                .find(|c| &c.concern == concern)
                .and_then(|c| basis.of(&c.price))
            else {
                continue;
            };
            let top = (groups - i) as f64 - 0.1 - slot * j as f64;
            let bottom = top - slot * 0.85;
            elements.push(Rectangle::new(
                [(0.0, top), (estimate.value, bottom)],
                color.filled(),
            ));
            let middle = (top + bottom) / 2.0;
            whiskers.push(PathElement::new(
                vec![(estimate.ci95_low, middle), (estimate.ci95_high, middle)],
                BLACK.stroke_width(1),
            ));
        }
        chart
            .draw_series(elements)?
            .label(concern.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
        chart.draw_series(whiskers)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font(("sans-serif", 12))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::ablation::result::tests::{concerns, prod, report};

    #[test]
    fn the_chart_has_a_bar_per_concern_and_framework_and_a_legend() {
        let result = AblationResult::of(&report(&["s200", "hono"]), &prod(), &concerns());
        let mut out = Vec::new();
        write_svg(&result, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let rects = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "rect")
            .count();
        // 2 concerns × 2 frameworks, 2 legend samples, backgrounds.
        assert!(rects >= 6, "{rects} rects");
        for label in ["cors", "auth", "s200", "hono", "server CPU"] {
            assert!(text.contains(label), "{label} missing");
        }
    }
}
