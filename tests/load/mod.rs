//! Integration tests of `fwbench load` against in-process servers on
//! loopback (see `support::servers`). Each test builds a plan in code, or flags
//! through clap, and calls the generator in-process, as oha's tests do.

use std::time::Duration;

use clap::Parser;
use fwbench::load::{self, ExpectHeader, LoadError, LoadPlan, LoadReport, Verdict};

use crate::support::servers::{ok, out_of_turn, raw, scripted, Action};

mod segments;

fn plan(url: &str) -> LoadPlan {
    let mut p = LoadPlan::new(url).expect("valid plan");
    p.connections = 4;
    p.threads = 2;
    p.timeout = Duration::from_secs(5);
    p
}

fn count_plan(url: &str, n: u64) -> LoadPlan {
    let mut p = plan(url);
    p.duration = None;
    p.requests = Some(n);
    p
}

fn errors(r: &LoadReport, kind: &str) -> u64 {
    r.errors[kind]
}

#[test]
fn exact_request_count_with_n() {
    let server = scripted(|_| ok());
    let r = load::execute(&count_plan(&server.url(), 1000)).unwrap();
    assert_eq!(r.responses, 1000);
    assert_eq!(r.successes, 1000);
    assert_eq!(r.status.get(&200), Some(&1000));
    assert_eq!(r.errors_total, 0);
    assert_eq!(server.requests(), 1000);
    assert_eq!(r.latency.count, 1000);
    assert_eq!(r.verdict(), Verdict::Clean);
}

#[test]
fn exact_request_count_with_pipelining() {
    let server = scripted(|_| ok());
    let mut p = count_plan(&server.url(), 1001);
    p.pipeline = 8;
    let r = load::execute(&p).unwrap();
    assert_eq!(r.responses, 1001);
    assert_eq!(server.requests(), 1001);
    assert_eq!(r.verdict(), Verdict::Clean);
}

