//! Each fixture project answers as it does on Node.

use std::io::Read;

use super::node::{node, NodeServer};
use super::project;
use crate::support::{Connection, Response, Server};

/// One request and what the project is known to answer.
struct Exchange {
    method: &'static str,
    path: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: Option<&'static str>,
    status: u16,
    /// Text the (decoded) body contains.
    contains: &'static str,
    /// The body differs from run to run (a token with the time in it):
    /// compared with Node's by status and headers only.
    volatile: bool,
}

const fn get(path: &'static str, status: u16, contains: &'static str) -> Exchange {
    Exchange {
        method: "GET",
        path,
        headers: &[],
        body: None,
        status,
        contains,
        volatile: false,
    }
}

/// Headers compared with Node's: what the frameworks and their middleware
/// decide (helmet, CORS, compression, ETags, cookies, request ids).
const COMPARED: &[&str] = &[
    "content-type",
    "content-encoding",
    "etag",
    "vary",
    "access-control-allow-origin",
    "x-request-id",
    "content-security-policy",
    "x-frame-options",
    "strict-transport-security",
];

fn send(addr: &str, exchange: &Exchange) -> Response {
    let mut conn = Connection::open(addr);
    conn.send(
        exchange.method,
        exchange.path,
        exchange.headers,
        exchange.body.map(str::as_bytes),
    );
    conn.read_response_to(exchange.method)
        .unwrap_or_else(|e| panic!("{} {}: {e}", exchange.method, exchange.path))
}

