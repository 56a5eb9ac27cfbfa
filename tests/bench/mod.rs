//! Integration tests of the main job: `fwbench check` over the
//! whole matrix, a short `fwbench bench` and its reports, broken scenarios
//! that fail their rows while the run completes, and `fwbench compare`.

mod anatomy;
mod capacity;
mod exit_status;
mod headers;
mod memory;
mod runtimes;
mod sweep;
mod warmup;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{bench, fixture, fwbench, fwbench_within};
use serde_json::Value;

/// A fresh directory under the test target dir.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Every framework, JS and native: the registry's list.
const ALL: &[fwbench::frameworks::Framework] = fwbench::frameworks::FRAMEWORKS;

#[test]
fn check_passes_for_every_row_and_scenario() {
    let out = fwbench(["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        ALL.len() * 3,
        "{stdout}"
    );
    let passed = format!("{} passed, 0 failed", ALL.len() * 3);
    assert!(stdout.contains(&passed), "{stdout}");
}

/// The built-ins that run only when named (json-post, error, big-json,
/// stream, routes, routes-miss) pass `check` on every row that implements
/// them; native rows skip what they do not implement (stream).
#[test]
fn check_passes_for_every_row_of_the_scenarios_run_when_named() {
    use fwbench::scenario::{builtin_names, Suite};
    let named: Vec<String> = builtin_names()
        .into_iter()
        .filter(|name| !Suite::Default.contains(name))
        .collect();
    assert!(named.len() >= 6, "{named:?}");
    let out = fwbench(["check", "--only", &named.join(",")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let native = ALL
        .iter()
        .filter(|f| f.kind() == fwbench::frameworks::RowKind::Native)
        .count();
    let skipped: usize = named
        .iter()
        .filter(|name| !fwbench::native::SCENARIOS.contains(&name.as_str()))
        .map(|_| native)
        .sum();
    let passed = ALL.len() * named.len() - skipped;
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        passed,
        "{stdout}"
    );
    let summary = format!("{passed} passed, 0 failed, {skipped} skipped");
    assert!(stdout.contains(&summary), "{stdout}");
}

#[test]
fn a_short_bench_reports_every_row_and_figure() {
    let dir = scratch("bench-full");
    let json = dir.join("copy.json");
    // Short rounds: 27 rows, and each is about its figures being there.
    let out = fwbench(bench(&dir).in_runtime("200ms").connections(10).json(&json));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The terminal table has the reference's columns.
    assert!(stdout.contains("mw vs hello"), "{stdout}");
    let report = read_json(&json);
    assert_eq!(report, read_json(&dir.join("report.json")));
    let engine = if cfg!(feature = "v8") { "V8" } else { "QuickJS" };
    assert!(report["tool"]["engine"].as_str().unwrap().contains(engine));
    assert!(!report["machine"]["cpu_model"].as_str().unwrap().is_empty());
    assert_eq!(report["options"]["rounds"], 1);
    for key in ["deno_core", "hyper", "npm:hono"] {
        assert!(
            report["tool"]["dependency_versions"][key].is_string(),
            "{key}: {report:#}"
        );
    }
    assert_eq!(
        report["options"]["frameworks"].as_array().unwrap().len(),
        ALL.len()
    );
    assert_eq!(
        report["options"]["scenarios"],
        serde_json::json!(["hello", "mw", "param"])
    );
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), ALL.len() * 3);
    for row in rows {
        let name = format!("{}/{}", row["framework"], row["scenario"]);
        assert_eq!(row["status"]["state"], "ok", "{name}: {row:#}");
        // Each row's start-up, and its summary beside its rounds.
        let startup = row["startup_s"].as_f64().unwrap();
        assert!(startup > 0.0 && startup < 120.0, "{name}: {startup}");
        let summary = &row["summary"];
        assert_eq!(summary["startup_s"], row["startup_s"], "{name}");
        assert_eq!(summary["rps_ok"]["median"], row["rounds"][0]["rps_ok"], "{name}");
        assert!(summary["p99_us"].as_f64().unwrap() > 0.0, "{name}");
        let round = &row["rounds"][0];
        assert!(round["rps_ok"].as_f64().unwrap() > 0.0, "{name}");
        assert_eq!(round["errors"], 0, "{name}");
        assert_eq!(round["mismatches"], 0, "{name}");
        assert!(round["latency_us"]["p50"].as_u64().unwrap() > 0, "{name}");
        // How busy each side was, as shares of the CPUs it could use, and
        // the verdict the summary draws from them (one round: its medians
        // are the round's own shares).
        for share in ["client_cpu", "server_cpu"] {
            let value = round[share]
                .as_f64()
                .unwrap_or_else(|| panic!("{name}: no {share}"));
            assert!(value > 0.0 && value < 1.5, "{name}: {share} {value}");
            assert_eq!(summary[share], round[share], "{name}");
        }
        assert!(round["concurrency_achieved"].as_f64().unwrap() > 0.0, "{name}");
        assert!(summary["client_bound"].is_boolean(), "{name}");
        // How long the server waited for a CPU.
        let wait = round["server_wait"]
            .as_f64()
            .unwrap_or_else(|| panic!("{name}: no server_wait"));
        assert!((0.0..1.5).contains(&wait), "{name}: server_wait {wait}");
        assert_eq!(summary["server_wait"], round["server_wait"], "{name}");
        let hdr = row["hdr_file"].as_str().unwrap();
        assert!(
            std::fs::read_to_string(hdr).unwrap().contains("Percentile"),
            "{name}: {hdr}"
        );
    }
    for file in ["report.md", "report.csv", "chart.svg"] {
        assert!(dir.join(file).metadata().unwrap().len() > 0, "{file}");
    }
    // The tables mark exactly when some row is client-bound.
    let marked = rows.iter().any(|row| row["summary"]["client_bound"] == true);
    assert_eq!(stdout.contains('‡'), marked, "{stdout}");
}

