//! The build script's view of the files the binary embeds (what
//! src/engine/embedded.rs serves at run time from the table embed.rs
//! writes), for the module loader that builds the framework snapshots.
//! src/engine/loader.rs, compiled here too, finds it as `super::embedded`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

static FILES: OnceLock<BTreeMap<String, &'static str>> = OnceLock::new();

/// Reads every embedded file once (they live as long as the script).
pub fn install(entries: &[(String, PathBuf)]) {
    let files = entries
        .iter()
        .map(|(name, path)| {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (name.clone(), &*Box::leak(text.into_boxed_str()))
        })
        .collect();
    let _ = FILES.set(files);
}

/// An embedded file's source, by its embedded path.
pub fn get(path: &str) -> Option<&'static str> {
    FILES.get()?.get(path).copied()
}

/// The embedded path of a bare specifier vendor/dist/manifest.json maps.
pub fn vendor_specifier(specifier: &str) -> Option<String> {
    let manifest: serde_json::Value = serde_json::from_str(get("vendor/manifest.json")?).ok()?;
    let file = manifest.get("specifiers")?.get(specifier)?.as_str()?;
    Some(format!("vendor/{file}"))
}
