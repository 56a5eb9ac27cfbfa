//! The one list of frameworks, as plain data: each row's name, how it is
//! served and what it is. It imports nothing, so build.rs compiles it too
//! (`#[path]`): the framework snapshots rehearse each row as the binary
//! serves it (src/engine/snapshot_sets.rs names their rows by name), from
//! this same list. src/frameworks.rs builds on it (versions, selection,
//! [`RowKind`](crate::frameworks::RowKind)).

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
