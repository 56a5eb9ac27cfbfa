//! `fwbench bench`, the main job: validate every row, then measure them in
//! interleaved rounds (A B C A B C …) with the load generator pinned to one
//! CPU set and each row's server to the other, and write the reports.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use hdrhistogram::Histogram;

use super::matrix::{self, NotRun};
use super::progress::Progress;
use super::registry::{self, Kind};
use super::server::{self, ServerProcess, ServerSpec};
use super::{machine, probe, START_TIMEOUT};
use crate::cli::{BenchArgs, Outcome};
use crate::load::{self, ExpectHeader, Expectations, LoadPlan, LoadReport, RequestSpec};
use crate::report::{self, BenchReport, Percentiles, Pinning, Round, RowKind, ToolInfo};
use crate::scenario::{self, ScenarioInfo};

/// Load-generator CPU use (per thread, of wall time) above which a row's
/// figure is flagged as possibly client-bound.
const CLIENT_SATURATION: f64 = 0.9;

/// A row being measured: its server and what to send it.
struct LiveRow {
    framework: &'static str,
    scenario: String,
    kind: RowKind,
    server: ServerProcess,
    info: ScenarioInfo,
    histogram: Option<Histogram<u64>>,
}

/// Runs `fwbench bench`.
pub fn run(args: &BenchArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let (server_cpus, load_cpus, pin_note) = cpu_sets(args)?;
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let matrix = matrix::Matrix::resolve(&args.matrix, &tokio)?;
    let rows = matrix.rows();

    let out_dir = args.out.clone().unwrap_or_else(default_out_dir);
    std::fs::create_dir_all(out_dir.join("hdr"))
        .with_context(|| format!("cannot create the output directory {}", out_dir.display()))?;

    let mut report = BenchReport::new(
        tool_info(&matrix.frameworks),
        machine::describe(),
        Pinning {
            server_cpus: server_cpus.clone(),
            load_cpus: load_cpus.clone(),
            applied: pin_note.is_none(),
            note: pin_note.clone(),
        },
        serde_json::to_value(args).context("cannot record the options")?,
        rfc3339_now(),
    );
    if let Some(note) = &pin_note {
        report.warnings.push(note.clone());
    }
    // The load generator's threads inherit this thread's CPU set; each row's
    // server is pinned to the other set when it starts.
    if pin_note.is_none() {
        server::pin_current_thread(&load_cpus)?;
    }
    let cancel = load::cancel_on_ctrl_c();

    // Start and validate every row; failed rows are reported, the run goes on.
    eprintln!("fwbench bench: starting and validating {} rows", rows.len());
    let mut live = Vec::new();
    for row in &rows {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        let kind = match row.framework.kind {
            Kind::Js => RowKind::Js,
            Kind::Native => RowKind::Native,
        };
        let name = row.scenario.source.name.clone();
        match &row.not_run {
            Some(NotRun::Skipped(_)) => continue,
            Some(NotRun::Failed(reason)) => {
                report
                    .row_mut(row.framework.name, &name, kind)
                    .fail(reason.clone(), None);
                continue;
            }
            None => {}
        }
        let Ok(info) = &row.scenario.info else { continue };
        let spec = ServerSpec {
            framework: row.framework.name.to_owned(),
            scenario: row.scenario.source.url_arg(),
            workers: args.workers.into(),
            cpus: if pin_note.is_none() {
                server_cpus.clone()
            } else {
                Vec::new()
            },
        };
        match start_and_validate(&spec, info, &tokio) {
            Ok(server) => {
                report.row_mut(row.framework.name, &name, kind);
                live.push(LiveRow {
                    framework: row.framework.name,
                    scenario: name,
                    kind,
                    server,
                    info: info.clone(),
                    histogram: None,
                });
            }
            Err((reason, tail)) => {
                eprintln!(
                    "fwbench bench: {} / {name} failed validation: {reason}",
                    row.framework.name
                );
                report.row_mut(row.framework.name, &name, kind).fail(reason, tail);
            }
        }
    }

    // Rounds: every live row once per round, in the same order.
    let measurements = live.len() * args.rounds as usize;
    let progress = Progress::new(measurements, args.duration + args.warmup);
    let mut step = 0;
    let load_threads = load_cpus.len().max(1);
    let mut saturated: Vec<(&str, String)> = Vec::new();
    'rounds: for round in 0..args.rounds {
        for row in live.iter_mut() {
            if cancel.load(Ordering::Relaxed) {
                break 'rounds;
            }
            progress.step(
                step,
                format!(
                    "round {}/{}  {} / {}",
                    round + 1,
                    args.rounds,
                    row.framework,
                    row.scenario
                ),
            );
            step += 1;
            if report
                .row(row.framework, &row.scenario)
                .is_some_and(|r| !r.is_ok())
            {
                continue;
            }
            let outcome = measure(row, args, load_threads, &cancel);
            let entry = report.row_mut(row.framework, &row.scenario, row.kind);
            match outcome {
                // A run cut short by Ctrl-C is not a round.
                Ok(measured) if measured.interrupted => break 'rounds,
                Ok(measured) => {
                    entry.push_round(to_round(&measured, row.info.expect.status));
                    // Honesty about the client: a saturated load generator
                    // measures itself, not the server.
                    let busy = measured.client.process_cpu_per_wall / load_threads as f64;
                    if busy > CLIENT_SATURATION && !saturated.contains(&(row.framework, row.scenario.clone()))
                    {
                        saturated.push((row.framework, row.scenario.clone()));
                        report.warnings.push(format!(
                            "{} / {}: the load generator used {:.0}% of its CPUs; the figure may be bounded by the client",
                            row.framework,
                            row.scenario,
                            busy * 100.0
                        ));
                    }
                    match &mut row.histogram {
                        Some(all) => {
                            let _ = all.add(&measured.histogram);
                        }
                        None => row.histogram = Some(measured.histogram),
                    }
                }
                Err(error) => {
                    let crashed = row.server.check_alive().err();
                    let reason = match crashed {
                        Some(crash) => format!("{crash:#}"),
                        None => format!("{error:#}"),
                    };
                    let tail = row.server.stderr_tail();
                    entry.fail(reason, (!tail.is_empty()).then_some(tail));
                }
            }
        }
    }
    drop(progress);
    if cancel.load(Ordering::Relaxed) {
        report
            .warnings
            .push("stopped by Ctrl-C: only the rounds finished before it are reported".into());
    }

    // HDR percentile files, one per row over all its rounds.
    for row in &live {
        let Some(histogram) = &row.histogram else { continue };
        let file = out_dir
            .join("hdr")
            .join(format!("{}-{}.hgrm", row.framework, row.scenario));
        let written = std::fs::File::create(&file)
            .and_then(|mut f| load::write_percentiles(histogram, &mut f))
            .with_context(|| format!("cannot write {}", file.display()));
        match written {
            Ok(()) => {
                report.row_mut(row.framework, &row.scenario, row.kind).hdr_file =
                    Some(file.display().to_string());
            }
            Err(error) => report.warnings.push(format!("{error:#}")),
        }
    }
    for row in live {
        row.server.stop();
    }
    report.wall_time_s = started.elapsed().as_secs_f64();
    write_reports(&report, args, &out_dir)?;
    let failed = report.rows.iter().filter(|row| !row.is_ok()).count();
    if failed > 0 {
        return Ok(Outcome::Failed(format!(
            "{failed} of {} rows failed (see the table)",
            report.rows.len()
        )));
    }
    Ok(Outcome::Passed)
}

