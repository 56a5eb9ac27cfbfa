//! Which startup snapshots the V8 build carries, and what each holds
//! beyond the bootstrap.
//!
//! Every snapshot holds the engine's bootstrap (deno_core's JS, the Web API
//! layer, our globals). A framework's snapshot also holds the modules its
//! rows evaluate before their app: the Node globals every app runtime
//! preloads, the scenario glue, and the framework's own bundle, evaluated,
//! so that a row's runtime starts with them in its module map instead of
//! compiling and running them again. Then the framework is warmed up
//! (js/runtime/warmup.js): a throwaway app of its own is built, so that the
//! modules it requires only then (fastify's ajv, on the first `Fastify()`)
//! are evaluated and the functions that ran are compiled, which V8 keeps
//! in the snapshot; the app itself is dropped, and sent no request (that
//! made the rows serve slower: warmup.js says by how much).
//!
//! The functions a request runs are compiled in the snapshot too, without
//! running any there: before a snapshot is made, build.rs rehearses its
//! rows in a throwaway runtime (js/runtime/rehearsal.js: each row's app for
//! the built-in scenarios, sent their requests), and hands the runtime the
//! snapshot is made in each module's V8 code cache from it, from which V8
//! takes their bytecode instead of compiling them on a row's first request.
//!
//! Each framework gets its own snapshot rather than one holding them all:
//! a runtime's heap then holds only its own framework, as it would without
//! the snapshot, and no row's GC marks another framework's objects.
//!
//! build.rs compiles this file too: it builds one snapshot per set.
//! Modules are named as app code imports them (bare specifiers the module
//! loader resolves, or `fwbench:///` URLs), so the snapshot's module map
//! holds exactly the URLs the app's imports resolve to.

use crate::framework_list::Serving;

/// One snapshot beyond the engine's own.
pub struct SnapshotSet {
    /// The name the snapshot is chosen by (`EngineOptions::snapshot`).
    pub name: &'static str,
    /// The framework rows that start from it, rehearsed before it is
    /// taken, by their name in src/framework_list.rs.
    pub frameworks: &'static [&'static str],
    /// Modules evaluated into it, in order, after the bootstrap.
    pub modules: &'static [&'static str],
    /// The framework warm-ups run before it is taken (`warmUp` in
    /// js/runtime/warmup.js): a throwaway app per framework package, so
    /// that the snapshot holds the modules the framework requires when an
    /// app is made evaluated, and the functions that made it compiled.
    pub warm_up: &'static [&'static str],
}

/// The module that warms a framework up (see [`SnapshotSet::warm_up`]).
pub const WARM_UP_MODULE: &str = "fwbench:///runtime/warmup.js";

/// The module that rehearses a set's rows (see the module docs).
pub const REHEARSAL_MODULE: &str = "fwbench:///runtime/rehearsal.js";

/// The adapter's JS (src/adapter/ops.rs).
pub const ADAPTER_MODULE: &str = "ext:fwbench_adapter/serve.js";

/// The ES modules of extensions that a runtime adds on top of a snapshot
/// and evaluates at each start: (specifier, embedded path). build.rs
/// compiles each against every snapshot and keeps the code cache, which a
/// runtime hands V8 instead of having it parse the module (a code cache is
/// only good in an isolate made from the snapshot it was made against).
pub const RUNTIME_EXTENSION_MODULES: &[(&str, &str)] = &[(ADAPTER_MODULE, "runtime/serve.js")];

/// What every app runtime evaluates before its app (see
/// `engine::default_preload`), and the glue a scenario's generated main
/// module imports.
const APP_PRELUDE: [&str; 2] = [
    "fwbench:///runtime/node/globals.js",
    "fwbench:///runtime/scenario.js",
];

/// The framework snapshots, by name.
pub const SETS: &[SnapshotSet] = &[
    SnapshotSet {
        name: "s200",
        frameworks: &["s200", "s200-light"],
        modules: &[APP_PRELUDE[0], APP_PRELUDE[1], "s200", "s200/light"],
        warm_up: &["s200", "s200/light"],
    },
    SnapshotSet {
        name: "hono",
        frameworks: &["hono", "hono-patched"],
        modules: &[APP_PRELUDE[0], APP_PRELUDE[1], "hono", "@hono/node-server"],
        warm_up: &["hono"],
    },
    SnapshotSet {
        name: "express",
        frameworks: &["express"],
        modules: &[APP_PRELUDE[0], APP_PRELUDE[1], "express"],
        warm_up: &["express"],
    },
    SnapshotSet {
        name: "fastify",
        frameworks: &["fastify"],
        modules: &[APP_PRELUDE[0], APP_PRELUDE[1], "fastify"],
        warm_up: &["fastify"],
    },
    SnapshotSet {
        name: "elysia",
        frameworks: &["elysia"],
        modules: &[APP_PRELUDE[0], APP_PRELUDE[1], "elysia"],
        warm_up: &["elysia"],
    },
];

impl SnapshotSet {
    /// Its rows as js/runtime/rehearsal.js builds their apps: each one's
    /// name, its scenario `apps` key and its serving mode as
    /// js/runtime/scenario.js spells it, from src/framework_list.rs (the
    /// list the binary serves them from). A name that is not a JS row
    /// there fails the build that rehearses it.
    pub fn rows(&self) -> impl Iterator<Item = (&'static str, &'static str, &'static str)> + '_ {
        self.frameworks.iter().map(|&name| {
            let serving = crate::framework_list::find(name).map(|framework| framework.serving);
            match serving {
                Some(Serving::Js { factory, mode }) => (name, factory, mode.as_str()),
                _ => panic!(
                    "snapshot set {}: {name} is not a JS row of src/framework_list.rs",
                    self.name
                ),
            }
        })
    }
}

/// The snapshot set a framework row starts from, if it has one.
pub fn for_framework(framework: &str) -> Option<&'static SnapshotSet> {
    SETS.iter().find(|set| set.frameworks.contains(&framework))
}
