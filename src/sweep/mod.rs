//! `fwbench sweep`: what does one more middleware link cost in each
//! framework, and does that cost grow with the chain? With `--ablate`,
//! what does each concern of a production chain cost (`ablation/`)?
//!
//! A scenario with a depth parameter (the built-in mw: its factories build
//! a chain of `{ depth }` links, scenarios/README.md) is served at every
//! requested depth by every framework, native rows included (hyper with
//! that many tower layers, axum with that many middleware). The rows are
//! measured exactly as `bench` measures its own (one server process per
//! row, validation of every link's header, warm-up, interleaved rounds),
//! then each framework's µs per request is fitted against depth.
//!
//! - `fit.rs`: the least-squares fits (each an [`Estimate`] with its 95 %
//!   confidence interval, crate::estimate);
//! - `result.rs`: [`SweepResult`], the figures `sweep.json` holds;
//! - `text.rs`: the terminal table and the CSV; `svg.rs`: the chart.

pub mod ablation;
mod fit;
mod output;
mod result;
mod svg;
mod text;

use anyhow::{bail, Context};

pub use crate::estimate::Estimate;
pub use fit::{fit, ChainFit, FitError, Shape};
pub use result::{DepthPoint, FrameworkSweep, SweepResult, SWEEP_SCHEMA_VERSION};

use crate::bench::matrix::{self, Matrix, MatrixRuntimes};
use crate::bench::{self, BenchPlan};
use crate::cli::SweepArgs;
use crate::frameworks;
use crate::outcome::Outcome;
use crate::scenario;

/// Runs `fwbench sweep`: checks the scenario has a depth parameter, builds
/// one row per framework and depth, measures them and writes the table,
/// `sweep.json`, `sweep.csv`, `sweep.svg` and the underlying bench report
/// (`report.json`, `hdr/`). Fails (exit 1) when a row failed or Ctrl-C or
/// SIGTERM cut the run short.
pub fn run(args: &SweepArgs) -> anyhow::Result<Outcome> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    if let Some(scenario) = &args.ablate {
        return ablation::run(args, scenario, &tokio);
    }
    let source = scenario::resolve(&args.scenario)?.with_headers(args.headers);
    let default = scenario::load_info_in_child(&source)
        .with_context(|| format!("cannot sweep scenario '{}'", source.name))?;
    if default.depth.is_none() {
        bail!(
            "scenario '{}' has no depth parameter: a scenario that can be swept exports `depth` \
             (its chain's default length) and app factories that build `{{ depth }}` links \
             (scenarios/README.md, \"A chain you can sweep\")",
            source.name
        );
    }
    let depths = &args.depths.0;
    let mut frameworks = frameworks::select(args.frameworks.as_deref())?;
    let runtimes = MatrixRuntimes::resolve(&args.runtimes, &frameworks, &[])?;
    if !runtimes.fwbench {
        frameworks.retain(|f| matches!(f.serving, frameworks::Serving::Native(_)));
    }
    let matrix = Matrix {
        frameworks,
        scenarios: tokio.block_on(matrix::load(depths.iter().map(|&d| source.at_depth(d)).collect())),
        headers: args.headers,
        apps: Vec::new(),
        runtimes,
    };
    let plan = BenchPlan::new(matrix, &args.run)?;
    eprintln!(
        "fwbench sweep: {} frameworks × {} depths, {} rounds of {:.1} s (+{:.1} s warm-up) each",
        plan.matrix.framework_names().len(),
        depths.len(),
        plan.rounds,
        plan.duration.as_secs_f64(),
        plan.warmup.as_secs_f64()
    );
    let measured = bench::measure_plan(&plan, &tokio)?;
    let sweep = SweepResult::of(&measured.report, &source.name, depths);
    output::write_outputs(&sweep, &sweep.header, &WRITERS, &measured.report, &plan)?;
    Ok(measured.outcome())
}

/// How a sweep result is written.
const WRITERS: output::Writers<SweepResult> = output::Writers {
    name: "sweep",
    title: "Sweep: the cost of one more link, per framework",
    terminal: text::write_terminal,
    csv: text::write_csv,
    svg: svg::write_svg,
};