/// Starts a row's server and checks one answer against the scenario.
fn start_and_validate(
    spec: &ServerSpec,
    info: &ScenarioInfo,
    tokio: &tokio::runtime::Runtime,
) -> Result<ServerProcess, (String, Option<String>)> {
    let mut server = ServerProcess::start(spec, START_TIMEOUT).map_err(|e| (format!("{e:#}"), None))?;
    let tail = |server: &ServerProcess| {
        let tail = server.stderr_tail();
        (!tail.is_empty()).then_some(tail)
    };
    match tokio.block_on(probe::send(server.addr, &info.request, Duration::from_secs(10))) {
        Ok(seen) => {
            let problems = scenario::mismatches(&info.expect, &seen);
            if problems.is_empty() {
                Ok(server)
            } else {
                Err((format!("validation: {}", problems.join("; ")), tail(&server)))
            }
        }
        Err(error) => {
            let crashed = server
                .check_alive()
                .err()
                .map(|e| format!("; {e:#}"))
                .unwrap_or_default();
            Err((
                format!("validation request failed: {error:#}{crashed}"),
                tail(&server),
            ))
        }
    }
}

/// One measurement of a row: warm-up, then `--duration` of closed-loop load
/// with every response validated.
fn measure(
    row: &LiveRow,
    args: &BenchArgs,
    threads: usize,
    cancel: &Arc<AtomicBool>,
) -> anyhow::Result<LoadReport> {
    let url = format!("http://{}{}", row.server.addr, row.info.request.path);
    let mut plan = LoadPlan::new(&url)?;
    plan.request = RequestSpec {
        method: row.info.request.method.clone(),
        headers: row.info.request.headers.clone(),
        body: row.info.request.body.clone().unwrap_or_default().into_bytes(),
    };
    plan.connections = args.connections;
    plan.threads = threads;
    plan.duration = Some(args.duration);
    plan.warmup = args.warmup;
    plan.progress = false;
    let expect = &row.info.expect;
    let mut headers: Vec<ExpectHeader> = expect
        .headers
        .iter()
        .map(|(name, value)| ExpectHeader {
            name: name.clone(),
            value: Some(value.clone()),
        })
        .collect();
    if expect.content_type.is_some() {
        // Validated by media type before load; during load, its presence.
        headers.push(ExpectHeader {
            name: "content-type".into(),
            value: None,
        });
    }
    plan.expect = Expectations {
        status: Some(expect.status),
        headers,
        body: expect.body.clone().map(String::into_bytes),
    };
    Ok(load::execute_until(&plan, cancel.clone())?)
}

