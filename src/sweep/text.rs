//! The sweep on the terminal (one table: µs per request at each depth, then
//! the fit) and as CSV (one line per framework, depth and round).

use std::io::{self, Write};

use super::fit::Shape;
use super::result::{FrameworkSweep, SweepResult};
use crate::estimate::Estimate;
use crate::report::{printable, Align, Table, CLIENT_BOUND};

/// Writes the sweep's table, its reading guide and any warnings.
pub fn write_terminal(sweep: &SweepResult, out: &mut dyn Write) -> io::Result<()> {
    let extent = format!(
        "sweep of scenario {}, depths {}, request headers {}",
        printable(&sweep.scenario),
        join(&sweep.depths),
        printable(&sweep.header_set)
    );
    let header = crate::report::run_header(&sweep.header, &extent);
    for line in header {
        writeln!(out, "{}", printable(&line))?;
    }
    for warning in &sweep.warnings {
        writeln!(out, "WARNING: {}", printable(warning))?;
    }
    writeln!(
        out,
        "\nµs per request at each depth (1e6 / req/s, median over rounds), the fit over every round, and the \
         same fit over the server's CPU µs per request:\n"
    )?;
    table(sweep).write_text("  ", out)?;
    writeln!(
        out,
        "\n  fixed: µs per request with no links; per link: µs one more link adds, ± its 95% confidence \
         interval;\n  shape: linear when a parabola's curvature is within noise of zero, else whether each \
         further link\n  costs more (grows) or less (shrinks) than the one before."
    )?;
    let client_bound = sweep
        .frameworks
        .iter()
        .flat_map(|f| &f.points)
        .any(|p| p.client_bound);
    if client_bound {
        writeln!(
            out,
            "  {CLIENT_BOUND} client-bound: the load generator was busy while the server was not; the \
             figure overstates the server's µs per request."
        )?;
    }
    for framework in &sweep.frameworks {
        for point in &framework.points {
            if let Some(reason) = &point.failed {
                writeln!(
                    out,
                    "  {} at depth {}: FAILED: {}",
                    framework.framework,
                    point.depth,
                    printable(reason)
                )?;
            }
        }
    }
    // The server's CPU fit ranks when every framework has one: it holds
    // where the client set the pace, which 1e6 / req/s does not.
    let by_cpu = sweep.frameworks.iter().all(|f| f.server_fit.is_some());
    let per_link = |f: &FrameworkSweep| {
        let fit = if by_cpu { &f.server_fit } else { &f.fit };
        fit.as_ref().map(|fit| fit.per_link_us.value)
    };
    let mut ranked: Vec<(&FrameworkSweep, f64)> = sweep
        .frameworks
        .iter()
        .filter_map(|f| Some((f, per_link(f)?)))
        .collect();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    if !ranked.is_empty() {
        let names: Vec<String> = ranked
            .iter()
            .map(|(f, us)| format!("{} {us:.2}", f.framework))
            .collect();
        let basis = if by_cpu {
            "the server's CPU µs per request"
        } else {
            "1e6 / req/s (not every framework has server CPU figures)"
        };
        writeln!(
            out,
            "\n  cheapest link first (µs, fit on {basis}): {}",
            names.join(" < ")
        )?;
    }
    Ok(())
}

/// The table: framework, one column per depth, then the fit.
fn table(sweep: &SweepResult) -> Table {
    let depth_headers: Vec<String> = sweep.depths.iter().map(|d| d.to_string()).collect();
    let mut columns: Vec<(&str, Align)> = vec![("framework", Align::Left)];
    columns.extend(depth_headers.iter().map(|h| (h.as_str(), Align::Right)));
    columns.extend([
        ("fixed µs", Align::Right),
        ("per link µs (95% CI)", Align::Right),
        ("shape", Align::Left),
        ("R²", Align::Right),
        ("server CPU per link µs", Align::Right),
    ]);
    let mut table = Table::new(&columns);
    for framework in &sweep.frameworks {
        let mut cells = vec![framework.framework.clone()];
        for &depth in &sweep.depths {
            let point = framework.points.iter().find(|p| p.depth == depth);
            cells.push(match point {
                Some(p) if p.failed.is_some() && p.median_us.is_none() => "FAILED".into(),
                Some(p) => p.median_us.map_or("–".into(), |us| {
                    let mark = if p.client_bound { CLIENT_BOUND } else { "" };
                    format!("{us:.1}{mark}")
                }),
                None => "–".into(),
            });
        }
        match &framework.fit {
            Some(fit) => cells.extend([
                format!("{:.1}", fit.fixed_us.value),
                plus_minus(&fit.per_link_us),
                shape(fit.shape, fit.curvature_us.as_ref()),
                format!("{:.3}", fit.r_squared),
            ]),
            None => cells.extend(["no fit".into(), "".into(), "".into(), "".into()]),
        }
        cells.push(
            framework
                .server_fit
                .as_ref()
                .map_or("–".into(), |fit| plus_minus(&fit.per_link_us)),
        );
        table.push(cells);
    }
    table
}