#[test]
fn a_json_hello_validates_clean() {
    let server = crate::support::servers::hello();
    let mut p = count_plan(&server.url(), 200);
    p.expect.status = Some(200);
    p.expect.headers.push(ExpectHeader {
        name: "content-type".into(),
        value: Some("application/json".into()),
    });
    p.expect.body = Some(br#"{"message":"hello"}"#.to_vec());
    let r = load::execute(&p).unwrap();
    assert_eq!(r.successes, 200, "{:?}", r.mismatch_example);
    assert_eq!(r.mismatches_total, 0);
}

#[test]
fn every_tenth_500_is_counted_and_never_a_success() {
    let server = scripted(|i| {
        if i % 10 == 9 {
            Action::Respond(500, "oops", vec![])
        } else {
            ok()
        }
    });
    let r = load::execute(&count_plan(&server.url(), 1000)).unwrap();
    assert_eq!(r.responses, 1000);
    assert_eq!(r.status.get(&200), Some(&900));
    assert_eq!(r.status.get(&500), Some(&100));
    assert_eq!(r.successes, 900);
    assert_eq!(r.mismatches["status"], 100);
    assert_eq!(r.errors_total, 0);
    assert!(r.successes_per_sec < r.requests_per_sec);
    assert!(r.flagged);
    assert_eq!(r.verdict(), Verdict::Flagged);
    assert_eq!(r.mismatch_example.as_deref(), Some("status 500, expected a 2xx"));
}

#[test]
fn an_expected_non_2xx_validates_but_is_no_success() {
    let server = scripted(|_| Action::Respond(404, "nope", vec![]));
    let mut p = count_plan(&server.url(), 100);
    p.expect.status = Some(404);
    let r = load::execute(&p).unwrap();
    assert_eq!(r.responses, 100);
    assert_eq!(r.mismatches_total, 0);
    assert_eq!(r.successes, 0);
    assert_eq!(r.successes_per_sec, 0.0);
    assert_eq!(r.verdict(), Verdict::Clean);
}

#[test]
fn dropped_connections_are_read_errors_and_the_run_goes_on() {
    let server = scripted(|i| if i % 5 == 4 { Action::Drop } else { ok() });
    let r = load::execute(&count_plan(&server.url(), 1000)).unwrap();
    // Every request got a ticket: answered or failed, exactly n in all.
    assert_eq!(r.responses + r.errors_total, 1000);
    assert_eq!(server.requests(), 1000);
    assert_eq!(errors(&r, "read"), 200);
    assert_eq!(r.responses, 800);
    assert!(r.error_examples["read"].contains("closed the connection"));
    // Each drop cost a reconnection.
    assert!(r.concurrency.connections_opened >= 200);
    assert_eq!(r.verdict(), Verdict::Flagged);
}

#[test]
fn validation_mismatches_by_kind_with_an_example() {
    let server = scripted(|i| {
        let body = if i % 4 == 0 { "hellx" } else { "hello" };
        let headers = if i % 10 == 1 { vec![] } else { vec![("x-id", "7")] };
        Action::Respond(200, body, headers)
    });
    let mut p = count_plan(&server.url(), 1000);
    p.expect.headers.push(ExpectHeader {
        name: "X-Id".into(),
        value: Some("7".into()),
    });
    p.expect.body = Some(b"hello".to_vec());
    let r = load::execute(&p).unwrap();
    assert_eq!(r.responses, 1000);
    assert_eq!(r.mismatches["body"], 250);
    assert_eq!(r.mismatches["header"], 100);
    assert_eq!(r.mismatches["status"], 0);
    assert_eq!(r.successes, 650);
    let example = r.mismatch_example.clone().unwrap();
    assert!(
        example.contains("hellx") || example.contains("'x-id' missing"),
        "{example}"
    );
    assert_eq!(r.verdict(), Verdict::Flagged);
}

/// A server that stalls once for 500 ms, about a second into the run.
fn stall_once() -> crate::support::servers::Server {
    scripted(|i| {
        if i == 150 {
            Action::Stall(Duration::from_millis(500))
        } else {
            ok()
        }
    })
}

#[test]
fn open_loop_latency_shows_a_stall() {
    let server = stall_once();
    let mut p = plan(&server.url());
    p.connections = 2;
    p.threads = 1;
    p.rate = Some(200.0);
    p.duration = Some(Duration::from_millis(2500));
    let r = load::execute(&p).unwrap();
    assert!(r.responses >= 400, "{} responses", r.responses);
    // ~50 requests queued behind the stalled one on its connection, with
    // latencies from 500 ms down: well over 1% of the run.
    assert!(
        r.latency.percentiles.p99 >= 250_000,
        "corrected p99 {} us",
        r.latency.percentiles.p99
    );
    assert!(r.latency.percentiles.max >= 490_000);
    let service = r.service_time.unwrap();
    assert!(
        service.percentiles.max >= 490_000,
        "uncorrected max {} us",
        service.percentiles.max
    );
    assert!(service.percentiles.p99 < r.latency.percentiles.p99);
    let late = r.late.unwrap();
    assert!(late.count >= 20, "{} late", late.count);
    assert!(late.max_us >= 400_000);
    assert!(r.warnings.iter().any(|w| w.contains("late")), "{:?}", r.warnings);
}

#[test]
fn closed_loop_does_not_hide_a_stall() {
    let server = stall_once();
    let mut p = plan(&server.url());
    p.connections = 2;
    p.threads = 1;
    p.duration = Some(Duration::from_millis(1500));
    let r = load::execute(&p).unwrap();
    assert!(r.responses > 150);
    assert!(
        r.latency.percentiles.max >= 490_000,
        "closed-loop max {} us",
        r.latency.percentiles.max
    );
}

#[test]
fn refused_connection_is_one_clear_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let err = load::execute(&plan(&format!("http://127.0.0.1:{port}/"))).unwrap_err();
    assert!(matches!(err, LoadError::Connect { .. }));
    assert!(err.to_string().contains("is the server running"), "{err}");
}

#[test]
fn only_loopback_and_only_http() {
    let err = LoadPlan::new("http://10.1.2.3:80/").unwrap_err().to_string();
    assert!(err.contains("loopback"), "{err}");
    let err = LoadPlan::new("https://127.0.0.1/").unwrap_err().to_string();
    assert!(err.contains("https is not supported"), "{err}");
    let err = LoadPlan::new("not a url").unwrap_err().to_string();
    assert!(err.contains("invalid URL"), "{err}");
}

#[test]
fn garbage_answers_measure_nothing() {
    let server = raw(b"garbage\r\n\r\n", false);
    let r = load::execute(&count_plan(&server.url(), 20)).unwrap();
    assert_eq!(r.responses, 0);
    assert_eq!(errors(&r, "malformed"), 20);
    assert!(r.error_examples["malformed"].contains("invalid response head"));
    assert_eq!(r.verdict(), Verdict::NothingMeasured);
    assert!(r.warnings.iter().any(|w| w.contains("no response")));
}

