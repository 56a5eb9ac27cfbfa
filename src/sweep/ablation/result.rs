//! The figures of an ablation, derived from its bench report: per
//! framework, the whole chain, the bare route (every concern left out) and
//! the chain without each concern in turn; each concern's price is the
//! whole chain's µs per request minus the chain's without it, paired round
//! by round (the rows of one round ran back to back), with its 95 %
//! interval. What `ablation.json` holds and the table, CSV and chart show.

use serde::Serialize;

use crate::estimate::{self, Estimate};
use crate::report::{BenchReport, Round, RowStatus, RunHeader, Summary};
use crate::scenario::ScenarioRef;

/// The layout version of `ablation.json`.
pub const ABLATION_SCHEMA_VERSION: u32 = 1;

/// An ablation's results.
#[derive(Debug, Clone, Serialize)]
pub struct AblationResult {
    /// Layout version ([`ABLATION_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The scenario ablated (`prod`, or a file's name).
    pub scenario: String,
    /// Its concerns, outermost first, as it declares them.
    pub concerns: Vec<String>,
    /// The request header set its requests carried.
    pub header_set: String,
    /// Who measured, on what, pinned how, with which options, when (the
    /// bench report's, flattened into the JSON).
    #[serde(flatten)]
    pub header: RunHeader,
    /// One entry per framework, in report order.
    pub frameworks: Vec<FrameworkAblation>,
    /// The run's warnings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One framework's chain, whole, bare and without each concern.
#[derive(Debug, Clone, Serialize)]
pub struct FrameworkAblation {
    /// Its name.
    pub framework: String,
    /// The chain with every concern.
    pub whole: Variant,
    /// The route with no concern at all.
    pub bare: Variant,
    /// What the whole chain costs over the bare route (whole − bare).
    pub chain: Price,
    /// Each concern, in the scenario's order.
    pub concerns: Vec<ConcernPrice>,
}

/// One concern of one framework's chain.
#[derive(Debug, Clone, Serialize)]
pub struct ConcernPrice {
    /// The concern's name.
    pub concern: String,
    /// The chain without it.
    pub without: Variant,
    /// What it costs: whole − without.
    pub price: Price,
}

/// One measured chain (one bench row).
#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    /// Its row's scenario name in the bench report (`prod~cors`).
    pub row: String,
    /// Median valid answers per second over rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rps_median: Option<f64>,
    /// Median of 1e6 / req/s over rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_us: Option<f64>,
    /// Median of the server's CPU µs per answered request over rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_median_us: Option<f64>,
    /// Why the row failed, if it did (its finished rounds still count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Whether the load generator, not the server, set the pace.
    pub client_bound: bool,
}

/// A difference of two variants, paired round by round.
#[derive(Debug, Clone, Serialize)]
pub struct Price {
    /// From 1e6 / req/s: with one server worker, the worker's time per
    /// request. Absent with fewer than two paired rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub us: Option<Estimate>,
    /// From the server's CPU µs per request: right even where the client
    /// set the pace. Absent without those figures or with fewer than two
    /// paired rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_us: Option<Estimate>,
    /// Rounds both variants measured.
    pub pairs: usize,
}

impl AblationResult {
    /// The ablation of `scenario` (its `concerns`) in `report`, whose rows
    /// are named as [`variants`] names them.
    pub fn of(report: &BenchReport, scenario: &ScenarioRef, concerns: &[String]) -> AblationResult {
        let summary = Summary::of(report);
        let names = RowNames::of(scenario, concerns);
        let frameworks = report
            .frameworks
            .iter()
            .filter_map(|name| framework_ablation(report, &summary, name, &names, concerns))
            .collect();
        AblationResult {
            schema_version: ABLATION_SCHEMA_VERSION,
            scenario: scenario.name.clone(),
            concerns: concerns.to_vec(),
            header_set: report.header_set(&names.whole).to_owned(),
            header: report.header.clone(),
            frameworks,
            warnings: report.warnings.clone(),
        }
    }
}

