//! Handlers and clients that misbehave: the server answers and keeps going.

use std::time::Duration;

use crate::support::{fixture, Server};

fn faults(extra: &[&str]) -> Server {
    Server::start(&fixture("faults/app.js"), extra)
}

#[test]
fn a_throwing_handler_gets_500_and_one_log_line() {
    let server = faults(&[]);
    let response = server.get("/throw");
    assert_eq!(response.status, 500);
    assert_eq!(response.text(), "Internal Server Error\n");
    let log = server.wait_for_log("boom from /throw", Duration::from_secs(5));
    let lines: Vec<_> = log.lines().filter(|l| l.contains("boom from /throw")).collect();
    assert_eq!(lines.len(), 1, "{log}");
    assert!(lines[0].contains("GET /throw -> 500"), "{log}");
    assert!(
        lines[0].contains("app.js:"),
        "the line names where it was thrown: {log}"
    );
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn a_rejecting_handler_gets_500() {
    let server = faults(&[]);
    assert_eq!(server.get("/reject").status, 500);
    assert!(server
        .wait_for_log("rejected from /reject", Duration::from_secs(5))
        .contains("TypeError"));
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn a_handler_that_returns_no_response_gets_500_with_a_hint() {
    let server = faults(&[]);
    assert_eq!(server.get("/not-a-response").status, 500);
    assert!(server
        .wait_for_log("did not return a Response", Duration::from_secs(5))
        .contains("forget"));
}

#[test]
fn a_handler_that_never_settles_gets_504() {
    let server = faults(&["--handler-timeout", "300ms"]);
    let response = server.get("/never");
    assert_eq!(response.status, 504);
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn a_handler_that_answers_just_inside_the_timeout_is_not_cut_off() {
    // The timeout is a sweep in ticks of an eighth of it: a request that
    // arrives just before a tick must still get the whole limit.
    let server = faults(&["--handler-timeout", "1s"]);
    for _ in 0..3 {
        let response = server.get("/slow-but-in-time");
        assert_eq!(response.status, 200, "{}", server.stderr());
        assert_eq!(response.text(), "in time");
    }
}

#[test]
fn a_runaway_loop_is_interrupted_and_the_worker_recovers() {
    let server = faults(&["--cpu-limit", "200ms"]);
    let response = server.get("/loop");
    assert_eq!(response.status, 500);
    assert!(server
        .wait_for_log("CPU time limit", Duration::from_secs(5))
        .contains("/loop"));
    assert_eq!(server.get("/ok").status, 200);
    // A loop after an await runs from the event loop; the runtime is rebuilt.
    assert_eq!(server.get("/loop-after-await").status, 500);
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn a_runtime_over_its_heap_limit_is_rebuilt_and_answers_503() {
    let server = faults(&["--max-heap-mb", "32"]);
    let response = server.get("/heap");
    assert_eq!(response.status, 503, "{}", server.stderr());
    assert!(server.stderr().contains("heap limit"));
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn oversized_bodies_get_413() {
    let server = faults(&["--max-body-bytes", "1000"]);
    let body = vec![b'x'; 5000];
    let response = server.request("POST", "/ok", &[], Some(&body));
    assert_eq!(response.status, 413);
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn oversized_chunked_bodies_get_413() {
    let server = Server::start(&fixture("echo/app.js"), &["--max-body-bytes", "1000"]);
    let chunk = "x".repeat(800);
    let raw = format!(
        "POST /echo HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n\
         320\r\n{chunk}\r\n320\r\n{chunk}\r\n0\r\n\r\n"
    );
    let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
    assert!(out.starts_with("HTTP/1.1 413"), "{out}");
}

#[test]
fn oversized_headers_get_431_or_a_closed_connection() {
    let server = faults(&["--max-header-bytes", "8192"]);
    let raw = format!(
        "GET /ok HTTP/1.1\r\nhost: x\r\nx-big: {}\r\n\r\n",
        "y".repeat(20_000)
    );
    let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
    assert!(out.is_empty() || out.starts_with("HTTP/1.1 431"), "{out}");
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn malformed_requests_get_400_or_a_closed_connection() {
    let server = faults(&[]);
    for raw in [
        "NOT HTTP AT ALL\r\n\r\n",
        "GET / HTTP/1.1\r\nbad header line\r\n\r\n",
        "GET / HTTP/9.9\r\n\r\n",
    ] {
        let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
        assert!(
            out.is_empty() || out.starts_with("HTTP/1.1 4"),
            "{raw:?} -> {out}"
        );
    }
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn clients_that_send_headers_too_slowly_are_cut_off() {
    let server = faults(&["--header-read-timeout", "300ms"]);
    let started = std::time::Instant::now();
    // Half a request head, then silence.
    let out = server.raw(b"GET /ok HTTP/1.1\r\nhost: x\r\n", Duration::from_secs(10));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the connection stayed open"
    );
    assert!(out.is_empty() || out.starts_with("HTTP/1.1 408"), "{out}");
    assert_eq!(server.get("/ok").status, 200);
}
