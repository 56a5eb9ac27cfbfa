//! The scenarios (scenarios/*.js; format in scenarios/README.md) served with
//! `fwbench serve --framework F --scenario S` for every framework, each
//! checked against the scenario's own request and expectations (status,
//! exact body, media type, exact header values). A scenario file passed by
//! path works the same way, and a scenario without an app for the framework
//! fails with a message naming both.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use serde::Deserialize;

use fwbench::frameworks::{RowKind, FRAMEWORKS};

use crate::support::{fixture, fwbench, Server};

/// Every JS framework in the registry, as `--framework` spells it.
fn js_frameworks() -> Vec<&'static str> {
    FRAMEWORKS
        .iter()
        .filter(|framework| framework.kind() == RowKind::Js)
        .map(|framework| framework.name)
        .collect()
}

/// Every framework in the registry, JS and native.
fn all_frameworks() -> impl Iterator<Item = &'static str> {
    FRAMEWORKS.iter().map(|framework| framework.name)
}

/// What a scenario module exports, as tests/fixtures/frameworks/describe.js
/// serves it.
#[derive(Debug, Deserialize)]
struct Scenario {
    description: String,
    request: Request,
    expect: Expect,
    /// The frameworks `apps` has a factory for.
    apps: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Request {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Expect {
    status: u16,
    body: String,
    content_type: String,
    headers: HashMap<String, String>,
    /// Headers checked for presence only (a request id).
    #[serde(default)]
    headers_present: Vec<String>,
}

/// The scenarios the tests use, read once through fwbench itself (one
/// `describe.js` server imports each module and serves its exports), so the
/// expectations checked are exactly the ones the scenario states.
/// Keys: `builtin/<name>` and `file/<name>` (tests/fixtures/frameworks/scenarios).
fn scenario(key: &str) -> &'static Scenario {
    static ALL: OnceLock<HashMap<String, Scenario>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let server = Server::start(&fixture("frameworks/describe.js"), &[]);
        let builtins = fwbench::scenario::builtin_names()
            .into_iter()
            .map(|name| format!("builtin/{name}"));
        builtins
            .chain(["builtin/mw?depth=3".to_owned(), "file/echo".to_owned()])
            .map(|key| {
                let response = server.get(&format!("/{key}"));
                assert_eq!(response.status, 200, "describe {key}: {}", response.text());
                let scenario = serde_json::from_slice(&response.body)
                    .unwrap_or_else(|e| panic!("describe {key}: {e}: {}", response.text()));
                (key, scenario)
            })
            .collect()
    });
    &all[key]
}

/// A fixture scenario file.
fn scenario_file(name: &str) -> PathBuf {
    fixture(&format!("frameworks/scenarios/{name}.js"))
}

/// Sends the scenario's request to `server` and checks its expectations.
fn check(server: &Server, scenario: &Scenario, what: &str) {
    let request = &scenario.request;
    let headers: Vec<(&str, &str)> = request
        .headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let response = server.request(
        &request.method,
        &request.path,
        &headers,
        request.body.as_deref().map(str::as_bytes),
    );
    let expect = &scenario.expect;
    assert_eq!(
        response.status,
        expect.status,
        "{what}: status; body {:?}\nstderr: {}",
        response.text(),
        server.stderr()
    );
    assert_eq!(response.text(), expect.body, "{what}: body");
    let media_type = response
        .header("content-type")
        .map(|value| value.split(';').next().unwrap().trim().to_ascii_lowercase());
    assert_eq!(
        media_type.as_deref(),
        Some(expect.content_type.as_str()),
        "{what}: content-type {:?}",
        response.header("content-type")
    );
    for (name, value) in &expect.headers {
        assert_eq!(
            response.header_all(name),
            [value.as_str()],
            "{what}: header {name}"
        );
    }
    for name in &expect.headers_present {
        assert_eq!(response.header_all(name).len(), 1, "{what}: header {name}");
    }
}

/// Serves built-in scenario `name` for `framework` and checks it.
fn serves_builtin(framework: &str, name: &str) {
    let server = Server::scenario(framework, name);
    check(
        &server,
        scenario(&format!("builtin/{name}")),
        &format!("{name} on {framework}"),
    );
}

/// Serves the fixture scenario file echo.js (the README's example) for
/// `framework`, passing it by path.
fn serves_file(framework: &str) {
    let server = Server::scenario(framework, scenario_file("echo"));
    check(&server, scenario("file/echo"), &format!("echo.js on {framework}"));
}

