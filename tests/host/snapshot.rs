//! The V8 startup snapshot (src/engine/snapshot.rs): this binary starts its
//! runtimes from it, and a snapshot that does not match the binary, or is
//! corrupt, is refused with an error instead of being loaded. (That it
//! serves every framework × scenario is `check`'s test, and that one row's
//! patched globals stay in its runtime is frameworks::isolation: both run
//! on the snapshot path whenever this binary has one, which the first test
//! pins.)

use std::process::Command;

use fwbench::engine::{snapshot, snapshot_sets};

/// Whether this test run switched the snapshot off (`FWBENCH_SNAPSHOT=off
/// cargo test`, to run the suite on the path without it).
fn switched_off_here() -> bool {
    std::env::var_os("FWBENCH_SNAPSHOT").is_some_and(|value| value == "off")
}

/// `fwbench ARGS` as a user starts it, whatever this test run switched off.
fn fwbench_as_built(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(args)
        .env_remove("FWBENCH_SNAPSHOT")
        .output()
        .expect("run fwbench")
}

#[test]
fn the_v8_build_starts_from_its_snapshots_and_says_so() {
    let version = fwbench_as_built(&["--version"]);
    let text = String::from_utf8_lossy(&version.stdout);
    let list = fwbench_as_built(&["list"]);
    let listed = String::from_utf8_lossy(&list.stdout);
    let built = snapshot::built_in().expect("the built-in snapshots decompress");
    if cfg!(feature = "v8") {
        // The engine's own, and one per framework set.
        let names: Vec<&str> = built.iter().map(|(name, _)| *name).collect();
        assert!(names.contains(&""), "{names:?}");
        for set in snapshot_sets::SETS {
            assert!(
                names.contains(&set.name),
                "{} is not built in: {names:?}",
                set.name
            );
        }
        assert!(text.contains("snapshot: yes"), "{text}");
        assert!(
            text.contains("with each framework evaluated and warmed up: s200, hono, express"),
            "{text}"
        );
        assert!(listed.contains("snapshot: yes"), "{listed}");
    } else {
        assert!(built.is_empty());
        assert!(text.contains("snapshot: no"), "{text}");
    }
}

/// Every JS framework row starts from a framework snapshot of its own.
#[test]
fn every_js_framework_row_has_a_snapshot_set() {
    for framework in fwbench::frameworks::FRAMEWORKS {
        let set = snapshot_sets::for_framework(framework.name);
        assert_eq!(
            set.is_some(),
            framework.factory().is_some(),
            "{}: a JS row has a set, a native row none",
            framework.name
        );
    }
}

/// The snapshots a V8 build carries: the engine's own and one per
/// framework set (none would mean build.rs made none, which is a failure).
fn v8_snapshots() -> Vec<(&'static str, &'static [u8])> {
    let built = snapshot::built_in().expect("the built-in snapshots decompress");
    assert!(!built.is_empty(), "a V8 build carries its startup snapshots");
    built
}

#[test]
#[cfg_attr(not(feature = "v8"), ignore = "V8 only: QuickJS-ng has no startup snapshot")]
fn the_built_in_snapshots_pass_their_own_check() {
    for (name, sealed) in v8_snapshots() {
        snapshot::check(sealed).unwrap_or_else(|e| panic!("snapshot {name:?}: {e:#}"));
    }
}

#[test]
#[cfg_attr(not(feature = "v8"), ignore = "V8 only: QuickJS-ng has no startup snapshot")]
fn a_corrupt_snapshot_is_refused() {
    let (_, sealed) = v8_snapshots()[0];
    // One bit flipped in the middle of V8's data.
    let mut flipped = sealed.to_vec();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x10;
    let error = snapshot::check(&flipped).expect_err("a flipped bit is refused");
    assert!(format!("{error:#}").contains("corrupt"), "{error:#}");
    // Cut short.
    let error = snapshot::check(&sealed[..sealed.len() - 100]).expect_err("a cut snapshot is refused");
    assert!(format!("{error:#}").contains("corrupt"), "{error:#}");
    // Not a snapshot at all.
    let error = snapshot::check(b"not a snapshot").expect_err("garbage is refused");
    assert!(
        format!("{error:#}").contains("not an fwbench startup snapshot"),
        "{error:#}"
    );
    // As stored compressed (the engine's own is): cut short, it does not
    // decompress; a flipped bit that still decompresses fails the checksum.
    let stored = snapshot::stored()
        .iter()
        .find_map(|(_, stored)| match stored {
            snapshot::Stored::Lz4(compressed) => Some(*compressed),
            snapshot::Stored::Raw(_) => None,
        })
        .expect("the engine's own snapshot is stored compressed");
    let error = snapshot::check_compressed(&stored[..stored.len() / 2]).expect_err("refused");
    assert!(format!("{error:#}").contains("corrupt"), "{error:#}");
    let mut flipped = stored.to_vec();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x01;
    let error = snapshot::check_compressed(&flipped).expect_err("refused");
    assert!(format!("{error:#}").contains("corrupt"), "{error:#}");
}