/// The body as sent before its content-encoding.
fn decoded(response: &Response) -> String {
    let mut out = Vec::new();
    match response.header("content-encoding") {
        Some("gzip") => {
            flate2::read::GzDecoder::new(&response.body[..])
                .read_to_end(&mut out)
                .expect("gunzip");
        }
        Some("deflate") => {
            flate2::read::ZlibDecoder::new(&response.body[..])
                .read_to_end(&mut out)
                .expect("inflate");
        }
        Some("br") => {
            brotli::Decompressor::new(&response.body[..], 4096)
                .read_to_end(&mut out)
                .expect("brotli");
        }
        _ => out = response.body.clone(),
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Serves `name` on fwbench, checks every exchange's known answer, and
/// compares each with Node's when Node 22+ is here (else says why not).
fn answers_as_on_node(name: &str, exchanges: &[Exchange]) {
    let dir = project(name);
    let server = Server::start(&dir, &[]);
    let node = match node() {
        Ok(node) => Some(NodeServer::start(&node, &dir)),
        Err(why) => {
            eprintln!("{name}: not compared with Node: {why}");
            None
        }
    };
    for exchange in exchanges {
        let what = format!("{name}: {} {}", exchange.method, exchange.path);
        let ours = send(&server.addr, exchange);
        let body = decoded(&ours);
        assert_eq!(
            ours.status,
            exchange.status,
            "{what}: {body}\nstderr: {}",
            server.stderr()
        );
        assert!(
            body.contains(exchange.contains),
            "{what}: expected {:?} in {body}",
            exchange.contains
        );
        let Some(node) = &node else { continue };
        let theirs = send(&node.addr, exchange);
        assert_eq!(ours.status, theirs.status, "{what}: status differs from Node's");
        for header in COMPARED {
            assert_eq!(
                ours.header_all(header),
                theirs.header_all(header),
                "{what}: {header} differs from Node's"
            );
        }
        if !exchange.volatile {
            assert_eq!(body, decoded(&theirs), "{what}: body differs from Node's");
        }
    }
}

#[test]
fn an_express_commonjs_api_answers_as_on_node() {
    const LOGIN: Exchange = Exchange {
        method: "POST",
        path: "/api/login",
        headers: &[("content-type", "application/json")],
        body: Some(r#"{"user":"ann"}"#),
        status: 200,
        contains: "\"token\":\"eyJ",
        volatile: false,
    };
    answers_as_on_node(
        "express-cjs",
        &[
            get("/api/items", 200, "\"anvil\""),
            get("/api/items/2", 200, "\"bellows\""),
            get("/api/items/9", 404, "not found"),
            Exchange { headers: &[("accept-encoding", "gzip")], ..get("/api/catalog", 200, "\"n\":39") },
            Exchange { headers: &[("accept-encoding", "br")], ..get("/api/catalog", 200, "\"n\":39") },
            Exchange { headers: &[("accept-encoding", "deflate")], ..get("/api/catalog", 200, "\"n\":39") },
            LOGIN,
            Exchange {
                headers: &[(
                    "authorization",
                    "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbm4ifQ.Y98QTle1neSUZCe36nKNIznwyQgHTVQ10fuGzKoxbeo",
                )],
                ..get("/api/me", 200, "\"env\":\"production\"")
            },
            get("/api/me", 401, "unauthorized"),
            get("/nope", 404, "Cannot GET /nope"),
        ],
    );
}

#[test]
fn a_koa_commonjs_api_answers_as_on_node() {
    answers_as_on_node(
        "koa-cjs",
        &[
            get("/api/hello", 200, "\"id\":\"req-1\""),
            get("/api/users/7", 200, "\"tag\":\"user:function\""),
            Exchange {
                method: "POST",
                headers: &[("content-type", "application/json")],
                body: Some(r#"{"a":1}"#),
                ..get("/api/echo", 200, "\"store\":{\"id\":\"req-3\"}")
            },
            Exchange {
                headers: &[("x-request-id", "abc")],
                ..get("/api/hello", 200, "\"id\":\"abc\"")
            },
            get("/api/nope", 404, "Not Found"),
        ],
    );
}

#[test]
fn a_fastify_es_module_api_with_plugins_answers_as_on_node() {
    answers_as_on_node(
        "fastify-esm",
        &[
            get("/api/hello", 200, "{\"hello\":\"fastify\"}"),
            Exchange {
                method: "POST",
                headers: &[("content-type", "application/json")],
                body: Some(r#"{"user":"ann"}"#),
                // The token carries the time it was made.
                volatile: true,
                ..get("/api/login", 200, "\"token\":\"eyJ")
            },
            Exchange {
                method: "POST",
                headers: &[("content-type", "application/json")],
                body: Some("{}"),
                ..get("/api/login", 400, "FST_ERR_VALIDATION")
            },
            get("/api/me", 401, "unauthorized"),
            Exchange {
                headers: &[("accept-encoding", "gzip")],
                ..get("/api/catalog", 200, "\"item 39\"")
            },
        ],
    );
}

#[test]
fn a_typescript_hono_app_answers_as_on_node() {
    answers_as_on_node(
        "hono-ts",
        &[
            get("/", 200, "{\"hello\":\"hono\",\"runtime\":\"object\"}"),
            get("/api/items", 200, "\"bellows\""),
            get("/api/items/9", 404, "not found"),
            // Type stripping keeps lines: the statement is on line 22.
            get("/api/line", 200, "22"),
            Exchange {
                headers: &[("origin", "https://example.com")],
                ..get("/api/items", 200, "anvil")
            },
        ],
    );
}

#[test]
fn commonjs_and_module_semantics_are_nodes() {
    answers_as_on_node(
        "semantics",
        &[get(
            "/",
            200,
            concat!(
                r#"{"wrapperThis":true,"filename":"index.js","dirnameIsRoot":true,"requireMainIsModule":true,"#,
                r#""cycle":{"bSawEarly":"a-early","bSawLate":"undefined","bNow":"a-late"},"#,
                r#""json":{"name":"data","list":[1,2,3]},"resolve":"lib/a.js","resolveBuiltin":"fs","#,
                r#""cached":["lib/a.js","lib/b.js","lib/data.json"],"sameInstance":true,"#,
                r#""esm":{"named":"from-esm","default":"esm-default","keys":["__esModule","default","named"]},"#,
                r#""missing":{"code":"MODULE_NOT_FOUND","stack":true},"reloaded":[1,2],"fsRead":38,"#,
            ),
        )],
    );
}

#[test]
fn the_banner_says_whose_packages_were_used() {
    let server = Server::start(&project("hono-ts"), &[]);
    assert!(
        server
            .banner
            .contains("[packages: @hono/node-server 1.19.5, hono 4.9.9"),
        "the project's own versions: {}",
        server.banner
    );
    // An app file with no node_modules of its own gets fwbench's copy.
    let bundled = Server::start(&crate::support::fixture("frameworks/hono/app.js"), &[]);
    assert!(
        bundled.banner.contains("[packages: hono (bundled)"),
        "{}",
        bundled.banner
    );
}

#[test]
fn process_env_holds_port_node_env_and_what_the_user_adds() {
    let project = super::Scratch::new(
        "env",
        &[
            ("package.json", r#"{"name":"env","main":"index.js"}"#),
            (
                "index.js",
                "require('http').createServer((req, res) => res.end(JSON.stringify(process.env))).listen(process.env.PORT);\n",
            ),
            (".env", "# settings\nFROM_FILE=file\nBOTH=file\n"),
        ],
    );
    let env_file = project.path().join(".env");
    let server = Server::start(
        project.path(),
        &[
            "--env",
            "BOTH=flag",
            "--env",
            "NODE_ENV=staging",
            "--env-file",
            env_file.to_str().expect("a UTF-8 path"),
        ],
    );
    let env: serde_json::Value = serde_json::from_str(&server.get("/").text()).expect("JSON");
    let port = server.addr.rsplit(':').next().expect("a port");
    assert_eq!(
        env,
        serde_json::json!({"BOTH": "flag", "FROM_FILE": "file", "NODE_ENV": "staging", "PORT": port}),
        "--env wins over --env-file, and nothing of fwbench's own environment shows"
    );
}

#[test]
fn a_second_start_compiles_from_the_code_cache() {
    let cache = std::env::temp_dir().join(format!("fwbench-code-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let cache_home = cache.to_str().expect("a UTF-8 path");
    let start = || Server::start_with_env(&project("express-cjs"), &[], &[("XDG_CACHE_HOME", cache_home)]);
    let counts = |banner: &str| -> (usize, usize) {
        let note = banner
            .split("code cache ")
            .nth(1)
            .expect("the banner counts the code cache");
        let (hits, total) = note.split([']', ';']).next().unwrap().split_once('/').unwrap();
        (hits.parse().unwrap(), total.parse().unwrap())
    };
    let first = start();
    let (hits, total) = counts(&first.banner);
    assert_eq!(hits, 0, "a cold cache: {}", first.banner);
    assert!(total > 50, "express's modules are compiled: {}", first.banner);
    assert_eq!(first.get("/api/items").status, 200);
    drop(first);
    let second = start();
    let (hits, again) = counts(&second.banner);
    assert_eq!(
        (hits, again),
        (total, total),
        "every module from the cache: {}",
        second.banner
    );
    assert_eq!(second.get("/api/items").status, 200);
    drop(second);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn require_and_import_of_one_scoped_es_module_share_its_instance() {
    // `@` in the path: the URL require(esm) loads must be the one the
    // loader gives `import`, or the module would be evaluated twice.
    let project = super::Scratch::new(
        "one-instance",
        &[
            ("package.json", r#"{"name":"one","main":"index.js"}"#),
            ("node_modules/@scope/counted/package.json", r#"{"name":"@scope/counted","version":"1.0.0","exports":"./index.mjs"}"#),
            ("node_modules/@scope/counted/index.mjs", "globalThis.loads = (globalThis.loads ?? 0) + 1;\nexport const loads = globalThis.loads;\n"),
            (
                "index.js",
                "require('@scope/counted');\nimport('@scope/counted').then(() => require('http').createServer((req, res) => res.end(String(globalThis.loads))).listen(process.env.PORT));\n",
            ),
        ],
    );
    let server = Server::start(project.path(), &[]);
    assert_eq!(server.get("/").text(), "1", "evaluated once, as on Node");
}