/// The built-in scenarios each framework module of [`matrix!`] tests.
const MATRIX_SCENARIOS: &[&str] = &[
    "hello",
    "param",
    "mw",
    "json-post",
    "error",
    "big-json",
    "stream",
    "routes",
    "routes-miss",
    "prod",
];

/// One module per framework, one test per scenario.
macro_rules! matrix {
    ($($module:ident => $framework:literal,)*) => {
        $(
            mod $module {
                #[test]
                fn hello() {
                    super::serves_builtin($framework, "hello");
                }

                #[test]
                fn param() {
                    super::serves_builtin($framework, "param");
                }

                #[test]
                fn mw() {
                    super::serves_builtin($framework, "mw");
                }

                #[test]
                fn json_post() {
                    super::serves_builtin($framework, "json-post");
                }

                #[test]
                fn error() {
                    super::serves_builtin($framework, "error");
                }

                #[test]
                fn big_json() {
                    super::serves_builtin($framework, "big-json");
                }

                #[test]
                fn stream() {
                    super::serves_builtin($framework, "stream");
                }

                #[test]
                fn routes() {
                    super::serves_builtin($framework, "routes");
                }

                #[test]
                fn routes_miss() {
                    super::serves_builtin($framework, "routes-miss");
                }

                #[test]
                fn prod() {
                    super::serves_builtin($framework, "prod");
                }

                /// A scenario file passed by path (a JSON POST body).
                #[test]
                fn echo_file() {
                    super::serves_file($framework);
                }
            }
        )*
        #[test]
        fn the_matrix_covers_every_framework() {
            assert_eq!(vec![$($framework),*], js_frameworks());
        }

        /// Each framework module above has one test per built-in scenario:
        /// a new built-in needs its line there.
        #[test]
        fn the_matrix_covers_every_builtin_scenario() {
            let mut tested = MATRIX_SCENARIOS.to_vec();
            tested.sort_unstable();
            let mut builtins = fwbench::scenario::builtin_names();
            builtins.sort_unstable();
            assert_eq!(tested, builtins);
        }
    };
}

matrix! {
    s200 => "s200",
    s200_light => "s200-light",
    hono => "hono",
    hono_patched => "hono-patched",
    express => "express",
    fastify => "fastify",
    elysia => "elysia",
}

