//! The embedded JS host: one sandboxed deno_core runtime with the Web
//! platform globals, our module loader and time/heap limits.
//!
//! Layout:
//! - `extensions`: Deno's Web API crates plus our bootstrap (js/runtime/bootstrap.js);
//! - `ops_crypto`: randomness, digests, HMAC and constant-time comparison
//!   (under `crypto`, `crypto.subtle` and `node:crypto`);
//! - `ops_host`: the other host services JS may call (the log);
//! - `loader`: which modules may be imported (app tree, embedded js/, vendor bundles);
//! - `embedded`: the JS compiled into the binary;
//! - `sandbox`: the deny-everything permissions;
//! - `limits`: the watchdog for runaway loops and the heap limit;
//! - `external`: the budget for memory outside the JS heap (ArrayBuffers,
//!   Blobs);
//! - `heap_stats`: allocation and GC counters from the engine's own hooks;
//! - `snapshot`, `snapshot_seal`: the V8 startup snapshot build.rs builds
//!   from `extensions`, and the check that it matches them;
//! - `deno_js`: the Deno crates' JS, compiled in.
//!
//! All engine access goes through deno_core's API, so V8 (feature `v8`,
//! the default) and the QuickJS-ng backend (feature `quickjs`, the build
//! for where no V8 archive can be had) are a one-flag switch.

#[cfg(all(feature = "v8", feature = "quickjs"))]
compile_error!(
    "the features `v8` and `quickjs` exclude each other: build QuickJS with \
     `--no-default-features --features quickjs`"
);
#[cfg(not(any(feature = "v8", feature = "quickjs")))]
compile_error!("choose a JS engine: the feature `v8` (the default) or `quickjs`");

mod deno_js;
pub mod embedded;
mod extensions;
mod external;
pub mod flags;
mod heap_stats;
mod limits;
pub mod loader;
mod ops_crypto;
mod ops_host;
mod ops_zlib;
pub mod project;
mod sandbox;
pub mod snapshot;
mod snapshot_seal;
pub mod snapshot_sets;
pub mod switches;

use std::future::{poll_fn, Future};
use std::path::PathBuf;
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use anyhow::{anyhow, Context};
use deno_core::{v8, Extension, JsRuntime, ModuleSpecifier, PollEventLoopOptions, RuntimeOptions};

pub use heap_stats::{heap_stats_enabled, telemetry_switched_on, HeapCounters, HeapSizes, HeapSnapshot};
pub use limits::{Interrupt, Watchdog};

/// The JS engine this binary was built with, as reports and `--version`
/// show it: its version and the crates that bind it.
pub fn engine_name() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        let deno_core = option_env!("FWBENCH_DEP_DENO_CORE").unwrap_or("?");
        if cfg!(feature = "v8") {
            format!(
                "V8 {} (rusty_v8 {}, deno_core {deno_core})",
                v8::V8::get_version(),
                option_env!("FWBENCH_DEP_V8").unwrap_or("?")
            )
        } else {
            format!(
                "QuickJS-ng (v8x {} quickjs backend, deno_core {deno_core})",
                option_env!("FWBENCH_DEP_V8X").unwrap_or("?")
            )
        }
    })
}

/// Modules every app runtime evaluates before the app: the Node globals
/// (`process`, `Buffer`, `setImmediate`) that npm frameworks expect, when
/// this binary has them.
pub fn default_preload() -> Vec<ModuleSpecifier> {
    const GLOBALS: &str = "runtime/node/globals.js";
    embedded::get(GLOBALS)
        .map(|_| ModuleSpecifier::parse(&format!("fwbench:///{GLOBALS}")).expect("valid URL"))
        .into_iter()
        .collect()
}

/// How to build a runtime.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Directory whose files app code may import (canonical path); `None`
    /// allows embedded modules only.
    pub app_root: Option<PathBuf>,
    /// The app's npm project, when it is served as one: Node's resolution,
    /// CommonJS, TypeScript, its files readable through node:fs, its
    /// `process.env` (see [`project`]). Shared by the runtimes of an app.
    pub project: Option<Arc<project::Project>>,
    /// Heap limit in bytes; past it the runtime is interrupted. Memory
    /// outside the heap (ArrayBuffers, Blobs) has a budget of the same size,
    /// past which an allocation throws a `RangeError`.
    pub max_heap_bytes: usize,
    /// How long JS may run without returning before it is interrupted.
    pub cpu_limit: Duration,
    /// How long loading may take in all, idle waiting included (a top-level
    /// await, an app's `ready()`), before it fails.
    pub load_timeout: Duration,
    /// The startup snapshot to start from: a framework's set
    /// (`snapshot_sets`), whose modules are then evaluated already; `None`
    /// (or a name the binary has no snapshot for) starts from the engine's
    /// own.
    pub snapshot: Option<&'static str>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            app_root: None,
            project: None,
            max_heap_bytes: 256 << 20,
            cpu_limit: Duration::from_secs(2),
            load_timeout: Duration::from_secs(10),
            snapshot: None,
        }
    }
}

