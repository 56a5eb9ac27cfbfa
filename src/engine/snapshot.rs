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
//! before. `FWBENCH_SNAPSHOT=off` starts V8 runtimes without it too, and
//! `FWBENCH_SNAPSHOT=bootstrap` from the engine's own snapshot only (the
//! framework evaluated at each start), to measure what each saves.

use std::sync::OnceLock;

use deno_core::Extension;

use super::snapshot_seal::{self, Refused};

/// The variable that turns the snapshots off (`off`) or the framework
/// snapshots only (`bootstrap`).
pub const VARIABLE: &str = super::switches::SNAPSHOT;

/// Which snapshots runtimes start from, as `FWBENCH_SNAPSHOT` says.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A framework row's own snapshot, else the engine's (the default).
    All,
    /// The engine's own snapshot for every runtime (`bootstrap`).
    Bootstrap,
    /// None (`off`).
    Off,
}

fn mode() -> Mode {
    static MODE: OnceLock<Mode> = OnceLock::new();
    *MODE.get_or_init(|| match std::env::var_os(VARIABLE) {
        Some(value) if value == "off" => Mode::Off,
        Some(value) if value == "bootstrap" => Mode::Bootstrap,
        _ => Mode::All,
    })
}

/// A sealed snapshot as build.rs stored it in the binary. There is one per
/// framework (`snapshot_sets`), 2 to 5 MB each: the smaller ones are
/// LZ4-compressed (to a third), the biggest stored raw, where decompressing
/// would cost a start 3 ms or more (build/snapshots.rs's `STORED_RAW_FROM`).
#[derive(Clone, Copy)]
pub enum Stored {
    /// LZ4-compressed, its size prepended: decompressed once per process.
    Lz4(&'static [u8]),
    /// As sealed: V8 reads it where it lies, in the binary's read-only data.
    Raw(&'static [u8]),
}

/// Raw snapshot bytes aligned as an allocation would be, like the
/// decompressed ones (the seal's header and V8's are words).
#[repr(C, align(16))]
#[cfg_attr(
    not(feature = "v8"),
    allow(dead_code, reason = "only build/snapshots.rs's table for V8 uses it")
)]
struct Aligned<Bytes: ?Sized>(Bytes);

/// The snapshots build.rs made for this binary: (set name, sealed and
/// stored), the engine's own under "".
#[cfg(feature = "v8")]
mod built {
    include!(concat!(env!("OUT_DIR"), "/startup_snapshots.rs"));
}
#[cfg(feature = "v8")]
static SNAPSHOTS: &[(&str, Stored)] = built::SNAPSHOTS;
#[cfg(not(feature = "v8"))]
static SNAPSHOTS: &[(&str, Stored)] = &[];

/// The code caches build.rs made of the extension modules a runtime
/// evaluates on top of a snapshot (`snapshot_sets::RUNTIME_EXTENSION_MODULES`),
/// against each snapshot: (set name, specifier, cache).
#[cfg(feature = "v8")]
static EXTENSION_CODE_CACHES: &[(&str, &str, &[u8])] = built::EXTENSION_CODE_CACHES;
#[cfg(not(feature = "v8"))]
static EXTENSION_CODE_CACHES: &[(&str, &str, &[u8])] = &[];

/// A snapshot to start a runtime from, and what was built for it.
pub struct Startup {
    /// The sealed snapshot's V8 blob.
    pub snapshot: &'static [u8],
    /// The set it is (its name; "" for the engine's own).
    set: &'static str,
}

impl std::fmt::Debug for Startup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Startup")
            .field("set", &self.set)
            .field("snapshot_bytes", &self.snapshot.len())
            .finish()
    }
}

impl Startup {
    /// The code caches of the extension modules a runtime evaluates on
    /// top of this snapshot, for deno_core to hand V8
    /// (`RuntimeOptions::extension_code_cache`).
    pub fn extension_code_cache(&self) -> std::rc::Rc<dyn deno_core::ExtCodeCache> {
        std::rc::Rc::new(ExtensionCodeCaches { set: self.set })
    }
}

/// The code caches made against one snapshot. V8 checks a cache before it
/// uses one (its engine version, flags, source and the snapshot's
/// read-only heap) and compiles the module instead when it does not fit,
/// e.g. under `FWBENCH_V8_FLAGS` that change how code is compiled; deno_core
/// then makes a cache of its own, which nothing keeps.
struct ExtensionCodeCaches {
    set: &'static str,
}

impl deno_core::ExtCodeCache for ExtensionCodeCaches {
    fn get_code_cache_info(
        &self,
        specifier: &deno_core::ModuleSpecifier,
        _code: &deno_core::ModuleSourceCode,
        _esm: bool,
    ) -> deno_core::SourceCodeCacheInfo {
        let data = EXTENSION_CODE_CACHES
            .iter()
            .find(|(set, module, _)| *set == self.set && *module == specifier.as_str())
            .map(|(_, _, cache)| std::borrow::Cow::Borrowed(*cache));
        deno_core::SourceCodeCacheInfo { hash: 0, data }
    }

    fn code_cache_ready(
        &self,
        _specifier: deno_core::ModuleSpecifier,
        _hash: u64,
        _cache: &[u8],
        _esm: bool,
    ) {
        // Made by deno_core for a module with no cache, or one V8 refused:
        // the binary's caches are read-only, and another start would find
        // the same.
    }
}

