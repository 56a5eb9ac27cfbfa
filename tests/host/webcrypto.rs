//! crypto.subtle (js/runtime/webcrypto.js over src/engine/ops_crypto.rs)
//! and node:crypto's digests, HMACs and secret keys, tested inside the
//! engine: tests/fixtures/webcrypto/webcrypto.test.js runs under `fwbench
//! test` (published vectors, the prod scenario's JWT through hono/jwt, and
//! the Web-standard error for each bad input; none may crash the host).

use crate::support::{fixture, fwbench};

#[test]
fn the_webcrypto_suite_passes_inside_the_engine() {
    let out = fwbench([std::ffi::OsStr::new("test"), fixture("webcrypto").as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(" 0 failed"), "{stdout}");
    assert!(!stdout.contains("not ok"), "{stdout}");
    assert!(stdout.contains("ok - JWT HS256 > hono/jwt"), "{stdout}");
}
