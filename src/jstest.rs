//! `fwbench test`: runs node:test-style JS suites inside the embedded
//! engine, one fresh runtime per file, so a suite that passes under
//! `node --test` is shown to pass on fwbench's host too.
//!
//! Test files import `test`/`describe` from `node:test` (our shim in
//! js/runtime/node/test.js, backed by js/runtime/test_runner.js) and
//! `assert` from `node:assert/strict`. Files may import anything under the
//! common directory of all the paths given.
//!
//! Each file runs in a child fwbench (`test-file`, see child_run.rs): a
//! file whose code loops in native code past the CPU time limit, or makes
//! the engine give up, ends its child and fails alone; its counts come back
//! on a channel the file's own output cannot reach.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use deno_core::ModuleSpecifier;
use serde::{Deserialize, Serialize};

use crate::child_run::{self, ChildStderr};
use crate::engine::{self, Engine, EngineOptions};
use crate::outcome::Outcome;

/// How many tests passed, failed and were skipped.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct Counts {
    /// Tests that passed.
    pub passed: usize,
    /// Tests that failed.
    pub failed: usize,
    /// Tests skipped (`skip` / `todo`).
    pub skipped: usize,
}

/// Runs every test file under `paths` (files, or directories searched for
/// `*.test.js` / `*.test.mjs`); fails if any test failed or a file could
/// not be loaded.
pub fn run(paths: &[PathBuf]) -> anyhow::Result<Outcome> {
    let files = collect(paths)?;
    if files.is_empty() {
        bail!("no test files (*.test.js, *.test.mjs) under the given paths");
    }
    let root = common_dir(&files);
    let mut total = Counts::default();
    let mut broken = 0;
    for file in &files {
        println!("# {}", file.display());
        // The child's lines (stderr) must follow this one.
        std::io::stdout().flush().context("cannot write to stdout")?;
        match run_in_child(file, &root) {
            Ok(counts) => {
                total.passed += counts.passed;
                total.failed += counts.failed;
                total.skipped += counts.skipped;
            }
            Err(error) => {
                broken += 1;
                println!("not ok - {} failed to load: {error:#}", file.display());
            }
        }
    }
    println!(
        "fwbench test: {} passed, {} failed, {} skipped",
        total.passed,
        total.failed + broken,
        total.skipped
    );
    if total.failed + broken > 0 {
        return Ok(Outcome::Failed(format!(
            "{} test(s) failed and {broken} file(s) did not load",
            total.failed
        )));
    }
    Ok(Outcome::Passed)
}

/// Runs `file` in a child fwbench and reads its counts.
fn run_in_child(file: &Path, root: &Path) -> anyhow::Result<Counts> {
    let args = [
        "test-file".into(),
        file.as_os_str().to_owned(),
        root.as_os_str().to_owned(),
    ];
    let answer = child_run::run(
        &args,
        &format!("test file {}", file.display()),
        ChildStderr::Shown,
    )?;
    serde_json::from_slice(&answer).with_context(|| {
        format!(
            "the test file's child answered {:?}",
            String::from_utf8_lossy(&answer)
        )
    })
}

/// The child's side of `fwbench test`: runs `file` (its imports confined to
/// `root`) and writes its counts as JSON on the answer channel, which the
/// file's own output cannot reach.
pub fn run_one(file: &Path, root: &Path) -> anyhow::Result<()> {
    let mut channel = child_run::answer_channel()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start a tokio runtime")?;
    let counts = runtime.block_on(run_file(file, root))?;
    serde_json::to_writer(&mut channel, &counts).context("cannot write the counts")?;
    channel.write_all(b"\n").context("cannot write the counts")?;
    Ok(())
}

async fn run_file(file: &Path, root: &Path) -> anyhow::Result<Counts> {
    let options = EngineOptions {
        app_root: Some(root.to_path_buf()),
        ..EngineOptions::default()
    };
    let mut engine = Engine::new(&options, Vec::new())?;
    engine.preload(&engine::default_preload()).await?;
    let url = ModuleSpecifier::from_file_path(file)
        .map_err(|()| anyhow::anyhow!("cannot make a module URL from {}", file.display()))?;
    let main = ModuleSpecifier::parse("fwbench:///main/test.js").expect("valid URL");
    // The runner is imported first so its registry exists when the test
    // file's top level calls test()/describe().
    let code = format!(
        "import {{ run }} from \"fwbench:///runtime/test_runner.js\";\n\
         import {};\n\
         export default JSON.stringify(await run((line) => console.log(line)));\n",
        serde_json::Value::String(url.to_string())
    );
    let json = engine.evaluate_to_string(&main, &code).await?;
    serde_json::from_str(&json).with_context(|| format!("the test runner returned {json:?}"))
}

/// The test files under `paths`, sorted.
fn collect(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let path = std::fs::canonicalize(path).with_context(|| format!("cannot read {}", path.display()))?;
        if path.is_dir() {
            walk(&path, &mut files)?;
        } else {
            files.push(path);
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            walk(&path, files)?;
        } else if name.ends_with(".test.js") || name.ends_with(".test.mjs") {
            files.push(path);
        }
    }
    Ok(())
}

/// The deepest directory containing every file.
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut common = files[0].parent().map(Path::to_path_buf).unwrap_or_default();
    for file in &files[1..] {
        while !file.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_dir_contains_every_file() {
        let files = [
            PathBuf::from("/p/js/s200/a.test.js"),
            PathBuf::from("/p/js/s200/src/b.test.js"),
        ];
        assert_eq!(common_dir(&files), PathBuf::from("/p/js/s200"));
        let files = [PathBuf::from("/p/a/x.test.js"), PathBuf::from("/p/b/y.test.js")];
        assert_eq!(common_dir(&files), PathBuf::from("/p"));
    }
}