/// The scenarios an ablation of `scenario` measures: the whole chain, the
/// chain without each of `concerns` in turn, and the bare route.
pub fn variants(scenario: &ScenarioRef, concerns: &[String]) -> Vec<ScenarioRef> {
    let mut refs = vec![scenario.clone()];
    refs.extend(concerns.iter().map(|c| scenario.without(std::slice::from_ref(c))));
    refs.push(scenario.without(concerns));
    refs
}

/// The bench report's row names of the variants.
struct RowNames {
    whole: String,
    without: Vec<String>,
    bare: String,
}

impl RowNames {
    fn of(scenario: &ScenarioRef, concerns: &[String]) -> RowNames {
        let mut labels = variants(scenario, concerns).into_iter().map(|v| v.label());
        let whole = labels.next().unwrap_or_default();
        let mut without: Vec<String> = labels.collect();
        let bare = without.pop().unwrap_or_default();
        RowNames { whole, without, bare }
    }
}

fn framework_ablation(
    report: &BenchReport,
    summary: &Summary,
    framework: &str,
    names: &RowNames,
    concerns: &[String],
) -> Option<FrameworkAblation> {
    // A framework the scenario skipped (a native row) has no whole row.
    let whole_rounds = &report.row(framework, &names.whole)?.rounds;
    let empty = Vec::new();
    let rounds_of = |row: &str| report.row(framework, row).map_or(&empty, |r| &r.rounds);
    let variant = |row: &str| variant(report, summary, framework, row);
    Some(FrameworkAblation {
        framework: framework.to_owned(),
        whole: variant(&names.whole),
        bare: variant(&names.bare),
        chain: price(whole_rounds, rounds_of(&names.bare)),
        concerns: concerns
            .iter()
            .zip(&names.without)
            .map(|(concern, row)| ConcernPrice {
                concern: concern.clone(),
                without: variant(row),
                price: price(whole_rounds, rounds_of(row)),
            })
            .collect(),
    })
}

fn variant(report: &BenchReport, summary: &Summary, framework: &str, row_name: &str) -> Variant {
    let median = crate::report::summary::median;
    let Some(row) = report.row(framework, row_name) else {
        return Variant {
            row: row_name.to_owned(),
            rps_median: None,
            median_us: None,
            server_median_us: None,
            failed: Some("not measured".into()),
            client_bound: false,
        };
    };
    let measured: Vec<&Round> = row.rounds.iter().filter(|r| r.rps_ok > 0.0).collect();
    let rps: Vec<f64> = measured.iter().map(|r| r.rps_ok).collect();
    let us: Vec<f64> = rps.iter().map(|rps| 1e6 / rps).collect();
    let server: Vec<f64> = measured
        .iter()
        .filter_map(|r| Some(r.cost?.server_us()))
        .collect();
    Variant {
        row: row_name.to_owned(),
        rps_median: median(&rps),
        median_us: median(&us),
        server_median_us: median(&server),
        failed: match &row.status {
            RowStatus::Ok => None,
            RowStatus::Failed { reason, .. } => Some(reason.clone()),
        },
        client_bound: summary.row(framework, row_name).is_some_and(|r| r.client_bound),
    }
}