/// `1.23 ± 0.04`.
fn plus_minus(estimate: &Estimate) -> String {
    format!("{:.2} ± {:.2}", estimate.value, estimate.half_width())
}

fn shape(shape: Shape, curvature: Option<&Estimate>) -> String {
    match (shape, curvature) {
        (Shape::Linear, _) => "linear".into(),
        (Shape::Grows, Some(c)) => format!("grows ({:+.3} µs/link²)", c.value),
        (Shape::Shrinks, Some(c)) => format!("shrinks ({:+.3} µs/link²)", c.value),
        _ => "? (needs 4 depths)".into(),
    }
}

fn join(depths: &[usize]) -> String {
    depths.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(" ")
}

/// The CSV columns, in order.
pub const CSV_COLUMNS: &str = "framework,kind,depth,round,us_per_request,server_us_per_request";

/// One line per framework, depth and measured round.
pub fn write_csv(sweep: &SweepResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{CSV_COLUMNS}")?;
    for framework in &sweep.frameworks {
        let kind = match framework.kind {
            crate::report::RowKind::Js => "js",
            crate::report::RowKind::Native => "native",
        };
        for point in &framework.points {
            for (round, us) in point.rounds_us.iter().enumerate() {
                // Empty when the rounds did not record it.
                let server = point
                    .server_rounds_us
                    .get(round)
                    .map_or(String::new(), |us| format!("{us:.4}"));
                writeln!(
                    out,
                    "{},{kind},{},{round},{us:.4},{server}",
                    framework.framework, point.depth
                )?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::result::tests::report;

    fn sweep() -> SweepResult {
        SweepResult::of(&report(&["s200", "hono"], &[0, 1, 2, 4]), "mw", &[0, 1, 2, 4])
    }

    #[test]
    fn the_table_shows_each_depth_and_the_fit() {
        let mut out = Vec::new();
        write_terminal(&sweep(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("scenario mw, depths 0 1 2 4"), "{text}");
        let hono = text.lines().find(|l| l.trim_start().starts_with("hono")).unwrap();
        // hono: 11 + 2·depth µs; at depth 4, 19.0; 2.00 µs per link.
        assert!(hono.contains("19.0"), "{hono}");
        assert!(hono.contains("2.00 ±"), "{hono}");
        assert!(hono.contains("linear"), "{hono}");
        assert!(
            text.contains("cheapest link first (µs, fit on 1e6 / req/s (not every framework has server CPU figures)): s200 1.00 < hono 2.00"),
            "{text}"
        );
    }

    /// With the server's CPU per request on every round, the ranking uses
    /// its fit: here hono's server does 0.5 µs per link, s200's 3 µs,
    /// though hono's req/s falls faster (a client-paced run, say).
    #[test]
    fn the_ranking_uses_the_servers_cpu_fit_when_every_round_has_it() {
        let mut report = report(&["s200", "hono"], &[0, 1, 2, 4]);
        for row in &mut report.rows {
            let depth: f64 = row.scenario.rsplit('@').next().unwrap().parse().unwrap();
            let per_link = if row.framework == "hono" { 0.5 } else { 3.0 };
            for round in &mut row.rounds {
                round.cost = Some(crate::report::cost::RequestCost {
                    server_user_us: 5.0 + per_link * depth,
                    server_system_us: 4.0,
                    client_us: None,
                    heap: None,
                    server_time: None,
                });
            }
        }
        let sweep = SweepResult::of(&report, "mw", &[0, 1, 2, 4]);
        let mut out = Vec::new();
        write_terminal(&sweep, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("(µs, fit on the server's CPU µs per request): hono 0.50 < s200 3.00"),
            "{text}"
        );
        let mut csv = Vec::new();
        write_csv(&sweep, &mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert!(csv.lines().nth(1).unwrap().ends_with(",9.0000"), "{csv}");
    }

    #[test]
    fn a_client_bound_depth_is_marked_and_explained() {
        let mut report = report(&["hyper"], &[0, 1, 2]);
        for round in &mut report.rows[0].rounds {
            round.client_cpu = Some(0.97);
            round.server_cpu = Some(0.6);
        }
        let sweep = SweepResult::of(&report, "mw", &[0, 1, 2]);
        assert!(sweep.frameworks[0].points[0].client_bound);
        assert!(!sweep.frameworks[0].points[1].client_bound);
        let mut out = Vec::new();
        write_terminal(&sweep, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let hyper = text
            .lines()
            .find(|l| l.trim_start().starts_with("hyper"))
            .unwrap();
        assert!(hyper.contains("10.0‡"), "{hyper}");
        assert!(text.contains("‡ client-bound"), "{text}");
    }

    #[test]
    fn the_csv_has_a_line_per_round() {
        let mut out = Vec::new();
        write_csv(&sweep(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], CSV_COLUMNS);
        assert_eq!(lines.len(), 1 + 2 * 4 * 3);
        assert!(lines[1].starts_with("s200,js,0,0,"), "{}", lines[1]);
    }
}
