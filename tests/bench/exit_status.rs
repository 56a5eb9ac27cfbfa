//! One exit-status contract for every command: 0 ok; 1 the command ran (it
//! measured, checked or tested) but something failed; 2 a usage or set-up
//! error.

use std::time::{Duration, Instant};

use super::scratch;
use crate::support::{bench, fixture, fwbench, fwbench_within, Server};

/// The exit code of `fwbench ARGS...`, with its output for messages.
fn exit_code(args: &[&str]) -> (i32, String) {
    let out = fwbench(args);
    let text = format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn a_bad_flag_exits_2() {
    let (code, out) = exit_code(&["bench", "--rounds", "many"]);
    assert_eq!(code, 2, "{out}");
    let (code, out) = exit_code(&["no-such-command"]);
    assert_eq!(code, 2, "{out}");
}

#[test]
fn an_engine_flag_the_engine_does_not_know_exits_2_naming_it() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .arg("list")
        .env("FWBENCH_V8_FLAGS", "--no-such-engine-flag")
        .output()
        .expect("run fwbench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("FWBENCH_V8_FLAGS") && stderr.contains("--no-such-engine-flag"),
        "{stderr}"
    );
}

#[test]
fn serve_of_an_app_that_fails_to_load_exits_2() {
    let app = fixture("badapps/throws/app.js");
    let (code, out) = exit_code(&["serve", "--port", "0", app.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
}

#[test]
fn bench_with_a_cpu_it_cannot_use_exits_2_before_starting_any_row() {
    let dir = scratch("exit-bad-cpus");
    let started = Instant::now();
    let (code, out) = exit_code(&["bench", "--server-cpus", "4096", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("4096"), "names the CPU: {out}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "fails before starting rows"
    );
    assert!(
        !dir.join("report.json").exists(),
        "no report for a run that never started"
    );
}

#[test]
fn bench_with_an_unknown_framework_exits_2() {
    let (code, out) = exit_code(&["bench", "--frameworks", "s200,nosuch"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("nosuch"), "{out}");
}

#[test]
fn check_with_a_failed_row_exits_1() {
    let broken = fixture("bench/broken.js");
    let (code, out) = exit_code(&[
        "check",
        "--scenario",
        broken.to_str().unwrap(),
        "--frameworks",
        "express",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAILED"), "{out}");
}

/// A scenario file whose top level loops in native code, where no
/// interrupt lands, ends the child fwbench that reads it (status 70): its
/// rows fail with that reason and the other scenarios still run. Before,
/// `check` itself exited 70 and the whole run was lost.
#[test]
fn a_scenario_file_stuck_in_native_code_fails_its_rows_and_the_run_goes_on() {
    let stuck = fixture("bench/stuck.js");
    let (code, out) = exit_code(&[
        "check",
        "--scenario",
        stuck.to_str().unwrap(),
        "--only",
        "hello",
        "--frameworks",
        "hono",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("ok      hello    hono"), "{out}");
    assert!(
        out.contains("FAILED  stuck") && out.contains("exit status 70"),
        "{out}"
    );
}

#[test]
fn a_flagged_load_run_exits_1_and_a_refused_target_exits_2() {
    let server = Server::start(&fixture("hello/app.js"), &[]);
    let url = format!("http://{}/", server.addr);
    let (code, out) = exit_code(&["load", &url, "-d", "300ms", "-c", "2", "--expect-status", "404"]);
    assert_eq!(code, 1, "200s where 404s are expected flag the run: {out}");
    let (code, out) = exit_code(&["load", &url, "-d", "300ms", "-c", "2"]);
    assert_eq!(code, 0, "{out}");
    drop(server);
    // Nothing listens there any more: set-up error, nothing measured.
    let (code, out) = exit_code(&["load", &url, "-d", "300ms", "-c", "2"]);
    assert_eq!(code, 2, "{out}");
}

#[test]
fn failing_js_tests_exit_1_and_a_missing_path_exits_2() {
    let (code, out) = exit_code(&["test", fixture("jstest").to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let (code, out) = exit_code(&["test", fixture("no-such-dir").to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
}

#[test]
fn a_bench_cut_short_by_ctrl_c_exits_1_with_its_report() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = scratch("exit-ctrl-c");
    let args = bench(&dir)
        .only("hello")
        .frameworks("hyper")
        .duration("5s")
        .rounds(5)
        .default_warmup();
    let mut bench = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fwbench bench");
    // The line comes once Ctrl-C is handled; give the row time to start.
    let mut stderr = BufReader::new(bench.stderr.take().expect("piped stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("read stderr");
    assert!(line.contains("starting and validating"), "{line}");
    std::thread::sleep(Duration::from_secs(2));
    let pid = bench.id().to_string();
    let sent = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill -INT");
    assert!(sent.success());
    let status = bench.wait().expect("wait for fwbench bench");
    assert_eq!(status.code(), Some(1), "{status:?}");
    assert!(
        dir.join("report.json").exists(),
        "the finished rounds are reported"
    );
}

/// `--max-header-bytes` below hyper's 8 KiB minimum was silently raised to
/// it; now it is refused before anything starts.
#[test]
fn serve_refuses_a_head_limit_below_hyper_minimum() {
    let app = fixture("hello/app.js");
    let out = fwbench_within(
        [
            "serve",
            "--port",
            "0",
            "--max-header-bytes",
            "4096",
            app.to_str().unwrap(),
        ],
        Duration::from_secs(20),
    )
    .expect("serve refuses the flag instead of serving");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("8192"), "names the minimum: {stderr}");
    let help = fwbench(["serve", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("at least 8192"), "{help}");
}

/// Files named on the command line are read up to a cap, so an endless one
/// cannot grow the process without end (`compare a.json /dev/zero` reached
/// 8 GB): `compare` of /dev/zero and `load --body-file /dev/zero` exit 2 at
/// once.
#[test]
fn endless_input_files_exit_2() {
    let out = fwbench_within(["compare", "/dev/zero", "/dev/zero"], Duration::from_secs(30))
        .expect("compare stops reading /dev/zero");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/dev/zero") && stderr.contains("MiB"), "{stderr}");
    let out = fwbench_within(
        ["load", "http://127.0.0.1:1/", "--body-file", "/dev/zero"],
        Duration::from_secs(30),
    )
    .expect("load stops reading /dev/zero");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/dev/zero") && stderr.contains("MiB"), "{stderr}");
    for help in [["compare", "--help"], ["load", "--help"]] {
        let text = String::from_utf8_lossy(&fwbench(help).stdout).into_owned();
        assert!(text.contains("MiB"), "states the cap: {text}");
    }
}

/// SIGTERM to `bench` lost every finished round and wrote no report; it now
/// stops the run as the first Ctrl-C does: the rounds already finished are
/// reported, and the run exits 1.
#[test]
fn a_bench_stopped_by_sigterm_reports_its_finished_rounds() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = scratch("exit-sigterm");
    let args = bench(&dir).only("hello").frameworks("hyper").rounds(60);
    let mut bench = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fwbench bench");
    let mut stderr = BufReader::new(bench.stderr.take().expect("piped stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("read stderr");
    assert!(line.contains("starting and validating"), "{line}");
    // hyper starts in a few ms and a round takes about 0.4 s: several
    // rounds are finished, and many are still to come (60 take ~25 s).
    std::thread::sleep(Duration::from_secs(4));
    crate::support::signal(&bench, "-TERM");
    let status = crate::support::wait_or_kill(&mut bench, Duration::from_secs(20))
        .expect("bench stops within 20 s of SIGTERM");
    assert_eq!(status.code(), Some(1), "{status:?}");
    let report = super::read_json(&dir.join("report.json"));
    let rows = report["rows"].as_array().expect("rows");
    let rounds = rows[0]["rounds"].as_array().expect("rounds").len();
    assert!((1..60).contains(&rounds), "{rounds} rounds reported");
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("SIGTERM"), "{warnings}");
}

/// An engine switch with a value it does not take (a typo) is a set-up
/// error, exit 2, before any row: it used to mean the default, silently.
#[test]
fn a_misspelt_engine_switch_exits_2_naming_the_values() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(["check", "--frameworks", "hyper", "--only", "hello"])
        .env("FWBENCH_SNAPSHOT", "bootsrap")
        .output()
        .expect("run fwbench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("FWBENCH_SNAPSHOT=\"bootsrap\""), "{stderr}");
    assert!(stderr.contains("expected on, off, bootstrap"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "no row ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}
