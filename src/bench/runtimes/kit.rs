//! The directory other runtimes serve fwbench's scenario apps from: the
//! embedded framework bundles, s200, the built-in scenario modules and the
//! app builder (js/runtime/scenario.js), byte for byte, laid out so that
//! Node, Deno and Bun resolve the scenarios' bare imports (`hono`,
//! `express`, `s200/light`, …) as fwbench does:
//!
//! ```text
//! vendor/…                      the bundles (vendor/dist), chunks and all
//! node_modules/hono/package.json   exports: "." -> ./dist/hono.js, "./cors" -> …
//! node_modules/hono/dist -> ../../vendor   (each bundled package alike)
//! node_modules/s200/…           js/s200, with its own package.json
//! scenarios/…, runtime/scenario.js, launch.mjs, package.json (type: module)
//! main/<scenario>/<framework>.mjs  one main module per row
//! ```
//!
//! Each package's `dist` is a link to the one bundle tree, so every runtime
//! (which follow links to the real path) loads one copy of each module:
//! hono and @hono/node-server share one Hono class, as in fwbench. The
//! directory is private (0700) and removed when the kit is dropped, unless
//! it was written for others to serve from ([`Kit::write_kept`], the
//! hidden `fwbench runtime-kit DIR` that benches/runtimes/bench.py uses).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::engine::embedded;
use crate::framework_list::Mode;
use crate::scenario::{self, ScenarioRef};

/// The launcher every runtime starts (see the file).
const LAUNCHER: &str = include_str!("../../../js/launch/launch.mjs");

/// What a runtime preloads into an `--app` project (see the file).
const ANNOUNCER: &str = include_str!("../../../js/launch/announce.mjs");

/// The written-out directory; removed on drop unless kept.
#[derive(Debug)]
pub struct Kit {
    dir: PathBuf,
    keep: bool,
}

