//! The format Node gives a file: by extension (`.mjs`/`.mts` ES module,
//! `.cjs`/`.cts` CommonJS, `.json`, `.node` addons, `.wasm`), else by the
//! nearest package.json's `type`, else (no `type`) by its syntax: a file
//! with `import`/`export` statements is an ES module (Node 22.7+'s module
//! detection, on by default), any other is CommonJS.

use std::path::Path;
use std::sync::Arc;

use super::cjs_exports;

/// What a file is to the module system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An ES module.
    Module,
    /// A CommonJS module.
    CommonJs,
    /// A JSON file (`module.exports` is its value; a default export).
    Json,
    /// A native addon: refused (the sandbox runs no native code).
    Addon,
    /// A WebAssembly module: refused (the sandbox has no WebAssembly).
    Wasm,
}

impl Format {
    /// The name the JS side uses (js/runtime/node/_cjs.js).
    pub fn name(self) -> &'static str {
        match self {
            Format::Module => "module",
            Format::CommonJs => "commonjs",
            Format::Json => "json",
            Format::Addon => "addon",
            Format::Wasm => "wasm",
        }
    }
}

/// The format of the file at `path`; `source` gives its JavaScript (types
/// stripped) when its syntax must decide.
pub fn of(path: &Path, source: impl FnOnce(&Path) -> Option<Arc<str>>) -> Format {
    match path.extension().and_then(|e| e.to_str()).unwrap_or_default() {
        "mjs" | "mts" => return Format::Module,
        "cjs" | "cts" => return Format::CommonJs,
        "json" => return Format::Json,
        "node" => return Format::Addon,
        "wasm" => return Format::Wasm,
        _ => {}
    }
    match package_type(path).as_deref() {
        Some("module") => Format::Module,
        Some("commonjs") => Format::CommonJs,
        _ => match source(path) {
            Some(text) if cjs_exports::has_module_syntax(&text) => Format::Module,
            _ => Format::CommonJs,
        },
    }
}

/// The `type` of the nearest package.json above `path` (`None` when that
/// package.json has none, or there is none, or it is not JSON: Node's
/// resolution has already reported a broken one of a package).
fn package_type(path: &Path) -> Option<String> {
    let manifest = path
        .ancestors()
        .skip(1)
        .map(|dir| dir.join("package.json"))
        .find(|manifest| manifest.is_file())?;
    let text = std::fs::read_to_string(manifest).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("type")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_then_type_then_syntax_decide() {
        let dir = std::env::temp_dir().join(format!("fwbench-format-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("typed")).unwrap();
        std::fs::write(dir.join("typed/package.json"), r#"{"type":"module"}"#).unwrap();
        let none = |_: &Path| None;
        assert_eq!(of(&dir.join("a.mjs"), none), Format::Module);
        assert_eq!(of(&dir.join("a.cts"), none), Format::CommonJs);
        assert_eq!(of(&dir.join("a.json"), none), Format::Json);
        assert_eq!(of(&dir.join("a.node"), none), Format::Addon);
        assert_eq!(of(&dir.join("typed/a.js"), none), Format::Module);
        assert_eq!(of(&dir.join("typed/a.ts"), none), Format::Module);
        let esm = |_: &Path| Some(Arc::from("import x from 'y';\nexport default x;"));
        let cjs = |_: &Path| Some(Arc::from("module.exports = require('y');"));
        assert_eq!(of(&dir.join("plain.js"), esm), Format::Module);
        assert_eq!(of(&dir.join("plain.js"), cjs), Format::CommonJs);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
