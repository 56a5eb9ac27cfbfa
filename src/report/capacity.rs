//! `fwbench capacity`'s results: per row, every step of every search (the
//! offered rate, what was achieved, the latency, who was busy, and the
//! verdict), what each search found, the capacity over the searches with
//! its interval, and the server's cost per request below saturation. What
//! capacity.json holds, and its table for the terminal and Markdown.

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use super::format;
use super::table::{Align, Table};
use super::text::run_header;
use super::RunHeader;
use crate::estimate::Estimate;

/// Layout version of capacity.json.
pub const CAPACITY_SCHEMA_VERSION: u32 = 1;

/// A step counts only when the load generator sent at least this share of
/// the rate it was asked for.
pub const ACHIEVED_SHARE: f64 = 0.99;

/// The load generator was the limit when its CPU was this busy.
pub const CLIENT_BUSY: f64 = 0.9;

/// `fwbench capacity`'s results.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CapacityReport {
    /// [`CAPACITY_SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// fwbench, engine, machine, pinning, options, when.
    #[serde(flatten)]
    pub header: RunHeader,
    /// The latency target: a step is held when its p99 is at most this, µs.
    pub p99_target_us: f64,
    /// One entry per row searched.
    pub rows: Vec<CapacityRow>,
    /// Run-level warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One row's searches.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CapacityRow {
    /// Framework (or app row) name.
    pub framework: String,
    /// Scenario name.
    pub scenario: String,
    /// Why it was not searched, or stopped being searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Each search, in the order run.
    pub searches: Vec<Search>,
    /// The steps at fixed shares of the capacity (10 %, 50 %, 90 %).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub below: Vec<Step>,
}

/// What one search found.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Found {
    /// Held `rate`, missed `missed` (within the precision above it).
    Capacity {
        /// The highest rate held.
        rate: f64,
        /// The lowest rate missed.
        missed: f64,
    },
    /// Missed the lowest rate tried.
    BelowFloor {
        /// That rate.
        floor: f64,
    },
    /// Held every rate up to the highest tried: the capacity is at least
    /// that.
    NotBracketed {
        /// The highest rate tried, held.
        held: f64,
    },
    /// The load generator could not offer `at` (its CPU was busy): no
    /// server figure above `held`.
    ClientBound {
        /// The highest rate held before, if any.
        held: Option<f64>,
        /// The rate the client could not offer.
        at: f64,
    },
    /// Stopped (Ctrl-C, SIGTERM, a failed server) before it ended.
    Unfinished,
}

/// What one search's result says of the row, for the median.
#[derive(Debug, Clone, Copy, PartialEq)]
enum SearchResult {
    /// A capacity, bracketed.
    Capacity,
    /// At least this rate: held, nothing found above.
    AtLeast,
    /// Missed the lowest rate.
    Below,
}

/// One search: its steps and what it found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Search {
    /// Each step in the order run.
    pub steps: Vec<Step>,
    /// Its result.
    pub found: Found,
}

/// Why a step did or did not hold its rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Achieved the rate, p99 within the target, no errors.
    Held,
    /// p99 over the target.
    Slow,
    /// The server answered less than [`ACHIEVED_SHARE`] of the rate.
    Short,
    /// Errors or unexpected answers.
    Errors,
    /// The load generator's CPU was the limit: not a server figure.
    ClientBound,
}

/// One fixed-rate measurement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    /// The rate asked for, req/s.
    pub offered: f64,
    /// Answers per second over the measured window.
    pub achieved: f64,
    /// Latency from each request's due time, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// 99.9th percentile, µs.
    pub p999_us: f64,
    /// Errors and unexpected answers.
    pub errors: u64,
    /// The load generator's CPU per thread, 0 to 1.
    pub client_cpu: f64,
    /// Share of requests the load generator sent late (its pacing
    /// accuracy), 0 to 1.
    pub sent_late: f64,
    /// Server cores busy (user + system CPU over wall time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cores: Option<f64>,
    /// Server CPU per answered request, user space, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_user_us: Option<f64>,
    /// Server CPU per answered request, kernel, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_system_us: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
}

impl Step {
    /// Server CPU per answered request (user + kernel), µs.
    pub fn server_us(&self) -> Option<f64> {
        Some(self.server_user_us? + self.server_system_us?)
    }
}

impl CapacityRow {
    /// The capacities the searches found (those that bracketed one).
    pub fn capacities(&self) -> Vec<f64> {
        self.searches
            .iter()
            .filter_map(|search| match search.found {
                Found::Capacity { rate, .. } => Some(rate),
                _ => None,
            })
            .collect()
    }