#[test]
#[cfg_attr(not(feature = "v8"), ignore = "V8 only: QuickJS-ng has no startup snapshot")]
fn a_snapshot_of_other_extensions_is_refused_with_what_to_do() {
    let (_, sealed) = v8_snapshots()[0];
    // The seal's fingerprint (bytes 8..16) as another build would write it.
    let mut other = sealed.to_vec();
    other[8] ^= 0xff;
    let error = format!("{:#}", snapshot::check(&other).expect_err("refused"));
    assert!(error.contains("built for other extensions"), "{error}");
    assert!(error.contains("rebuild fwbench"), "{error}");
    // A runtime that registers other extensions than the snapshots hold
    // (here: none) refuses the built-in ones, the engine's and a
    // framework's; with the snapshots switched off it starts without one.
    for set in [None, Some("express")] {
        if switched_off_here() {
            assert!(matches!(snapshot::startup(&[], set), Ok(None)));
            continue;
        }
        let error = snapshot::startup(&[], set).expect_err("refused for other extensions");
        assert!(
            format!("{error:#}").contains("built for other extensions"),
            "{error:#}"
        );
    }
}

/// A framework's snapshot evaluated its bundle at build time; what V8 and
/// that evaluation leave in the context must look as it does without the
/// snapshot: `Error.stackTraceLimit` 10 (express's depd set it while V8
/// had none, and V8 adds its own to each context made from a snapshot),
/// no extra own properties on `Error`, this runtime's time origin, random
/// numbers of its own, the same globals (the framework's warm-up left
/// none), and the global `Response` replaced only in the row
/// that replaces it (hono-patched: hono's snapshot serves both hono rows).
/// Every JS row, with its snapshot and without.
#[test]
fn a_framework_snapshot_leaves_the_context_as_evaluating_the_bundle_would() {
    use crate::support::{fixture, Server};

    let scenario = fixture("snapshot/environment.js");
    for framework in [
        "s200",
        "s200-light",
        "hono-patched",
        "hono",
        "express",
        "fastify",
        "elysia",
    ] {
        let mut seen = Vec::new();
        for snapshot in ["on", "off", "bootstrap", "on"] {
            let server = Server::spawn(
                &[
                    "--framework".as_ref(),
                    framework.as_ref(),
                    "--scenario".as_ref(),
                    scenario.as_os_str(),
                ],
                &[("FWBENCH_SNAPSHOT", snapshot)],
            );
            let response = server.get("/");
            assert_eq!(response.status, 200, "{framework}: {}", server.stderr());
            let answer: serde_json::Value = serde_json::from_str(&response.text()).expect("JSON");
            assert_eq!(
                answer["stackTraceLimit"], 10,
                "{framework}, snapshot {snapshot}: {answer}"
            );
            let origin = answer["timeOrigin"].as_f64().expect("a time origin");
            let now = answer["now"].as_f64().expect("performance.now()");
            let date = answer["dateNow"].as_f64().expect("Date.now()");
            assert!(
                (origin + now - date).abs() < 1_000.0,
                "{framework}, snapshot {snapshot}: time origin {origin} + {now} is not {date}"
            );
            assert_eq!(
                answer["nodeServerResponse"],
                framework == "hono-patched",
                "{framework}, snapshot {snapshot}: {answer}"
            );
            assert_eq!(
                answer["consoleStable"], true,
                "{framework}, snapshot {snapshot}: {answer}"
            );
            seen.push(answer);
        }
        for (answer, snapshot) in seen.iter().zip(["on", "off", "bootstrap", "on"]) {
            for (what, key) in [
                ("Error's own properties", "errorOwn"),
                ("the global object's own properties", "globals"),
                ("queueMicrotask", "queueMicrotask"),
            ] {
                assert_eq!(
                    seen[0][key], answer[key],
                    "{framework}: {what} differ with the snapshot and with {snapshot}"
                );
            }
        }
        assert_ne!(
            seen[0]["random"], seen[3]["random"],
            "{framework}: two runtimes from one snapshot drew the same random number"
        );
    }
}

