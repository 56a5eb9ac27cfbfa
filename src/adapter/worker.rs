//! One worker thread: a current-thread tokio runtime, one JS runtime (its
//! own isolate) and the hyper connections it accepts.
//!
//! `JsRuntime` is `!Send`, so everything a worker owns stays on its thread
//! (hyper's single_threaded example is the model: a `LocalSet`, `Rc` state,
//! `spawn_local`). The driver is one future that, each time it is woken,
//! hands the queued requests to JS (synchronously: a handler that returns a
//! Response is committed before the call returns) and then polls the JS
//! event loop once for promises, timers and async ops. The batching is
//! deliberate: docs/ARCHITECTURE.md says what calling JS from each
//! connection's task instead cost when measured.

use std::future::poll_fn;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _};
use deno_core::{v8, PollEventLoopOptions};
use http::StatusCode;
use hyper::service::service_fn;
use tokio::sync::watch;

use super::ops::{self, BridgeFns};
use super::request_timing::RequestTiming;
use super::table::{RequestTable, TICKS_PER_HANDLER_TIMEOUT};
use super::{connections, service, AppSpec, ServeConfig};
use crate::engine::{Engine, HeapCounters, Interrupt};

/// A worker's JS side, ready to serve.
pub(super) struct Driver {
    // Field order matters: the handles into the isolate must go before the
    // engine disposes of it.
    handle: v8::Global<v8::Function>,
    methods: MethodNames,
    engine: Engine,
    /// The worker's allocation and GC counters (telemetry.rs).
    heap: Arc<HeapCounters>,
    /// Whether `heap` has this task's waker yet.
    waker_left: bool,
}

/// The standard request methods' names as internalized JS strings, made
/// once per runtime. A fresh string per request cost an allocation, and a
/// router's `routes[method]` lookup wants an internalized key (a fresh one
/// is hashed and looked up first); docs/ARCHITECTURE.md's ledger has
/// what it saved.
struct MethodNames(Vec<(http::Method, v8::Global<v8::String>)>);

impl MethodNames {
    fn new(scope: &mut v8::PinScope) -> Self {
        use http::Method;
        let standard = [
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::DELETE,
            Method::HEAD,
            Method::OPTIONS,
            Method::PATCH,
            Method::CONNECT,
            Method::TRACE,
        ];
        let names = standard
            .into_iter()
            .filter_map(|method| {
                let name = v8::String::new_from_one_byte(
                    scope,
                    method.as_str().as_bytes(),
                    v8::NewStringType::Internalized,
                )?;
                Some((method, v8::Global::new(scope, name)))
            })
            .collect();
        Self(names)
    }

    /// `method`'s name as a JS string: the cached one, or a new string for
    /// an extension method.
    fn get<'s>(
        &self,
        scope: &mut v8::PinScope<'s, '_>,
        method: &http::Method,
    ) -> Option<v8::Local<'s, v8::String>> {
        match self.0.iter().find(|(standard, _)| standard == method) {
            Some((_, name)) => Some(v8::Local::new(scope, name)),
            None => v8::String::new(scope, method.as_str()),
        }
    }
}

/// What a worker reports once its app is loaded.
pub struct Loaded {
    /// The app style recognized (fetch, express, fastify, …).
    pub app_style: String,
    /// When its runtime was ready for the app: built, with the Web globals
    /// and the preloaded modules (the Node globals) in place.
    pub runtime_ready: Instant,
}

