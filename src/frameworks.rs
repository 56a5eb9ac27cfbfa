//! The frameworks fwbench benchmarks: each row of the matrix.
//!
//! The list itself is src/framework_list.rs (plain data build.rs compiles
//! too); this adds what the binary needs of it. A JS row is served from a
//! scenario's `apps`: the main module written for it (src/scenario) hands
//! js/runtime/scenario.js the row's factory and serving mode from here. A
//! native row is a Rust server implementing the built-in scenarios
//! (src/native). It sits below every module that names a framework
//! (scenario, native, serve, bench, sweep), so none of them reaches into
//! another for it.

use serde::{Deserialize, Serialize};

use crate::engine::embedded;
pub use crate::framework_list::{find, Framework, Mode, NativeServer, Serving, FRAMEWORKS};

/// What kind of server a row measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// A JS framework hosted in the embedded engine.
    Js,
    /// A native Rust server (hyper, axum).
    Native,
}

impl Framework {
    /// JS or native.
    pub fn kind(&self) -> RowKind {
        match self.serving {
            Serving::Js { .. } => RowKind::Js,
            Serving::Native(_) => RowKind::Native,
        }
    }
}

/// Parses a comma-separated list of framework names (all when `None`).
pub fn select(names: Option<&str>) -> anyhow::Result<Vec<&'static Framework>> {
    let Some(names) = names else {
        return Ok(FRAMEWORKS.iter().collect());
    };
    names
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(named)
        .collect()
}

/// Looks a framework up by name; an unknown name is an error listing the
/// known ones.
pub fn named(name: &str) -> anyhow::Result<&'static Framework> {
    find(name).ok_or_else(|| {
        let known: Vec<_> = FRAMEWORKS.iter().map(|f| f.name).collect();
        anyhow::anyhow!("unknown framework '{name}' (known: {})", known.join(", "))
    })
}

/// The version a row runs: the npm package's (from the vendor manifest), the
/// s200 package's, or the Rust crate's for native rows.
pub fn version(framework: &Framework) -> String {
    let npm = |package: &str| embedded::vendor_manifest().frameworks.get(package).cloned();
    let found = match (framework.name, framework.serving) {
        (_, Serving::Native(NativeServer::Hyper)) => Some(env!("FWBENCH_DEP_HYPER").to_owned()),
        (_, Serving::Native(NativeServer::Axum)) => option_env!("FWBENCH_DEP_AXUM").map(str::to_owned),
        ("s200" | "s200-light", _) => embedded::get("s200/package.json")
            .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
            .and_then(|json| json["version"].as_str().map(str::to_owned)),
        (
            _,
            Serving::Js {
                mode: Mode::HonoNodeServer,
                ..
            },
        ) => npm("hono").map(|hono| {
            let server = npm("@hono/node-server").unwrap_or_else(|| "?".into());
            format!("{hono} + @hono/node-server {server}")
        }),
        (name, _) => npm(name),
    };
    found.unwrap_or_else(|| "not bundled".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_name_unknown_frameworks() {
        assert_eq!(select(Some("hono, axum")).unwrap().len(), 2);
        let error = select(Some("hono,nope")).unwrap_err().to_string();
        assert!(
            error.contains("'nope'") && error.contains("hono-patched"),
            "{error}"
        );
    }

    #[test]
    fn every_js_row_names_a_factory_and_no_native_row_does() {
        for framework in FRAMEWORKS {
            match framework.kind() {
                RowKind::Js => assert!(framework.factory().is_some_and(|f| !f.is_empty())),
                RowKind::Native => assert_eq!(framework.factory(), None),
            }
        }
        assert_eq!(find("hono-patched").and_then(Framework::factory), Some("hono"));
    }
}
