//! The reader: a crate's files and the arrows between them (file A takes
//! names from file B), from their text as source.rs reads it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::rust_files;
use super::source::{
    blank_comments_and_strings, blank_tests, defines, inline_modules, paths_in, re_exports,
    test_module_declarations,
};

/// One source file: its path under src/, its module path, and its code with
/// comments, strings and test modules blanked out (offsets kept).
pub(super) struct SourceFile {
    pub(super) path: PathBuf,
    module: Vec<String>,
    code: String,
    /// The inline modules (`mod timerfd { … }`): their name and byte span,
    /// which `super::` inside them climbs out of.
    inline: Vec<(String, std::ops::Range<usize>)>,
}

impl SourceFile {
    /// The module of src/ this file belongs to (`report` for
    /// src/report/summary.rs; `main` for src/main.rs; empty for lib.rs).
    pub(super) fn top_module(&self) -> &str {
        if self.path == Path::new("main.rs") {
            return "main";
        }
        self.module.first().map(String::as_str).unwrap_or("")
    }

    fn is_binary_root(&self) -> bool {
        self.path == Path::new("main.rs")
    }
}

/// The files of one crate and the arrows between them.
pub(super) struct House {
    pub(super) files: Vec<SourceFile>,
    by_module: HashMap<Vec<String>, usize>,
}

impl House {
    pub(super) fn read(src: &Path) -> House {
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        let sources: Vec<(String, String)> = paths
            .iter()
            .map(|p| {
                let relative = p
                    .strip_prefix(src)
                    .expect("under src/")
                    .to_string_lossy()
                    .into_owned();
                let text =
                    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
                (relative, text)
            })
            .collect();
        House::from_sources(sources.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect())
    }

    fn from_sources(sources: Vec<(&str, &str)>) -> House {
        let mut files: Vec<SourceFile> = sources
            .iter()
            .map(|(path, text)| {
                let code = blank_tests(&blank_comments_and_strings(text));
                let inline = inline_modules(&code);
                SourceFile {
                    path: PathBuf::from(path),
                    module: module_of(path),
                    code,
                    inline,
                }
            })
            .collect();
        // A file declared `#[cfg(test)] mod x;` is test code: not a room.
        let test_files: BTreeSet<Vec<String>> = sources
            .iter()
            .zip(&files)
            .flat_map(|((_, text), file)| {
                test_module_declarations(text).into_iter().map(move |name| {
                    let mut module = file.module.clone();
                    module.push(name);
                    module
                })
            })
            .collect();
        files.retain(|f| !test_files.contains(&f.module) || f.is_binary_root());
        let by_module = files
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.is_binary_root())
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        House { files, by_module }
    }

    /// Every arrow `(from, to, names)`: file `from` takes `names` from file
    /// `to`. Sorted, one per pair.
    pub(super) fn arrows(&self) -> Vec<(usize, usize, Vec<String>)> {
        let mut arrows: BTreeMap<(usize, usize), BTreeSet<String>> = BTreeMap::new();
        for (from, file) in self.files.iter().enumerate() {
            for (at, path) in paths_in(&file.code) {
                let Some(absolute) = self.absolute(from, at, &path) else {
                    continue;
                };
                let (to, _) = self.resolve(&absolute, 0);
                if let Some(to) = to.filter(|&to| to != from) {
                    arrows
                        .entry((from, to))
                        .or_default()
                        .insert(path.last().cloned().unwrap_or_default());
                }
            }
        }
        arrows
            .into_iter()
            .map(|((from, to), names)| (from, to, names.into_iter().collect()))
            .collect()
    }

    /// `path` as written at byte `at` of file `from`, from the crate root;
    /// `None` for another crate's path.
    fn absolute(&self, from: usize, at: usize, path: &[String]) -> Option<Vec<String>> {
        let file = &self.files[from];
        let mut base = file.module.clone();
        base.extend(
            file.inline
                .iter()
                .filter(|(_, span)| span.contains(&at))
                .map(|(name, _)| name.clone()),
        );
        let mut rest = path;
        let first = rest.first()?;
        let mut absolute = match first.as_str() {
            "crate" if !file.is_binary_root() => Vec::new(),
            "fwbench" if file.is_binary_root() => Vec::new(),
            "self" => base,
            "super" => {
                let mut up = base;
                while rest.first().is_some_and(|s| s == "super") {
                    up.pop()?;
                    rest = &rest[1..];
                }
                up.extend(rest.iter().cloned());
                return Some(up);
            }
            // A child module named without `self::` (2018 paths).
            name => {
                let mut child = base.clone();
                child.push(name.to_string());
                if file.is_binary_root() || !self.by_module.contains_key(&child) {
                    return None;
                }
                return Some(base.into_iter().chain(rest.iter().cloned()).collect());
            }
        };
        rest = &rest[1..];
        absolute.extend(rest.iter().cloned());
        Some(absolute)
    }

    /// The file that defines what `path` names, and the name; follows `pub
    /// use` re-exports.
    fn resolve(&self, path: &[String], depth: usize) -> (Option<usize>, String) {
        let mut module: Vec<String> = Vec::new();
        let mut rest = path;
        while let Some(segment) = rest.first() {
            let mut deeper = module.clone();
            deeper.push(segment.clone());
            if !self.by_module.contains_key(&deeper) {
                break;
            }
            module = deeper;
            rest = &rest[1..];
        }
        let Some(&file) = self.by_module.get(&module) else {
            return (None, String::new());
        };
        let Some(name) = rest.first() else {
            return (Some(file), module.last().cloned().unwrap_or_default());
        };
        if depth < 8 {
            for (exported, target) in re_exports(&self.files[file].code) {
                let matches = exported == *name || exported == "*";
                if !matches {
                    continue;
                }
                let Some(mut absolute) = self.absolute(file, 0, &target) else {
                    continue;
                };
                if exported == "*" {
                    absolute.push(name.clone());
                }
                let (to, _) = self.resolve(&absolute, depth + 1);
                if exported != "*" || to.is_some_and(|to| defines(&self.files[to].code, name)) {
                    return (to, name.clone());
                }
            }
        }
        (Some(file), name.clone())
    }

    /// Every circle of files, as "a -> b (names) -> a (names)".
    pub(super) fn circles(&self) -> Vec<String> {
        let arrows = self.arrows();
        let mut next: HashMap<usize, Vec<(usize, &Vec<String>)>> = HashMap::new();
        for (from, to, names) in &arrows {
            next.entry(*from).or_default().push((*to, names));
        }
        let mut circles = Vec::new();
        let mut seen: BTreeSet<BTreeSet<usize>> = BTreeSet::new();
        for start in 0..self.files.len() {
            // The shortest way back to `start`, breadth first.
            let mut came_from: HashMap<usize, usize> = HashMap::new();
            let mut queue = std::collections::VecDeque::from([start]);
            let mut closed = None;
            while let Some(at) = queue.pop_front() {
                for &(to, _) in next.get(&at).into_iter().flatten() {
                    if to == start {
                        closed = Some(at);
                        break;
                    }
                    if to != start && !came_from.contains_key(&to) {
                        came_from.insert(to, at);
                        queue.push_back(to);
                    }
                }
                if closed.is_some() {
                    break;
                }
            }
            let Some(mut at) = closed else { continue };
            let mut ring = vec![at];
            while let Some(&before) = came_from.get(&at) {
                ring.push(before);
                at = before;
            }
            if *ring.last().expect("ring") != start {
                ring.push(start);
            }
            ring.reverse();
            if !seen.insert(ring.iter().copied().collect()) {
                continue;
            }
            let mut text = self.files[start].path.display().to_string();
            for pair in ring.iter().chain([&start]).collect::<Vec<_>>().windows(2) {
                let names = next[pair[0]]
                    .iter()
                    .find(|(to, _)| to == pair[1])
                    .map(|(_, n)| n.join(", "));
                text += &format!(
                    " -> {} ({})",
                    self.files[*pair[1]].path.display(),
                    names.unwrap_or_default()
                );
            }
            circles.push(text);
        }
        circles
    }
}

