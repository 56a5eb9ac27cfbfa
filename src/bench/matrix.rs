//! The framework × scenario matrix: which rows a run has, and why a row
//! cannot run when it cannot.

use crate::cli::MatrixArgs;
use crate::frameworks::{self, Framework, Serving};
use crate::native;
use crate::scenario::{self, ScenarioInfo, ScenarioRef};

/// A scenario with its data, or why it could not be read.
pub struct LoadedScenario {
    /// Where it comes from.
    pub source: ScenarioRef,
    /// Its data, or the error loading it.
    pub info: Result<ScenarioInfo, String>,
    /// True for the embedded scenarios (native rows implement only these).
    pub builtin: bool,
}

/// Why a row does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRun {
    /// It does not apply (a native row for a user's scenario): not an error.
    Skipped(String),
    /// It should run but cannot (the scenario failed to load, or has no app
    /// for the framework): reported failed.
    Failed(String),
}

/// One cell of the matrix.
pub struct MatrixRow<'a> {
    /// The framework.
    pub framework: &'static Framework,
    /// The scenario.
    pub scenario: &'a LoadedScenario,
    /// Why the row does not run, if it does not.
    pub not_run: Option<NotRun>,
}

/// The frameworks and scenarios a command covers, scenarios loaded.
/// Serializes as the names of both (a scenario file by its path).
pub struct Matrix {
    /// The frameworks, in report order.
    pub frameworks: Vec<&'static Framework>,
    /// The scenarios, with their data or load errors.
    pub scenarios: Vec<LoadedScenario>,
}

impl Matrix {
    /// Resolves `--frameworks`, `--only` and `--scenario` and loads each
    /// scenario's data.
    pub fn resolve(args: &MatrixArgs, runtime: &tokio::runtime::Runtime) -> anyhow::Result<Self> {
        let frameworks = frameworks::select(args.frameworks.as_deref())?;
        let refs = scenarios(args.only.as_deref(), &args.scenario)?;
        Ok(Self {
            frameworks,
            scenarios: runtime.block_on(load(refs)),
        })
    }

    /// Its rows, scenario-major.
    pub fn rows(&self) -> Vec<MatrixRow<'_>> {
        rows(&self.frameworks, &self.scenarios)
    }
}

impl serde::Serialize for Matrix {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let frameworks: Vec<&str> = self.frameworks.iter().map(|f| f.name).collect();
        let scenarios: Vec<String> = self
            .scenarios
            .iter()
            .map(|s| scenario::at_depth_label(&s.source.url_arg(), s.source.depth))
            .collect();
        let mut fields = serializer.serialize_struct("Matrix", 2)?;
        fields.serialize_field("frameworks", &frameworks)?;
        fields.serialize_field("scenarios", &scenarios)?;
        fields.end()
    }
}

/// Resolves `--only` (comma-separated names) plus `--scenario` files.
pub fn scenarios(only: Option<&str>, files: &[String]) -> anyhow::Result<Vec<ScenarioRef>> {
    let mut refs = Vec::new();
    let names: Vec<String> = match only {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect(),
        // In the built-ins' (sorted) order, as before there were others.
        None if files.is_empty() => scenario::builtin_names()
            .into_iter()
            .filter(|name| scenario::DEFAULT_RUN.contains(&name.as_str()))
            .collect(),
        None => Vec::new(),
    };
    for name in names {
        refs.push(scenario::resolve(&name)?);
    }
    for file in files {
        refs.push(scenario::resolve(file)?);
    }
    Ok(refs)
}

/// Loads each scenario's data; a scenario that fails to load is kept, with
/// its error, so its rows are reported failed and the run goes on.
pub async fn load(refs: Vec<ScenarioRef>) -> Vec<LoadedScenario> {
    let mut loaded = Vec::new();
    for source in refs {
        let builtin = source.root.is_none();
        let info = scenario::load_info(&source)
            .await
            .map_err(|error| format!("{error:#}"));
        loaded.push(LoadedScenario {
            source,
            info,
            builtin,
        });
    }
    loaded
}

/// The rows for `frameworks` × `scenarios`, in scenario-major order.
pub fn rows<'a>(frameworks: &[&'static Framework], scenarios: &'a [LoadedScenario]) -> Vec<MatrixRow<'a>> {
    let mut rows = Vec::new();
    for scenario in scenarios {
        for &framework in frameworks {
            let not_run = match (&scenario.info, framework.serving) {
                (Err(error), _) => Some(NotRun::Failed(format!("the scenario failed to load: {error}"))),
                (Ok(_), Serving::Native(_))
                    if !(scenario.builtin && native::SCENARIOS.contains(&scenario.source.name.as_str())) =>
                {
                    Some(NotRun::Skipped(format!(
                        "native rows implement only the built-in scenarios ({})",
                        native::SCENARIOS.join(", ")
                    )))
                }
                (Ok(info), Serving::Js { factory, .. })
                    if !info
                        .apps
                        .iter()
                        .any(|app| app == framework.name || app == factory) =>
                {
                    Some(NotRun::Failed(format!(
                        "the scenario has no app for {} (apps.{factory})",
                        framework.name
                    )))
                }
                _ => None,
            };
            rows.push(MatrixRow {
                framework,
                scenario,
                not_run,
            });
        }
    }
    rows
}
