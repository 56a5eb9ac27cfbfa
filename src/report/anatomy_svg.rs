/*!
The anatomy chart (`anatomy.svg`): one panel per scenario, one horizontal
bar per row in rank order, the server's CPU µs per request stacked by where
it went.

- kernel: the server's system time;
- GC: pause time per request, from the engine's hooks (V8);
- app + framework: the request served inside the runtime with no socket
  (`--in-runtime`), less its own GC time, which the GC segment already has;
- transport: the rest of the server's user time (hyper, the adapter, the
  engine's calls), or, without an in-runtime figure, app and transport
  together.

The segments add up to the server µs/req of the anatomy table, so a bar's
length is the row's cost and its colours say where it went. A row with no
cost gets no bar.
*/

use std::io::{self, Write};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::cost::InRuntimeCost;
use super::model::BenchReport;
use super::summary::CostSummary;
use super::summary::Summary;
use super::svg::{draw_title, TITLE_HEIGHT};

const WIDTH: u32 = 1100;
/// Height per bar, px, and what every panel needs besides its bars.
const BAR_HEIGHT: u32 = 30;
const PANEL_FRAME: u32 = 110;
/// Height of the legend strip under the title, px.
const LEGEND_HEIGHT: u32 = 34;

/// A part of a bar: its name in the legend and its colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Part {
    Kernel,
    Gc,
    App,
    Transport,
    UserUnsplit,
}

impl Part {
    /// Every part, in legend order.
    pub(super) const ALL: [Part; 5] = [
        Part::App,
        Part::Gc,
        Part::Transport,
        Part::UserUnsplit,
        Part::Kernel,
    ];

    /// Its name in the legend.
    pub(super) fn label(self) -> &'static str {
        match self {
            Part::App => "app + framework (in-runtime, less its GC)",
            Part::Gc => "GC pauses",
            Part::Transport => "transport: hyper, adapter, engine calls (user)",
            Part::UserUnsplit => "user (no in-runtime figure)",
            Part::Kernel => "kernel (sys)",
        }
    }

    /// Its colour as CSS (`#4e79a7`), for the HTML report.
    pub(super) fn hex(self) -> String {
        let RGBColor(r, g, b) = self.color();
        format!("#{r:02x}{g:02x}{b:02x}")
    }

    fn color(self) -> RGBColor {
        match self {
            Part::App => RGBColor(0x4e, 0x79, 0xa7),
            Part::Gc => RGBColor(0xe1, 0x57, 0x59),
            Part::Transport => RGBColor(0xf2, 0x8e, 0x2b),
            Part::UserUnsplit => RGBColor(0x9c, 0x75, 0x5f),
            Part::Kernel => RGBColor(0xba, 0xb0, 0xac),
        }
    }
}

/// Where a row's server µs per request went, in drawing order; the parts
/// add up to its server µs/req.
fn parts(cost: &CostSummary, in_runtime: Option<&InRuntimeCost>) -> Vec<(Part, f64)> {
    let gc = cost.heap.map_or(0.0, |h| h.gc_us).min(cost.server_user_us);
    let user_less_gc = cost.server_user_us - gc;
    let app = in_runtime
        .filter(|r| r.error.is_none() && r.requests > 0)
        .map(|r| (r.cpu_us - r.gc_us.unwrap_or(0.0)).clamp(0.0, user_less_gc));
    let mut parts = Vec::new();
    match app {
        Some(app) => {
            parts.push((Part::App, app));
            parts.push((Part::Gc, gc));
            parts.push((Part::Transport, user_less_gc - app));
        }
        None => {
            parts.push((Part::Gc, gc));
            parts.push((Part::UserUnsplit, user_less_gc));
        }
    }
    parts.push((Part::Kernel, cost.server_system_us));
    parts.retain(|&(_, us)| us > 0.0);
    parts
}

/// Writes the anatomy chart of `report` to `out`; `Ok(false)` without
/// writing when no row recorded a cost.
pub fn write_anatomy_svg(report: &BenchReport, out: &mut dyn Write) -> io::Result<bool> {
    let summary = Summary::of(report);
    let panels: Vec<(String, Vec<Bar>)> = summary
        .scenarios
        .iter()
        .map(|scenario| (scenario.clone(), bars(&summary, scenario)))
        .filter(|(_, bars)| !bars.is_empty())
        .collect();
    if panels.is_empty() {
        return Ok(false);
    }
    let heights: Vec<u32> = panels
        .iter()
        .map(|(_, bars)| PANEL_FRAME + BAR_HEIGHT * bars.len() as u32)
        .collect();
    let height = TITLE_HEIGHT + LEGEND_HEIGHT + heights.iter().sum::<u32>();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        draw(&root, report, &panels, &heights).map_err(drawing_error)?;
        root.present().map_err(drawing_error)?;
    }
    out.write_all(svg.as_bytes())?;
    Ok(true)
}

fn drawing_error(error: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("drawing the anatomy chart: {error}"))
}

/// One row's bar: its label and parts.
pub(super) struct Bar {
    /// The row's framework name.
    pub(super) label: String,
    /// Its parts, in drawing order, µs per request.
    pub(super) parts: Vec<(Part, f64)>,
}

