//! `fwbench serve`: validate the arguments, bind, start the workers (JS
//! rows through the adapter, native rows through src/native) and run until
//! Ctrl-C (or SIGTERM), which stops it within 3 s whatever app code is doing,
//! while it loads as while it serves. Its stdout carries the banner alone:
//! what the app prints goes to stderr ([`child_run::keep_stdout`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use deno_core::ModuleSpecifier;

use crate::adapter::{self, AppSpec, ServeConfig};
use crate::cli::ServeArgs;
use crate::engine::project::code_cache::CodeCache;
use crate::engine::project::{self, Project};
use crate::engine::{self, EngineOptions};
use crate::frameworks::{self, NativeServer, Serving};
use crate::outcome::Outcome;
use crate::{child_run, in_runtime, native, process_start, scenario};

/// What `serve` runs.
enum Target {
    /// A JS app on the embedded engine.
    Js(AppSpec),
    /// A native row: its name, its server, the built-in scenario and the
    /// chain depth.
    Native {
        name: &'static str,
        server: NativeServer,
        scenario: String,
        depth: Option<usize>,
    },
}

/// A server that is up: what its banner says of it, and what is kept to
/// stop it and to answer the telemetry channel.
struct Running {
    /// What it serves (`scenario hello for hono`, an app's file).
    display: String,
    /// How it serves: `fetch app`, `express app`, …, or `native`.
    style: String,
    /// The engine's name, or `native Rust`.
    engine: &'static str,
    /// Its worker threads, shut down on the stop signal.
    workers: adapter::Workers,
    /// Their heap counters and request times (empty for a native row).
    telemetry: adapter::ServerTelemetry,
    /// When the last runtime was ready and the last worker had loaded the
    /// app (JS rows only).
    loaded: Option<(Instant, Instant)>,
}

/// The app's `process.env`: NODE_ENV=production (what deployments run
/// with), then --env-file's variables, then --env's. PORT is added once
/// the port is bound.
fn app_env(args: &ServeArgs) -> anyhow::Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::from([("NODE_ENV".to_owned(), project::DEFAULT_NODE_ENV.to_owned())]);
    if let Some(file) = &args.env_file {
        env.extend(project::read_env_file(file)?);
    }
    env.extend(args.env.iter().cloned());
    Ok(env)
}