/// How a future driven by [`Engine::settle`] ended, when it did not settle.
enum Unsettled {
    /// The event loop failed (an error thrown from a timer, a stalled
    /// top-level await as deno_core reports it).
    EventLoop(anyhow::Error),
    /// Nothing is left to run, and the future is still pending.
    Stalled,
    /// The load timeout passed.
    TimedOut,
}

/// One JS runtime (its own isolate) with its watchdog.
pub struct Engine {
    // Field order matters: the watchdog holds a handle to the isolate and
    // must stop before the runtime is dropped.
    watchdog: Watchdog,
    runtime: JsRuntime,
    load_timeout: Duration,
    /// Read by the isolate's GC hooks: dropped after the runtime.
    heap: Option<Arc<HeapCounters>>,
    /// Read by the isolate's GC hook that holds its heap limit: dropped
    /// after the runtime.
    #[cfg(feature = "v8")]
    _heap_check: Box<limits::HeapCheck>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(heap) = &self.heap {
            heap.retire_isolate(self.runtime.v8_isolate());
        }
    }
}

/// What every runtime runs once it is built, before app code, with the
/// startup snapshot or without: the bootstrap's start hook (the state that
/// belongs to this runtime, not to the snapshot's build: the time origin),
/// then the removal of these globals:
/// - `Deno` and `__bootstrap`: app code must not reach deno_core's op
///   table (the sandbox is the set of ops registered, seen only through
///   the globals the bootstrap installed). With the snapshot, deno_core
///   binds the ops a runtime adds (the adapter's) through them after the
///   bootstrap ran, so the bootstrap cannot delete them;
/// - the engines' own: QuickJS's `gc` forces a collection (V8's
///   `--expose-gc` and the other extension flags add globals that cannot be
///   deleted, so they are refused in flags.rs); a ShadowRealm (QuickJS-ng,
///   and V8 under `--harmony-shadow-realm`) is a fresh realm with all of
///   it again; WebAssembly memories are allocated where no limit counts
///   them (external.rs); the QuickJS backend's Temporal polyfill shares
///   its slots through two registered symbols, and its `__v8x*` helpers
///   (the bootstrap takes those it uses first). On V8 the bootstrap runs
///   when the snapshot is built, and V8 installs flag-enabled globals such
///   as ShadowRealm again in each context made from a snapshot: deleted in
///   the snapshot, they would come back.
///
/// tests/fixtures/globals/allowed.txt lists what an app may find.
const START_RUNTIME: &str = r#"
globalThis.__fwbenchStartRuntime();
delete globalThis.__fwbenchStartRuntime;
for (const name of Object.getOwnPropertyNames(globalThis)) {
  if (name.startsWith("__v8x")) delete globalThis[name];
}
for (const name of ["Deno", "__bootstrap", "gc", "ShadowRealm", "WebAssembly"]) {
  delete globalThis[name];
}
delete globalThis[Symbol.for("@@Temporal__GetSlots")];
delete globalThis[Symbol.for("@@Temporal__CreateSlots")];
"#;

