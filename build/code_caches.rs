//! V8 code caches for the startup snapshots (build.rs, V8 only).
//!
//! V8 compiles a function the first time it runs, so a runtime made from
//! a snapshot that only evaluated a framework still compiles the
//! framework's request path on its first request: 2 to 5 ms of a row's
//! start. Running requests while the snapshot is made would compile it,
//! but leaves state that slows every request after (js/runtime/warmup.js
//! says by how much). So the requests run elsewhere:
//!
//! 1. [`rehearse`]: a throwaway runtime, with the set's modules evaluated
//!    as in the snapshot, builds each row's app for the built-in scenarios
//!    and sends it their requests (js/runtime/rehearsal.js). Then each
//!    module it loaded is compiled again: V8 finds it in the isolate's
//!    compilation cache, with every function that ran compiled, and its
//!    code cache (bytecode, no objects) is taken.
//! 2. [`CachingLoader`] hands those caches to the runtime the snapshot is
//!    made in, and V8 reads the functions' bytecode from them instead of
//!    compiling the modules; the snapshot keeps it. Nothing more runs.
//!
//! [`eager_code_cache`] serves the JS a runtime evaluates on top of a
//! snapshot at each start (the adapter's serve.js), whose cache must be
//! made in an isolate started from that same snapshot: a code cache names
//! the read-only heap it was made against, and V8 refuses it in another.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use deno_core::error::ModuleLoaderError;
use deno_core::{
    v8, Extension, JsRuntime, ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader,
    ModuleSourceCode, ModuleSpecifier, ModuleType, ResolutionKind, RuntimeOptions, SourceCodeCacheInfo,
};

use super::loader::HostModuleLoader;
use super::snapshot_sets::{SnapshotSet, REHEARSAL_MODULE};

/// V8 code caches by module URL.
pub type CodeCaches = HashMap<String, Vec<u8>>;

/// The module loader app runtimes use (src/engine/loader.rs), which also
/// hands V8 the code cache it holds for a module (the snapshot's runtime
/// gets the rehearsal's) and keeps the source of every JavaScript module
/// it loads (the rehearsal's caches are made from them).
pub struct CachingLoader {
    inner: HostModuleLoader,
    caches: RefCell<CodeCaches>,
    loaded: RefCell<Vec<(String, String)>>,
}

impl CachingLoader {
    /// Loads as app runtimes do, with `caches`.
    pub fn new(caches: CodeCaches) -> Self {
        Self {
            inner: HostModuleLoader::new(None, None),
            caches: RefCell::new(caches),
            loaded: RefCell::default(),
        }
    }
}

impl ModuleLoader for CachingLoader {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        kind: ResolutionKind,
    ) -> Result<ModuleSpecifier, ModuleLoaderError> {
        self.inner.resolve(specifier, referrer, kind)
    }

    fn load(
        &self,
        url: &ModuleSpecifier,
        referrer: Option<&ModuleLoadReferrer>,
        options: ModuleLoadOptions,
    ) -> ModuleLoadResponse {
        let mut response = self.inner.load(url, referrer, options);
        if let ModuleLoadResponse::Sync(Ok(source)) = &mut response {
            // A module loads once per runtime: its cache is handed over.
            if let Some(cache) = self.caches.borrow_mut().remove(url.as_str()) {
                source.code_cache = Some(SourceCodeCacheInfo {
                    hash: 0,
                    data: Some(Cow::Owned(cache)),
                });
            }
            // JSON modules are not compiled: V8 has no code of theirs to cache.
            if let (ModuleType::JavaScript, ModuleSourceCode::String(code)) =
                (&source.module_type, &source.code)
            {
                self.loaded
                    .borrow_mut()
                    .push((url.to_string(), code.as_str().to_owned()));
            }
        }
        response
    }
}

/// Evaluates `modules` (specifiers as app code imports them) in `runtime`,
/// one after the other, as a framework's snapshot holds them.
pub fn evaluate(
    runtime: &mut JsRuntime,
    loader: &dyn ModuleLoader,
    tokio: &tokio::runtime::Runtime,
    modules: &[&str],
) -> Result<(), String> {
    for module in modules {
        let url = loader
            .resolve(module, "fwbench:///main.js", ResolutionKind::Import)
            .map_err(|e| format!("{module}: {e}"))?;
        tokio
            .block_on(async {
                let id = runtime.load_side_es_module(&url).await?;
                let evaluated = runtime.mod_evaluate(id);
                runtime.run_event_loop(Default::default()).await?;
                evaluated.await
            })
            .map_err(|e| format!("{url}: {e}"))?;
    }
    Ok(())
}

