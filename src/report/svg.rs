/*!
The SVG chart: one file, two kinds of panel.

- Throughput: grouped bars of median req/s, one group per framework and one
  bar per scenario, with whiskers from the min to the max over rounds; a
  client-bound row's bar carries a `‡` above its whisker, explained in the
  panel's caption.
- Latency: one panel per scenario, one group per framework, bars for the
  p50, p90 and p99 latency (each the median over rounds), in ms.

Drawn with plotters' SVG backend and no font support: that backend writes
`<text>` elements and leaves the glyphs to whatever displays the file, so
nothing here loads a font (plotters only estimates text widths for its
layout). Failed rows, and rows without rounds, get a small red note where
their bars would be instead of a bar.
*/

use std::io::{self, Write};

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::format;
use super::model::{BenchReport, MachineInfo, RunHeader, ToolInfo};
use super::summary::{median, Summary};

/// Chart width, px.
const WIDTH: u32 = 1200;
/// Height of the throughput panel, px.
const THROUGHPUT_HEIGHT: u32 = 520;
/// Height of each scenario's latency panel, px.
const LATENCY_HEIGHT: u32 = 360;
/// Height of the title strip, px.
pub(crate) const TITLE_HEIGHT: u32 = 64;

/// Scenario colours (Tableau 10: distinguishable, print-safe); the sweep
/// chart's framework lines use them too.
pub(crate) const SCENARIO_COLORS: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// The latency percentiles drawn, with their colours (light to dark).
const PERCENTILES: [(&str, RGBColor); 3] = [
    ("p50", RGBColor(0x9e, 0xca, 0xe1)),
    ("p90", RGBColor(0x42, 0x92, 0xc6)),
    ("p99", RGBColor(0x08, 0x45, 0x94)),
];

/// Note colour for failed rows.
const FAILED_RED: RGBColor = RGBColor(0xc0, 0x1c, 0x28);

/// Fraction of a framework's slot filled by its group of bars.
const GROUP_WIDTH: f64 = 0.8;

/// Writes the chart of `report` as one SVG document to `out`.
pub fn write_svg(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    let summary = Summary::of(report);
    let panels = summary.scenarios.len() as u32;
    let height = TITLE_HEIGHT + THROUGHPUT_HEIGHT + panels * LATENCY_HEIGHT;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        draw(&root, report, &summary).map_err(drawing_error)?;
        root.present().map_err(drawing_error)?;
    }
    out.write_all(svg.as_bytes())
}