#[test]
fn chunked_and_close_delimited_bodies() {
    let server = raw(
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n",
        false,
    );
    let mut p = count_plan(&server.url(), 300);
    p.expect.body = Some(b"hello, world".to_vec());
    let r = load::execute(&p).unwrap();
    assert_eq!(r.successes, 300, "{:?}", r.mismatch_example);
    assert_eq!(r.concurrency.connections_opened, 4);

    let server = raw(b"HTTP/1.1 200 OK\r\n\r\nhello, world", true);
    let mut p = count_plan(&server.url(), 50);
    p.expect.body = Some(b"hello, world".to_vec());
    let r = load::execute(&p).unwrap();
    assert_eq!(r.successes, 50, "{:?} {:?}", r.mismatch_example, r.error_examples);
    assert!(r.concurrency.connections_opened >= 50);
}

#[test]
fn server_going_away_mid_run_keeps_partial_figures() {
    let mut server = crate::support::servers::hello();
    let url = server.url();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        server.stop();
    });
    let mut p = plan(&url);
    p.duration = Some(Duration::from_secs(5));
    let r = load::execute(&p).unwrap();
    stopper.join().unwrap();
    assert!(r.responses > 0);
    assert!(errors(&r, "connect") > 0, "{:?}", r.errors);
    assert_eq!(r.concurrency.connections_gave_up, 4);
    // The connections gave up: the run ended well before its 5 s.
    assert!(r.measured_s < 4.0, "{}", r.measured_s);
    assert_eq!(r.verdict(), Verdict::Flagged);
}

#[test]
fn warmup_is_excluded() {
    let server = scripted(|_| ok());
    let mut p = plan(&server.url());
    p.connections = 2;
    p.duration = Some(Duration::from_millis(500));
    p.warmup = Duration::from_millis(300);
    let r = load::execute(&p).unwrap();
    assert!(r.warmup_excluded > 0);
    assert!(r.measured_s > 0.45 && r.measured_s < 0.6, "{}", r.measured_s);
    assert!(server.requests() >= r.responses + r.warmup_excluded);
}

/// `fwbench load` as the CLI runs it, flags parsed by clap.
#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: load::LoadArgs,
}

fn cli(args: &[&str]) -> load::LoadArgs {
    let mut argv = vec!["fwbench-load"];
    argv.extend_from_slice(args);
    Cli::try_parse_from(argv).expect("flags parse").args
}

