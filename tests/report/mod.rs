//! Tests of the report writers and `compare` through the public API: golden
//! files for the terminal table, markdown, CSV, JSON and compare output
//! (deno_core's style: `tests/golden/<name>.out`, regenerated with
//! `UPDATE_EXPECTED=1 cargo test --release --test tests report::`), a JSON
//! round-trip, load errors, and a well-formedness check of the SVG.

mod html;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fwbench::report::cost::{HeapCost, InRuntimeCost, RequestCost, ServerTime};
use fwbench::report::{
    self, compare::CompareArgs, BenchReport, CompareOutcome, MachineInfo, Percentiles, Pinning,
    ReadReportError, Round, RowKind, ToolInfo,
};

/// Compares `actual` with `tests/golden/<name>.out`, or rewrites the file
/// when `UPDATE_EXPECTED` is set.
fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.out"));
    if std::env::var_os("UPDATE_EXPECTED").is_some() {
        std::fs::create_dir_all(path.parent().expect("golden dir")).expect("create tests/golden");
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; run with UPDATE_EXPECTED=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "{name}: output differs from {}; if the change is intended, rerun with UPDATE_EXPECTED=1\n\
             --- expected ---\n{expected}\n--- actual ---\n{actual}",
            path.display()
        );
    }
}

/// Runs a writer into a String.
fn render(write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    write(&mut out).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("writers write UTF-8")
}

fn latency(p50: u64) -> Percentiles {
    Percentiles {
        mean: p50 as f64 * 1.1,
        stdev: p50 as f64 * 0.25,
        p50,
        p90: p50 * 3 / 2,
        p99: p50 * 3,
        p999: p50 * 5,
        p9999: p50 * 8,
        max: p50 * 12,
    }
}

/// Records on each round of a row how busy the client and the server were
/// (one (client, server) pair per round) and the achieved concurrency.
fn busy(report: &mut BenchReport, framework: &str, scenario: &str, kind: RowKind, shares: &[(f64, f64)]) {
    let row = report.row_mut(framework, scenario, kind);
    assert_eq!(row.rounds.len(), shares.len(), "{framework} × {scenario}");
    for (round, &(client, server)) in row.rounds.iter_mut().zip(shares) {
        round.client_cpu = Some(client);
        round.server_cpu = Some(server);
        round.concurrency_achieved = Some(49.5);
    }
}

/// Pushes one 5-second round per (requests/s, p50 µs) pair.
fn rounds(report: &mut BenchReport, framework: &str, scenario: &str, kind: RowKind, figures: &[(u64, u64)]) {
    let row = report.row_mut(framework, scenario, kind);
    for &(rps, p50) in figures {
        row.push_round(Round::new(5.0, rps * 5, rps * 5, latency(p50)));
    }
}

