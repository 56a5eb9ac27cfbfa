//! Unmodified npm projects (tests/fixtures/projects/, installed by the
//! test command's set-up with `npm ci`) served as they are: each answer
//! checked against what the project is known to say and, when Node 22+ is
//! installed, compared with the same project on Node (status, content-type,
//! content-encoding, the decoded body, the headers its middleware sets);
//! CommonJS and module semantics against Node's; bad projects refused with
//! a clear load error.

mod bad;
pub(crate) mod node;
mod rows;
mod served;

use std::path::{Path, PathBuf};

use crate::support::fixture;

/// A fixture project, which must have been installed.
pub fn project(name: &str) -> PathBuf {
    let dir = fixture("projects").join(name);
    let manifest = std::fs::read_to_string(dir.join("package.json")).expect("the project's package.json");
    if manifest.contains("\"dependencies\"") {
        assert!(
            dir.join("node_modules").is_dir(),
            "{} is not installed: the test command's set-up runs `npm ci` there (.ci/test.sh)",
            dir.display()
        );
    }
    dir
}

/// A project in a fresh temporary directory: `(path, contents)` pairs.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str, files: &[(&str, &str)]) -> Scratch {
        let dir = std::env::temp_dir().join(format!("fwbench-bad-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("make the directory");
            std::fs::write(path, text).expect("write the file");
        }
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
