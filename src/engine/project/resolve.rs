//! Node's module resolution, by oxc_resolver (the Rust port of webpack's
//! enhanced-resolve, which implements Node's algorithm): package.json
//! `exports` and `imports` with Node's conditions, `main`, directory
//! indexes, extension probing for `require`, symlinked packages followed to
//! their real paths (npm, pnpm, `npm link`). Node's built-in names win over
//! packages of the same name, as in Node.

use std::path::{Path, PathBuf};

use oxc_resolver::{ResolveError, ResolveOptions, Resolver};

/// Whether a specifier is resolved for `import` (ES modules) or `require`
/// (CommonJS): they take different package.json conditions, and only
/// `require` probes extensions and directory indexes for a relative path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolveKind {
    /// `import`, `import()`, `export … from`.
    Import,
    /// `require()`, `require.resolve()`.
    Require,
}

/// What a specifier names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A Node built-in (`fs`, `fs/promises`; without `node:`).
    Builtin(String),
    /// A file (its real path), with the package's name and version when
    /// the specifier named a package.
    File {
        /// The file's real path.
        path: PathBuf,
        /// `(name, version)` of the package a bare specifier named.
        package: Option<(String, String)>,
    },
    /// A bare specifier no node_modules above the referrer has: the caller
    /// may offer a copy of its own (fwbench's bundled frameworks).
    NotInProject,
}

/// The two resolvers, sharing one cache of the file system.
pub struct Resolvers {
    import: Resolver,
    require: Resolver,
}

fn options(conditions: &[&str], fully_specified: bool) -> ResolveOptions {
    ResolveOptions {
        condition_names: conditions.iter().map(|c| (*c).to_owned()).collect(),
        extensions: [".js", ".json", ".node"]
            .iter()
            .map(|e| (*e).to_owned())
            .collect(),
        main_fields: vec!["main".to_owned()],
        main_files: vec!["index".to_owned()],
        exports_fields: vec![vec!["exports".to_owned()]],
        imports_fields: vec![vec!["imports".to_owned()]],
        // Node ignores browser fields.
        alias_fields: vec![],
        builtin_modules: true,
        symlinks: true,
        fully_specified,
        ..ResolveOptions::default()
    }
}

impl Resolvers {
    /// Resolvers with Node's conditions: `node`, `import` or `require`,
    /// `module-sync` (Node 22+ loads a synchronous ES module either way),
    /// `default`.
    pub fn new() -> Self {
        let import = Resolver::new(options(&["node", "import", "module-sync", "default"], true));
        let require =
            import.clone_with_options(options(&["node", "require", "module-sync", "default"], false));
        Self { import, require }
    }

