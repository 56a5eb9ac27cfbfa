//! `--json FILE`: the [`BenchReport`] itself, with the derived [`Summary`]
//! beside it under `summary`, and the loader `fwbench compare` uses.
//!
//! The written file *is* a `BenchReport` (the summary is one extra key that
//! the loader ignores and recomputes), so any report fwbench wrote can be
//! read back and compared. A file of another [`SCHEMA_VERSION`] is refused
//! with both versions named rather than misread.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::model::{BenchReport, SCHEMA_VERSION};
use super::summary::Summary;

/// What the JSON file holds: the report's own fields, then `summary`.
#[derive(Serialize)]
struct Written<'a> {
    #[serde(flatten)]
    report: &'a BenchReport,
    summary: Summary,
}

/// Writes `report` and its summary as pretty-printed JSON to `out`.
pub fn write_json(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    let written = Written {
        report,
        summary: Summary::of(report),
    };
    serde_json::to_writer_pretty(&mut *out, &written)?;
    writeln!(out)
}

/// Why a JSON report could not be loaded. Each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read report {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The file is not JSON, or not a fwbench report.
    #[error("{path} is not a fwbench JSON report (write one with `fwbench bench --json FILE`): {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser found, with line and column.
        message: String,
    },
    /// The file is a report of another schema version.
    #[error(
        "{path} is a fwbench report of schema version {found}, but this fwbench reads version \
         {expected}: compare it with the fwbench that wrote it, or re-run the benchmark"
    )]
    Schema {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u64,
        /// [`SCHEMA_VERSION`].
        expected: u32,
    },
}

/// Reads a JSON report written by [`write_json`] from `path`.
pub fn load_json(path: &Path) -> Result<BenchReport, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_json(&text, path)
}

/// Parses a JSON report; `origin` names it in errors.
pub fn parse_json(text: &str, origin: &Path) -> Result<BenchReport, LoadError> {
    let parse_error = |message: String| LoadError::Parse {
        path: origin.to_owned(),
        message,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| parse_error(e.to_string()))?;
    // The version first: a report of another schema would otherwise fail
    // on some renamed field with a message that hides the real cause.
    match value.get("schema_version") {
        None => return Err(parse_error("it has no `schema_version`".to_owned())),
        Some(version) => match version.as_u64() {
            Some(found) if found == u64::from(SCHEMA_VERSION) => {}
            Some(found) => {
                return Err(LoadError::Schema {
                    path: origin.to_owned(),
                    found,
                    expected: SCHEMA_VERSION,
                })
            }
            None => {
                return Err(parse_error(format!(
                    "its `schema_version` is {version}, not a number"
                )))
            }
        },
    }
    // From the text again, not the value, so errors carry line and column.
    serde_json::from_str(text).map_err(|e| parse_error(e.to_string()))
}
