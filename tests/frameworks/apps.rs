//! One ordinary app file per framework (tests/fixtures/frameworks/<name>/
//! app.js, written as a user writes it: `import express from 'express'`,
//! `export default app`), served by `fwbench serve APP`: GET / answers
//! {"message":"hello"}, GET /user/:id the id, /mw runs the mw scenario's
//! five-link chain, and an unknown path is a 404.
//!
//! Each framework's own defaults are pinned here (content types, 404
//! bodies), since the apps are idiomatic and set none of them. The
//! scenarios (scenarios/*.js) set what differs, so their expectations are
//! the same for every framework.

use crate::support::{fixture, Connection, Response, Server};

/// What one framework answers by default.
struct App {
    /// tests/fixtures/frameworks/<name>/app.js
    name: &'static str,
    /// content-type of a JSON body (GET / and GET /mw).
    json: &'static str,
    /// content-type of the id GET /user/:id sends as a string.
    text: &'static str,
    /// content-type and exact body of the 404 for GET /nope.
    not_found: (&'static str, &'static str),
}

const JSON_BODY: &str = r#"{"message":"hello"}"#;

/// Serves the app and checks every route on one keep-alive connection;
/// returns the server for checks of its own.
fn check(app: &App) -> Server {
    let server = Server::start(&fixture(&format!("frameworks/{}/app.js", app.name)), &[]);
    let mut conn = Connection::open(&server.addr);
    let mut get = |method: &str, path: &str, headers: &[(&str, &str)]| -> Response {
        conn.send(method, path, headers, None);
        conn.read_response_to(method)
            .unwrap_or_else(|e| panic!("{} {method} {path}: {e}\n{}", app.name, server.stderr()))
    };
    let what = |path: &str| format!("{} GET {path}", app.name);

    let hello = get("GET", "/", &[]);
    assert_eq!(hello.status, 200, "{}: {}", what("/"), hello.text());
    assert_eq!(hello.text(), JSON_BODY, "{}", what("/"));
    assert_eq!(hello.header("content-type"), Some(app.json), "{}", what("/"));

    let user = get("GET", "/user/42", &[]);
    assert_eq!(user.status, 200, "{}: {}", what("/user/42"), user.text());
    assert_eq!(user.text(), "42", "{}", what("/user/42"));
    assert_eq!(
        user.header("content-type"),
        Some(app.text),
        "{}",
        what("/user/42")
    );

    let mw = get("GET", "/mw", &[("x-test", "1")]);
    assert_eq!(mw.status, 200, "{}: {}", what("/mw"), mw.text());
    assert_eq!(mw.text(), JSON_BODY, "{}", what("/mw"));
    assert_eq!(mw.header("content-type"), Some(app.json), "{}", what("/mw"));
    for i in 1..=5 {
        let name = format!("x-mw-{i}");
        assert_eq!(mw.header_all(&name), [i.to_string()], "{} {name}", what("/mw"));
    }

    let missing = get("GET", "/nope", &[]);
    assert_eq!(missing.status, 404, "{}", what("/nope"));
    assert_eq!(
        missing.header("content-type"),
        Some(app.not_found.0),
        "{}",
        what("/nope")
    );
    assert_eq!(missing.text(), app.not_found.1, "{}", what("/nope"));

    // Every framework answers HEAD on a GET route (hyper sends no body).
    let head = get("HEAD", "/", &[]);
    assert_eq!(head.status, 200, "{} HEAD /", app.name);
    assert_eq!(head.header("content-type"), Some(app.json), "{} HEAD /", app.name);

    // The connection is still in step: the HEAD response carried no body.
    assert_eq!(
        get("GET", "/", &[]).text(),
        JSON_BODY,
        "{} GET / after HEAD",
        app.name
    );
    server
}

#[test]
fn s200() {
    check(&App {
        name: "s200",
        json: "application/json",
        text: "text/plain; charset=UTF-8",
        not_found: ("text/plain; charset=UTF-8", "Not Found"),
    });
}

#[test]
fn s200_light() {
    check(&App {
        name: "s200-light",
        json: "application/json",
        text: "text/plain; charset=UTF-8",
        not_found: ("text/plain; charset=UTF-8", "Not Found"),
    });
}

#[test]
fn hono() {
    check(&App {
        name: "hono",
        json: "application/json",
        // c.text() leaves the type to the platform Response: Deno's
        // default, without a space.
        text: "text/plain;charset=UTF-8",
        not_found: ("text/plain; charset=UTF-8", "404 Not Found"),
    });
}

/// express's finalhandler page for GET /nope.
const EXPRESS_404: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
                           <title>Error</title>\n</head>\n<body>\n<pre>Cannot GET /nope</pre>\n\
                           </body>\n</html>\n";

#[test]
fn express() {
    check(&App {
        name: "express",
        json: "application/json; charset=utf-8",
        // res.send(string) defaults to HTML.
        text: "text/html; charset=utf-8",
        not_found: ("text/html; charset=utf-8", EXPRESS_404),
    });
}

#[test]
fn fastify() {
    check(&App {
        name: "fastify",
        json: "application/json; charset=utf-8",
        text: "text/plain; charset=utf-8",
        not_found: (
            "application/json; charset=utf-8",
            r#"{"message":"Route GET:/nope not found","error":"Not Found","statusCode":404}"#,
        ),
    });
}

#[test]
fn elysia() {
    check(&App {
        name: "elysia",
        json: "application/json",
        text: "text/plain",
        not_found: ("text/plain;charset=UTF-8", "NOT_FOUND"),
    });
}

/// hono behind `http.createServer(getRequestListener(app.fetch)).listen()`,
/// as @hono/node-server runs it: listen() registers with the host, and the
/// runtime's global Request and Response are the lightweight classes.
#[test]
fn hono_patched() {
    let server = check(&App {
        name: "hono-patched",
        json: "application/json",
        // @hono/node-server's default for a string body.
        text: "text/plain; charset=UTF-8",
        not_found: ("text/plain; charset=UTF-8", "404 Not Found"),
    });
    let globals: serde_json::Value = serde_json::from_slice(&server.get("/globals").body).unwrap();
    for key in [
        "requestReplaced",
        "responseReplaced",
        "lightweightResponse",
        "lightweightRequest",
    ] {
        assert_eq!(globals[key], true, "{key}: {globals}");
    }
}

/// A module that calls @hono/node-server's serve() (which replaces the
/// global Response with its lightweight class) and also exports the app:
/// the adapter serves the fetch export and must read that class's
/// responses, which inherit from the platform Response without being one.
/// Regression: every request answered 500 "TypeError: expected i32".
#[test]
fn hono_served_by_node_server_and_exported() {
    let server = Server::start(&fixture("frameworks/hono-serve-export/app.js"), &[]);
    let hello = server.get("/");
    assert_eq!(hello.status, 200, "{}", server.stderr());
    assert_eq!(hello.text(), JSON_BODY);
}
