//! The V8 startup snapshots (feature `v8`): the engine's own, a runtime
//! with the engine's extensions bootstrapped (deno_core's JS, the Web API
//! layer, our globals), sealed with the fingerprint of those extensions
//! (src/engine/snapshot_seal.rs); then one per framework set
//! (src/engine/snapshot_sets.rs), with the code caches of a rehearsal of
//! its rows (code_caches.rs); and the code caches of the JS runtimes
//! evaluate on top of each snapshot. The extensions come from the very
//! files the binary compiles (build.rs declares them), so the snapshot and
//! a runtime register the same ops in the same order.

use std::env;
use std::fs;
use std::path::PathBuf;

use super::{code_caches, embedded, extensions, external, snapshot_seal, snapshot_sets};

/// Sealed snapshots this big or bigger are stored raw, the others
/// LZ4-compressed. Decompressing costs a process's first runtime about
/// 0.7 ms per MB on one CPU (LZ4 at 1.4 GB/s here), 3.5 ms for express's
/// or fastify's 5 MB; stored raw, V8 reads them where they lie in the
/// binary. Raw costs binary size: 6 MB more for those two, within the
/// 15 MB budget for the snapshots, which elysia's (3.7 MB, another
/// 2.2 MB raw) would pass.
const STORED_RAW_FROM: usize = 4 << 20;

