//! The frameworks fwbench benchmarks: each row of the matrix.
//!
//! This is the one list of frameworks: JS rows are served from a scenario's
//! `apps`, and the main module written for a row (src/scenario) hands
//! js/runtime/scenario.js the row's factory and serving mode from here;
//! native rows are Rust servers implementing the built-in scenarios
//! (src/native).

use crate::engine::embedded;
use crate::report::RowKind;

/// How a row's app is served, as js/runtime/scenario.js spells it.
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
    /// Served by Rust code, not by JS.
    Native,
}

impl Mode {
    /// The name js/runtime/scenario.js knows the mode by.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fetch => "fetch",
            Self::Node => "node",
            Self::HonoNodeServer => "hono-node-server",
            Self::Native => "native",
        }
    }
}

/// One framework fwbench knows.
#[derive(Debug, Clone, Copy)]
pub struct Framework {
    /// Its name on the command line and in reports.
    pub name: &'static str,
    /// JS or native.
    pub kind: RowKind,
    /// The `apps` key its app comes from (JS rows).
    pub factory: &'static str,
    /// How its app is served.
    pub mode: Mode,
    /// What it is, in a few words.
    pub about: &'static str,
}

/// Every framework, in report order.
pub const FRAMEWORKS: &[Framework] = &[
    Framework {
        name: "s200",
        kind: RowKind::Js,
        factory: "s200",
        mode: Mode::Fetch,
        about: "s200 (js/s200), platform Response mutated in place",
    },
    Framework {
        name: "s200-light",
        kind: RowKind::Js,
        factory: "s200-light",
        mode: Mode::Fetch,
        about: "s200 over light responses (LightHeaders)",
    },
    Framework {
        name: "hono",
        kind: RowKind::Js,
        factory: "hono",
        mode: Mode::Fetch,
        about: "hono, platform Request/Response",
    },
    Framework {
        name: "hono-patched",
        kind: RowKind::Js,
        factory: "hono",
        mode: Mode::HonoNodeServer,
        about: "hono via @hono/node-server with its lightweight global Request/Response",
    },
    Framework {
        name: "express",
        kind: RowKind::Js,
        factory: "express",
        mode: Mode::Node,
        about: "express through the node:http shim",
    },
    Framework {
        name: "fastify",
        kind: RowKind::Js,
        factory: "fastify",
        mode: Mode::Node,
        about: "fastify through the node:http shim",
    },
    Framework {
        name: "elysia",
        kind: RowKind::Js,
        factory: "elysia",
        mode: Mode::Fetch,
        about: "elysia, fetch-style",
    },
    Framework {
        name: "hyper",
        kind: RowKind::Native,
        factory: "",
        mode: Mode::Native,
        about: "native Rust: a hyper service function, the mw chain as tower layers",
    },
    Framework {
        name: "axum",
        kind: RowKind::Native,
        factory: "",
        mode: Mode::Native,
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
    let found = match framework.name {
        "s200" | "s200-light" => embedded::get("s200/package.json")
            .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
            .and_then(|json| json["version"].as_str().map(str::to_owned)),
        "hono-patched" => npm("hono").map(|hono| {
            let server = npm("@hono/node-server").unwrap_or_else(|| "?".into());
            format!("{hono} + @hono/node-server {server}")
        }),
        "hyper" => Some(env!("FWBENCH_DEP_HYPER").to_owned()),
        "axum" => option_env!("FWBENCH_DEP_AXUM").map(str::to_owned),
        name => npm(name),
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
}
