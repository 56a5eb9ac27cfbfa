//! Serving a native row: the same worker model as the JS adapter (N
//! threads, each a current-thread runtime accepting on the shared listener)
//! and the same connection code (`adapter::serve_connections`); only the
//! service differs.

use std::net::TcpListener;

use anyhow::anyhow;
use hyper::service::service_fn;
use hyper_util::service::TowerToHyperService;
use tokio::sync::watch;

use super::{axum_row, hyper_row, Scenario};
use crate::adapter::{serve_connections, worker_listener, ServeConfig, Workers};
use crate::frameworks::NativeServer;

/// Starts `server` serving `scenario` on `listener`, its chain `depth`
/// links long when given.
pub fn start(
    server: NativeServer,
    scenario: &str,
    depth: Option<usize>,
    listener: TcpListener,
    config: ServeConfig,
) -> anyhow::Result<Workers> {
    let scenario = Scenario::from_name(scenario, depth).map_err(|error| anyhow!(error))?;
    let workers = config.workers;
    Workers::spawn(&listener, workers, "fwbench-native", move |listener, shutdown| {
        if let Err(error) = worker(server, scenario, listener, &config, shutdown) {
            eprintln!("fwbench: native worker failed: {error:#}");
        }
    })
}

fn worker(
    server: NativeServer,
    scenario: Scenario,
    listener: TcpListener,
    config: &ServeConfig,
    shutdown: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // A LocalSet, as the JS adapter's workers use: connections stay on
    // their worker thread.
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let listener = worker_listener(listener)?;
        if server == NativeServer::Axum {
            let router = axum_row::router(scenario);
            serve_connections(listener, config, shutdown, || {
                TowerToHyperService::new(router.clone())
            })
            .await;
        } else if let Scenario::Mw(_) | Scenario::Error = scenario {
            let depth = match scenario {
                Scenario::Mw(depth) => depth,
                _ => super::MW_DEPTH,
            };
            let chain = hyper_row::chain(scenario, depth);
            serve_connections(listener, config, shutdown, || {
                TowerToHyperService::new(chain.clone())
            })
            .await;
        } else {
            serve_connections(listener, config, shutdown, || {
                service_fn(move |request| hyper_row::handle(scenario, request))
            })
            .await;
        }
        Ok::<_, anyhow::Error>(())
    })
}
