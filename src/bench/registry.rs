//! The frameworks fwbench benchmarks: each row of the matrix.
//!
//! JS rows are served from a scenario's `apps` (js/runtime/scenario.js maps
//! each name to its factory and serving mode); native rows are Rust servers
//! implementing the built-in scenarios (src/native).

use serde::Serialize;

use crate::engine::embedded;

/// Where a row's app runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A JS framework on the embedded engine.
    Js,
    /// A native Rust server.
    Native,
}

/// One framework fwbench knows.
#[derive(Debug, Clone, Copy)]
pub struct Framework {
    /// Its name on the command line and in reports.
    pub name: &'static str,
    /// JS or native.
    pub kind: Kind,
    /// The `apps` key its app comes from (JS rows).
    pub factory: &'static str,
    /// What it is, in a few words.
    pub about: &'static str,
}

/// Every framework, in report order.
pub const FRAMEWORKS: &[Framework] = &[
    Framework {
        name: "s200",
        kind: Kind::Js,
        factory: "s200",
        about: "s200 (js/s200), platform Response mutated in place",
    },
    Framework {
        name: "s200-light",
        kind: Kind::Js,
        factory: "s200-light",
        about: "s200 over light responses (LightHeaders)",
    },
    Framework {
        name: "hono",
        kind: Kind::Js,
        factory: "hono",
        about: "hono, platform Request/Response",
    },
    Framework {
        name: "hono-patched",
        kind: Kind::Js,
        factory: "hono",
        about: "hono via @hono/node-server with its lightweight global Request/Response",
    },
    Framework {
        name: "express",
        kind: Kind::Js,
        factory: "express",
        about: "express through the node:http shim",
    },
    Framework {
        name: "fastify",
        kind: Kind::Js,
        factory: "fastify",
        about: "fastify through the node:http shim",
    },
    Framework {
        name: "elysia",
        kind: Kind::Js,
        factory: "elysia",
        about: "elysia, fetch-style",
    },
    Framework {
        name: "hyper",
        kind: Kind::Native,
        factory: "",
        about: "native Rust: a plain hyper service function",
    },
    Framework {
        name: "axum",
        kind: Kind::Native,
        factory: "",
        about: "native Rust: axum, the mw chain as tower layers",
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
        .map(|name| {
            find(name).ok_or_else(|| {
                let known: Vec<_> = FRAMEWORKS.iter().map(|f| f.name).collect();
                anyhow::anyhow!("unknown framework '{name}' (known: {})", known.join(", "))
            })
        })
        .collect()
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

    #[test]
    fn the_js_registry_knows_every_js_row() {
        let js = embedded::get("runtime/scenario.js").expect("scenario.js is embedded");
        for framework in FRAMEWORKS.iter().filter(|f| f.kind == Kind::Js) {
            assert!(
                js.contains(&format!("\"{}\": {{", framework.name)),
                "{} missing in scenario.js",
                framework.name
            );
        }
    }
}