/// The bars of `scenario`'s rows that recorded a cost, in rank order.
pub(super) fn bars(summary: &Summary, scenario: &str) -> Vec<Bar> {
    summary
        .ranked(scenario)
        .into_iter()
        .filter_map(|row| {
            let cost = row.cost.as_ref()?;
            Some(Bar {
                label: row.framework.clone(),
                parts: parts(cost, row.in_runtime.as_ref()),
            })
        })
        .collect()
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    report: &BenchReport,
    panels: &[(String, Vec<Bar>)],
    heights: &[u32],
) -> DrawResult {
    root.fill(&WHITE)?;
    let (title, rest) = root.split_vertically(TITLE_HEIGHT);
    draw_title(&title, &report.header)?;
    let (legend, mut rest) = rest.split_vertically(LEGEND_HEIGHT);
    let drawn: Vec<Part> = Part::ALL
        .into_iter()
        .filter(|&part| {
            panels
                .iter()
                .any(|(_, bars)| bars.iter().any(|b| b.parts.iter().any(|&(p, _)| p == part)))
        })
        .collect();
    draw_legend(&legend, &drawn)?;
    for ((scenario, bars), &height) in panels.iter().zip(heights) {
        let (panel, below) = rest.split_vertically(height);
        draw_panel(&panel, scenario, bars)?;
        rest = below;
    }
    Ok(())
}

/// The parts' colours in one row, once for every panel.
fn draw_legend(strip: &DrawingArea<SVGBackend<'_>, Shift>, parts: &[Part]) -> DrawResult {
    let mut x = 24;
    for &part in parts {
        strip.draw(&Rectangle::new([(x, 10), (x + 14, 22)], part.color().filled()))?;
        strip.draw(&Text::new(
            part.label(),
            (x + 20, 11),
            ("sans-serif", 12).into_font().color(&BLACK),
        ))?;
        // plotters cannot measure SVG text; about 6.2 px a character.
        x += 20 + (part.label().len() as f64 * 6.2) as i32 + 22;
    }
    Ok(())
}

fn draw_panel(panel: &DrawingArea<SVGBackend<'_>, Shift>, scenario: &str, bars: &[Bar]) -> DrawResult {
    let longest = bars
        .iter()
        .map(|b| b.parts.iter().map(|(_, us)| us).sum::<f64>())
        .fold(0.0, f64::max);
    // Room on the right for the total printed after each bar.
    let x_max = (longest * 1.08).max(1.0);
    let n = bars.len() as f64;
    let mut chart = ChartBuilder::on(panel)
        .caption(
            format!("scenario {scenario}: server CPU µs per request, by where it went"),
            ("sans-serif", 15),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(110)
        .build_cartesian_2d(0.0..x_max, -0.5..n - 0.5)?;
    let label_of = |y: &f64| {
        let i = y.round();
        if (y - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        // Rank order from the top: row 0 is drawn highest.
        let index = (n - 1.0 - i) as usize;
        bars.get(index).map(|b| b.label.clone()).unwrap_or_default()
    };
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .disable_y_mesh()
        .y_labels(bars.len().max(1) * 2 + 1)
        .y_label_formatter(&label_of)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("µs per request (server user + sys)")
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 12))
        .draw()?;
    for (index, bar) in bars.iter().enumerate() {
        let y = n - 1.0 - index as f64;
        let mut left = 0.0;
        for &(part, us) in &bar.parts {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(left, y - 0.35), (left + us, y + 0.35)],
                part.color().filled(),
            )))?;
            left += us;
        }
        chart.draw_series(std::iter::once(Text::new(
            format!("{left:.1}"),
            (left + x_max * 0.005, y + 0.15),
            ("sans-serif", 11).into_font().color(&BLACK),
        )))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::cost::HeapCost;

    fn cost(user: f64, sys: f64, gc: Option<f64>) -> CostSummary {
        CostSummary {
            server_user_us: user,
            server_system_us: sys,
            client_us: None,
            heap: gc.map(|gc_us| HeapCost {
                bytes_per_request: 1000.0,
                gc_us,
                gc_share: gc_us / (user + sys),
                young_gcs: 1,
                full_gcs: 0,
                longest_pause_us: 100.0,
            }),
            server_time: None,
        }
    }

    fn in_runtime(cpu_us: f64, gc_us: f64) -> InRuntimeCost {
        InRuntimeCost {
            requests: 1000,
            cpu_us,
            bytes_per_request: None,
            gc_us: Some(gc_us),
            mismatches: 0,
            error: None,
        }
    }

    #[test]
    fn a_bar_splits_the_servers_cost_into_parts_that_add_up_to_it() {
        // 20 µs user, 5 sys; 2 of GC; in the runtime 9 µs of which 1 GC.
        let split = parts(&cost(20.0, 5.0, Some(2.0)), Some(&in_runtime(9.0, 1.0)));
        assert_eq!(
            split,
            vec![
                (Part::App, 8.0),
                (Part::Gc, 2.0),
                (Part::Transport, 10.0),
                (Part::Kernel, 5.0)
            ]
        );
        let total: f64 = split.iter().map(|(_, us)| us).sum();
        assert_eq!(total, 25.0);
    }

    #[test]
    fn without_an_in_runtime_figure_or_a_heap_the_user_time_stays_whole() {
        let native = parts(&cost(3.0, 4.0, None), None);
        assert_eq!(native, vec![(Part::UserUnsplit, 3.0), (Part::Kernel, 4.0)]);
        // An in-runtime figure above the row's own user time is capped.
        let capped = parts(&cost(5.0, 1.0, None), Some(&in_runtime(7.0, 0.0)));
        assert_eq!(capped, vec![(Part::App, 5.0), (Part::Kernel, 1.0)]);
    }
}
