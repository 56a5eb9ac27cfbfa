//! The framework × scenario matrix: which rows a run has, and why a row
//! cannot run when it cannot.

use std::sync::Arc;

use super::runtimes::kit::Kit;
use super::runtimes::{self, ForeignRuntime, RuntimeKind, RuntimeList};
use crate::cli::{MatrixArgs, RuntimeArgs};
use crate::framework_list::Mode;
use crate::frameworks::{self, Framework, Serving};
use crate::header_sets::HeaderSet;
use crate::native;
use crate::scenario::{self, ScenarioInfo, ScenarioRef, Suite};

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
    /// The framework (for an app row, the row's name).
    pub framework: &'static Framework,
    /// The scenario (for an app row, the request it is sent).
    pub scenario: &'a LoadedScenario,
    /// Why the row does not run, if it does not.
    pub not_run: Option<NotRun>,
    /// An app row's project (`--app`), served as `fwbench serve DIR`.
    pub app: Option<&'a std::path::Path>,
    /// For a runtime row, what serves it instead of fwbench.
    pub foreign: Option<Foreign>,
}

/// What serves a runtime row (`hono@node`): the runtime, the directory it
/// serves the app files from, and the framework whose app it serves.
#[derive(Debug, Clone)]
pub struct Foreign {
    /// The runtime.
    pub runtime: Arc<ForeignRuntime>,
    /// The app files, written out.
    pub kit: Arc<Kit>,
    /// The framework (`hono`) whose scenario app is served.
    pub base: &'static Framework,
    /// Whether the runtime prints its collections for the GC columns
    /// (runtimes::gc_trace; not with `--no-gc-trace`).
    pub gc_trace: bool,
}

/// One JS framework, or one `--app` project, on one other runtime: its
/// row's name (`hono@node`, a framework's in every report) and what serves
/// it.
pub struct RuntimeRow {
    /// The row's framework: the base's serving under the row's name.
    pub framework: &'static Framework,
    /// What serves it.
    pub foreign: Foreign,
    /// For a project's row, its index in [`Matrix::apps`].
    pub app: Option<usize>,
    /// Why it does not run, when known before it starts (a project the
    /// runtime cannot run as it is).
    pub not_run: Option<NotRun>,
}

/// The runtimes a matrix's JS rows are served by (`--runtime`).
pub struct MatrixRuntimes {
    /// Whether fwbench serves its own JS rows.
    pub fwbench: bool,
    /// The rows of the other runtimes found, framework-major per runtime.
    pub rows: Vec<RuntimeRow>,
    /// The other runtimes found, in the order asked.
    pub found: Vec<Arc<ForeignRuntime>>,
    /// Each runtime asked for and not found, with why.
    pub missing: Vec<(RuntimeKind, String)>,
}

impl Default for MatrixRuntimes {
    /// fwbench alone.
    fn default() -> Self {
        Self {
            fwbench: true,
            rows: Vec::new(),
            found: Vec::new(),
            missing: Vec::new(),
        }
    }
}

