//! The frameworks fwbench benchmarks: each row of the matrix.
//!
//! This is the one list of frameworks. A JS row is served from a
//! scenario's `apps`: the main module written for it (src/scenario) hands
//! js/runtime/scenario.js the row's factory and serving mode from here. A
//! native row is a Rust server implementing the built-in scenarios
//! (src/native). It sits below every module that names a framework
//! (scenario, native, serve, bench, sweep), so none of them reaches into
//! another for it.

use serde::{Deserialize, Serialize};

use crate::engine::embedded;

/// What kind of server a row measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// A JS framework hosted in the embedded engine.
    Js,
    /// A native Rust server (hyper, axum).
    Native,
}

/// How a JS row's app is served, as js/runtime/scenario.js spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The app's `fetch(request)` answers with a Response.
    Fetch,
    /// A node-style `(req, res)` listener through the node:http shim.
    Node,
    /// hono's app with the runtime's global Request/Response replaced by
    /// @hono/node-server's lightweight classes (getRequestListener's
    /// overrideGlobalObjects), as Node users of hono get them. One row runs
    /// per process, so the replacement cannot reach another framework's
    /// runtime.
    HonoNodeServer,
}

impl Mode {
    /// The name js/runtime/scenario.js knows the mode by.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fetch => "fetch",
            Self::Node => "node",
            Self::HonoNodeServer => "hono-node-server",
        }
    }
}

/// The Rust server behind a native row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeServer {
    /// A hyper service function; the mw chain as tower layers.
    Hyper,
    /// An axum router; the mw chain as axum middleware.
    Axum,
}

/// How a row is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serving {
    /// In the embedded JS engine: the scenario's `apps[factory]`, served
    /// in `mode`.
    Js {
        /// The scenario's `apps` key the app comes from.
        factory: &'static str,
        /// How the app it returns is served.
        mode: Mode,
    },
    /// By Rust code (src/native).
    Native(NativeServer),
}

/// One framework fwbench knows.
#[derive(Debug, Clone, Copy)]
pub struct Framework {
    /// Its name on the command line and in reports.
    pub name: &'static str,
    /// How its rows are served.
    pub serving: Serving,
    /// What it is, in a few words.
    pub about: &'static str,
}

impl Framework {
    /// JS or native.
    pub fn kind(&self) -> RowKind {
        match self.serving {
            Serving::Js { .. } => RowKind::Js,
            Serving::Native(_) => RowKind::Native,
        }
    }

    /// The `apps` key a JS row's app comes from; `None` for native rows.
    pub fn factory(&self) -> Option<&'static str> {
        match self.serving {
            Serving::Js { factory, .. } => Some(factory),
            Serving::Native(_) => None,
        }
    }
}

const fn js(name: &'static str, factory: &'static str, mode: Mode, about: &'static str) -> Framework {
    Framework {
        name,
        serving: Serving::Js { factory, mode },
        about,
    }
}

/// Every framework, in report order.
pub const FRAMEWORKS: &[Framework] = &[
    js(
        "s200",
        "s200",
        Mode::Fetch,
        "s200 (js/s200), platform Response mutated in place",
    ),
    js(
        "s200-light",
        "s200-light",
        Mode::Fetch,
        "s200 over light responses (LightHeaders)",
    ),
    js("hono", "hono", Mode::Fetch, "hono, platform Request/Response"),
    js(
        "hono-patched",
        "hono",
        Mode::HonoNodeServer,
        "hono via @hono/node-server with its lightweight global Request/Response",
    ),
    js(
        "express",
        "express",
        Mode::Node,
        "express through the node:http shim",
    ),
    js(
        "fastify",
        "fastify",
        Mode::Node,
        "fastify through the node:http shim",
    ),
    js("elysia", "elysia", Mode::Fetch, "elysia, fetch-style"),
    Framework {
        name: "hyper",
        serving: Serving::Native(NativeServer::Hyper),
        about: "native Rust: a hyper service function, the mw chain as tower layers",
    },
    Framework {
        name: "axum",
        serving: Serving::Native(NativeServer::Axum),
        about: "native Rust: axum, the mw chain as axum middleware",
    },
];

/// Looks a framework up by name.
pub fn find(name: &str) -> Option<&'static Framework> {
    FRAMEWORKS.iter().find(|framework| framework.name == name)
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

    /// build.rs cannot read this file: the snapshot sets say again how
    /// each row is served, for the rehearsal before their snapshot.
    #[test]
    fn the_snapshot_sets_rehearse_each_row_as_it_is_served() {
        for set in crate::engine::snapshot_sets::SETS {
            for row in set.frameworks {
                let framework =
                    find(row.name).unwrap_or_else(|| panic!("set {}: no framework {}", set.name, row.name));
                let Serving::Js { factory, mode } = framework.serving else {
                    panic!("set {}: {} is not a JS row", set.name, row.name)
                };
                assert_eq!(
                    (row.factory, row.mode),
                    (factory, mode.as_str()),
                    "set {}: {}",
                    set.name,
                    row.name
                );
            }
        }
    }

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
