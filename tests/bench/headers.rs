//! Request header sets end to end: for each set, the app saw exactly the
//! headers the set and the request's own headers make (a scenario whose
//! apps echo what they received, run through `check`, `bench` and `load`),
//! a bad `--headers` is refused with the sets named, and the report records
//! the set.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fwbench::header_sets::{self, HeaderSet};

use super::{read_json, scratch};
use crate::support::{bench, fwbench, fwbench_within, Server};

/// The echo scenario's own request headers: one the sets lack, one they
/// carry (which must win).
const OWN: &[(&str, &str)] = &[("x-test", "1"), ("accept", "application/json")];

/// What an echo app answers when `set` is composed with `own`: every
/// header but `host`, names lower case, sorted by name, as JSON pairs.
fn echo_of(set: HeaderSet, own: &[(&str, &str)]) -> String {
    let own: Vec<(String, String)> = own
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    let mut seen: Vec<[String; 2]> = set
        .compose(&own)
        .into_iter()
        .map(|(name, value)| [name.to_ascii_lowercase(), value])
        .collect();
    seen.sort();
    serde_json::to_string(&seen).unwrap()
}

/// Writes the echo scenario into `dir` as `echo.js`: hono (fetch-style)
/// and express (node-style) answer the headers they received, which must
/// be `expected`; `header_set` becomes its `headerSet` export.
fn echo_scenario(dir: &Path, expected: &str, header_set: Option<&str>) -> PathBuf {
    let own: serde_json::Map<String, serde_json::Value> =
        OWN.iter().map(|(n, v)| ((*n).to_owned(), (*v).into())).collect();
    let header_set = header_set.map_or(String::new(), |set| format!("export const headerSet = '{set}';"));
    let code = format!(
        r#"
export const description = 'answers the request headers it received';
export const request = {{ method: 'GET', path: '/echo', headers: {own}, body: null }};
{header_set}
export const expect = {{ status: 200, body: {expected}, contentType: 'application/json', headers: {{}} }};
const seen = (entries) =>
  JSON.stringify(entries.filter(([name]) => name !== 'host').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
export const apps = {{
  async hono() {{
    const {{ Hono }} = await import('hono');
    const app = new Hono();
    app.get('/echo', (c) => c.body(seen([...c.req.raw.headers]), 200, {{ 'content-type': 'application/json' }}));
    return app;
  }},
  async express() {{
    const {{ default: express }} = await import('express');
    const app = express();
    app.get('/echo', (req, res) => res.type('application/json').send(seen(Object.entries(req.headers))));
    return app;
  }},
}};
"#,
        own = serde_json::Value::Object(own),
        expected = serde_json::to_string(expected).unwrap(),
    );
    let path = dir.join("echo.js");
    std::fs::write(&path, code).unwrap();
    path
}

/// `fwbench check` of the echo scenario on hono and express, with `extra`.
fn check(scenario: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "check",
        "--frameworks",
        "hono,express",
        "--scenario",
        scenario.to_str().unwrap(),
    ];
    args.extend(extra);
    fwbench(args)
}

fn assert_passes(out: &std::process::Output, what: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("2 passed, 0 failed"),
        "{what}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_sends_each_set_exactly_with_the_scenarios_own_headers_winning() {
    let dir = scratch("headers-check");
    for set in header_sets::ALL {
        let scenario = echo_scenario(&dir, &echo_of(set, OWN), None);
        assert_passes(&check(&scenario, &["--headers", set.name()]), set.name());
    }
    // The test can fail: the browser's headers are not what minimal sends.
    let scenario = echo_scenario(&dir, &echo_of(HeaderSet::Browser, OWN), None);
    let out = check(&scenario, &["--headers", "minimal"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_scenario_names_its_own_set_and_headers_replaces_it() {
    let dir = scratch("headers-own-set");
    let scenario = echo_scenario(&dir, &echo_of(HeaderSet::Api, OWN), Some("api"));
    assert_passes(&check(&scenario, &[]), "the scenario's own api set");
    let scenario = echo_scenario(&dir, &echo_of(HeaderSet::Minimal, OWN), Some("api"));
    assert_passes(
        &check(&scenario, &["--headers", "minimal"]),
        "--headers over the scenario's",
    );
    // A set the scenario names that does not exist fails its rows, by name.
    let scenario = echo_scenario(&dir, "[]", Some("chrome"));
    let out = check(&scenario, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("unknown header set 'chrome'"), "{stdout}");
}

#[test]
fn a_bench_report_records_the_set_and_every_answer_matched() {
    let dir = scratch("headers-bench");
    let scenario = echo_scenario(&dir, &echo_of(HeaderSet::Browser, OWN), None);
    let out_dir = dir.join("out");
    let out = fwbench_within(
        bench(&out_dir)
            .frameworks("hono")
            .scenario(&scenario)
            .set("--headers", "browser")
            .connections(4)
            .in_runtime("300ms"),
        Duration::from_secs(120),
    )
    .expect("bench finished within 120 s");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("request headers: browser"), "{stdout}");
    let report = read_json(&out_dir.join("report.json"));
    assert_eq!(report["header_sets"], serde_json::json!({ "echo": "browser" }));
    assert_eq!(report["options"]["headers"], "browser");
    let row = &report["rows"][0];
    assert_eq!(row["status"]["state"], "ok", "{row}");
    assert_eq!(row["rounds"][0]["mismatches"], 0, "{row}");
    assert!(row["rounds"][0]["successes"].as_u64().unwrap() > 0, "{row}");
    // The in-runtime run sent the same headers: every answer matched.
    let in_runtime = &row["in_runtime"];
    assert!(in_runtime["requests"].as_u64().unwrap() > 0, "{in_runtime}");
    assert_eq!(in_runtime["mismatches"], 0, "{in_runtime}");
}

#[test]
fn load_sends_the_set_and_an_h_header_takes_its_place() {
    let dir = scratch("headers-load");
    let scenario = echo_scenario(&dir, "[]", None);
    let server = Server::scenario("hono", &scenario);
    let url = format!("http://{}/echo", server.addr);
    let load = |extra: &[&str], expected: &str| {
        let mut args = vec![
            "load",
            &url,
            "-n",
            "3",
            "-c",
            "1",
            "--no-progress",
            "--expect-body",
            expected,
        ];
        args.extend(extra);
        fwbench(args)
    };
    for set in header_sets::ALL {
        let out = load(&["--headers", set.name()], &echo_of(set, &[]));
        assert!(
            out.status.success(),
            "{}: {}",
            set.name(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let own = [("accept", "text/html"), ("x-extra", "1")];
    let out = load(
        &["--headers", "api", "-H", "accept: text/html", "-H", "x-extra: 1"],
        &echo_of(HeaderSet::Api, &own),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    // The test can fail: without the set the body differs.
    let out = load(&[], &echo_of(HeaderSet::Api, &[]));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_bad_set_is_refused_naming_the_sets() {
    for command in [
        &["check", "--headers", "chrome"][..],
        &["bench", "--headers", "chrome"],
        &["sweep", "--headers", "chrome"],
        &["load", "http://127.0.0.1:9/", "--headers", "chrome"],
    ] {
        let out = fwbench(command);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(
            stderr.contains("unknown header set 'chrome'")
                && stderr.contains("minimal")
                && stderr.contains("browser")
                && stderr.contains("api"),
            "{command:?}: {stderr}"
        );
    }
}
