//! A project's files as ES modules (the loader's [`FileModules`]): Node's
//! resolution for `import`, TypeScript stripped, JSON, and CommonJS files
//! reached through a facade that runs them in the CommonJS loader
//! (js/runtime/node/_cjs.js), so `require` and `import` share one instance.
//! ES modules come with their V8 code cache when one was kept
//! (code_cache.rs); [`compile_function_cache`] does the same for the
//! CommonJS wrappers.

use std::path::Path;

use deno_core::error::ModuleLoaderError;
use std::borrow::Cow;

use deno_core::{ModuleSource, ModuleSourceCode, ModuleSpecifier, ModuleType, SourceCodeCacheInfo};
use deno_error::JsErrorBox;

use super::code_cache::hash_of;
use super::{Format, Project, ResolveKind, Resolved};
use crate::engine::loader::{builtin_url, FileModules, EMBEDDED_PREFIX};

impl FileModules for Project {
    fn root(&self) -> &Path {
        Project::root(self)
    }

    fn may_load(&self, path: &Path) -> Result<(), String> {
        self.readable(path, "import").map(drop)
    }

    fn code_cache_ready(&self, url: &ModuleSpecifier, hash: u64, data: &[u8]) {
        self.code_cache().put(url.as_str(), hash, data);
    }

    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        from: &Path,
    ) -> Result<ModuleSpecifier, ModuleLoaderError> {
        let from_display = from.display();
        match Project::resolve(self, specifier, from, ResolveKind::Import) {
            Ok(Resolved::Builtin(name)) => {
                if crate::engine::embedded::get(&format!("runtime/node/{name}.js")).is_none() {
                    return Err(JsErrorBox::type_error(format!(
                        "node:{name} is not available in fwbench (imported by {from_display}): \
                         docs/node-compat.md lists the Node built-ins fwbench has"
                    )));
                }
                Ok(builtin_url(&name))
            }
            Ok(Resolved::File { path, .. }) => {
                self.readable(&path, "import").map_err(|why| {
                    JsErrorBox::type_error(format!("Cannot import '{specifier}' from '{referrer}': {why}"))
                })?;
                ModuleSpecifier::from_file_path(&path).map_err(|()| {
                    JsErrorBox::type_error(format!(
                        "Cannot import '{specifier}' from '{referrer}': not a local file path"
                    ))
                })
            }
            Ok(Resolved::NotInProject) => match self.bundled_copy(specifier) {
                Some(url) => Ok(url),
                None => Err(JsErrorBox::type_error(format!(
                    "Cannot find package '{specifier}' imported from {from_display}: it is not in the \
                     project's node_modules (run npm install) and fwbench bundles no copy of it"
                ))),
            },
            Err(message) => Err(JsErrorBox::type_error(format!(
                "{message} imported from {from_display}"
            ))),
        }
    }

    fn load(
        &self,
        url: &ModuleSpecifier,
        path: &Path,
        is_main: bool,
    ) -> Result<ModuleSource, ModuleLoaderError> {
        let real = self
            .readable(path, "import")
            .map_err(|why| JsErrorBox::type_error(format!("Cannot load '{}': {why}", path.display())))?;
        let (module_type, code) = match self.format(&real) {
            Format::Module => {
                let code = self.source(&real).map_err(JsErrorBox::generic)?.to_string();
                let hash = hash_of(&code);
                let cache = self.code_cache().is_on().then(|| SourceCodeCacheInfo {
                    hash,
                    data: self.code_cache().get(url.as_str(), hash).map(Cow::Owned),
                });
                return Ok(ModuleSource::new(
                    ModuleType::JavaScript,
                    ModuleSourceCode::String(code.into()),
                    url,
                    cache,
                ));
            }
            Format::Json => (
                ModuleType::Json,
                self.source(&real).map_err(JsErrorBox::generic)?.to_string(),
            ),
            Format::CommonJs => (
                ModuleType::JavaScript,
                commonjs_facade(&real, &self.commonjs_exports(&real), is_main),
            ),
            Format::Addon => {
                return Err(JsErrorBox::generic(format!(
                    "Cannot load native addon '{url}': fwbench's sandbox runs no native code (a package \
                     with a pure JavaScript fallback takes it when the addon is missing)"
                )))
            }
            Format::Wasm => {
                return Err(JsErrorBox::generic(format!(
                    "Cannot load '{url}': WebAssembly is not available in fwbench's sandbox"
                )))
            }
        };
        Ok(ModuleSource::new(
            module_type,
            ModuleSourceCode::String(code.into()),
            url,
            None,
        ))
    }
}

/// The ES module an `import` of the CommonJS file `path` gets: it runs the
/// file through js/runtime/node/_cjs.js (so `require` and `import` share
/// one instance) and exports `module.exports` as the default, as
/// `"module.exports"`, and each of `names` (Node's static detection).
fn commonjs_facade(path: &Path, names: &[String], is_main: bool) -> String {
    let quoted = |text: &str| serde_json::to_string(text).expect("strings serialize");
    let mut code = format!(
        "import {{ importCommonJS }} from \"{EMBEDDED_PREFIX}runtime/node/_cjs.js\";\n\
         const exports = importCommonJS({}, {is_main});\n\
         export default exports;\n\
         export {{ exports as \"module.exports\" }};\n",
        quoted(&path.display().to_string())
    );
    for (index, name) in names.iter().enumerate() {
        if name == "module.exports" {
            continue;
        }
        code.push_str(&format!(
            "const n{index} = exports?.[{0}];\nexport {{ n{index} as {0} }};\n",
            quoted(name)
        ));
    }
    code
}

/// deno_core's callbacks for code compiled through `compileFunction` (the
/// CommonJS wrappers): the cache kept for the same URL and source, and
/// where to keep a new one.
#[allow(clippy::type_complexity)]
pub fn compile_function_cache(
    project: std::sync::Arc<Project>,
) -> (
    Box<dyn Fn(&deno_core::url::Url, &[u16]) -> Result<SourceCodeCacheInfo, JsErrorBox>>,
    Box<dyn Fn(deno_core::url::Url, u64, &[u8])>,
) {
    let reader = project.clone();
    (
        Box::new(move |url, source| {
            let hash = hash_of(source);
            Ok(SourceCodeCacheInfo {
                hash,
                data: reader.code_cache().get(url.as_str(), hash).map(Cow::Owned),
            })
        }),
        Box::new(move |url, hash, data| project.code_cache().put(url.as_str(), hash, data)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commonjs_facade_exports_the_detected_names() {
        let code = commonjs_facade(Path::new("/p/x.js"), &["a".into(), "b-c".into()], false);
        assert!(code.contains("importCommonJS(\"/p/x.js\", false)"), "{code}");
        assert!(code.contains("export default exports;"), "{code}");
        assert!(code.contains("export { n1 as \"b-c\" };"), "{code}");
    }
}
