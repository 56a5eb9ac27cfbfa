//! The ops behind an app's Node surface: module resolution and sources for
//! the CommonJS loader (js/runtime/node/_cjs.js), the read-only file system
//! of node:fs (confined to the project, see [`Project::readable`]),
//! `process.env`, writes to file descriptors 1 and 2, and node:zlib's
//! streams (engine/ops_zlib.rs).
//!
//! They form their own extension, added to each runtime after the startup
//! snapshot (like the adapter's): the snapshot is built without a project.
//! JS reaches them through `core.ops`, from js/runtime/bootstrap.js's
//! `project()` service. Without a project (a built-in scenario) every one
//! of them but the fd writes and zlib refuses, naming why.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use deno_core::{op2, OpState, ToJsBuffer};
use deno_error::JsErrorBox;
use serde::Serialize;

use super::{Project, ResolveKind, Resolved};
use crate::engine::ops_zlib;

deno_core::extension!(
    fwbench_node,
    ops = [
        op_fwbench_project_resolve,
        op_fwbench_project_format,
        op_fwbench_project_source,
        op_fwbench_project_syntax_error,
        op_fwbench_project_env,
        op_fwbench_project_root,
        op_fwbench_fs_read,
        op_fwbench_fs_stat,
        op_fwbench_fs_readdir,
        op_fwbench_fs_realpath,
        op_fwbench_fd_write,
        ops_zlib::op_fwbench_zlib_new,
        ops_zlib::op_fwbench_zlib_push,
        ops_zlib::op_fwbench_zlib_close,
    ],
    options = { project: Option<Arc<Project>> },
    // CompressionStream and DecompressionStream on node:zlib's codecs,
    // whose output is capped and counted (ops_zlib.rs): ours take
    // deno_web's places.
    middleware = |op| match op.name {
        "op_compression_new" => op.with_implementation_from(&ops_zlib::op_fwbench_compression_new()),
        "op_compression_write" => op.with_implementation_from(&ops_zlib::op_fwbench_compression_write()),
        "op_compression_finish" => op.with_implementation_from(&ops_zlib::op_fwbench_compression_finish()),
        _ => op,
    },
    state = |state, options| {
        if let Some(project) = options.project {
            state.put(project);
        }
        state.put(ops_zlib::Streams::default());
    },
);

fn project(state: &OpState) -> Result<Arc<Project>, JsErrorBox> {
    state.try_borrow::<Arc<Project>>().cloned().ok_or_else(|| {
        JsErrorBox::generic("no project: this runtime serves a built-in scenario, which has no files")
    })
}

/// A Node-style error: the message starts with its code (`ENOENT: …`),
/// which js/runtime/node/fs.js turns into `error.code`.
fn fs_error(message: String) -> JsErrorBox {
    JsErrorBox::generic(message)
}

/// Resolves `specifier` from the file `referrer` for `require` (or
/// `import`): `builtin:NAME`, `file:PATH`, `bundled:URL` (fwbench's own
/// copy of a package the project does not have) or an error in Node's
/// words.
#[op2]
#[string]
pub fn op_fwbench_project_resolve(
    state: &mut OpState,
    #[string] specifier: &str,
    #[string] referrer: &str,
    require: bool,
) -> Result<String, JsErrorBox> {
    let project = project(state)?;
    let kind = if require {
        ResolveKind::Require
    } else {
        ResolveKind::Import
    };
    match project.resolve(specifier, Path::new(referrer), kind) {
        Ok(Resolved::Builtin(name)) => Ok(format!("builtin:{name}")),
        Ok(Resolved::File { path, .. }) => Ok(format!("file:{}", path.display())),
        Ok(Resolved::NotInProject) => match project.bundled_copy(specifier) {
            Some(url) => Ok(format!("bundled:{url}")),
            None => Err(JsErrorBox::generic(format!("Cannot find module '{specifier}'"))),
        },
        Err(message) => Err(JsErrorBox::generic(message)),
    }
}

/// The format of a file: `module`, `commonjs`, `json`, `addon` or `wasm`.
#[op2]
#[string]
pub fn op_fwbench_project_format(
    state: &mut OpState,
    #[string] path: &str,
) -> Result<&'static str, JsErrorBox> {
    let project = project(state)?;
    // Deciding may read the file: only one app code may read.
    let path = project.readable(Path::new(path), "open").map_err(fs_error)?;
    Ok(project.format(&path).name())
}

/// The JavaScript of a module file (TypeScript stripped), if it is readable.
#[op2]
#[string]
pub fn op_fwbench_project_source(state: &mut OpState, #[string] path: &str) -> Result<String, JsErrorBox> {
    let project = project(state)?;
    let path = project.readable(Path::new(path), "open").map_err(fs_error)?;
    project
        .source(&path)
        .map(|text| text.to_string())
        .map_err(JsErrorBox::generic)
}

/// Where a CommonJS file V8 could not compile breaks the grammar:
/// `path:line:column: what`, or an empty string when the parser finds
/// nothing wrong.
#[op2]
#[string]
pub fn op_fwbench_project_syntax_error(
    state: &mut OpState,
    #[string] path: &str,
) -> Result<String, JsErrorBox> {
    let project = project(state)?;
    let path = project.readable(Path::new(path), "open").map_err(fs_error)?;
    Ok(project.syntax_error(&path).unwrap_or_default())
}

/// `process.env`: empty without a project.
#[op2]
#[serde]
pub fn op_fwbench_project_env(state: &mut OpState) -> BTreeMap<String, String> {
    project(state).map(|p| p.env()).unwrap_or_default()
}