/// A small fixed report: three JS rows and native hyper over three
/// scenarios, with an even number of rounds in one row, errors in another,
/// a failed row with a stderr tail and an interrupted row without rounds.
/// hyper is client-bound on hello and param (not on mw, where its server
/// was busy too); s200's and hono-patched's servers were the limit;
/// express's rounds predate the CPU shares. s200's server hardly waited for
/// a CPU; hono-patched × mw's waited a third of the time (the run's
/// held-back warning names it).
fn fixture() -> BenchReport {
    let tool = ToolInfo {
        fwbench_version: "0.1.0".into(),
        engine: "quickjs".into(),
        framework_versions: BTreeMap::from([
            ("s200".into(), "0.3.0".into()),
            ("hono-patched".into(), "4.7.4".into()),
            ("express".into(), "5.1.0".into()),
        ]),
        dependency_versions: BTreeMap::from([
            ("deno_core".into(), "0.413.0".into()),
            ("hyper".into(), "1.6.0".into()),
        ]),
        engine_switches: BTreeMap::new(),
    };
    let machine = MachineInfo {
        cpu_model: "AMD Ryzen 7 8745HS".into(),
        logical_cpus: 2,
        kernel: "Linux 6.14.0".into(),
        os: "Debian 13".into(),
    };
    let pinning = Pinning {
        server_cpus: vec![0],
        load_cpus: vec![1],
        applied: true,
        note: None,
    };
    let options = serde_json::json!({"duration_s": 5, "rounds": 3, "connections": 50, "workers": 1});
    let mut report = BenchReport::new(tool, machine, pinning, options, "2026-09-30T10:00:00Z");
    report.scenarios = vec!["hello".into(), "param".into(), "mw".into()];

    let js = RowKind::Js;
    rounds(
        &mut report,
        "s200",
        "hello",
        js,
        &[(10308, 180), (10100, 185), (10412, 178)],
    );
    rounds(
        &mut report,
        "s200",
        "param",
        js,
        &[(9900, 190), (9800, 192), (10050, 189)],
    );
    rounds(
        &mut report,
        "s200",
        "mw",
        js,
        &[(9590, 200), (9490, 204), (9650, 199)],
    );
    rounds(
        &mut report,
        "hono-patched",
        "hello",
        js,
        &[(17904, 110), (17500, 112)],
    );
    rounds(
        &mut report,
        "hono-patched",
        "param",
        js,
        &[(16800, 118), (17100, 116)],
    );
    rounds(&mut report, "hono-patched", "mw", js, &[(9313, 215), (9100, 220)]);
    rounds(
        &mut report,
        "express",
        "hello",
        js,
        &[(11840, 160), (11700, 162), (12010, 158)],
    );
    report.row_mut("express", "param", js);
    rounds(&mut report, "express", "mw", js, &[(10841, 170)]);
    report.row_mut("express", "mw", js).fail(
        "server exited with status 1 during round 2, after \"listening\"",
        Some("TypeError: res.setHeader is not a function\n    at mwLink (mw.js:12:9)".into()),
    );
    let native = RowKind::Native;
    rounds(
        &mut report,
        "hyper",
        "hello",
        native,
        &[(45012, 40), (44020, 41), (46001, 39)],
    );
    rounds(
        &mut report,
        "hyper",
        "param",
        native,
        &[(44000, 41), (43500, 42), (44800, 40)],
    );
    rounds(
        &mut report,
        "hyper",
        "mw",
        native,
        &[(41000, 44), (40100, 45), (41800, 43)],
    );
    for (framework, scenario, kind, shares) in [
        (
            "hyper",
            "hello",
            native,
            [(0.97, 0.62), (0.99, 0.58), (0.96, 0.66)].as_slice(),
        ),
        (
            "hyper",
            "param",
            native,
            &[(0.95, 0.70), (0.98, 0.71), (0.97, 0.69)],
        ),
        ("hyper", "mw", native, &[(0.97, 0.93), (0.96, 0.94), (0.98, 0.92)]),
        ("s200", "hello", js, &[(0.41, 0.99), (0.40, 0.99), (0.42, 1.0)]),
        ("s200", "param", js, &[(0.40, 0.99), (0.39, 0.99), (0.41, 0.99)]),
        ("s200", "mw", js, &[(0.38, 1.0), (0.37, 0.99), (0.38, 0.99)]),
        ("hono-patched", "hello", js, &[(0.93, 0.95), (0.92, 0.96)]),
        ("hono-patched", "param", js, &[(0.90, 0.97), (0.91, 0.96)]),
        ("hono-patched", "mw", js, &[(0.60, 0.99), (0.59, 0.99)]),
    ] {
        busy(&mut report, framework, scenario, kind, shares);
    }
    // Start-up times, as `bench` measures them (the failed express × mw
    // row started; express × param never answered).
    for (framework, scenario, seconds) in [
        ("s200", "hello", 0.21),
        ("express", "mw", 0.34),
        ("hyper", "hello", 0.02),
    ] {
        report.row_mut(framework, scenario, js).startup_s = Some(seconds);
    }
    // Where s200's went, as its server's banner said.
    report.row_mut("s200", "hello", js).startup_split = Some(report::StartupSplit {
        runtime_ready_s: 0.08,
        app_loaded_s: 0.19,
    });
    // How long the server waited for a CPU.
    for (framework, scenario, waits) in [
        ("s200", "hello", [0.01, 0.02, 0.0].as_slice()),
        ("s200", "param", &[0.01, 0.01, 0.03]),
        ("s200", "mw", &[0.02, 0.0, 0.01]),
        ("hono-patched", "mw", &[0.35, 0.31]),
    ] {
        let row = report.row_mut(framework, scenario, js);
        for (round, &wait) in row.rounds.iter_mut().zip(waits) {
            round.server_wait = Some(wait);
        }
    }
    // What each request cost: s200 × mw on a JS engine with GC hooks,
    // hyper × mw without a JS heap.
    for (framework, kind, users) in [
        ("s200", js, [9.8, 10.4, 9.9]),
        ("hyper", RowKind::Native, [2.4, 2.5, 2.3]),
    ] {
        let row = report.row_mut(framework, "mw", kind);
        for (round, &user) in row.rounds.iter_mut().zip(&users) {
            round.cost = Some(RequestCost {
                server_user_us: user,
                server_system_us: 4.6,
                client_us: Some(6.0),
                heap: (kind == js).then_some(HeapCost {
                    bytes_per_request: 6451.0,
                    gc_us: 4.0,
                    gc_share: 0.279,
                    young_gcs: 63,
                    full_gcs: 12,
                    longest_pause_us: 8880.0,
                }),
                server_time: (kind == js).then_some(ServerTime {
                    p50_us: 310.0,
                    p99_us: 2210.0,
                    slower_than_p99: 118,
                    tail_in_gc: Some(0.62),
                    all_in_gc: Some(0.04),
                }),
            });
        }
    }
    // s200 × mw served inside its runtime: 3.6 µs of its 14.5.
    report.row_mut("s200", "mw", js).in_runtime = Some(InRuntimeCost {
        requests: 175_800,
        cpu_us: 3.57,
        bytes_per_request: Some(6475.0),
        gc_us: Some(1.09),
        mismatches: 0,
        error: None,
    });
    // A round with every kind of failure counted.
    let row = report.row_mut("s200", "hello", js);
    let last = row.rounds.len() - 1;
    row.rounds[last].errors = 2;
    row.rounds[last].non_2xx = 1;
    row.rounds[last].mismatches = 3;
    report.header.wall_time_s = 252.4;
    report
        .warnings
        .push("stopped by Ctrl-C during round 3 of 3: express × param has no rounds".into());
    let held_back = report::summary::held_back_warning(&report);
    report.warnings.extend(held_back);
    report
}

