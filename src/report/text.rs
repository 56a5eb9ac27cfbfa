/*!
The human-readable report: the terminal table and its `--markdown` twin.

Both print the same four parts, built once as [`Table`]s and rendered two
ways:
1. what ran where: fwbench and engine, machine, start and wall time,
   pinning;
2. the reference's table: per framework, the median req/s of each scenario
   and `mw vs hello`;
3. per scenario, the rows ranked by median req/s with [min–max] over
   rounds, p50/p99 latency, errors and the ratio to native hyper;
4. the failed rows with their reasons and stderr tails.

A client-bound row's req/s carries a `‡` in both tables, and a footnote
under each table that has one gives the CPU shares behind it.
*/

use std::io::{self, Write};

use super::anatomy;
use super::fidelity::Fidelity;
use super::format::{self, printable};
use super::memory_table::{legend, memory_table, MEMORY_TITLE};
use super::model::{BenchReport, MachineInfo, RowStatus, RunHeader, ServerHostInfo};
use super::summary::{RowSummary, Summary, BASELINE};
use super::table::{escape, Align, Table};
use super::warmup_table;

/// Placeholder for a cell without a figure.
const NONE: &str = "-";
/// What a failed row shows instead of its figures.
const FAILED: &str = "FAILED";

/// Writes the terminal report of `report` to `out`.
pub fn write_terminal(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    let summary = Summary::of(report);
    for line in about(report, &summary) {
        writeln!(out, "{}", printable(&line))?;
    }
    writeln!(out)?;
    writeln!(out, "Requests/s by framework (median over rounds)")?;
    framework_table(report, &summary).write_text("  ", out)?;
    if let Some(note) = client_bound_note(report, summary.rows.iter()) {
        writeln!(out, "  {note}")?;
    }
    if !summary.scenarios.is_empty() {
        writeln!(out)?;
        for line in SCENARIO_LEGEND {
            writeln!(out, "{line}")?;
        }
    }
    for scenario in &summary.scenarios {
        writeln!(out)?;
        writeln!(out, "Scenario {}", printable(scenario))?;
        scenario_table(&summary, scenario).write_text("  ", out)?;
        if let Some(note) = client_bound_note(report, summary.ranked(scenario).into_iter()) {
            writeln!(out, "  {note}")?;
        }
    }
    if let Some(table) = startup_table(&summary) {
        writeln!(out)?;
        writeln!(out, "{STARTUP_TITLE}")?;
        table.write_text("  ", out)?;
    }
    anatomy::write_anatomy(&summary, out)?;
    if let Some(table) = memory_table(report) {
        writeln!(out)?;
        writeln!(out, "{MEMORY_TITLE}")?;
        table.write_text("  ", out)?;
        writeln!(out, "  {}", legend())?;
    }
    if let Some(table) = warmup_table::warmup_table(report) {
        writeln!(out)?;
        writeln!(out, "{}", warmup_table::WARMUP_TITLE)?;
        table.write_text("  ", out)?;
        writeln!(out, "  {}", warmup_table::legend())?;
    }
    for (title, table) in fidelity_tables(report, &summary) {
        writeln!(out)?;
        writeln!(out, "{title}")?;
        table.write_text("  ", out)?;
    }
    let failed = failures(report);
    if !failed.is_empty() {
        writeln!(out)?;
        writeln!(out, "Failed rows")?;
        for failure in failed {
            writeln!(
                out,
                "  {}: {}",
                printable(&failure.row),
                printable(failure.reason)
            )?;
            if let Some(tail) = failure.stderr_tail {
                writeln!(out, "    stderr (last lines):")?;
                for line in tail.lines() {
                    writeln!(out, "    | {}", printable(line))?;
                }
            }
        }
    }
    Ok(())
}

