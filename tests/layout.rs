//! The house's layering, checked: every module of src/ sits on a floor and
//! imports only from floors below its own, no two files import each other
//! (directly or round a circle), and no source file grows past
//! [`MAX_LINES`]. docs/ARCHITECTURE.md's table of floors mirrors
//! [`FLOORS`], and a test holds the two equal.
//!
//! Imports are read from the text: `use` trees and every `crate::`,
//! `super::` and `self::` path in code (comments and strings blanked),
//! followed through `pub use` re-exports to the file that defines the
//! name, so `use crate::report::Row` is an arrow to report/model.rs, not to
//! report/mod.rs. Test code (`#[cfg(test)]` modules, inline or in their own
//! file) is left out: a test may reach anything it checks.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The floors of src/, from the ground up: a module may import (`use
/// crate::…`) only from modules on lower floors. A module is a top-level
/// file or folder of src/ (`report` is src/report/ and all inside it);
/// `main` is the binary's src/main.rs. docs/ARCHITECTURE.md's "Modules and
/// their floors" shows the same list.
const FLOORS: &[(&str, u32)] = &[
    ("units", 0),
    ("capped_read", 0),
    ("thread_cpu", 0),
    ("header_sets", 0),
    ("outcome", 0),
    ("process_start", 0),
    ("framework_list", 0),
    ("engine", 1),
    ("frameworks", 2),
    ("adapter", 2),
    ("load", 2),
    ("scenario", 3),
    ("native", 3),
    ("k8s", 3),
    ("report", 3),
    ("cli", 4),
    ("in_runtime", 4),
    ("bench", 5),
    ("serve", 5),
    ("jstest", 5),
    ("sweep", 6),
    ("main", 7),
];

/// No source file of src/ or build/ (nor build.rs) is longer than this: past
/// it a file holds more than one concern.
const MAX_LINES: usize = 600;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_import_circle_between_files() {
    let house = House::read(&repo().join("src"));
    let circles = house.circles();
    assert!(
        circles.is_empty(),
        "import circles between files of src/ (each file imports the next, round to the first):\n{}",
        circles.join("\n")
    );
}

