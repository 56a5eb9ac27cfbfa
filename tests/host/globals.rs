//! App code finds only the documented global surface, on both engines.
//! tests/fixtures/globals/allowed.txt is that surface, one list with the
//! reason for each group; the engines' own globals (the QuickJS backend's
//! `__v8x*` helpers, `gc`, V8's flag-enabled extensions) are removed before
//! app code runs, with V8's startup snapshot and without.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::support::{fixture, Server};

/// The engine this test binary was built for, as allowed.txt tags it.
const ENGINE: &str = if cfg!(feature = "v8") { "v8" } else { "quickjs" };

/// allowed.txt's keys for [`ENGINE`], per namespace (`globalThis`,
/// `Atomics`).
fn allowed() -> BTreeMap<String, BTreeSet<String>> {
    let path = fixture("globals/allowed.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut sections: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut section = None;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.to_string());
            continue;
        }
        let section = section
            .clone()
            .expect("a key before the first [section] in allowed.txt");
        let mut words = line.split_whitespace();
        let key = words.next().expect("a key");
        let only = words
            .next()
            .map(|tag| tag.strip_prefix('@').expect("an @engine tag"));
        if only.is_none_or(|engine| engine == ENGINE) {
            sections.entry(section).or_default().insert(key.to_string());
        }
    }
    sections
}

fn surface(server: &Server) -> BTreeMap<String, BTreeSet<String>> {
    let response = server.get("/");
    assert_eq!(response.status, 200, "{}", server.stderr());
    serde_json::from_str(&response.text()).expect("the fixture's JSON")
}

/// Keys an app finds that the list does not have, and listed keys the
/// engine lacks, per namespace.
fn differences(server: &Server) -> Vec<String> {
    let allowed = allowed();
    let seen = surface(server);
    let mut wrong = Vec::new();
    for (namespace, keys) in &allowed {
        let found = seen.get(namespace).cloned().unwrap_or_default();
        for key in found.difference(keys) {
            wrong.push(format!("{namespace}: {key} is not in allowed.txt"));
        }
        for key in keys.difference(&found) {
            wrong.push(format!("{namespace}: {key} is listed for {ENGINE} but missing"));
        }
    }
    wrong
}

#[test]
fn an_app_sees_only_the_documented_globals() {
    let server = Server::start(&fixture("globals/app.js"), &[]);
    let wrong = differences(&server);
    assert!(wrong.is_empty(), "on {ENGINE}:\n{}", wrong.join("\n"));
}

/// The same surface when V8 starts without its startup snapshot: the
/// bootstrap then runs in each runtime instead of at build time, and the
/// host's removal of the engine's own globals comes after it either way.
#[test]
#[cfg_attr(not(feature = "v8"), ignore = "V8's startup snapshot")]
fn an_app_sees_the_same_globals_without_the_snapshot() {
    let server = Server::start_with_env(&fixture("globals/app.js"), &[], &[("FWBENCH_SNAPSHOT", "off")]);
    let wrong = differences(&server);
    assert!(
        wrong.is_empty(),
        "on {ENGINE} without the snapshot:\n{}",
        wrong.join("\n")
    );
}

/// A V8 flag can add a global the bootstrap removes (`ShadowRealm`); those
/// that add globals it cannot remove (`--expose-gc`: `gc` is not
/// configurable) are refused at start-up.
#[test]
#[cfg_attr(not(feature = "v8"), ignore = "V8's flags")]
fn globals_that_v8_flags_add_are_removed_or_the_flags_refused() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .arg("list")
        .env("FWBENCH_V8_FLAGS", "--trace-gc --expose-gc")
        .output()
        .expect("run fwbench list");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--expose-gc is refused"), "{stderr}");

    // V8 installs flag-enabled globals again in each context made from the
    // startup snapshot: they are removed at run time, on both paths.
    let flags = "--harmony-shadow-realm";
    for snapshot in ["on", "off"] {
        let server = Server::start_with_env(
            &fixture("globals/app.js"),
            &[],
            &[("FWBENCH_V8_FLAGS", flags), ("FWBENCH_SNAPSHOT", snapshot)],
        );
        let wrong = differences(&server);
        assert!(
            wrong.is_empty(),
            "with {flags}, snapshot {snapshot}:\n{}",
            wrong.join("\n")
        );
    }
}

/// The original `Atomics.wait`, found among the QuickJS backend's
/// intrinsics, blocked the worker for good. Now the list is gone (a
/// TypeError, 500) and the worker serves on.
#[test]
fn atomics_wait_cannot_be_found_through_the_engine_intrinsics() {
    let server = Server::start(
        &fixture("hostile/app.js"),
        &["--cpu-limit", "1s", "--handler-timeout", "3s"],
    );
    for path in ["/intrinsics-wait", "/shadow-realm-wait"] {
        assert_eq!(server.get(path).status, 500, "{path}: {}", server.stderr());
        assert_eq!(server.get("/ok").status, 200, "after {path}");
    }
    let log = server.wait_for_log("/shadow-realm-wait -> 500", Duration::from_secs(5));
    assert!(log.contains("GET /intrinsics-wait -> 500: TypeError"), "{log}");
    assert!(server.terminate() < Duration::from_secs(3));
}