#[test]
fn terminal_table() {
    let report = fixture();
    golden(
        "report_terminal",
        &render(|out| report::write_terminal(&report, out)),
    );
}

#[test]
fn markdown() {
    let report = fixture();
    golden(
        "report_markdown",
        &render(|out| report::write_markdown(&report, out)),
    );
}

#[test]
fn csv() {
    let report = fixture();
    let text = render(|out| report::write_csv(&report, out));
    // One line per row × round, plus the header and one for the row
    // without rounds.
    let rounds: usize = report.rows.iter().map(|r| r.rounds.len().max(1)).sum();
    assert_eq!(text.lines().count(), 1 + rounds);
    golden("report_csv", &text);
}

#[test]
fn json_is_pinned() {
    let report = fixture();
    golden("report_json", &render(|out| report::write_json(&report, out)));
}

#[test]
fn json_round_trips() {
    let report = fixture();
    let text = render(|out| report::write_json(&report, out));
    let back = report::parse_json(&text, Path::new("fixture.json")).expect("a written report loads");
    assert_eq!(back, report);
    // The summary rides along for readers, computed, not stored.
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(value["summary"]["by_framework"][1]["framework"], "hono-patched");
    assert_eq!(value["rows"][0]["status"]["state"], "ok");
}

#[test]
fn json_carries_each_rows_summary_beside_its_rounds() {
    let report = fixture();
    let text = render(|out| report::write_json(&report, out));
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let row = &value["rows"][0];
    assert_eq!(
        (row["framework"].as_str(), row["scenario"].as_str()),
        (Some("s200"), Some("hello"))
    );
    let summary = &row["summary"];
    // Rounds of 10308, 10100 and 10412 req/s; p50 180, 185, 178 µs.
    assert_eq!(summary["rps_ok"]["median"], 10308.0);
    assert_eq!(summary["rps_ok"]["min"], 10100.0);
    assert_eq!(summary["rps_ok"]["max"], 10412.0);
    assert_eq!(summary["p50_us"], 180.0);
    assert_eq!(summary["p99_us"], 540.0);
    assert_eq!(summary["startup_s"], 0.21);
    assert_eq!(row["startup_split"]["runtime_ready_s"], 0.08);
    assert_eq!(summary["startup_split"]["app_loaded_s"], 0.19);
    // Behind hyper, hono-patched and express.
    assert_eq!(summary["rank"], 4);
    // A row without rounds has a summary of nothing measured.
    let param = value["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["framework"] == "express" && r["scenario"] == "param")
        .expect("express × param");
    assert_eq!(param["summary"]["rps_ok"], serde_json::Value::Null);
    assert_eq!(param["summary"]["startup_s"], serde_json::Value::Null);
}

#[test]
fn a_version_1_report_still_loads() {
    // Version 1: no start-up times, the row summaries apart under
    // `summary.rows`; the measured figures are the same.
    let mut report = fixture();
    for row in &mut report.rows {
        row.startup_s = None;
    }
    let mut value: serde_json::Value =
        serde_json::from_str(&render(|out| report::write_json(&report, out))).expect("valid JSON");
    value["schema_version"] = serde_json::json!(1);
    let mut summaries = Vec::new();
    for row in value["rows"].as_array_mut().expect("rows") {
        summaries.push(row["summary"].take());
        row.as_object_mut().expect("a row is an object").remove("summary");
    }
    value["summary"]["rows"] = serde_json::Value::Array(summaries);
    let back = report::parse_json(&value.to_string(), Path::new("v1.json")).expect("version 1 loads");
    assert_eq!(back.schema_version, 1);
    assert_eq!(back.rows, report.rows);
    // Its page renders what it has and says what an older report lacks.
    let page = render(|out| report::write_html(&back, out));
    let note = format!(
        "This report was written in schema 1 (this fwbench writes {})",
        report::model::SCHEMA_VERSION
    );
    assert!(page.contains(&note), "{page}");
    assert!(page.contains("<h2>Scenario hello</h2>"));
}

#[test]
fn every_writer_marks_client_bound_rows() {
    let report = fixture();
    // hyper × hello: rounds of 45012, 44020 and 46001 req/s, the client at
    // a median 97 % of its core, the server at 62 %.
    let note = "‡ client-bound: the load generator used 97% of its core while the server used 62% \
                — the figure is a lower bound";
    let terminal = render(|out| report::write_terminal(&report, out));
    assert!(terminal.contains("  45012‡  "), "{terminal}");
    assert!(terminal.contains(&format!("\n  {note}\n")), "{terminal}");
    // Under the framework table, one line for hyper's two marked rows.
    assert!(
        terminal.contains("used 97% of its core while the server used 62–70% — the figures are lower bounds"),
        "{terminal}"
    );
    // Not marked: hyper × mw (its server was busy too), s200 (its client
    // idle), hono-patched (both busy), express (no shares recorded).
    assert_eq!(terminal.matches('‡').count(), 2 + 2 + 1 + 1 + 1, "{terminal}");

    let markdown = render(|out| report::write_markdown(&report, out));
    assert!(markdown.contains("| 45012‡ |"), "{markdown}");
    assert!(markdown.contains(&format!("\n{note}\n")), "{markdown}");

    let csv = render(|out| report::write_csv(&report, out));
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).expect(name);
    let field = |framework: &str, scenario: &str, name: &str| -> Vec<String> {
        csv.lines()
            .map(|line| line.split(',').collect::<Vec<_>>())
            .filter(|f| f[0] == framework && f[1] == scenario)
            .map(|f| f[column(name)].to_owned())
            .collect()
    };
    assert_eq!(field("hyper", "hello", "client_bound"), ["true"; 3]);
    assert_eq!(field("hyper", "hello", "client_cpu"), ["0.97", "0.99", "0.96"]);
    assert_eq!(field("hyper", "hello", "server_cpu"), ["0.62", "0.58", "0.66"]);
    assert_eq!(field("hyper", "hello", "concurrency_achieved"), ["49.5"; 3]);
    assert_eq!(field("hyper", "mw", "client_bound"), ["false"; 3]);
    assert_eq!(field("express", "hello", "client_cpu"), [""; 3]);
    assert_eq!(field("express", "param", "client_bound"), [""]);

    let json: serde_json::Value =
        serde_json::from_str(&render(|out| report::write_json(&report, out))).expect("valid JSON");
    let summary = |framework: &str, scenario: &str| {
        json["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["framework"] == framework && r["scenario"] == scenario)
            .map(|r| r["summary"].clone())
            .expect("row")
    };
    let hyper = summary("hyper", "hello");
    assert_eq!(
        (&hyper["client_bound"], &hyper["client_cpu"], &hyper["server_cpu"]),
        (
            &serde_json::json!(true),
            &serde_json::json!(0.97),
            &serde_json::json!(0.62)
        )
    );
    assert_eq!(summary("hyper", "mw")["client_bound"], false);
    let express = summary("express", "hello");
    assert_eq!(
        (&express["client_bound"], &express["client_cpu"]),
        (&serde_json::json!(false), &serde_json::Value::Null)
    );

    let svg = svg_text(&report);
    let doc = roxmltree::Document::parse(&svg).expect("checked in svg_text");
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    // One mark on each of hyper's two client-bound bars, and the caption.
    assert_eq!(texts.iter().filter(|t| **t == "‡").count(), 2, "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.ends_with("‡: client-bound, a lower bound")),
        "{texts:?}"
    );
}

/// The fixture's JSON as a report written before rounds recorded CPU
/// shares: without them in its rounds and without the summary's fields.
fn without_shares(report: &BenchReport) -> String {
    let mut value: serde_json::Value =
        serde_json::from_str(&render(|out| report::write_json(report, out))).expect("valid JSON");
    for row in value["rows"].as_array_mut().expect("rows") {
        for round in row["rounds"].as_array_mut().expect("rounds") {
            let round = round.as_object_mut().expect("a round is an object");
            for key in ["client_cpu", "server_cpu", "concurrency_achieved"] {
                round.remove(key);
            }
        }
        let summary = row["summary"].as_object_mut().expect("a summary is an object");
        for key in ["client_cpu", "server_cpu", "client_bound"] {
            summary.remove(key);
        }
    }
    value.to_string()
}

#[test]
fn a_report_without_cpu_shares_loads_marks_nothing_and_compares() {
    let new = fixture();
    let text = without_shares(&new);
    assert!(!text.contains("client_cpu") && !text.contains("client_bound"));
    let old = report::parse_json(&text, Path::new("old.json")).expect("a report without shares loads");
    for round in old.rows.iter().flat_map(|r| &r.rounds) {
        assert_eq!(
            (round.client_cpu, round.server_cpu, round.concurrency_achieved),
            (None, None, None)
        );
    }
    // The same figures otherwise.
    let mut stripped = new.clone();
    for round in stripped.rows.iter_mut().flat_map(|r| &mut r.rounds) {
        (round.client_cpu, round.server_cpu, round.concurrency_achieved) = (None, None, None);
    }
    assert_eq!(old, stripped);
    // Nothing says its rows were client-bound, so no writer marks one.
    assert!(!render(|out| report::write_terminal(&old, out)).contains('‡'));
    assert!(!render(|out| report::write_markdown(&old, out)).contains('‡'));
    assert!(!render(|out| report::write_csv(&old, out)).contains("true"));
    assert!(!svg_text(&old).contains('‡'));
    // Compared with a report that has them, in either order: only the
    // newer run's marked rows carry the mark.
    let comparison = render(|out| report::compare(&old, &new, out));
    assert!(comparison.contains("45012‡"), "{comparison}");
    assert!(comparison.contains("client-bound in that run"), "{comparison}");
    let line = comparison
        .lines()
        .find(|l| l.contains("hello") && l.contains("hyper"))
        .expect("hyper × hello");
    assert_eq!(line.matches('‡').count(), 1, "{line}");
    render(|out| report::compare(&new, &old, out));
}

#[test]
fn json_load_errors_name_the_file() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let missing = dir.join("no-such-report.json");
    let error = report::load_json(&missing).expect_err("missing file");
    assert!(matches!(error, ReadReportError::Read { .. }));
    assert!(error.to_string().contains("no-such-report.json"), "{error}");

    let origin = Path::new("runs/a.json");
    let error = report::parse_json("{\"rows\": [", origin).expect_err("truncated");
    assert!(matches!(error, ReadReportError::Parse { .. }));
    assert!(error.to_string().contains("runs/a.json"), "{error}");

    let error = report::parse_json("{\"hello\": 1}", origin).expect_err("not a report");
    assert!(error.to_string().contains("no `schema_version`"), "{error}");

    let mut value: serde_json::Value =
        serde_json::from_str(&render(|out| report::write_json(&fixture(), out))).expect("valid JSON");
    value["schema_version"] = serde_json::json!(99);
    let error = report::parse_json(&value.to_string(), origin).expect_err("future schema");
    assert!(matches!(error, ReadReportError::Schema { found: 99, .. }));
    assert!(error.to_string().contains("runs/a.json"), "{error}");
    assert!(error.to_string().contains("version 99"), "{error}");

    value["schema_version"] = serde_json::json!(report::SCHEMA_VERSION);
    value["rows"][0]["kind"] = serde_json::json!("wasm");
    let error = report::parse_json(&value.to_string(), origin).expect_err("bad field");
    assert!(error.to_string().contains("unknown variant `wasm`"), "{error}");
}

