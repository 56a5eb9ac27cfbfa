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
    let info = scenario::load_info_in_child(&source)
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
    check_concerns(&source.name, &concerns)?;
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
        apps: Vec::new(),
        runtimes: Default::default(),
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
    output::write_outputs(&result, &result.header, &WRITERS, &measured.report, &plan)?;
    Ok(measured.outcome())
}

/// How a ablation result is written.
const WRITERS: output::Writers<AblationResult> = output::Writers {
    name: "ablation",
    title: "Ablation: the price of each concern of the chain",
    terminal: text::write_terminal,
    csv: text::write_csv,
    svg: svg::write_svg,
};

/// Refuses concern names that would price a concern twice (a duplicate) or
/// break the rows they name (`prod~cors`, the `--without` list a server
/// gets, a report's lines): each must be a word of letters, digits, `-`
/// and `_`. Checked before any row starts.
fn check_concerns(scenario: &str, concerns: &[String]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashSet::new();
    for concern in concerns {
        let word = !concern.is_empty()
            && concern.len() <= 64
            && concern
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !word {
            bail!(
                "scenario '{scenario}' declares the concern {concern:?}: a concern's name is a word of letters, \
                 digits, '-' and '_' (64 at most)"
            );
        }
        if !seen.insert(concern.as_str()) {
            bail!("scenario '{scenario}' declares the concern {concern:?} twice: each is priced once");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_concerns;

    #[test]
    fn concern_names_are_words_declared_once() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(check_concerns("prod", &names(&["cors", "security-headers", "request_id"])).is_ok());
        for bad in [
            &["cors", "cors"][..],
            &["a,b"],
            &["line\nbreak"],
            &[""],
            &["prod~cors"],
            &["x y"],
        ] {
            let error = check_concerns("prod", &names(bad))
                .expect_err("refused")
                .to_string();
            assert!(error.contains("scenario 'prod' declares the concern"), "{error}");
        }
    }
}
