//! The engine's extensions: Deno's Web API crates, the stand-ins they need,
//! and our own bootstrap and host ops.
//!
//! Our JS is compiled into the binary (`ascii_str_include!`) rather than
//! named by path with deno_core's `esm = [...]` lists, which in deno_core
//! 0.413 are read from disk at run time unless a startup snapshot is built.
//! Each file is a V8 external string in the binary's read-only data,
//! checked to be 7-bit ASCII (what deno_core takes) when it compiles: a
//! runtime neither copies nor checks it.
//!
//! build.rs compiles this file too (with ops_host.rs, ops_crypto.rs, external.rs and
//! sandbox.rs) to build the V8 startup snapshot from exactly these
//! extensions: what the snapshot holds and what a runtime registers must
//! match op for op (middleware included), so there is one list. Hence nothing here may depend on the rest of the
//! crate; `deno_js` swaps in the Deno crates' embedded JS at run time.

use std::borrow::Cow;
use std::sync::Arc;

use deno_core::{ascii_str_include, Extension, ExtensionFileSource};

use super::{external, ops_crypto, ops_host, sandbox};

deno_core::extension!(
    fwbench_engine,
    deps = [deno_webidl, deno_web, deno_fetch],
    ops = [
        ops_crypto::op_fwbench_random_fill,
        ops_crypto::op_fwbench_random_uuid,
        ops_crypto::op_fwbench_hash,
        ops_crypto::op_fwbench_hmac,
        ops_crypto::op_fwbench_hmac_verify,
        ops_crypto::op_fwbench_timing_safe_equal,
        ops_host::op_fwbench_log,
        external::op_fwbench_external_reserve,
        external::op_fwbench_external_release,
    ],
    options = {
        budget: Arc<external::ExternalBudget>,
    },
    // A Blob's bytes, a Blob read back and an encoded string are counted
    // against the runtime's budget for memory outside the JS heap (see
    // external.rs): our ops take deno_web's and deno_core's places.
    middleware = |op| match op.name {
        "op_blob_create_part" => op.with_implementation_from(&external::op_fwbench_blob_create_part()),
        "op_blob_read_part" => op.with_implementation_from(&external::op_fwbench_blob_read_part()),
        "op_encode" => op.with_implementation_from(&external::op_fwbench_encode()),
        _ => op,
    },
    state = |state, options| {
        state.put(sandbox::deny_all());
        state.put(options.budget);
    },
);

/// The bootstrap module's specifier; it runs once per runtime.
const BOOTSTRAP: &str = "ext:fwbench_engine/bootstrap.js";

/// Every extension the engine needs, in dependency order; the runtime's
/// memory outside its JS heap counts against `budget` (state, not part of
/// the startup snapshot: build.rs passes one of its own).
pub fn all(budget: Arc<external::ExternalBudget>) -> Vec<Extension> {
    let mut engine = fwbench_engine::init(budget);
    engine.esm_files = Cow::Owned(vec![
        ExtensionFileSource::new(BOOTSTRAP, ascii_str_include!("../../js/runtime/bootstrap.js")),
        ExtensionFileSource::new(
            "ext:fwbench_engine/webcrypto.js",
            ascii_str_include!("../../js/runtime/webcrypto.js"),
        ),
    ]);
    engine.esm_entry_point = Some(BOOTSTRAP);
    // deno_fetch loads these specifiers from crates we do not link (deno_net
    // for TLS client keys, deno_telemetry for tracing); these stand-ins
    // refuse TLS and never trace.
    engine.lazy_loaded_js_files = Cow::Owned(vec![
        ExtensionFileSource::new(
            "ext:deno_net/02_tls.js",
            ascii_str_include!("../../js/runtime/stubs/02_tls.js"),
        ),
        ExtensionFileSource::new(
            "ext:deno_telemetry/telemetry.ts",
            ascii_str_include!("../../js/runtime/stubs/telemetry.js"),
        ),
        ExtensionFileSource::new(
            "ext:deno_telemetry/util.ts",
            ascii_str_include!("../../js/runtime/stubs/telemetry_util.js"),
        ),
    ]);
    vec![
        deno_webidl::deno_webidl::init(),
        deno_web::deno_web::init(
            Arc::new(deno_web::BlobStore::default()),
            None,
            false,
            deno_web::InMemoryBroadcastChannel::default(),
        ),
        deno_fetch::deno_fetch::init(deno_fetch::Options::default()),
        engine,
    ]
}
