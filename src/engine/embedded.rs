//! JavaScript compiled into the binary: js/runtime, js/s200, scenarios/ and
//! the generated vendor bundles (see build.rs). The module loader serves
//! these under `fwbench:///<path>`.

mod files {
    include!(concat!(env!("OUT_DIR"), "/embedded_files.rs"));
}

/// The source of an embedded file, by its path (e.g. `runtime/node/http.js`).
pub fn get(path: &str) -> Option<&'static str> {
    files::FILES
        .binary_search_by(|(name, _)| (*name).cmp(path))
        .ok()
        .map(|index| files::FILES[index].1)
}

/// Every embedded path that starts with `prefix` (e.g. `scenarios/`).
pub fn paths_under(prefix: &str) -> impl Iterator<Item = &'static str> + '_ {
    files::FILES
        .iter()
        .map(|(name, _)| *name)
        .filter(move |name| name.starts_with(prefix))
}

/// What vendor/dist/manifest.json says: framework and middleware package
/// versions and the bare specifiers the bundles answer to. Empty when the
/// bundles were not built.
#[derive(Debug, Default, serde::Deserialize)]
pub struct VendorManifest {
    /// Framework (npm package) name to pinned version.
    #[serde(default)]
    pub frameworks: std::collections::BTreeMap<String, String>,
    /// Middleware package (npm name) to pinned version: the packages the
    /// prod scenario mounts (vendor/build.mjs, `MIDDLEWARE`).
    #[serde(default)]
    pub packages: std::collections::BTreeMap<String, String>,
    /// Bare specifier (e.g. `hono/cors`) to bundle file under vendor/dist.
    #[serde(default)]
    pub specifiers: std::collections::BTreeMap<String, String>,
}

/// The embedded vendor manifest, parsed once.
pub fn vendor_manifest() -> &'static VendorManifest {
    static MANIFEST: std::sync::OnceLock<VendorManifest> = std::sync::OnceLock::new();
    MANIFEST.get_or_init(|| {
        get("vendor/manifest.json")
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default()
    })
}

/// The embedded path a bare specifier such as `hono` or `hono/cors` maps to.
pub fn vendor_specifier(specifier: &str) -> Option<String> {
    vendor_manifest()
        .specifiers
        .get(specifier)
        .map(|file| format!("vendor/{file}"))
}
