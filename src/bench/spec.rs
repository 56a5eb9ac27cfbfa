//! What a row's server is: the `fwbench serve` command line that serves
//! one framework × scenario row, its workers, its CPUs and the machine it
//! runs on, and how the process is set up (pinned, in its own process
//! group, ended with bench).

use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;

use super::cpus::cpu_set;
use super::launch::Launch;
use super::matrix::{Foreign, MatrixRow};
use super::remote::ServerMachine;
use super::runtimes::RuntimeKind;
use super::telemetry;
use crate::frameworks::Serving;
use crate::scenario::ScenarioRef;

/// What to start, and where.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// Framework name (`hono`, `axum`, …).
    pub framework: String,
    /// Scenario: a built-in name or a file path.
    pub scenario: String,
    /// The scenario's chain length, when not its default (`--depth`).
    pub depth: Option<usize>,
    /// Concerns left out of the scenario's chain (`--without`).
    pub without: Vec<String>,
    /// The header set asked for (`--headers`), which an in-runtime run
    /// (`serve --in-runtime`) sends; a row server only answers, so it
    /// ignores it.
    pub headers: Option<crate::header_sets::HeaderSet>,
    /// Worker threads.
    pub workers: usize,
    /// CPUs the server may run on (empty: no pinning); with `machine`,
    /// that machine's.
    pub cpus: Vec<usize>,
    /// The machine it runs on over SSH (`--server-host`); `None`: this one.
    pub machine: Option<Arc<ServerMachine>>,
    /// An app row's project (`--app`): served as `fwbench serve DIR`
    /// instead of a framework's scenario app.
    pub app: Option<std::path::PathBuf>,
    /// A runtime row's runtime, and the scenario whose app it serves:
    /// served by that runtime's launcher instead of `fwbench serve`.
    pub foreign: Option<(Foreign, ScenarioRef)>,
}

impl ServerSpec {
    /// The server of `row` (its framework, and its scenario with the
    /// chain depth, concerns left out and header set chosen), with
    /// `workers` workers pinned to `cpus` on `machine`. `check` and `bench`
    /// both start their rows from this, so an option reaches both.
    pub fn for_row(
        row: &MatrixRow,
        workers: usize,
        cpus: Vec<usize>,
        machine: Option<Arc<ServerMachine>>,
    ) -> Self {
        let source = &row.scenario.source;
        ServerSpec {
            framework: row.framework.name.to_owned(),
            scenario: source.url_arg(),
            depth: source.depth,
            without: source.without.clone(),
            headers: source.headers,
            workers,
            cpus,
            machine,
            app: row.app.map(std::path::Path::to_path_buf),
            foreign: row.foreign.clone().map(|foreign| (foreign, source.clone())),
        }
    }

    /// The `serve` arguments naming what it serves: the framework, the
    /// scenario, and its depth and concerns left out when chosen.
    pub fn app_args(&self) -> Vec<String> {
        if let Some(app) = &self.app {
            return vec![app.display().to_string()];
        }
        let mut args = vec![
            "--framework".to_owned(),
            self.framework.clone(),
            "--scenario".to_owned(),
            self.scenario.clone(),
        ];
        if let Some(depth) = self.depth {
            args.extend(["--depth".to_owned(), depth.to_string()]);
        }
        if !self.without.is_empty() {
            args.extend(["--without".to_owned(), self.without.join(",")]);
        }
        args
    }

    /// The command running `fwbench ARGS` for this spec, and where it
    /// runs: here, pinned and with `telemetry` as its channel's end, or on
    /// the spec's machine over SSH, pinned there (and with no channel: it
    /// does not cross SSH).
    pub(super) fn command(
        &self,
        args: &[String],
        telemetry: Option<OwnedFd>,
    ) -> Result<(Command, Launch), String> {
        if let Some((foreign, scenario)) = &self.foreign {
            if self.machine.is_some() {
                return Err("runtime rows run on this machine only, not with --server-host".to_owned());
            }
            let mut command = match &self.app {
                Some(project) => project_command(foreign, project)?,
                None => foreign_command(foreign, scenario)?,
            };
            as_row_child(&mut command, &self.cpus, None);
            return Ok((command, Launch::Local));
        }
        match &self.machine {
            Some(machine) => {
                let mut command = machine.command(args, &self.cpus);
                as_row_child(&mut command, &[], None);
                Ok((command, Launch::remote(machine.address)))
            }
            None => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find the fwbench executable: {e}"))?;
                let mut command = Command::new(exe);
                command.args(args);
                as_row_child(&mut command, &self.cpus, telemetry);
                Ok((command, Launch::Local))
            }
        }
    }
}

