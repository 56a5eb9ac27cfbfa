//! What goes on the wire: an app cannot desynchronize a keep-alive
//! connection, a client cannot pick the path through `Host`, and the
//! request-head limits answer with their status.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::{fixture, Connection, Server};

fn hostile(extra: &[&str]) -> Server {
    Server::start(&fixture("hostile/app.js"), extra)
}

/// Two requests on one keep-alive connection: the first answer, then the
/// second (which must be `/ok`'s).
fn two_on_one_connection(server: &Server, first: &str) -> (u16, u16, String) {
    let mut conn = Connection::open(&server.addr);
    conn.send("GET", first, &[], None);
    let one = conn.read_response().expect("first response");
    conn.send("GET", "/ok", &[], None);
    let two = conn.read_response().expect("second response");
    (one.status, two.status, two.text())
}

#[test]
fn an_app_set_content_length_cannot_smuggle_a_response() {
    let server = hostile(&[]);
    let (first, second, body) = two_on_one_connection(&server, "/smuggle");
    assert_eq!(first, 500, "{}", server.stderr());
    assert_eq!((second, body.as_str()), (200, "ok"));
    let log = server.wait_for_log("content-length", Duration::from_secs(5));
    assert!(log.contains("GET /smuggle -> 500"), "{log}");
}

#[test]
fn an_app_set_content_length_longer_than_the_body_is_refused() {
    let server = hostile(&[]);
    let (first, second, body) = two_on_one_connection(&server, "/length-too-long");
    assert_eq!(first, 500, "{}", server.stderr());
    assert_eq!((second, body.as_str()), (200, "ok"));
}

#[test]
fn a_content_length_that_is_not_a_number_is_refused() {
    let server = hostile(&[]);
    let (first, second, _) = two_on_one_connection(&server, "/length-not-a-number");
    assert_eq!(first, 500, "{}", server.stderr());
    assert_eq!(second, 200);
}

#[test]
fn a_header_value_with_a_nul_is_refused_not_split_into_another_header() {
    let server = hostile(&[]);
    let (first, second, _) = two_on_one_connection(&server, "/header-with-nul");
    assert_eq!(first, 500, "{}", server.stderr());
    assert_eq!(second, 200);
    let log = server.wait_for_log("NUL", Duration::from_secs(5));
    assert!(log.contains("GET /header-with-nul -> 500"), "{log}");
}

/// hyper refuses to write a head with both, and used to close the
/// connection without an answer or a log line.
#[test]
fn a_response_with_both_transfer_encoding_and_content_length_gets_a_500() {
    let server = hostile(&[]);
    for path in ["/length-and-chunked", "/stream-length-and-chunked"] {
        let (first, second, body) = two_on_one_connection(&server, path);
        assert_eq!(first, 500, "{path}: {}", server.stderr());
        assert_eq!((second, body.as_str()), (200, "ok"));
        let log = server.wait_for_log(&format!("GET {path} -> 500"), Duration::from_secs(5));
        assert!(
            log.contains(&format!("GET {path} -> 500: TypeError: the response sets both")),
            "{log}"
        );
    }
}

/// A streamed body whose head declared another length: its head is out,
/// so the connection is cut (never a complete response), with a log line.
#[test]
fn a_stream_that_does_not_match_its_content_length_is_cut_with_a_log_line() {
    let server = hostile(&[]);
    for (path, why) in [
        (
            "/stream-shorter-than-its-length",
            "ended after 20 of the 100 bytes",
        ),
        ("/stream-longer-than-its-length", "went past the 100 bytes"),
    ] {
        let raw = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
        // No `Connection: close`: the server must end the connection itself.
        let out = server.raw(raw.as_bytes(), Duration::from_secs(10));
        let complete = out.starts_with("HTTP/1.1 200")
            && out
                .split_once("\r\n\r\n")
                .is_some_and(|(_, body)| body.len() == 100);
        assert!(!complete, "{path} ended like a complete response: {out:?}");
        let log = server.wait_for_log(&format!("GET {path} -> connection cut"), Duration::from_secs(5));
        assert!(
            log.contains(&format!(
                "GET {path} -> connection cut: the response stream {why}"
            )),
            "{log}"
        );
    }
    assert_eq!(server.get("/ok").text(), "ok");
}

#[test]
fn a_correct_app_set_content_length_is_kept() {
    let server = hostile(&[]);
    let response = server.get("/length-right");
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-length"), Some("3"));
    assert_eq!(response.text(), "abc");
}

