//! The fidelity table, in every report whose JS rows ran on more than one
//! runtime (`bench --runtime fwbench,node,deno,bun`): how each runtime's
//! figures compare with the reference runtime's (Node's when it ran), row
//! by row, and whether the runtimes rank the frameworks alike.
//!
//! - per framework and scenario, each runtime's req/s and server µs per
//!   request as a ratio to the reference's;
//! - per scenario, the rank agreement of each runtime with the reference:
//!   Spearman's ρ over the frameworks both measured (ties share the mean
//!   rank; undefined below three frameworks);
//! - with hello and mw, the article's table for each runtime: mw's req/s
//!   over hello's, and the chain's server µs per request (mw's less
//!   hello's).

use std::collections::BTreeMap;

use super::model::{BenchReport, RowKind};
use super::summary::{RowSummary, Summary};
use super::table::{Align, Table};

/// A JS row's figures, by framework (without its `@runtime` suffix) and
/// scenario, for one runtime.
type Figures<'a> = BTreeMap<(&'a str, &'a str), Cell>;

/// One row's medians.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cell {
    rps: f64,
    /// Server CPU µs per request (user + system), when measured.
    server_us: Option<f64>,
}

/// The figures of every runtime that served JS rows, the reference first.
#[derive(Debug)]
pub struct Fidelity<'a> {
    /// Runtime names, the reference (node, else the first) first.
    runtimes: Vec<&'a str>,
    by_runtime: BTreeMap<&'a str, Figures<'a>>,
    /// Frameworks and scenarios in report order.
    frameworks: Vec<&'a str>,
    scenarios: Vec<&'a str>,
}

impl<'a> Fidelity<'a> {
    /// The figures of `report`'s ok JS rows by runtime; `None` when its JS
    /// rows ran on one runtime only.
    pub fn of(report: &'a BenchReport, summary: &Summary) -> Option<Fidelity<'a>> {
        let mut runtimes: Vec<&str> = Vec::new();
        let mut by_runtime: BTreeMap<&str, Figures> = BTreeMap::new();
        let mut frameworks: Vec<&str> = Vec::new();
        let mut scenarios: Vec<&str> = Vec::new();
        for (row, row_summary) in report.rows.iter().zip(&summary.rows) {
            if row.kind != RowKind::Js {
                continue;
            }
            let runtime = row.runtime();
            if !runtimes.contains(&runtime) {
                runtimes.push(runtime);
            }
            let framework = base_name(&row.framework, runtime);
            if !frameworks.contains(&framework) {
                frameworks.push(framework);
            }
            if !scenarios.contains(&row.scenario.as_str()) {
                scenarios.push(&row.scenario);
            }
            if let Some(cell) = cell(row_summary) {
                by_runtime
                    .entry(runtime)
                    .or_default()
                    .insert((framework, row.scenario.as_str()), cell);
            }
        }
        if runtimes.len() < 2 {
            return None;
        }
        if let Some(node) = runtimes.iter().position(|r| *r == "node") {
            let node = runtimes.remove(node);
            runtimes.insert(0, node);
        }
        Some(Fidelity {
            runtimes,
            by_runtime,
            frameworks,
            scenarios,
        })
    }

    /// The reference runtime.
    pub fn reference(&self) -> &str {
        self.runtimes[0]
    }

    fn get(&self, runtime: &str, framework: &str, scenario: &str) -> Option<Cell> {
        self.by_runtime.get(runtime)?.get(&(framework, scenario)).copied()
    }

    /// Per framework and scenario: the reference's req/s and µs, and each
    /// other runtime's as a ratio to them (`1.48×`).
    pub fn ratio_table(&self) -> Table {
        let reference = self.reference();
        let mut headers = vec![
            "framework".to_owned(),
            "scenario".to_owned(),
            format!("{reference} req/s"),
            format!("{reference} µs/req"),
        ];
        for runtime in &self.runtimes[1..] {
            headers.push(format!("{runtime} req/s ×"));
            headers.push(format!("{runtime} µs ×"));
        }
        let mut table = table_of(&headers);
        for scenario in &self.scenarios {
            for framework in &self.frameworks {
                let base = self.get(reference, framework, scenario);
                let mut cells = vec![
                    (*framework).to_owned(),
                    (*scenario).to_owned(),
                    base.map_or("-".into(), |c| format!("{:.0}", c.rps)),
                    base.and_then(|c| c.server_us)
                        .map_or("-".into(), |us| format!("{us:.1}")),
                ];
                for runtime in &self.runtimes[1..] {
                    let other = self.get(runtime, framework, scenario);
                    let rps = base.zip(other).map(|(b, o)| o.rps / b.rps);
                    let us = base
                        .and_then(|b| b.server_us)
                        .zip(other.and_then(|o| o.server_us));
                    cells.push(times(rps));
                    cells.push(times(us.map(|(b, o)| o / b)));
                }
                table.push(cells);
            }
        }
        table
    }

    /// Spearman's ρ between each runtime's and the reference's req/s over
    /// the frameworks both measured, per scenario (`0.90 (7)`: ρ over
    /// seven frameworks).
    pub fn rank_table(&self) -> Table {
        let mut headers = vec!["scenario".to_owned()];
        headers.extend(
            self.runtimes[1..]
                .iter()
                .map(|r| format!("{r} vs {}", self.reference())),
        );
        let mut table = table_of(&headers);
        for scenario in &self.scenarios {
            let mut cells = vec![(*scenario).to_owned()];
            for runtime in &self.runtimes[1..] {
                let pairs: Vec<(f64, f64)> = self
                    .frameworks
                    .iter()
                    .filter_map(|f| {
                        let base = self.get(self.reference(), f, scenario)?;
                        let other = self.get(runtime, f, scenario)?;
                        Some((base.rps, other.rps))
                    })
                    .collect();
                cells.push(match spearman(&pairs) {
                    Some(rho) => format!("{rho:.2} ({})", pairs.len()),
                    None => format!("- ({})", pairs.len()),
                });
            }
            table.push(cells);
        }
        table
    }

    /// With scenarios hello and mw: per framework and runtime, mw's req/s
    /// over hello's and the chain's µs per request (mw's server µs less
    /// hello's). `None` without both scenarios.
    pub fn chain_table(&self) -> Option<Table> {
        if !(self.scenarios.contains(&"hello") && self.scenarios.contains(&"mw")) {
            return None;
        }
        let mut headers = vec!["framework".to_owned()];
        for runtime in &self.runtimes {
            headers.push(format!("{runtime} mw/hello"));
            headers.push(format!("{runtime} chain µs"));
        }
        let mut table = table_of(&headers);
        for framework in &self.frameworks {
            let mut cells = vec![(*framework).to_owned()];
            for runtime in &self.runtimes {
                let hello = self.get(runtime, framework, "hello");
                let mw = self.get(runtime, framework, "mw");
                let pair = hello.zip(mw);
                cells.push(times(pair.map(|(h, m)| m.rps / h.rps)));
                let chain = pair.and_then(|(h, m)| Some(m.server_us? - h.server_us?));
                cells.push(chain.map_or("-".into(), |us| format!("{us:+.1}")));
            }
            table.push(cells);
        }
        Some(table)
    }
}

/// `hono@node` is hono's row on node; fwbench's rows carry no suffix.
fn base_name<'a>(framework: &'a str, runtime: &str) -> &'a str {
    framework
        .strip_suffix(runtime)
        .and_then(|rest| rest.strip_suffix('@'))
        .unwrap_or(framework)
}