    /// The file `specifier` names from `dir` for a project's entry point
    /// (`./` or the package's own name), as `require` would find it.
    pub fn entry(&self, dir: &Path, specifier: &str) -> Result<PathBuf, String> {
        match self.require.resolve(dir, specifier) {
            Ok(resolution) => Ok(resolution.into_path_buf()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Resolves `specifier` as imported or required by the file `referrer`.
    pub fn resolve(&self, specifier: &str, referrer: &Path, kind: ResolveKind) -> Result<Resolved, String> {
        if let Some(builtin) = specifier.strip_prefix("node:") {
            return Ok(Resolved::Builtin(builtin.to_owned()));
        }
        let dir = referrer.parent().unwrap_or(Path::new("/"));
        let resolver = match kind {
            ResolveKind::Import => &self.import,
            ResolveKind::Require => &self.require,
        };
        let bare = is_bare(specifier);
        match resolver.resolve(dir, specifier) {
            Ok(resolution) => {
                let package = if bare && !specifier.starts_with('#') {
                    resolution.package_json().and_then(|json| {
                        Some((json.name()?.to_owned(), json.version().unwrap_or("?").to_owned()))
                    })
                } else {
                    None
                };
                Ok(Resolved::File {
                    path: resolution.into_path_buf(),
                    package,
                })
            }
            Err(ResolveError::Builtin { resolved, .. }) => Ok(Resolved::Builtin(
                resolved.strip_prefix("node:").unwrap_or(&resolved).to_owned(),
            )),
            Err(ResolveError::NotFound(_))
                if bare && !specifier.starts_with('#') && !package_installed(dir, specifier) =>
            {
                Ok(Resolved::NotInProject)
            }
            Err(e) => Err(describe(specifier, kind, e)),
        }
    }
}

/// Whether a package of `specifier`'s name is installed in a node_modules
/// above `dir`: then a failed resolution is the package's fault (a subpath
/// it does not export), not its absence.
fn package_installed(dir: &Path, specifier: &str) -> bool {
    let name = package_name(specifier);
    dir.ancestors()
        .any(|dir| dir.join("node_modules").join(name).join("package.json").is_file())
}

/// `@scope/name` or `name` of a bare specifier (`lodash/fp` → `lodash`).
pub fn package_name(specifier: &str) -> &str {
    let mut parts = specifier.splitn(3, '/');
    let first = parts.next().unwrap_or_default();
    if first.starts_with('@') {
        match parts.next() {
            Some(second) => &specifier[..first.len() + 1 + second.len()],
            None => specifier,
        }
    } else {
        first
    }
}

fn is_bare(specifier: &str) -> bool {
    !(specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier.starts_with('/')
        || specifier == "."
        || specifier == ".."
        || specifier.starts_with("file:"))
}

/// Node's wording for a resolution that failed.
fn describe(specifier: &str, kind: ResolveKind, error: ResolveError) -> String {
    match error {
        ResolveError::NotFound(_) if kind == ResolveKind::Import && !is_bare(specifier) => {
            let hint = if Path::new(specifier).extension().is_none() {
                " (an ES module's relative import names the file with its extension, as in Node: './x.js')"
            } else {
                ""
            };
            format!("Cannot find module '{specifier}'{hint}")
        }
        ResolveError::NotFound(_) => format!("Cannot find module '{specifier}'"),
        ResolveError::PackagePathNotExported {
            subpath,
            package_json_path,
            ..
        } => format!(
            "Package subpath '{subpath}' is not defined by \"exports\" in {}",
            package_json_path.display()
        ),
        ResolveError::Json(json) => {
            format!("Invalid package config {}: {}", json.path.display(), json.message)
        }
        other => format!("Cannot resolve '{specifier}': {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_keep_their_scope() {
        assert_eq!(package_name("lodash/fp"), "lodash");
        assert_eq!(package_name("@hono/node-server/vercel"), "@hono/node-server");
        assert_eq!(package_name("@scope"), "@scope");
        assert_eq!(package_name("ms"), "ms");
    }

    /// A tree under a temporary directory: `(path, contents)` pairs.
    fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fwbench-resolve-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::canonicalize(dir).unwrap()
    }

    #[test]
    fn conditions_differ_between_import_and_require() {
        let dir = tree(
            "conditions",
            &[
                ("app.js", ""),
                (
                    "node_modules/dual/package.json",
                    r#"{"name":"dual","version":"1.2.3","exports":{".":{"import":"./m.mjs","require":"./c.cjs"},"./feature":"./f.js"}}"#,
                ),
                ("node_modules/dual/m.mjs", ""),
                ("node_modules/dual/c.cjs", ""),
                ("node_modules/dual/f.js", ""),
                ("node_modules/dual/hidden.js", ""),
                ("lib/index.js", ""),
            ],
        );
        let resolvers = Resolvers::new();
        let app = dir.join("app.js");
        let file = |specifier, kind| match resolvers.resolve(specifier, &app, kind) {
            Ok(Resolved::File { path, package }) => (path, package),
            other => panic!("{specifier}: {other:?}"),
        };
        let (path, package) = file("dual", ResolveKind::Import);
        assert_eq!(path, dir.join("node_modules/dual/m.mjs"));
        assert_eq!(package, Some(("dual".into(), "1.2.3".into())));
        assert_eq!(
            file("dual", ResolveKind::Require).0,
            dir.join("node_modules/dual/c.cjs")
        );
        assert_eq!(
            file("dual/feature", ResolveKind::Import).0,
            dir.join("node_modules/dual/f.js")
        );
        // require probes directory indexes; import does not.
        assert_eq!(file("./lib", ResolveKind::Require).0, dir.join("lib/index.js"));
        let err = resolvers.resolve("./lib", &app, ResolveKind::Import).unwrap_err();
        assert!(err.contains("Cannot find module './lib'"), "{err}");
        let hidden = resolvers
            .resolve("dual/hidden.js", &app, ResolveKind::Require)
            .unwrap_err();
        assert!(hidden.contains("not defined by \"exports\""), "{hidden}");
        assert_eq!(
            resolvers.resolve("fs", &app, ResolveKind::Require),
            Ok(Resolved::Builtin("fs".into()))
        );
        assert_eq!(
            resolvers.resolve("node:fs/promises", &app, ResolveKind::Import),
            Ok(Resolved::Builtin("fs/promises".into()))
        );
        assert_eq!(
            resolvers.resolve("hono", &app, ResolveKind::Import),
            Ok(Resolved::NotInProject)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
