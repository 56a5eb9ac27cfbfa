//! Number and text formatting shared by the writers, so the terminal table,
//! the markdown and `compare` print a figure the same way; and
//! [`printable`], which every printed string that comes from a file or a
//! server's output goes through.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with its control characters escaped, so a string read from a
/// file (a report's framework name, a warning, a server's stderr tail) can
/// neither move the cursor, clear the terminal nor start a line of its own
/// (a crafted report's `"\u001b[2J…\r\nfake line"` cleared
/// the terminal and forged lines in `compare`). Escaped: C0 and C1 controls
/// and DEL (`\n`, `\r` and `\t` as such, the others as `\u{1b}`), and the
/// bidirectional overrides and isolates, which reorder what follows them
/// on screen. Everything else, non-ASCII text included, is kept.
///
/// A multi-line text (a stderr tail) is escaped line by line by its
/// writer, which keeps the line breaks it means.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether [`printable`] escapes `c`.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Requests per second: whole numbers, as in the reference table (its
/// cells wobble by hundreds, so decimals would be noise).
pub fn rps(value: f64) -> String {
    format!("{value:.0}")
}

/// The mark after the req/s of a client-bound row (the rule is in
/// [`crate::report::summary`]), in every writer.
pub const CLIENT_BOUND: &str = "‡";

/// Requests per second as [`rps`], followed by [`CLIENT_BOUND`] when the
/// figure is a lower bound.
pub fn rps_marked(value: f64, client_bound: bool) -> String {
    if client_bound {
        format!("{}{CLIENT_BOUND}", rps(value))
    } else {
        rps(value)
    }
}

/// The footnote under a table with [`CLIENT_BOUND`] marks, from the
/// (client, server) CPU shares of its marked rows: each share as one
/// percentage, or the range of them when the rows differ; `load_cpus` is
/// the size of the load generator's CPU set. `None` without marked rows.
pub fn client_bound_note(shares: &[(f64, f64)], load_cpus: usize) -> Option<String> {
    let span = |pick: fn(&(f64, f64)) -> f64| {
        let values: Vec<f64> = shares.iter().map(pick).collect();
        let low = share(values.iter().copied().fold(f64::INFINITY, f64::min));
        let high = share(values.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        if low == high {
            format!("{low}%")
        } else {
            format!("{low}–{high}%")
        }
    };
    if shares.is_empty() {
        return None;
    }
    let cores = match load_cpus {
        0 | 1 => "its core".to_owned(),
        n => format!("its {n} cores"),
    };
    let bound = if shares.len() == 1 {
        "the figure is a lower bound"
    } else {
        "the figures are lower bounds"
    };
    Some(format!(
        "{CLIENT_BOUND} client-bound: the load generator used {} of {cores} while the server used {} — {bound}",
        span(|s| s.0),
        span(|s| s.1)
    ))
}

/// A share (1.0 = all) as a whole percentage, without the sign.
fn share(value: f64) -> String {
    format!("{:.0}", value * 100.0)
}

/// A `[min–max]` throughput range.
pub fn rps_range(min: f64, max: f64) -> String {
    format!("[{}–{}]", rps(min), rps(max))
}

/// A latency in µs shown in milliseconds with about three significant
/// digits: loopback medians run from tens of µs (native rows) to tens of ms
/// (a saturated JS row), and a fixed two decimals would show the native
/// rows as `0.04`.
pub fn ms(us: f64) -> String {
    let ms = us / 1000.0;
    if ms < 1.0 {
        format!("{ms:.3}")
    } else if ms < 10.0 {
        format!("{ms:.2}")
    } else if ms < 100.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

/// A ratio such as `0.42x`.
pub fn ratio(value: f64) -> String {
    format!("{value:.2}x")
}

/// A signed whole percentage such as `-7%` or `+3%`; never `-0%`.
pub fn percent(value: f64) -> String {
    let rounded = value.round();
    // `-0.4` rounds to `-0`, which would print as "-0%".
    let rounded = if rounded == 0.0 { 0.0 } else { rounded };
    format!("{rounded:+}%")
}

/// CPU ids as `0, 2-3`, or `none`.
pub fn cpus(ids: &[usize]) -> String {
    if ids.is_empty() {
        return "none".to_owned();
    }
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut start = sorted[0];
    let mut end = start;
    for &id in &sorted[1..] {
        if id == end + 1 {
            end = id;
        } else {
            parts.push(span(start, end));
            start = id;
            end = id;
        }
    }
    parts.push(span(start, end));
    parts.join(", ")
}

fn span(start: usize, end: usize) -> String {
    if start == end {
        start.to_string()
    } else {
        format!("{start}-{end}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures() {
        assert_eq!(rps(10307.6), "10308");
        assert_eq!(rps_range(9.4, 12.6), "[9–13]");
        assert_eq!(ms(41.0), "0.041");
        assert_eq!(ms(2160.0), "2.16");
        assert_eq!(ms(21_640.0), "21.6");
        assert_eq!(ms(216_400.0), "216");
        assert_eq!(ratio(0.4249), "0.42x");
        assert_eq!(percent(-47.98), "-48%");
        assert_eq!(percent(-0.4), "+0%");
        assert_eq!(percent(3.2), "+3%");
        assert_eq!(cpus(&[3, 0, 1, 2, 5]), "0-3, 5");
        assert_eq!(cpus(&[]), "none");
        assert_eq!(rps_marked(10307.6, true), "10308‡");
        assert_eq!(rps_marked(10307.6, false), "10308");
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("\u{1b}[2J…\r\nfake line"), "\\u{1b}[2J…\\r\\nfake line");
        assert_eq!(printable("a\tb\u{7f}\u{9b}c"), "a\\tb\\u{7f}\\u{9b}c");
        assert_eq!(printable("abc\u{202e}def"), "abc\\u{202e}def");
        assert!(matches!(
            printable("hono × mw ‡ 4.2.1"),
            Cow::Borrowed("hono × mw ‡ 4.2.1")
        ));
    }

    #[test]
    fn the_client_bound_note_gives_the_shares_or_their_range() {
        assert_eq!(client_bound_note(&[], 1), None);
        assert_eq!(
            client_bound_note(&[(0.968, 0.62)], 1).as_deref(),
            Some(
                "‡ client-bound: the load generator used 97% of its core while the server used 62% \
                 — the figure is a lower bound"
            )
        );
        assert_eq!(
            client_bound_note(&[(0.95, 0.581), (0.97, 0.62), (0.951, 0.6)], 2).as_deref(),
            Some(
                "‡ client-bound: the load generator used 95–97% of its 2 cores while the server used \
                 58–62% — the figures are lower bounds"
            )
        );
    }
}
