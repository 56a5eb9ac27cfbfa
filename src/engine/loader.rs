//! The module loader: which ES modules app code may import, and from where.
//!
//! Allowed:
//! - files inside the app's own directory tree (`file://`), read from disk;
//! - fwbench's embedded modules (`fwbench:///…`): js/runtime, js/s200,
//!   scenarios/ and the vendor bundles (see `embedded`);
//! - bare specifiers that name one of those: `s200` and its subpaths
//!   (`s200/light`, `s200/cors`, … as js/s200/package.json `exports` lists
//!   them), the frameworks listed in vendor/dist/manifest.json (`hono`,
//!   `express`, …), and Node built-ins (`node:http` or `http`), which map to
//!   our shims in js/runtime/node/.
//!
//! With a project (engine/project/: an npm project served as it is),
//! file modules resolve as Node resolves them: from the project's
//! node_modules (its own copies of hono, express, … first), package.json
//! `exports`/`imports`, `.ts` files with their types stripped, and
//! CommonJS files reached through an ES module facade whose exports are
//! `module.exports` (default) and the names Node finds statically.
//!
//! Everything else (remote URLs, `data:`, paths outside the app's tree,
//! unknown packages) is refused with an error that names the specifier.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use deno_core::error::ModuleLoaderError;
use deno_core::{
    ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleSource, ModuleSourceCode,
    ModuleSpecifier, ModuleType, RequestedModuleType, ResolutionKind,
};
use deno_error::JsErrorBox;

use super::embedded;

/// How an npm project's file modules resolve and load, as Node has them
/// (engine/project/modules.rs). A trait, so that this file (which the
/// build program compiles too, for the startup snapshot) needs none of it.
pub trait FileModules {
    /// The project directory (canonical).
    fn root(&self) -> &Path;
    /// Whether app code may load the file at `path` (why not, if not).
    fn may_load(&self, path: &Path) -> Result<(), String>;
    /// Resolves `specifier`, imported by the project file `from` (whose URL
    /// is `referrer`).
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        from: &Path,
    ) -> Result<ModuleSpecifier, ModuleLoaderError>;
    /// Loads the project file `path` (at `url`) as a module; `is_main` for
    /// the app's entry (a CommonJS entry is `require.main`).
    fn load(
        &self,
        url: &ModuleSpecifier,
        path: &Path,
        is_main: bool,
    ) -> Result<ModuleSource, ModuleLoaderError>;
    /// V8 made `data`, the code cache of the module at `url` whose source
    /// hashes to `hash`: kept for the next start.
    fn code_cache_ready(&self, url: &ModuleSpecifier, hash: u64, data: &[u8]);
}

/// The scheme of embedded modules: `fwbench:///runtime/node/http.js`.
pub const EMBEDDED_PREFIX: &str = "fwbench:///";

/// Resolves and loads modules for one runtime; see the module docs.
pub struct HostModuleLoader {
    /// The app's directory (canonical): file modules must live under it.
    app_root: Option<PathBuf>,
    /// The app's npm project, when it is served as one.
    project: Option<Arc<dyn FileModules>>,
}

impl HostModuleLoader {
    /// A loader that serves files under `app_root` plus the embedded modules.
    /// With `None`, only embedded modules load (e.g. a built-in scenario).
    /// With a `project`, file modules resolve as Node resolves them.
    pub fn new(app_root: Option<PathBuf>, project: Option<Arc<dyn FileModules>>) -> Self {
        let app_root = project.as_ref().map(|p| p.root().to_path_buf()).or(app_root);
        Self { app_root, project }
    }

    fn refuse(specifier: &str, referrer: &str, why: &str) -> ModuleLoaderError {
        JsErrorBox::type_error(format!("Cannot import '{specifier}' from '{referrer}': {why}"))
    }

    /// Maps a bare specifier (`hono`, `s200/light`, `node:http`) to the
    /// embedded module that provides it: a bundled package, else a Node
    /// built-in's shim. An s200 subpath its exports do not list is refused
    /// with their list.
    fn resolve_bare(specifier: &str) -> Result<Option<ModuleSpecifier>, String> {
        match bundled(specifier) {
            Ok(url) => return Ok(Some(url)),
            Err(why) if specifier == S200 || specifier.starts_with("s200/") => return Err(why),
            Err(_) => {}
        }
        let node = specifier.strip_prefix("node:").unwrap_or(specifier);
        // `node:` names always map (so a missing shim gets a clear error);
        // a bare name maps only if we ship a shim for it.
        if specifier.starts_with("node:") || embedded::get(&format!("runtime/node/{node}.js")).is_some() {
            return Ok(Some(builtin_url(node)));
        }
        Ok(None)
    }

