//! V8 code caches of a project's modules, kept on disk, so that the second
//! start of an app compiles nothing V8 has compiled before: ES modules
//! (through the module loader) and CommonJS wrappers (through
//! `compileFunction`) alike.
//!
//! A cache is a file under `~/.cache/fwbench/code-cache/<engine>/` named by
//! the hash of the module's URL and of its source, so an edited file gets a
//! new cache and an old one is never read for it. V8 checks a cache itself
//! before using it (its version, flags and the source's hash) and rejects a
//! stale one, which is then written again. Writes go to a temporary file
//! renamed into place, so a reader never sees half a cache; every error
//! (a read-only home, a full disk) only means no cache. `FWBENCH_CODE_CACHE=0`
//! turns it off.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The cache directory of this engine, and what it served.
#[derive(Debug, Default)]
pub struct CodeCache {
    dir: Option<PathBuf>,
    /// Compilations a cache was found for.
    pub hits: AtomicUsize,
    /// Compilations without one (the first start, an edited file).
    pub misses: AtomicUsize,
}

/// A stable 64-bit hash (std's SipHash with its fixed keys: the same in
/// every run of one binary, which is all the cache needs).
pub fn hash_of(value: impl Hash) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

impl CodeCache {
    /// The cache of `engine` (its name and version) under the user's cache
    /// directory; off when `FWBENCH_CODE_CACHE=0` or there is no home.
    pub fn for_engine(engine: &str) -> Self {
        let off = std::env::var_os("FWBENCH_CODE_CACHE").is_some_and(|v| v == "0");
        let base = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")));
        let engine: String = engine
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        Self {
            dir: base.filter(|_| !off).map(|base| {
                base.join("fwbench/code-cache")
                    .join(format!("{engine}-{}", env!("CARGO_PKG_VERSION")))
            }),
            ..Self::default()
        }
    }

    /// A cache in `dir` (tests).
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            dir: Some(dir.to_path_buf()),
            ..Self::default()
        }
    }

    /// Whether caches are kept at all.
    pub fn is_on(&self) -> bool {
        self.dir.is_some()
    }

    fn file(&self, url: &str, source_hash: u64) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(format!("{:016x}-{source_hash:016x}.v8cache", hash_of(url))))
    }

    /// The cache for `url` with source hash `source_hash`, if one was kept;
    /// counts a hit or a miss.
    pub fn get(&self, url: &str, source_hash: u64) -> Option<Vec<u8>> {
        let found = self
            .file(url, source_hash)
            .and_then(|file| std::fs::read(file).ok());
        let counter = if found.is_some() { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps `data`, V8's cache for `url` with source hash `source_hash`.
    pub fn put(&self, url: &str, source_hash: u64, data: &[u8]) {
        let Some(file) = self.file(url, source_hash) else {
            return;
        };
        let Some(dir) = file.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let temporary = file.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&temporary, data).is_ok() && std::fs::rename(&temporary, &file).is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
    }

    /// `hits/total` of this process so far, for the banner (`None` when
    /// nothing was compiled or the cache is off).
    pub fn note(&self) -> Option<String> {
        self.dir.as_ref()?;
        let hits = self.hits.load(Ordering::Relaxed);
        let total = hits + self.misses.load(Ordering::Relaxed);
        (total > 0).then(|| format!("code cache {hits}/{total}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_cache_is_found_for_the_same_source_only() {
        let dir = std::env::temp_dir().join(format!("fwbench-code-cache-{}", std::process::id()));
        let cache = CodeCache::in_dir(&dir);
        assert_eq!(cache.get("file:///a.js", 1), None);
        cache.put("file:///a.js", 1, b"compiled");
        assert_eq!(cache.get("file:///a.js", 1).as_deref(), Some(&b"compiled"[..]));
        assert_eq!(cache.get("file:///a.js", 2), None, "an edited source has none");
        assert_eq!(cache.get("file:///b.js", 1), None, "nor another file");
        assert_eq!(cache.note().as_deref(), Some("code cache 1/4"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
