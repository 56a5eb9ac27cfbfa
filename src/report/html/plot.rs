//! The frame the page's line plots share (latency.rs's percentile plot,
//! history.rs's runs): an `<svg>` of a given size, the plotting area inside
//! its margins, vertical grid lines with their labels under the axis, four
//! horizontal ones from 0 to the top value, and the axis titles.

use std::fmt::Write as _;

/// The frame of the page's full-width line plots over runs, rates and
/// requests (history.rs, capacity.rs, warmup.rs).
pub(super) const LINE_PLOT: Frame = Frame {
    width: 760.0,
    height: 300.0,
    left: 64.0,
    right: 20.0,
    top: 12.0,
    bottom: 36.0,
};

/// A plot's size and margins, in SVG units (the page scales it to its
/// width).
pub(super) struct Frame {
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl Frame {
    /// The opening `<svg>` tag, of class `chart {class}`.
    pub fn open(&self, class: &str, label: &str) -> String {
        format!(
            "<svg class=\"chart {class}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{label}\">",
            self.width, self.height
        )
    }

    /// The x of `fraction` (0 to 1) of the plotting area's width.
    pub fn x(&self, fraction: f64) -> f64 {
        self.left + fraction * (self.width - self.left - self.right)
    }

    /// The y of `value` on an axis from 0 to `top`.
    pub fn y(&self, value: f64, top: f64) -> f64 {
        self.height - self.bottom - value / top * (self.height - self.bottom - self.top)
    }

    /// A vertical grid line at `x`, with `label` under the axis.
    pub fn x_tick(&self, svg: &mut String, x: f64, label: &str) {
        let _ = write!(
            svg,
            "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>",
            self.top,
            self.height - self.bottom,
            self.height - self.bottom + 16.0
        );
    }

    /// A horizontal grid line at `y`, with `label` left of the axis.
    pub fn y_tick(&self, svg: &mut String, y: f64, label: &str) {
        let _ = write!(
            svg,
            "<line class=\"grid\" x1=\"{}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/>\
             <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            self.left,
            self.width - self.right,
            self.left - 6.0,
            y + 4.0,
        );
    }

    /// Horizontal grid lines at 0, ¼, ½, ¾ and all of `top`, each labelled
    /// by `label`.
    pub fn y_ticks(&self, svg: &mut String, top: f64, label: impl Fn(f64) -> String) {
        for quarter in 0..=4 {
            let value = top * f64::from(quarter) / 4.0;
            self.y_tick(svg, self.y(value, top), &label(value));
        }
    }

    /// The x axis's title, centred under the plotting area.
    pub fn x_title(&self, svg: &mut String, title: &str) {
        let _ = write!(
            svg,
            "<text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{title}</text>",
            (self.left + self.width - self.right) / 2.0,
            self.height - 4.0
        );
    }

    /// The y axis's title, turned along the axis.
    pub fn y_title(&self, svg: &mut String, title: &str) {
        let _ = write!(
            svg,
            "<text class=\"axis\" x=\"14\" y=\"{0:.1}\" transform=\"rotate(-90 14 {0:.1})\" \
             text-anchor=\"middle\">{title}</text>",
            (self.top + self.height - self.bottom) / 2.0
        );
    }
}
