//! fwbench's entry point: parse the command line, dispatch, and turn the
//! result into a message and an exit status (ripgrep's shape: the cause
//! chain printed with `{:#}`).
//!
//! Exit status: 0 success; 1 error or nothing measured; 2 a load run whose
//! figures were measured but is flagged (errors, validation mismatches,
//! Ctrl-C).

mod cli;

use std::process::ExitCode;

use clap::Parser;
use fwbench::load::Verdict;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Load(args) => {
            fwbench::load::run(*args, &mut std::io::stdout().lock()).map(|o| match o.verdict {
                Verdict::Clean => ExitCode::SUCCESS,
                Verdict::Flagged => ExitCode::from(2),
                Verdict::NothingMeasured => ExitCode::from(1),
            })
        }
        cli::Command::Native(args) => fwbench::native::run(args).map(|()| ExitCode::SUCCESS),
    };
    result.unwrap_or_else(|err| {
        eprintln!("fwbench: {err:#}");
        ExitCode::from(1)
    })
}
