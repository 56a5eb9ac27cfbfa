//! The validated plan of a bench run, as `load` has one
//! ([`LoadPlan`](crate::load::LoadPlan)): [`BenchPlan::from_args`] turns
//! `fwbench bench`'s flags into the CPU sets, the matrix (scenarios loaded)
//! and the output directory (created), and fails — exit status 2 — before
//! any row starts. The report's `options` is this plan, serialized.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use serde::Serialize;

use super::clock;
use super::cpus::CpuSets;
use super::matrix::Matrix;
use super::remote::ServerMachine;
use crate::cli::{BenchArgs, RunArgs};

/// Everything a bench run needs, validated.
#[derive(Serialize)]
pub struct BenchPlan {
    /// The frameworks × scenarios, scenarios loaded.
    #[serde(flatten)]
    pub matrix: Matrix,
    /// Measured time per row per round.
    #[serde(rename = "duration_s", serialize_with = "as_secs")]
    pub duration: Duration,
    /// Unmeasured load before each measurement.
    #[serde(rename = "warmup_s", serialize_with = "as_secs")]
    pub warmup: Duration,
    /// Keep-alive connections of the load generator.
    pub connections: usize,
    /// Rounds over all rows.
    pub rounds: u32,
    /// Worker threads per server.
    pub workers: usize,
    /// Where servers and load generator run.
    pub cpus: CpuSets,
    /// The machine the row servers run on (`--server-host`), checked;
    /// `None`: this one.
    #[serde(
        rename = "server_host",
        skip_serializing_if = "Option::is_none",
        serialize_with = "as_machine"
    )]
    pub server_machine: Option<std::sync::Arc<ServerMachine>>,
    /// How long a row's server may take to listen (per attempt).
    #[serde(rename = "start_timeout_s", serialize_with = "as_secs")]
    pub start_timeout: Duration,
    /// The directory every artifact goes to (exists, with `hdr/`).
    pub out_dir: PathBuf,
    /// Extra copy of the JSON report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<PathBuf>,
    /// Extra copy of the CSV.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csv: Option<PathBuf>,
    /// Tables on stdout as Markdown.
    pub markdown: bool,
    /// How long each JS row is served inside its runtime after the rounds
    /// (zero: not at all).
    #[serde(rename = "in_runtime_s", serialize_with = "as_secs")]
    pub in_runtime: Duration,
    /// Connections of the load after the rounds that prices one more open
    /// connection in resident memory (`None`: not measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_connections: Option<usize>,
    /// Requests of each row's warm-up curve, before the rounds (`None`:
    /// no curve).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup_curve: Option<u64>,
}

impl BenchPlan {
    /// Builds the plan: CPU sets checked against the CPUs this process may
    /// use (the server's against the server host's), frameworks and scenarios resolved and loaded, the output
    /// directory created, and the directories of `--json` and `--csv`
    /// checked to exist.
    pub fn from_args(args: &BenchArgs, tokio: &tokio::runtime::Runtime) -> anyhow::Result<BenchPlan> {
        let matrix = Matrix::resolve(&args.matrix, tokio)?;
        let mut plan = BenchPlan::new(matrix, &args.run)?;
        plan.markdown = args.markdown;
        plan.in_runtime = args.in_runtime;
        plan.warmup_curve = args.warmup_curve;
        if let Some(n) = args.memory_connections {
            if n <= plan.connections {
                bail!(
                    "--memory-connections {n} must be above --connections ({}): the extra \
                     connections are what it prices",
                    plan.connections
                );
            }
            plan.memory_connections = Some(n);
        }
        Ok(plan)
    }

    /// How many load generator threads a measurement runs: one per CPU of
    /// the load set (at least one).
    pub fn load_threads(&self) -> usize {
        self.cpus.load.len().max(1)
    }

    /// The plan for `matrix` (already resolved) measured as `args` say;
    /// with `--server-host`, that host checked over SSH.
    pub fn new(matrix: Matrix, args: &RunArgs) -> anyhow::Result<BenchPlan> {
        let server_machine = ServerMachine::connect(&args.remote)?.map(std::sync::Arc::new);
        let cpus = match &server_machine {
            Some(host) => CpuSets::resolve_remote(
                args.server_cpus.as_deref(),
                args.load_cpus.as_deref(),
                &host.facts.cpus,
            )?,
            None => CpuSets::resolve(args.server_cpus.as_deref(), args.load_cpus.as_deref())?,
        };
        let out_dir = args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("fwbench-results").join(clock::compact_now()));
        std::fs::create_dir_all(out_dir.join("hdr"))
            .with_context(|| format!("cannot create the output directory {}", out_dir.display()))?;
        for (flag, file) in [("--json", &args.json), ("--csv", &args.csv)] {
            if let Some(file) = file {
                check_parent(flag, file)?;
            }
        }
        Ok(BenchPlan {
            matrix,
            duration: args.duration,
            warmup: args.warmup,
            connections: args.connections,
            rounds: args.rounds,
            workers: args.workers.into(),
            cpus,
            server_machine,
            start_timeout: args.start_timeout,
            out_dir,
            json: args.json.clone(),
            csv: args.csv.clone(),
            markdown: false,
            in_runtime: Duration::ZERO,
            memory_connections: None,
            warmup_curve: None,
        })
    }
}

/// Fails unless the directory `file` would be written in exists.
fn check_parent(flag: &str, file: &Path) -> anyhow::Result<()> {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => bail!(
            "{flag} {}: the directory {} does not exist",
            file.display(),
            dir.display()
        ),
        _ => Ok(()),
    }
}

fn as_machine<S: serde::Serializer>(
    machine: &Option<std::sync::Arc<ServerMachine>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    machine.as_deref().serialize(serializer)
}

fn as_secs<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_file_in_a_missing_directory_is_refused_by_name() {
        let error = check_parent("--json", Path::new("/no/such/dir/r.json"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("--json /no/such/dir/r.json"), "{error}");
        assert!(check_parent("--json", Path::new("r.json")).is_ok());
    }
}