fn cell(row: &RowSummary) -> Option<Cell> {
    if row.failure.is_some() {
        return None;
    }
    Some(Cell {
        rps: row.rps_ok.as_ref()?.median,
        server_us: row.cost.as_ref().map(|c| c.server_user_us + c.server_system_us),
    })
}

fn times(ratio: Option<f64>) -> String {
    ratio
        .filter(|r| r.is_finite())
        .map_or("-".into(), |r| format!("{r:.2}×"))
}

fn table_of(headers: &[String]) -> Table {
    let columns: Vec<(&str, Align)> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            (
                h.as_str(),
                if i == 0 || (i == 1 && h == "scenario") {
                    Align::Left
                } else {
                    Align::Right
                },
            )
        })
        .collect();
    Table::new(&columns)
}

/// Spearman's rank correlation of `pairs`: Pearson's over their ranks,
/// ties given the mean of the ranks they span. `None` below three pairs or
/// when either side has no spread.
pub fn spearman(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let a = ranks(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let b = ranks(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let n = a.len() as f64;
    let (mean_a, mean_b) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let mut cov = 0.0;
    let (mut var_a, mut var_b) = (0.0, 0.0);
    for (x, y) in a.iter().zip(&b) {
        cov += (x - mean_a) * (y - mean_b);
        var_a += (x - mean_a).powi(2);
        var_b += (y - mean_b).powi(2);
    }
    (var_a > 0.0 && var_b > 0.0).then(|| cov / (var_a * var_b).sqrt())
}

/// 1-based ranks of `values`, ties sharing their mean rank.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let mean = (start + end) as f64 / 2.0 + 1.0;
        for &index in &order[start..=end] {
            ranks[index] = mean;
        }
        start = end + 1;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{MachineInfo, Percentiles, Pinning, Round, ToolInfo};

    /// A report of three frameworks on fwbench and node, hello and mw, one
    /// 1 s round each at the given req/s (fwbench's rows, then node's).
    fn report(fwbench: [[f64; 3]; 2], node: [[f64; 3]; 2]) -> BenchReport {
        let mut report = BenchReport::new(
            ToolInfo::default(),
            MachineInfo::default(),
            Pinning::default(),
            serde_json::Value::Null,
            "2026-12-07T10:00:00Z",
        );
        for (scenario, index) in [("hello", 0), ("mw", 1)] {
            for (runtime, figures) in [("fwbench", fwbench), ("node", node)] {
                for (framework, rps) in ["a", "b", "c"].iter().zip(figures[index]) {
                    let name = match runtime {
                        "fwbench" => framework.to_string(),
                        _ => format!("{framework}@{runtime}"),
                    };
                    let row = report.row_mut(&name, scenario, RowKind::Js);
                    row.served_by = runtime.to_owned();
                    row.push_round(Round::new(1.0, rps as u64, rps as u64, Percentiles::default()));
                }
            }
        }
        report.row_mut("hyper", "hello", RowKind::Native).served_by = "native".into();
        report
    }

    #[test]
    fn ratios_ranks_and_the_chain_come_from_the_medians() {
        let report = report(
            [[200.0, 100.0, 300.0], [100.0, 50.0, 90.0]],
            [[100.0, 100.0, 200.0], [50.0, 80.0, 40.0]],
        );
        let summary = Summary::of(&report);
        let fidelity = Fidelity::of(&report, &summary).expect("two runtimes");
        assert_eq!(fidelity.reference(), "node");
        let mut text = Vec::new();
        fidelity.ratio_table().write_text("", &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        // a hello: fwbench 200 over node's 100; c mw: 90 over 40.
        let cells = |text: &str, lead: &[&str]| -> Vec<String> {
            text.lines()
                .map(|line| line.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
                .find(|cells| cells.len() >= lead.len() && cells[..lead.len()] == *lead)
                .unwrap_or_else(|| panic!("no line {lead:?} in\n{text}"))
        };
        // Columns: framework, scenario, node req/s, node µs, fwbench req/s ×, fwbench µs ×.
        assert_eq!(cells(&text, &["a", "hello"])[2..5], ["100", "-", "2.00×"]);
        assert_eq!(cells(&text, &["c", "mw"])[4], "2.25×");
        assert_eq!(cells(&text, &["b", "hello"])[4], "1.00×");
        // hello: node ranks (1.5, 1.5, 3), fwbench (2, 1, 3): ρ = 0.87;
        // mw: node (2, 3, 1), fwbench (3, 1, 2): ρ = -0.5.
        let mut ranks = Vec::new();
        fidelity.rank_table().write_text("", &mut ranks).unwrap();
        let ranks = String::from_utf8(ranks).unwrap();
        assert_eq!(cells(&ranks, &["hello"])[1..], ["0.87", "(3)"]);
        assert_eq!(cells(&ranks, &["mw"])[1..], ["-0.50", "(3)"]);
        let mut chain = Vec::new();
        fidelity
            .chain_table()
            .expect("hello and mw")
            .write_text("", &mut chain)
            .unwrap();
        let chain = String::from_utf8(chain).unwrap();
        // a: node mw/hello 0.50, fwbench 0.50; b: node 0.80, fwbench 0.50.
        assert!(
            chain
                .lines()
                .any(|l| l.starts_with("b") && l.contains("0.80×") && l.contains("0.50×")),
            "{chain}"
        );
        // One runtime alone has no fidelity table.
        let mut alone = report.clone();
        alone.rows.retain(|row| row.runtime() != "node");
        assert!(Fidelity::of(&alone, &Summary::of(&alone)).is_none());
    }

    #[test]
    fn spearman_agrees_with_hand_computed_values() {
        // Same order: 1; reversed: -1.
        assert_eq!(spearman(&[(1.0, 10.0), (2.0, 20.0), (3.0, 30.0)]), Some(1.0));
        assert_eq!(spearman(&[(1.0, 30.0), (2.0, 20.0), (3.0, 10.0)]), Some(-1.0));
        // Ranks a = 1 2 3 4, b = 2 1 4 3: d² = 1+1+1+1 = 4, ρ = 1 - 6·4/(4·15) = 0.6.
        let rho = spearman(&[(1.0, 2.0), (2.0, 1.0), (3.0, 4.0), (4.0, 3.0)]).unwrap();
        assert!((rho - 0.6).abs() < 1e-12, "{rho}");
        assert_eq!(spearman(&[(1.0, 1.0), (2.0, 2.0)]), None);
        assert_eq!(spearman(&[(1.0, 5.0), (2.0, 5.0), (3.0, 5.0)]), None);
    }

    #[test]
    fn ties_share_their_mean_rank() {
        assert_eq!(ranks(&[10.0, 30.0, 10.0, 20.0]), [1.5, 4.0, 1.5, 3.0]);
    }

    #[test]
    fn runtime_rows_are_named_after_their_framework() {
        assert_eq!(base_name("hono@node", "node"), "hono");
        assert_eq!(base_name("hono-patched@bun", "bun"), "hono-patched");
        assert_eq!(base_name("express", "fwbench"), "express");
    }
}