    fn check_file(
        &self,
        url: &ModuleSpecifier,
        specifier: &str,
        referrer: &str,
    ) -> Result<(), ModuleLoaderError> {
        let Some(root) = &self.app_root else {
            return Err(Self::refuse(
                specifier,
                referrer,
                "file modules are not allowed here",
            ));
        };
        let path = url
            .to_file_path()
            .map_err(|()| Self::refuse(specifier, referrer, "not a local file path"))?;
        let path = normalize(&path);
        if let Some(project) = &self.project {
            return project
                .may_load(&path)
                .map_err(|why| Self::refuse(specifier, referrer, &why));
        }
        if !path.starts_with(root) {
            return Err(Self::refuse(
                specifier,
                referrer,
                &format!("it is outside the app's directory {}", root.display()),
            ));
        }
        Ok(())
    }
}

/// The URL of fwbench's own copy of the package module `specifier` names
/// (`s200`, `s200/light`, `hono`, `express`, …), for a project that has
/// none of its own.
pub fn bundled(specifier: &str) -> Result<ModuleSpecifier, String> {
    let path = if specifier == S200 || specifier.starts_with("s200/") {
        s200_export(specifier)?
    } else {
        embedded::vendor_specifier(specifier).ok_or_else(|| format!("no bundled package '{specifier}'"))?
    };
    Ok(ModuleSpecifier::parse(&format!("{EMBEDDED_PREFIX}{path}")).expect("embedded URLs are valid"))
}

/// The embedded shim of the Node built-in `name` (`fs`, `fs/promises`).
pub fn builtin_url(name: &str) -> ModuleSpecifier {
    ModuleSpecifier::parse(&format!("{EMBEDDED_PREFIX}runtime/node/{name}.js"))
        .expect("embedded URLs are valid")
}

/// The package name of js/s200.
const S200: &str = "s200";

/// Maps `s200` or `s200/<subpath>` to the embedded file that
/// js/s200/package.json's `exports` names for it, as Node resolves a
/// package's subpaths: an unexported subpath is refused, naming the exports.
fn s200_export(specifier: &str) -> Result<String, String> {
    let exports = s200_exports();
    let key = match specifier.strip_prefix("s200/") {
        Some(subpath) => format!("./{subpath}"),
        None => ".".to_owned(),
    };
    exports.get(&key).cloned().ok_or_else(|| {
        let listed: Vec<String> = exports
            .keys()
            .map(|key| match key.strip_prefix("./") {
                Some(subpath) => format!("{S200}/{subpath}"),
                None => S200.to_owned(),
            })
            .collect();
        format!(
            "s200 does not export '{key}' (its package.json exports: {})",
            listed.join(", ")
        )
    })
}

/// js/s200/package.json's `exports`: subpath (`.`, `./cors`) to embedded
/// path (`s200/middleware/cors/index.js`), read once. A target is a string
/// or an object of conditions, of which fwbench, an ES module host, takes
/// `import`, then `default` (`types` is for editors).
fn s200_exports() -> &'static BTreeMap<String, String> {
    static EXPORTS: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    EXPORTS.get_or_init(|| {
        let package: serde_json::Value = embedded::get("s200/package.json")
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default();
        let Some(map) = package.get("exports").and_then(serde_json::Value::as_object) else {
            return BTreeMap::new();
        };
        map.iter()
            .filter_map(|(subpath, target)| {
                let file = match target {
                    serde_json::Value::String(file) => file,
                    conditions => ["import", "default"]
                        .iter()
                        .find_map(|condition| conditions.get(condition)?.as_str())?,
                };
                let file = file.strip_prefix("./")?;
                Some((subpath.clone(), format!("{S200}/{file}")))
            })
            .collect()
    })
}

/// Lexically removes `.` and `..` (URLs are already normalized this way, but
/// `to_file_path` input may come from elsewhere).
fn normalize(path: &Path) -> PathBuf {
    deno_core::normalize_path(std::borrow::Cow::Borrowed(path)).into_owned()
}