impl Engine {
    /// Builds a runtime with the Web globals installed, plus `extensions`
    /// (e.g. the adapter's ops and JS).
    pub fn new(options: &EngineOptions, extensions: Vec<Extension>) -> anyhow::Result<Self> {
        let budget = external::ExternalBudget::new(options.max_heap_bytes);
        let mut all = extensions::all(budget.clone());
        all.iter_mut().for_each(deno_js::embed_js);
        // Fingerprinted before the caller's extensions are added: the
        // snapshot holds only the engine's own, which come first.
        let startup = snapshot::startup(&all, options.snapshot)?;
        all.push(project::ops::fwbench_node::init(options.project.clone()));
        all.extend(extensions);
        let create_params = v8::CreateParams::default().heap_limits(0, options.max_heap_bytes);
        // QuickJS-ng counts ArrayBuffers against its heap limit already; the
        // v8x backend would swap in a constructor of its own for a custom
        // allocator (see external.rs).
        #[cfg(feature = "v8")]
        let create_params = create_params.array_buffer_allocator(external::counting_allocator(budget));
        #[cfg(not(feature = "v8"))]
        drop(budget);
        let mut runtime = JsRuntime::try_new(RuntimeOptions {
            module_loader: Some(Rc::new(loader::HostModuleLoader::new(
                options.app_root.clone(),
                options
                    .project
                    .clone()
                    .map(|project| project as Arc<dyn loader::FileModules>),
            ))),
            extensions: all,
            startup_snapshot: startup.as_ref().map(|startup| startup.snapshot),
            extension_code_cache: startup.as_ref().map(snapshot::Startup::extension_code_cache),
            create_params: Some(create_params),
            eval_context_code_cache_cbs: options
                .project
                .as_ref()
                .filter(|project| project.code_cache().is_on())
                .map(|project| project::compile_function_cache(project.clone())),
            ..Default::default()
        })
        .context("failed to create the JS runtime")?;
        // Run now rather than by the bootstrap: see `START_RUNTIME`.
        runtime
            .execute_script("ext:fwbench_engine/start_runtime.js", START_RUNTIME)
            .context("failed to create the JS runtime: starting it (its time origin, removing the engine's own globals) failed")?;
        let handle = runtime.v8_isolate().thread_safe_handle();
        let watchdog = Watchdog::start(handle, options.cpu_limit);
        runtime.add_near_heap_limit_callback(watchdog.heap_limit_callback());
        #[cfg(feature = "v8")]
        runtime.v8_isolate().set_oom_error_handler(limits::engine_gave_up);
        #[cfg(feature = "v8")]
        let heap_check = watchdog.check_heap_after_gc(runtime.v8_isolate(), options.max_heap_bytes);
        Ok(Self {
            watchdog,
            runtime,
            load_timeout: options.load_timeout,
            heap: None,
            #[cfg(feature = "v8")]
            _heap_check: heap_check,
        })
    }

    /// Counts this runtime's allocation and GC pauses into `counters`
    /// (see [`HeapCounters`]); they may already hold an earlier runtime's.
    pub fn count_heap_into(&mut self, counters: Arc<HeapCounters>) {
        if !heap_stats_enabled() {
            return;
        }
        counters.install(self.runtime.v8_isolate());
        self.heap = Some(counters);
    }

    /// Publishes the allocation total if another thread asked for it: a
    /// load of one flag when nobody did.
    pub fn publish_heap_if_asked(&mut self) {
        if let Some(heap) = &self.heap {
            if heap.publish_requested() {
                heap.publish(self.runtime.v8_isolate());
            }
        }
    }

    /// The underlying deno_core runtime.
    pub fn runtime(&mut self) -> &mut JsRuntime {
        &mut self.runtime
    }

    /// The CPU time limit the watchdog enforces.
    pub fn watchdog_limit(&self) -> Duration {
        self.watchdog.limit()
    }

    /// Splits the engine so JS can run (runtime) while it is watched.
    pub fn parts(&mut self) -> (&mut JsRuntime, &Watchdog) {
        (&mut self.runtime, &self.watchdog)
    }

    /// If JS was interrupted since the last call, says why and re-arms the
    /// isolate so it can run JS again.
    pub fn take_interrupt(&mut self) -> Option<Interrupt> {
        let interrupt = self.watchdog.take_interrupt()?;
        self.runtime.v8_isolate().cancel_terminate_execution();
        Some(interrupt)
    }

    /// Evaluates `modules` in order as side modules (e.g. the Node globals
    /// shim from [`default_preload`]), before the main module.
    pub async fn preload(&mut self, modules: &[ModuleSpecifier]) -> anyhow::Result<()> {
        for module in modules {
            self.import_side(module)
                .await
                .with_context(|| format!("failed to load {module}"))?;
        }
        Ok(())
    }

    /// The main module's default export (`undefined` when it has none).
    pub fn default_export(&mut self, namespace: &v8::Global<v8::Object>) -> v8::Global<v8::Value> {
        deno_core::scope!(scope, self.runtime);
        let namespace = v8::Local::new(scope, namespace);
        let key = v8::String::new(scope, "default").expect("short string");
        let value = namespace
            .get(scope, key.into())
            .unwrap_or_else(|| v8::undefined(scope).into());
        v8::Global::new(scope, value)
    }

    /// Evaluates `code` as the main module named `specifier` and returns its
    /// default export as a string (for modules that export JSON).
    pub async fn evaluate_to_string(
        &mut self,
        specifier: &ModuleSpecifier,
        code: &str,
    ) -> anyhow::Result<String> {
        let namespace = self.import_main(specifier, Some(code)).await?;
        let value = self.default_export(&namespace);
        deno_core::scope!(scope, self.runtime);
        Ok(v8::Local::new(scope, value).to_rust_string_lossy(scope))
    }