/// A busy loop on the server's CPU makes the server wait for it about half
/// the time: the rounds record that and the report warns, naming the row.
#[test]
fn a_run_on_a_busy_machine_says_so() {
    let allowed = fwbench::bench::cpus::allowed_cpus();
    let [server_cpu, load_cpu, ..] = allowed[..] else {
        eprintln!("skipped: needs two CPUs (one for the server, one for the load)");
        return;
    };
    let dir = scratch("bench-busy");
    // An ordinary-priority busy loop where the server runs, a few seconds
    // long at most (a minute here); killed by its PID when the guard drops.
    let spinner = std::process::Command::new("taskset")
        .args(["-c", &server_cpu.to_string(), "sh", "-c"])
        .arg("i=0; while [ $i -lt 40000000 ]; do i=$((i+1)); done")
        .spawn()
        .expect("taskset (util-linux) runs");
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _spinner = Kill(spinner);
    let (server_cpu, load_cpu) = (server_cpu.to_string(), load_cpu.to_string());
    let out = fwbench_within(
        bench(&dir)
            .frameworks("hyper")
            .only("hello")
            .set("--server-cpus", &server_cpu)
            .set("--load-cpus", &load_cpu)
            .duration("1s")
            .rounds(2),
        Duration::from_secs(60),
    )
    .expect("bench finishes within a minute");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let report = read_json(&dir.join("report.json"));
    let row = &report["rows"][0];
    for round in row["rounds"].as_array().unwrap() {
        let wait = round["server_wait"].as_f64().unwrap();
        // Half the time in theory; well above the warning's tenth.
        assert!(wait > 0.2, "server_wait {wait}: {row:#}");
    }
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("the server waited for a CPU"), "{warnings}");
    assert!(
        stdout.contains("WARNING: the server waited for a CPU"),
        "{stdout}"
    );
    let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(markdown.contains("the server waited for a CPU"), "{markdown}");
}

