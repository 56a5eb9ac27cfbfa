//! The HTML report: one file that names nothing outside itself, and, opened
//! in a real browser (headless Chromium over the DevTools protocol,
//! tests/support/browser.rs), loads with no error and no network request,
//! draws every chart, ranks as the report does, sorts, and shows a hostile
//! name as text. Each page's screenshot is kept beside it (the test prints
//! where).

use std::path::Path;

use serde_json::Value;

use crate::bench::scratch;
use crate::support::browser::{browser_required, Browser};
use crate::support::{bench::bench, fwbench, sweep};

/// Chromium, or the reason the test is skipped (a failure where a browser
/// is required).
fn chromium(test: &str) -> Option<std::path::PathBuf> {
    match Browser::find() {
        Ok(path) => Some(path),
        Err(why) if browser_required() => panic!("{test}: FWBENCH_REQUIRE_BROWSER=1 but {why}"),
        Err(why) => {
            eprintln!("SKIPPED {test}: {why}");
            None
        }
    }
}

fn file_url(path: &Path) -> String {
    format!(
        "file://{}",
        path.canonicalize().expect("the page exists").display()
    )
}

/// Opens `page` and checks what every report page must hold; returns the
/// browser for the caller's own checks.
fn open_checked(chrome: &Path, page: &Path, dir: &Path) -> Browser {
    let mut browser = Browser::start(chrome, dir);
    let url = file_url(page);
    browser.open(&url);
    let errors = browser.errors();
    assert!(errors.is_empty(), "{}: {errors:#?}", page.display());
    let elsewhere: Vec<String> = browser.requests().into_iter().filter(|r| r != &url).collect();
    assert!(
        elsewhere.is_empty(),
        "{} asked the network for {elsewhere:?}",
        page.display()
    );
    let sizes = browser.eval(
        "Array.from(document.querySelectorAll('svg.chart')).map(s => { \
           const r = s.getBoundingClientRect(); return [r.width, r.height]; })",
    );
    let sizes = sizes.as_array().expect("sizes");
    assert!(!sizes.is_empty(), "{}: no chart", page.display());
    for size in sizes {
        assert!(
            size[0].as_f64() > Some(0.0) && size[1].as_f64() > Some(0.0),
            "{sizes:?}"
        );
    }
    let shot = page.with_extension("png");
    browser.screenshot(&shot);
    eprintln!("screenshot of {}: {}", page.display(), shot.display());
    browser
}