/// What was true when the snapshot was built must not leak into a runtime
/// started from it: `performance.timeOrigin` is this runtime's start (the
/// bootstrap ran at build time, hours or weeks before), and two runtimes
/// draw different random numbers. Both paths, with the snapshot and
/// without.
#[test]
fn a_runtime_has_its_own_time_origin_and_random_numbers() {
    use crate::support::{fixture, Server};

    for snapshot in ["on", "off"] {
        let answers: Vec<serde_json::Value> = (0..2)
            .map(|_| {
                let server = Server::start_with_env(
                    &fixture("snapshot/clock.js"),
                    &[],
                    &[("FWBENCH_SNAPSHOT", snapshot)],
                );
                let response = server.get("/");
                assert_eq!(response.status, 200, "{}", server.stderr());
                serde_json::from_str(&response.text()).expect("the fixture's JSON")
            })
            .collect();
        for answer in &answers {
            let origin = answer["timeOrigin"].as_f64().expect("a time origin");
            let now = answer["now"].as_f64().expect("performance.now()");
            let date = answer["dateNow"].as_f64().expect("Date.now()");
            // The origin plus the time since is the wall clock; a runtime
            // answers its first request within seconds of starting.
            assert!(
                (origin + now - date).abs() < 1_000.0,
                "snapshot {snapshot}: timeOrigin {origin} + now {now} is not Date.now() {date}"
            );
            assert!((0.0..30_000.0).contains(&now), "snapshot {snapshot}: {answer}");
        }
        assert_ne!(
            answers[0]["random"], answers[1]["random"],
            "snapshot {snapshot}: two runtimes drew the same random numbers"
        );
    }
}

/// How many functions of a framework's own modules (its bundle, or s200's
/// files) V8 compiled while a row started and answered one request, read
/// from its function-event log (`--log-function-events`).
fn compiled_at_run_time(framework: &str, snapshot: &str) -> usize {
    use crate::support::Server;
    use std::collections::HashSet;

    let log = crate::bench::scratch(&format!("compiled-{framework}-{snapshot}")).join("v8.log");
    let flags = format!(
        "--log-function-events --logfile={} --no-logfile-per-isolate",
        log.display()
    );
    let server = Server::spawn(
        &[
            "--framework".as_ref(),
            framework.as_ref(),
            "--scenario".as_ref(),
            "hello".as_ref(),
        ],
        &[("FWBENCH_SNAPSHOT", snapshot), ("FWBENCH_V8_FLAGS", &flags)],
    );
    assert_eq!(server.get("/").status, 200, "{framework}: {}", server.stderr());
    server.terminate();
    let text = std::fs::read_to_string(&log).expect("V8's log");
    // script-details,<id>,<url>,... and function,<event>,<script id>,...
    let mut own = HashSet::new();
    let mut compiled = 0;
    for line in text.lines() {
        match line.split(',').collect::<Vec<_>>().as_slice() {
            ["script-details", id, url, ..]
                if url.starts_with("fwbench:///vendor/") || url.starts_with("fwbench:///s200/") =>
            {
                own.insert(id.to_string());
            }
            ["function", "parse-function", script, ..] if own.contains(*script) => compiled += 1,
            _ => {}
        }
    }
    compiled
}

/// A framework row's snapshot holds its request path compiled (the
/// rehearsal's code caches, build/code_caches.rs): V8 compiles next to
/// none of the framework's functions while the row starts and answers its
/// first request, a tenth at most of what it compiles when the framework
/// is evaluated at start (`FWBENCH_SNAPSHOT=bootstrap`). Without the code
/// caches the request path alone was a fifth to a third of that.
#[test]
#[cfg_attr(not(feature = "v8"), ignore = "V8 only: QuickJS-ng compiles no code caches")]
fn a_framework_row_starts_with_its_request_path_compiled() {
    for framework in ["s200", "hono", "express", "fastify", "elysia"] {
        let with_snapshot = compiled_at_run_time(framework, "on");
        let evaluated_at_start = compiled_at_run_time(framework, "bootstrap");
        assert!(
            evaluated_at_start >= 20,
            "{framework}: only {evaluated_at_start} of its functions compiled when it is evaluated at start"
        );
        assert!(
            with_snapshot * 10 <= evaluated_at_start,
            "{framework}: {with_snapshot} functions compiled at run time from its snapshot, \
             {evaluated_at_start} when it is evaluated at start"
        );
    }
}
