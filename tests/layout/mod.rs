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

mod house;
mod source;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use house::House;

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
    ("child_run", 0),
    ("framework_list", 0),
    ("estimate", 0),
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
    ("capacity", 6),
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

/// Every .rs file under `dir`, sorted, into `out`.
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