/// The built-in three state the shapes of docs/unwind-tax.md, with an app for every
/// framework (hono-patched reuses hono's).
#[test]
fn builtin_scenarios_state_the_reference_shapes() {
    // Each JS row's factory, once (hono-patched shares hono's).
    let mut factories: Vec<&str> = FRAMEWORKS.iter().filter_map(|f| f.factory()).collect();
    factories.dedup();
    for name in ["hello", "param", "mw"] {
        let scenario = scenario(&format!("builtin/{name}"));
        assert!(!scenario.description.is_empty(), "{name}: description");
        assert_eq!(scenario.apps, factories, "{name}: apps");
        assert_eq!(scenario.request.method, "GET", "{name}");
        assert_eq!(scenario.request.body, None, "{name}");
        assert_eq!(scenario.expect.status, 200, "{name}");
    }
    let hello = scenario("builtin/hello");
    assert_eq!(hello.request.path, "/");
    assert_eq!(hello.expect.body, r#"{"message":"hello"}"#);
    assert_eq!(hello.expect.content_type, "application/json");

    let param = scenario("builtin/param");
    assert_eq!(param.request.path, "/user/42");
    assert_eq!(param.expect.body, "42");
    assert_eq!(param.expect.content_type, "text/plain");

    let mw = scenario("builtin/mw");
    assert_eq!(mw.request.path, "/mw");
    assert_eq!(mw.request.headers.get("x-test").map(String::as_str), Some("1"));
    assert_eq!(mw.expect.body, r#"{"message":"hello"}"#);
    let stamped: HashMap<String, String> = (1..=5).map(|i| (format!("x-mw-{i}"), i.to_string())).collect();
    assert_eq!(mw.expect.headers, stamped);
}

/// The mw chain at other depths (`serve --depth`, what `sweep` runs): every
/// framework, native rows included, stamps exactly x-mw-1 … x-mw-N.
#[test]
fn every_framework_builds_the_mw_chain_at_any_depth() {
    for framework in all_frameworks() {
        for depth in [0usize, 8] {
            let depth_arg = depth.to_string();
            let server = Server::start_with(&[
                "--framework".as_ref(),
                framework.as_ref(),
                "--scenario".as_ref(),
                "mw".as_ref(),
                "--depth".as_ref(),
                depth_arg.as_ref(),
            ]);
            let what = format!("{framework} at depth {depth}");
            let response = server.request("GET", "/mw", &[("x-test", "1")], None);
            assert_eq!(response.status, 200, "{what}: {}", response.text());
            assert_eq!(response.text(), r#"{"message":"hello"}"#, "{what}");
            for i in 1..=depth + 1 {
                let value = i.to_string();
                let expected: Vec<&str> = if i <= depth { vec![&value] } else { Vec::new() };
                assert_eq!(
                    response.header_all(&format!("x-mw-{i}")),
                    expected,
                    "{what}: x-mw-{i}"
                );
            }
        }
    }
    // The scenario's own expectations follow the depth.
    let mw = scenario("builtin/mw?depth=3");
    assert_eq!(mw.expect.headers.len(), 3);
}

/// The native rows serve every built-in they implement (the scenario's own
/// expectations, as for the JS rows), and refuse the others by name.
#[test]
fn native_rows_serve_the_builtins_they_implement() {
    let builtins = fwbench::scenario::builtin_names();
    for framework in ["hyper", "axum"] {
        for name in &builtins {
            if fwbench::native::SCENARIOS.contains(&name.as_str()) {
                serves_builtin(framework, name);
            } else {
                let err = serve_fails(framework, name.as_ref());
                assert!(
                    err.contains(&format!("not '{name}'")),
                    "{framework} × {name}: {err}"
                );
            }
        }
    }
    assert!(!fwbench::native::SCENARIOS.contains(&"stream"));
}

/// A depth is refused for a scenario without a depth parameter, by JS and
/// native rows alike, naming what is missing.
#[test]
fn a_depth_for_a_scenario_without_one_is_refused() {
    for framework in ["hono", "hyper"] {
        let out = fwbench([
            "serve",
            "--port",
            "0",
            "--framework",
            framework,
            "--scenario",
            "hello",
            "--depth",
            "3",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{framework}: {stderr}");
        assert!(stderr.contains("has no depth parameter"), "{framework}: {stderr}");
    }
}

/// scenarios/README.md shows echo.js verbatim, and the matrix above runs
/// that file on every framework: the documented example works.
#[test]
fn the_readme_example_is_the_tested_fixture() {
    let readme = include_str!("../../scenarios/README.md");
    let example = include_str!("../fixtures/frameworks/scenarios/echo.js");
    assert!(
        readme.contains(&format!("```js\n{example}```")),
        "scenarios/README.md must show tests/fixtures/frameworks/scenarios/echo.js verbatim"
    );
}

/// Runs `fwbench serve --framework F --scenario S` that must fail; stderr.
fn serve_fails(framework: &str, scenario: &std::ffi::OsStr) -> String {
    let mut args = vec!["serve".as_ref(), "--port".as_ref(), "0".as_ref()];
    args.extend([
        "--framework".as_ref(),
        framework.as_ref(),
        "--scenario".as_ref(),
        scenario,
    ]);
    let out = fwbench(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "{framework} should not serve; stderr: {stderr}"
    );
    stderr
}

#[test]
fn a_scenario_without_the_frameworks_app_names_both() {
    let partial = scenario_file("partial");
    let err = serve_fails("elysia", partial.as_os_str());
    assert!(err.contains("scenario 'partial'"), "{err}");
    assert!(err.contains("no app for framework 'elysia'"), "{err}");
    // hono-patched is served from hono's factory, and says so.
    let err = serve_fails("hono-patched", partial.as_os_str());
    assert!(err.contains("no app for framework 'hono-patched'"), "{err}");
    assert!(err.contains("apps['hono']"), "{err}");
}

#[test]
fn an_unknown_framework_or_scenario_is_refused_with_the_known_ones() {
    let err = serve_fails("koa", "mw".as_ref());
    assert!(err.contains("koa"), "{err}");
    assert!(err.contains("hono-patched"), "lists the known frameworks: {err}");
    let err = serve_fails("hono", "nope".as_ref());
    assert!(err.contains("no built-in scenario 'nope'"), "{err}");
    assert!(err.contains("mw"), "lists the built-in scenarios: {err}");
}
