//! Runtime rows (`--runtime node,deno,bun`): the mechanics with a stub
//! runtime (a script that says a version and serves), bad runtimes, and
//! with a real Node, every JS framework's hello and mw rows passing
//! `check`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{read_json, scratch};
use crate::projects::node::node;

/// A stand-in for a runtime: `--version` prints `version`; otherwise it
/// records its arguments in $STUB_ARGV_FILE, serves hello's answer on a
/// port of its own, prints a banner in the launcher's form and, with
/// $STUB_DIE_AFTER set, exits with status 3 after that many requests.
fn stub_runtime(dir: &Path, version: &str) -> PathBuf {
    let path = dir.join("stub-runtime");
    std::fs::write(
        &path,
        format!(
            r#"#!/usr/bin/env python3
import http.server, json, os, sys
if sys.argv[1:] == ["--version"]:
    print("{version}")
    sys.exit(0)
if os.environ.get("STUB_ARGV_FILE"):
    with open(os.environ["STUB_ARGV_FILE"], "w") as f:
        json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd()}}, f)
die_after = int(os.environ.get("STUB_DIE_AFTER", "0"))
served = 0
class Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        global served
        served += 1
        if die_after and served > die_after:
            os._exit(3)
        body = b'{{"message":"hello"}}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
print(f"fwbench-launch serving stub on http://127.0.0.1:{{server.server_port}}/ with 1 worker [stub]", flush=True)
server.serve_forever()
"#
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `fwbench ARGS` with TMPDIR in `dir` (so the runtime kit is written
/// there) and `env`.
fn fwbench_in(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> (i32, String) {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_fwbench"));
    command.args(args).env("TMPDIR", &tmp);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().expect("run fwbench");
    let text = format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// What is left of runtime kits in `dir`'s TMPDIR.
fn kits_left(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("tmp"))
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("fwbench-kit-"))
        .collect()
}

#[test]
fn a_runtime_row_serves_the_scenario_app_through_its_launcher_and_leaves_nothing() {
    let dir = scratch("runtime-stub");
    let stub = stub_runtime(&dir, "v99.1.0");
    let argv_file = dir.join("argv.json");
    let (code, out) = fwbench_in(
        &dir,
        &[
            "check",
            "--runtime",
            "fwbench,node",
            "--node",
            stub.to_str().unwrap(),
            "--only",
            "hello",
            "--frameworks",
            "hono,hyper",
        ],
        &[("STUB_ARGV_FILE", &argv_file)],
    );
    assert_eq!(code, 0, "{out}");
    for row in ["hono ", "hyper ", "hono@node "] {
        assert!(
            out.lines().any(|l| l.starts_with("ok") && l.contains(row)),
            "{row}: {out}"
        );
    }
    // Native rows are fwbench's alone.
    assert!(!out.contains("hyper@node"), "{out}");
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&argv_file).unwrap()).unwrap();
    let argv: Vec<&str> = seen["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    // Node is asked to print its collections (the GC columns), then runs
    // the launcher with the app's style and main module.
    assert_eq!(argv[0], "--trace-gc-nvp", "{argv:?}");
    assert!(argv[1].ends_with("/launch.mjs"), "{argv:?}");
    assert_eq!(argv[2], "fetch", "{argv:?}");
    assert!(argv[3].ends_with("/main/hello/hono.mjs"), "{argv:?}");
    assert!(seen["cwd"].as_str().unwrap().contains("fwbench-kit-"), "{seen}");
    assert_eq!(kits_left(&dir), Vec::<String>::new());
}

#[test]
fn a_runtime_that_is_not_one_or_is_missing_skips_its_rows_only() {
    let dir = scratch("runtime-not-one");
    let impostor = stub_runtime(&dir, "hello, I am not node");
    let (code, out) = fwbench_in(
        &dir,
        &[
            "check",
            "--runtime",
            "fwbench,node,deno",
            "--node",
            impostor.to_str().unwrap(),
            "--deno",
            "/no/such/deno",
            "--only",
            "hello",
            "--frameworks",
            "s200",
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("node rows are skipped") && out.contains("is not node"),
        "{out}"
    );
    assert!(
        out.contains("deno rows are skipped") && out.contains("cannot run /no/such/deno"),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("ok") && l.contains("s200")),
        "{out}"
    );
    assert!(!out.contains("s200@"), "{out}");
    let (code, out) = fwbench_in(&dir, &["check", "--runtime", "fwbench,jvm"], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("unknown runtime 'jvm'"), "{out}");
}