/// Writes the same report as GitHub-flavoured markdown to `out`.
pub fn write_markdown(report: &BenchReport, out: &mut dyn Write) -> io::Result<()> {
    let summary = Summary::of(report);
    writeln!(out, "## fwbench results")?;
    writeln!(out)?;
    for line in about(report, &summary) {
        writeln!(out, "- {}", escape_inline(&line))?;
    }
    writeln!(out)?;
    writeln!(out, "### Requests/s by framework (median over rounds)")?;
    writeln!(out)?;
    framework_table(report, &summary).write_markdown(out)?;
    if let Some(note) = client_bound_note(report, summary.rows.iter()) {
        writeln!(out)?;
        writeln!(out, "{}", escape_inline(&note))?;
    }
    if !summary.scenarios.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", escape_inline(&SCENARIO_LEGEND.join(" ")))?;
    }
    for scenario in &summary.scenarios {
        writeln!(out)?;
        writeln!(out, "### Scenario {}", escape_inline(scenario))?;
        writeln!(out)?;
        scenario_table(&summary, scenario).write_markdown(out)?;
        if let Some(note) = client_bound_note(report, summary.ranked(scenario).into_iter()) {
            writeln!(out)?;
            writeln!(out, "{}", escape_inline(&note))?;
        }
    }
    if let Some(table) = startup_table(&summary) {
        writeln!(out)?;
        writeln!(out, "### {}", escape_inline(STARTUP_TITLE))?;
        writeln!(out)?;
        table.write_markdown(out)?;
    }
    for scenario in &summary.scenarios {
        if let Some(table) = anatomy::anatomy_table(&summary, scenario) {
            writeln!(out)?;
            writeln!(
                out,
                "### Anatomy of scenario {} (per request)",
                escape_inline(scenario)
            )?;
            writeln!(out)?;
            table.write_markdown(out)?;
        }
    }
    if let Some(table) = memory_table(report) {
        writeln!(out)?;
        writeln!(out, "### {}", escape_inline(MEMORY_TITLE))?;
        writeln!(out)?;
        table.write_markdown(out)?;
        writeln!(out)?;
        writeln!(out, "{}", escape_inline(&legend()))?;
    }
    if let Some(table) = warmup_table::warmup_table(report) {
        writeln!(out)?;
        writeln!(out, "### {}", escape_inline(warmup_table::WARMUP_TITLE))?;
        writeln!(out)?;
        table.write_markdown(out)?;
        writeln!(out)?;
        writeln!(out, "{}", escape_inline(&warmup_table::legend()))?;
    }
    for (title, table) in fidelity_tables(report, &summary) {
        writeln!(out)?;
        writeln!(out, "### {}", escape_inline(&title))?;
        writeln!(out)?;
        table.write_markdown(out)?;
    }
    let failed = failures(report);
    if !failed.is_empty() {
        writeln!(out)?;
        writeln!(out, "### Failed rows")?;
        writeln!(out)?;
        for failure in failed {
            writeln!(
                out,
                "- **{}**: {}",
                escape_inline(&failure.row),
                escape_inline(failure.reason)
            )?;
            if let Some(tail) = failure.stderr_tail {
                // A fence longer than any backtick run inside the tail.
                let fence = "`".repeat(longest_backtick_run(tail).max(2) + 1);
                writeln!(out)?;
                writeln!(out, "  {fence}text")?;
                for line in tail.lines() {
                    writeln!(out, "  {}", printable(line))?;
                }
                writeln!(out, "  {fence}")?;
            }
        }
    }
    Ok(())
}

/// The lines saying what ran where and how.
pub(super) fn about(report: &BenchReport, summary: &Summary) -> Vec<String> {
    let rounds = format!(
        "up to {} round{} per row",
        summary.max_rounds,
        if summary.max_rounds == 1 { "" } else { "s" }
    );
    let mut lines = run_header(&report.header, &rounds);
    if let Some(line) = header_sets_line(report) {
        lines.push(line);
    }
    lines.extend(report.runtimes.iter().map(|r| {
        format!(
            "runtime rows ({}@{}): {} {} ({}); fetch-style apps served by {}",
            "framework", r.name, r.name, r.version, r.binary, r.fetch_apps_served_by
        )
    }));
    lines.extend(
        report
            .runtimes_missing
            .iter()
            .map(|why| format!("runtime rows skipped: {why}")),
    );
    lines.extend(report.warnings.iter().map(|w| format!("WARNING: {w}")));
    lines
}