/// `report/anatomy.rs` → `[report, anatomy]`; `report/mod.rs` → `[report]`.
fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The reader itself, on a made-up crate: it must see the circle that a
/// `use` tree, a `super::` path and a re-export through mod.rs close.
#[test]
fn the_reader_sees_a_circle_through_a_re_export() {
    let house = House::from_sources(vec![
        ("lib.rs", "pub mod report;\n"),
        (
            "report/mod.rs",
            "mod model;\nmod summary;\npub use model::{Row, Kind as RowKind};\n",
        ),
        (
            "report/model.rs",
            "// use crate::nothing;\nuse super::summary::median;\npub struct Row;\npub enum Kind {}\n",
        ),
        (
            "report/summary.rs",
            "use crate::report::RowKind;\npub fn median() {}\n",
        ),
    ]);
    assert_eq!(
        house.circles(),
        vec!["report/model.rs -> report/summary.rs (median) -> report/model.rs (RowKind)"]
    );
}

/// Test modules, comments and strings are no arrows; a path in code is.
#[test]
fn the_reader_skips_tests_comments_and_strings() {
    let house = House::from_sources(vec![
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        ("a.rs", "/* crate::b::X */ const S: &str = \"crate::b::X\";\n#[cfg(test)]\nmod tests { use crate::b::X; }\n"),
        ("b.rs", "pub struct X;\nfn f() -> crate::a::Y { todo!() }\n"),
    ]);
    let arrows: Vec<(String, String)> = house
        .arrows()
        .into_iter()
        .map(|(from, to, _)| {
            (
                house.files[from].path.display().to_string(),
                house.files[to].path.display().to_string(),
            )
        })
        .collect();
    assert_eq!(arrows, vec![("b.rs".to_string(), "a.rs".to_string())]);
}