#[test]
fn broken_scenarios_fail_their_rows_and_the_run_completes() {
    let dir = scratch("bench-broken");
    let out = fwbench(
        bench(&dir)
            .scenario(fixture("bench/broken.js"))
            .scenario(fixture("bench/throws.js"))
            .frameworks("s200,hono,express"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "failed rows make the run exit 1: {stdout}"
    );
    let report = read_json(&dir.join("report.json"));
    let row = |framework: &str, scenario: &str| {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["framework"] == framework && r["scenario"] == scenario)
            .unwrap_or_else(|| panic!("no row {framework}/{scenario}: {report:#}"))
            .clone()
    };
    assert_eq!(row("s200", "broken")["status"]["state"], "ok");
    assert_eq!(row("s200", "broken")["rounds"].as_array().unwrap().len(), 1);
    let hono = row("hono", "broken");
    assert!(
        hono["status"]["reason"]
            .as_str()
            .unwrap()
            .contains("no app for hono"),
        "{hono:#}"
    );
    let express = row("express", "broken");
    assert!(
        express["status"]["reason"].as_str().unwrap().contains("not ok"),
        "{express:#}"
    );
    for framework in ["s200", "hono", "express"] {
        let throws = row(framework, "throws");
        assert!(
            throws["status"]["reason"]
                .as_str()
                .unwrap()
                .contains("broken on purpose"),
            "{throws:#}"
        );
    }
    assert!(stdout.contains("FAILED"), "{stdout}");
}