impl ModuleLoader for HostModuleLoader {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        _kind: ResolutionKind,
    ) -> Result<ModuleSpecifier, ModuleLoaderError> {
        if let (Some(project), Some(from)) = (&self.project, file_referrer(referrer)) {
            if !deno_core::specifier_has_uri_scheme(specifier) || specifier.starts_with("node:") {
                return project.resolve(specifier, referrer, &from);
            }
        }
        let is_relative =
            specifier.starts_with("./") || specifier.starts_with("../") || specifier.starts_with('/');
        let has_scheme = deno_core::specifier_has_uri_scheme(specifier) && !specifier.starts_with("node:");
        let url = if has_scheme {
            ModuleSpecifier::parse(specifier)
                .map_err(|e| Self::refuse(specifier, referrer, &format!("invalid URL: {e}")))?
        } else if is_relative {
            let base = ModuleSpecifier::parse(referrer)
                .map_err(|e| Self::refuse(specifier, referrer, &format!("invalid referrer: {e}")))?;
            base.join(specifier)
                .map_err(|e| Self::refuse(specifier, referrer, &format!("invalid specifier: {e}")))?
        } else {
            Self::resolve_bare(specifier)
                .map_err(|why| Self::refuse(specifier, referrer, &why))?
                .ok_or_else(|| {
                    Self::refuse(
                        specifier,
                        referrer,
                        "unknown package: fwbench provides s200, the bundled frameworks (see `fwbench list`) and Node built-ins (node:*)",
                    )
                })?
        };
        match url.scheme() {
            "file" => self.check_file(&url, specifier, referrer)?,
            "fwbench" => {}
            other => {
                return Err(Self::refuse(
                    specifier,
                    referrer,
                    &format!("'{other}:' modules are not allowed (the sandbox has no network)"),
                ))
            }
        }
        Ok(url)
    }

    fn load(
        &self,
        url: &ModuleSpecifier,
        referrer: Option<&ModuleLoadReferrer>,
        options: ModuleLoadOptions,
    ) -> ModuleLoadResponse {
        ModuleLoadResponse::Sync(self.load_sync(url, &options.requested_module_type, referrer.is_none()))
    }

    fn code_cache_ready(
        &self,
        module_specifier: ModuleSpecifier,
        hash: u64,
        code_cache: &[u8],
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
        if let Some(project) = &self.project {
            project.code_cache_ready(&module_specifier, hash, code_cache);
        }
        Box::pin(async {})
    }
}

/// The wrapper module through which `require()` of an ES module (and of a
/// built-in) loads it synchronously, for `fwbench:///require-esm/KIND/HEX`
/// (HEX: the target URL's bytes). deno_core's `op_import_sync` re-wraps a
/// namespace with a default export and no `__esModule` (Node's interop) in a
/// way the QuickJS backend cannot run; these wrappers never need it:
/// - `ns`: `{ namespace }`, the target's namespace, no default export;
/// - `interop`: the target's exports, its default and `__esModule: true`,
///   what Node's `require(esm)` returns for a module with a default export.
fn require_esm_wrapper(rest: &str) -> Option<String> {
    let (kind, hex) = rest.split_once('/')?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    let target = String::from_utf8(bytes?).ok()?;
    let target = serde_json::to_string(&target).ok()?;
    match kind {
        "ns" => Some(format!(
            "import * as namespace from {target};\nexport {{ namespace }};\n"
        )),
        "interop" => Some(format!(
            "export * from {target};\nexport {{ default }} from {target};\nexport const __esModule = true;\n"
        )),
        _ => None,
    }
}

/// The file path of a `file:` referrer.
fn file_referrer(referrer: &str) -> Option<PathBuf> {
    let url = ModuleSpecifier::parse(referrer).ok()?;
    (url.scheme() == "file")
        .then(|| url.to_file_path().ok())
        .flatten()
}