/// Rehearses `set`'s rows in a runtime of their own (see the module docs)
/// and returns the code cache of every module it loaded.
pub fn rehearse(set: &SnapshotSet, extensions: Vec<Extension>) -> Result<CodeCaches, String> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| format!("no tokio runtime: {e}"))?;
    let _entered = tokio.enter();
    let loader = Rc::new(CachingLoader::new(CodeCaches::new()));
    let mut runtime = JsRuntime::new(RuntimeOptions {
        extensions,
        module_loader: Some(loader.clone()),
        ..Default::default()
    });
    evaluate(&mut runtime, &*loader, &tokio, set.modules)?;
    let rows: Vec<serde_json::Value> = set
        .rows()
        .map(|(name, factory, mode)| serde_json::json!({ "name": name, "factory": factory, "mode": mode }))
        .collect();
    let call = format!(
        "import({}).then((rehearsal) => rehearsal.rehearse({}))",
        serde_json::Value::from(REHEARSAL_MODULE),
        serde_json::Value::from(rows)
    );
    let promise = runtime
        .execute_script("ext:fwbench_engine/rehearse.js", call)
        .map_err(|e| e.to_string())?;
    let settled = runtime.resolve(promise);
    // Not the event loop's end: a framework's timers (fastify's plugin
    // timeout) would hold it for seconds, and the runtime is dropped.
    tokio
        .block_on(runtime.with_event_loop_promise(settled, Default::default()))
        .map_err(|e| e.to_string())?;
    let loaded = loader.loaded.take();
    deno_core::scope!(scope, runtime);
    loaded
        .into_iter()
        .map(|(url, code)| {
            let cache = code_cache(
                scope,
                &url,
                &code,
                v8::script_compiler::CompileOptions::NoCompileOptions,
            )
            .ok_or_else(|| format!("{url}: no code cache"))?;
            Ok((url, cache))
        })
        .collect()
}

/// The code cache of ES module `source` named `url`, compiled with
/// `options` in `scope`'s isolate: with no options, what the isolate has
/// compiled of it so far, the compilation cache giving back the module it
/// loaded under the same name and source.
fn code_cache(
    scope: &mut v8::PinScope,
    url: &str,
    source: &str,
    options: v8::script_compiler::CompileOptions,
) -> Option<Vec<u8>> {
    let name = v8::String::new(scope, url)?;
    let text = v8::String::new(scope, source)?;
    // As deno_core names a module it compiles (its script_origin): the
    // compilation cache's key includes the origin.
    let origin = v8::ScriptOrigin::new(scope, name.into(), 0, 0, false, 0, None, false, false, true, None);
    let mut source = v8::script_compiler::Source::new(text, Some(&origin));
    let module = v8::script_compiler::compile_module2(
        scope,
        &mut source,
        options,
        v8::script_compiler::NoCacheReason::NoReason,
    )?;
    let cache = module.get_unbound_module_script(scope).create_code_cache()?;
    Some(cache.to_vec())
}

/// The code cache of ES module `source` named `url` with every function
/// compiled, made in a runtime started from `snapshot`, for the runtimes
/// that will start from it.
pub fn eager_code_cache(
    snapshot: &'static [u8],
    extensions: Vec<Extension>,
    url: &str,
    source: &str,
) -> Result<Vec<u8>, String> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| format!("no tokio runtime: {e}"))?;
    let _entered = tokio.enter();
    let mut runtime = JsRuntime::try_new(RuntimeOptions {
        extensions,
        startup_snapshot: Some(snapshot),
        module_loader: Some(Rc::new(HostModuleLoader::new(None, None))),
        ..Default::default()
    })
    .map_err(|e| e.to_string())?;
    deno_core::scope!(scope, runtime);
    code_cache(
        scope,
        url,
        source,
        v8::script_compiler::CompileOptions::EagerCompile,
    )
    .ok_or_else(|| format!("{url} does not compile"))
}
