/*!
Native Rust servers for the benchmark rows. Each module serves one kind of
server on a listener the caller binds (mini-redis's `run(listener,
shutdown)` shape), so tests use `127.0.0.1:0` and `fwbench native` pins a
port.
*/

pub mod hyper;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use anyhow::Context;

/// Flags of the hidden `fwbench native` subcommand: run a native server in
/// the foreground (the benchmark pins it to a CPU with `taskset`).
#[derive(Debug, Clone, clap::Args)]
pub struct NativeArgs {
    /// Port to listen on (0 picks a free one, printed on stdout).
    #[arg(long, default_value_t = 3000)]
    pub port: u16,
    /// Address to bind.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub host: IpAddr,
    /// Runtime worker threads. Default: the CPUs this process may run on.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Serves the hyper hello server until Ctrl-C.
pub fn run(args: NativeArgs) -> anyhow::Result<()> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .context("cannot start the server runtime")?;
    rt.block_on(async {
        let addr = SocketAddr::new(args.host, args.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr} (port in use?)"))?;
        let local = listener
            .local_addr()
            .context("cannot read the bound address")?;
        println!("listening on http://{local}/ ({threads} thread(s)); Ctrl-C stops");
        hyper::serve(listener, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await;
        Ok(())
    })
}