/// A measurement as a report round. A success is a validated answer: for
/// the usual 2xx expectation the load generator's own count; for a
/// scenario that expects another status (say 404), every answer that
/// passed validation, and only other statuses count against the row.
fn to_round(measured: &LoadReport, expected_status: u16) -> Round {
    let latency = &measured.latency;
    let expects_2xx = (200..300).contains(&expected_status);
    let successes = if expects_2xx {
        measured.successes
    } else {
        measured.responses.saturating_sub(measured.mismatches_total)
    };
    let non_2xx = measured
        .status
        .iter()
        .filter(|(code, _)| {
            if expects_2xx {
                !(200..300).contains(*code)
            } else {
                **code != expected_status
            }
        })
        .map(|(_, n)| n)
        .sum();
    Round {
        errors: measured.errors_total,
        non_2xx,
        mismatches: measured.mismatches_total,
        ..Round::new(
            measured.measured_s,
            measured.responses,
            successes,
            Percentiles {
                mean: latency.mean_us,
                stdev: latency.stdev_us,
                p50: latency.p50_us,
                p90: latency.p90_us,
                p99: latency.p99_us,
                p999: latency.p99_9_us,
                p9999: latency.p99_99_us,
                max: latency.max_us,
            },
        )
    }
}

/// The terminal (or Markdown) tables on stdout; every file in `out_dir`.
fn write_reports(report: &BenchReport, args: &BenchArgs, out_dir: &Path) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    if args.markdown {
        report::write_markdown(report, &mut stdout)?;
    } else {
        report::write_terminal(report, &mut stdout)?;
    }
    let write = |path: &Path, writer: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>| {
        let mut file =
            std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        writer(&mut file).with_context(|| format!("cannot write {}", path.display()))
    };
    write(&out_dir.join("report.json"), &|w| report::write_json(report, w))?;
    write(&out_dir.join("report.md"), &|w| report::write_markdown(report, w))?;
    write(&out_dir.join("report.csv"), &|w| report::write_csv(report, w))?;
    write(&out_dir.join("chart.svg"), &|w| report::write_svg(report, w))?;
    if let Some(path) = &args.json {
        write(path, &|w| report::write_json(report, w))?;
    }
    if let Some(path) = &args.csv {
        write(path, &|w| report::write_csv(report, w))?;
    }
    println!(
        "\nwall time {:.0} s; reports in {} (report.json, report.md, report.csv, chart.svg, hdr/)",
        report.wall_time_s,
        out_dir.display()
    );
    Ok(())
}

