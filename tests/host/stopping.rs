//! SIGTERM stops `fwbench serve` within 3 s whatever JS is doing, and app
//! code that misbehaves while loading fails the load within its limit.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{fixture, fwbench_within, signal, wait_or_kill, Server};

const STOP_WITHIN: Duration = Duration::from_secs(3);

#[test]
fn sigterm_stops_serve_while_a_handler_runs_away() {
    let server = Server::start(&fixture("hostile/app.js"), &["--cpu-limit", "60s"]);
    let addr = server.addr.clone();
    std::thread::spawn(move || {
        let _ = std::net::TcpStream::connect(&addr).and_then(|mut s| {
            use std::io::{Read, Write};
            s.write_all(b"GET /spin HTTP/1.1\r\nhost: x\r\n\r\n")?;
            s.read(&mut [0u8; 1])
        });
    });
    // Let the handler start spinning.
    std::thread::sleep(Duration::from_millis(700));
    let took = server.terminate();
    assert!(took < STOP_WITHIN, "took {took:?}");
}

#[test]
fn sigterm_stops_serve_while_the_app_loops_at_load() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(["serve", "--port", "0", "--cpu-limit", "60s"])
        .arg(fixture("badapps/toploop/app.js"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn fwbench serve");
    std::thread::sleep(Duration::from_millis(700));
    let started = Instant::now();
    signal(&child, "-TERM");
    let status = wait_or_kill(&mut child, Duration::from_secs(10));
    assert!(status.is_some(), "serve ignored SIGTERM while loading");
    assert!(started.elapsed() < STOP_WITHIN, "took {:?}", started.elapsed());
}

/// Runs `fwbench serve APP EXTRA...`, which must fail on its own within
/// `limit`; returns its stderr.
fn serve_fails_within(app: &str, extra: &[&str], limit: Duration) -> String {
    let mut args = vec!["serve".to_owned(), "--port".into(), "0".into()];
    args.push(fixture(app).display().to_string());
    args.extend(extra.iter().map(|arg| arg.to_string()));
    let out = fwbench_within(&args, limit).unwrap_or_else(|| panic!("{app} still loading after {limit:?}"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{app} should not serve; stderr: {stderr}");
    stderr
}

#[test]
fn a_top_level_loop_is_interrupted_at_the_cpu_limit() {
    let err = serve_fails_within(
        "badapps/toploop/app.js",
        &["--cpu-limit", "500ms"],
        Duration::from_secs(8),
    );
    assert!(err.contains("badapps/toploop/app.js"), "{err}");
    assert!(err.contains("CPU time limit"), "{err}");
    assert!(err.contains("--cpu-limit"), "{err}");
}

#[test]
fn a_top_level_await_that_never_settles_fails_the_load() {
    let err = serve_fails_within("badapps/topnever/app.js", &[], Duration::from_secs(8));
    assert!(err.contains("badapps/topnever/app.js"), "{err}");
    assert!(err.contains("never resolved"), "{err}");
}

#[test]
fn a_top_level_await_kept_waiting_by_a_timer_fails_at_the_handler_timeout() {
    let err = serve_fails_within(
        "badapps/topidle/app.js",
        &["--handler-timeout", "1s"],
        Duration::from_secs(8),
    );
    assert!(err.contains("badapps/topidle/app.js"), "{err}");
    assert!(err.contains("--handler-timeout"), "{err}");
}

#[test]
fn idle_waiting_at_startup_does_not_count_against_the_cpu_limit() {
    let server = Server::start(&fixture("slowstart/app.js"), &["--cpu-limit", "500ms"]);
    let response = server.get("/");
    assert_eq!((response.status, response.text().as_str()), (200, "started"));
}

/// A row server on another machine stops when its controller goes quiet:
/// bench writes a line on its stdin every second, and a network partition
/// that keeps the SSH session open (and stdin with it) for minutes must not
/// keep the server up. Here stdin stays open and silent after two lines.
#[test]
fn a_server_whose_stdin_goes_silent_stops_after_the_heartbeat_timeout() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args([
            "serve",
            "--port",
            "0",
            "--stop-on-stdin-eof",
            "--stdin-heartbeat-timeout",
            "1500ms",
        ])
        .arg(fixture("hello/app.js"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fwbench serve");
    let mut stdin = child.stdin.take().expect("a pipe");
    // Heard from for two seconds: it keeps serving past the timeout.
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(500));
        stdin.write_all(b"\n").expect("serve reads its stdin");
    }
    assert!(
        child.try_wait().expect("wait").is_none(),
        "it stopped while heard from"
    );
    // Then silence, the pipe still open.
    let silent = Instant::now();
    let status = wait_or_kill(&mut child, Duration::from_secs(10));
    let took = silent.elapsed();
    drop(stdin);
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    assert!(
        took >= Duration::from_millis(1400) && took < Duration::from_secs(6),
        "stopped after {took:?}"
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("a pipe"), &mut stderr).expect("stderr");
    assert!(stderr.contains("stdin silent for"), "{stderr}");
}