#[test]
fn a_runtime_that_dies_mid_round_fails_its_row_with_the_reason() {
    let dir = scratch("runtime-dies");
    let stub = stub_runtime(&dir, "1.4.5");
    let out_dir = dir.join("out");
    let (code, out) = fwbench_in(
        &dir,
        &[
            "bench",
            "--runtime",
            "fwbench,bun",
            "--bun",
            stub.to_str().unwrap(),
            "--only",
            "hello",
            "--frameworks",
            "elysia",
            "--rounds",
            "1",
            "--duration",
            "1s",
            "--warmup",
            "200ms",
            "--in-runtime",
            "0s",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &[("STUB_DIE_AFTER", Path::new("60"))],
    );
    assert_eq!(code, 1, "{out}");
    let report = read_json(&out_dir.join("report.json"));
    let rows = report["rows"].as_array().unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["framework"] == name)
            .unwrap_or_else(|| panic!("{name}: {report:#}"))
    };
    assert_eq!(row("elysia")["status"]["state"], "ok", "{report:#}");
    assert_eq!(row("elysia")["runtime"], "fwbench");
    let died = row("elysia@bun");
    assert_eq!(died["runtime"], "bun");
    assert_eq!(died["status"]["state"], "failed", "{died:#}");
    assert!(
        died["status"]["reason"].as_str().unwrap().contains("status 3"),
        "{died:#}"
    );
    assert_eq!(report["runtimes"][0]["name"], "bun");
    assert_eq!(report["runtimes"][0]["version"], "1.4.5");
    assert!(
        row("elysia")["memory"]["peak_rss_mib"].as_f64().unwrap() > 1.0,
        "{report:#}"
    );
    assert_eq!(kits_left(&dir), Vec::<String>::new());
}

/// With Node (22+: FWBENCH_NODE, the cache's Node 26 or PATH), every JS
/// framework's hello and mw apps, the bytes fwbench serves, pass `check`
/// on Node too.
#[test]
fn every_js_framework_passes_check_on_node() {
    let node = match node() {
        Ok(node) => node,
        Err(why) => {
            eprintln!("SKIPPED every_js_framework_passes_check_on_node: {why}");
            return;
        }
    };
    let dir = scratch("runtime-node");
    let (code, out) = fwbench_in(
        &dir,
        &[
            "check",
            "--runtime",
            "node",
            "--node",
            node.to_str().unwrap(),
            "--only",
            "hello,mw",
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}");
    let js: Vec<&str> = fwbench::frameworks::FRAMEWORKS
        .iter()
        .filter(|f| matches!(f.serving, fwbench::frameworks::Serving::Js { .. }))
        .map(|f| f.name)
        .collect();
    for scenario in ["hello", "mw"] {
        for framework in &js {
            let name = format!("{framework}@node");
            assert!(
                out.lines().any(|l| {
                    let cells: Vec<&str> = l.split_whitespace().collect();
                    cells.len() > 2 && cells[0] == "ok" && cells[1] == scenario && cells[2] == name
                }),
                "{scenario} {name}: {out}"
            );
        }
    }
}

/// An `--app` project gets a Node row too: its entry started by Node as
/// `node DIR` starts it, with a preload that says where it listens.
#[test]
fn an_app_project_gets_a_node_row() {
    let node = match node() {
        Ok(node) => node,
        Err(why) => {
            eprintln!("SKIPPED an_app_project_gets_a_node_row: {why}");
            return;
        }
    };
    let dir = scratch("runtime-app-node");
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/express-cjs");
    let (code, out) = fwbench_in(
        &dir,
        &[
            "check",
            "--runtime",
            "fwbench,node",
            "--node",
            node.to_str().unwrap(),
            "--app",
            project.to_str().unwrap(),
            "--request",
            "GET /api/items",
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}");
    for name in ["express-cjs", "express-cjs@node"] {
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().take(3).eq(["ok", "request", name])),
            "{name}: {out}"
        );
    }
    assert_eq!(kits_left(&dir), Vec::<String>::new());
}

