//! `fwbench serve`: validate the arguments, bind, start the workers and run
//! until Ctrl-C (or SIGTERM).

use std::net::{SocketAddr, TcpListener};

use anyhow::{bail, Context};
use deno_core::ModuleSpecifier;

use crate::adapter::{self, AppSpec, ServeConfig};
use crate::cli::ServeArgs;
use crate::engine::{self, EngineOptions};

/// Runs `fwbench serve`.
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let app = std::fs::canonicalize(&args.app)
        .with_context(|| format!("cannot read the app module {}", args.app.display()))?;
    if !app.is_file() {
        bail!(
            "{} is not a file: pass the app's main module, e.g. app.js",
            app.display()
        );
    }
    let root = app.parent().map(|dir| dir.to_path_buf());
    let main = ModuleSpecifier::from_file_path(&app)
        .map_err(|()| anyhow::anyhow!("cannot make a module URL from {}", app.display()))?;
    let spec = AppSpec {
        main,
        preload: engine::default_preload(),
        display: args.app.display().to_string(),
        engine: EngineOptions {
            app_root: root,
            max_heap_bytes: (args.max_heap_mb as usize) << 20,
            cpu_limit: args.cpu_limit,
        },
    };
    let config = ServeConfig {
        workers: args.workers.into(),
        max_body_bytes: args.max_body_bytes,
        max_header_bytes: args.max_header_bytes,
        header_read_timeout: args.header_read_timeout,
        handler_timeout: args.handler_timeout,
    };
    let address = SocketAddr::new(args.host, args.port);
    let listener = TcpListener::bind(address).with_context(|| {
        format!("cannot listen on {address}: is the port in use? (--port 0 picks a free one)")
    })?;
    let bound = listener.local_addr().context("cannot read the bound address")?;
    // Listen for Ctrl-C before anything is printed: a signal that arrives
    // between the banner and the handler would otherwise kill the process.
    let signals = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the signal handler")?;
    let stop = signals.block_on(async { stop_signal() })?;
    let server = adapter::start(listener, spec, config.clone())?;
    println!(
        "fwbench serving {} ({} app) on http://{bound}/ with {} worker{} [{}]",
        args.app.display(),
        server.kind,
        config.workers,
        if config.workers == 1 { "" } else { "s" },
        engine::engine_name()
    );
    signals.block_on(stop)?;
    eprintln!("fwbench: stopping");
    server.shutdown();
    Ok(())
}

/// Installs handlers for Ctrl-C (SIGINT) and SIGTERM now; the returned
/// future resolves when either arrives.
fn stop_signal() -> anyhow::Result<impl std::future::Future<Output = anyhow::Result<()>>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt()).context("failed to listen for Ctrl-C")?;
    let mut terminate = signal(SignalKind::terminate()).context("failed to listen for SIGTERM")?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        Ok(())
    })
}
