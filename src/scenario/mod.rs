//! The scenario model: where a scenario module comes from (built in, or a
//! file the user passes) and how a framework's app is built from it.
//!
//! A scenario is an ES module (format: scenarios/README.md) exporting its
//! `request`, its `expect`ations and `apps`, one factory per framework.
//! js/runtime/scenario.js turns (scenario, framework) into an app; this
//! module writes the small main module that asks it to, passing the
//! framework's factory and serving mode from src/frameworks.rs.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use deno_core::ModuleSpecifier;

use crate::engine::embedded;
use crate::frameworks::Mode;
use crate::header_sets::HeaderSet;

mod expect;
mod info;
mod suite;

pub use expect::{mismatches, SeenResponse};
pub use suite::{Suite, DEFAULT_SUITE};

pub use info::{
    describe, load as load_info, load_in_child as load_info_in_child, ScenarioExpectations, ScenarioInfo,
    ScenarioRequest,
};

/// A scenario module, located.
#[derive(Debug, Clone)]
pub struct ScenarioRef {
    /// Its name: the file name without `.js` (`mw`).
    pub name: String,
    /// Where it loads from: `fwbench:///scenarios/mw.js` or a `file://` URL.
    pub url: ModuleSpecifier,
    /// For a scenario file, its directory: imports may reach files in it.
    pub root: Option<PathBuf>,
    /// The chain length its apps are built with, for a scenario with a depth
    /// parameter (it exports `depth`, its default); `None` builds the
    /// default.
    pub depth: Option<usize>,
    /// The request header set asked for (`--headers`), which replaces the
    /// scenario's own `headerSet`; `None` keeps the scenario's (or
    /// `minimal` when it names none).
    pub headers: Option<HeaderSet>,
    /// Concerns of its chain left out (an ablation's rows; the scenario
    /// declares them in `concerns`, scenarios/README.md); empty builds the
    /// whole chain.
    pub without: Vec<String>,
}

impl ScenarioRef {
    /// The same scenario built with a chain of `depth` links.
    pub fn at_depth(&self, depth: usize) -> ScenarioRef {
        ScenarioRef {
            depth: Some(depth),
            ..self.clone()
        }
    }

    /// The same scenario sending `headers` (`None`: its own set).
    pub fn with_headers(self, headers: Option<HeaderSet>) -> ScenarioRef {
        ScenarioRef { headers, ..self }
    }

    /// The same scenario with `concerns` left out of its chain.
    pub fn without(&self, concerns: &[String]) -> ScenarioRef {
        ScenarioRef {
            without: concerns.to_vec(),
            ..self.clone()
        }
    }

    /// Its name in reports: `mw`, `mw@8` when built at a chosen depth,
    /// `prod~cors` with the cors concern left out (`~` reads "without").
    pub fn label(&self) -> String {
        let mut label = at_depth_label(&self.name, self.depth);
        for concern in &self.without {
            label.push('~');
            label.push_str(concern);
        }
        label
    }

    /// How `fwbench serve --scenario` names it: the built-in name or the path.
    pub fn url_arg(&self) -> String {
        match self.url.to_file_path() {
            Ok(path) if self.root.is_some() => path.display().to_string(),
            _ => self.name.clone(),
        }
    }
}

/// `name`, or `name@depth` for a chain built at a chosen depth: how reports
/// (and a plan's options) name a scenario at a depth.
pub fn at_depth_label(name: &str, depth: Option<usize>) -> String {
    match depth {
        Some(depth) => format!("{name}@{depth}"),
        None => name.to_owned(),
    }
}

/// The built-in scenarios' names, sorted.
pub fn builtin_names() -> Vec<String> {
    embedded::paths_under("scenarios/")
        .filter_map(|path| path.strip_prefix("scenarios/")?.strip_suffix(".js"))
        .filter(|name| !name.contains('/'))
        .map(str::to_owned)
        .collect()
}

/// Finds a scenario by built-in name (`mw`) or by path (`./my.js`).
pub fn resolve(arg: &str) -> anyhow::Result<ScenarioRef> {
    let looks_like_path = arg.ends_with(".js") || arg.contains('/');
    if looks_like_path {
        let path =
            std::fs::canonicalize(arg).with_context(|| format!("cannot read the scenario file {arg}"))?;
        let name = path
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_else(|| arg.to_owned());
        let url = ModuleSpecifier::from_file_path(&path)
            .map_err(|()| anyhow::anyhow!("cannot make a module URL from {}", path.display()))?;
        return Ok(ScenarioRef {
            name,
            url,
            root: path.parent().map(Path::to_path_buf),
            depth: None,
            headers: None,
            without: Vec::new(),
        });
    }
    if embedded::get(&format!("scenarios/{arg}.js")).is_none() {
        bail!(
            "no built-in scenario '{arg}' (built in: {}); pass a file path for your own",
            builtin_names().join(", ")
        );
    }
    let url = ModuleSpecifier::parse(&format!("fwbench:///scenarios/{arg}.js")).expect("valid URL");
    Ok(ScenarioRef {
        name: arg.to_owned(),
        url,
        root: None,
        depth: None,
        headers: None,
        without: Vec::new(),
    })
}

