//! An app's project: the npm project (or plain directory) an app is served
//! from, as Node would run it.
//!
//! - what app code may read: the project directory, the node_modules
//!   Node's resolution searches from it (its own and its ancestors', as a
//!   workspace hoists them) and the packages linked into them (`npm link`),
//!   and nothing else
//!   ([`Project::readable`]);
//! - how a specifier resolves: Node's algorithm, by oxc_resolver
//!   (resolve.rs);
//! - what format a file is: ES module, CommonJS or JSON (format.rs), with
//!   TypeScript's types stripped as Node 26 strips them (typescript.rs) and
//!   a CommonJS module's named exports found for its ES importers
//!   (cjs_exports.rs);
//! - what `process.env` holds ([`Project::env`]);
//! - which packages were used, and from where, for the banner.
//!
//! One `Project` serves every runtime of an app (an `Arc`): the resolver's
//! caches and the stripped sources are shared by the workers.

mod cjs_exports;
pub mod code_cache;
mod format;
mod modules;
pub(crate) mod ops;

pub(crate) use modules::compile_function_cache;
mod resolve;
mod typescript;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context};

pub use format::Format;
pub use resolve::{package_name, ResolveKind, Resolved};

/// Where a package an app used came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackageOrigin {
    /// The project's node_modules, at this version.
    Project(String),
    /// The copy compiled into fwbench (the project has none).
    Bundled,
}

/// An app's project; see the module docs.
pub struct Project {
    /// The project directory (canonical): the nearest directory holding a
    /// package.json, or the app file's own.
    root: PathBuf,
    /// Directories app code may read: `root`, the node_modules directories
    /// of it and its ancestors, and the real directories of packages linked
    /// into them.
    readable: Vec<PathBuf>,
    resolver: resolve::Resolvers,
    env: Mutex<BTreeMap<String, String>>,
    /// Stripped TypeScript and detected exports, by path and source.
    derived: Mutex<HashMap<(PathBuf, u64), Arc<str>>>,
    /// Packages resolved so far, by name.
    packages: Mutex<BTreeMap<String, PackageOrigin>>,
    /// V8 code caches of its modules, on disk (off unless set).
    code_cache: code_cache::CodeCache,
}

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

/// The environment a served app finds in `process.env` besides what the
/// user adds: deployments run with NODE_ENV=production, and frameworks
/// (express's error pages, view caches) read it.
pub const DEFAULT_NODE_ENV: &str = "production";

impl Project {
    /// The project whose directory is `root` (canonicalized here), with
    /// `env` as `process.env`.
    pub fn new(root: &Path, env: BTreeMap<String, String>) -> anyhow::Result<Self> {
        let root = std::fs::canonicalize(root)
            .with_context(|| format!("cannot read the project directory {}", root.display()))?;
        // Every node_modules Node's resolution searches from the project
        // (its own and its ancestors': a workspace's hoisted packages), each
        // where it really is (a linked node_modules); the packages linked
        // into them (`npm link`), and the node_modules their own
        // dependencies resolve from.
        let mut readable = vec![root.clone()];
        let searched = node_modules_above(&root);
        for modules in &searched {
            for package in linked_packages(modules) {
                readable.extend(node_modules_above(&package));
                readable.push(package);
            }
        }
        readable.extend(searched);
        readable.sort();
        readable.dedup();
        Ok(Self {
            resolver: resolve::Resolvers::new(),
            root,
            readable,
            env: Mutex::new(env),
            derived: Mutex::default(),
            packages: Mutex::default(),
            code_cache: code_cache::CodeCache::default(),
        })
    }

    /// The same project, its modules' V8 code caches kept in `cache`.
    pub fn with_code_cache(self, cache: code_cache::CodeCache) -> Self {
        Self {
            code_cache: cache,
            ..self
        }
    }

    /// Its code cache.
    pub fn code_cache(&self) -> &code_cache::CodeCache {
        &self.code_cache
    }