/// The framework that ranked first in `scenario`, as report.json says.
fn top_of(report: &Value, scenario: &str) -> String {
    report["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["scenario"] == scenario && r["summary"]["rank"] == 1)
        .and_then(|r| r["framework"].as_str())
        .expect("a rank-1 row")
        .to_owned()
}

#[test]
fn a_bench_report_renders_ranks_and_sorts_in_chromium() {
    let Some(chrome) = chromium("a_bench_report_renders_ranks_and_sorts_in_chromium") else {
        return;
    };
    let dir = scratch("report-html-browser");
    let out = fwbench(
        bench(&dir)
            .frameworks("hono,express,hyper")
            .only("hello,mw")
            .duration("400ms")
            .warmup("100ms"),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = dir.join("report.html");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let mut browser = open_checked(&chrome, &page, &dir);
    // One latency plot per scenario and the anatomy bars of each.
    let charts = browser.eval("document.querySelectorAll('svg.chart').length");
    assert!(charts.as_u64() >= Some(4), "{charts}");
    for (i, scenario) in ["hello", "mw"].iter().enumerate() {
        let first = browser.eval(&format!(
            "document.querySelector('#scenario-{i} table.ranking tbody tr').cells[1].textContent"
        ));
        assert_eq!(first, top_of(&report, scenario), "{scenario}");
    }
    // Sorting by framework orders the ranking by name, then the other way.
    let names = |browser: &mut Browser| {
        browser.eval(
            "Array.from(document.querySelectorAll('#scenario-0 table.ranking tbody tr')) \
               .map(r => r.cells[1].textContent)",
        )
    };
    let before = names(&mut browser);
    browser.eval("document.querySelectorAll('#scenario-0 table.ranking th')[1].click()");
    let ascending = names(&mut browser);
    let mut sorted: Vec<String> = serde_json::from_value(before.clone()).unwrap();
    sorted.sort();
    assert_eq!(ascending, serde_json::json!(sorted), "{before}");
    browser.eval("document.querySelectorAll('#scenario-0 table.ranking th')[1].click()");
    sorted.reverse();
    assert_eq!(names(&mut browser), serde_json::json!(sorted));
    // A legend checkbox hides its row's line.
    let hidden = browser.eval(
        "(() => { const box = document.querySelector('#scenario-0 input[data-toggle]'); \
           box.click(); \
           const line = Array.from(document.querySelectorAll('#scenario-0 g.series')) \
             .find(g => g.dataset.series === box.dataset.toggle); \
           return line.getBoundingClientRect().width === 0; })()",
    );
    assert_eq!(hidden, Value::Bool(true));
}

#[test]
fn names_from_a_report_are_shown_as_text_never_run() {
    let Some(chrome) = chromium("names_from_a_report_are_shown_as_text_never_run") else {
        return;
    };
    let dir = scratch("report-html-hostile");
    let out = fwbench(bench(&dir).frameworks("hono,hyper").only("hello"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The same report with a framework, a scenario and a warning that are
    // markup, re-rendered by `fwbench html`.
    let hostile_framework = "<script>document.body.dataset.pwned = 'script'</script>";
    let hostile_scenario = "<img src=x onerror=\"document.body.dataset.pwned = 'img'\">";
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    for row in report["rows"].as_array_mut().unwrap() {
        if row["framework"] == "hono" {
            row["framework"] = Value::from(hostile_framework);
        }
        row["scenario"] = Value::from(hostile_scenario);
    }
    report["scenarios"] = serde_json::json!([hostile_scenario]);
    report["frameworks"] = serde_json::json!([hostile_framework, "hyper"]);
    report["warnings"] =
        serde_json::json!(["</script><script>document.body.dataset.pwned = 'warning'</script>"]);
    let hostile = dir.join("hostile.json");
    std::fs::write(&hostile, report.to_string()).unwrap();
    let page = dir.join("hostile.html");
    let out = fwbench(["html", hostile.to_str().unwrap(), "--out", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut browser = open_checked(&chrome, &page, &dir);
    assert_eq!(browser.eval("document.body.dataset.pwned ?? null"), Value::Null);
    let text = browser.eval("document.body.innerText");
    let text = text.as_str().unwrap();
    assert!(text.contains(hostile_framework), "{text}");
    assert!(text.contains(hostile_scenario), "{text}");
}

#[test]
fn the_page_is_one_file_that_names_nothing_outside_itself() {
    let page = super::render(|out| fwbench::report::write_html(&super::fixture(), out));
    assert!(page.starts_with("<!doctype html>"), "{}", &page[..80]);
    for outside in ["src=", "href=\"http", "url(", "@import", "<link"] {
        assert!(!page.contains(outside), "the page holds {outside}");
    }
    // Every scenario has its ranking, and the report's data is inline.
    for scenario in &super::fixture().scenarios {
        assert!(
            page.contains(&format!("<h2>Scenario {scenario}</h2>")),
            "{scenario}"
        );
    }
    assert!(page.contains("id=\"report-data\""));
    // A crafted report's strings are text: none opens an element.
    let crafted = super::render(|out| fwbench::report::write_html(&super::crafted(), out));
    assert!(
        !crafted.contains("\u{1b}"),
        "a control character reached the page"
    );
}

#[test]
fn sweep_and_ablation_pages_lead_with_their_chart() {
    let Some(chrome) = chromium("sweep_and_ablation_pages_lead_with_their_chart") else {
        return;
    };
    let dir = scratch("report-html-sweep");
    let sweep_dir = dir.join("sweep");
    let out = fwbench(sweep(&sweep_dir).frameworks("hono").set("--depths", "0,2"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ablation_dir = dir.join("ablation");
    let out = fwbench(
        sweep(&ablation_dir)
            .set("--ablate", "prod")
            .frameworks("s200")
            .rounds(2)
            .connections(10),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (page_dir, title) in [(&sweep_dir, "Sweep"), (&ablation_dir, "Ablation")] {
        let page = page_dir.join("report.html");
        let mut browser = open_checked(&chrome, &page, &dir);
        let lead = browser.eval(
            "(() => { const s = document.querySelector('main section'); \
               return [s.id, s.querySelector('h2').textContent, \
                       s.querySelector('svg.chart').getBoundingClientRect().height]; })()",
        );
        assert_eq!(lead[0], "lead", "{lead}");
        assert!(lead[1].as_str().unwrap().starts_with(title), "{lead}");
        assert!(lead[2].as_f64() > Some(50.0), "{lead}");
    }
}

#[test]
fn a_compare_page_says_what_changed_before_what_regressed() {
    let Some(chrome) = chromium("a_compare_page_says_what_changed_before_what_regressed") else {
        return;
    };
    let dir = scratch("report-html-compare");
    let out = fwbench(bench(&dir).frameworks("hono,hyper").only("hello"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // B: the same run with hono at half its rate and a new hono version.
    let mut b: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    b["tool"]["framework_versions"]["hono"] = Value::from("9.9.9");
    for row in b["rows"].as_array_mut().unwrap() {
        if row["framework"] == "hono" {
            for round in row["rounds"].as_array_mut().unwrap() {
                let rps = round["rps_ok"].as_f64().unwrap();
                round["rps_ok"] = Value::from(rps / 2.0);
            }
        }
    }
    let b_path = dir.join("b.json");
    std::fs::write(&b_path, b.to_string()).unwrap();
    let page = dir.join("compare.html");
    let out = fwbench([
        "compare",
        dir.join("report.json").to_str().unwrap(),
        b_path.to_str().unwrap(),
        "--fail-below",
        "5",
        "--html",
        page.to_str().unwrap(),
    ]);
    // The gate fails on hono; the page is written all the same.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut browser = open_checked(&chrome, &page, &dir);
    let order = browser.eval("Array.from(document.querySelectorAll('main section')).map(s => s.id)");
    assert_eq!(order, serde_json::json!(["environment", "regressions", "rows"]));
    let environment = browser.eval("document.querySelector('#environment').innerText");
    assert!(
        environment
            .as_str()
            .unwrap()
            .contains("framework hono: A 4.13.19, B 9.9.9"),
        "{environment}"
    );
    let regressed = browser.eval(
        "Array.from(document.querySelectorAll('#regressions tbody tr')).map(r => r.cells[0].textContent)",
    );
    assert_eq!(regressed, serde_json::json!(["hono"]));
}

#[test]
fn a_directory_of_reports_is_a_history_gated_on_the_earlier_median() {
    let dir = scratch("report-history");
    let out = fwbench(bench(&dir).frameworks("hono,hyper").only("hello"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let base: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    // Three runs whose file names sort against their order: a.json is
    // the last run (hono at half its rate), so the order must come from
    // started_at, not the names.
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    for (file, started, hono_scale) in [
        ("c.json", "2026-01-01T00:00:00Z", 1.0),
        ("b.json", "2026-01-02T00:00:00Z", 1.1),
        ("a.json", "2026-01-03T00:00:00Z", 0.5),
    ] {
        let mut report = base.clone();
        report["started_at"] = Value::from(started);
        for row in report["rows"].as_array_mut().unwrap() {
            if row["framework"] == "hono" {
                for round in row["rounds"].as_array_mut().unwrap() {
                    let rps = round["rps_ok"].as_f64().unwrap();
                    round["rps_ok"] = Value::from(rps * hono_scale);
                }
            }
        }
        std::fs::write(runs.join(file), report.to_string()).unwrap();
    }
    let out = fwbench(["compare", runs.to_str().unwrap(), "--fail-below", "20"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let order: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("2026-01-0"))
        .map(|l| l.trim_end().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(order, ["c.json", "b.json", "a.json"], "{stdout}");
    assert!(
        stdout.contains("Last run more than 20% under the earlier median (or failed):\n  hono × hello"),
        "{stdout}"
    );
    // hyper did not move: not flagged, and -0.0% or so.
    assert!(!stdout.contains("  hyper × hello"), "{stdout}");
    let page = runs.join("history.html");
    assert!(page.is_file(), "{stdout}");
    let Some(chrome) = chromium("a_directory_of_reports_is_a_history_gated_on_the_earlier_median") else {
        return;
    };
    let mut browser = open_checked(&chrome, &page, &dir);
    let points = browser.eval("document.querySelectorAll('svg.history circle').length");
    assert_eq!(points, Value::from(6), "two rows, three runs");
}

#[test]
fn compare_of_one_report_says_it_needs_two() {
    let dir = scratch("report-history-one");
    std::fs::create_dir_all(&dir).unwrap();
    let lone = dir.join("only.json");
    std::fs::write(&lone, "{}").unwrap();
    let out = fwbench(["compare", lone.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("compare needs two reports or more"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn capacity_memory_and_warm_up_pages_render_in_chromium() {
    let Some(chrome) = chromium("capacity_memory_and_warm_up_pages_render_in_chromium") else {
        return;
    };
    let dir = scratch("report-html-capacity");
    let out = fwbench([
        "capacity",
        "--frameworks",
        "hyper",
        "--only",
        "hello",
        "--p99",
        "50ms",
        "--step",
        "300ms",
        "--warmup",
        "100ms",
        "--repeats",
        "1",
        "--max-rate",
        "4000",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut browser = open_checked(&chrome, &dir.join("capacity.html"), &dir);
    let first = browser.eval("document.querySelector('#capacity table tbody tr').cells[0].textContent");
    assert_eq!(first, "hyper");
    // Held up to the highest rate tried: said in the note, and each step
    // is a point of the chart's p99 line.
    let note = browser.eval("document.querySelector('#capacity table tbody tr').lastChild.textContent");
    assert!(note.as_str().unwrap_or("").contains("at least 4000"), "{note}");
    let points = browser.eval("document.querySelectorAll('g.series[data-series=\"p99\"] circle').length");
    assert!(points.as_u64() >= Some(3), "{points}");

    let dir = scratch("report-html-memory");
    let out = fwbench(
        bench(&dir)
            .frameworks("s200,hyper")
            .only("hello")
            .duration("300ms")
            .warmup("100ms")
            .set("--warmup-curve", "6000")
            .set("--memory-connections", "100"),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut browser = open_checked(&chrome, &dir.join("report.html"), &dir);
    let rows = |browser: &mut Browser, section: &str| {
        browser
            .eval(&format!(
                "document.querySelectorAll('#{section} table tbody tr').length"
            ))
            .as_u64()
    };
    assert_eq!(rows(&mut browser, "memory"), Some(2));
    assert_eq!(rows(&mut browser, "warmup"), Some(2));
    let curves = browser.eval("document.querySelectorAll('#warmup svg.chart g.series').length");
    assert_eq!(curves.as_u64(), Some(2), "{curves}");
}
