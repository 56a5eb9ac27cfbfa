//! `fwbench capacity`: the highest rate a row holds under a p99 target. A
//! row with a known service time (200 µs of spinning per request, one
//! worker) must be found where that time plus the row's own measured cost
//! per request puts it; a row that cannot hold the lowest rate says so;
//! impossible bounds are refused before any row starts. How close the
//! capacity comes to that figure is a calibration test (benches/calibrate.sh):
//! tests run side by side here, and take CPU from the row.

use std::sync::OnceLock;

use serde_json::Value;

use super::{read_json, scratch};
use crate::support::{fixture, fwbench};

/// The fixture's spin per request, µs.
const SPIN_US: f64 = 200.0;

fn capacity_args(dir: &std::path::Path) -> Vec<String> {
    [
        "capacity",
        "--frameworks",
        "s200",
        "--step",
        "500ms",
        "--warmup",
        "200ms",
        "--repeats",
        "2",
        "--min-rate",
        "500",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([dir.display().to_string()])
    .collect()
}

fn row<'a>(report: &'a Value, scenario: &str) -> &'a Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["scenario"] == scenario)
        .unwrap_or_else(|| panic!("no row {scenario}: {report}"))
}

/// Every step of a row, searches and below-capacity ones.
fn steps(row: &Value) -> Vec<&Value> {
    row["searches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|search| search["steps"].as_array().unwrap())
        .chain(row["below"].as_array().into_iter().flatten())
        .collect()
}

/// The middle value, the lower one of two: the median capacity reads
/// (report/capacity.rs).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[(values.len() - 1) / 2]
}

/// One capacity run of the spin fixture and plain.js on s200, shared by
/// the tests below.
fn spin_report() -> &'static Value {
    static REPORT: OnceLock<Value> = OnceLock::new();
    REPORT.get_or_init(|| {
        let dir = scratch("capacity-spin");
        let mut args = capacity_args(&dir);
        args.extend(
            [
                "--p99",
                "10ms",
                "--scenario",
                fixture("bench/anatomy/spin-200us.js").to_str().unwrap(),
                "--scenario",
                fixture("bench/anatomy/plain.js").to_str().unwrap(),
            ]
            .map(String::from),
        );
        let out = fwbench(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("p99 target 10.00ms"), "{stdout}");
        assert!(stdout.contains("µs/req 50%"), "{stdout}");
        let html = std::fs::read_to_string(dir.join("capacity.html")).unwrap();
        assert!(html.contains("<svg class=\"chart capacity\""), "no chart");
        assert!(html.contains("data-series=\"p99\""), "no p99 line");
        let md = std::fs::read_to_string(dir.join("capacity.md")).unwrap();
        assert!(md.contains("| s200 "), "{md}");
        read_json(&dir.join("capacity.json"))
    })
}

/// The spin row's capacity (the median of its searches, each of which
/// bracketed one within the precision) and what 1 / (spin + the row's own
/// cost per request) puts it at: the server's CPU per request at the held
/// step nearest the capacity, less the spin, is that own cost.
fn spin_capacity() -> (f64, f64, f64) {
    let report = spin_report();
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["p99_target_us"], 10_000.0);
    let spin = row(report, "spin-200us");
    let searches = spin["searches"].as_array().unwrap();
    assert_eq!(searches.len(), 2, "{spin}");
    let capacities: Vec<f64> = searches
        .iter()
        .map(|search| {
            assert_eq!(search["found"]["result"], "capacity", "{search}");
            let (rate, missed) = (
                search["found"]["rate"].as_f64().unwrap(),
                search["found"]["missed"].as_f64().unwrap(),
            );
            assert!(missed > rate && (missed - rate) / rate <= 0.05, "{search}");
            rate
        })
        .collect();
    let capacity = median(capacities);
    let nearest = steps(spin)
        .into_iter()
        .filter(|step| step["verdict"] == "held" && step["server_user_us"].is_number())
        .min_by(|a, b| {
            let distance = |s: &Value| (s["offered"].as_f64().unwrap() / capacity).ln().abs();
            distance(a).total_cmp(&distance(b))
        })
        .expect("held steps with the server's CPU");
    let cost = nearest["server_user_us"].as_f64().unwrap() + nearest["server_system_us"].as_f64().unwrap();
    let overhead = cost - SPIN_US;
    (capacity, overhead, 1e6 / (SPIN_US + overhead))
}

