//! Ops for host services JS cannot do itself that are not cryptography
//! (that is ops_crypto.rs): the server log.

use deno_core::op2;

/// Writes one line to the server log (stderr).
#[op2(fast)]
pub fn op_fwbench_log(#[string] line: &str) {
    eprintln!("{}", line.trim_end_matches('\n'));
}
