//! The `fwbench` command: parse the command line, dispatch to the library,
//! turn any error into a message and an exit code.

use std::process::ExitCode;

use clap::Parser;
use fwbench::{bench, cli, jstest, report, serve};

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Serve(args) => serve::run(args),
        cli::Command::Test(args) => jstest::run(&args.paths),
        cli::Command::Check(args) => bench::check(&args),
        cli::Command::List => bench::list(),
        cli::Command::Compare(args) => match report::compare::run(&args, &mut std::io::stdout().lock()) {
            Ok(report::CompareOutcome::Regressed { .. }) => return ExitCode::FAILURE,
            Ok(_) => Ok(()),
            Err(error) => Err(error),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fwbench: {error:#}");
            ExitCode::FAILURE
        }
    }
}