/// The command that serves `scenario`'s app for `foreign.base` on
/// `foreign.runtime`: its launcher, from the kit, with the main module
/// that builds the app as `fwbench serve` does.
fn foreign_command(foreign: &Foreign, scenario: &ScenarioRef) -> Result<Command, String> {
    let Serving::Js { factory, mode } = foreign.base.serving else {
        return Err(format!(
            "{} is a native row: no runtime serves it",
            foreign.base.name
        ));
    };
    let main = foreign
        .kit
        .main_module(scenario, foreign.base.name, factory, mode)?;
    let mut command = runtime_command(foreign);
    if foreign.runtime.kind == RuntimeKind::Deno {
        // Bare imports from the kit's own node_modules.
        command.arg("--node-modules-dir=manual");
    }
    command
        .arg(foreign.kit.launcher())
        .arg(mode.as_str())
        .arg(main)
        .current_dir(foreign.kit.dir());
    Ok(command)
}

/// The command that serves the `--app` project at `path` on
/// `foreign.runtime`: its entry, started as that runtime starts it, with
/// the kit's announce.mjs preloaded to say where it listens; PORT is 0 (the
/// system picks the port) and NODE_ENV production, as fwbench serves it.
fn project_command(foreign: &Foreign, path: &std::path::Path) -> Result<Command, String> {
    let (root, entry) = super::runtimes::project_entry(path).map_err(|e| format!("{e:#}"))?;
    let preload = match foreign.runtime.kind {
        RuntimeKind::Node => "--import",
        RuntimeKind::Deno | RuntimeKind::Bun => "--preload",
    };
    let mut command = runtime_command(foreign);
    command
        .arg(preload)
        .arg(foreign.kit.announcer())
        .arg(entry)
        .current_dir(root)
        .env("PORT", "0");
    Ok(command)
}

/// `foreign.runtime`'s binary with the arguments it runs a script with and
/// the environment fwbench serves an app in (NODE_ENV production, as
/// src/serve.rs; Deno's cache inside the kit, no update check, no prompt).
fn runtime_command(foreign: &Foreign) -> Command {
    let runtime = &foreign.runtime;
    let mut command = Command::new(&runtime.binary);
    command
        .args(runtime.kind.run_args())
        .env("NODE_ENV", "production");
    if foreign.gc_trace {
        command.args(super::runtimes::gc_trace::flags(runtime.kind));
    }
    if runtime.kind == RuntimeKind::Deno {
        command
            .env("DENO_DIR", foreign.kit.dir().join("deno-dir"))
            .env("DENO_NO_UPDATE_CHECK", "1")
            .env("DENO_NO_PROMPT", "1");
    }
    command
}

/// Sets up `command` as one of bench's row processes: pinned to `cpus`
/// (none: not pinned), with `telemetry` as its channel's end.
pub(super) fn as_row_child(command: &mut Command, cpus: &[usize], telemetry: Option<OwnedFd>) {
    let set = (!cpus.is_empty()).then(|| cpu_set(cpus));
    // SAFETY: runs in the forked child before exec and only makes
    // syscalls, on data built before the fork:
    // - its own process group, so the terminal's Ctrl-C reaches only
    //   `fwbench bench`, which then stops its rows itself;
    // - SIGTERM when `bench` dies, so a killed run leaves no servers;
    // - the server CPU set;
    // - its end of the telemetry channel.
    unsafe {
        command.pre_exec(move || {
            libc::setpgid(0, 0);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            if let Some(theirs) = &telemetry {
                telemetry::hand_over(theirs)?;
            }
            if let Some(set) = &set {
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}