/// Builds a runtime, loads the app and installs it; returns the driver and
/// what was loaded.
pub(super) async fn load(
    spec: &AppSpec,
    table: &Rc<RequestTable>,
    heap: &Arc<HeapCounters>,
) -> anyhow::Result<(Driver, Loaded)> {
    let mut engine = Engine::new(&spec.engine, vec![ops::extension(table.clone())])?;
    engine.count_heap_into(heap.clone());
    engine.preload(&spec.preload).await?;
    let runtime_ready = Instant::now();
    let namespace = engine.import_main(&spec.main, spec.main_code.as_deref()).await?;
    let runtime = engine.runtime();
    let (handle, set_app) = {
        let state = runtime.op_state();
        let state = state.borrow();
        let fns = state
            .try_borrow::<BridgeFns>()
            .ok_or_else(|| anyhow!("internal error: serve.js did not register its bridge"))?;
        (fns.handle.clone(), fns.set_app.clone())
    };
    let default_export = engine.default_export(&namespace);
    let installed = {
        let (runtime, watchdog) = engine.parts();
        let _in_js = watchdog.enter();
        runtime.call_with_args(&set_app, &[default_export])
    };
    // The app may still be on its way to listen() (a CommonJS entry that
    // connects to something first): setApp waits for it while the event
    // loop runs.
    let style = engine
        .settle_or(
            installed,
            "the app module has no default export fwbench can serve (`export default { \
             fetch(request) { return new Response('hello') } }`, a hono, elysia or express app, a \
             fastify instance) and it never called listen(): nothing is left to run that could",
        )
        .await?;
    let style = {
        let runtime = engine.runtime();
        deno_core::scope!(scope, runtime);
        v8::Local::new(scope, style).to_rust_string_lossy(scope)
    };
    let methods = {
        let runtime = engine.runtime();
        deno_core::scope!(scope, runtime);
        MethodNames::new(scope)
    };
    Ok((
        Driver {
            engine,
            handle,
            methods,
            heap: heap.clone(),
            waker_left: false,
        },
        Loaded {
            app_style: style,
            runtime_ready,
        },
    ))
}

impl Driver {
    /// Hands the queued requests to JS. Returns an exit if the runtime must
    /// be replaced.
    fn dispatch(&mut self, table: &RequestTable) -> Option<Interrupt> {
        let ids = table.take_queue();
        if ids.is_empty() {
            return None;
        }
        let cpu_limit = self.engine.watchdog_limit();
        let (runtime, watchdog) = self.engine.parts();
        deno_core::scope!(scope, runtime);
        let handle = v8::Local::new(scope, &self.handle);
        let receiver: v8::Local<v8::Value> = v8::undefined(scope).into();
        for id in ids {
            let Some((method, has_body)) = table.dispatch_info(id) else {
                continue;
            };
            v8::tc_scope!(let tc, scope);
            let args: [v8::Local<v8::Value>; 3] = [
                v8::Integer::new_from_unsigned(tc, id).into(),
                self.methods.get(tc, &method).expect("short string").into(),
                v8::Boolean::new(tc, has_body).into(),
            ];
            let returned = {
                let _in_js = watchdog.enter();
                handle.call(tc, receiver, &args)
            };
            if table.take_heap_exhausted() {
                return Some(Interrupt::HeapLimit);
            }
            if returned.is_some() {
                continue;
            }
            match watchdog.take_interrupt() {
                Some(Interrupt::TimeLimit) => {
                    tc.cancel_terminate_execution();
                    table.reply_error(
                        id,
                        StatusCode::INTERNAL_SERVER_ERROR,
                        &format!(
                            "handler ran longer than the CPU time limit ({cpu_limit:?}) and was interrupted"
                        ),
                    );
                }
                Some(Interrupt::HeapLimit) => {
                    tc.cancel_terminate_execution();
                    return Some(Interrupt::HeapLimit);
                }
                None => {
                    let message = tc
                        .exception()
                        .map(|e| e.to_rust_string_lossy(tc))
                        .unwrap_or_else(|| "unknown error".into());
                    table.reply_error(id, StatusCode::INTERNAL_SERVER_ERROR, &message);
                }
            }
        }
        None
    }

    /// Publishes the heap counters' allocation total if asked to.
    pub(super) fn publish_heap(&mut self) {
        self.engine.publish_heap_if_asked();
    }

    /// Runs queued requests and the JS event loop; pending until the runtime
    /// must be replaced.
    pub(super) fn poll(&mut self, cx: &mut Context<'_>, table: &RequestTable) -> Poll<Interrupt> {
        table.set_driver_waker(cx.waker());
        if let Some(exit) = self.dispatch(table) {
            return Poll::Ready(exit);
        }
        let polled = {
            let (runtime, watchdog) = self.engine.parts();
            let _in_js = watchdog.enter();
            runtime.poll_event_loop(cx, PollEventLoopOptions::default())
        };
        if let Some(interrupt) = self.engine.take_interrupt() {
            return Poll::Ready(interrupt);
        }
        if table.take_heap_exhausted() {
            return Poll::Ready(Interrupt::HeapLimit);
        }
        if let Poll::Ready(Err(error)) = polled {
            eprintln!("fwbench: error in the JS event loop: {error}");
        }
        if !self.waker_left {
            self.heap.set_waker(cx.waker());
            self.waker_left = true;
        }
        if self.heap.publish_requested() {
            // The times first: the telemetry thread reads them once the
            // request is marked done.
            table.publish_timing();
            self.engine.publish_heap_if_asked();
            self.heap.mark_published();
        }
        Poll::Pending
    }
}

