//! `--json FILE`: the [`BenchReport`] itself, each row with its derived
//! figures beside its rounds (`rows[].summary`: median, min and max req/s,
//! median p50/p99, start-up time, rank, ratio to hyper, the median client
//! and server CPU shares, `client_bound` and the server's median wait for a
//! CPU), the per-framework figures
//! under `summary`, and the loader `fwbench compare` uses.
//!
//! The written file *is* a `BenchReport` (the summaries are extra keys that
//! the loader ignores and recomputes), so any report fwbench wrote can be
//! read back and compared. A file of a [`SCHEMA_VERSION`] this fwbench
//! cannot read is refused with both versions named rather than misread.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::capped_read::{mib, read_capped, CappedReadError};

use super::model::{BenchReport, Row, RunHeader, RuntimeInfo, OLDEST_READABLE_SCHEMA, SCHEMA_VERSION};
use super::summary::{FrameworkSummary, RowSummary, Summary};

/// What the JSON file holds: the report's fields, each row with its
/// summary, then the framework summaries.
#[derive(Serialize)]
struct Written<'a> {
    schema_version: u32,
    #[serde(flatten)]
    header: &'a RunHeader,
    scenarios: &'a [String],
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    header_sets: &'a std::collections::BTreeMap<String, String>,
    frameworks: &'a [String],
    rows: Vec<WrittenRow<'a>>,
    #[serde(skip_serializing_if = "<[RuntimeInfo]>::is_empty")]
    runtimes: &'a [RuntimeInfo],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    runtimes_missing: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
    summary: WrittenSummary<'a>,
}

/// A row as written: its own fields, then `summary`.
#[derive(Serialize)]
struct WrittenRow<'a> {
    #[serde(flatten)]
    row: &'a Row,
    summary: &'a RowSummary,
}

/// The report-wide derived figures.
#[derive(Serialize)]
struct WrittenSummary<'a> {
    by_framework: &'a [FrameworkSummary],
}

/// Writes `report` with its summaries as pretty-printed JSON to `out`.
pub fn write_json(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    // Named field by field, without `..`, so a new report field cannot be
    // left out of the file unnoticed: this stops compiling instead.
    let BenchReport {
        schema_version,
        header,
        scenarios,
        header_sets,
        frameworks,
        rows,
        runtimes,
        runtimes_missing,
        warnings,
    } = report;
    let summary = Summary::of(report);
    let written = Written {
        schema_version: *schema_version,
        header,
        scenarios,
        header_sets,
        frameworks,
        // Summary::of keeps one summary per row, in the rows' order.
        rows: rows
            .iter()
            .zip(&summary.rows)
            .map(|(row, summary)| WrittenRow { row, summary })
            .collect(),
        runtimes,
        runtimes_missing,
        warnings,
        summary: WrittenSummary {
            by_framework: &summary.by_framework,
        },
    };
    serde_json::to_writer_pretty(&mut *out, &written)?;
    writeln!(out)
}

/// Why a JSON report could not be loaded. Each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadReportError {
    /// The file could not be read.
    #[error("cannot read report {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The file is larger than any report ([`MAX_REPORT_BYTES`]).
    #[error(
        "{path} is larger than {}, the most fwbench reads as a report (a report of the full \
         matrix is about 100 KB): is it a fwbench JSON report?",
        mib(*cap)
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The cap, in bytes.
        cap: u64,
    },
    /// The file is not JSON, or not a fwbench report.
    #[error("{path} is not a fwbench JSON report (write one with `fwbench bench --json FILE`): {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser found, with line and column.
        message: String,
    },
    /// The file is a report of a schema version this fwbench cannot read.
    #[error(
        "{path} is a fwbench report of schema version {found}, but this fwbench reads versions \
         {OLDEST_READABLE_SCHEMA} to {expected}: compare it with the fwbench that wrote it, or \
         re-run the benchmark"
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

/// The largest report [`load_json`] reads: a report of the full matrix
/// (27 rows, 5 rounds) is about 100 KB (the golden report's 12 rows and 28
/// rounds take 27 KB), so this leaves room for any
/// plausible matrix while an endless file (/dev/zero) costs 64 MiB at most.
pub const MAX_REPORT_BYTES: u64 = 64 << 20;

/// Reads a JSON report written by [`write_json`] from `path` (at most
/// [`MAX_REPORT_BYTES`]).
pub fn load_json(path: &Path) -> Result<BenchReport, ReadReportError> {
    let read_error = |source: io::Error| ReadReportError::Read {
        path: path.to_owned(),
        source,
    };
    let bytes = read_capped(path, MAX_REPORT_BYTES).map_err(|error| match error {
        CappedReadError::Io(source) => read_error(source),
        CappedReadError::TooLarge { cap } => ReadReportError::TooLarge {
            path: path.to_owned(),
            cap,
        },
    })?;
    let text =
        String::from_utf8(bytes).map_err(|e| read_error(io::Error::new(io::ErrorKind::InvalidData, e)))?;
    parse_json(&text, path)
}

/// Parses a JSON report; `origin` names it in errors.
pub fn parse_json(text: &str, origin: &Path) -> Result<BenchReport, ReadReportError> {
    let parse_error = |message: String| ReadReportError::Parse {
        path: origin.to_owned(),
        message,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| parse_error(e.to_string()))?;
    // The version first: a report of another schema would otherwise fail
    // on some renamed field with a message that hides the real cause.
    match value.get("schema_version") {
        None => return Err(parse_error("it has no `schema_version`".to_owned())),
        Some(version) => match version.as_u64() {
            Some(found)
                if (u64::from(OLDEST_READABLE_SCHEMA)..=u64::from(SCHEMA_VERSION)).contains(&found) => {}
            Some(found) => {
                return Err(ReadReportError::Schema {
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
