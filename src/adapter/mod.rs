//! The hyper server and its bridge into JS: `serve` runs N worker threads,
//! each with its own JS runtime, all accepting on one listening socket.
//!
//! Public face: [`ServeConfig`], [`AppSpec`] and [`start`] (the JS rows),
//! [`Workers`] and [`serve_connections`] (shared with the native rows).
//! One request's way through the files is told in docs/ARCHITECTURE.md
//! ("One request, end to end"): [`service`](service) takes it from hyper,
//! the request table (`table`) holds it, the worker's driver (`worker`)
//! hands it to js/runtime/serve.js, and a respond op (`ops`) puts the
//! answer in its place.

mod body;
mod connections;
mod heads;
pub mod in_runtime;
mod ops;
mod request_timing;
mod response;
mod service;
mod stream;
mod table;
mod telemetry;
mod timer;
mod worker;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use deno_core::ModuleSpecifier;
use tokio::sync::watch;

pub use connections::{serve as serve_connections, worker_listener};
pub use request_timing::{LatencyTail, ServerLatency};
pub use telemetry::{serve_channel as serve_telemetry, ServerSnapshot, ServerTelemetry};

use crate::engine::EngineOptions;

/// Server settings; the same for every row of a benchmark.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Worker threads, each with its own JS runtime.
    pub workers: usize,
    /// Largest request body accepted (413 past it).
    pub max_body_bytes: usize,
    /// Largest request head (hyper's read buffer; 431 or close past it).
    pub max_header_bytes: usize,
    /// Most header lines in a request head (431 past it).
    pub max_headers: usize,
    /// How long a client may take to send the request head.
    pub header_read_timeout: Duration,
    /// How long a handler may take to respond (504 past it).
    pub handler_timeout: Duration,
    /// Whether each request is timed from arrival to answer for the
    /// telemetry channel (a row server `bench` started).
    pub time_requests: bool,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            workers: 1,
            max_body_bytes: 1 << 20,
            max_header_bytes: 16 << 10,
            max_headers: DEFAULT_MAX_HEADERS,
            header_read_timeout: Duration::from_secs(5),
            handler_timeout: Duration::from_secs(10),
            time_requests: false,
        }
    }
}

/// The smallest `--max-header-bytes`: hyper's read buffer cannot be
/// smaller than 8 KiB (its `max_buf_size` asserts it), so a lower head
/// limit could not be honoured and is refused instead of being raised.
pub const MIN_HEADER_BYTES: usize = 8192;

/// The default of `--max-headers`: hyper's own, whose header array then
/// lives on the stack; a larger limit costs an allocation per request.
pub const DEFAULT_MAX_HEADERS: usize = 100;

/// What each worker loads: the app's main module and the engine settings.
#[derive(Debug, Clone)]
pub struct AppSpec {
    /// The main module (`file://…` or an embedded `fwbench:///…`).
    pub main: ModuleSpecifier,
    /// The main module's code, when it is generated rather than loaded
    /// (a scenario's app for one framework).
    pub main_code: Option<String>,
    /// Modules evaluated before the main one (e.g. the Node globals shim).
    pub preload: Vec<ModuleSpecifier>,
    /// How it is named in messages (the path the user gave).
    pub display: String,
    /// Engine settings (module root, heap and CPU limits).
    pub engine: EngineOptions,
}

/// How long open connections get to finish their current request when the
/// server stops.
pub const DRAIN: Duration = Duration::from_millis(1500);

/// How long [`Workers::shutdown`] waits for its threads: past it, a thread
/// still inside JS (a runaway handler the CPU limit has not stopped yet) is
/// left behind and the process exits without it. SIGTERM must stop `serve`
/// within 3 s whatever JS does.
pub const STOP_WITHIN: Duration = Duration::from_secs(2);