/// Keeps the worker's JS runtime serving, rebuilding it when it must go.
async fn drive(mut driver: Driver, spec: &AppSpec, table: Rc<RequestTable>) {
    let heap = driver.heap.clone();
    loop {
        // The runtime must be replaced: heap limit, or a loop interrupted
        // between requests, which leaves the microtask queue half run.
        let why = poll_fn(|cx| driver.poll(cx, &table)).await;
        let (status, message) = match why {
            Interrupt::HeapLimit => (
                StatusCode::SERVICE_UNAVAILABLE,
                "the JS runtime exceeded its heap limit (--max-heap-mb) and was restarted",
            ),
            Interrupt::TimeLimit => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "JS ran longer than the CPU time limit and the runtime was restarted",
            ),
        };
        eprintln!(
            "fwbench: {message}; answering {} requests in flight",
            table.in_flight()
        );
        table.reply_all(status, message);
        // Whatever flagged the old runtime does not concern the new one.
        table.take_heap_exhausted();
        drop(driver);
        driver = loop {
            match load(spec, &table, &heap).await {
                Ok((driver, _)) => break driver,
                Err(error) => {
                    eprintln!("fwbench: rebuilding the JS runtime failed: {error:#}; retrying in 1s");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        };
    }
}

/// Answers 504 to handlers that overrun `--handler-timeout`: ticks the
/// table's sweep clock [`TICKS_PER_HANDLER_TIMEOUT`] times per
/// timeout, forever.
pub(super) async fn expire_handlers(table: Rc<RequestTable>) {
    let tick = (table.config.handler_timeout / TICKS_PER_HANDLER_TIMEOUT).max(Duration::from_millis(1));
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        table.expire_handlers();
    }
}

/// Runs one worker on the current thread until shutdown. `ready` receives
/// what was loaded (the recognized app style, when the runtime was
/// ready), or the load error.
pub fn run(
    listener: std::net::TcpListener,
    spec: AppSpec,
    config: ServeConfig,
    ready: std::sync::mpsc::Sender<anyhow::Result<Loaded>>,
    shutdown: watch::Receiver<bool>,
    (heap, timing): (Arc<HeapCounters>, Option<RequestTiming>),
) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(
                anyhow!(error).context("failed to start the worker's tokio runtime")
            ));
            return;
        }
    };
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let listen_addr: Rc<str> = listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default()
            .into();
        let listener = match connections::worker_listener(listener) {
            Ok(listener) => listener,
            Err(error) => {
                let _ = ready.send(Err(anyhow!(error).context("failed to use the listening socket")));
                return;
            }
        };
        let port = listener.local_addr().map_or(0, |a| a.port());
        let table = Rc::new(RequestTable::new(config, port).timed(timing));
        let driver = match load(&spec, &table, &heap)
            .await
            .with_context(|| format!("failed to load {}", spec.display))
        {
            Ok((driver, loaded)) => {
                let _ = ready.send(Ok(loaded));
                driver
            }
            Err(error) => {
                let _ = ready.send(Err(error));
                return;
            }
        };
        let config = table.config.clone();
        let make_service = || {
            let (table, listen_addr) = (table.clone(), listen_addr.clone());
            let known_host = service::KnownHost::default();
            service_fn(move |request| service::handle(&table, request, &listen_addr, &known_host))
        };
        // The driver and the sweep are tasks of their own, not branches of
        // this future: the LocalSet polls its main future whenever any of
        // its tasks is woken, and a poll of the JS event loop per
        // connection wake-up is not free (polling a task's handle is).
        // Neither ends on its own: if one does, it panicked, and a worker
        // that would accept requests nobody answers must stop instead.
        let sweep = tokio::task::spawn_local(expire_handlers(table.clone()));
        let driven = table.clone();
        let driver = tokio::task::spawn_local(async move { drive(driver, &spec, driven).await });
        tokio::select! {
            () = connections::serve(listener, &config, shutdown, make_service) => {}
            ended = driver => eprintln!("fwbench: the worker's JS driver stopped ({ended:?}); the worker stops"),
            ended = sweep => eprintln!("fwbench: the worker's timeout sweep stopped ({ended:?}); the worker stops"),
        }
    });
}