/// The fidelity tables (fidelity.rs) with their titles, when JS rows ran
/// on more than one runtime.
pub(super) fn fidelity_tables(report: &BenchReport, summary: &Summary) -> Vec<(String, Table)> {
    let Some(fidelity) = Fidelity::of(report, summary) else {
        return Vec::new();
    };
    let reference = fidelity.reference().to_owned();
    let mut tables = vec![
        (
            format!(
                "Runtime fidelity: each runtime's req/s and server µs/request as a ratio to {reference}'s"
            ),
            fidelity.ratio_table(),
        ),
        (
            format!(
                "Rank agreement with {reference} per scenario (Spearman's ρ over the frameworks both ran)"
            ),
            fidelity.rank_table(),
        ),
    ];
    if let Some(chain) = fidelity.chain_table() {
        tables.push((
            "The mw chain per runtime: mw req/s over hello's, and its server µs/request (mw less hello)"
                .to_owned(),
            chain,
        ));
    }
    tables
}

/// Where the servers ran when not here (`--server-host`), and how far away.
fn server_host_lines(host: &ServerHostInfo) -> Vec<String> {
    let mut lines = vec![format!(
        "server host: {} at {}: {}",
        host.destination,
        host.address,
        machine_line(&host.machine)
    )];
    if let Some(rtt) = &host.rtt {
        lines.push(format!(
            "network: round trip median {:.3} ms (min {:.3}, max {:.3}) over {} × {}",
            rtt.median_ms, rtt.min_ms, rtt.max_ms, rtt.samples, rtt.method
        ));
    }
    lines
}

/// A machine in one line: CPU model, logical CPUs, kernel, OS.
fn machine_line(machine: &MachineInfo) -> String {
    let cpus = match machine.logical_cpus {
        0 => String::new(),
        n => format!("{n} logical CPUs"),
    };
    let mut system = vec![
        machine.cpu_model.clone(),
        cpus,
        machine.kernel.clone(),
        machine.os.clone(),
    ];
    system.retain(|part| !part.is_empty());
    if system.is_empty() {
        system.push("unknown".to_owned());
    }
    system.join(" · ")
}

/// The run header `bench`, `sweep` and `sweep --ablate` share: fwbench and
/// engine, machine, start and wall time (with `extent`, what the run
/// covered), where the servers and the load generator ran, and the server
/// machine when it was another (`--server-host`).
pub fn run_header(header: &RunHeader, extent: &str) -> Vec<String> {
    let pinning = &header.pinning;
    let placement = format!(
        "servers on CPUs {}, load generator on CPUs {}",
        format::cpus(&pinning.server_cpus),
        format::cpus(&pinning.load_cpus)
    );
    let mut pinned = if pinning.applied {
        format!("pinning: {placement}")
    } else {
        format!("pinning NOT applied (planned: {placement})")
    };
    if let Some(note) = &pinning.note {
        pinned.push_str(&format!(": {note}"));
    }
    let mut lines = vec![
        format!(
            "fwbench {} · engine {}",
            header.tool.fwbench_version, header.tool.engine
        ),
        format!("machine: {}", machine_line(&header.machine)),
        format!(
            "started {} · wall time {} · {extent}",
            header.started_at,
            crate::units::wall_time(header.wall_time_s),
        ),
        pinned,
    ];
    if !header.tool.engine_switches.is_empty() {
        lines.push(format!(
            "engine switches: {}",
            switches(&header.tool.engine_switches)
        ));
    }
    if let Some(host) = &header.server_host {
        lines.extend(server_host_lines(host));
    }
    lines
}