#[test]
fn compare_prints_ratios_between_two_reports() {
    let dir = scratch("bench-compare");
    let out = fwbench(bench(&dir).only("hello").frameworks("s200,hyper").rounds(2));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let a = dir.join("report.json");
    // B: the same run with s200 twice as fast: every round at twice A's
    // median. (Doubling each round instead left the ranges overlapping
    // when A's two rounds were more than 2x apart, on a busy machine, and
    // the gate below rightly did not fire.)
    let mut b_json = read_json(&a);
    for row in b_json["rows"].as_array_mut().unwrap() {
        if row["framework"] == "s200" {
            let rounds = row["rounds"].as_array_mut().unwrap();
            let rps: Vec<f64> = rounds.iter().map(|r| r["rps_ok"].as_f64().unwrap()).collect();
            let median = fwbench::report::summary::median(&rps).unwrap();
            for round in rounds {
                round["rps_ok"] = (median * 2.0).into();
            }
        }
    }
    let b = dir.join("b.json");
    std::fs::write(&b, serde_json::to_string(&b_json).unwrap()).unwrap();
    let out = fwbench(["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // A row's line (a warning may name the row too, on a busy machine).
    let row_line = |name: &str| {
        stdout
            .lines()
            .find(|l| l.contains(name) && !l.starts_with("WARNING"))
            .unwrap_or_else(|| panic!("{stdout}"))
    };
    let s200 = row_line("s200");
    assert!(s200.contains("2.00"), "{stdout}");
    let hyper = row_line("hyper");
    assert!(hyper.contains("1.00"), "{stdout}");
    // B as the baseline: s200 is half as fast in A, so the gate fails (1);
    // a report that is missing is a set-up error (2).
    let gate = fwbench([
        "compare",
        b.to_str().unwrap(),
        a.to_str().unwrap(),
        "--fail-below",
        "10",
    ]);
    assert_eq!(
        gate.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&gate.stdout)
    );
    let missing = fwbench([
        "compare",
        a.to_str().unwrap(),
        dir.join("none.json").to_str().unwrap(),
    ]);
    assert_eq!(
        missing.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
}

#[test]
fn a_scenario_that_expects_a_404_counts_its_validated_answers() {
    let dir = scratch("bench-not-found");
    let out = fwbench(
        bench(&dir)
            .scenario(fixture("bench/not-found.js"))
            .frameworks("s200"),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = read_json(&dir.join("report.json"));
    let round = &report["rows"][0]["rounds"][0];
    assert!(round["rps_ok"].as_f64().unwrap() > 0.0, "{round:#}");
    assert_eq!(round["successes"], round["requests"], "{round:#}");
    assert_eq!(
        round["non_2xx"], 0,
        "404s are what this scenario expects: {round:#}"
    );
    assert_eq!(round["mismatches"], 0, "{round:#}");
}

#[test]
fn a_scenario_that_loops_at_load_fails_its_rows_and_the_run_completes() {
    let dir = scratch("bench-loops");
    let out = crate::support::fwbench_within(
        bench(&dir)
            .scenario(fixture("bench/loops.js"))
            .frameworks("s200,hyper"),
        std::time::Duration::from_secs(60),
    )
    .expect("bench must not hang on a scenario that loops at load");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    let report = read_json(&dir.join("report.json"));
    let s200 = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["framework"] == "s200" && r["scenario"] == "loops")
        .unwrap_or_else(|| panic!("no s200/loops row: {report:#}"))
        .clone();
    let reason = s200["status"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("CPU time limit"), "{s200:#}");
}

#[test]
fn a_row_that_does_not_start_says_what_was_seen() {
    let dir = scratch("bench-startup");
    let started = std::time::Instant::now();
    let out = fwbench(
        bench(&dir)
            .scenario(fixture("bench/startup.js"))
            .frameworks("s200,hono")
            .set("--start-timeout", "1s"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "a silent server is given the start timeout, twice, and no more"
    );
    let report = read_json(&dir.join("report.json"));
    let status = |framework: &str| {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["framework"] == framework)
            .unwrap_or_else(|| panic!("no row {framework}: {report:#}"))["status"]
            .clone()
    };
    // s200's app never finishes loading: still running, tried twice.
    let silent = status("s200");
    let reason = silent["reason"].as_str().unwrap();
    assert!(
        reason.contains("still running with no banner after 1.0 s"),
        "{silent:#}"
    );
    assert!(reason.contains("at each of 2 attempts"), "{silent:#}");
    // hono's factory throws: the exit status and the error, tried once.
    let exited = status("hono");
    let reason = exited["reason"].as_str().unwrap();
    assert!(reason.contains("exited with status 2 after"), "{exited:#}");
    assert!(!reason.contains("attempts"), "{exited:#}");
    assert!(
        exited["stderr_tail"]
            .as_str()
            .unwrap()
            .contains("fails at start-up on purpose"),
        "{exited:#}"
    );
}

/// An app that prints a banner of its own while it loads, naming another
/// server's port, does not choose what bench loads: serve's stdout carries
/// its banner alone (the app's output goes to stderr), and bench loads a
/// port only if the row's server itself listens there. The decoy never
/// hears a request; the row's own server answers them all.
#[test]
fn an_app_that_prints_a_banner_does_not_choose_the_server_bench_loads() {
    let decoy = crate::support::servers::hello();
    let dir = scratch("bench-forged-banner");
    let scenario = dir.join("forged-banner.js");
    std::fs::write(
        &scenario,
        format!(
            "console.log('fwbench serving forged (fetch app) on {url} with 1 worker [V8] · started: banner 1.0 ms');\n\
             export const description = 'an app that prints a banner naming another server';\n\
             export const request = {{ method: 'GET', path: '/', headers: {{}}, body: null }};\n\
             export const expect = {{ status: 200, body: 'mine' }};\n\
             export const apps = {{\n\
               s200() {{\n\
                 console.log('fwbench serving forged (fetch app) on {url} with 1 worker [V8]');\n\
                 return {{ fetch: () => new Response('mine') }};\n\
               }},\n\
             }};\n",
            url = decoy.url()
        ),
    )
    .expect("write the scenario");
    let out = fwbench(
        bench(&dir)
            .scenario(&scenario)
            .frameworks("s200")
            .skip_in_runtime(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        decoy.requests(),
        0,
        "bench loaded the server the app's banner named"
    );
    let report = read_json(&dir.join("report.json"));
    let round = &report["rows"][0]["rounds"][0];
    assert!(round["successes"].as_u64().unwrap() > 0, "{round:#}");
    assert!(round["mismatches"] == 0 && round["errors"] == 0, "{round:#}");
}