#[test]
fn the_host_header_cannot_change_the_path_the_app_sees() {
    let server = hostile(&[]);
    for host in ["a/admin?", "a#", "a b", "user@a"] {
        let raw = format!("GET /url HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
        assert!(out.starts_with("HTTP/1.1 400"), "Host: {host} -> {out}");
    }
    let raw = "GET /url?q=1 HTTP/1.1\r\nHost: example.test:8080\r\nConnection: close\r\n\r\n";
    let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.ends_with("http://example.test:8080/url?q=1"), "{out}");
    assert_eq!(server.get("/ok").status, 200);
}

/// A `Host` of plain bytes that the app's URL parser still refuses was
/// answered 500, with a log line per request any client could send.
#[test]
fn a_host_the_url_parser_refuses_gets_a_400_and_no_log_line() {
    let server = hostile(&[]);
    for host in ["a:99999", "a:65536", "[zz]", "1.2.3.4.5", "999.999.999.999"] {
        let header = format!("GET /url HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let absolute = format!("GET http://{host}/url HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        for raw in [header, absolute] {
            let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
            assert!(out.starts_with("HTTP/1.1 400"), "{raw:?} -> {out}");
        }
    }
    let raw = "GET http://a.test:65535/url HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
    assert!(out.ends_with("http://a.test:65535/url"), "{out}");
    assert_eq!(server.get("/ok").status, 200);
    assert_eq!(
        server.stderr(),
        "",
        "a client's bad Host is not the server's error"
    );
}

/// Raw bytes past 0x7F in the target reached the app read as Latin-1
/// (`é` sent as UTF-8 came out as `Ã©`); they get a 400, as in Node, for
/// fetch-style and node-style apps alike.
#[test]
fn raw_non_ascii_bytes_in_the_target_get_a_400() {
    for server in [hostile(&[]), Server::start(&fixture("nodelisten/app.js"), &[])] {
        let out = server.raw(
            b"GET /url?q=\xc3\xa9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            Duration::from_secs(5),
        );
        assert!(out.starts_with("HTTP/1.1 400"), "{out}");
        assert!(out.ends_with("not ASCII: percent-encode them\n"), "{out}");
        // Percent-encoded, the same character passes.
        let out = server.raw(
            b"GET /url?q=%C3%A9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            Duration::from_secs(5),
        );
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        assert!(out.ends_with("/url?q=%C3%A9"), "{out}");
        assert_eq!(server.stderr(), "");
    }
}

/// hyper's parser takes a bare LF for a line end, so the
/// `Transfer-Encoding` after one was honoured and this request answered
/// 200 with an empty body (the smuggling pattern of CVE-2022-32214); Node
/// answers 400. So do the native rows, which share the connection code.
#[test]
fn a_bare_lf_in_a_request_head_gets_a_400() {
    let smuggling: &[u8] = b"POST /url HTTP/1.1\r\nHost: x\r\nX-A: a\nTransfer-Encoding: chunked\r\n\
        Content-Length: 5\r\n\r\n0\r\n\r\n";
    let args: Vec<&OsStr> = ["--framework", "hyper", "--scenario", "hello"]
        .iter()
        .map(OsStr::new)
        .collect();
    for server in [hostile(&[]), Server::start_with(&args)] {
        let out = server.raw(smuggling, Duration::from_secs(5));
        assert!(out.starts_with("HTTP/1.1 400"), "{out}");
        for head in [
            "GET /url HTTP/1.1\nHost: x\r\n\r\n",
            "\nGET /url HTTP/1.1\r\nHost: x\r\n\r\n",
        ] {
            let out = server.raw(head.as_bytes(), Duration::from_secs(5));
            assert!(out.starts_with("HTTP/1.1 400"), "{head:?} -> {out}");
        }
        assert_eq!(server.stderr(), "");
    }
}

/// Only heads are held to CRLF: a body's bare LFs pass, and the head
/// after a body, or pipelined behind another, is checked as the first.
#[test]
fn bare_lfs_in_bodies_pass_and_every_pipelined_head_is_checked() {
    let server = hostile(&[]);
    let pipelined = "POST /url HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\na\nb\
        POST /url HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\na\nb\r\n0\r\n\r\n\
        GET /url HTTP/1.1\r\nHost: x\r\n\r\n\
        GET /url HTTP/1.1\r\nHost: x\nX: 1\r\n\r\n";
    let out = server.raw(pipelined.as_bytes(), Duration::from_secs(5));
    let statuses: Vec<&str> = out
        .match_indices("HTTP/1.1 ")
        .map(|(at, _)| &out[at + 9..at + 12])
        .collect();
    assert_eq!(statuses, ["200", "200", "200", "400"], "{out}");
}

