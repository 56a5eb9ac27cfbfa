//! The figures of a sweep, derived from its bench report: per framework,
//! µs per request at each depth (every round, and the median) and the fit
//! over all of them. What `sweep.json` holds and the table, CSV and chart
//! show.

use serde::Serialize;

use super::fit::{self, ChainFit};
use crate::report::{BenchReport, RowKind, RowStatus, RunHeader, Summary};

/// The layout version of `sweep.json`.
pub const SWEEP_SCHEMA_VERSION: u32 = 1;

/// A sweep's results.
#[derive(Debug, Clone, Serialize)]
pub struct SweepResult {
    /// Layout version ([`SWEEP_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The scenario swept (`mw`, or a file's name).
    pub scenario: String,
    /// The depths measured, ascending.
    pub depths: Vec<usize>,
    /// The request header set its requests carried (`minimal`, `browser`,
    /// `api`; src/header_sets.rs).
    pub header_set: String,
    /// Who measured, on what, pinned how, with which options, when (the
    /// bench report's, flattened into the JSON).
    #[serde(flatten)]
    pub header: RunHeader,
    /// One entry per framework, in report order.
    pub frameworks: Vec<FrameworkSweep>,
    /// The run's warnings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One framework across the depths.
#[derive(Debug, Clone, Serialize)]
pub struct FrameworkSweep {
    /// Its name.
    pub framework: String,
    /// JS or native.
    pub kind: RowKind,
    /// One entry per depth measured (failed depths included, with reasons).
    pub points: Vec<DepthPoint>,
    /// The fit over every round of every depth that was measured; absent
    /// with too few points (see `fit_error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<ChainFit>,
    /// Why there is no fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit_error: Option<String>,
    /// The same fit over the server's CPU µs per request (`server_rounds_us`):
    /// right even where the client set the pace; absent without those
    /// figures or with too few points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_fit: Option<ChainFit>,
}

/// One framework at one depth.
#[derive(Debug, Clone, Serialize)]
pub struct DepthPoint {
    /// Links in the chain.
    pub depth: usize,
    /// µs per request of each round: 1e6 / valid answers per second. With
    /// one server worker that is the time the worker spends per request.
    pub rounds_us: Vec<f64>,
    /// The median of `rounds_us`, absent when no round was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_us: Option<f64>,
    /// The server process's CPU µs per answered request of each round
    /// (bench's anatomy), in the order of `rounds_us`; empty when a round
    /// did not record it.
    pub server_rounds_us: Vec<f64>,
    /// The median of `server_rounds_us`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_median_us: Option<f64>,
    /// Why the row failed, if it did (its finished rounds still count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Whether the load generator, not the server, was the limit (bench's
    /// rule, src/report/summary.rs): then `median_us` overstates the
    /// server's time per request.
    pub client_bound: bool,
}

impl SweepResult {
    /// The sweep of `scenario` over `depths` in `report`, whose rows are
    /// named `<scenario>@<depth>`.
    pub fn of(report: &BenchReport, scenario: &str, depths: &[usize]) -> SweepResult {
        let summary = Summary::of(report);
        let frameworks = report
            .frameworks
            .iter()
            .filter_map(|name| framework_sweep(report, &summary, name, scenario, depths))
            .collect();
        SweepResult {
            schema_version: SWEEP_SCHEMA_VERSION,
            scenario: scenario.to_owned(),
            depths: depths.to_vec(),
            header_set: depths
                .first()
                .map_or("minimal", |&depth| report.header_set(&row_name(scenario, depth)))
                .to_owned(),
            header: report.header.clone(),
            frameworks,
            warnings: report.warnings.clone(),
        }
    }
}

/// The row name of `scenario` at `depth`, as `ScenarioRef::label` makes it.
pub fn row_name(scenario: &str, depth: usize) -> String {
    crate::scenario::at_depth_label(scenario, Some(depth))
}

fn framework_sweep(
    report: &BenchReport,
    summary: &Summary,
    name: &str,
    scenario: &str,
    depths: &[usize],
) -> Option<FrameworkSweep> {
    let mut kind = None;
    let mut points = Vec::new();
    for &depth in depths {
        let row_name = row_name(scenario, depth);
        let Some(row) = report.row(name, &row_name) else {
            continue;
        };
        let client_bound = summary.row(name, &row_name).is_some_and(|row| row.client_bound);
        kind = Some(row.kind);
        let rounds_us: Vec<f64> = row
            .rounds
            .iter()
            .filter(|round| round.rps_ok > 0.0)
            .map(|round| 1e6 / round.rps_ok)
            .collect();
        // Round for round beside `rounds_us`, or none at all.
        let server_rounds_us: Vec<f64> = row
            .rounds
            .iter()
            .filter(|round| round.rps_ok > 0.0)
            .map(|round| round.cost.map(|c| c.server_us()))
            .collect::<Option<_>>()
            .unwrap_or_default();
        let failed = match &row.status {
            RowStatus::Ok => None,
            RowStatus::Failed { reason, .. } => Some(reason.clone()),
        };
        points.push(DepthPoint {
            depth,
            median_us: crate::report::summary::median(&rounds_us),
            rounds_us,
            server_median_us: crate::report::summary::median(&server_rounds_us),
            server_rounds_us,
            failed,
            client_bound,
        });
    }
    let kind = kind?;
    let xy: Vec<(f64, f64)> = points
        .iter()
        .flat_map(|p| p.rounds_us.iter().map(move |&us| (p.depth as f64, us)))
        .collect();
    let (fit, fit_error) = match fit::fit(&xy) {
        Ok(fit) => (Some(fit), None),
        Err(error) => (None, Some(error.to_string())),
    };
    let server_xy: Vec<(f64, f64)> = points
        .iter()
        .flat_map(|p| p.server_rounds_us.iter().map(move |&us| (p.depth as f64, us)))
        .collect();
    let server_fit = fit::fit(&server_xy).ok();
    Some(FrameworkSweep {
        framework: name.to_owned(),
        kind,
        points,
        fit,
        fit_error,
        server_fit,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::{MachineInfo, Percentiles, Pinning, Round, ToolInfo};

    /// A report of `frameworks` × `depths` where framework k costs
    /// `10 + k + (k+1)·depth` µs per request, three rounds each.
    pub(crate) fn report(frameworks: &[&str], depths: &[usize]) -> BenchReport {
        let mut report = BenchReport::new(
            ToolInfo::default(),
            MachineInfo::default(),
            Pinning::default(),
            serde_json::json!({}),
            "2026-12-03T12:00:00Z",
        );
        for &depth in depths {
            for (k, name) in frameworks.iter().enumerate() {
                for wobble in [-0.2, 0.0, 0.2] {
                    let us = 10.0 + k as f64 + (k as f64 + 1.0) * depth as f64 + wobble;
                    let requests = (1e6 / us) as u64;
                    let round = Round::new(1.0, requests, requests, Percentiles::default());
                    report
                        .row_mut(name, &row_name("mw", depth), RowKind::Js)
                        .push_round(round);
                }
            }
        }
        report
    }

    #[test]
    fn each_framework_gets_its_points_and_fit() {
        let sweep = SweepResult::of(&report(&["s200", "hono"], &[0, 1, 2, 4]), "mw", &[0, 1, 2, 4]);
        assert_eq!(sweep.frameworks.len(), 2);
        let hono = &sweep.frameworks[1];
        assert_eq!(hono.framework, "hono");
        assert_eq!(hono.points.len(), 4);
        assert!((hono.points[3].median_us.unwrap() - 19.0).abs() < 0.01);
        let fit = hono.fit.as_ref().unwrap();
        assert!((fit.per_link_us.value - 2.0).abs() < 0.05, "{fit:?}");
        assert!((fit.fixed_us.value - 11.0).abs() < 0.1, "{fit:?}");
    }

    #[test]
    fn a_failed_depth_is_listed_with_its_reason_and_left_out_of_the_fit() {
        let mut report = report(&["s200"], &[0, 1, 2]);
        report
            .row_mut("s200", "mw@4", RowKind::Js)
            .fail("validation: expected status 200, got 500", None);
        let sweep = SweepResult::of(&report, "mw", &[0, 1, 2, 4]);
        let s200 = &sweep.frameworks[0];
        assert_eq!(
            s200.points[3].failed.as_deref(),
            Some("validation: expected status 200, got 500")
        );
        assert_eq!(s200.points[3].median_us, None);
        assert_eq!(s200.fit.as_ref().unwrap().points, 9);
    }

    #[test]
    fn one_depth_is_too_few_for_a_fit() {
        let sweep = SweepResult::of(&report(&["s200"], &[2]), "mw", &[2]);
        assert!(sweep.frameworks[0].fit.is_none());
        assert!(sweep.frameworks[0]
            .fit_error
            .as_deref()
            .unwrap()
            .contains("two distinct depths"));
    }
}