#[test]
fn modules_import_only_from_lower_floors() {
    let house = House::read(&repo().join("src"));
    let floors: HashMap<&str, u32> = FLOORS.iter().copied().collect();
    let mut unplaced: BTreeSet<String> = BTreeSet::new();
    let mut upward = Vec::new();
    for (from, to, names) in house.arrows() {
        let (a, b) = (house.files[from].top_module(), house.files[to].top_module());
        if a == b || a.is_empty() {
            continue;
        }
        let (Some(&floor_a), Some(&floor_b)) = (floors.get(a), floors.get(b)) else {
            unplaced.extend(
                [a, b]
                    .into_iter()
                    .filter(|m| !floors.contains_key(m))
                    .map(String::from),
            );
            continue;
        };
        if floor_b >= floor_a {
            upward.push(format!(
                "{} (floor {floor_a}) -> {} (floor {floor_b}): {}",
                house.files[from].path.display(),
                house.files[to].path.display(),
                names.join(", ")
            ));
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules on no floor (add them to FLOORS and ARCHITECTURE.md): {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports from a module's own floor or above (move the shared part down a floor):\n{}",
        upward.join("\n")
    );
}

#[test]
fn every_module_has_a_floor_and_every_floor_a_module() {
    let house = House::read(&repo().join("src"));
    let modules: BTreeSet<&str> = house
        .files
        .iter()
        .map(|f| f.top_module())
        .filter(|m| !m.is_empty())
        .collect();
    let listed: BTreeSet<&str> = FLOORS.iter().map(|(m, _)| *m).collect();
    assert_eq!(modules, listed, "FLOORS must list exactly the modules of src/");
}

#[test]
fn architecture_doc_mirrors_the_floors() {
    let doc = std::fs::read_to_string(repo().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let mut shown = BTreeSet::new();
    for line in doc.lines() {
        // | 3 | src/report/ | what it is | imports from |
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(floor), Some(module)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(floor) = floor.parse::<u32>() else { continue };
        let Some(path) = module.strip_prefix("src/") else {
            continue;
        };
        let name = path.trim_end_matches('/').trim_end_matches(".rs");
        shown.insert((name.to_string(), floor));
    }
    let listed: BTreeSet<(String, u32)> = FLOORS.iter().map(|(m, f)| (m.to_string(), *f)).collect();
    assert_eq!(
        shown, listed,
        "docs/ARCHITECTURE.md's floors table must show FLOORS as they are"
    );
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    rust_files(&repo().join("build"), &mut files);
    files.push(repo().join("build.rs"));
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).ok()?.lines().count();
            (lines > MAX_LINES).then(|| {
                format!(
                    "{} ({lines} lines)",
                    path.strip_prefix(repo()).unwrap_or(path).display()
                )
            })
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them by concern): {long:?}"
    );
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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// One source file: its path under src/, its module path, and its code with
/// comments, strings and test modules blanked out (offsets kept).
struct SourceFile {
    path: PathBuf,
    module: Vec<String>,
    code: String,
    /// The inline modules (`mod timerfd { … }`): their name and byte span,
    /// which `super::` inside them climbs out of.
    inline: Vec<(String, std::ops::Range<usize>)>,
}

impl SourceFile {
    /// The module of src/ this file belongs to (`report` for
    /// src/report/summary.rs; `main` for src/main.rs; empty for lib.rs).
    fn top_module(&self) -> &str {
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
struct House {
    files: Vec<SourceFile>,
    by_module: HashMap<Vec<String>, usize>,
}

impl House {
    fn read(src: &Path) -> House {
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
    fn arrows(&self) -> Vec<(usize, usize, Vec<String>)> {
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
    fn circles(&self) -> Vec<String> {
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

/// The source with comments and string and char literals turned to spaces
/// (newlines kept), so that only code is read.
fn blank_comments_and_strings(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, range: std::ops::Range<usize>| {
        for b in &mut out[range] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| i + n);
            blank(&mut out, i..end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < bytes.len() {
                if bytes[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if bytes[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i..j);
            i = j;
        } else if rest.starts_with(b"r\"")
            || rest.starts_with(b"r#")
            || rest.starts_with(b"br\"")
            || rest.starts_with(b"br#")
        {
            let start = i + if rest[0] == b'b' { 2 } else { 1 };
            let hashes = bytes[start..].iter().take_while(|&&b| b == b'#').count();
            if bytes.get(start + hashes) != Some(&b'"') || (i > 0 && is_ident(bytes[i - 1])) {
                i += 1;
                continue;
            }
            let closing: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let body = start + hashes + 1;
            let end = bytes[body..]
                .windows(closing.len())
                .position(|w| w == closing)
                .map_or(bytes.len(), |n| body + n + closing.len());
            blank(&mut out, i..end);
            i = end;
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i..(j + 1).min(bytes.len()));
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            let end = if rest.get(1) == Some(&b'\\') {
                rest.iter()
                    .skip(2)
                    .position(|&b| b == b'\'')
                    .map(|n| i + 2 + n + 1)
            } else {
                let width = std::str::from_utf8(&rest[1..rest.len().min(5)]).ok().or_else(|| {
                    (2..5)
                        .rev()
                        .find_map(|n| std::str::from_utf8(&rest[1..rest.len().min(n)]).ok())
                });
                width.and_then(|s| s.chars().next()).and_then(|c| {
                    let after = 1 + c.len_utf8();
                    (rest.get(after) == Some(&b'\'')).then_some(i + after + 1)
                })
            };
            match end {
                Some(end) => {
                    blank(&mut out, i..end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Byte offset of the `}` closing the `{` at `open`.
fn closing_brace(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, b) in code.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The code with every `#[cfg(test)]` inline module blanked.
fn blank_tests(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let at = from + found;
        from = at + 1;
        let after = code[at + 12..].trim_start();
        let Some(header) = after.strip_prefix("mod ") else {
            continue;
        };
        let Some(brace) = header.find(['{', ';']) else {
            continue;
        };
        if header.as_bytes()[brace] != b'{' {
            continue;
        }
        let open = code.len() - header.len() + brace;
        let close = closing_brace(code, open);
        out.replace_range(
            at..=close.min(code.len() - 1),
            &" ".repeat(close.min(code.len() - 1) + 1 - at),
        );
    }
    out
}

/// Names of the modules declared `#[cfg(test)] mod name;` (in a file of
/// their own).
fn test_module_declarations(text: &str) -> Vec<String> {
    let code = blank_comments_and_strings(text);
    let mut names = Vec::new();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let after = code[at + 12..].trim_start();
        let Some(header) = after
            .strip_prefix("mod ")
            .or_else(|| after.strip_prefix("pub mod "))
        else {
            continue;
        };
        let name: String = header
            .chars()
            .take_while(|&c| c.is_alphanumeric() || c == '_')
            .collect();
        if header[name.len()..].trim_start().starts_with(';') {
            names.push(name);
        }
    }
    names
}

/// Inline modules (`mod name { … }`) and their spans.
fn inline_modules(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut modules = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && is_ident(code.as_bytes()[at - 1]) {
            continue;
        }
        let header = &code[at + 4..];
        let name: String = header
            .chars()
            .take_while(|&c| c.is_alphanumeric() || c == '_')
            .collect();
        if name.is_empty() || !header[name.len()..].trim_start().starts_with('{') {
            continue;
        }
        let open = at + 4 + name.len() + header[name.len()..].find('{').expect("checked");
        modules.push((name, open..closing_brace(code, open)));
    }
    modules
}

/// Every path in the code, with its offset: each leaf of each `use` tree,
/// and each `crate::`, `super::` or `self::` path outside them.
fn paths_in(code: &str) -> Vec<(usize, Vec<String>)> {
    let statements: Vec<std::ops::Range<usize>> = use_statements(code)
        .iter()
        .map(|(at, tree)| *at..*at + 4 + tree.len())
        .collect();
    let mut paths = Vec::new();
    for (at, tree) in use_statements(code) {
        let public = is_public(code, at);
        for (path, name) in expand_use_tree(tree) {
            // A re-export alone is a door for others, not a use: it is an
            // arrow only when the file's own code names what it passes on.
            if public && !named_outside(code, &statements, &name) {
                continue;
            }
            paths.push((at, path));
        }
    }
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b':' || bytes[at - 1] == b'$') {
                continue;
            }
            if statements.iter().any(|s| s.contains(&at)) {
                continue;
            }
            // The path runs while identifiers are joined by `::`.
            let mut chain = Vec::new();
            let mut rest = &code[at..];
            loop {
                let word: String = rest
                    .chars()
                    .take_while(|&c| c.is_alphanumeric() || c == '_')
                    .collect();
                if word.is_empty() {
                    break;
                }
                rest = &rest[word.len()..];
                chain.push(word);
                match rest.strip_prefix("::") {
                    Some(after) => rest = after,
                    None => break,
                }
            }
            paths.push((at, chain));
        }
    }
    paths
}

/// Each `use …;` statement: its offset and its tree's text.
fn use_statements(code: &str) -> Vec<(usize, &str)> {
    let bytes = code.as_bytes();
    let mut statements = Vec::new();
    for (at, _) in code.match_indices("use ") {
        if at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b':') {
            continue;
        }
        let Some(end) = code[at..].find(';') else { continue };
        statements.push((at, &code[at + 4..at + end]));
    }
    statements
}

/// The `pub use` re-exports of a file: exported name (`*` for a glob) and
/// the path it stands for.
fn re_exports(code: &str) -> Vec<(String, Vec<String>)> {
    let mut exports = Vec::new();
    for (at, tree) in use_statements(code) {
        if is_public(code, at) {
            for (path, name) in expand_use_tree(tree) {
                exports.push((name, path));
            }
        }
    }
    exports
}

/// Whether the `use` at `at` is `pub` or `pub(…)`.
fn is_public(code: &str, at: usize) -> bool {
    let before = code[..at].trim_end();
    before.ends_with("pub")
        || before.ends_with(')') && before.trim_end_matches(|c| c != '(').ends_with("pub(")
}

/// Whether `name` appears as a word in the code outside the `use`
/// statements.
fn named_outside(code: &str, statements: &[std::ops::Range<usize>], name: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(name).any(|(at, _)| {
        let end = at + name.len();
        let word_starts = at == 0 || !is_ident(bytes[at - 1]);
        let word_ends = !bytes.get(end).is_some_and(|&b| is_ident(b));
        word_starts && word_ends && !statements.iter().any(|s| s.contains(&at))
    })
}

/// Whether a file defines a public item `name`.
fn defines(code: &str, name: &str) -> bool {
    ["struct", "enum", "fn", "type", "trait", "const", "static", "mod"]
        .iter()
        .any(|kind| {
            code.match_indices(&format!("{kind} {name}")).any(|(at, found)| {
                !code
                    .as_bytes()
                    .get(at + found.len())
                    .is_some_and(|&b| is_ident(b))
            })
        })
}

/// A `use` tree's leaves: each full path and the name it binds (`*` for a
/// glob; `self` in a group binds the group's module).
fn expand_use_tree(tree: &str) -> Vec<(Vec<String>, String)> {
    let mut tokens: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in tree.replace("::", " :: ").chars() {
        if c.is_whitespace() || matches!(c, '{' | '}' | ',') {
            if !word.is_empty() {
                tokens.push(std::mem::take(&mut word));
            }
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    let mut leaves = Vec::new();
    let mut at = 0;
    parse_tree(&tokens, &mut at, &[], &mut leaves);
    leaves
}

fn parse_tree(tokens: &[String], at: &mut usize, prefix: &[String], leaves: &mut Vec<(Vec<String>, String)>) {
    let mut path = prefix.to_vec();
    while *at < tokens.len() {
        let token = tokens[*at].as_str();
        *at += 1;
        match token {
            "::" => {}
            "{" => {
                loop {
                    parse_tree(tokens, at, &path, leaves);
                    match tokens.get(*at).map(String::as_str) {
                        Some(",") => *at += 1,
                        Some("}") => {
                            *at += 1;
                            break;
                        }
                        _ => break,
                    }
                    if tokens.get(*at).map(String::as_str) == Some("}") {
                        *at += 1;
                        break;
                    }
                }
                return;
            }
            "," | "}" => {
                *at -= 1;
                break;
            }
            "as" => {
                let alias = tokens.get(*at).cloned().unwrap_or_default();
                *at += 1;
                leaves.push((path.clone(), alias));
                return;
            }
            "self" if !path.is_empty() => {
                let name = path.last().cloned().unwrap_or_default();
                leaves.push((path.clone(), name));
                return;
            }
            word => path.push(word.to_string()),
        }
    }
    if path.len() > prefix.len() {
        let name = path.last().cloned().unwrap_or_default();
        if name == "*" {
            path.pop();
        }
        leaves.push((path, name));
    }
}