/// Runs `fwbench serve`.
pub fn run(args: ServeArgs) -> anyhow::Result<Outcome> {
    // The channel bench reads the banner from (and `--in-runtime`'s result
    // line); no app can write there.
    let mut channel = child_run::keep_stdout()?;
    let target = target(&args)?;
    let config = ServeConfig {
        workers: args.workers.into(),
        max_body_bytes: args.max_body_bytes,
        max_header_bytes: args.max_header_bytes,
        max_headers: args.max_headers,
        header_read_timeout: args.header_read_timeout,
        handler_timeout: args.handler_timeout,
        time_requests: args.telemetry_fd.is_some() && crate::engine::telemetry_switched_on(),
    };
    if let Some(duration) = args.in_runtime {
        let Target::Js(spec) = target else {
            bail!("--in-runtime measures a JS app; a native row has no runtime");
        };
        let mut scenario = scenario::resolve(args.scenario.as_deref().unwrap_or_default())?;
        scenario.depth = args.depth.map(usize::from);
        scenario.headers = args.headers;
        scenario.without = args.without.clone();
        return in_runtime::run(
            &spec,
            config,
            &scenario,
            args.in_runtime_warmup,
            duration,
            &mut channel,
        );
    }
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
    let mut stop =
        Box::pin(signals.block_on(async {
            stop_signal(args.stop_on_stdin_eof.then_some(args.stdin_heartbeat_timeout))
        })?);
    let project = match &target {
        Target::Js(spec) => spec.engine.project.clone(),
        Target::Native { .. } => None,
    };
    if let Some(project) = &project {
        project.set_env("PORT", bound.port().to_string());
    }
    let running = match target {
        Target::Js(spec) => {
            let display = spec.display.clone();
            // Loading runs app code, which may hang until a limit stops it:
            // wait for it on another thread so a signal still stops us.
            let (started_tx, started) = tokio::sync::oneshot::channel();
            let config = config.clone();
            std::thread::Builder::new()
                .name("fwbench-start".into())
                .spawn(move || {
                    let _ = started_tx.send(adapter::start(listener, spec, config));
                })
                .context("failed to start the server")?;
            let started = signals.block_on(async {
                tokio::select! {
                    started = started => Some(started),
                    _ = stop.as_mut() => None,
                }
            });
            let server = match started {
                Some(Ok(started)) => started?,
                Some(Err(_)) => bail!("the server stopped before the app was loaded"),
                None => bail!("stopped by a signal while {display} was still loading"),
            };
            Running {
                display,
                style: format!("{} app", server.app_style),
                engine: engine::engine_name(),
                workers: server.workers,
                telemetry: server.telemetry,
                loaded: Some((server.runtime_ready, server.app_loaded)),
            }
        }
        Target::Native {
            name,
            server,
            scenario,
            depth,
        } => Running {
            workers: native::start(server, &scenario, depth, listener, config.clone())?,
            display: format!("scenario {scenario} for {name}"),
            style: "native".to_owned(),
            engine: "native Rust",
            telemetry: adapter::ServerTelemetry::default(),
            loaded: None,
        },
    };
    let Running {
        display,
        style,
        engine,
        workers,
        telemetry,
        loaded,
    } = running;
    if let Some(fd) = args.telemetry_fd {
        open_telemetry(fd, telemetry)?;
    }
    // Which packages the app used, and whose: the project's own or
    // fwbench's bundled copies.
    let display = match &project {
        Some(project) => {
            let mut notes = Vec::new();
            let packages = project.packages_note();
            if !packages.is_empty() {
                notes.push(format!("packages: {packages}"));
            }
            notes.extend(project.code_cache().note());
            if notes.is_empty() {
                display
            } else {
                format!("{display} [{}]", notes.join("; "))
            }
        }
        None => display,
    };
    let loaded =
        loaded.map(|(runtime, app)| (process_start::elapsed_at(runtime), process_start::elapsed_at(app)));
    writeln!(
        channel,
        "fwbench serving {display} ({style}) on http://{bound}/ with {} worker{} [{engine}] · {}",
        config.workers,
        if config.workers == 1 { "" } else { "s" },
        startup_note(loaded, process_start::elapsed_at(Instant::now())),
    )
    .and_then(|()| channel.flush())
    .context("cannot write the banner")?;
    signals.block_on(stop)?;
    eprintln!("fwbench: stopping");
    let left_running = workers.shutdown();
    if left_running > 0 {
        eprintln!("fwbench: {left_running} worker(s) still running JS; exiting without them");
    }
    Ok(Outcome::Passed)
}

/// The banner's start-up split, in ms since the process started (its
/// `main`): `started: runtime ready R ms, app loaded A ms, banner B ms`
/// (a native row has only the banner). `bench` and `check` read it
/// (bench/server.rs) and add what came before `main`, which they measure.
fn startup_note(loaded: Option<(Duration, Duration)>, banner: Duration) -> String {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    match loaded {
        Some((runtime, app)) => format!(
            "started: runtime ready {:.1} ms, app loaded {:.1} ms, banner {:.1} ms",
            ms(runtime),
            ms(app),
            ms(banner)
        ),
        None => format!("started: banner {:.1} ms", ms(banner)),
    }
}

/// Answers `bench`'s snapshot requests on the inherited socket `fd`.
fn open_telemetry(fd: i32, telemetry: adapter::ServerTelemetry) -> anyhow::Result<()> {
    // SAFETY: getsockname only writes the address into the buffer given.
    let mut address: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    let named = unsafe { libc::getsockname(fd, (&raw mut address).cast(), &mut len) } == 0;
    if !named || i32::from(address.ss_family) != libc::AF_UNIX {
        bail!(
            "--telemetry-fd {fd} is not an inherited Unix socket (the flag is for `fwbench bench`'s own use)"
        );
    }
    // SAFETY: a Unix socket (checked above), so not the TCP listener nor a
    // connection: the one `bench` made and handed down, owned by nobody else.
    unsafe { adapter::serve_telemetry(fd, telemetry) }.context("cannot start the telemetry channel")
}

