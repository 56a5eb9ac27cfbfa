//! `fwbench sweep`: a short sweep over two depths writes its table and
//! files with a fit per framework; a scenario without a depth parameter is
//! refused before anything starts. `sweep --ablate`: the prod chain's
//! concerns each priced, a concern that does not leave fails its row, and
//! a scenario without concerns is refused.

use super::{read_json, scratch};
use crate::support::{fixture, fwbench, sweep};

#[test]
fn a_short_sweep_fits_each_framework_and_writes_its_files() {
    let dir = scratch("sweep-short");
    let out = fwbench(
        sweep(&dir)
            .frameworks("s200,hyper")
            .set("--depths", "0,1,4")
            .rounds(2)
            .connections(10),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("scenario mw, depths 0 1 4"), "{stdout}");
    assert!(stdout.contains("per link µs (95% CI)"), "{stdout}");

    let sweep = read_json(&dir.join("sweep.json"));
    assert_eq!(sweep["schema_version"], 1);
    assert_eq!(sweep["depths"], serde_json::json!([0, 1, 4]));
    let frameworks = sweep["frameworks"].as_array().unwrap();
    let names: Vec<&str> = frameworks
        .iter()
        .map(|f| f["framework"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["s200", "hyper"]);
    for framework in frameworks {
        let points = framework["points"].as_array().unwrap();
        assert_eq!(points.len(), 3, "{framework}");
        for point in points {
            assert_eq!(point["rounds_us"].as_array().unwrap().len(), 2, "{point}");
            assert!(point["median_us"].as_f64().unwrap() > 0.0, "{point}");
        }
        let fit = &framework["fit"];
        assert_eq!(fit["points"], 6, "{framework}");
        let per_link = &fit["per_link_us"];
        assert!(
            per_link["ci95_low"].as_f64().unwrap() <= per_link["value"].as_f64().unwrap()
                && per_link["value"].as_f64().unwrap() <= per_link["ci95_high"].as_f64().unwrap(),
            "{per_link}"
        );
    }
    // Every depth was a validated bench row: the report has them by name.
    let report = read_json(&dir.join("report.json"));
    let rows: Vec<String> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}/{}",
                r["framework"].as_str().unwrap(),
                r["scenario"].as_str().unwrap()
            )
        })
        .collect();
    assert!(rows.contains(&"hyper/mw@4".to_owned()), "{rows:?}");
    assert!(rows.contains(&"s200/mw@0".to_owned()), "{rows:?}");
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 3 * 2, "{csv}");
    let svg = std::fs::read_to_string(dir.join("sweep.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
}

#[test]
fn a_scenario_without_a_depth_is_refused_with_how_to_add_one() {
    let out = fwbench(["sweep", "--scenario", "hello", "--frameworks", "hyper"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("scenario 'hello' has no depth parameter"),
        "{stderr}"
    );
    assert!(stderr.contains("export"), "{stderr}");
    let echo = fixture("frameworks/scenarios/echo.js");
    let out = fwbench(["sweep", "--scenario", echo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no depth parameter"));
}

#[test]
fn depths_are_checked_by_the_command_line() {
    let out = fwbench(["sweep", "--depths", "4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least two distinct depths"));
}

/// `sweep --ablate prod`: every variant of the chain is a validated bench
/// row, and each concern gets a price with an interval on both bases.
#[test]
fn an_ablation_prices_each_concern_of_the_prod_chain() {
    let dir = scratch("sweep-ablate");
    let out = fwbench(
        sweep(&dir)
            .set("--ablate", "prod")
            .frameworks("s200,hono")
            .rounds(2)
            .connections(10),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(
            "ablation of scenario prod, concerns cors, security-headers, request-id, access-log, auth"
        ),
        "{stdout}"
    );
    let ablation = read_json(&dir.join("ablation.json"));
    assert_eq!(ablation["schema_version"], 1);
    let frameworks = ablation["frameworks"].as_array().unwrap();
    assert_eq!(frameworks.len(), 2, "{ablation}");
    for framework in frameworks {
        assert_eq!(
            framework["bare"]["row"],
            "prod~cors~security-headers~request-id~access-log~auth"
        );
        let concerns = framework["concerns"].as_array().unwrap();
        assert_eq!(concerns.len(), 5, "{framework}");
        for concern in concerns.iter().chain(std::iter::once(&framework["chain"])) {
            let price = concern.get("price").unwrap_or(concern);
            assert_eq!(price["pairs"], 2, "{concern}");
            for basis in ["us", "server_us"] {
                let e = &price[basis];
                let (low, value, high) = (
                    e["ci95_low"].as_f64().unwrap(),
                    e["value"].as_f64().unwrap(),
                    e["ci95_high"].as_f64().unwrap(),
                );
                assert!(low <= value && value <= high, "{concern}");
            }
        }
    }
    // Each variant ran as a bench row that passed validation, the removed
    // concern's headers absent.
    let report = read_json(&dir.join("report.json"));
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * 7, "{report}");
    assert!(rows.iter().all(|r| r["status"]["state"] == "ok"), "{report}");
    assert!(rows
        .iter()
        .any(|r| r["framework"] == "hono" && r["scenario"] == "prod~security-headers"));
    let csv = std::fs::read_to_string(dir.join("ablation.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 8, "{csv}");
    let svg = std::fs::read_to_string(dir.join("ablation.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("request-id"));
}

/// A concern left out must be gone: an app that keeps its header fails
/// that row (exit 1) instead of giving it a price.
#[test]
fn a_concern_that_is_not_really_left_out_fails_its_row() {
    let dir = scratch("sweep-ablate-leaky");
    let leaky = fixture("bench/leaky-concerns.js");
    let out = fwbench(
        sweep(&dir)
            .set("--ablate", &leaky)
            .frameworks("s200")
            .duration("200ms")
            .warmup("50ms")
            .rounds(2),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("s200 / leaky-concerns~cors: FAILED")
            && stdout.contains("access-control-allow-origin: \"*\" (expected none)"),
        "{stdout}"
    );
    // The concern that does leave is priced.
    let ablation = read_json(&dir.join("ablation.json"));
    let request_id = &ablation["frameworks"][0]["concerns"][1];
    assert_eq!(request_id["concern"], "request-id");
    assert_eq!(request_id["price"]["pairs"], 2, "{request_id}");
}

#[test]
fn an_ablation_needs_declared_concerns_and_two_rounds() {
    let out = fwbench(["sweep", "--ablate", "hello", "--frameworks", "s200"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("scenario 'hello' declares no concerns"),
        "{stderr}"
    );
    let out = fwbench(["sweep", "--ablate", "prod", "--rounds", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 2 rounds"));
    let out = fwbench(["sweep", "--ablate", "prod", "--depths", "0,1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}