/// `FWBENCH_HEAP_STATS=off, FWBENCH_V8_FLAGS=--jitless`.
pub fn switches(set: &std::collections::BTreeMap<String, String>) -> String {
    set.iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `request headers: browser`, or per set the scenarios that sent it when
/// they differ (`request headers: browser (hello, mw) · minimal (param)`);
/// nothing for a report that recorded none.
fn header_sets_line(report: &BenchReport) -> Option<String> {
    if report.header_sets.is_empty() {
        return None;
    }
    let mut by_set: Vec<(&str, Vec<&str>)> = Vec::new();
    for scenario in &report.scenarios {
        let set = report.header_set(scenario);
        match by_set.iter_mut().find(|(s, _)| *s == set) {
            Some((_, scenarios)) => scenarios.push(scenario),
            None => by_set.push((set, vec![scenario])),
        }
    }
    let sets = match by_set.as_slice() {
        [] => return None,
        [(set, _)] => (*set).to_owned(),
        _ => by_set
            .iter()
            .map(|(set, scenarios)| format!("{set} ({})", scenarios.join(", ")))
            .collect::<Vec<_>>()
            .join(" · "),
    };
    Some(format!("request headers: {sets} (docs/header-sets.md)"))
}

/// The reference's table: one line per framework, one column per scenario.
pub(super) fn framework_table(report: &BenchReport, summary: &Summary) -> Table {
    let with_tax = summary.has_mw_vs_hello();
    let mut columns = vec![("framework", Align::Left), ("version", Align::Left)];
    columns.extend(summary.scenarios.iter().map(|s| (s.as_str(), Align::Right)));
    if with_tax {
        columns.push(("mw vs hello", Align::Right));
        columns.push(("chain µs/req", Align::Right));
    }
    let mut table = Table::new(&columns);
    for framework in &summary.frameworks {
        let version = report
            .header
            .tool
            .framework_versions
            .get(framework)
            .or_else(|| report.header.tool.dependency_versions.get(framework))
            .cloned()
            .unwrap_or_default();
        let mut cells = vec![framework.clone(), version];
        for scenario in &summary.scenarios {
            let cell = match summary.row(framework, scenario) {
                None => NONE.to_owned(),
                Some(row) if row.failure.is_some() => FAILED.to_owned(),
                Some(row) => row.rps_ok.map_or(NONE.to_owned(), |s| {
                    format::rps_marked(s.median, row.client_bound)
                }),
            };
            cells.push(cell);
        }
        if with_tax {
            let framework = summary.framework(framework);
            let tax = framework.and_then(|f| f.mw_vs_hello_pct);
            cells.push(tax.map_or(NONE.to_owned(), format::percent));
            let cost = framework.and_then(|f| f.mw_cost_us);
            cells.push(cost.map_or(NONE.to_owned(), |us| format!("{us:+.1}")));
        }
        table.push(cells);
    }
    table
}

/// How to read the per-scenario tables, said once above them.
pub(super) const SCENARIO_LEGEND: [&str; 3] = [
    "Per scenario, ranked by req/s: median [min–max] over rounds; p50 and p99 are medians over rounds;",
    "server µs/req = the server process's CPU time per answer (right even when the client set the pace);",
    "errors = transport errors + non-2xx + validation mismatches, summed over rounds.",
];

/// One scenario's rows, ranked.
pub(super) fn scenario_table(summary: &Summary, scenario: &str) -> Table {
    let vs = format!("vs {BASELINE}");
    let mut table = Table::new(&[
        ("rank", Align::Right),
        ("framework", Align::Left),
        ("req/s", Align::Right),
        ("[min–max]", Align::Right),
        ("server µs/req", Align::Right),
        ("p50 ms", Align::Right),
        ("p99 ms", Align::Right),
        ("errors", Align::Right),
        (vs.as_str(), Align::Right),
    ]);
    for row in summary.ranked(scenario) {
        let rank = row.rank.map_or(NONE.to_owned(), |r| r.to_string());
        let rps = match (&row.failure, row.rps_ok) {
            (None, Some(rps)) => rps,
            (failure, _) => {
                // No figures: the reason in the req/s column, the rest blank.
                let reason = if failure.is_some() { FAILED } else { "no rounds" };
                let mut cells = vec![rank, row.framework.clone(), reason.to_owned()];
                cells.resize(table.columns(), NONE.to_owned());
                table.push(cells);
                continue;
            }
        };
        table.push(vec![
            rank,
            row.framework.clone(),
            format::rps_marked(rps.median, row.client_bound),
            format::rps_range(rps.min, rps.max),
            row.cost
                .map_or(NONE.to_owned(), |c| format!("{:.2}", c.server_us())),
            row.p50_us.map_or(NONE.to_owned(), format::ms),
            row.p99_us.map_or(NONE.to_owned(), format::ms),
            row.failures().to_string(),
            row.ratio_to_hyper.map_or(NONE.to_owned(), format::ratio),
        ]);
    }
    table
}

/// The start-up table's title: what its columns measure from.
pub(super) const STARTUP_TITLE: &str =
    "Start-up, from starting the row's server process: runtime ready → app loaded → first validated answer";

/// Where each JS row's start-up went; `None` when no row's server said.
pub(super) fn startup_table(summary: &Summary) -> Option<Table> {
    if summary.rows.iter().all(|row| row.startup_split.is_none()) {
        return None;
    }
    let mut table = Table::new(&[
        ("framework", Align::Left),
        ("scenario", Align::Left),
        ("runtime ready", Align::Right),
        ("app loaded", Align::Right),
        ("first answer", Align::Right),
    ]);
    for row in &summary.rows {
        let (Some(split), Some(answer)) = (row.startup_split, row.startup_s) else {
            continue;
        };
        table.push(vec![
            row.framework.clone(),
            row.scenario.clone(),
            crate::units::start_up(split.runtime_ready_s),
            crate::units::start_up(split.app_loaded_s),
            crate::units::start_up(answer),
        ]);
    }
    Some(table)
}

/// The footnote under a table whose `rows` include client-bound ones.
fn client_bound_note<'a>(report: &BenchReport, rows: impl Iterator<Item = &'a RowSummary>) -> Option<String> {
    let shares: Vec<(f64, f64)> = rows.filter_map(RowSummary::client_bound_shares).collect();
    format::client_bound_note(&shares, report.header.pinning.load_cpus.len())
}