/// Turns the arguments into what to serve.
fn target(args: &ServeArgs) -> anyhow::Result<Target> {
    let engine = |app_root, project, snapshot| EngineOptions {
        app_root,
        project,
        max_heap_bytes: (args.max_heap_mb as usize) << 20,
        cpu_limit: args.cpu_limit,
        load_timeout: args.handler_timeout,
        snapshot,
    };
    Ok(match (&args.app, &args.framework, &args.scenario) {
        (Some(app), _, _) => {
            let path = std::fs::canonicalize(app)
                .with_context(|| format!("cannot read the app {}", app.display()))?;
            let env = app_env(args)?;
            let project = if path.is_dir() {
                Project::new(&path, env)?
            } else {
                Project::new(&Project::root_of(&path), env)?
            }
            .with_code_cache(CodeCache::for_engine(engine::engine_name()));
            let entry = if path.is_dir() { project.entry()? } else { path };
            let main = ModuleSpecifier::from_file_path(&entry)
                .map_err(|()| anyhow::anyhow!("cannot make a module URL from {}", entry.display()))?;
            Target::Js(AppSpec {
                main,
                main_code: None,
                preload: engine::default_preload(),
                display: app.display().to_string(),
                engine: engine(None, Some(Arc::new(project)), None),
            })
        }
        (None, Some(framework), Some(scenario)) => {
            let framework = frameworks::named(framework)?;
            let depth = args.depth.map(usize::from);
            let (factory, mode) = match framework.serving {
                Serving::Native(_) if !args.without.is_empty() => {
                    bail!(
                        "--without leaves concerns out of a JS scenario's chain; the native row {} \
                         has none to leave out",
                        framework.name
                    )
                }
                Serving::Native(server) => {
                    return Ok(Target::Native {
                        name: framework.name,
                        server,
                        scenario: scenario.clone(),
                        depth,
                    })
                }
                Serving::Js { factory, mode } => (factory, mode),
            };
            let mut scenario = scenario::resolve(scenario)?;
            scenario.depth = depth;
            scenario.without = args.without.clone();
            let (main, code) = scenario::app_module(&scenario, framework.name, factory, mode);
            Target::Js(AppSpec {
                main,
                main_code: Some(code),
                preload: engine::default_preload(),
                display: format!("scenario {} for {}", scenario.label(), framework.name),
                // The framework's own snapshot: its bundle evaluated.
                engine: engine(
                    scenario.root.clone(),
                    None,
                    engine::snapshot_sets::for_framework(framework.name).map(|set| set.name),
                ),
            })
        }
        _ => bail!("pass an app module, or --framework and --scenario"),
    })
}

/// Installs handlers for Ctrl-C (SIGINT) and SIGTERM now; the returned
/// future resolves when either arrives, or, with `stdin_watch`, when stdin
/// ends or stays silent that long.
fn stop_signal(
    stdin_watch: Option<Duration>,
) -> anyhow::Result<impl std::future::Future<Output = anyhow::Result<()>>> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt()).context("failed to listen for Ctrl-C")?;
    let mut terminate = signal(SignalKind::terminate()).context("failed to listen for SIGTERM")?;
    let (eof_tx, eof) = tokio::sync::oneshot::channel::<()>();
    // When stdin last said something, in ms since `watched`.
    let heard = std::sync::Arc::new(AtomicU64::new(0));
    let watched = Instant::now();
    if stdin_watch.is_some() {
        // A row server on another machine (bench --server-host) runs under
        // sshd, which signals nothing when the session ends but closes the
        // command's stdin: that end of file is the order to stop, whether
        // bench closed it at the end of the row or died. bench also writes
        // a line every second: silence past the timeout means it was cut
        // off (a network partition keeps the session open for minutes).
        let heard = heard.clone();
        std::thread::Builder::new()
            .name("fwbench-stdin-eof".into())
            .spawn(move || {
                use std::io::Read;
                let mut stdin = std::io::stdin().lock();
                let mut buffer = [0u8; 64];
                while let Ok(1..) = stdin.read(&mut buffer) {
                    heard.store(watched.elapsed().as_millis() as u64, Ordering::Relaxed);
                }
                let _ = eof_tx.send(());
            })
            .context("failed to watch stdin")?;
    }
    Ok(async move {
        let eof = async move {
            match eof.await {
                Ok(()) => (),
                // Not watching: never.
                Err(_) => std::future::pending().await,
            }
        };
        let silence = async move {
            let Some(timeout) = stdin_watch else {
                return std::future::pending().await;
            };
            let mut tick = tokio::time::interval(Duration::from_millis(250));
            loop {
                tick.tick().await;
                let since = watched
                    .elapsed()
                    .saturating_sub(Duration::from_millis(heard.load(Ordering::Relaxed)));
                if since >= timeout {
                    eprintln!(
                        "fwbench: stdin silent for {:.1} s (the controller is gone): stopping",
                        since.as_secs_f64()
                    );
                    return;
                }
            }
        };
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
            _ = eof => {}
            _ = silence => {}
        }
        Ok(())
    })
}