    /// Loads and evaluates `specifier` as a side module (e.g. the Node
    /// globals shim), before the main module.
    pub async fn import_side(&mut self, specifier: &ModuleSpecifier) -> anyhow::Result<()> {
        let id = self.runtime.load_side_es_module(specifier).await?;
        self.evaluate(id).await
    }

    /// Loads and evaluates `specifier` as the main module (from `code` when
    /// given, else through the loader), running the event loop until its
    /// top-level await settles, and returns its namespace.
    pub async fn import_main(
        &mut self,
        specifier: &ModuleSpecifier,
        code: Option<&str>,
    ) -> anyhow::Result<v8::Global<v8::Object>> {
        let id = match code {
            Some(code) => {
                self.runtime
                    .load_main_es_module_from_code(specifier, code.to_owned())
                    .await?
            }
            None => self.runtime.load_main_es_module(specifier).await?,
        };
        self.evaluate(id).await?;
        Ok(self.runtime.get_module_namespace(id)?)
    }

    /// Evaluates a loaded module: its synchronous top level (watched, so a
    /// loop there is interrupted), then its top-level await.
    async fn evaluate(&mut self, id: deno_core::ModuleId) -> anyhow::Result<()> {
        let evaluation = {
            let _in_js = self.watchdog.enter();
            self.runtime.mod_evaluate(id)
        };
        // Interrupted in its synchronous part: the evaluation will never
        // settle, so do not run the event loop for it.
        if let Some(interrupt) = self.take_interrupt() {
            return Err(self.interrupted(interrupt));
        }
        self.settle(evaluation).await
    }

    /// Why loading failed when `interrupt` stopped it.
    fn interrupted(&self, interrupt: Interrupt) -> anyhow::Error {
        match interrupt {
            Interrupt::TimeLimit => anyhow!(
                "it ran JS for longer than the CPU time limit ({:?}, --cpu-limit) without returning, \
                 and was interrupted",
                self.watchdog.limit()
            ),
            Interrupt::HeapLimit => {
                anyhow!("it grew the JS heap past its limit (--max-heap-mb), and was interrupted")
            }
        }
    }

    /// Runs the event loop until `future` (a module evaluation, a promise
    /// JS returned) settles, and returns its result. Each stretch of JS is
    /// watched against the CPU limit, but idle waiting is not; the whole
    /// wait is bounded by the load timeout. Fails, rather than waits
    /// forever, when the event loop fails or has nothing left that could
    /// settle the future.
    pub async fn settle<T, E>(&mut self, future: impl Future<Output = Result<T, E>>) -> anyhow::Result<T>
    where
        E: Into<anyhow::Error>,
    {
        self.settle_or(
            future,
            "it awaits a promise that can never settle: nothing is left to run that could settle it",
        )
        .await
    }

    /// [`Engine::settle`], saying `stalled` when nothing is left to run
    /// that could settle `future`.
    pub async fn settle_or<T, E>(
        &mut self,
        future: impl Future<Output = Result<T, E>>,
        stalled: &str,
    ) -> anyhow::Result<T>
    where
        E: Into<anyhow::Error>,
    {
        let mut future = pin!(future);
        let mut deadline = pin!(tokio::time::sleep(self.load_timeout));
        let (runtime, watchdog) = (&mut self.runtime, &self.watchdog);
        let outcome = poll_fn(|cx| {
            let in_js = watchdog.enter();
            if let Poll::Ready(result) = future.as_mut().poll(cx) {
                return Poll::Ready(Ok(result));
            }
            match runtime.poll_event_loop(cx, PollEventLoopOptions::default()) {
                Poll::Ready(Err(error)) => return Poll::Ready(Err(Unsettled::EventLoop(error.into()))),
                // Nothing left to run: one last look before giving up.
                Poll::Ready(Ok(())) => {
                    return Poll::Ready(match future.as_mut().poll(cx) {
                        Poll::Ready(result) => Ok(result),
                        Poll::Pending => Err(Unsettled::Stalled),
                    })
                }
                Poll::Pending => {}
            }
            drop(in_js);
            match deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(Unsettled::TimedOut)),
                Poll::Pending => Poll::Pending,
            }
        })
        .await;
        if let Some(interrupt) = self.take_interrupt() {
            return Err(self.interrupted(interrupt));
        }
        match outcome {
            Ok(result) => result.map_err(Into::into),
            Err(Unsettled::EventLoop(error)) => Err(error),
            Err(Unsettled::Stalled) => Err(anyhow!("{stalled}")),
            Err(Unsettled::TimedOut) => Err(anyhow!(
                "it did not finish loading within {:?} (--handler-timeout): a top-level await, the app's \
                 ready() or its listen() never came",
                self.load_timeout
            )),
        }
    }
}