impl HostModuleLoader {
    fn load_sync(
        &self,
        url: &ModuleSpecifier,
        requested: &RequestedModuleType,
        is_main: bool,
    ) -> Result<ModuleSource, ModuleLoaderError> {
        let module_type = match requested {
            RequestedModuleType::Json => ModuleType::Json,
            _ if url.path().ends_with(".json") => ModuleType::Json,
            _ => ModuleType::JavaScript,
        };
        let code = match url.scheme() {
            "fwbench" if url.path().starts_with("/require-esm/") => {
                let source = require_esm_wrapper(url.path().trim_start_matches("/require-esm/"))
                    .ok_or_else(|| JsErrorBox::type_error(format!("no embedded module '{url}'")))?;
                ModuleSourceCode::String(source.into())
            }
            "fwbench" => {
                let path = url.path().trim_start_matches('/');
                let source = embedded::get(path).ok_or_else(|| {
                    let what = if path.starts_with("runtime/node/") {
                        format!(
                            "Node built-in '{}' is not available in fwbench",
                            path.trim_start_matches("runtime/node/").trim_end_matches(".js")
                        )
                    } else if path.starts_with("vendor/") {
                        format!("'{url}' is not in this binary (were the vendor bundles built? run `node vendor/build.mjs` and rebuild)")
                    } else {
                        format!("no embedded module '{url}'")
                    };
                    JsErrorBox::type_error(what)
                })?;
                ModuleSourceCode::String(source.to_owned().into())
            }
            "file" if self.project.is_some() => {
                let project = self.project.as_ref().expect("checked");
                let path = url
                    .to_file_path()
                    .map_err(|()| JsErrorBox::type_error(format!("'{url}' is not a local file")))?;
                return project.load(url, &path, is_main);
            }
            "file" => {
                let path = url
                    .to_file_path()
                    .map_err(|()| JsErrorBox::type_error(format!("'{url}' is not a local file")))?;
                // Re-check after resolving symlinks: a link inside the app's
                // tree must not lead outside it.
                if let Some(root) = &self.app_root {
                    let real = std::fs::canonicalize(&path).map_err(|e| {
                        JsErrorBox::type_error(format!("Cannot load '{}': {e}", path.display()))
                    })?;
                    if !real.starts_with(root) {
                        return Err(JsErrorBox::type_error(format!(
                            "Cannot load '{}': it resolves to {}, outside the app's directory {}",
                            path.display(),
                            real.display(),
                            root.display()
                        )));
                    }
                }
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| JsErrorBox::type_error(format!("Cannot load '{}': {e}", path.display())))?;
                ModuleSourceCode::String(text.into())
            }
            other => {
                return Err(JsErrorBox::type_error(format!(
                    "'{other}:' modules are not allowed"
                )))
            }
        };
        Ok(ModuleSource::new(module_type, code, url, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loader(root: &str) -> HostModuleLoader {
        HostModuleLoader::new(Some(PathBuf::from(root)), None)
    }

    #[test]
    fn relative_imports_stay_inside_the_app() {
        let l = loader("/apps/demo");
        let ok = l.resolve("./lib/x.js", "file:///apps/demo/app.js", ResolutionKind::Import);
        assert_eq!(ok.unwrap().as_str(), "file:///apps/demo/lib/x.js");
        let err = l.resolve(
            "../../etc/passwd",
            "file:///apps/demo/app.js",
            ResolutionKind::Import,
        );
        assert!(err.unwrap_err().to_string().contains("../../etc/passwd"));
    }

    #[test]
    fn remote_and_data_urls_are_refused_by_name() {
        let l = loader("/apps/demo");
        for spec in [
            "https://example.com/x.js",
            "data:text/javascript,1",
            "http://127.0.0.1/x.js",
        ] {
            let err = l
                .resolve(spec, "file:///apps/demo/app.js", ResolutionKind::Import)
                .unwrap_err();
            assert!(err.to_string().contains(spec), "{err}");
        }
    }

    #[test]
    fn bare_specifiers_map_to_embedded_modules() {
        let l = loader("/apps/demo");
        let s200 = l
            .resolve("s200", "file:///apps/demo/app.js", ResolutionKind::Import)
            .unwrap();
        assert_eq!(s200.as_str(), "fwbench:///s200/index.js");
        let light = l
            .resolve("s200/light", "file:///apps/demo/app.js", ResolutionKind::Import)
            .unwrap();
        assert_eq!(light.as_str(), "fwbench:///s200/light.js");
        let node = l
            .resolve("node:fs", "file:///apps/demo/app.js", ResolutionKind::Import)
            .unwrap();
        assert_eq!(node.as_str(), "fwbench:///runtime/node/fs.js");
        let unknown = l
            .resolve("left-pad", "file:///apps/demo/app.js", ResolutionKind::Import)
            .unwrap_err();
        assert!(unknown.to_string().contains("left-pad"));
    }

    #[test]
    fn s200_subpaths_follow_the_exports_map() {
        let l = loader("/apps/demo");
        let cors = l
            .resolve("s200/cors", "file:///apps/demo/app.js", ResolutionKind::Import)
            .unwrap();
        assert_eq!(cors.as_str(), "fwbench:///s200/middleware/cors/index.js");
        let hidden = l
            .resolve("s200/src/app", "file:///apps/demo/app.js", ResolutionKind::Import)
            .unwrap_err()
            .to_string();
        assert!(hidden.contains("s200/src/app"), "{hidden}");
        assert!(hidden.contains("s200/request-id"), "names the exports: {hidden}");
    }

    #[test]
    fn require_esm_wrappers_name_their_target() {
        let hex: String = "file:///p/a.mjs".bytes().map(|b| format!("{b:02x}")).collect();
        let ns = require_esm_wrapper(&format!("ns/{hex}")).unwrap();
        assert_eq!(
            ns,
            "import * as namespace from \"file:///p/a.mjs\";\nexport { namespace };\n"
        );
        let interop = require_esm_wrapper(&format!("interop/{hex}")).unwrap();
        assert!(interop.contains("export const __esModule = true;"), "{interop}");
        assert_eq!(require_esm_wrapper("ns/zz"), None);
        assert_eq!(require_esm_wrapper(&format!("other/{hex}")), None);
    }

    #[test]
    fn embedded_modules_import_each_other_relatively() {
        let l = loader("/apps/demo");
        let url = l
            .resolve(
                "./events.js",
                "fwbench:///runtime/node/http.js",
                ResolutionKind::Import,
            )
            .unwrap();
        assert_eq!(url.as_str(), "fwbench:///runtime/node/events.js");
    }
}