fn drawing_error(error: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("drawing the SVG chart: {error}"))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw(root: &DrawingArea<SVGBackend<'_>, Shift>, report: &BenchReport, summary: &Summary) -> DrawResult {
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(TITLE_HEIGHT);
    draw_title(&title, &report.header)?;
    if summary.frameworks.is_empty() {
        body.draw(&Text::new(
            "no rows in this report",
            (WIDTH as i32 / 2, 40),
            ("sans-serif", 16)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
        return Ok(());
    }
    let (throughput, latency) = body.split_vertically(THROUGHPUT_HEIGHT);
    draw_throughput(&throughput, summary)?;
    let panels = latency.split_evenly((summary.scenarios.len().max(1), 1));
    for (panel, scenario) in panels.iter().zip(&summary.scenarios) {
        draw_latency(panel, report, summary, scenario)?;
    }
    Ok(())
}

/// A chart's title strip ([`TITLE_HEIGHT`] high): what produced the figures,
/// then where, centred. Two lines: one line of both does not fit a chart's
/// width.
pub(crate) fn draw_title(title: &DrawingArea<SVGBackend<'_>, Shift>, header: &RunHeader) -> DrawResult {
    let (tool, machine) = title_lines(&header.tool, &header.machine, &header.started_at);
    let centre = title.dim_in_pixel().0 as i32 / 2;
    for (text, y, size, style) in [
        (tool, 20, 18, FontStyle::Bold),
        (machine, 46, 14, FontStyle::Normal),
    ] {
        title.draw(&Text::new(
            text,
            (centre, y),
            ("sans-serif", size)
                .into_font()
                .style(style)
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// ("fwbench 0.1.0 · engine quickjs", "CPU (N CPUs) · kernel · OS · started").
fn title_lines(tool: &ToolInfo, machine: &MachineInfo, started_at: &str) -> (String, String) {
    let tool = format!("fwbench {} · engine {}", tool.fwbench_version, tool.engine);
    let mut parts = Vec::new();
    if !machine.cpu_model.is_empty() {
        parts.push(format!("{} ({} CPUs)", machine.cpu_model, machine.logical_cpus));
    }
    for part in [machine.kernel.as_str(), machine.os.as_str(), started_at] {
        if !part.is_empty() {
            parts.push(part.to_owned());
        }
    }
    (tool, parts.join(" · "))
}

/// Left edge and width of bar `index` of `count` in the group of slot
/// `slot` (slot centres are the integers).
fn bar_span(slot: usize, index: usize, count: usize) -> (f64, f64) {
    let width = GROUP_WIDTH / count.max(1) as f64;
    let left = slot as f64 - GROUP_WIDTH / 2.0 + index as f64 * width;
    (left, width)
}

/// The top of a panel's y axis: room above the highest bar (or whisker)
/// for the legend in the upper right corner, whose height grows with its
/// entries, so no bar ever hides behind it.
fn y_limit(top: f64, legend_entries: usize, panel_height: u32) -> f64 {
    if top <= 0.0 {
        return 1.0;
    }
    // Caption, x labels and margins take about 110 px of the panel; a
    // legend entry about 19 px, plus its padding.
    let plot = (f64::from(panel_height) - 110.0).max(100.0);
    let legend = (legend_entries as f64 * 19.0 + 24.0) / plot;
    let free = (1.0 - legend - 0.03).max(0.3);
    top / free
}

/// The x-axis label of a slot position: the framework name at integer
/// positions, nothing elsewhere.
fn slot_label(frameworks: &[String], x: f64) -> String {
    let nearest = x.round();
    if (x - nearest).abs() > 1e-6 || nearest < 0.0 {
        return String::new();
    }
    frameworks.get(nearest as usize).cloned().unwrap_or_default()
}

/// A small rotated red note standing where a bar would be, its foot
/// `lift` above the axis.
fn note_at(x: f64, lift: f64, text: &str) -> Text<'static, (f64, f64), String> {
    Text::new(
        text.to_owned(),
        (x, lift),
        ("sans-serif", 11)
            .into_font()
            .transform(FontTransform::Rotate270)
            .color(&FAILED_RED)
            .pos(Pos::new(HPos::Left, VPos::Center)),
    )
}

/// A chart over one slot per framework along x and `0..y_max` up, with
/// the mesh, axis labels and fonts every panel shares.
type FrameworkChart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Builds a panel's [`FrameworkChart`] and draws its mesh.
fn framework_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    frameworks: &[String],
    y_max: f64,
    y_desc: &str,
    y_format: &dyn Fn(&f64) -> String,
) -> Result<FrameworkChart<'a, 'b>, Box<dyn std::error::Error>> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..(frameworks.len() as f64 - 0.5), 0.0..y_max)?;
    let label = |x: &f64| slot_label(frameworks, *x);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(0)
        .x_labels(frameworks.len() + 1)
        .x_label_formatter(&label)
        .y_label_formatter(&y_format)
        .x_desc("framework")
        .y_desc(y_desc)
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    Ok(chart)
}

/// Draws a panel's legend, top right.
fn draw_legend<'a, 'b: 'a>(chart: &mut FrameworkChart<'a, 'b>) -> DrawResult {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

fn draw_throughput(area: &DrawingArea<SVGBackend<'_>, Shift>, summary: &Summary) -> DrawResult {
    let frameworks = &summary.frameworks;
    let scenarios = &summary.scenarios;
    let top = summary
        .rows
        .iter()
        .filter_map(|r| r.rps_ok.map(|s| s.max))
        .fold(0.0_f64, f64::max);
    let y_max = y_limit(top, scenarios.len(), THROUGHPUT_HEIGHT);
    let mut caption = "Throughput: requests/s, median over rounds (whiskers: min–max)".to_owned();
    if summary.rows.iter().any(|r| r.client_bound_shares().is_some()) {
        caption.push_str(&format!(
            "; {}: client-bound, a lower bound",
            format::CLIENT_BOUND
        ));
    }
    let mut chart = framework_chart(area, &caption, frameworks, y_max, "requests/s", &|y| {
        format::rps(*y)
    })?;

    for (s, scenario) in scenarios.iter().enumerate() {
        let color = SCENARIO_COLORS[s % SCENARIO_COLORS.len()];
        let mut bars = Vec::new();
        let mut whiskers = Vec::new();
        let mut notes = Vec::new();
        let mut marks = Vec::new();
        for (f, framework) in frameworks.iter().enumerate() {
            let Some(row) = summary.row(framework, scenario) else {
                continue;
            };
            let (left, width) = bar_span(f, s, scenarios.len());
            if row.client_bound_shares().is_some() {
                if let Some(rps) = row.rps_ok {
                    // Clear of the whisker's cap.
                    marks.push(client_bound_mark(left + width / 2.0, rps.max + y_max * 0.01));
                }
            }
            let (x0, x1, centre) = (left + width * 0.05, left + width * 0.95, left + width / 2.0);
            match (&row.failure, row.rps_ok) {
                (Some(_), _) => notes.push(note_at(centre, y_max * 0.01, "failed")),
                (None, None) => notes.push(note_at(centre, y_max * 0.01, "no rounds")),
                (None, Some(rps)) => {
                    bars.push(Rectangle::new([(x0, 0.0), (x1, rps.median)], color.filled()));
                    let cap = width * 0.2;
                    whiskers.push(PathElement::new(
                        vec![(centre, rps.min), (centre, rps.max)],
                        BLACK,
                    ));
                    for y in [rps.min, rps.max] {
                        whiskers.push(PathElement::new(
                            vec![(centre - cap, y), (centre + cap, y)],
                            BLACK,
                        ));
                    }
                }
            }
        }
        chart
            .draw_series(bars)?
            .label(scenario.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        chart.draw_series(whiskers)?;
        chart.draw_series(notes)?;
        chart.draw_series(marks)?;
    }
    draw_legend(&mut chart)
}

/// The client-bound mark, standing at `foot` (above a bar's whisker).
fn client_bound_mark(x: f64, foot: f64) -> Text<'static, (f64, f64), String> {
    Text::new(
        format::CLIENT_BOUND.to_owned(),
        (x, foot),
        ("sans-serif", 18)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom)),
    )
}