/// `compare a.json /dev/zero` read without end (8 GB before it was
/// stopped): a report larger than the cap is refused unread, naming the
/// file and the cap.
#[test]
fn a_report_past_the_size_cap_is_refused() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let big = dir.join("oversized-report.json");
    // Sparse: one byte past the cap costs no disk.
    let file = std::fs::File::create(&big).expect("create the oversized file");
    file.set_len(report::MAX_REPORT_BYTES + 1).expect("grow it");
    drop(file);
    let error = report::load_json(&big).expect_err("oversized");
    assert!(matches!(error, ReadReportError::TooLarge { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("oversized-report.json") && text.contains("64 MiB"),
        "{text}"
    );

    let error = report::load_json(Path::new("/dev/zero")).expect_err("endless");
    assert!(matches!(error, ReadReportError::TooLarge { .. }), "{error}");

    let good = dir.join("capped-a.json");
    std::fs::write(&good, render(|out| report::write_json(&fixture(), out))).expect("write A");
    let args = CompareArgs {
        a: good,
        b: Some(PathBuf::from("/dev/zero")),
        more: Vec::new(),
        fail_below: None,
        html: None,
    };
    let error = report::compare::run(&args, &mut Vec::new()).expect_err("B is endless");
    assert!(format!("{error:#}").contains("/dev/zero"), "{error:#}");
    let _ = std::fs::remove_file(&big);
}

/// A crafted string that, printed verbatim, clears the terminal, then starts
/// a line of its own.
const FORGED: &str = "\u{1b}[2J…\r\nfake line";

/// A report whose every printable string from the file carries [`FORGED`]
/// (or another control character).
fn crafted() -> BenchReport {
    let mut report = fixture();
    report.header.tool.engine = format!("v8{FORGED}");
    report
        .header
        .tool
        .framework_versions
        .insert(format!("evil{FORGED}"), format!("1{FORGED}"));
    report.header.machine.cpu_model = format!("cpu{FORGED}");
    report.header.started_at = format!("now{FORGED}");
    report.warnings.push(format!("title \u{1b}]0;owned\u{7}{FORGED}"));
    report.header.options["connections"] = serde_json::json!(format!("50{FORGED}"));
    report.scenarios.push(format!("mw{FORGED}"));
    rounds(
        &mut report,
        &format!("evil{FORGED}"),
        &format!("mw{FORGED}"),
        RowKind::Js,
        &[(9000, 200)],
    );
    rounds(
        &mut report,
        "s200",
        &format!("mw{FORGED}"),
        RowKind::Js,
        &[(9000, 200)],
    );
    report
        .row_mut(&format!("bad{FORGED}"), "hello", RowKind::Js)
        // A tail's own line breaks are kept (each line is shown as a line
        // of the tail); its other control characters are escaped.
        .fail(
            format!("reason{FORGED}"),
            Some("tail\u{1b}[1A\u{7}\r\nsecond".to_owned()),
        );
    report
}

/// Fails when `text` holds a control character other than its line
/// breaks, or a line that the crafted string started.
fn assert_no_forgery(what: &str, text: &str) {
    let bad: Vec<char> = text.chars().filter(|c| c.is_control() && *c != '\n').collect();
    assert!(
        bad.is_empty(),
        "{what} prints control characters {bad:?}:\n{text}"
    );
    assert!(
        !text
            .lines()
            .any(|line| line.trim_start().starts_with("fake line")),
        "{what} lets a report forge a line:\n{text}"
    );
}

/// `compare` printed a report's strings verbatim, so a crafted report
/// cleared the terminal and forged lines; every string from the file is now
/// escaped, in `compare` as in the other writers.
#[test]
fn control_characters_from_a_report_are_escaped() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("crafted.json");
    std::fs::write(&path, render(|out| report::write_json(&crafted(), out))).expect("write");
    let clean = dir.join("clean.json");
    std::fs::write(&clean, render(|out| report::write_json(&fixture(), out))).expect("write");
    for (a, b) in [(&clean, &path), (&path, &clean), (&path, &path)] {
        let args = CompareArgs {
            a: a.clone(),
            b: Some(b.clone()),
            more: Vec::new(),
            fail_below: Some(1.0),
            html: None,
        };
        let mut out = Vec::new();
        report::compare::run(&args, &mut out).expect("both load");
        let text = String::from_utf8(out).expect("UTF-8");
        assert_no_forgery("compare", &text);
        assert!(
            text.contains(r"\u{1b}[2J…\r\nfake line"),
            "shown escaped:\n{text}"
        );
    }
    let loaded = report::load_json(&path).expect("loads");
    assert_no_forgery(
        "the terminal report",
        &render(|out| report::write_terminal(&loaded, out)),
    );
    assert_no_forgery(
        "the markdown report",
        &render(|out| report::write_markdown(&loaded, out)),
    );
}

