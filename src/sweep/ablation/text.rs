//! The ablation on the terminal (the price of each concern per framework,
//! on the server's CPU and on 1e6 / req/s) and as CSV (one line per
//! framework and part).

use std::io::{self, Write};

use super::result::{AblationResult, FrameworkAblation, Price, Variant};
use crate::report::{printable, Align, Table, CLIENT_BOUND};
use crate::sweep::Estimate;

/// Which figure a table's prices come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The server's CPU µs per request.
    ServerCpu,
    /// 1e6 / valid answers per second.
    Throughput,
}

impl Basis {
    /// The price of `price` on this basis.
    pub fn of(self, price: &Price) -> Option<Estimate> {
        match self {
            Basis::ServerCpu => price.server_us,
            Basis::Throughput => price.us,
        }
    }

    /// The median µs per request of `variant` on this basis.
    pub fn median(self, variant: &Variant) -> Option<f64> {
        match self {
            Basis::ServerCpu => variant.server_median_us,
            Basis::Throughput => variant.median_us,
        }
    }

    /// The basis the headline table and the chart use: the server's CPU
    /// when every framework has it (it holds where the client set the
    /// pace), else 1e6 / req/s.
    pub fn headline(result: &AblationResult) -> Basis {
        let every = result.frameworks.iter().all(|f| f.chain.server_us.is_some());
        if every && !result.frameworks.is_empty() {
            Basis::ServerCpu
        } else {
            Basis::Throughput
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Basis::ServerCpu => "the server's CPU µs per request",
            Basis::Throughput => {
                "µs per request from 1e6 / req/s (with one server worker, its time per request)"
            }
        }
    }
}

/// Writes the run header, the table of prices on the headline basis, the
/// same on the other basis when there is one, a reading guide, failures
/// and warnings.
pub fn write_terminal(result: &AblationResult, out: &mut dyn Write) -> io::Result<()> {
    let extent = format!(
        "ablation of scenario {}, concerns {}, request headers {}",
        printable(&result.scenario),
        printable(&result.concerns.join(", ")),
        printable(&result.header_set)
    );
    let header = crate::report::run_header(&result.header, &extent);
    for line in header {
        writeln!(out, "{}", printable(&line))?;
    }
    for warning in &result.warnings {
        writeln!(out, "WARNING: {}", printable(warning))?;
    }
    let headline = Basis::headline(result);
    writeln!(
        out,
        "\nWhat each concern costs, on {}: the whole chain minus the chain without it, paired round by \
         round (± its 95% confidence interval):\n",
        headline.describe()
    )?;
    table(result, headline).write_text("  ", out)?;
    if headline == Basis::ServerCpu {
        writeln!(out, "\nThe same on {}:\n", Basis::Throughput.describe())?;
        table(result, Basis::Throughput).write_text("  ", out)?;
    }
    writeln!(
        out,
        "\n  whole, bare: µs per request (median over rounds) with every concern and with none; chain: \
         whole − bare.\n  The concerns need not add up to the chain: two can share work (one parses what \
         the other reads),\n  and a concern's price includes what it makes the framework do besides its \
         own code."
    )?;
    let client_bound = result
        .frameworks
        .iter()
        .flat_map(|f| std::iter::once(&f.whole).chain(f.concerns.iter().map(|c| &c.without)))
        .any(|v| v.client_bound);
    if client_bound {
        writeln!(
            out,
            "  {CLIENT_BOUND} client-bound: the load generator was busy while the server was not; 1e6 / \
             req/s overstates the server's µs per request there."
        )?;
    }
    if result
        .frameworks
        .iter()
        .any(|f| f.concerns.iter().any(|c| c.price.pairs < 2) || f.chain.pairs < 2)
    {
        writeln!(
            out,
            "  –: fewer than two rounds measured both chains, so no interval (or no figure)."
        )?;
    }
    for framework in &result.frameworks {
        let variants = std::iter::once(&framework.whole)
            .chain(framework.concerns.iter().map(|c| &c.without))
            .chain(std::iter::once(&framework.bare));
        for variant in variants {
            if let Some(reason) = &variant.failed {
                writeln!(
                    out,
                    "  {} / {}: FAILED: {}",
                    framework.framework,
                    printable(&variant.row),
                    printable(reason)
                )?;
            }
        }
    }
    let mut ranked: Vec<(&str, f64)> = result
        .frameworks
        .iter()
        .filter_map(|f| Some((f.framework.as_str(), headline.of(&f.chain)?.value)))
        .collect();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    if !ranked.is_empty() {
        let names: Vec<String> = ranked.iter().map(|(f, us)| format!("{f} {us:.1}")).collect();
        writeln!(
            out,
            "\n  cheapest chain first (µs, whole − bare): {}",
            names.join(" < ")
        )?;
    }
    Ok(())
}

/// One line per framework: req/s and µs of the whole chain, the bare
/// route's µs, the chain's price, then each concern's.
fn table(result: &AblationResult, basis: Basis) -> Table {
    let mut columns: Vec<(&str, Align)> = vec![
        ("framework", Align::Left),
        ("req/s whole", Align::Right),
        ("whole µs", Align::Right),
        ("bare µs", Align::Right),
        ("chain µs", Align::Right),
    ];
    columns.extend(result.concerns.iter().map(|c| (c.as_str(), Align::Right)));
    let mut table = Table::new(&columns);
    for framework in &result.frameworks {
        table.push(cells(framework, basis));
    }
    table
}