fn draw_latency(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    report: &BenchReport,
    summary: &Summary,
    scenario: &str,
) -> DrawResult {
    let frameworks = &summary.frameworks;
    // Medians over rounds of each percentile, in ms; None for rows that
    // get a note instead of bars.
    let figures: Vec<Option<[f64; 3]>> = frameworks
        .iter()
        .map(|framework| {
            let row = report.row(framework, scenario)?;
            if !row.is_ok() {
                return None;
            }
            let of = |pick: fn(&super::model::Percentiles) -> u64| {
                let values: Vec<f64> = row
                    .rounds
                    .iter()
                    .map(|r| pick(&r.latency_us) as f64 / 1000.0)
                    .collect();
                median(&values)
            };
            Some([of(|p| p.p50)?, of(|p| p.p90)?, of(|p| p.p99)?])
        })
        .collect();
    let top = figures.iter().flatten().flatten().fold(0.0_f64, |a, &b| a.max(b));
    let y_max = y_limit(top, PERCENTILES.len(), LATENCY_HEIGHT);

    let mut chart = framework_chart(
        area,
        &format!("Latency, scenario {scenario}: ms, median over rounds"),
        frameworks,
        y_max,
        "latency (ms)",
        &|y| format!("{y:.2}"),
    )?;

    let mut notes = Vec::new();
    for (f, framework) in frameworks.iter().enumerate() {
        let Some(row) = summary.row(framework, scenario) else {
            continue;
        };
        if figures[f].is_none() {
            let (left, width) = bar_span(f, 1, PERCENTILES.len());
            let text = if row.failure.is_some() {
                "failed"
            } else {
                "no rounds"
            };
            notes.push(note_at(left + width / 2.0, y_max * 0.01, text));
        }
    }
    chart.draw_series(notes)?;
    for (p, (name, color)) in PERCENTILES.iter().enumerate() {
        let bars = figures.iter().enumerate().filter_map(|(f, values)| {
            let value = (*values)?[p];
            let (left, width) = bar_span(f, p, PERCENTILES.len());
            Some(Rectangle::new(
                [(left + width * 0.05, 0.0), (left + width * 0.95, value)],
                color.filled(),
            ))
        });
        let color = *color;
        chart
            .draw_series(bars)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    draw_legend(&mut chart)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_only_at_slot_centres() {
        let names = vec!["s200".to_owned(), "hono".to_owned()];
        assert_eq!(slot_label(&names, 1.0), "hono");
        assert_eq!(slot_label(&names, 0.5), "");
        assert_eq!(slot_label(&names, 2.0), "");
        assert_eq!(slot_label(&names, -1.0), "");
    }

    #[test]
    fn legend_room_grows_with_its_entries() {
        assert_eq!(y_limit(0.0, 3, 520), 1.0);
        let three = y_limit(100.0, 3, 520);
        let eight = y_limit(100.0, 8, 520);
        assert!(three > 120.0 && eight > three, "{three} {eight}");
    }

    #[test]
    fn bars_of_a_group_tile_its_width() {
        let (left, width) = bar_span(2, 0, 4);
        assert!((left - 1.6).abs() < 1e-9 && (width - 0.2).abs() < 1e-9);
        let (last, _) = bar_span(2, 3, 4);
        assert!((last + width - 2.4).abs() < 1e-9);
    }
}