/// B: the fixture re-run on another engine, with hono-patched's mw faster
/// beyond its range, s200's hello within noise, express's mw fixed, hyper's
/// param missing and a new axum row.
fn fixture_b() -> BenchReport {
    let mut b = fixture();
    b.header.tool.engine = "v8 13.7".into();
    b.header
        .tool
        .framework_versions
        .insert("hono-patched".into(), "4.8.0".into());
    b.header.started_at = "2026-10-01T09:00:00Z".into();
    b.header.options["rounds"] = serde_json::json!(5);
    for round in &mut b.row_mut("hono-patched", "mw", RowKind::Js).rounds {
        round.rps_ok *= 1.5;
    }
    for round in &mut b.row_mut("s200", "hello", RowKind::Js).rounds {
        round.rps_ok *= 1.01;
    }
    let express = b.row_mut("express", "mw", RowKind::Js);
    express.status = report::RowStatus::Ok;
    for round in &mut b.row_mut("s200", "mw", RowKind::Js).rounds {
        round.rps_ok *= 0.8;
    }
    b.rows
        .retain(|r| !(r.framework == "hyper" && r.scenario == "param"));
    rounds(
        &mut b,
        "axum",
        "hello",
        RowKind::Native,
        &[(40000, 45), (41000, 44)],
    );
    b
}

