//! The arguments of the hidden commands one fwbench runs another with
//! (src/child_run.rs): not for users, so kept apart from the commands'.

use std::path::PathBuf;

use clap::Args;

use crate::header_sets::HeaderSet;

/// `fwbench describe-scenario SCENARIO` (internal).
#[derive(Debug, Args)]
pub struct DescribeScenarioArgs {
    /// A built-in scenario's name or a scenario file's path.
    pub scenario: String,
    /// The chain length asked for.
    #[arg(long)]
    pub depth: Option<usize>,
    /// The header set asked for.
    #[arg(long, value_parser = super::parse::parse_header_set)]
    pub headers: Option<HeaderSet>,
    /// Concerns left out of the chain.
    #[arg(long, value_delimiter = ',')]
    pub without: Vec<String>,
}

/// `fwbench test-file FILE ROOT` (internal).
#[derive(Debug, Args)]
pub struct TestFileArgs {
    /// The test file.
    pub file: PathBuf,
    /// The directory its imports may reach.
    pub root: PathBuf,
}

/// `fwbench runtime-kit DIR` (internal: how benches/runtimes/bench.py
/// serves on Node and Deno the same scenario apps bench's runtime rows do).
#[derive(Debug, Args)]
pub struct RuntimeKitArgs {
    /// Where to write the kit; must not exist yet. It is left there.
    pub dir: PathBuf,
    /// The built-in scenarios to write a main module for, per framework.
    #[arg(long, value_delimiter = ',', default_value = "hello,mw")]
    pub scenario: Vec<String>,
}
