//! Reading a scenario module's plain data (its request, expectations and
//! which frameworks it has apps for) without building any app: the module
//! is evaluated in a runtime of its own, and its app factories, which
//! import their frameworks lazily, are never called.

use std::ffi::OsString;
use std::io::Write;

use anyhow::Context;
use deno_core::ModuleSpecifier;
use serde::{Deserialize, Serialize};

use super::ScenarioRef;
use crate::child_run::{self, ChildStderr};
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

/// [`load`] in a child fwbench (`describe-scenario`): a scenario file
/// whose top level runs what no interrupt stops (a built-in looping in
/// native code) or makes the engine give up fails to load, and the run
/// goes on with its other scenarios.
pub fn load_in_child(scenario: &ScenarioRef) -> anyhow::Result<ScenarioInfo> {
    let mut args: Vec<OsString> = vec!["describe-scenario".into(), scenario.url_arg().into()];
    if let Some(depth) = scenario.depth {
        args.extend(["--depth".into(), depth.to_string().into()]);
    }
    if let Some(headers) = scenario.headers {
        args.extend(["--headers".into(), headers.name().into()]);
    }
    if !scenario.without.is_empty() {
        args.extend(["--without".into(), scenario.without.join(",").into()]);
    }
    let context = || format!("scenario '{}' ({}) failed to load", scenario.name, scenario.url);
    let answer = child_run::run(&args, &format!("scenario '{}'", scenario.name), ChildStderr::Kept)
        .with_context(context)?;
    serde_json::from_slice(&answer).with_context(context)
}

/// The child's side of [`load_in_child`]: loads the scenario named
/// `scenario` (a built-in name or a file's path) as asked and writes its
/// data as one JSON line on the answer channel, which the scenario's own
/// output cannot reach.
pub fn describe(
    scenario: &str,
    depth: Option<usize>,
    headers: Option<HeaderSet>,
    without: &[String],
) -> anyhow::Result<()> {
    let mut channel = child_run::answer_channel()?;
    let mut scenario = super::resolve(scenario)?;
    scenario.depth = depth;
    scenario.headers = headers;
    scenario.without = without.to_vec();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start a tokio runtime")?;
    let info = runtime.block_on(load(&scenario))?;
    serde_json::to_writer(&mut channel, &info).context("cannot write the scenario's data")?;
    channel
        .write_all(b"\n")
        .context("cannot write the scenario's data")?;
    Ok(())
}
