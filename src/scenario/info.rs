//! Reading a scenario module's plain data (its request, expectations and
//! which frameworks it has apps for) without building any app: the module
//! is evaluated in a runtime of its own, and its app factories, which
//! import their frameworks lazily, are never called.

use anyhow::Context;
use deno_core::ModuleSpecifier;
use serde::{Deserialize, Serialize};

use super::ScenarioRef;
use crate::engine::{self, Engine, EngineOptions};
use crate::header_sets::HeaderSet;

/// The request a scenario sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioRequest {
    /// HTTP method (`GET`).
    pub method: String,
    /// Path and query (`/user/42?x=1`).
    pub path: String,
    /// Request headers, in order: once loaded, the header set's composed
    /// with the scenario's own (which win), i.e. exactly what is sent.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// Request body, if any.
    #[serde(default)]
    pub body: Option<String>,
}

/// What every framework must answer to the scenario's request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioExpectations {
    /// Exact status code.
    pub status: u16,
    /// Exact body, if checked.
    #[serde(default)]
    pub body: Option<String>,
    /// Media type of `content-type`, parameters (charset) ignored.
    #[serde(default, rename = "contentType")]
    pub content_type: Option<String>,
    /// Headers that must be present with exactly these values.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// Headers that must be present with any value (a request id, new on
    /// every answer).
    #[serde(default, rename = "headersPresent")]
    pub headers_present: Vec<String>,
    /// Headers that must not be there (a concern left out of the chain:
    /// its header is really gone).
    #[serde(default, rename = "headersAbsent")]
    pub headers_absent: Vec<String>,
}

/// A scenario's data, as its module exports it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScenarioInfo {
    /// The scenario's name (file name without `.js`).
    #[serde(default)]
    pub name: String,
    /// One line saying what it measures.
    #[serde(default)]
    pub description: String,
    /// The request the load generator sends.
    pub request: ScenarioRequest,
    /// What a correct answer looks like.
    pub expect: ScenarioExpectations,
    /// The keys of its `apps` export (framework names or factories).
    pub apps: Vec<String>,
    /// The chain length this data describes, for a scenario with a depth
    /// parameter (the one asked for, or the scenario's default); `None` for
    /// a scenario without one.
    #[serde(default)]
    pub depth: Option<usize>,
    /// The request header set its request carries: the one asked for
    /// (`--headers`), else the scenario's own `headerSet`, else minimal.
    #[serde(default)]
    pub header_set: HeaderSet,
    /// The concerns its chain declares (`concerns`, outermost first), for
    /// an ablation; empty for a scenario that declares none.
    #[serde(default)]
    pub concerns: Vec<String>,
}

/// Normalizes the module's exports into the JSON `ScenarioInfo` reads:
/// header objects become [name, value] pairs, missing parts are named, and a
/// `request` or `expect` given as a function is called with the options the
/// factories get (`{ depth }` for a scenario with a depth parameter).
/// Expects `scenario`, `name` and `asked` (the options asked for) in scope.
const DESCRIBE: &str = r#"
const options = factoryOptions(scenario, name, asked);
const built = (part) => typeof part === "function" ? part(options) : part;
const pairs = (headers) => headers == null ? [] :
  Array.isArray(headers) ? headers.map(([n, v]) => [String(n), String(v)]) :
  Object.entries(headers).map(([n, v]) => [n, String(v)]);
const missing = ["request", "expect", "apps"].filter((key) => scenario[key] == null);
if (missing.length > 0) {
  throw new TypeError(`the scenario module does not export ${missing.join(", ")} (see scenarios/README.md)`);
}
const request = built(scenario.request);
const expect = built(scenario.expect);
if (request == null || expect == null) {
  throw new TypeError("the scenario's request or expect function returned nothing");
}
if (scenario.headerSet != null && typeof scenario.headerSet !== "string") {
  throw new TypeError("the scenario's headerSet must name a header set ('minimal', 'browser' or 'api'); " +
    "its own headers go in request.headers (see scenarios/README.md)");
}
export default JSON.stringify({
  description: String(scenario.description ?? ""),
  request: {
    method: String(request.method ?? "GET").toUpperCase(),
    path: String(request.path ?? "/"),
    headers: pairs(request.headers),
    body: request.body == null ? null : String(request.body),
  },
  expect: {
    status: Number(expect.status ?? 200),
    body: expect.body == null ? null : String(expect.body),
    contentType: expect.contentType == null ? null : String(expect.contentType),
    headers: pairs(expect.headers),
    headersPresent: expect.headersPresent == null ? [] : [...expect.headersPresent].map(String),
    headersAbsent: expect.headersAbsent == null ? [] : [...expect.headersAbsent].map(String),
  },
  apps: Object.keys(scenario.apps),
  depth: options.depth ?? null,
  headerSet: scenario.headerSet ?? null,
  concerns: scenario.concerns === undefined ? [] : [...scenario.concerns].map(String),
});
"#;

/// The module's exports as [`DESCRIBE`] writes them: the data, plus the
/// header set it names, if any.
#[derive(Deserialize)]
struct Described {
    #[serde(flatten)]
    info: ScenarioInfo,
    #[serde(default, rename = "headerSet")]
    header_set: Option<String>,
}

/// Loads `scenario` in a fresh runtime and reads its data; its request
/// carries the header set (see [`ScenarioInfo::header_set`]).
pub async fn load(scenario: &ScenarioRef) -> anyhow::Result<ScenarioInfo> {
    let options = EngineOptions {
        app_root: scenario.root.clone(),
        ..EngineOptions::default()
    };
    let mut engine = Engine::new(&options, Vec::new())?;
    engine.preload(&engine::default_preload()).await?;
    let main = ModuleSpecifier::parse(&format!("fwbench:///main/{}/describe.js", scenario.label()))
        .expect("valid URL");
    let code = format!(
        "import * as scenario from {url};\n\
         import {{ factoryOptions }} from \"fwbench:///runtime/scenario.js\";\n\
         const name = {name};\nconst asked = {asked};\n{DESCRIBE}",
        url = super::json_string(scenario.url.as_str()),
        name = super::json_string(&scenario.name),
        asked = super::options_literal(scenario),
    );
    let json = engine
        .evaluate_to_string(&main, &code)
        .await
        .with_context(|| format!("scenario '{}' ({}) failed to load", scenario.name, scenario.url))?;
    let described: Described = serde_json::from_str(&json)
        .with_context(|| format!("scenario '{}' exports data fwbench cannot read", scenario.name))?;
    let own =
        match described.header_set {
            Some(name) => Some(name.parse::<HeaderSet>().map_err(|error| {
                anyhow::anyhow!("scenario '{}' exports headerSet: {error}", scenario.name)
            })?),
            None => None,
        };
    let mut info = described.info;
    info.name = scenario.name.clone();
    info.header_set = scenario.headers.or(own).unwrap_or_default();
    info.request.headers = info.header_set.compose(&info.request.headers);
    Ok(info)
}
