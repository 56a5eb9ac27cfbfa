//! Serving a native row: the same worker model as the JS adapter (N
//! threads, each a current-thread runtime accepting on the shared listener)
//! and the same HTTP/1.1 builder (`adapter::http1_builder`).

use std::net::TcpListener;
use std::time::Duration;

use anyhow::anyhow;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::sync::watch;

use super::{axum_row, hyper_row, Scenario};
use crate::adapter::{http1_builder, ServeConfig, Workers};

/// Starts `framework` (hyper or axum) serving `scenario` on `listener`.
pub fn start(
    framework: &str,
    scenario: &str,
    listener: TcpListener,
    config: ServeConfig,
) -> anyhow::Result<Workers> {
    let scenario = Scenario::from_name(scenario).ok_or_else(|| {
        anyhow!("native rows implement only the built-in scenarios hello, param and mw, not '{scenario}'")
    })?;
    if !super::FRAMEWORKS.contains(&framework) {
        return Err(anyhow!("'{framework}' is not a native framework (hyper, axum)"));
    }
    let framework = framework.to_owned();
    let workers = config.workers;
    Workers::spawn(&listener, workers, "fwbench-native", move |listener, shutdown| {
        if let Err(error) = worker(&framework, scenario, listener, &config, shutdown) {
            eprintln!("fwbench: native worker failed: {error:#}");
        }
    })
}

fn worker(
    framework: &str,
    scenario: Scenario,
    listener: TcpListener,
    config: &ServeConfig,
    mut shutdown: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // A LocalSet, as the JS adapter's workers use: connections stay on
    // their worker thread.
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let router = axum_row::router(scenario);
        let mut connections = tokio::task::JoinSet::new();
        let conn_shutdown = shutdown.clone();
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    };
                    let _ = stream.set_nodelay(true);
                    let io = TokioIo::new(stream);
                    let stop = conn_shutdown.clone();
                    if framework == "axum" {
                        let service = TowerToHyperService::new(router.clone());
                        connections.spawn_local(connection(http1_builder(config), io, service, stop));
                    } else {
                        let service = service_fn(move |request| hyper_row::handle(scenario, request));
                        connections.spawn_local(connection(http1_builder(config), io, service, stop));
                    }
                }
                _ = shutdown.wait_for(|s| *s) => break,
            }
            while connections.try_join_next().is_some() {}
        }
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        Ok::<_, anyhow::Error>(())
    })
}

/// Serves one connection until it closes or shutdown is asked.
async fn connection<S, B>(
    builder: hyper::server::conn::http1::Builder,
    io: TokioIo<tokio::net::TcpStream>,
    service: S,
    mut stop: watch::Receiver<bool>,
) where
    S: hyper::service::HttpService<hyper::body::Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = stop.wait_for(|stop| *stop) => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}
