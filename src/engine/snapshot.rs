//! The V8 startup snapshot built into the binary: the runtime as it stands
//! after the bootstrap (deno_core's own JS, the Web API layer of
//! deno_webidl, deno_web and deno_fetch, our globals), deserialized instead
//! of evaluated again by every runtime. build.rs builds it from the same
//! extension list (`extensions::all`) and seals it (`snapshot_seal`); a
//! runtime opens the seal with the fingerprint of the extensions it
//! registers and refuses a snapshot that does not match, with an error,
//! rather than load it.
//!
//! Each runtime deserializes its own copy: what one row's app does to its
//! globals (hono-patched replaces `Request` and `Response`) stays in that
//! runtime. QuickJS-ng has no snapshots and evaluates the bootstrap as
//! before. `FWBENCH_SNAPSHOT=off` starts V8 runtimes without it too, to
//! measure what it saves.

use std::sync::OnceLock;

use deno_core::Extension;

use super::snapshot_seal::{self, Refused};

/// The variable that turns the snapshot off (`off`).
pub const VARIABLE: &str = "FWBENCH_SNAPSHOT";

/// The sealed snapshot build.rs made for this binary.
#[cfg(feature = "v8")]
static SEALED: Option<&[u8]> = Some(include_bytes!(concat!(env!("OUT_DIR"), "/startup_snapshot.bin")));
#[cfg(not(feature = "v8"))]
static SEALED: Option<&[u8]> = None;

/// Whether this binary carries a startup snapshot, and whether it is used.
pub fn describe() -> &'static str {
    match (SEALED.is_some(), switched_off()) {
        (true, false) => "yes (bootstrap and Web API JS, built at build time)",
        (true, true) => "no (built in, but FWBENCH_SNAPSHOT=off)",
        (false, _) => "no (QuickJS-ng has none: the bootstrap is evaluated at each start)",
    }
}

fn switched_off() -> bool {
    static OFF: OnceLock<bool> = OnceLock::new();
    *OFF.get_or_init(|| std::env::var_os(VARIABLE).is_some_and(|value| value == "off"))
}

/// The fingerprint a snapshot must carry to be loaded with `extensions`.
pub fn fingerprint(extensions: &[Extension]) -> u64 {
    #[cfg(feature = "v8")]
    let engine = deno_core::v8::V8::get_version();
    #[cfg(not(feature = "v8"))]
    let engine = "QuickJS-ng";
    let deno_core = option_env!("FWBENCH_DEP_DENO_CORE").unwrap_or("?");
    snapshot_seal::fingerprint(&[engine, deno_core], extensions)
}

/// The snapshot to start a runtime with `extensions` from: `None` when
/// there is none (or it is switched off), an error when it does not match
/// them or is corrupt.
pub fn startup(extensions: &[Extension]) -> anyhow::Result<Option<&'static [u8]>> {
    let Some(sealed) = SEALED.filter(|_| !switched_off()) else {
        return Ok(None);
    };
    // The contents are checked once per process; the fingerprint at every
    // runtime, since it depends on the extensions passed.
    static INTACT: OnceLock<Result<(), Refused>> = OnceLock::new();
    INTACT
        .get_or_init(|| snapshot_seal::verify(sealed))
        .clone()
        .and_then(|()| snapshot_seal::open(sealed, fingerprint(extensions)))
        .map(Some)
        .map_err(|refused| refusal(&refused))
}

/// Checks `sealed` as [`startup`] checks the built-in snapshot, against the
/// engine's own extensions; for tests of the seal.
pub fn check(sealed: &[u8]) -> anyhow::Result<()> {
    let fingerprint = fingerprint(&super::extensions::all(super::external::ExternalBudget::new(0)));
    snapshot_seal::verify(sealed)
        .and_then(|()| snapshot_seal::open(sealed, fingerprint))
        .map(drop)
        .map_err(|refused| refusal(&refused))
}

/// The built-in snapshot, sealed, if this binary has one.
pub fn built_in() -> Option<&'static [u8]> {
    SEALED
}

fn refusal(refused: &Refused) -> anyhow::Error {
    anyhow::anyhow!(
        "refusing the V8 startup snapshot: {refused}; rebuild fwbench (cargo build), or start without it \
         ({VARIABLE}=off)"
    )
}