    /// The project a file belongs to: the nearest directory above it that
    /// holds a package.json (as Node finds a file's package), else the
    /// file's own directory.
    pub fn root_of(file: &Path) -> PathBuf {
        let dir = file.parent().unwrap_or(Path::new("/"));
        dir.ancestors()
            .find(|dir| dir.join("package.json").is_file())
            .unwrap_or(dir)
            .to_path_buf()
    }

    /// The project directory (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `process.env`.
    pub fn env(&self) -> BTreeMap<String, String> {
        self.env.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Sets one variable of `process.env` (PORT, once the port is bound;
    /// before any runtime reads it), over any value it had.
    pub fn set_env(&self, key: &str, value: String) {
        self.env
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_owned(), value);
    }

    /// The packages used, for the banner: `express 5.1.0, hono (bundled)`.
    pub fn packages_note(&self) -> String {
        self.packages()
            .iter()
            .filter(|(name, _)| !name.starts_with('#'))
            .map(|(name, origin)| match origin {
                PackageOrigin::Project(version) => format!("{name} {version}"),
                PackageOrigin::Bundled => format!("{name} (bundled)"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The entry module of the project in `dir`, as `node DIR` finds it:
    /// package.json's `exports["."]` (through its name), else `main`, else
    /// index.js, with Node's extension and index probing.
    pub fn entry(&self) -> anyhow::Result<PathBuf> {
        let manifest = self.root.join("package.json");
        if manifest.is_file() {
            let text = std::fs::read_to_string(&manifest)
                .with_context(|| format!("cannot read {}", manifest.display()))?;
            let package: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("{} is not valid JSON", manifest.display()))?;
            if !package.is_object() {
                bail!("{} is not a JSON object", manifest.display());
            }
            let name = package.get("name").and_then(serde_json::Value::as_str);
            if let (Some(name), Some(_)) = (name, package.get("exports")) {
                if let Ok(path) = self.resolver.entry(&self.root, name) {
                    return Ok(path);
                }
            }
        }
        self.resolver.entry(&self.root, "./").map_err(|e| {
            anyhow::anyhow!(
                "{} has no entry module: package.json names none (main, exports) and there is no \
                 index.js ({e}); pass the entry file instead",
                self.root.display()
            )
        })
    }

    /// `path` if app code may read it: inside the project or a linked
    /// package once symlinks are resolved. A path that does not exist is
    /// judged by where it would be. The error is Node's kind (`EACCES:
    /// …`, `ENOENT: …`) naming the sandbox rule.
    pub fn readable(&self, path: &Path, syscall: &str) -> Result<PathBuf, String> {
        let lexical = deno_core::normalize_path(std::borrow::Cow::Borrowed(path)).into_owned();
        let real = match std::fs::canonicalize(&lexical) {
            Ok(real) => real,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if self.inside(&lexical) {
                    return Err(format!(
                        "ENOENT: no such file or directory, {syscall} '{}'",
                        path.display()
                    ));
                }
                lexical.clone()
            }
            Err(e) => return Err(format!("EIO: {e}, {syscall} '{}'", path.display())),
        };
        if self.inside(&real) {
            Ok(real)
        } else {
            Err(format!(
                "EACCES: permission denied, {syscall} '{}': fwbench's sandbox lets an app read only \
                 its project directory {} and its node_modules{}",
                path.display(),
                self.root.display(),
                if real != lexical {
                    format!(" (this path leads to {})", real.display())
                } else {
                    String::new()
                }
            ))
        }
    }

    fn inside(&self, path: &Path) -> bool {
        self.readable.iter().any(|root| path.starts_with(root))
    }

    /// Resolves `specifier` from the file `referrer` (an absolute path) as
    /// an `import` or a `require` would, recording which package it named.
    pub fn resolve(&self, specifier: &str, referrer: &Path, kind: ResolveKind) -> Result<Resolved, String> {
        let resolved = self.resolver.resolve(specifier, referrer, kind)?;
        // The app's own imports, not its dependencies' dependencies.
        let from_app = !referrer.components().any(|c| c.as_os_str() == "node_modules");
        if let (
            true,
            Resolved::File {
                package: Some((name, version)),
                ..
            },
        ) = (from_app, &resolved)
        {
            self.note_package(name, PackageOrigin::Project(version.clone()));
        }
        Ok(resolved)
    }

    /// fwbench's own copy of the package `specifier` names, for a project
    /// that has none (recorded for the banner); `None` when fwbench bundles
    /// no such package.
    pub fn bundled_copy(&self, specifier: &str) -> Option<deno_core::ModuleSpecifier> {
        let url = crate::engine::loader::bundled(specifier).ok()?;
        self.note_package(package_name(specifier), PackageOrigin::Bundled);
        Some(url)
    }

    /// Records that the app imported `name` from `origin` (the banner lists
    /// them).
    pub fn note_package(&self, name: &str, origin: PackageOrigin) {
        let mut packages = self.packages.lock().unwrap_or_else(|e| e.into_inner());
        packages.entry(name.to_owned()).or_insert(origin);
    }

    /// The packages used so far and where each came from.
    pub fn packages(&self) -> BTreeMap<String, PackageOrigin> {
        self.packages.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The format Node gives the file at `path` (see format.rs).
    pub fn format(&self, path: &Path) -> Format {
        format::of(path, |path| self.source(path).ok())
    }

    /// The JavaScript Node runs for the file at `path` (which must be
    /// readable): its text, with TypeScript's types replaced by blanks for
    /// `.ts`, `.mts` and `.cts` files. Errors name the file (and, for
    /// TypeScript Node refuses without a transform, what and where).
    pub fn source(&self, path: &Path) -> Result<Arc<str>, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("Cannot load '{}': {e}", path.display()))?;
        if !typescript::is_typescript(path) {
            return Ok(text.into());
        }
        self.derive(path, &text, || typescript::strip(path, &text))
    }

    /// Where the CommonJS module at `path` breaks the grammar, as
    /// `path:line:column: what` (see cjs_exports.rs).
    pub fn syntax_error(&self, path: &Path) -> Option<String> {
        let source = self.source(path).ok()?;
        let (line, column, what) = cjs_exports::syntax_error(&source)?;
        Some(format!("{}:{line}:{column}: {what}", path.display()))
    }

    /// The names a CommonJS module's ES importers find (Node's static
    /// detection), with those of the modules it re-exports, as one list.
    pub fn commonjs_exports(&self, path: &Path) -> Vec<String> {
        let mut names = std::collections::BTreeSet::new();
        let mut seen = std::collections::HashSet::new();
        let mut queue = vec![path.to_path_buf()];
        // Re-export chains are short; the bound keeps a cycle finite.
        while let Some(file) = queue.pop() {
            if !seen.insert(file.clone()) || seen.len() > 64 {
                continue;
            }
            let Ok(source) = self.source(&file) else { continue };
            let found = cjs_exports::detect(&source);
            names.extend(found.names);
            for specifier in found.reexports {
                if let Ok(Resolved::File { path, .. }) =
                    self.resolver.resolve(&specifier, &file, ResolveKind::Require)
                {
                    if matches!(self.format(&path), Format::CommonJs) {
                        queue.push(path);
                    }
                }
            }
        }
        names.remove("default");
        names.into_iter().collect()
    }

    /// Derived text for (`path`, `text`), computed once per content.
    fn derive(
        &self,
        path: &Path,
        text: &str,
        make: impl FnOnce() -> Result<String, String>,
    ) -> Result<Arc<str>, String> {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut hasher);
        let key = (path.to_path_buf(), hasher.finish());
        if let Some(done) = self.derived.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(done.clone());
        }
        let done: Arc<str> = make()?.into();
        self.derived
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, done.clone());
        Ok(done)
    }
}

