//! Apps that cannot be served make `fwbench serve` exit non-zero with the
//! file, line and reason.

use std::process::Command;

use crate::support::fixture;

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
    assert!(err.contains("never called listen()"), "{err}");
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
    assert!(
        err.contains("EACCES") && err.contains("only its project directory"),
        "{err}"
    );
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

/// A test file whose top level loops in native code ends only its own
/// child fwbench: it fails with the reason, the other files still run.
#[test]
fn a_test_file_stuck_in_native_code_fails_alone() {
    let out = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .arg("test")
        .arg(fixture("jstest-stuck"))
        .output()
        .expect("run fwbench test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("ok - still runs"), "{stdout}");
    assert!(
        stdout.contains("stuck.test.js failed to load") && stdout.contains("exit status 70"),
        "{stdout}"
    );
    assert!(stdout.contains("1 passed, 1 failed"), "{stdout}");
}

/// `s200/<subpath>` resolves through js/s200/package.json's `exports`, as
/// Node resolves it: every subpath the package exports can be imported
/// inside fwbench (the middleware batteries used to fail with "no embedded
/// module 'fwbench:///s200/cors.js'").
#[test]
fn every_export_of_s200_imports_by_its_package_name() {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("js/s200/package.json");
    let text = std::fs::read_to_string(&manifest).expect("read js/s200/package.json");
    let package: serde_json::Value = serde_json::from_str(&text).expect("package.json is JSON");
    let exports = package["exports"]
        .as_object()
        .expect("package.json has an exports map");
    let specifiers: Vec<String> = exports
        .keys()
        .map(|key| match key.strip_prefix("./") {
            Some(subpath) => format!("s200/{subpath}"),
            None => "s200".to_owned(),
        })
        .collect();
    for battery in ["s200/cors", "s200/logger", "s200/request-id"] {
        assert!(
            specifiers.iter().any(|s| s == battery),
            "{battery} in {specifiers:?}"
        );
    }
    let mut suite =
        String::from("import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n");
    for (index, specifier) in specifiers.iter().enumerate() {
        suite.push_str(&format!("import * as export{index} from '{specifier}';\n"));
    }
    for (index, specifier) in specifiers.iter().enumerate() {
        suite.push_str(&format!(
            "test('{specifier}', () => assert.ok(Object.keys(export{index}).length > 0));\n"
        ));
    }
    suite.push_str(
        "test('the batteries are functions', () => {\n\
         \x20 for (const f of [export_cors.cors, export_logger.logger, export_rid.requestId]) assert.equal(typeof f, 'function');\n\
         });\n\
         import * as export_cors from 's200/cors';\n\
         import * as export_logger from 's200/logger';\n\
         import * as export_rid from 's200/request-id';\n",
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("s200-exports");
    std::fs::create_dir_all(&dir).expect("create the test directory");
    let file = dir.join("exports.test.js");
    std::fs::write(&file, suite).expect("write the test file");
    let out = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .arg("test")
        .arg(&file)
        .output()
        .expect("run fwbench test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("{} passed, 0 failed", specifiers.len() + 1)),
        "{stdout}"
    );
}