impl MatrixRuntimes {
    /// Finds the runtimes `args` ask for (a missing one is reported once,
    /// its rows left out) and, if any is found, writes the app files they
    /// serve; one row per runtime found and JS framework of `frameworks`
    /// or project of `apps`.
    pub fn resolve(
        args: &RuntimeArgs,
        frameworks: &[&'static Framework],
        apps: &[AppRow],
    ) -> anyhow::Result<Self> {
        let list: RuntimeList = args
            .runtime
            .parse()
            .map_err(|error| anyhow::anyhow!("--runtime: {error}"))?;
        let mut runtimes = MatrixRuntimes {
            fwbench: list.fwbench,
            ..MatrixRuntimes::default()
        };
        for kind in list.foreign {
            let given = match kind {
                RuntimeKind::Node => args.node.as_deref(),
                RuntimeKind::Deno => args.deno.as_deref(),
                RuntimeKind::Bun => args.bun.as_deref(),
            };
            match runtimes::find(kind, given) {
                Ok(found) => runtimes.found.push(Arc::new(found)),
                Err(why) => {
                    eprintln!("fwbench: {} rows are skipped: {why}", kind.name());
                    runtimes.missing.push((kind, why));
                }
            }
        }
        if runtimes.found.is_empty() {
            return Ok(runtimes);
        }
        let kit = Arc::new(Kit::write()?);
        let js = frameworks
            .iter()
            .filter(|f| matches!(f.serving, Serving::Js { .. }));
        let bases: Vec<(&'static Framework, Option<usize>)> = js
            .map(|&f| (f, None))
            .chain(apps.iter().enumerate().map(|(i, a)| (a.framework, Some(i))))
            .collect();
        for runtime in &runtimes.found {
            for &(base, app) in &bases {
                // A row's name is a framework's in every report; each
                // runtime row needs its own, for the life of the command.
                let framework: &'static Framework = Box::leak(Box::new(Framework {
                    name: Box::leak(format!("{}@{}", base.name, runtime.kind.name()).into_boxed_str()),
                    serving: base.serving,
                    about: Box::leak(
                        format!("{} on {} {}", base.about, runtime.kind.name(), runtime.version)
                            .into_boxed_str(),
                    ),
                }));
                let not_run = app
                    .and_then(|index| runtimes::cannot_run_project(runtime.kind, &apps[index].path))
                    .map(NotRun::Skipped);
                runtimes.rows.push(RuntimeRow {
                    framework,
                    foreign: Foreign {
                        runtime: runtime.clone(),
                        kit: kit.clone(),
                        base,
                        gc_trace: !args.no_gc_trace,
                    },
                    app,
                    not_run,
                });
            }
        }
        Ok(runtimes)
    }
}

/// A user's app as a row (`--app`): its name, its project and the request.
pub struct AppRow {
    /// The row's name, as a framework's (its `about` names the project).
    pub framework: &'static Framework,
    /// The project directory or entry file.
    pub path: std::path::PathBuf,
    /// The request of `--request` and its expected status.
    pub request: LoadedScenario,
}

/// The scenario name app rows report their request under.
pub const APP_REQUEST: &str = "request";

/// The rows of `--app`: each project with the request of `--request`,
/// `-H`, `--request-body` and `--expect-status`.
fn app_rows(args: &MatrixArgs) -> Vec<AppRow> {
    let (method, path) = args
        .request
        .clone()
        .unwrap_or_else(|| ("GET".to_owned(), "/".to_owned()));
    let description = format!("{method} {path}, answered {}", args.expect_status);
    args.apps
        .iter()
        .map(|(name, project)| {
            // A row's name is a framework's in every report; each app row
            // needs its own, for the life of the command.
            let framework: &'static Framework = Box::leak(Box::new(Framework {
                name: Box::leak(name.clone().into_boxed_str()),
                serving: Serving::Js {
                    factory: APP_REQUEST,
                    mode: crate::framework_list::Mode::Node,
                },
                about: Box::leak(format!("your app: {}", project.display()).into_boxed_str()),
            }));
            let info = ScenarioInfo {
                name: APP_REQUEST.to_owned(),
                description: description.clone(),
                request: scenario::ScenarioRequest {
                    method: method.clone(),
                    path: path.clone(),
                    headers: args.request_headers.clone(),
                    body: args.request_body.clone(),
                },
                expect: scenario::ScenarioExpectations {
                    status: args.expect_status,
                    body: None,
                    content_type: None,
                    headers: Vec::new(),
                    headers_present: Vec::new(),
                    headers_absent: Vec::new(),
                },
                apps: Vec::new(),
                depth: None,
                header_set: HeaderSet::default(),
                concerns: Vec::new(),
            };
            let source = ScenarioRef {
                name: APP_REQUEST.to_owned(),
                url: deno_core::ModuleSpecifier::from_file_path(project)
                    .unwrap_or_else(|()| deno_core::ModuleSpecifier::parse("file:///").expect("a valid URL")),
                root: None,
                depth: None,
                headers: None,
                without: Vec::new(),
            };
            AppRow {
                framework,
                path: project.clone(),
                request: LoadedScenario {
                    source,
                    info: Ok(info),
                    builtin: false,
                },
            }
        })
        .collect()
}

impl MatrixRow<'_> {
    /// The scenario's data when the row runs, or why it does not (a
    /// scenario that did not load fails each of its rows). `check` and
    /// `bench` both decide from this.
    pub fn runnable(&self) -> Result<&ScenarioInfo, NotRun> {
        match (&self.not_run, &self.scenario.info) {
            (Some(not_run), _) => Err(not_run.clone()),
            (None, Ok(info)) => Ok(info),
            (None, Err(error)) => Err(NotRun::Failed(error.clone())),
        }
    }
}