#[test]
fn compare_output() {
    let (a, b) = (fixture(), fixture_b());
    golden("compare", &render(|out| report::compare(&a, &b, out)));
}

#[test]
fn compare_of_a_report_with_itself_is_all_ones() {
    let a = fixture();
    let text = render(|out| report::compare(&a, &a, out));
    assert!(
        text.contains("Same fwbench, engine, versions, machine, pinning and options"),
        "{text}"
    );
    let comparison = report::Comparison::of(&a, &a);
    for row in &comparison.rows {
        assert!(!row.separated, "{} × {}", row.framework, row.scenario);
        if let Some(ratio) = row.ratio {
            assert!((ratio - 1.0).abs() < 1e-12);
        }
    }
    assert!(comparison.only_in_a.is_empty() && comparison.only_in_b.is_empty());
}

#[test]
fn compare_gate_catches_slower_and_newly_failed_rows() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let (path_a, path_b) = (dir.join("gate-a.json"), dir.join("gate-b.json"));
    let a = fixture();
    let mut b = fixture_b();
    b.row_mut("hyper", "hello", RowKind::Native)
        .fail("port in use", None);
    std::fs::write(&path_a, render(|out| report::write_json(&a, out))).expect("write A");
    std::fs::write(&path_b, render(|out| report::write_json(&b, out))).expect("write B");

    let mut args = CompareArgs {
        a: path_a.clone(),
        b: Some(path_b.clone()),
        more: Vec::new(),
        fail_below: None,
        html: None,
    };
    let mut out = Vec::new();
    let outcome = report::compare::run(&args, &mut out).expect("both load");
    assert_eq!(outcome, CompareOutcome::Passed);

    // s200 × mw is 20 % slower beyond its range; hyper × hello failed in B.
    args.fail_below = Some(5.0);
    let mut out = Vec::new();
    let outcome = report::compare::run(&args, &mut out).expect("both load");
    assert_eq!(outcome, CompareOutcome::Regressed { rows: 2 });
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains("  s200 × mw\n") && text.contains("  hyper × hello\n"),
        "{text}"
    );
    assert!(text.contains(&format!("A = {}", path_a.display())), "{text}");

    args.fail_below = Some(25.0);
    let mut out = Vec::new();
    let outcome = report::compare::run(&args, &mut out).expect("both load");
    assert_eq!(outcome, CompareOutcome::Regressed { rows: 1 });

    args.b = Some(dir.join("absent.json"));
    let error = report::compare::run(&args, &mut Vec::new()).expect_err("B is missing");
    assert!(format!("{error:#}").contains("absent.json"), "{error:#}");
}