/// The project directory (`process.cwd()`); `/` without a project.
#[op2]
#[string]
pub fn op_fwbench_project_root(state: &mut OpState) -> String {
    project(state)
        .map(|p| p.root().display().to_string())
        .unwrap_or_else(|_| "/".to_owned())
}

fn readable(state: &OpState, path: &str, syscall: &str) -> Result<PathBuf, JsErrorBox> {
    let project = project(state).map_err(|_| {
        fs_error(format!(
            "EACCES: permission denied, {syscall} '{path}': this app has no project directory to read from"
        ))
    })?;
    project.readable(Path::new(path), syscall).map_err(fs_error)
}

fn io_error(e: std::io::Error, syscall: &str, path: &str) -> JsErrorBox {
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => "ENOENT",
        std::io::ErrorKind::PermissionDenied => "EACCES",
        _ if e.raw_os_error() == Some(libc::EISDIR) => "EISDIR",
        _ if e.raw_os_error() == Some(libc::ENOTDIR) => "ENOTDIR",
        _ => "EIO",
    };
    fs_error(format!("{code}: {e}, {syscall} '{path}'"))
}

/// A whole file's bytes (`fs.readFileSync`).
#[op2]
#[serde]
pub fn op_fwbench_fs_read(state: &mut OpState, #[string] path: &str) -> Result<ToJsBuffer, JsErrorBox> {
    let real = readable(state, path, "open")?;
    if real.is_dir() {
        return Err(fs_error(format!(
            "EISDIR: illegal operation on a directory, read '{path}'"
        )));
    }
    std::fs::read(&real)
        .map(ToJsBuffer::from)
        .map_err(|e| io_error(e, "open", path))
}

/// What `fs.Stats` is made from.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stat {
    kind: &'static str,
    size: f64,
    mode: u32,
    mtime_ms: f64,
    atime_ms: f64,
    ctime_ms: f64,
    ino: f64,
    dev: f64,
    nlink: f64,
    uid: u32,
    gid: u32,
}

/// `fs.statSync` (`follow`) or `fs.lstatSync`.
#[op2]
#[serde]
pub fn op_fwbench_fs_stat(
    state: &mut OpState,
    #[string] path: &str,
    follow: bool,
) -> Result<Stat, JsErrorBox> {
    use std::os::unix::fs::MetadataExt;
    let syscall = if follow { "stat" } else { "lstat" };
    // lstat looks at the link itself, which may sit inside the project
    // and point out of it: only its parent must be readable.
    let target = if follow {
        readable(state, path, syscall)?
    } else {
        let path = Path::new(path);
        let name = path.file_name().unwrap_or_default();
        readable(
            state,
            &path.parent().unwrap_or(Path::new("/")).display().to_string(),
            syscall,
        )?
        .join(name)
    };
    let meta = if follow {
        std::fs::metadata(&target)
    } else {
        std::fs::symlink_metadata(&target)
    }
    .map_err(|e| io_error(e, syscall, path))?;
    let kind = if meta.file_type().is_symlink() {
        "symlink"
    } else if meta.is_dir() {
        "dir"
    } else if meta.is_file() {
        "file"
    } else {
        "other"
    };
    let ms = |secs: i64, nanos: i64| secs as f64 * 1e3 + nanos as f64 / 1e6;
    Ok(Stat {
        kind,
        size: meta.size() as f64,
        mode: meta.mode(),
        mtime_ms: ms(meta.mtime(), meta.mtime_nsec()),
        atime_ms: ms(meta.atime(), meta.atime_nsec()),
        ctime_ms: ms(meta.ctime(), meta.ctime_nsec()),
        ino: meta.ino() as f64,
        dev: meta.dev() as f64,
        nlink: meta.nlink() as f64,
        uid: meta.uid(),
        gid: meta.gid(),
    })
}

/// A directory's entries, sorted, each `[name, kind]`.
#[op2]
#[serde]
pub fn op_fwbench_fs_readdir(
    state: &mut OpState,
    #[string] path: &str,
) -> Result<Vec<(String, &'static str)>, JsErrorBox> {
    let real = readable(state, path, "scandir")?;
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(&real).map_err(|e| io_error(e, "scandir", path))? {
        let entry = entry.map_err(|e| io_error(e, "scandir", path))?;
        let kind = match entry.file_type() {
            Ok(t) if t.is_symlink() => "symlink",
            Ok(t) if t.is_dir() => "dir",
            Ok(t) if t.is_file() => "file",
            _ => "other",
        };
        entries.push((entry.file_name().to_string_lossy().into_owned(), kind));
    }
    entries.sort();
    Ok(entries)
}

/// `fs.realpathSync`.
#[op2]
#[string]
pub fn op_fwbench_fs_realpath(state: &mut OpState, #[string] path: &str) -> Result<String, JsErrorBox> {
    Ok(readable(state, path, "realpath")?.display().to_string())
}

/// Writes to file descriptor 1 or 2 (pino's `destination(1)`, sonic-boom,
/// `fs.writeSync(1, …)`): both go to the server log, stderr (`serve`'s
/// stdout carries its banner alone). Any other descriptor: `EBADF`.
#[op2(fast)]
pub fn op_fwbench_fd_write(fd: i32, #[buffer] bytes: &[u8]) -> Result<u32, JsErrorBox> {
    if fd != 1 && fd != 2 {
        return Err(fs_error(format!(
            "EBADF: bad file descriptor, write (fwbench's sandbox opens no files: only 1 and 2, the server log, take writes; fd {fd})"
        )));
    }
    std::io::stderr()
        .write_all(bytes)
        .map_err(|e| io_error(e, "write", "<stderr>"))?;
    Ok(bytes.len() as u32)
}
