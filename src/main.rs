//! The `fwbench` command: parse the command line, dispatch to the library,
//! turn any error into a message and an exit code (ripgrep's shape: the
//! cause chain printed with `{:#}`).
//!
//! Exit status: 0 success; 1 an error (or a load run that measured
//! nothing); 2 a load run whose figures were measured but are flagged
//! (errors, validation mismatches, Ctrl-C).

use std::process::ExitCode;

use clap::Parser;
use fwbench::load::Verdict;
use fwbench::{bench, cli, jstest, load, report, serve};

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Serve(args) => serve::run(args),
        cli::Command::Load(args) => match load::run(*args, &mut std::io::stdout().lock()) {
            Ok(outcome) => match outcome.verdict {
                Verdict::Clean => return ExitCode::SUCCESS,
                Verdict::Flagged => return ExitCode::from(2),
                Verdict::NothingMeasured => return ExitCode::FAILURE,
            },
            Err(error) => Err(error),
        },
        cli::Command::Test(args) => jstest::run(&args.paths),
        cli::Command::Bench(args) => bench::run(&args),
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
        // `fwbench ... | head`: the reader is gone, which is not an error.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fwbench: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `error` comes from writing to a closed pipe.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
