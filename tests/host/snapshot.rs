//! The V8 startup snapshot (src/engine/snapshot.rs): this binary starts its
//! runtimes from it, and a snapshot that does not match the binary, or is
//! corrupt, is refused with an error instead of being loaded. (That it
//! serves every framework × scenario is `check`'s test, and that one row's
//! patched globals stay in its runtime is frameworks::isolation: both run
//! on the snapshot path whenever this binary has one, which the first test
//! pins.)

use std::process::Command;

use fwbench::engine::snapshot;

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
fn the_v8_build_starts_from_its_snapshot_and_says_so() {
    let version = fwbench_as_built(&["--version"]);
    let text = String::from_utf8_lossy(&version.stdout);
    let list = fwbench_as_built(&["list"]);
    let listed = String::from_utf8_lossy(&list.stdout);
    if cfg!(feature = "v8") {
        assert!(snapshot::built_in().is_some());
        assert!(text.contains("snapshot: yes"), "{text}");
        assert!(listed.contains("snapshot: yes"), "{listed}");
    } else {
        assert!(snapshot::built_in().is_none());
        assert!(text.contains("snapshot: no"), "{text}");
    }
}

#[test]
fn the_built_in_snapshot_passes_its_own_check() {
    let Some(sealed) = snapshot::built_in() else {
        return; // QuickJS-ng: no snapshot
    };
    snapshot::check(sealed).expect("the binary's own snapshot is accepted");
}

#[test]
fn a_corrupt_snapshot_is_refused() {
    let Some(sealed) = snapshot::built_in() else {
        return;
    };
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
}

#[test]
fn a_snapshot_of_other_extensions_is_refused_with_what_to_do() {
    let Some(sealed) = snapshot::built_in() else {
        return;
    };
    // The seal's fingerprint (bytes 8..16) as another build would write it.
    let mut other = sealed.to_vec();
    other[8] ^= 0xff;
    let error = format!("{:#}", snapshot::check(&other).expect_err("refused"));
    assert!(error.contains("built for other extensions"), "{error}");
    assert!(error.contains("rebuild fwbench"), "{error}");
    // A runtime that registers other extensions than the snapshot holds
    // (here: none) refuses the built-in one; with the snapshot switched
    // off it starts without one instead.
    if switched_off_here() {
        assert!(matches!(snapshot::startup(&[]), Ok(None)));
        return;
    }
    let error = snapshot::startup(&[]).expect_err("refused for other extensions");
    assert!(
        format!("{error:#}").contains("built for other extensions"),
        "{error:#}"
    );
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