/// One failed row, for the list below the tables.
pub(super) struct Failure<'a> {
    /// `framework × scenario`.
    pub(super) row: String,
    /// Why it failed.
    pub(super) reason: &'a str,
    /// The server's last stderr lines, if it wrote any.
    pub(super) stderr_tail: Option<&'a str>,
}

pub(super) fn failures(report: &BenchReport) -> Vec<Failure<'_>> {
    report
        .rows
        .iter()
        .filter_map(|row| match &row.status {
            RowStatus::Ok => None,
            RowStatus::Failed { reason, stderr_tail } => Some(Failure {
                row: format!("{} × {}", row.framework, row.scenario),
                reason,
                stderr_tail: stderr_tail.as_deref().filter(|t| !t.trim().is_empty()),
            }),
        })
        .collect()
}

/// Escapes markdown emphasis and code characters in running text, and keeps
/// it on one line, its control characters escaped ([`printable`]).
fn escape_inline(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in escape(&printable(text)).chars() {
        if matches!(c, '*' | '_' | '`' | '<' | '[' | ']') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_markdown_is_escaped() {
        assert_eq!(
            escape_inline("a_b *c* `d` [e] f|g"),
            "a\\_b \\*c\\* \\`d\\` \\[e\\] f\\|g"
        );
    }

    #[test]
    fn fences_outgrow_backticks_in_the_tail() {
        assert_eq!(longest_backtick_run("a ```` b ` c"), 4);
        assert_eq!(longest_backtick_run("plain"), 0);
    }
}