/// The node_modules directories (real paths) in `dir` and its ancestors.
fn node_modules_above(dir: &Path) -> Vec<PathBuf> {
    dir.ancestors()
        .filter_map(|dir| std::fs::canonicalize(dir.join("node_modules")).ok())
        .filter(|modules| modules.is_dir())
        .collect()
}

/// The real directories of packages that are symlinks in `node_modules`
/// (`npm link`, a workspace): app code may read them as npm lays them out.
/// pnpm's links point inside node_modules/.pnpm, which is readable anyway.
fn linked_packages(node_modules: &Path) -> Vec<PathBuf> {
    let mut linked = Vec::new();
    let Ok(entries) = std::fs::read_dir(node_modules) else {
        return linked;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('@') {
            if let Ok(scoped) = std::fs::read_dir(&path) {
                for entry in scoped.flatten() {
                    linked.extend(link_target(&entry.path()));
                }
            }
        } else {
            linked.extend(link_target(&path));
        }
    }
    linked
}

fn link_target(path: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    std::fs::canonicalize(path).ok().filter(|real| real.is_dir())
}

/// Reads a `.env`-style file for `--env-file`: `KEY=VALUE` lines, `#`
/// comments, optional `export `, values optionally in single or double
/// quotes (double quotes expand `\n`), as Node's `--env-file` reads them.
pub fn read_env_file(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the env file {}", path.display()))?;
    let mut vars = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, value)) = line.split_once('=') else {
            bail!(
                "{}:{}: expected KEY=VALUE, got '{line}'",
                path.display(),
                number + 1
            );
        };
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            bail!(
                "{}:{}: '{key}' is not a variable name",
                path.display(),
                number + 1
            );
        }
        let value = value.trim();
        let value = if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            inner.replace("\\n", "\n")
        } else if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            inner.to_owned()
        } else {
            // An unquoted value ends at a comment.
            value.split(" #").next().unwrap_or(value).trim().to_owned()
        };
        vars.push((key.to_owned(), value));
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_read_as_node_reads_them() {
        let dir = std::env::temp_dir().join(format!("fwbench-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(".env");
        std::fs::write(
            &file,
            "# settings\nJWT_SECRET=abc # trailing\nexport MODE='a b'\nMULTI=\"one\\ntwo\"\n\nEMPTY=\n",
        )
        .unwrap();
        let vars = read_env_file(&file).unwrap();
        assert_eq!(
            vars,
            vec![
                ("JWT_SECRET".into(), "abc".into()),
                ("MODE".into(), "a b".into()),
                ("MULTI".into(), "one\ntwo".into()),
                ("EMPTY".into(), String::new()),
            ]
        );
        std::fs::write(&file, "NOT A LINE\n").unwrap();
        let err = read_env_file(&file).unwrap_err().to_string();
        assert!(err.contains(":1: expected KEY=VALUE"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_stay_inside_the_project() {
        let dir = std::env::temp_dir().join(format!("fwbench-sandbox-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("node_modules")).unwrap();
        std::fs::write(dir.join("a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", dir.join("escape")).unwrap();
        let project = Project::new(&dir, BTreeMap::new()).unwrap();
        let root = project.root().to_path_buf();
        assert_eq!(
            project.readable(&dir.join("a.txt"), "open").unwrap(),
            root.join("a.txt")
        );
        let missing = project.readable(&dir.join("nope.txt"), "open").unwrap_err();
        assert!(missing.starts_with("ENOENT"), "{missing}");
        let outside = project.readable(Path::new("/etc/hostname"), "open").unwrap_err();
        assert!(
            outside.starts_with("EACCES") && outside.contains("sandbox"),
            "{outside}"
        );
        let escape = project.readable(&dir.join("escape"), "open").unwrap_err();
        assert!(escape.contains("leads to /etc/hostname"), "{escape}");
        let dotdot = project
            .readable(&dir.join("../../etc/hostname"), "open")
            .unwrap_err();
        assert!(dotdot.starts_with("EACCES"), "{dotdot}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