/// Builds the V8 startup snapshots: the engine's own into
/// `$OUT_DIR/startup_snapshot.bin`, one per framework set
/// (src/engine/snapshot_sets.rs) into `startup_snapshot_<name>.bin`, each
/// sealed for the extensions it holds and stored raw or LZ4-compressed by
/// size (`STORED_RAW_FROM`, src/engine/snapshot.rs); for each, the code
/// caches of the extension modules runtimes evaluate on top of it
/// (`snapshot_sets::RUNTIME_EXTENSION_MODULES`); and
/// `$OUT_DIR/startup_snapshots.rs`, the tables that embed them.
pub fn build(locked: &[(String, String)], entries: &[(String, PathBuf)]) {
    let deno_core_version = locked
        .iter()
        .find(|(name, _)| name == "deno_core")
        .map_or("?", |(_, version)| version.as_str());
    // The budget is run-time state (OpState), not part of the snapshot:
    // each runtime brings its own, and with it the ArrayBuffer allocator
    // that counts against it (engine/mod.rs): a snapshot holds no
    // allocator, only buffers' bytes, which V8 gives backing stores from
    // the runtime's allocator when it deserializes them.
    let extensions = || extensions::all(external::ExternalBudget::new(usize::MAX));
    let fingerprint = snapshot_seal::fingerprint(
        &[deno_core::v8::V8::get_version(), deno_core_version],
        &extensions(),
    );
    let options = deno_core::snapshot::CreateSnapshotOptions {
        cargo_manifest_dir: env!("CARGO_MANIFEST_DIR"),
        startup_snapshot: None,
        skip_op_registration: false,
        extensions: extensions(),
        extension_transpiler: None,
        with_runtime_cb: None,
    };
    let built = deno_core::snapshot::create_snapshot(options, None)
        .unwrap_or_else(|error| panic!("building the V8 startup snapshot failed: {error}"));
    for file in &built.files_loaded_during_snapshot {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut table = String::from(
        "/// (snapshot set name, sealed snapshot as stored); \"\" is the engine's own.\npub static SNAPSHOTS: &[(&str, super::Stored)] = &[\n",
    );
    let mut caches = String::from(
        "/// (snapshot set name, extension module specifier, V8 code cache made against that snapshot).\npub static EXTENSION_CODE_CACHES: &[(&str, &str, &[u8])] = &[\n",
    );
    let mut write = |name: &str, snapshot: Box<[u8]>| {
        let file = if name.is_empty() {
            "startup_snapshot.bin".to_owned()
        } else {
            format!("startup_snapshot_{name}.bin")
        };
        let dest = out.join(&file);
        let sealed = snapshot_seal::seal(&snapshot, fingerprint);
        let path = format!("{:?}", dest.display().to_string());
        let (stored, bytes) = if sealed.len() >= STORED_RAW_FROM {
            (format!("Raw(&super::Aligned(*include_bytes!({path})).0)"), sealed)
        } else {
            (
                format!("Lz4(include_bytes!({path}))"),
                lz4_flex::compress_prepend_size(&sealed),
            )
        };
        fs::write(&dest, bytes).unwrap_or_else(|e| panic!("write {file}: {e}"));
        table.push_str(&format!("    ({name:?}, super::Stored::{stored}),\n"));
        // A runtime made here from the snapshot lives as long as the script.
        let snapshot: &'static [u8] = Box::leak(snapshot);
        for (index, (specifier, embedded_path)) in snapshot_sets::RUNTIME_EXTENSION_MODULES.iter().enumerate()
        {
            let source = embedded::get(embedded_path)
                .unwrap_or_else(|| panic!("{specifier}: no embedded file {embedded_path}"));
            let cache = code_caches::eager_code_cache(snapshot, extensions(), specifier, source)
                .unwrap_or_else(|e| panic!("the code cache of {specifier} for snapshot {name:?}: {e}"));
            let file = format!(
                "code_cache_{}_{index}.bin",
                if name.is_empty() { "engine" } else { name }
            );
            fs::write(out.join(&file), cache).unwrap_or_else(|e| panic!("write {file}: {e}"));
            let path = format!("{:?}", out.join(&file).display().to_string());
            caches.push_str(&format!(
                "    ({name:?}, {specifier:?}, &super::Aligned(*include_bytes!({path})).0),\n"
            ));
        }
    };
    embedded::install(entries);
    write("", built.output);
    for set in snapshot_sets::SETS {
        write(set.name, framework_snapshot(extensions, set));
    }
    table.push_str("];\n");
    caches.push_str("];\n");
    table.push_str(&caches);
    fs::write(out.join("startup_snapshots.rs"), table).expect("write startup_snapshots.rs");
}

/// Run before a framework's modules are evaluated for its snapshot: V8
/// makes snapshot contexts without `Error.stackTraceLimit` and installs it
/// (10) in each context made from one; a module that reads stack frames
/// when it loads (express's depd names its caller) gets them as it would
/// at run time.
const SNAPSHOT_BEFORE: &str = "Error.stackTraceLimit = 10;";

/// Run after: `Error` back to the shape V8 expects of a snapshot context.
/// V8 adds `stackTraceLimit` to it in each context made from the snapshot
/// and fails on finding it there already. A module that saved and restored
/// `Error.prepareStackTrace` (depd) left it as an own `undefined` after
/// `stackTraceLimit`: it is taken off first, so that deleting the limit
/// undoes the last property added and `Error` keeps its fast shape, then
/// put back, as evaluating the module at run time would leave it.
const SNAPSHOT_AFTER: &str = r#"
const leftPrepare = Object.hasOwn(Error, "prepareStackTrace") && Error.prepareStackTrace === undefined;
if (leftPrepare) delete Error.prepareStackTrace;
delete Error.stackTraceLimit;
if (leftPrepare) Error.prepareStackTrace = undefined;
"#;

/// A snapshot of the engine's bootstrap with `set`'s modules evaluated,
/// loaded through the module loader app runtimes use (src/engine/loader.rs)
/// from the files the binary embeds, so that their URLs in the snapshot's
/// module map are those the app's imports resolve to, with the code caches
/// of a rehearsal of the set's rows (build/code_caches.rs); then the set's
/// frameworks warmed up (`SnapshotSet::warm_up`).
fn framework_snapshot(
    extensions: impl Fn() -> Vec<deno_core::Extension>,
    set: &snapshot_sets::SnapshotSet,
) -> Box<[u8]> {
    use std::rc::Rc;

    let failed = |what: String| -> ! { panic!("building the {} startup snapshot failed: {what}", set.name) };
    let caches = code_caches::rehearse(set, extensions())
        .unwrap_or_else(|e| failed(format!("rehearsing its rows (js/runtime/rehearsal.js): {e}")));
    // deno_core schedules V8's delayed tasks on a tokio runtime.
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap_or_else(|e| failed(format!("no tokio runtime: {e}")));
    let _entered = tokio.enter();
    let loader = Rc::new(code_caches::CachingLoader::new(caches));
    let mut runtime = deno_core::JsRuntimeForSnapshot::new(deno_core::RuntimeOptions {
        extensions: extensions(),
        module_loader: Some(loader.clone()),
        ..Default::default()
    });
    runtime
        .execute_script("ext:fwbench_engine/snapshot_before.js", SNAPSHOT_BEFORE)
        .unwrap_or_else(|e| failed(e.to_string()));
    code_caches::evaluate(&mut runtime, &*loader, &tokio, set.modules).unwrap_or_else(|e| failed(e));
    if !set.warm_up.is_empty() {
        let call = format!(
            "import({}).then((warmup) => warmup.warmUp({}))",
            serde_json::Value::from(snapshot_sets::WARM_UP_MODULE),
            serde_json::Value::from(set.warm_up.to_vec())
        );
        let promise = runtime
            .execute_script("ext:fwbench_engine/warm_up.js", call)
            .unwrap_or_else(|e| failed(format!("warm-up: {e}")));
        let settled = runtime.resolve(promise);
        // Then whatever it queued (a setImmediate) runs to its end: a
        // timer still pending, or cleared but not yet due, would leave
        // deno_core's timer lists, which live in JS, in the snapshot.
        tokio
            .block_on(async {
                runtime
                    .with_event_loop_promise(settled, Default::default())
                    .await?;
                runtime.run_event_loop(Default::default()).await
            })
            .unwrap_or_else(|e| failed(format!("warm-up: {e}")));
    }
    runtime
        .execute_script("ext:fwbench_engine/snapshot_after.js", SNAPSHOT_AFTER)
        .unwrap_or_else(|e| failed(e.to_string()));
    runtime.snapshot()
}