/// Worker threads sharing one listening socket, stopped together. Used by
/// the JS adapter and the native rows alike, so both run the same worker
/// model.
pub struct Workers {
    stop: watch::Sender<bool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Workers {
    /// Spawns `count` threads named `name-<i>`, each running
    /// `body(listener, shutdown)` with its own handle on `listener`;
    /// `shutdown` turns true when they must stop.
    pub fn spawn<F>(listener: &TcpListener, count: usize, name: &str, body: F) -> anyhow::Result<Self>
    where
        F: Fn(TcpListener, watch::Receiver<bool>) + Clone + Send + 'static,
    {
        let (stop, shutdown) = watch::channel(false);
        let mut workers = Self {
            stop,
            threads: Vec::with_capacity(count),
        };
        for index in 0..count.max(1) {
            let spawned = listener
                .try_clone()
                .context("failed to share the listening socket")
                .and_then(|listener| {
                    let (body, shutdown) = (body.clone(), shutdown.clone());
                    std::thread::Builder::new()
                        .name(format!("{name}-{index}"))
                        .spawn(move || body(listener, shutdown))
                        .context("failed to spawn a worker thread")
                });
            match spawned {
                Ok(thread) => workers.threads.push(thread),
                Err(error) => {
                    workers.shutdown();
                    return Err(error);
                }
            }
        }
        Ok(workers)
    }

    /// How many threads run.
    pub fn count(&self) -> usize {
        self.threads.len()
    }

    /// Stops accepting, lets open requests finish ([`DRAIN`] at most), and
    /// joins the threads that stop within [`STOP_WITHIN`]. Returns how many
    /// did not (they are still running JS and are left to process exit).
    pub fn shutdown(self) -> usize {
        let _ = self.stop.send(true);
        let deadline = Instant::now() + STOP_WITHIN;
        let mut left_running = 0;
        for thread in self.threads {
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if thread.is_finished() {
                let _ = thread.join();
            } else {
                left_running += 1;
            }
        }
        left_running
    }
}

/// A running server, ready to take requests.
pub struct Server {
    /// The app style the workers recognized (fetch, express, fastify, …).
    pub app_style: String,
    /// When the last worker's runtime was ready for the app (built, with
    /// the Web globals and preloaded modules in place).
    pub runtime_ready: Instant,
    /// When the last worker had loaded and installed the app.
    pub app_loaded: Instant,
    /// Its worker threads.
    pub workers: Workers,
    /// Their allocation and GC counters, for the telemetry channel.
    pub telemetry: ServerTelemetry,
}

/// Starts `config.workers` workers serving `spec` on `listener` and waits
/// until every one has loaded the app. A load error stops them all and is
/// returned.
pub fn start(listener: TcpListener, spec: AppSpec, config: ServeConfig) -> anyhow::Result<Server> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let telemetry = ServerTelemetry::default();
    let body = {
        let (config, telemetry) = (config.clone(), telemetry.clone());
        move |listener, shutdown| {
            let (heap, timing) = telemetry.register(config.time_requests);
            worker::run(
                listener,
                spec.clone(),
                config.clone(),
                ready_tx.clone(),
                shutdown,
                (heap, timing),
            )
        }
    };
    let workers = Workers::spawn(&listener, config.workers, "fwbench-worker", body)?;
    let mut app_style = None;
    let mut runtime_ready: Option<Instant> = None;
    for _ in 0..workers.count() {
        match ready_rx.recv() {
            Ok(Ok(loaded)) => {
                runtime_ready = runtime_ready.max(Some(loaded.runtime_ready));
                app_style = Some(loaded.app_style);
            }
            Ok(Err(error)) => {
                workers.shutdown();
                return Err(error);
            }
            Err(_) => return Err(anyhow!("a worker thread exited before loading the app")),
        }
    }
    let app_loaded = Instant::now();
    Ok(Server {
        app_style: app_style.unwrap_or_default(),
        runtime_ready: runtime_ready.unwrap_or(app_loaded),
        app_loaded,
        workers,
        telemetry,
    })
}