    /// The row's capacity: the median over its searches, each counting
    /// with what it found (a capacity, or the rate it held when it found
    /// none above: client-bound, or the highest rate tried). `None` when
    /// the median is such a lower bound (then [`lower_bound`] says "at
    /// least"), a miss of the lowest rate, or there is no search: one
    /// search that missed a low rate twice on a hiccup does not outvote
    /// two that held far more.
    ///
    /// [`lower_bound`]: Self::lower_bound
    pub fn median(&self) -> Option<f64> {
        match self.median_result()? {
            (rate, SearchResult::Capacity) => Some(rate),
            _ => None,
        }
    }

    /// What the row holds at least, when the median search found no
    /// capacity above the rate it held (see [`median`](Self::median)).
    pub fn lower_bound(&self) -> Option<f64> {
        match self.median_result()? {
            (held, SearchResult::AtLeast) => Some(held),
            _ => None,
        }
    }

    /// The median of the searches' results, as (rate, kind); with an even
    /// count, the lower middle one (the cautious reading).
    fn median_result(&self) -> Option<(f64, SearchResult)> {
        let mut results: Vec<(f64, SearchResult)> = self
            .searches
            .iter()
            .filter_map(|search| match search.found {
                Found::Capacity { rate, .. } => Some((rate, SearchResult::Capacity)),
                Found::NotBracketed { held } => Some((held, SearchResult::AtLeast)),
                Found::ClientBound { held, .. } => held.map(|held| (held, SearchResult::AtLeast)),
                Found::BelowFloor { floor } => Some((floor, SearchResult::Below)),
                Found::Unfinished => None,
            })
            .collect();
        // A miss of the floor ranks below any rate held.
        results.sort_by(|a, b| {
            (a.1 != SearchResult::Below)
                .cmp(&(b.1 != SearchResult::Below))
                .then(a.0.total_cmp(&b.0))
        });
        let n = results.len();
        (n > 0).then(|| results[(n - 1) / 2])
    }

    /// The mean capacity with its 95 % interval (two searches or more).
    pub fn estimate(&self) -> Option<Estimate> {
        crate::estimate::mean(&self.capacities())
    }

    /// The held step nearest below the median capacity: the server's cost
    /// per request at capacity.
    pub fn at_capacity(&self) -> Option<&Step> {
        let capacity = self.median()?;
        self.searches
            .iter()
            .flat_map(|search| &search.steps)
            .filter(|step| step.verdict == Verdict::Held && step.offered <= capacity * 1.0001)
            .max_by(|a, b| a.offered.total_cmp(&b.offered))
    }

    /// Requests per second per busy server core at capacity.
    pub fn per_core(&self) -> Option<f64> {
        let step = self.at_capacity()?;
        Some(step.achieved / step.server_cores.filter(|cores| *cores > 0.0)?)
    }

    /// What the searches say when none found a capacity: the row's result
    /// in words.
    pub fn outcome_note(&self) -> Option<String> {
        if let Some(failed) = &self.failed {
            return Some(format!("FAILED: {failed}"));
        }
        let notes: Vec<String> = self
            .searches
            .iter()
            .filter_map(|search| match search.found {
                Found::Capacity { .. } => None,
                Found::BelowFloor { floor } => {
                    Some(format!("below the lowest rate tried ({})", format::rps(floor)))
                }
                Found::NotBracketed { held } => {
                    Some(format!("held every rate tried: at least {}", format::rps(held)))
                }
                Found::ClientBound { at, .. } => Some(format!(
                    "client-bound at {}: the load generator could not offer it",
                    format::rps(at)
                )),
                Found::Unfinished => Some("search unfinished".to_owned()),
            })
            .collect();
        let mut unique: Vec<String> = Vec::new();
        for note in notes {
            if !unique.contains(&note) {
                unique.push(note);
            }
        }
        (!unique.is_empty()).then(|| unique.join("; "))
    }
}

/// The table's explanation, printed under it.
pub const LEGEND: &[&str] = &[
    "capacity: the highest rate (req/s) held with p99 within the target, the median over the searches \
     that bracketed one, ± the 95% interval of their mean (≥ X: no search did; X was held and the \
     client could go no higher, or X was the highest rate tried);",
    "per core: answers per second per busy server core at that rate;",
    "µs/req at 10/50/90%: the server's CPU (user + kernel) per request at that share of the capacity;",
    "steps: fixed-rate steps run; a client-bound step never counts.",
];