/// `sweep --runtime` fits the cost of a link on each runtime.
#[test]
fn sweep_fits_each_runtimes_rows() {
    let node = match node() {
        Ok(node) => node,
        Err(why) => {
            eprintln!("SKIPPED sweep_fits_each_runtimes_rows: {why}");
            return;
        }
    };
    let dir = scratch("runtime-sweep");
    let out_dir = dir.join("out");
    let (code, out) = fwbench_in(
        &dir,
        &[
            "sweep",
            "--runtime",
            "fwbench,node",
            "--node",
            node.to_str().unwrap(),
            "--frameworks",
            "hono",
            "--depths",
            "0,1",
            "--rounds",
            "1",
            "--duration",
            "300ms",
            "--warmup",
            "100ms",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}");
    let sweep = read_json(&out_dir.join("sweep.json"));
    let names: Vec<&str> = sweep["frameworks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["framework"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hono", "hono@node"], "{sweep:#}");
    let (code, out) = fwbench_in(&dir, &["sweep", "--ablate", "prod", "--runtime", "node"], &[]);
    assert_eq!(code, 2, "{out}");
}

/// A Node row's allocation and GC figures come from V8's own trace lines
/// (`--trace-gc-nvp`); with `--no-gc-trace` they are absent.
#[test]
fn a_node_row_has_gc_figures_from_v8s_trace() {
    let node = match node() {
        Ok(node) => node,
        Err(why) => {
            eprintln!("SKIPPED a_node_row_has_gc_figures_from_v8s_trace: {why}");
            return;
        }
    };
    let dir = scratch("runtime-node-gc");
    let heap_of = |extra: &[&str], out_dir: &Path| {
        let mut args = vec![
            "bench",
            "--runtime",
            "node",
            "--node",
            node.to_str().unwrap(),
            "--frameworks",
            "hono",
            "--only",
            "mw",
            "--rounds",
            "1",
            "--duration",
            "1s",
            "--warmup",
            "300ms",
            "--out",
            out_dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, out) = fwbench_in(&dir, &args, &[]);
        assert_eq!(code, 0, "{out}");
        let report = read_json(&out_dir.join("report.json"));
        let row = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["framework"] == "hono@node")
            .cloned()
            .unwrap_or_else(|| panic!("no hono@node row: {report:#}"));
        row["summary"]["cost"]["heap"].clone()
    };
    let heap = heap_of(&[], &dir.join("traced"));
    // hono's mw answer builds a Request, a context, headers and a
    // rebuilt Response: kilobytes per request, and scavenges to match.
    let bytes = heap["bytes_per_request"].as_f64().unwrap_or_default();
    assert!(bytes > 500.0 && bytes < 1_000_000.0, "{heap:#}");
    assert!(heap["young_gcs"].as_u64().unwrap_or_default() > 0, "{heap:#}");
    assert!(heap["gc_share"].as_f64().unwrap_or(-1.0) > 0.0, "{heap:#}");
    let untraced = heap_of(&["--no-gc-trace"], &dir.join("untraced"));
    assert!(untraced.is_null(), "{untraced:#}");
}

/// `fwbench runtime-kit DIR` (what benches/runtimes/bench.py --kit uses)
/// writes the kit where asked, keeps it, and names each main module.
#[test]
fn the_runtime_kit_is_written_where_asked_and_kept() {
    let dir = scratch("runtime-kit-export");
    let kit = dir.join("kit");
    let (code, out) = fwbench_in(&dir, &["runtime-kit", kit.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("stderr:"))
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let js = fwbench::frameworks::FRAMEWORKS
        .iter()
        .filter(|f| matches!(f.serving, fwbench::frameworks::Serving::Js { .. }))
        .count();
    assert_eq!(lines.len(), 2 * js, "{out}");
    for line in &lines {
        assert!(Path::new(line["main"].as_str().unwrap()).is_file(), "{line}");
        assert!(Path::new(line["launcher"].as_str().unwrap()).is_file(), "{line}");
    }
    let express_mw = lines
        .iter()
        .find(|l| l["framework"] == "express" && l["scenario"] == "mw")
        .unwrap();
    assert_eq!(express_mw["mode"], "node");
    // A directory that exists is refused, not written into.
    let (code, out) = fwbench_in(&dir, &["runtime-kit", kit.to_str().unwrap()], &[]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("must not exist yet"), "{out}");
    // A scenario file is refused: the kit holds the built-in scenarios.
    let (code, out) = fwbench_in(
        &dir,
        &[
            "runtime-kit",
            dir.join("kit2").to_str().unwrap(),
            "--scenario",
            "./my.js",
        ],
        &[],
    );
    assert_ne!(code, 0, "{out}");
    assert!(!dir.join("kit2").exists());
}
