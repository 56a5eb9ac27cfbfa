//! `fwbench sweep --ablate SCENARIO`: what does each concern of a
//! production chain cost in each framework?
//!
//! A scenario that declares its chain's concerns (`export const concerns`,
//! scenarios/README.md; the built-in prod: cors, security-headers,
//! request-id, access-log, auth) is served by every JS framework whole,
//! without each concern in turn and with none (the bare route). Every
//! variant is a bench row, validated first (a concern left out must really
//! be gone: its headers absent) and measured in the same interleaved
//! rounds; a concern's price is the whole chain's µs per request minus the
//! chain's without it, paired round by round.
//!
//! - `result.rs`: [`AblationResult`], the figures `ablation.json` holds;
//! - `text.rs`: the terminal tables and the CSV; `svg.rs`: the chart.

mod result;
mod svg;
mod text;

use anyhow::{bail, Context};

pub use result::{
    variants, AblationResult, ConcernPrice, FrameworkAblation, Price, Variant, ABLATION_SCHEMA_VERSION,
};

use super::output;
use crate::bench::matrix::{self, Matrix};
use crate::bench::{self, BenchPlan};
use crate::cli::SweepArgs;
use crate::frameworks::{self, Serving};
use crate::outcome::Outcome;
use crate::scenario;

/// Runs `fwbench sweep --ablate`: checks the scenario declares concerns,
/// builds its variants' rows for every JS framework (or those named),
/// measures them and writes the tables, `ablation.json`, `ablation.csv`,
/// `ablation.svg` and the underlying bench report. Fails (exit 1) when a
/// row failed or Ctrl-C or SIGTERM cut the run short.
pub fn run(args: &SweepArgs, scenario_arg: &str, tokio: &tokio::runtime::Runtime) -> anyhow::Result<Outcome> {
    let source = scenario::resolve(scenario_arg)?.with_headers(args.headers);
    let info = tokio
        .block_on(scenario::load_info(&source))
        .with_context(|| format!("cannot ablate scenario '{}'", source.name))?;
    let concerns = info.concerns;
    if concerns.is_empty() {
        bail!(
            "scenario '{}' declares no concerns: a scenario that can be ablated exports `concerns` (the \
             names of its chain's parts) and app factories that mount only the `{{ concerns }}` they are \
             given (scenarios/README.md, \"Concerns\")",
            source.name
        );
    }
    if args.run.rounds < 2 {
        bail!(
            "--rounds {}: an ablation pairs the chains round by round and needs at least 2 rounds for an \
             interval (5 or more narrow it)",
            args.run.rounds
        );
    }
    let frameworks = match args.frameworks.as_deref() {
        Some(names) => frameworks::select(Some(names))?,
        // Native rows serve only the built-in scenarios, with no concerns.
        None => frameworks::select(None)?
            .into_iter()
            .filter(|f| matches!(f.serving, Serving::Js { .. }))
            .collect(),
    };
    let matrix = Matrix {
        frameworks,
        scenarios: tokio.block_on(matrix::load(variants(&source, &concerns))),
        headers: args.headers,
    };
    let plan = BenchPlan::new(matrix, &args.run)?;
    eprintln!(
        "fwbench sweep --ablate {}: {} frameworks × {} chains (whole, without each of {} concerns, bare), {} \
         rounds of {:.1} s (+{:.1} s warm-up) each",
        source.name,
        plan.matrix.frameworks.len(),
        concerns.len() + 2,
        concerns.len(),
        plan.rounds,
        plan.duration.as_secs_f64(),
        plan.warmup.as_secs_f64()
    );
    let measured = bench::measure_plan(&plan, tokio)?;
    let result = AblationResult::of(&measured.report, &source, &concerns);
    output::write_outputs(&result, &measured.report, &plan)?;
    Ok(measured.outcome())
}

impl output::Derived for AblationResult {
    const NAME: &'static str = "ablation";

    fn header(&self) -> &crate::report::RunHeader {
        &self.header
    }

    fn write_terminal(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        text::write_terminal(self, out)
    }

    fn write_csv(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        text::write_csv(self, out)
    }

    fn write_svg(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        svg::write_svg(self, out)
    }
}
