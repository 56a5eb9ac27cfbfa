//! The `fwbench` command: parse the command line, dispatch to the library,
//! turn the outcome into a message and an exit status (ripgrep's shape:
//! the cause chain printed with `{:#}`).
//!
//! Exit status, the same for every command ([`cli::EXIT_STATUS`]): 0 ok;
//! 1 the command ran but something failed ([`outcome::Outcome::Failed`]); 2 a
//! usage or set-up error (clap's own exit status for a bad flag, and every
//! `Err` a command returns).

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use fwbench::cli;
use fwbench::outcome::Outcome;
use fwbench::{bench, capacity, jstest, k8s, load, report, scenario, serve, sweep};

/// Every Rust allocation (hyper's buffers, header maps, the adapter's
/// request table) goes to mimalloc: a request allocates and frees a few
/// times on each side, and glibc's malloc costs several times more per call
/// once a JS engine shares its heap (the figures are in the ledger of
/// docs/ARCHITECTURE.md). The engines keep their own allocators.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit status of a usage or set-up error.
const SETUP_ERROR: u8 = 2;
/// Exit status of a command that ran but found a failure.
const FAILED: u8 = 1;

fn main() -> ExitCode {
    fwbench::process_start::mark();
    let cli = cli::Cli::parse();
    let outcome = fwbench::engine::switches::from_env()
        .and_then(|_| fwbench::engine::flags::apply_from_env())
        .and_then(|()| run(cli.command));
    match outcome {
        Ok(Outcome::Passed) => ExitCode::SUCCESS,
        Ok(Outcome::Failed(why)) => {
            eprintln!("fwbench: {why}");
            ExitCode::from(FAILED)
        }
        // `fwbench ... | head`: the reader is gone, which is not an error.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fwbench: {error:#}");
            ExitCode::from(SETUP_ERROR)
        }
    }
}

/// Runs one command to its outcome.
fn run(command: cli::Command) -> anyhow::Result<Outcome> {
    match command {
        cli::Command::Serve(args) => serve::run(args),
        cli::Command::Load(args) => {
            load::run(*args, &mut std::io::stdout().lock()).map(|outcome| outcome.verdict.into())
        }
        cli::Command::Test(args) => jstest::run(&args.paths),
        cli::Command::Bench(args) => bench::run(&args),
        cli::Command::Sweep(args) => sweep::run(&args),
        cli::Command::Capacity(args) => capacity::run(&args),
        cli::Command::Check(args) => bench::check(&args, &mut std::io::stdout().lock()),
        cli::Command::List => bench::list().map(|()| Outcome::Passed),
        cli::Command::MachineFacts => {
            bench::remote::print_machine_facts(&mut std::io::stdout().lock()).map(|()| Outcome::Passed)
        }
        cli::Command::DescribeScenario(args) => {
            scenario::describe(&args.scenario, args.depth, args.headers, &args.without)
                .map(|()| Outcome::Passed)
        }
        cli::Command::TestFile(args) => jstest::run_one(&args.file, &args.root).map(|()| Outcome::Passed),
        cli::Command::RuntimeKit(args) => {
            bench::runtimes::kit::export(args.dir, &args.scenario, &mut std::io::stdout().lock())
                .map(|()| Outcome::Passed)
        }
        cli::Command::Compare(args) => compare(&args),
        cli::Command::Html(args) => {
            report::html::run(&args, &mut std::io::stdout().lock()).map(|()| Outcome::Passed)
        }
        cli::Command::Merge(args) => report::merge::run(&args, &mut std::io::stdout().lock()),
        cli::Command::K8sJob(args) => {
            k8s::run(&args, &mut std::io::stdout().lock()).map(|()| Outcome::Passed)
        }
    }
}

/// `fwbench compare`: the comparison on stdout, then as a page.
fn compare(args: &report::CompareArgs) -> anyhow::Result<Outcome> {
    let mut stdout = std::io::stdout().lock();
    let page = args.html_path();
    let mut html = Vec::new();
    let outcome = if args.is_history() {
        let history = report::history::History::of(report::history::load_reports(&args.reports())?);
        let outcome = report::history::write(&history, args.fail_below, &mut stdout)?;
        report::html::write_history_html(&history, &mut html)?;
        outcome
    } else {
        let (outcome, comparison) = report::compare::run_keeping(args, &mut stdout)?;
        report::html::write_compare_html(&comparison, args.fail_below, &mut html)?;
        outcome
    };
    std::fs::write(&page, html).with_context(|| format!("cannot write {}", page.display()))?;
    writeln!(stdout, "\npage: {}", page.display())?;
    Ok(outcome.into())
}

/// Whether `error` comes from writing to a closed pipe.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
