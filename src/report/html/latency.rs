//! The latency percentile plot of one scenario, as inline SVG: one line per
//! row, latency (ms) against the percentile on the HdrHistogram plotter's
//! axis, log10 of 1 / (1 − p), so p50 = 0.3, p99 = 2, p99.9 = 3 and the
//! tail gets room. A row's points come from its HDR file (`hdr/*.hgrm`,
//! every percentile the histogram holds, over all its rounds) when it can
//! be read, else from the percentiles the report keeps (the medians over
//! rounds of p50 … p99.99), which an older or moved report still has.

use std::fmt::Write as _;
use std::path::Path;

use super::escape::text;
use super::plot::Frame;
use crate::report::model::Row;
use crate::report::summary::median;

/// The plot's size, and room for the axes' labels.
const FRAME: Frame = Frame {
    width: 760.0,
    height: 340.0,
    left: 56.0,
    right: 30.0,
    top: 12.0,
    bottom: 40.0,
};
/// The axis ends at p99.999.
const MAX_NINES: f64 = 5.0;

/// One row's line: its name, where its points came from, and the points
/// (nines, ms).
pub struct Curve {
    /// The row's framework name.
    pub name: String,
    /// `hdr` (the row's HDR file) or `percentiles` (the report's medians).
    pub source: &'static str,
    points: Vec<(f64, f64)>,
}

/// The curve of `row`, or `None` when it has no rounds.
pub fn curve(row: &Row) -> Option<Curve> {
    if row.rounds.is_empty() {
        return None;
    }
    let from_file = row
        .hdr_file
        .as_deref()
        .and_then(|file| std::fs::read_to_string(Path::new(file)).ok())
        .map(|text| hgrm_points(&text))
        .filter(|points| points.len() >= 2);
    let (source, points) = match from_file {
        Some(points) => ("hdr", points),
        None => ("percentiles", report_points(row)),
    };
    Some(Curve {
        name: row.framework.clone(),
        source,
        points,
    })
}

/// The points of an `.hgrm` percentile distribution (HdrHistogram's text
/// form: value in ms, percentile, count, 1/(1-p) per line).
fn hgrm_points(text: &str) -> Vec<(f64, f64)> {
    text.lines()
        .filter_map(|line| {
            let mut cells = line.split_whitespace();
            let ms: f64 = cells.next()?.parse().ok()?;
            let p: f64 = cells.next()?.parse().ok()?;
            (p < 1.0 && ms.is_finite()).then(|| (nines(p), ms))
        })
        .filter(|&(n, _)| n <= MAX_NINES)
        .collect()
}

/// The percentiles the report keeps, medians over the rounds.
fn report_points(row: &Row) -> Vec<(f64, f64)> {
    let at = |p: f64, pick: fn(&crate::report::Percentiles) -> u64| {
        let values: Vec<f64> = row.rounds.iter().map(|r| pick(&r.latency_us) as f64).collect();
        median(&values).map(|us| (nines(p), us / 1000.0))
    };
    [
        at(0.5, |l| l.p50),
        at(0.9, |l| l.p90),
        at(0.99, |l| l.p99),
        at(0.999, |l| l.p999),
        at(0.9999, |l| l.p9999),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// log10(1 / (1 − p)).
fn nines(p: f64) -> f64 {
    -(1.0 - p).max(1e-9).log10()
}

/// The plot of `curves` as an `<svg>` element, each line a `<g>` with
/// `data-series` (the legend's checkboxes hide it) and a `<title>` with its
/// p50, p99 and p99.9 (the hover text).
pub fn svg(curves: &[Curve], colors: &[&str]) -> String {
    let top_ms = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|&(_, ms)| ms))
        .fold(0.0_f64, f64::max)
        .max(0.001)
        * 1.05;
    let x = |n: f64| FRAME.x(n / MAX_NINES);
    let y = |ms: f64| FRAME.y(ms, top_ms);
    let mut svg = FRAME.open("latency", "latency by percentile");
    for (n, label) in [
        (0.0, "p0"),
        (std::f64::consts::LOG10_2, "p50"),
        (1.0, "p90"),
        (2.0, "p99"),
        (3.0, "p99.9"),
        (4.0, "p99.99"),
        (5.0, "p99.999"),
    ] {
        FRAME.x_tick(&mut svg, x(n), label);
    }
    FRAME.y_ticks(&mut svg, top_ms, tick_ms);
    FRAME.x_title(&mut svg, "percentile");
    FRAME.y_title(&mut svg, "latency, ms");
    for (i, curve) in curves.iter().enumerate() {
        let color = colors[i % colors.len()];
        let points: Vec<String> = curve
            .points
            .iter()
            .map(|&(n, ms)| format!("{:.1},{:.1}", x(n), y(ms)))
            .collect();
        let at = |nines_at: f64| {
            curve
                .points
                .iter()
                .find(|&&(n, _)| n >= nines_at - 1e-6)
                .map_or("-".to_owned(), |&(_, ms)| format!("{ms:.3} ms"))
        };
        let _ = write!(
            svg,
            "<g class=\"series\" data-series=\"{name}\"><title>{name}: p50 {p50}, p99 {p99}, \
             p99.9 {p999} (from {source})</title><polyline fill=\"none\" stroke=\"{color}\" \
             stroke-width=\"2\" points=\"{points}\"/></g>",
            name = text(&curve.name),
            p50 = at(std::f64::consts::LOG10_2),
            p99 = at(2.0),
            p999 = at(3.0),
            source = curve.source,
            points = points.join(" "),
        );
    }
    svg.push_str("</svg>");
    svg
}

/// An axis label for `ms`: as many decimals as its size needs.
fn tick_ms(ms: f64) -> String {
    if ms >= 10.0 {
        format!("{ms:.0}")
    } else if ms >= 1.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_hgrm_file_gives_a_point_per_percentile_line() {
        let text = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n\
                    0.622 0.000000000000          1           1.00\n\
                    3.177 0.500000000000       6578           2.00\n\
                    9.500 0.990000000000       9900         100.00\n\
                    #[Mean    =        3.1, StdDeviation   =        1.2]\n";
        let points = hgrm_points(text);
        assert_eq!(points.len(), 3);
        assert!((points[1].0 - std::f64::consts::LOG10_2).abs() < 1e-4 && points[1].1 == 3.177);
        assert!((points[2].0 - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_name_with_markup_is_text_in_the_plot() {
        let curve = Curve {
            name: "<script>x</script>".into(),
            source: "percentiles",
            points: vec![(0.3, 1.0), (2.0, 3.0)],
        };
        let svg = svg(&[curve], &["#123456"]);
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(svg.contains("&lt;script&gt;x&lt;/script&gt;"), "{svg}");
    }
}
