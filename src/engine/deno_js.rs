//! The JS of Deno's Web API crates, compiled in (build.rs writes the
//! table), so a built fwbench does not need the cargo registry at run time.

use std::borrow::Cow;

use deno_core::{Extension, ExtensionFileSource, ExtensionFileSourceCode};

mod deno_sources {
    include!(concat!(env!("OUT_DIR"), "/deno_sources.rs"));
}

/// Replaces JS that deno_core would read from disk (by absolute path) with
/// the copy build.rs compiled in. With a startup snapshot, the scripts the
/// bootstrap ran are in the snapshot already; the others stay loadable
/// (serve.js loads deno_fetch's body and request scripts by name).
pub fn embed_js(extension: &mut Extension) {
    fn swap(files: &mut Cow<'static, [ExtensionFileSource]>) {
        for file in files.to_mut().iter_mut() {
            #[allow(deprecated, reason = "the variant deno_core uses for file paths")]
            if let ExtensionFileSourceCode::LoadedFromFsDuringSnapshot(path) = file.code {
                if let Some((_, code)) = deno_sources::FILES.iter().find(|(p, _)| *p == path) {
                    *file = ExtensionFileSource::new(file.specifier, *code);
                }
            }
        }
    }
    swap(&mut extension.js_files);
    swap(&mut extension.esm_files);
    swap(&mut extension.lazy_loaded_js_files);
    swap(&mut extension.lazy_loaded_esm_files);
}