impl Kit {
    /// Writes a new kit under the system's temporary directory, removed
    /// when dropped.
    pub fn write() -> anyhow::Result<Kit> {
        let dir = std::env::temp_dir().join(format!(
            "fwbench-kit-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        Kit::write_at(dir, false)
    }

    /// Writes a kit at `dir`, which must not exist yet, and leaves it there
    /// (a failed write is still removed).
    pub fn write_kept(dir: PathBuf) -> anyhow::Result<Kit> {
        Kit::write_at(dir, true)
    }

    fn write_at(dir: PathBuf, keep: bool) -> anyhow::Result<Kit> {
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .with_context(|| format!("cannot create {} (it must not exist yet)", dir.display()))?;
        // Dropped (and so removed) if writing fails half-way.
        let mut kit = Kit { dir, keep: false };
        kit.fill()
            .with_context(|| format!("cannot write the runtime kit in {}", kit.dir.display()))?;
        kit.keep = keep;
        Ok(kit)
    }

    /// Its directory (the runtimes' working directory).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The launcher's path.
    pub fn launcher(&self) -> PathBuf {
        self.dir.join("launch.mjs")
    }

    /// The path of the script preloaded into an `--app` project.
    pub fn announcer(&self) -> PathBuf {
        self.dir.join("announce.mjs")
    }

    fn fill(&self) -> anyhow::Result<()> {
        let copy = |embedded_prefix: &str, to: &str| -> anyhow::Result<()> {
            for path in embedded::paths_under(embedded_prefix) {
                let text = embedded::get(path).unwrap_or_default();
                self.put(&format!("{to}{}", &path[embedded_prefix.len()..]), text)?;
            }
            Ok(())
        };
        copy("vendor/", "vendor/")?;
        copy("s200/", "node_modules/s200/")?;
        copy("scenarios/", "scenarios/")?;
        self.put(
            "runtime/scenario.js",
            embedded::get("runtime/scenario.js").context("js/runtime/scenario.js is not embedded")?,
        )?;
        self.put("launch.mjs", LAUNCHER)?;
        self.put("announce.mjs", ANNOUNCER)?;
        self.put("package.json", "{\"private\": true, \"type\": \"module\"}\n")?;
        for (package, exports) in packages(&embedded::vendor_manifest().specifiers) {
            let exports: serde_json::Map<String, serde_json::Value> = exports
                .into_iter()
                .map(|(subpath, file)| (subpath, serde_json::Value::String(format!("./dist/{file}"))))
                .collect();
            let manifest = serde_json::json!({ "name": package, "type": "module", "exports": exports });
            self.put(
                &format!("node_modules/{package}/package.json"),
                &manifest.to_string(),
            )?;
            // node_modules/<package>/dist -> the kit's vendor/ (one level
            // deeper for a scoped package).
            let up = "../".repeat(package.matches('/').count() + 2);
            let link = self.dir.join(format!("node_modules/{package}/dist"));
            std::os::unix::fs::symlink(format!("{up}vendor"), &link)
                .with_context(|| format!("cannot link {}", link.display()))?;
        }
        Ok(())
    }

    /// Writes `text` at `relative`, making its directories.
    fn put(&self, relative: &str, text: &str) -> anyhow::Result<()> {
        let path = self.dir.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    }

    /// Writes the main module that builds `framework`'s app from built-in
    /// `scenario` (as `fwbench serve` builds it) and returns its path; a
    /// scenario file is refused (its imports would resolve from its own
    /// directory, where these bundles are not).
    pub fn main_module(
        &self,
        scenario: &ScenarioRef,
        framework: &str,
        factory: &str,
        mode: Mode,
    ) -> Result<PathBuf, String> {
        let Some(relative) = scenario.url.as_str().strip_prefix("fwbench:///") else {
            return Err(format!(
                "runtime rows serve the built-in scenarios; {} is a scenario file",
                scenario.url
            ));
        };
        let file_url = |path: &Path| {
            deno_core::ModuleSpecifier::from_file_path(path)
                .map(String::from)
                .map_err(|()| format!("{} cannot be a module URL", path.display()))
        };
        let code = scenario::app_module_code(
            scenario,
            &file_url(&self.dir.join(relative))?,
            &file_url(&self.dir.join("runtime/scenario.js"))?,
            framework,
            factory,
            mode,
        );
        let main = format!("main/{}/{framework}.mjs", scenario.label());
        self.put(&main, &code).map_err(|e| format!("{e:#}"))?;
        Ok(self.dir.join(main))
    }
}

impl Drop for Kit {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Writes a kept kit at `dir` with a main module for every JS framework in
/// each built-in scenario of `scenarios`, and prints one JSON line per
/// main module (`framework`, `scenario`, `mode`, `main`, and the kit's
/// `launcher`), so that another tool serves the same bytes fwbench does:
/// `node LAUNCHER MODE MAIN [PORT]` from the kit's directory.
pub fn export(dir: PathBuf, scenarios: &[String], out: &mut impl std::io::Write) -> anyhow::Result<()> {
    let scenarios = scenarios
        .iter()
        .map(|name| {
            let scenario = scenario::resolve(name)?;
            anyhow::ensure!(
                scenario.root.is_none(),
                "{name} is a scenario file; the kit holds the built-in scenarios ({})",
                scenario::builtin_names().join(", ")
            );
            Ok(scenario)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let kit = Kit::write_kept(dir)?;
    for scenario in &scenarios {
        for framework in crate::framework_list::FRAMEWORKS {
            let crate::framework_list::Serving::Js { factory, mode } = framework.serving else {
                continue;
            };
            let main = kit
                .main_module(scenario, framework.name, factory, mode)
                .map_err(anyhow::Error::msg)?;
            let line = serde_json::json!({
                "framework": framework.name,
                "scenario": scenario.label(),
                "mode": mode.as_str(),
                "main": main,
                "launcher": kit.launcher(),
            });
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The bundled packages and their exports, from the manifest's bare
/// specifiers: `hono/cors` -> `hono/cors.js` becomes package `hono`'s
/// `./cors` export; `@hono/node-server` is a scoped package's `.`.
fn packages(specifiers: &BTreeMap<String, String>) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut packages: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (specifier, file) in specifiers {
        let segments = if specifier.starts_with('@') { 2 } else { 1 };
        let mut parts = specifier.splitn(segments + 1, '/');
        let package: Vec<&str> = parts.by_ref().take(segments).collect();
        let subpath = match parts.next() {
            Some(rest) => format!("./{rest}"),
            None => ".".to_owned(),
        };
        packages
            .entry(package.join("/"))
            .or_default()
            .insert(subpath, file.clone());
    }
    packages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers_group_into_packages_and_their_exports() {
        let specifiers = BTreeMap::from([
            ("hono".to_owned(), "hono.js".to_owned()),
            ("hono/cors".to_owned(), "hono/cors.js".to_owned()),
            ("@hono/node-server".to_owned(), "hono-node-server.js".to_owned()),
            ("@elysiajs/cors".to_owned(), "npm/@elysiajs/cors.js".to_owned()),
        ]);
        let packages = packages(&specifiers);
        assert_eq!(packages.len(), 3);
        assert_eq!(packages["hono"]["."], "hono.js");
        assert_eq!(packages["hono"]["./cors"], "hono/cors.js");
        assert_eq!(packages["@hono/node-server"]["."], "hono-node-server.js");
        assert_eq!(packages["@elysiajs/cors"]["."], "npm/@elysiajs/cors.js");
    }
}
