//! The build program: what fwbench compiles in besides its Rust code, so
//! that a built binary runs without Node.js, the network or this source
//! tree. Its steps, each in a file of build/:
//!
//! 1. embed.rs: the locked versions of the crates reports record, the JS
//!    of Deno's Web API crates, and fwbench's own JS (js/runtime, js/s200,
//!    scenarios/, the framework bundles in vendor/dist/) as a table;
//! 2. snapshots.rs (V8 only): the engine's startup snapshot and one per
//!    framework set, each with the code caches of what runs on top of it;
//!    code_caches.rs rehearses a set's rows for them, and embedded.rs is
//!    this script's view of the embedded files.
//!
//! The snapshots are made from the very extension list the binary
//! registers: the files below are compiled here from src/ as well.

/// Declares each module this script compiles from the binary's own
/// sources, once: the module, and its file in `FROM_SRC`, whose change
/// reruns the script. Not every item of them is used here.
macro_rules! from_src {
    ($($module:ident: $file:literal),* $(,)?) => {
        $(
            #[cfg(feature = "v8")]
            #[allow(dead_code)]
            #[path = $file]
            mod $module;
        )*
        /// The binary's source files compiled into this script.
        #[cfg(feature = "v8")]
        const FROM_SRC: &[&str] = &[$($file),*];
    };
}

from_src! {
    extensions: "src/engine/extensions.rs",
    external: "src/engine/external.rs",
    framework_list: "src/framework_list.rs",
    loader: "src/engine/loader.rs",
    ops_crypto: "src/engine/ops_crypto.rs",
    ops_host: "src/engine/ops_host.rs",
    sandbox: "src/engine/sandbox.rs",
    snapshot_seal: "src/engine/snapshot_seal.rs",
    snapshot_sets: "src/engine/snapshot_sets.rs",
}

#[cfg(feature = "v8")]
#[path = "build/code_caches.rs"]
mod code_caches;
#[path = "build/embed.rs"]
mod embed;
#[cfg(feature = "v8")]
#[path = "build/embedded.rs"]
mod embedded;
#[cfg(feature = "v8")]
#[path = "build/snapshots.rs"]
mod snapshots;

fn main() {
    let locked = embed::locked_packages();
    embed::record_versions(&locked);
    embed::deno_sources(&locked);
    let files = embed::js_files();
    #[cfg(feature = "v8")]
    {
        for file in FROM_SRC {
            println!("cargo:rerun-if-changed={file}");
        }
        snapshots::build(&locked, &files);
    }
    embed::write_table(&files);
}