#[test]
fn slow_headers_get_a_408_before_the_close() {
    expect_408_for_slow_headers(&hostile(&["--header-read-timeout", "500ms"]), "/ok");
}

/// Native rows share the JS adapter's connection code: a slow client gets
/// the same answer from them.
#[test]
fn a_native_row_answers_slow_headers_with_the_same_408() {
    let args = [
        "--framework",
        "hyper",
        "--scenario",
        "hello",
        "--header-read-timeout",
        "500ms",
    ];
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    expect_408_for_slow_headers(&Server::start_with(&args), "/");
}

/// A request head cut off mid-header gets a 408 and a close within the
/// timeout; then the server still answers `ok_path` normally.
fn expect_408_for_slow_headers(server: &Server, ok_path: &str) {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream
        .write_all(b"GET /ok HTTP/1.1\r\nHost: x\r\nx-part")
        .unwrap();
    let started = Instant::now();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    let out = String::from_utf8_lossy(&out);
    assert!(out.starts_with("HTTP/1.1 408"), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(server.get(ok_path).status, 200);
}

#[test]
fn the_header_count_limit_is_the_documented_option() {
    let server = hostile(&["--max-headers", "300"]);
    let headers: Vec<(String, String)> = (0..200).map(|i| (format!("x-{i}"), "v".into())).collect();
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(server.request("GET", "/ok", &headers, None).status, 200);

    let server = hostile(&[]);
    let raw: String = (0..150).map(|i| format!("x-{i}: v\r\n")).collect();
    let raw = format!("GET /ok HTTP/1.1\r\nHost: x\r\n{raw}Connection: close\r\n\r\n");
    let out = server.raw(raw.as_bytes(), Duration::from_secs(5));
    assert!(out.starts_with("HTTP/1.1 431"), "the default is 100: {out}");
}

/// hyper closes a connection whose request body the app left unread
/// (`connection: close`), and a close with unread bytes in the socket is
/// a reset, which drops what the kernel has not sent yet: the end of a
/// large answer to a client that reads slowly (here on a reused
/// connection; a new one's was not cut). Found by the property test
/// (tests/host/property/).
#[test]
fn a_large_answer_before_an_unread_body_survives_the_close() {
    let server = Server::start(&fixture("prop/app.js"), &[]);
    let answer = r#"{"via":"response","status":200,"headers":[],"body":"string","text":"x","times":1048576}"#;
    let mut body = String::new();
    for _ in 0..8 {
        body.push_str(&format!("400\r\n{}\r\n", "b".repeat(1024)));
    }
    let request = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nx-prop-answer: {answer}\r\nTransfer-Encoding: chunked\r\n\r\n{body}0\r\n\r\n"
    );
    for _ in 0..3 {
        let mut conn = Connection::open(&server.addr);
        conn.send("GET", "/", &[], None);
        assert_eq!(conn.read_response().map(|r| r.status), Ok(200));
        let stream = conn.stream();
        stream.write_all(request.as_bytes()).unwrap();
        // The client reads only after the server is done with the
        // connection.
        std::thread::sleep(Duration::from_millis(300));
        let mut out = Vec::new();
        let read = stream.read_to_end(&mut out);
        let out = String::from_utf8_lossy(&out);
        let body = out.split_once("\r\n\r\n").map_or(0, |(_, body)| body.len());
        assert!(
            read.is_ok() && out.starts_with("HTTP/1.1 200") && body == 1 << 20,
            "{read:?}: {} bytes of the body",
            body
        );
    }
}

/// A body sent as many tiny chunks reaches JS joined: chunks already read
/// from the connection are handed over as one (up to 64 KiB). A 1 MiB body
/// in 1-byte chunks was a million buffers in JS, 400 MB more RSS where
/// Node grew by 11.
#[test]
fn a_body_of_tiny_chunks_reaches_js_joined_and_whole() {
    let server = Server::start(&fixture("chunks/app.js"), &[]);
    let mut raw =
        b"POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n".to_vec();
    for _ in 0..20_000 {
        raw.extend_from_slice(b"1\r\nx\r\n");
    }
    raw.extend_from_slice(b"0\r\n\r\n");
    let answer = server.raw(&raw, Duration::from_secs(10));
    let body = answer.rsplit("\r\n\r\n").next().unwrap_or_default();
    let (chunks, rest) = body.split_once(" chunks, ").unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(rest, "20000 bytes", "{answer}");
    let chunks: u32 = chunks.parse().unwrap_or_else(|_| panic!("{answer}"));
    assert!(chunks <= 100, "20,000 one-byte chunks reached JS as {chunks}");
}