/// The server and load CPU sets, or (when they cannot be separated) a note
/// saying why nothing is pinned.
fn cpu_sets(args: &BenchArgs) -> anyhow::Result<(Vec<usize>, Vec<usize>, Option<String>)> {
    let allowed = server::allowed_cpus();
    let parse = |text: &Option<String>, flag: &str| -> anyhow::Result<Option<Vec<usize>>> {
        text.as_deref()
            .map(|t| parse_cpu_list(t).with_context(|| format!("invalid --{flag} '{t}'")))
            .transpose()
    };
    let server = parse(&args.server_cpus, "server-cpus")?;
    let load = parse(&args.load_cpus, "load-cpus")?;
    for cpu in server.iter().chain(load.iter()).flatten() {
        if !allowed.contains(cpu) {
            bail!("CPU {cpu} is not available to this process (available: {allowed:?})");
        }
    }
    let half = allowed.len() / 2;
    let server = server.unwrap_or_else(|| allowed[..half.max(1).min(allowed.len())].to_vec());
    let load = load.unwrap_or_else(|| allowed.iter().copied().filter(|c| !server.contains(c)).collect());
    if load.is_empty() || server.iter().any(|cpu| load.contains(cpu)) {
        let note = format!(
            "servers and load generator share CPUs (available: {allowed:?}); not pinned, figures include their contention"
        );
        return Ok((server, load, Some(note)));
    }
    Ok((server, load, None))
}

/// Parses `0`, `0,2` or `0-3` into CPU numbers.
fn parse_cpu_list(text: &str) -> anyhow::Result<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.trim().parse()?, b.trim().parse()?);
                if a > b {
                    bail!("range {part} runs backwards");
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse()?),
        }
    }
    if cpus.is_empty() {
        bail!("no CPUs listed (expected e.g. 0, 0,2 or 0-3)");
    }
    Ok(cpus)
}

fn tool_info(frameworks: &[&'static registry::Framework]) -> ToolInfo {
    let framework_versions = frameworks
        .iter()
        .map(|framework| (framework.name.to_owned(), registry::version(framework)))
        .collect();
    let mut dependency_versions: std::collections::BTreeMap<String, String> = HashMap::from([
        ("deno_core", option_env!("FWBENCH_DEP_DENO_CORE")),
        ("deno_web", option_env!("FWBENCH_DEP_DENO_WEB")),
        ("deno_fetch", option_env!("FWBENCH_DEP_DENO_FETCH")),
        ("v8x (QuickJS-ng backend)", option_env!("FWBENCH_DEP_V8X")),
        ("hyper", option_env!("FWBENCH_DEP_HYPER")),
        ("axum", option_env!("FWBENCH_DEP_AXUM")),
        ("tokio", option_env!("FWBENCH_DEP_TOKIO")),
    ])
    .into_iter()
    .filter_map(|(name, version)| Some((name.to_owned(), version?.to_owned())))
    .collect();
    for (name, version) in &crate::engine::embedded::vendor_manifest().frameworks {
        dependency_versions.insert(format!("npm:{name}"), version.clone());
    }
    ToolInfo {
        fwbench_version: env!("CARGO_PKG_VERSION").to_owned(),
        engine: crate::engine::engine_name().to_owned(),
        framework_versions,
        dependency_versions,
    }
}

fn default_out_dir() -> PathBuf {
    let stamp = rfc3339_now().replace([':', '-'], "").replace('T', "-");
    PathBuf::from("fwbench-results").join(stamp.trim_end_matches('Z'))
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_take_singles_lists_and_ranges() {
        assert_eq!(parse_cpu_list("1").unwrap(), [1]);
        assert_eq!(parse_cpu_list("0,2").unwrap(), [0, 2]);
        assert_eq!(parse_cpu_list("0-3").unwrap(), [0, 1, 2, 3]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
    }

    #[test]
    fn dates_convert_from_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_789), (2026, 12, 2));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
