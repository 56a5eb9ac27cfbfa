//! `fwbench sweep`: a short sweep over two depths writes its table and
//! files with a fit per framework; a scenario without a depth parameter is
//! refused before anything starts.

use super::{read_json, scratch};
use crate::support::{fixture, fwbench};

#[test]
fn a_short_sweep_fits_each_framework_and_writes_its_files() {
    let dir = scratch("sweep-short");
    let out = fwbench([
        "sweep",
        "--frameworks",
        "s200,hyper",
        "--depths",
        "0,1,4",
        "--duration",
        "300ms",
        "--warmup",
        "100ms",
        "--rounds",
        "2",
        "--connections",
        "10",
        "--out",
        dir.to_str().unwrap(),
    ]);
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
