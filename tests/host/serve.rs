//! The request and response shapes that cross the adapter.

use crate::support::{fixture, Connection, Server};

#[test]
fn serves_the_bare_hello_app() {
    let server = Server::start(&fixture("hello/app.js"), &[]);
    let response = server.get("/");
    assert_eq!(response.status, 200);
    assert_eq!(response.text(), r#"{"message":"hello"}"#);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.header("content-length"), Some("19"));
}

#[test]
fn request_method_url_headers_and_body_reach_js() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    let response = server.request(
        "POST",
        "/echo?q=1&r=two",
        &[
            ("x-repeat", "a"),
            ("x-repeat", "b"),
            ("content-type", "text/plain"),
        ],
        Some(b"hello body"),
    );
    assert_eq!(response.status, 200, "{}", response.text());
    let echo: serde_json::Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["url"], "http://test.local/echo?q=1&r=two");
    assert_eq!(echo["body"], "hello body");
    // Repeated headers arrive as separate entries and join on get().
    assert_eq!(echo["xRepeat"], "a, b");
    let headers = echo["headers"].as_array().unwrap();
    assert!(headers
        .iter()
        .any(|h| h[0] == "content-type" && h[1] == "text/plain"));
}

#[test]
fn standard_and_extension_methods_reach_js_by_name() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    // The standard names are cached strings, an extension one is made per
    // request: both must read the same in JS, request after request.
    for method in ["GET", "DELETE", "PURGE", "PATCH", "MKCOL", "GET"] {
        let response = server.request(method, "/echo", &[], None);
        assert_eq!(response.status, 200, "{method}: {}", response.text());
        let echo: serde_json::Value = serde_json::from_slice(&response.body).unwrap();
        assert_eq!(echo["method"], method);
    }
}

#[test]
fn the_request_can_be_cloned_and_rewrapped() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    let response = server.request("PUT", "/clone?x=1", &[("x-one", "1")], Some(b"twice"));
    assert_eq!(response.status, 200, "{}", response.text());
    let seen: serde_json::Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(seen["cloneBody"], "twice");
    assert_eq!(
        seen["rewrapped"],
        serde_json::json!(["PUT", "http://test.local/clone?x=1", "1", "twice"])
    );
    assert_eq!(seen["redirect"], "follow");
}

#[test]
fn chunked_request_bodies_are_streamed_to_js() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    let raw = "POST /echo HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n\
               5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
    let out = server.raw(raw.as_bytes(), std::time::Duration::from_secs(5));
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains(r#""body":"hello world""#), "{out}");
}

#[test]
fn repeated_response_headers_and_set_cookie_are_kept() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    let response = server.get("/cookies");
    assert_eq!(response.status, 201);
    assert_eq!(response.header_all("set-cookie"), ["a=1; Path=/", "b=2; Path=/"]);
    assert_eq!(response.header_all("x-multi"), ["one", "two"]);
    assert_eq!(response.text(), "cookies");
}

#[test]
fn byte_stream_and_empty_bodies() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    let bytes = server.get("/bytes");
    assert_eq!(bytes.body, [0, 1, 2, 255]);
    assert_eq!(bytes.header("content-type"), Some("application/octet-stream"));

    let streamed = server.get("/stream");
    assert_eq!(streamed.status, 200);
    assert_eq!(streamed.header("transfer-encoding"), Some("chunked"));
    assert_eq!(streamed.text(), "one,two,three");

    let empty = server.get("/empty");
    assert_eq!(empty.status, 204);
    assert!(empty.body.is_empty());
}

#[test]
fn web_globals_and_code_generation_are_there() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    let response = server.get("/globals");
    assert_eq!(response.status, 200, "{}", server.stderr());
    let seen: serde_json::Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(seen["missing"], serde_json::json!([]), "{seen:#}");
    let uuid = seen["uuid"].as_str().unwrap();
    assert_eq!((uuid.len(), &uuid[14..15]), (36, "4"), "{uuid}");
    assert_eq!(seen["random"], 8);
    assert_eq!(seen["clone"], serde_json::json!({ "a": [1, { "b": 2 }] }));
    assert_eq!(seen["base64"], "ZndiZW5jaA==");
    assert_eq!(seen["text"], "héllo");
    assert_eq!(seen["url"], "1");
    // Function.prototype.toString returns the source, as frameworks expect.
    assert_eq!(seen["source"], "function add(a, b) { return a + b; }");
    assert_eq!(seen["generated"], 42);
    assert_eq!(seen["evaluated"], 42);
}

#[test]
fn keep_alive_serves_many_requests_on_one_connection() {
    let server = Server::start(&fixture("echo/app.js"), &[]);
    let mut conn = Connection::open(&server.addr);
    for i in 0..50 {
        let path = if i % 2 == 0 { "/sync" } else { "/stream" };
        conn.send("GET", path, &[], None);
        let response = conn.read_response().unwrap();
        assert_eq!(response.status, 200, "request {i}");
    }
}

#[test]
fn several_workers_each_serve() {
    let server = Server::start(&fixture("hello/app.js"), &["--workers", "3"]);
    for _ in 0..30 {
        assert_eq!(server.get("/").status, 200);
    }
}

#[test]
fn a_node_http_server_that_listens_is_served() {
    let server = Server::start(&fixture("nodelisten/app.js"), &[]);
    let response = server.get("/hi?x=1");
    assert_eq!(response.status, 200, "{}", server.stderr());
    assert_eq!(response.text(), "node says hi to GET /hi?x=1");
}

#[test]
fn ctrl_c_stops_cleanly() {
    let server = Server::start(&fixture("hello/app.js"), &[]);
    assert_eq!(server.get("/").status, 200);
    let status = server.interrupt();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn version_names_the_engine() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .arg("--version")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("engine: QuickJS-ng") || text.contains("engine: V8"),
        "{text}"
    );
}