fn svg_text(report: &BenchReport) -> String {
    let text = render(|out| report::write_svg(report, out));
    roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("SVG is not well-formed XML: {e}\n{text}"));
    text
}

#[test]
fn svg_is_well_formed_and_names_every_framework() {
    let report = fixture();
    let text = svg_text(&report);
    let doc = roxmltree::Document::parse(&text).expect("checked above");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let labels: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_owned())
        .collect();
    for framework in &report.frameworks {
        assert!(labels.contains(framework), "no label {framework} in {labels:?}");
    }
    for expected in [
        "hello",
        "param",
        "mw",
        "p50",
        "p90",
        "p99",
        "failed",
        "no rounds",
        "requests/s",
    ] {
        assert!(
            labels.iter().any(|l| l == expected),
            "no label {expected} in {labels:?}"
        );
    }
    // The title's two lines: what produced the figures, and where.
    assert!(
        labels.iter().any(|l| l.contains("engine quickjs")),
        "title names the engine: {labels:?}"
    );
    assert!(
        labels.iter().any(|l| l.contains("AMD Ryzen 7 8745HS")),
        "title names the machine: {labels:?}"
    );
}

/// Reports with nothing measured: no rows at all, and only failed rows.
fn degenerate() -> Vec<BenchReport> {
    let empty = BenchReport::new(
        ToolInfo::default(),
        MachineInfo::default(),
        Pinning::default(),
        serde_json::Value::Null,
        "",
    );
    let mut failed = empty.clone();
    failed
        .row_mut("s200", "hello", RowKind::Js)
        .fail("scenario threw: ReferenceError: x is not defined", None);
    failed
        .row_mut("hyper", "hello", RowKind::Native)
        .fail("port 8080 in use", Some(String::new()));
    vec![empty, failed]
}