/// Whether this binary carries startup snapshots, and whether they are used.
pub fn describe() -> String {
    if SNAPSHOTS.is_empty() {
        return "no (QuickJS-ng has none: the bootstrap is evaluated at each start)".to_owned();
    }
    let sets: Vec<&str> = SNAPSHOTS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !name.is_empty())
        .collect();
    match mode() {
        Mode::Off => format!("no (built in, but {VARIABLE}=off)"),
        Mode::Bootstrap => format!(
            "bootstrap only (bootstrap and Web API JS; {VARIABLE}=bootstrap leaves out the framework snapshots: {})",
            sets.join(", ")
        ),
        Mode::All => format!(
            "yes (bootstrap and Web API JS, built at build time; with each framework evaluated and warmed up: {})",
            sets.join(", ")
        ),
    }
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

/// The snapshot to start a runtime with `extensions` from: the set named
/// `set` (a framework's, see `snapshot_sets`), else the engine's own;
/// `None` when there is none (or it is switched off), an error when it does
/// not match them or is corrupt.
pub fn startup(extensions: &[Extension], set: Option<&str>) -> anyhow::Result<Option<Startup>> {
    let set = match mode() {
        Mode::Off => return Ok(None),
        Mode::Bootstrap => None,
        Mode::All => set,
    };
    let Some(index) = set
        .and_then(|set| SNAPSHOTS.iter().position(|(name, _)| *name == set))
        .or_else(|| SNAPSHOTS.iter().position(|(name, _)| name.is_empty()))
    else {
        return Ok(None);
    };
    // Checked once per process and snapshot (the workers of one server
    // share it); the fingerprint at every runtime, since it depends on the
    // extensions passed.
    static VERIFIED: OnceLock<Vec<OnceLock<Opened>>> = OnceLock::new();
    let verified = VERIFIED.get_or_init(|| SNAPSHOTS.iter().map(|_| OnceLock::new()).collect());
    verified[index]
        .get_or_init(|| {
            let sealed = decompressed(index)?;
            snapshot_seal::verify(sealed).map(|()| sealed)
        })
        .clone()
        .and_then(|sealed| snapshot_seal::open(sealed, fingerprint(extensions)))
        .map(|snapshot| {
            Some(Startup {
                snapshot,
                set: SNAPSHOTS[index].0,
            })
        })
        .map_err(|refused| refusal(&refused))
}

/// A built-in snapshot decompressed and its seal checked, or why not.
type Opened = Result<&'static [u8], Refused>;

/// Built-in snapshot `index`'s sealed bytes, decompressed once per
/// process if stored compressed. They live as long as the process: V8
/// reads a snapshot for as long as its isolate lives, and the isolates of
/// one process share it.
fn decompressed(index: usize) -> Opened {
    static DECOMPRESSED: OnceLock<Vec<OnceLock<Opened>>> = OnceLock::new();
    let compressed = match SNAPSHOTS[index].1 {
        Stored::Raw(sealed) => return Ok(sealed),
        Stored::Lz4(compressed) => compressed,
    };
    let decompressed = DECOMPRESSED.get_or_init(|| SNAPSHOTS.iter().map(|_| OnceLock::new()).collect());
    decompressed[index]
        .get_or_init(|| decompress(compressed).map(|sealed| &*Box::leak(sealed.into_boxed_slice())))
        .clone()
}

fn decompress(compressed: &[u8]) -> Result<Vec<u8>, Refused> {
    lz4_flex::decompress_size_prepended(compressed).map_err(|_| Refused::Corrupt)
}

/// Checks `sealed` as [`startup`] checks a built-in snapshot, against the
/// engine's own extensions; for tests of the seal.
pub fn check(sealed: &[u8]) -> anyhow::Result<()> {
    let fingerprint = fingerprint(&super::extensions::all(super::external::ExternalBudget::new(0)));
    snapshot_seal::verify(sealed)
        .and_then(|()| snapshot_seal::open(sealed, fingerprint))
        .map(drop)
        .map_err(|refused| refusal(&refused))
}

/// The built-in snapshots, sealed (decompressed: what [`check`] takes):
/// (set name, snapshot), the engine's own under "". Empty on QuickJS-ng.
/// A snapshot that does not even decompress is refused.
pub fn built_in() -> anyhow::Result<Vec<(&'static str, &'static [u8])>> {
    SNAPSHOTS
        .iter()
        .enumerate()
        .map(|(index, (name, _))| {
            decompressed(index)
                .map(|sealed| (*name, sealed))
                .map_err(|refused| refusal(&refused))
        })
        .collect()
}

/// Decompresses `compressed` as the binary's own snapshots are stored, and
/// checks it as [`check`] does; for tests of corrupt storage.
pub fn check_compressed(compressed: &[u8]) -> anyhow::Result<()> {
    check(&decompress(compressed).map_err(|refused| refusal(&refused))?)
}

/// The built-in snapshots as stored; for tests.
pub fn stored() -> &'static [(&'static str, Stored)] {
    SNAPSHOTS
}

fn refusal(refused: &Refused) -> anyhow::Error {
    anyhow::anyhow!(
        "refusing the V8 startup snapshot: {refused}; rebuild fwbench (cargo build), or start without it \
         ({VARIABLE}=off)"
    )
}