/// The frameworks and scenarios a command covers, scenarios loaded.
/// Serializes as the names of both (a scenario file by its path).
pub struct Matrix {
    /// The frameworks, in report order.
    pub frameworks: Vec<&'static Framework>,
    /// The scenarios, with their data or load errors.
    pub scenarios: Vec<LoadedScenario>,
    /// The header set asked for (`--headers`); `None`: each scenario's own.
    pub headers: Option<HeaderSet>,
    /// The app rows (`--app`), after the framework × scenario rows.
    pub apps: Vec<AppRow>,
    /// The runtimes serving the JS rows (`--runtime`).
    pub runtimes: MatrixRuntimes,
}

impl Matrix {
    /// Resolves `--frameworks`, `--only`, `--suite`, `--scenario` and
    /// `--headers` and loads each scenario's data.
    pub fn resolve(args: &MatrixArgs, runtime: &tokio::runtime::Runtime) -> anyhow::Result<Self> {
        let apps = app_rows(args);
        // `--app` alone runs the app rows alone: built-in rows join them
        // when asked for.
        let builtin_asked = args.frameworks.is_some()
            || args.only.is_some()
            || args.suite.is_some()
            || !args.scenario.is_empty();
        let apps_alone = !apps.is_empty() && !builtin_asked;
        let mut frameworks = if apps_alone {
            Vec::new()
        } else {
            frameworks::select(args.frameworks.as_deref())?
        };
        let runtimes = MatrixRuntimes::resolve(&args.runtimes, &frameworks, &apps)?;
        if !runtimes.fwbench {
            frameworks.retain(|f| matches!(f.serving, Serving::Native(_)));
        }
        let refs = if apps_alone {
            Vec::new()
        } else {
            scenarios(args.only.as_deref(), args.suite, &args.scenario)?
                .into_iter()
                .map(|source| source.with_headers(args.headers))
                .collect()
        };
        Ok(Self {
            frameworks,
            scenarios: runtime.block_on(load(refs)),
            headers: args.headers,
            apps,
            runtimes,
        })
    }

    /// The header set each loaded scenario's request carries, by the
    /// scenario's label (a scenario that failed to load is left out).
    pub fn header_sets(&self) -> std::collections::BTreeMap<String, String> {
        self.scenarios
            .iter()
            .filter_map(|s| {
                let info = s.info.as_ref().ok()?;
                Some((s.source.label(), info.header_set.name().to_owned()))
            })
            .collect()
    }

    /// Its rows, scenario-major: per scenario fwbench's and the native
    /// rows, then the runtime rows.
    pub fn rows(&self) -> Vec<MatrixRow<'_>> {
        let mut rows = Vec::new();
        for scenario in &self.scenarios {
            rows.extend(rows_for(&self.frameworks, scenario));
            for runtime_row in self.runtimes.rows.iter().filter(|r| r.app.is_none()) {
                let Some(mut row) = rows_for(&[runtime_row.framework], scenario).pop() else {
                    continue;
                };
                if row.not_run.is_none() {
                    row.not_run = runtime_not_run(&runtime_row.foreign, scenario);
                }
                row.foreign = Some(runtime_row.foreign.clone());
                rows.push(row);
            }
        }
        for (index, app) in self.apps.iter().enumerate() {
            if self.runtimes.fwbench {
                rows.push(MatrixRow {
                    framework: app.framework,
                    scenario: &app.request,
                    not_run: None,
                    app: Some(app.path.as_path()),
                    foreign: None,
                });
            }
            for runtime_row in self.runtimes.rows.iter().filter(|r| r.app == Some(index)) {
                rows.push(MatrixRow {
                    framework: runtime_row.framework,
                    scenario: &app.request,
                    not_run: runtime_row.not_run.clone(),
                    app: Some(app.path.as_path()),
                    foreign: Some(runtime_row.foreign.clone()),
                });
            }
        }
        rows
    }

    /// The names of every row's framework, runtime and app rows' included.
    pub fn framework_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self.frameworks.iter().map(|f| f.name).collect();
        names.extend(self.runtimes.rows.iter().map(|row| row.framework.name));
        if self.runtimes.fwbench {
            names.extend(self.apps.iter().map(|app| app.framework.name));
        }
        names
    }
}

