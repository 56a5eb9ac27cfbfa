//! Apps that cannot be served make `fwbench serve` exit non-zero with the
//! file, line and reason.

use std::process::Command;

use crate::common::fixture;

/// Runs `fwbench serve` on a broken app; returns stderr (it must fail).
fn serve_fails(app: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(["serve", "--port", "0"])
        .arg(fixture(app))
        .output()
        .expect("run fwbench serve");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{app} should not serve; stderr: {stderr}");
    stderr
}

#[test]
fn a_syntax_error_names_file_and_line() {
    let err = serve_fails("badapps/syntax/app.js");
    assert!(err.contains("badapps/syntax/app.js"), "{err}");
    assert!(err.contains("SyntaxError"), "{err}");
    assert!(err.contains(":3"), "names line 3: {err}");
}

#[test]
fn an_error_at_load_names_file_and_line() {
    let err = serve_fails("badapps/throws/app.js");
    assert!(err.contains("TypeError"), "{err}");
    assert!(err.contains("badapps/throws/app.js:3"), "{err}");
}

#[test]
fn a_missing_default_export_says_what_to_export() {
    let err = serve_fails("badapps/noexport/app.js");
    assert!(err.contains("no default export"), "{err}");
    assert!(err.contains("fetch(request)"), "{err}");
}

#[test]
fn a_default_export_that_is_not_an_app_is_refused() {
    let err = serve_fails("badapps/notfetch/app.js");
    assert!(err.contains("not a fetch handler"), "{err}");
}

#[test]
fn an_import_outside_the_app_tree_is_refused() {
    let err = serve_fails("badapps/escape/app.js");
    assert!(err.contains("../../hello/app.js"), "{err}");
    assert!(err.contains("outside the app's directory"), "{err}");
}

#[test]
fn a_missing_file_is_reported() {
    let err = serve_fails("does-not-exist.js");
    assert!(err.contains("does-not-exist.js"), "{err}");
}

#[test]
fn js_test_files_run_in_the_engine_and_failures_count() {
    let out = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .arg("test")
        .arg(fixture("jstest"))
        .output()
        .expect("run fwbench test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "a failing test must fail the run: {stdout}"
    );
    assert!(stdout.contains("ok - passes"), "{stdout}");
    assert!(
        stdout.contains("not ok - group > fails with a message"),
        "{stdout}"
    );
    assert!(stdout.contains("expected failure"), "{stdout}");
    assert!(stdout.contains("ok - group > is skipped # SKIP"), "{stdout}");
    assert!(stdout.contains("1 passed, 1 failed, 1 skipped"), "{stdout}");
}
