//! The command line: clap structs only. Each subcommand's flags live with
//! the module that implements it (`load::LoadArgs`, `native::NativeArgs`).

use clap::{Parser, Subcommand};

/// Load-test web frameworks hosted in embedded JS runtimes beside native
/// Rust servers.
#[derive(Debug, Parser)]
#[command(name = "fwbench", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send HTTP/1.1 load to a server on loopback and report throughput,
    /// latency percentiles, statuses, errors and validation.
    Load(Box<fwbench::load::LoadArgs>),
    /// Run a native Rust server in the foreground (for benchmarks).
    #[command(hide = true)]
    Native(fwbench::native::NativeArgs),
}