impl serde::Serialize for Matrix {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let frameworks = self.framework_names();
        let mut scenarios: Vec<String> = self
            .scenarios
            .iter()
            .map(|s| {
                let named_by_path = ScenarioRef {
                    name: s.source.url_arg(),
                    ..s.source.clone()
                };
                named_by_path.label()
            })
            .collect();
        if !self.apps.is_empty() {
            scenarios.push(APP_REQUEST.to_owned());
        }
        let mut fields = serializer.serialize_struct("Matrix", 3)?;
        fields.serialize_field("frameworks", &frameworks)?;
        fields.serialize_field("scenarios", &scenarios)?;
        fields.serialize_field("headers", &self.headers)?;
        fields.end()
    }
}

/// Resolves `--only` (comma-separated names) or `--suite`, plus
/// `--scenario` files. With neither names nor files, the default suite.
pub fn scenarios(
    only: Option<&str>,
    suite: Option<Suite>,
    files: &[String],
) -> anyhow::Result<Vec<ScenarioRef>> {
    let mut refs = Vec::new();
    let names: Vec<String> = match (only, suite) {
        (Some(list), _) => list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect(),
        (None, Some(suite)) => suite.scenarios(),
        (None, None) if files.is_empty() => Suite::Default.scenarios(),
        (None, None) => Vec::new(),
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
        let info = scenario::load_info_in_child(&source).map_err(|error| format!("{error:#}"));
        loaded.push(LoadedScenario {
            source,
            info,
            builtin,
        });
    }
    loaded
}

/// Why a runtime row cannot run where fwbench's row can: a scenario file
/// (its imports resolve from its own directory, where the bundles are
/// not), or hono-patched off Node (it is hono on @hono/node-server's Node
/// classes; elsewhere it would be hono's row again).
fn runtime_not_run(foreign: &Foreign, scenario: &LoadedScenario) -> Option<NotRun> {
    if !scenario.builtin {
        return Some(NotRun::Skipped(
            "runtime rows serve fwbench's built-in scenarios (a scenario file's imports resolve from its own \
             directory, where the bundled frameworks are not)"
                .to_owned(),
        ));
    }
    let node_classes = matches!(
        foreign.base.serving,
        Serving::Js {
            mode: Mode::HonoNodeServer,
            ..
        }
    );
    (node_classes && foreign.runtime.kind != RuntimeKind::Node).then(|| {
        NotRun::Skipped(format!(
            "{} is hono on @hono/node-server's Node classes; on {} it would be the hono row again",
            foreign.base.name,
            foreign.runtime.kind.name()
        ))
    })
}

/// The rows for `frameworks` in `scenario`.
pub fn rows_for<'a>(frameworks: &[&'static Framework], scenario: &'a LoadedScenario) -> Vec<MatrixRow<'a>> {
    let mut rows = Vec::new();
    {
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
                app: None,
                framework,
                scenario,
                not_run,
                foreign: None,
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(refs: Vec<ScenarioRef>) -> Vec<String> {
        refs.into_iter().map(|r| r.name).collect()
    }

    #[test]
    fn no_names_run_the_default_suite_and_full_runs_every_built_in_scenario() {
        assert_eq!(
            names(scenarios(None, None, &[]).unwrap()),
            ["hello", "mw", "param"]
        );
        assert_eq!(
            names(scenarios(None, Some(Suite::Full), &[]).unwrap()),
            scenario::builtin_names()
        );
        assert_eq!(names(scenarios(Some("param"), None, &[]).unwrap()), ["param"]);
    }

    #[test]
    fn a_file_alone_runs_no_built_in_scenario_unless_a_suite_is_named() {
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/hello.js").to_owned();
        let alone = scenarios(None, None, std::slice::from_ref(&file)).unwrap();
        assert_eq!(alone.len(), 1);
        assert!(alone[0].root.is_some(), "the file, not the built-in");
        let with_suite = scenarios(None, Some(Suite::Default), &[file]).unwrap();
        assert_eq!(with_suite.len(), 4);
    }
}
