//! Projects as `check` and `bench` rows (`--app`).

use std::time::Duration;

use super::project;
use crate::support::fwbench_within;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = fwbench_within(args, Duration::from_secs(120)).expect("fwbench finishes by itself");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_validates_each_app_row_against_the_expected_status() {
    let koa = project("koa-cjs");
    let hono = project("hono-ts");
    let apps = [
        format!("koa={}", koa.display()),
        format!("hono={}", hono.display()),
    ];
    let (code, out, err) = run(&[
        "check",
        "--app",
        &apps[0],
        "--app",
        &apps[1],
        "--request",
        "GET /api/users/7",
    ]);
    // koa answers /api/users/7; the hono project has no such route.
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("ok      request  koa "), "{out}");
    assert!(
        out.contains("FAILED  request  hono") && out.contains("status 404 (expected 200)"),
        "{out}"
    );
    let (code, out, err) = run(&[
        "check",
        "--app",
        &apps[1],
        "--request",
        "GET /api/users/7",
        "--expect-status",
        "404",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
}

#[test]
fn bench_measures_an_app_row_with_its_anatomy() {
    let dir = std::env::temp_dir().join(format!("fwbench-app-bench-{}", std::process::id()));
    let app = format!("api={}", project("express-cjs").display());
    let out_dir = dir.display().to_string();
    let (code, out, err) = run(&[
        "bench",
        "--app",
        &app,
        "--request",
        "GET /api/items",
        "-H",
        "accept: application/json",
        "--duration",
        "1s",
        "--warmup",
        "200ms",
        "--rounds",
        "1",
        "--in-runtime",
        "0s",
        "--out",
        &out_dir,
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report.json"))
            .expect("JSON");
    let row = &report["rows"][0];
    assert_eq!(row["framework"], "api", "{row}");
    assert_eq!(row["scenario"], "request", "{row}");
    assert_eq!(row["status"]["state"], "ok", "{row}");
    assert!(
        row["startup_split"]["app_loaded_s"]
            .as_f64()
            .is_some_and(|s| s > 0.0),
        "{row}"
    );
    assert!(out.contains("api"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_request_line_or_app_is_a_usage_error() {
    let (code, _, err) = run(&["bench", "--app", "/no/such/dir"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot read the app /no/such/dir"), "{err}");
    let app = project("koa-cjs").display().to_string();
    let (code, _, err) = run(&["bench", "--app", &app, "--request", "/api/users/7"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("expected 'METHOD /path'"), "{err}");
    let (code, _, err) = run(&["bench", "--request", "GET /"]);
    assert_eq!(code, Some(2), "--request needs --app: {err}");
}