/// `minuend − subtrahend`, round by round over the rounds both measured.
fn price(minuend: &[Round], subtrahend: &[Round]) -> Price {
    let mut us = Vec::new();
    let mut server_us = Vec::new();
    let mut server_complete = true;
    for a in minuend.iter().filter(|r| r.rps_ok > 0.0) {
        let Some(b) = subtrahend.iter().find(|b| b.index == a.index && b.rps_ok > 0.0) else {
            continue;
        };
        us.push(1e6 / a.rps_ok - 1e6 / b.rps_ok);
        match (a.cost, b.cost) {
            (Some(a), Some(b)) => server_us.push(a.server_us() - b.server_us()),
            _ => server_complete = false,
        }
    }
    Price {
        pairs: us.len(),
        us: estimate::mean(&us),
        // Pairs with the figure and pairs without would be two samples.
        server_us: if server_complete {
            estimate::mean(&server_us)
        } else {
            None
        },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::cost::RequestCost;
    use crate::report::{MachineInfo, Percentiles, Pinning, RowKind, ToolInfo};

    pub(crate) fn concerns() -> Vec<String> {
        vec!["cors".into(), "auth".into()]
    }

    pub(crate) fn prod() -> ScenarioRef {
        crate::scenario::resolve("prod").unwrap()
    }

    /// A report where framework k's bare route costs `20 + k` µs, cors
    /// `2` µs and auth `10 (k + 1)` µs (server CPU: the same plus 1 µs
    /// each), three rounds with a small wobble.
    pub(crate) fn report(frameworks: &[&str]) -> BenchReport {
        let mut report = BenchReport::new(
            ToolInfo::default(),
            MachineInfo::default(),
            Pinning::default(),
            serde_json::json!({}),
            "2026-12-06T12:00:00Z",
        );
        let scenario = prod();
        let concerns = concerns();
        for (index, wobble) in [-0.3, 0.1, 0.2].into_iter().enumerate() {
            for variant in variants(&scenario, &concerns) {
                for (k, name) in frameworks.iter().enumerate() {
                    let has = |c: &str| !variant.without.iter().any(|w| w == c);
                    let mut us = 20.0 + k as f64 + wobble;
                    if has("cors") {
                        us += 2.0;
                    }
                    if has("auth") {
                        us += 10.0 * (k as f64 + 1.0);
                    }
                    let requests = (1e9 / us) as u64;
                    let mut round = Round::new(1000.0, requests, requests, Percentiles::default());
                    round.index = index;
                    round.cost = Some(RequestCost {
                        server_user_us: us,
                        server_system_us: 1.0,
                        client_us: None,
                        heap: None,
                        server_time: None,
                    });
                    report
                        .row_mut(name, &variant.label(), RowKind::Js)
                        .push_round(round);
                }
            }
        }
        report
    }

    #[test]
    fn each_concern_costs_the_whole_minus_the_chain_without_it() {
        let result = AblationResult::of(&report(&["s200", "hono"]), &prod(), &concerns());
        assert_eq!(result.frameworks.len(), 2);
        let hono = &result.frameworks[1];
        assert_eq!(hono.whole.row, "prod");
        assert_eq!(hono.bare.row, "prod~cors~auth");
        assert_eq!(hono.concerns[0].without.row, "prod~cors");
        let cors = hono.concerns[0].price.us.unwrap();
        let auth = hono.concerns[1].price.us.unwrap();
        assert!((cors.value - 2.0).abs() < 0.01, "{cors:?}");
        assert!((auth.value - 20.0).abs() < 0.01, "{auth:?}");
        // The wobble is shared by a round's rows: pairing cancels it.
        assert!(cors.half_width() < 0.05, "{cors:?}");
        let chain = hono.chain.us.unwrap();
        assert!((chain.value - 22.0).abs() < 0.01, "{chain:?}");
        let server = hono.concerns[1].price.server_us.unwrap();
        assert!((server.value - 20.0).abs() < 1e-6, "{server:?}");
        assert_eq!(hono.concerns[1].price.pairs, 3);
        assert!((hono.whole.median_us.unwrap() - 43.1).abs() < 0.01);
    }

    #[test]
    fn a_variant_that_failed_prices_only_the_rounds_it_ran() {
        let mut report = report(&["s200"]);
        let row = report.row_mut("s200", "prod~auth", RowKind::Js);
        row.rounds.truncate(1);
        row.fail("validation: header x-request-id: \"1\" (expected none)", None);
        let result = AblationResult::of(&report, &prod(), &concerns());
        let auth = &result.frameworks[0].concerns[1];
        assert_eq!(auth.price.pairs, 1);
        assert!(auth.price.us.is_none(), "one pair has no interval");
        assert!(auth.without.failed.as_deref().unwrap().contains("expected none"));
        assert_eq!(result.frameworks[0].concerns[0].price.pairs, 3);
    }

    #[test]
    fn a_framework_with_no_rows_is_left_out() {
        let mut report = report(&["s200"]);
        report.frameworks.push("hyper".into());
        let result = AblationResult::of(&report, &prod(), &concerns());
        assert_eq!(result.frameworks.len(), 1);
    }
}
