//! A JS row's cost without the transport, as `bench` measures it after the
//! rounds: `fwbench serve --in-runtime` (src/in_runtime.rs) in a child
//! process pinned like the row's server (on the server host with
//! `--server-host`), its one JSON line read back.

use std::time::Duration;

use super::child::{output_within, NoOutput};
use super::remote::EXIT_MARKER;
use super::spec::ServerSpec;
use crate::in_runtime::InRuntimeReport;
use crate::report::cost::InRuntimeCost;

/// How long loading the app may take on top of the run itself.
const LOAD_ALLOWANCE: Duration = Duration::from_secs(30);

/// Serves `spec`'s request inside its runtime for `warmup`, then
/// `duration`; the cost, or why it could not be measured (in `error`).
pub fn measure(spec: &ServerSpec, warmup: Duration, duration: Duration) -> InRuntimeCost {
    match run_child(spec, warmup, duration) {
        Ok(report) => {
            let per_request = |total: u64| total as f64 / report.requests.max(1) as f64;
            InRuntimeCost {
                requests: report.requests,
                cpu_us: report.cpu_us_per_request,
                bytes_per_request: report.heap.map(|h| per_request(h.allocated_bytes)),
                gc_us: report
                    .heap
                    .map(|h| per_request(h.young_gc_ns + h.full_gc_ns) / 1e3),
                mismatches: report.mismatches,
                error: report
                    .first_mismatch
                    .map(|m| format!("wrong answers, first: {m}")),
            }
        }
        Err(error) => InRuntimeCost {
            requests: 0,
            cpu_us: 0.0,
            bytes_per_request: None,
            gc_us: None,
            mismatches: 0,
            error: Some(error),
        },
    }
}

fn run_child(spec: &ServerSpec, warmup: Duration, duration: Duration) -> Result<InRuntimeReport, String> {
    let mut args: Vec<String> = vec!["serve".into()];
    args.extend(spec.app_args());
    if let Some(headers) = spec.headers {
        args.extend(["--headers".into(), headers.name().into()]);
    }
    args.extend([
        "--in-runtime".into(),
        format!("{}ms", duration.as_millis()),
        "--in-runtime-warmup".into(),
        format!("{}ms", warmup.as_millis()),
    ]);
    // It ends by itself: stdin stays closed, here or on another machine.
    let (command, _) = spec.command(&args, None)?;
    let limit = warmup + duration + LOAD_ALLOWANCE;
    let output = match output_within(command, limit, u64::MAX) {
        Ok(output) => output,
        Err(NoOutput::Spawn(e)) => return Err(format!("cannot start fwbench serve: {e}")),
        Err(NoOutput::TimedOut | NoOutput::TooLarge) => return Err(format!("no result within {limit:?}")),
    };
    let status = output.status;
    // As text, or nothing when it is not UTF-8 (no result line then).
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap_or_default();
    let (stdout, stderr) = (text(output.stdout), text(output.stderr));
    // A run whose answers differed from the scenario's still wrote its
    // figures (and exited 1): the report carries them with the count.
    let line = stdout.lines().last().unwrap_or_default();
    if let Ok(report) = serde_json::from_str::<InRuntimeReport>(line) {
        return Ok(report);
    }
    if !status.success() {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with(EXIT_MARKER))
            .unwrap_or("no message");
        return Err(format!("it failed ({status}): {last}"));
    }
    serde_json::from_str(line).map_err(|e| format!("unreadable result {line:?}: {e}"))
}