/// The main module that serves `framework`'s app from `scenario`: its URL
/// (for messages and stack traces) and its code. The code hands appFor the
/// framework's factory and serving mode (from src/frameworks.rs, the one
/// list of frameworks), the scenario's depth when one was chosen and the
/// concerns left out.
pub fn app_module(
    scenario: &ScenarioRef,
    framework: &str,
    factory: &str,
    mode: Mode,
) -> (ModuleSpecifier, String) {
    let url = ModuleSpecifier::parse(&format!("fwbench:///main/{}/{}.js", scenario.label(), framework))
        .expect("valid URL");
    let code = app_module_code(
        scenario,
        scenario.url.as_str(),
        "fwbench:///runtime/scenario.js",
        framework,
        factory,
        mode,
    );
    (url, code)
}

/// [`app_module`]'s code, with the scenario module imported from
/// `scenario_url` and js/runtime/scenario.js from `builder_url` (another
/// runtime's copies of them, for bench's runtime rows).
pub fn app_module_code(
    scenario: &ScenarioRef,
    scenario_url: &str,
    builder_url: &str,
    framework: &str,
    factory: &str,
    mode: Mode,
) -> String {
    format!(
        "import * as scenario from {url};\n\
         import {{ appFor }} from {builder};\n\
         export default await appFor(scenario, {name}, \
         {{ name: {framework}, factory: {factory}, mode: {mode} }}, {options});\n",
        url = json_string(scenario_url),
        builder = json_string(builder_url),
        name = json_string(&scenario.name),
        framework = json_string(framework),
        factory = json_string(factory),
        mode = json_string(mode.as_str()),
        options = options_literal(scenario),
    )
}

/// The options object handed to `appFor` and the describe step: `{}`,
/// `{ depth: N }`, `{ without: ["cors"] }` or both.
fn options_literal(scenario: &ScenarioRef) -> String {
    let mut parts = Vec::new();
    if let Some(depth) = scenario.depth {
        parts.push(format!("depth: {depth}"));
    }
    if !scenario.without.is_empty() {
        let names: Vec<String> = scenario.without.iter().map(|c| json_string(c)).collect();
        parts.push(format!("without: [{}]", names.join(", ")));
    }
    if parts.is_empty() {
        "{}".to_owned()
    } else {
        format!("{{ {} }}", parts.join(", "))
    }
}

/// A JS string literal (JSON's quoting is valid JS).
fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_builtins_list_the_known_ones() {
        let error = resolve("nope").unwrap_err().to_string();
        assert!(error.contains("no built-in scenario 'nope'"), "{error}");
        assert!(error.contains("file path"), "{error}");
    }

    #[test]
    fn the_route_tables_data_file_is_no_scenario_of_its_own() {
        let builtins = builtin_names();
        assert!(builtins.iter().all(|name| !name.contains('/')), "{builtins:?}");
        assert!(builtins.len() > 3, "{builtins:?}");
    }

    #[test]
    fn missing_files_are_reported_by_path() {
        let error = resolve("./missing/scenario.js").unwrap_err().to_string();
        assert!(error.contains("./missing/scenario.js"), "{error}");
    }

    #[test]
    fn the_app_module_quotes_its_inputs() {
        let scenario = ScenarioRef {
            name: "we\"ird".into(),
            url: ModuleSpecifier::parse("file:///tmp/we%22ird.js").unwrap(),
            root: None,
            depth: None,
            headers: None,
            without: Vec::new(),
        };
        let hono_patched =
            |scenario: &ScenarioRef| app_module(scenario, "hono-patched", "hono", Mode::HonoNodeServer);
        let (url, code) = hono_patched(&scenario);
        assert_eq!(url.as_str(), "fwbench:///main/we%22ird/hono-patched.js");
        assert!(
            code.contains(
                r#"appFor(scenario, "we\"ird", { name: "hono-patched", factory: "hono", mode: "hono-node-server" }, {})"#
            ),
            "{code}"
        );
        let (url, code) = hono_patched(&scenario.at_depth(8));
        assert_eq!(url.as_str(), "fwbench:///main/we%22ird@8/hono-patched.js");
        assert!(code.ends_with(", { depth: 8 });\n"), "{code}");
        let ablated = scenario.without(&["cors".into(), "auth".into()]);
        let (url, code) = hono_patched(&ablated);
        assert_eq!(url.as_str(), "fwbench:///main/we%22ird~cors~auth/hono-patched.js");
        assert!(code.ends_with("{ without: [\"cors\", \"auth\"] });\n"), "{code}");
    }
}