#[test]
fn human_summary_like_wrk() {
    let server = scripted(|_| ok());
    let url = server.url();
    let mut out = Vec::new();
    let o = load::run(
        cli(&[&url, "-n", "300", "-c", "3", "-t", "1", "--expect-body", "hello"]),
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(o.verdict, Verdict::Clean);
    for needle in [
        "Running 300-request test @",
        "closed loop, 1 thread, 3 connections",
        "Latency",
        "p99.99",
        "300 responses in",
        "Requests/sec:",
        "Successes/sec:",
        "Status:        200: 300",
        "Errors:        none",
        "Validation:    passed (300 responses checked)",
        "Client:        thread CPU",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

/// `--json=FILE` writes the JSON report to a file, as `bench --json FILE`
/// does, and leaves the human summary on stdout; `--json` alone prints
/// JSON instead of the summary.
#[test]
fn json_with_a_file_writes_it_beside_the_summary() {
    let server = scripted(|_| ok());
    let url = server.url();
    let dir = std::env::temp_dir().join(format!("fwbench-load-json-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("load.json");
    let mut out = Vec::new();
    let flag = format!("--json={}", file.display());
    load::run(cli(&[&url, "-n", "50", "-c", "1", &flag]), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("Validation:"),
        "the summary stays on stdout:\n{text}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("the file is written")).expect("valid JSON");
    assert_eq!(json["responses"], 50, "{json:#}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn json_has_every_figure_and_hdr_file_is_written() {
    let server = scripted(|_| ok());
    let url = server.url();
    let dir = std::env::temp_dir().join(format!("fwbench-load-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let hdr = dir.join("latency.hgrm");
    let mut out = Vec::new();
    load::run(
        cli(&[
            &url,
            "-n",
            "200",
            "-c",
            "2",
            "--json",
            "--hdr-out",
            hdr.to_str().unwrap(),
        ]),
        &mut out,
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
    for key in [
        "url",
        "mode",
        "connections",
        "threads",
        "pipeline",
        "rate",
        "duration_s",
        "requests_planned",
        "warmup_s",
        "timeout_s",
        "measured_s",
        "responses",
        "successes",
        "errors_total",
        "requests_per_sec",
        "successes_per_sec",
        "bytes_read",
        "bytes_per_sec",
        "latency",
        "service_time",
        "status",
        "errors",
        "error_examples",
        "mismatches",
        "mismatches_total",
        "mismatch_example",
        "late",
        "client",
        "concurrency",
        "warmup_excluded",
        "warnings",
        "flagged",
    ] {
        assert!(json.get(key).is_some(), "JSON lacks {key}");
    }
    for key in ["process_cpu_per_wall", "cpu_us_per_request", "threads"] {
        assert!(json["client"].get(key).is_some(), "JSON client lacks {key}");
    }
    assert!(json["client"]["cpu_us_per_request"]
        .as_f64()
        .is_some_and(|us| us > 0.0));
    for key in ["requested", "achieved"] {
        assert!(
            json["concurrency"].get(key).is_some(),
            "JSON concurrency lacks {key}"
        );
    }
    for key in [
        "count",
        "mean_us",
        "stdev_us",
        "p50_us",
        "p90_us",
        "p99_us",
        "p99_9_us",
        "p99_99_us",
        "max_us",
    ] {
        assert!(json["latency"].get(key).is_some(), "latency lacks {key}");
    }
    assert_eq!(json["responses"], 200);
    assert_eq!(json["status"]["200"], 200);
    assert_eq!(json["errors"]["timeout"], 0);
    let text = std::fs::read_to_string(&hdr).unwrap();
    assert!(text.starts_with("       Value     Percentile TotalCount 1/(1-Percentile)\n\n"));
    assert!(text.contains("#[Max     ="));
    assert!(text.contains("Total count    =          200]"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_flags_name_the_expected_syntax() {
    let err = match Cli::try_parse_from(["x", "http://127.0.0.1:1/", "-d", "10x"]) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted -d 10x"),
    };
    assert!(err.contains("500ms, 10s"), "{err}");
    let err = match Cli::try_parse_from(["x", "http://127.0.0.1:1/", "-H", "nocolon"]) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted -H nocolon"),
    };
    assert!(err.contains("'name: value'"), "{err}");
    let mut out = Vec::new();
    let err = load::run(
        cli(&["http://127.0.0.1:1/", "--rate", "10", "--pipeline", "2"]),
        &mut out,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("closed loop only"), "{err}");
}

#[test]
fn slow_answers_are_timeouts() {
    let server = scripted(|i| {
        if i == 0 {
            Action::Stall(Duration::from_secs(2))
        } else {
            ok()
        }
    });
    let mut p = count_plan(&server.url(), 10);
    p.connections = 1;
    p.threads = 1;
    p.timeout = Duration::from_millis(200);
    let r = load::execute(&p).unwrap();
    assert_eq!(errors(&r, "timeout"), 1);
    assert_eq!(r.responses, 9);
    assert!(r.error_examples["timeout"].contains("200ms"));
    // The timed-out connection was replaced.
    assert_eq!(r.concurrency.connections_opened, 2);
}

#[test]
fn answers_slower_than_half_the_timeout_never_time_out() {
    // Each answer takes 60% of the timeout, so a connection's timer, armed
    // once and moved only when it fires, fires during the second request:
    // it must then wait for that request's own deadline, not fail it.
    let server = scripted(|_| Action::Stall(Duration::from_millis(150)));
    let mut p = count_plan(&server.url(), 5);
    p.connections = 1;
    p.threads = 1;
    p.timeout = Duration::from_millis(250);
    let r = load::execute(&p).unwrap();
    assert_eq!(errors(&r, "timeout"), 0, "{:?}", r.error_examples);
    assert_eq!(r.responses, 5);
}

#[test]
fn a_stall_after_many_quick_answers_times_out_on_time() {
    // The stalled request comes long after the timer was first armed; its
    // timeout must still count from its own send, and not drag on to the
    // stall's end.
    let server = scripted(|i| {
        if i == 300 {
            Action::Stall(Duration::from_secs(3))
        } else {
            ok()
        }
    });
    let mut p = count_plan(&server.url(), 302);
    p.connections = 1;
    p.threads = 1;
    p.timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let r = load::execute(&p).unwrap();
    assert_eq!(errors(&r, "timeout"), 1, "{:?}", r.error_examples);
    assert_eq!(r.responses, 301);
    // Generous: the stall would end at 3 s.
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "{:?}",
        started.elapsed()
    );
}

const HELLO: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello";

/// A server that writes two responses per request made the second one the
/// "answer" to the next request: ~9x the honest req/s, p50 0 µs, validation
/// passed. Bytes that arrive while no request is outstanding are an error
/// of their own kind, and the run is flagged.
#[test]
fn a_server_that_answers_twice_is_flagged() {
    let server = out_of_turn(b"", &[HELLO, HELLO]);
    let mut p = count_plan(&server.url(), 200);
    p.connections = 2;
    p.expect.body = Some(b"hello".to_vec());
    let r = load::execute(&p).unwrap();
    assert!(
        errors(&r, "unsolicited") > 0,
        "{:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert!(
        r.error_examples["unsolicited"].contains("while no request was outstanding"),
        "{:?}",
        r.error_examples
    );
    assert_eq!(r.verdict(), Verdict::Flagged);
    // An extra answer that arrives just after the next request went out
    // looks like its answer (to hyper's client too): HTTP/1.1 tells them
    // apart by timing only. Usually the real answer then ends the
    // connection as unsolicited, but on a busy machine each duplicate can
    // land just after the check, a few exchanges in a row (157 answers to
    // 103 requests with 44 unsolicited, once). What always holds: every
    // answer counted is one the server sent, two per request it received.
    assert!(
        r.responses <= 2 * server.requests(),
        "{} answers counted, {} requests received",
        r.responses,
        server.requests()
    );
}

/// A pipelined run counts answers against the requests written: the surplus
/// after a batch's answers is unsolicited, so a server that answers twice
/// is caught with pipelining too.
#[test]
fn pipelined_answers_are_counted_against_requests_written() {
    let server = out_of_turn(b"", &[HELLO, HELLO]);
    let mut p = count_plan(&server.url(), 400);
    p.connections = 2;
    p.pipeline = 4;
    let r = load::execute(&p).unwrap();
    assert!(
        errors(&r, "unsolicited") > 0,
        "{:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(r.verdict(), Verdict::Flagged);
}

/// A response sent before any request is no request's answer. In open loop
/// the connection is idle before each request, so the greeting (or, when it
/// lands after the first request was written, the real answer it leaves one
/// behind) arrives while nothing is outstanding and is caught before the
/// next request goes out. (In closed loop a greeting that lands after the
/// first request is written is, to any client, that request's answer; only
/// the surplus it leaves can be caught.)
#[test]
fn a_response_before_any_request_is_flagged() {
    let server = out_of_turn(HELLO, &[HELLO]);
    let mut p = count_plan(&server.url(), 8);
    p.connections = 1;
    p.threads = 1;
    p.rate = Some(40.0);
    let r = load::execute(&p).unwrap();
    assert!(
        errors(&r, "unsolicited") > 0,
        "{:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert!(r.flagged);
    // No greeting was taken as an answer, so nothing (or at most a
    // request's own answer) was measured: never a clean run.
    assert_ne!(r.verdict(), Verdict::Clean);
    assert!(
        r.responses <= server.requests(),
        "{} > {}",
        r.responses,
        server.requests()
    );
}

/// The CLI's view of a server that answers twice: the run is flagged (exit
/// status 1) and the summary names the kind.
#[test]
fn unsolicited_answers_flag_the_cli_run() {
    let server = out_of_turn(b"", &[HELLO, HELLO]);
    let url = server.url();
    let mut out = Vec::new();
    let o = load::run(cli(&[&url, "-n", "100", "-c", "1", "-t", "1"]), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(o.verdict, Verdict::Flagged, "{text}");
    assert!(text.contains("unsolicited"), "{text}");
}

/// `--body-file` was read with no size cap (so `/dev/zero` was read without
/// end): past the cap the plan is refused before anything starts, naming
/// the file and the cap.
#[test]
fn a_body_file_past_the_size_cap_is_refused() {
    let dir = std::env::temp_dir().join(format!("fwbench-body-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("body.bin");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(load::MAX_BODY_BYTES as u64 + 1).unwrap();
    drop(file);
    let path = big.to_str().unwrap();
    let mut out = Vec::new();
    let err = load::run(cli(&["http://127.0.0.1:1/", "--body-file", path]), &mut out).unwrap_err();
    let text = format!("{err:#}");
    assert!(text.contains("body.bin") && text.contains("16 MiB"), "{text}");
    let err = load::run(
        cli(&["http://127.0.0.1:1/", "--body-file", "/dev/zero"]),
        &mut out,
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("16 MiB"), "{err:#}");
    // A plan built in code gets the same check.
    let mut p = plan("http://127.0.0.1:1/");
    p.request.body = vec![b'x'; load::MAX_BODY_BYTES + 1];
    assert!(p.validate().unwrap_err().to_string().contains("16 MiB"));
    let _ = std::fs::remove_dir_all(&dir);
}
