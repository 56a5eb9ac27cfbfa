//! fwbench: host JavaScript web frameworks in embedded JS runtimes, serve
//! them through hyper, and load-test them beside native Rust servers.
//!
//! `main` only parses the command line and dispatches; see DESIGN.md for
//! the modules.

mod adapter;
mod bench;
mod cli;
mod engine;
mod jstest;
mod native;
mod scenario;
mod serve;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Serve(args) => serve::run(args),
        cli::Command::Test(args) => jstest::run(&args.paths),
        cli::Command::Check(args) => bench::check(&args),
        cli::Command::List => bench::list(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fwbench: {error:#}");
            ExitCode::FAILURE
        }
    }
}