#[test]
fn a_known_service_time_bounds_the_capacity_found() {
    let (capacity, overhead, expected) = spin_capacity();
    // One worker cannot serve more than one spin per 200 µs, nor more than
    // its CPU per request allows; a busy machine (tests run side by side)
    // takes CPU from it, so only a floor is checked here: the band is
    // calibration_capacity_is_one_over_service_time_and_own_cost's.
    assert!(capacity < 1e6 / SPIN_US, "{capacity}");
    assert!(overhead > 0.0, "own cost {overhead:.1} µs beside the spin");
    assert!(
        capacity > 0.3 * expected && capacity < 1.15 * expected,
        "capacity {capacity:.0} req/s, expected about {expected:.0}"
    );
    // The own cost is of the order of the same app's without the spin,
    // as busy (plain.js at its own capacity).
    let plain = row(spin_report(), "plain");
    let plain_cost = 1e6 / plain["searches"][0]["found"]["rate"].as_f64().unwrap();
    assert!(
        overhead < 4.0 * plain_cost + 100.0,
        "own cost {overhead:.1} µs beside the spin; plain.js costs {plain_cost:.1} µs at its capacity"
    );

    // Below capacity: 10 %, 50 %, 90 % of it, each with the server's cost.
    let spin = row(spin_report(), "spin-200us");
    let below = spin["below"].as_array().unwrap();
    assert_eq!(below.len(), 3, "{spin}");
    for (step, share) in below.iter().zip([0.1, 0.5, 0.9]) {
        let offered = step["offered"].as_f64().unwrap();
        assert!((offered / capacity - share).abs() < 0.01, "{step}");
        let server_us = step["server_user_us"].as_f64().unwrap() + step["server_system_us"].as_f64().unwrap();
        assert!(server_us >= SPIN_US * 0.8, "{step}");
    }
}

/// On a quiet machine the capacity is within 15 % of 1 / (service time +
/// the row's own cost per request).
#[test]
#[ignore = "calibration: run on a quiet machine (benches/calibrate.sh)"]
fn calibration_capacity_is_one_over_service_time_and_own_cost() {
    let (capacity, overhead, expected) = spin_capacity();
    assert!(
        (capacity / expected - 1.0).abs() <= 0.15,
        "capacity {capacity:.0} req/s, expected {expected:.0} (1 / ({SPIN_US} µs + {overhead:.1} µs own cost))"
    );
}

#[test]
fn a_row_that_cannot_hold_the_lowest_rate_says_so() {
    let dir = scratch("capacity-below-floor");
    let mut args = capacity_args(&dir);
    args.extend(["--p99", "1us", "--only", "hello"].map(String::from));
    args[2] = "hyper".into();
    let out = fwbench(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("below the lowest rate tried (500)"), "{stdout}");
    let report = read_json(&dir.join("capacity.json"));
    let hello = row(&report, "hello");
    assert_eq!(hello["searches"][0]["found"]["result"], "below_floor");
    // The miss was confirmed: the floor was tried twice; nothing below it.
    assert_eq!(hello["searches"][0]["steps"].as_array().unwrap().len(), 2);
    assert!(hello["below"].is_null(), "{hello}");
}

#[test]
fn impossible_bounds_are_refused_before_any_row_starts() {
    for (flag, value, message) in [
        // The default --min-rate is 1000.
        ("--max-rate", "100", "must be below --max-rate"),
        ("--precision", "2", "invalid precision"),
        ("--min-rate", "0", "invalid rate"),
    ] {
        let dir = scratch("capacity-refused");
        let out = fwbench(
            ["capacity", "--frameworks", "s200", flag, value, "--out"]
                .map(String::from)
                .into_iter()
                .chain([dir.display().to_string()]),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(message), "{flag} {value}: {stderr}");
        assert!(!stderr.contains("starting"), "{stderr}");
    }
}