#[test]
fn no_writer_breaks_without_rounds() {
    for report in degenerate() {
        let terminal = render(|out| report::write_terminal(&report, out));
        let markdown = render(|out| report::write_markdown(&report, out));
        let csv = render(|out| report::write_csv(&report, out));
        let json = render(|out| report::write_json(&report, out));
        svg_text(&report);
        assert_eq!(csv.lines().count(), 1 + report.rows.len());
        assert_eq!(
            report::parse_json(&json, Path::new("x.json")).expect("loads"),
            report
        );
        for row in &report.rows {
            let reason = row.failure().expect("all failed");
            assert!(terminal.contains(reason), "{terminal}");
            assert!(markdown.contains(reason), "{markdown}");
        }
        render(|out| report::compare(&report, &fixture(), out));
    }
}

/// A run under other engine switches is not the same run (a `--jitless` one
/// served at 0.6× and compared as "same options"): the header names them
/// and `compare` names the difference.
#[test]
fn engine_switches_are_shown_and_compared() {
    let a = fixture();
    let mut b = fixture();
    b.header
        .tool
        .engine_switches
        .insert("FWBENCH_V8_FLAGS".into(), "--jitless".into());
    let terminal = render(|out| report::write_terminal(&b, out));
    assert!(
        terminal.contains("engine switches: FWBENCH_V8_FLAGS=--jitless"),
        "{terminal}"
    );
    let compared = render(|out| report::compare(&a, &b, out));
    assert!(
        compared.contains("engine switches: A none, B FWBENCH_V8_FLAGS=--jitless"),
        "{compared}"
    );
    // Read back from JSON, as compare reads its files.
    let json = render(|out| report::write_json(&b, out));
    let loaded = report::parse_json(&json, Path::new("b.json")).expect("loads");
    assert_eq!(loaded.header.tool.engine_switches, b.header.tool.engine_switches);
}