fn cells(framework: &FrameworkAblation, basis: Basis) -> Vec<String> {
    let median = |variant: &Variant| match (basis.median(variant), &variant.failed) {
        (None, Some(_)) => "FAILED".to_owned(),
        (None, None) => "–".to_owned(),
        (Some(us), _) => {
            let mark = if variant.client_bound && basis == Basis::Throughput {
                CLIENT_BOUND
            } else {
                ""
            };
            format!("{us:.1}{mark}")
        }
    };
    let mut cells = vec![
        framework.framework.clone(),
        framework
            .whole
            .rps_median
            .map_or("–".to_owned(), |rps| format!("{rps:.0}")),
        median(&framework.whole),
        median(&framework.bare),
        plus_minus(basis.of(&framework.chain)),
    ];
    for concern in &framework.concerns {
        cells.push(match (basis.of(&concern.price), &concern.without.failed) {
            (None, Some(_)) => "FAILED".to_owned(),
            (estimate, _) => plus_minus(estimate),
        });
    }
    cells
}

/// `12.3 ± 1.1`, or `–`.
fn plus_minus(estimate: Option<Estimate>) -> String {
    estimate.map_or("–".to_owned(), |e| {
        format!("{:.1} ± {:.1}", e.value, e.half_width())
    })
}

/// The CSV columns, in order.
pub const CSV_COLUMNS: &str =
    "framework,part,pairs,us,us_ci95_low,us_ci95_high,server_us,server_us_ci95_low,server_us_ci95_high";

/// One line per framework and part: each concern's price, `chain` (whole −
/// bare), then `whole` and `bare`, whose figures are medians over rounds
/// (no interval; `pairs` is empty). A figure that was not measured is
/// empty.
pub fn write_csv(result: &AblationResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{CSV_COLUMNS}")?;
    let number = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:.4}"));
    let estimate = |e: Option<Estimate>| match e {
        Some(e) => format!("{:.4},{:.4},{:.4}", e.value, e.ci95_low, e.ci95_high),
        None => ",,".to_owned(),
    };
    for framework in &result.frameworks {
        let name = csv_field(&framework.framework);
        let parts = framework
            .concerns
            .iter()
            .map(|c| (c.concern.as_str(), &c.price))
            .chain(std::iter::once(("chain", &framework.chain)));
        for (part, price) in parts {
            writeln!(
                out,
                "{name},{},{},{},{}",
                csv_field(part),
                price.pairs,
                estimate(price.us),
                estimate(price.server_us)
            )?;
        }
        for (part, variant) in [("whole", &framework.whole), ("bare", &framework.bare)] {
            writeln!(
                out,
                "{name},{part},,{},,,{},,",
                number(variant.median_us),
                number(variant.server_median_us)
            )?;
        }
    }
    Ok(())
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (a
/// concern name comes from the scenario file).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::ablation::result::tests::{concerns, prod, report};

    fn result() -> AblationResult {
        AblationResult::of(&report(&["s200", "hono"]), &prod(), &concerns())
    }

    #[test]
    fn the_table_prices_each_concern_on_the_servers_cpu_then_on_throughput() {
        let mut out = Vec::new();
        write_terminal(&result(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("ablation of scenario prod, concerns cors, auth"),
            "{text}"
        );
        assert!(text.contains("on the server's CPU µs per request"), "{text}");
        assert!(
            text.contains("The same on µs per request from 1e6 / req/s"),
            "{text}"
        );
        let hono = text.lines().find(|l| l.trim_start().starts_with("hono")).unwrap();
        // hono: bare 21 µs (+1 system), cors 2, auth 20; chain 22.
        assert!(hono.contains("44.1"), "whole: {hono}");
        assert!(hono.contains("22.1"), "bare: {hono}");
        assert!(hono.contains("22.0 ± 0.0"), "chain: {hono}");
        assert!(hono.contains("2.0 ± 0.0"), "cors: {hono}");
        assert!(hono.contains("20.0 ± 0.0"), "auth: {hono}");
        assert!(
            text.contains("cheapest chain first (µs, whole − bare): s200 12.0 < hono 22.0"),
            "{text}"
        );
    }

    #[test]
    fn a_failed_chain_is_named_with_its_reason() {
        let mut report = report(&["s200"]);
        report
            .row_mut("s200", "prod~cors", crate::report::RowKind::Js)
            .fail(
                "validation: header access-control-allow-origin: \"*\" (expected none)",
                None,
            );
        let result = AblationResult::of(&report, &prod(), &concerns());
        let mut out = Vec::new();
        write_terminal(&result, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("s200 / prod~cors: FAILED: validation: header access-control-allow-origin"),
            "{text}"
        );
    }

    #[test]
    fn the_csv_has_a_line_per_framework_and_part() {
        let mut out = Vec::new();
        write_csv(&result(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], CSV_COLUMNS);
        // Two concerns, the chain, whole and bare, for two frameworks.
        assert_eq!(lines.len(), 1 + 2 * 5, "{text}");
        assert!(lines[2].starts_with("s200,auth,3,10.0000,"), "{}", lines[2]);
        assert!(
            lines[4].starts_with("s200,whole,,32.1000,,,33.1000,,"),
            "{}",
            lines[4]
        );
        for line in &lines {
            assert_eq!(line.split(',').count(), 9, "{line}");
        }
    }
}