/// The capacity table: one line per row.
pub fn capacity_table(report: &CapacityReport) -> Table {
    let mut table = Table::new(&[
        ("framework", Align::Left),
        ("scenario", Align::Left),
        ("capacity", Align::Right),
        ("± 95%", Align::Right),
        ("per core", Align::Right),
        ("µs/req 10%", Align::Right),
        ("µs/req 50%", Align::Right),
        ("µs/req 90%", Align::Right),
        ("steps", Align::Right),
        ("note", Align::Left),
    ]);
    for row in &report.rows {
        let below = |fraction: f64| {
            row.below
                .iter()
                .find(|step| {
                    row.median()
                        .is_some_and(|c| (step.offered / c - fraction).abs() < 0.01)
                })
                .and_then(Step::server_us)
                .map_or_else(|| "-".to_owned(), |us| format!("{us:.2}"))
        };
        let steps: usize = row.searches.iter().map(|s| s.steps.len()).sum::<usize>() + row.below.len();
        table.push(vec![
            row.framework.clone(),
            row.scenario.clone(),
            match (row.median(), row.lower_bound()) {
                (Some(capacity), _) => format::rps(capacity),
                (None, Some(held)) => format!("≥ {}", format::rps(held)),
                (None, None) => "-".to_owned(),
            },
            row.estimate().map_or_else(
                || "-".to_owned(),
                |e| format!("± {}", format::rps(e.half_width())),
            ),
            row.per_core().map_or_else(|| "-".to_owned(), format::rps),
            below(0.1),
            below(0.5),
            below(0.9),
            steps.to_string(),
            row.outcome_note().unwrap_or_default(),
        ]);
    }
    table
}

/// The terminal report (or Markdown with `markdown`): the run header, the
/// target, the table and its legend, the warnings.
pub fn write_capacity(report: &CapacityReport, markdown: bool, out: &mut dyn Write) -> io::Result<()> {
    let extent = format!(
        "{} rows, p99 target {}",
        report.rows.len(),
        crate::units::latency(report.p99_target_us)
    );
    for line in run_header(&report.header, &extent) {
        writeln!(out, "{}", if markdown { format!("- {line}") } else { line })?;
    }
    for warning in &report.warnings {
        writeln!(out, "WARNING: {}", format::printable(warning))?;
    }
    writeln!(out)?;
    let table = capacity_table(report);
    if markdown {
        table.write_markdown(out)?;
    } else {
        table.write_text("", out)?;
    }
    writeln!(out)?;
    for line in LEGEND {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(found: Found) -> Search {
        Search {
            steps: Vec::new(),
            found,
        }
    }

    fn row(found: &[Found]) -> CapacityRow {
        CapacityRow {
            framework: "hono".into(),
            scenario: "mw".into(),
            failed: None,
            searches: found.iter().copied().map(search).collect(),
            below: Vec::new(),
        }
    }

    #[test]
    fn the_capacity_is_the_median_of_the_searches_that_bracketed_one() {
        let capacity = |rate| Found::Capacity {
            rate,
            missed: rate * 1.04,
        };
        let row = row(&[
            capacity(9000.0),
            Found::BelowFloor { floor: 500.0 },
            capacity(10_000.0),
            capacity(9500.0),
        ]);
        // Four results: the floor missed, 9000, 9500, 10000: the lower
        // middle one.
        assert_eq!(row.median(), Some(9000.0));
        let estimate = row.estimate().unwrap();
        assert_eq!(estimate.value, 9500.0);
        assert!(estimate.half_width() > 0.0);
        assert_eq!(
            row.outcome_note().as_deref(),
            Some("below the lowest rate tried (500)")
        );
    }

    #[test]
    fn one_search_that_missed_low_does_not_outvote_two_that_held_more() {
        let row = row(&[
            Found::Capacity {
                rate: 1938.0,
                missed: 2000.0,
            },
            Found::ClientBound {
                held: Some(16_000.0),
                at: 32_000.0,
            },
            Found::ClientBound {
                held: Some(32_000.0),
                at: 64_000.0,
            },
        ]);
        assert_eq!(row.median(), None);
        assert_eq!(row.lower_bound(), Some(16_000.0));
    }

    #[test]
    fn searches_that_bracketed_nothing_give_a_lower_bound_in_the_table() {
        let row = row(&[
            Found::ClientBound {
                held: Some(16_000.0),
                at: 32_000.0,
            },
            Found::NotBracketed { held: 8000.0 },
        ]);
        assert_eq!(row.median(), None);
        // Two results: the lower one, cautiously.
        assert_eq!(row.lower_bound(), Some(8000.0));
        let report = CapacityReport {
            schema_version: CAPACITY_SCHEMA_VERSION,
            header: serde_json::from_value(serde_json::json!({
                "tool": {"fwbench_version": "0", "engine": "V8", "framework_versions": {}, "dependency_versions": {}},
                "machine": {"cpu_model": "", "logical_cpus": 2, "kernel": "", "os": ""},
                "pinning": {"server_cpus": [0], "load_cpus": [1], "applied": true},
                "options": {},
                "started_at": "2026-12-08T00:00:00Z",
                "wall_time_s": 1.0
            }))
            .expect("a run header"),
            p99_target_us: 1000.0,
            rows: vec![row],
            warnings: Vec::new(),
        };
        let mut text = Vec::new();
        write_capacity(&report, false, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("≥ 8000"), "{text}");
        assert!(text.contains("client-bound at 32000"), "{text}");
    }
}
