//! Every way out of the sandbox is refused with a clear JS error.

use crate::support::{fixture, Server};

/// Asserts that the fixture's `path` attempt was refused with an error
/// whose text contains each of `needles`.
fn assert_refused(server: &Server, path: &str, needles: &[&str]) {
    let response = server.get(path);
    let text = response.text();
    assert_eq!(response.status, 200, "{path} was not refused: {text}");
    for needle in needles {
        assert!(text.contains(needle), "{path}: expected {needle:?} in {text:?}");
    }
}

#[test]
fn network_file_env_and_subprocess_are_refused() {
    let server = Server::start(&fixture("sandbox/app.js"), &[]);
    assert_refused(
        &server,
        "/fetch-loopback",
        &["TypeError", "no network", "127.0.0.1:8080"],
    );
    assert_refused(
        &server,
        "/fetch-remote",
        &["TypeError", "no network", "example.com"],
    );
    assert_refused(&server, "/fetch-file", &["TypeError"]);
    assert_refused(
        &server,
        "/fs-read",
        &["EACCES", "/etc/passwd", "only its project directory"],
    );
    assert_refused(
        &server,
        "/fs-promises",
        &["EACCES", "/etc/passwd", "only its project directory"],
    );
    assert_refused(
        &server,
        "/fs-write",
        &["writeFileSync", "not available in fwbench"],
    );
    assert_refused(&server, "/net-connect", &["not available in fwbench"]);
    assert_refused(
        &server,
        "/subprocess",
        &["node:child_process is not available in fwbench"],
    );
    // The app's environment is what fwbench gives it, none of its own.
    assert_refused(&server, "/env", &["process.env holds NODE_ENV, PORT"]);
    assert_refused(&server, "/deno", &["ReferenceError", "Deno"]);
}

#[test]
fn imports_outside_the_allowed_trees_are_refused_by_name() {
    let server = Server::start(&fixture("sandbox/app.js"), &[]);
    assert_refused(
        &server,
        "/import-remote",
        &["https://example.com/mod.js", "not allowed"],
    );
    assert_refused(
        &server,
        "/import-outside",
        &["../../../Cargo.toml", "EACCES", "only its project directory"],
    );
    assert_refused(
        &server,
        "/import-unknown",
        &[
            "Cannot find package 'left-pad'",
            "run npm install",
            "bundles no copy",
        ],
    );
}
