//! One row's server: a `fwbench serve --framework F --scenario S` child
//! process, pinned to the server CPU set, so no framework's global patching
//! can reach another row and every row gets the same adapter and settings.
//!
//! Starting one says what happened when it does not start: still running
//! with no banner after the wait, exited with a status, or killed by a
//! signal, each with the time it took and the process's stderr tail.
//!
//! With `--server-host` the child is `ssh` running the same `fwbench serve`
//! on that host (remote.rs): the banner and stderr come through the
//! session, closing its stdin stops the server, and the server's CPU time
//! and heap figures, read here from /proc and a local socket, are not
//! taken.

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::cpus::cpu_set;
use super::remote::{self, ServerHost};
use super::telemetry::{self, TelemetryChannel, SERVER_FD};
use crate::adapter::ServerSnapshot;

/// How many stderr lines a row keeps, to show when it fails.
const STDERR_TAIL_LINES: usize = 20;
/// How long a process that closed its stdout gets to finish exiting, so its
/// exit status and last stderr lines can be reported.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long a server on another host gets to stop after its stdin closed:
/// serve's 3 s, plus the session's round trips.
const REMOTE_STOP_WAIT: Duration = Duration::from_secs(5);

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
    /// CPUs the server may run on (empty: no pinning); with `host`, that
    /// host's.
    pub cpus: Vec<usize>,
    /// The host it runs on over SSH (`--server-host`); `None`: here.
    pub host: Option<Arc<ServerHost>>,
}

impl ServerSpec {
    /// The command running `fwbench ARGS` for this spec: here, pinned and
    /// with `telemetry` as its channel's end, or on the spec's host over
    /// SSH, pinned there (and with no channel: it does not cross SSH).
    pub(super) fn command(&self, args: &[String], telemetry: Option<OwnedFd>) -> Result<Command, String> {
        match &self.host {
            Some(host) => {
                let mut command = host.command(args, &self.cpus);
                as_row_child(&mut command, &[], None);
                Ok(command)
            }
            None => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find the fwbench executable: {e}"))?;
                let mut command = Command::new(exe);
                command.args(args);
                as_row_child(&mut command, &self.cpus, telemetry);
                Ok(command)
            }
        }
    }
}

impl ServerSpec {
    /// The `serve` arguments naming what it serves: the framework, the
    /// scenario, and its depth and concerns left out when chosen.
    pub fn app_args(&self) -> Vec<String> {
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
}

/// How a server process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this status.
    Status(i32),
    /// A signal killed it.
    Signal(i32),
}

impl Exit {
    fn of(status: ExitStatus) -> Exit {
        match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Status(code),
            (None, Some(signal)) => Exit::Signal(signal),
            // Neither a code nor a signal does not happen on Unix.
            (None, None) => Exit::Status(-1),
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Exit::Status(code) => write!(f, "exited with status {code}"),
            Exit::Signal(signal) => write!(f, "was killed by signal {signal}{}", signal_name(signal)),
        }
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGKILL => " (SIGKILL: out of memory, or killed from outside)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGBUS => " (SIGBUS)",
        _ => "",
    }
}

/// What was seen when a server did not start.
#[derive(Debug, Clone, PartialEq)]
pub enum NotStarted {
    /// The process could not be created.
    Spawn(String),
    /// Still running, but no banner after `waited`.
    Silent {
        /// How long it was given.
        waited: Duration,
        /// CPU time it used meanwhile: little means it was starved or
        /// blocked, much means it was busy.
        cpu: Option<Duration>,
    },
    /// It ended before printing its banner.
    Ended {
        /// How it ended.
        exit: Exit,
        /// Time from start to its end.
        after: Duration,
    },
    /// It printed something other than its banner.
    BadBanner(String),
}

impl NotStarted {
    /// Whether another attempt may fare better: a server that was still
    /// silent or was killed may have met a loaded machine; one that exited
    /// with a status gave its own answer.
    pub fn may_be_the_machine(&self) -> bool {
        matches!(
            self,
            NotStarted::Silent { .. }
                | NotStarted::Ended {
                    exit: Exit::Signal(_),
                    ..
                }
        )
    }
}

impl fmt::Display for NotStarted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotStarted::Spawn(error) => write!(f, "cannot start the server process: {error}"),
            NotStarted::Silent { waited, cpu } => {
                write!(
                    f,
                    "still running with no banner after {:.1} s",
                    waited.as_secs_f64()
                )?;
                match cpu {
                    Some(cpu) => write!(f, " (it used {:.1} s of CPU)", cpu.as_secs_f64()),
                    None => Ok(()),
                }
            }
            NotStarted::Ended { exit, after } => {
                write!(f, "{exit} after {:.1} s, before its banner", after.as_secs_f64())
            }
            NotStarted::BadBanner(line) => write!(f, "printed {line:?} instead of its banner"),
        }
    }
}

/// A server that did not start: what was seen, and its stderr tail.
#[derive(Debug, Clone, PartialEq)]
pub struct StartError {
    /// What was seen.
    pub seen: NotStarted,
    /// The last lines it wrote to stderr (may be empty).
    pub stderr_tail: String,
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

/// A running row server; killed (by its PID) when dropped.
pub struct ServerProcess {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Where its heap and GC counters are asked for.
    telemetry: Option<TelemetryChannel>,
    /// When it was spawned.
    spawned: Instant,
    /// When its runtime was ready and its app loaded, from its banner.
    loaded: Option<LoadedAt>,
    /// On another host: the address load goes to there, and the pipe
    /// whose closing stops it.
    remote: Option<Remote>,
}

/// What a server on another host needs besides its ssh child.
struct Remote {
    /// The host's address (the banner says 0.0.0.0).
    address: std::net::IpAddr,
    /// ssh's stdin: closing it ends the remote server's stdin.
    stdin: Option<ChildStdin>,
    /// How the remote server ended, as its wrapper wrote on stderr.
    exit: Arc<Mutex<Option<Exit>>>,
    /// Whether ssh's stderr has been read to its end.
    stderr_done: Arc<AtomicBool>,
}

/// When a JS row's server had its runtime ready and its app loaded, from
/// the spawn of its process: the server's own times since its `main`
/// (its banner's `started:` note), moved by what came before `main`
/// (exec, the dynamic loader), which is the time between the spawn and the
/// banner's arrival less the server's own time to its banner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedAt {
    /// The runtime was built, with the Web globals and preloaded modules.
    pub runtime_ready: Duration,
    /// Every worker had loaded and installed the app.
    pub app_loaded: Duration,
}

impl ServerProcess {
    /// Starts `fwbench serve` for `spec` and waits (up to `timeout`) until
    /// it listens.
    pub fn start(spec: &ServerSpec, timeout: Duration) -> Result<Self, StartError> {
        let mut args: Vec<String> = vec!["serve".into(), "--port".into(), "0".into()];
        args.extend(spec.app_args());
        args.extend(["--workers".into(), spec.workers.to_string()]);
        let (channel, theirs) = match &spec.host {
            // Reachable from here, and stopped by the end of its stdin.
            Some(_) => {
                args.extend(["--host", "0.0.0.0", "--stop-on-stdin-eof"].map(String::from));
                (None, None)
            }
            // Without the channel the row still runs, with no heap figures.
            None => match TelemetryChannel::pair() {
                Ok((channel, theirs)) => {
                    args.extend(["--telemetry-fd".into(), SERVER_FD.to_string()]);
                    (Some(channel), Some(theirs))
                }
                Err(_) => (None, None),
            },
        };
        let command = spec.command(&args, theirs).map_err(|error| StartError {
            seen: NotStarted::Spawn(error),
            stderr_tail: String::new(),
        })?;
        let remote = spec.host.as_ref().map(|host| host.address);
        let mut server = Self::spawn_at(command, timeout, remote)?;
        server.telemetry = channel;
        Ok(server)
    }

    /// The server's heap and GC counters and request times now (see
    /// [`TelemetryChannel::snapshot`]).
    pub fn telemetry(&mut self) -> Option<ServerSnapshot> {
        self.telemetry.as_mut()?.snapshot()
    }

    /// Runs `command` and waits (up to `timeout`) for the first stdout line
    /// to be `fwbench serve`'s banner.
    #[cfg(test)]
    fn spawn(command: Command, timeout: Duration) -> Result<Self, StartError> {
        Self::spawn_at(command, timeout, None)
    }

    /// [`Self::spawn`], for a server on the host at `remote` when given:
    /// its stdin is kept open (closing it stops the server) and the
    /// wrapper's exit line is read from its stderr.
    fn spawn_at(
        mut command: Command,
        timeout: Duration,
        remote: Option<std::net::IpAddr>,
    ) -> Result<Self, StartError> {
        let spawned = Instant::now();
        let stdin = if remote.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        };
        let mut child = command
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| StartError {
                seen: NotStarted::Spawn(e.to_string()),
                stderr_tail: String::new(),
            })?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let remote = remote.map(|address| Remote {
            address,
            stdin: child.stdin.take(),
            exit: Arc::new(Mutex::new(None)),
            stderr_done: Arc::new(AtomicBool::new(false)),
        });
        if let Some(err) = child.stderr.take() {
            let tail = stderr.clone();
            let exit = remote.as_ref().map(|r| (r.exit.clone(), r.stderr_done.clone()));
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    if let Some((exit, _)) = &exit {
                        if let Some(ended) = remote::exit_from_marker(&line) {
                            *exit.lock().unwrap_or_else(|poison| poison.into_inner()) = Some(ended);
                            continue;
                        }
                    }
                    let mut tail = tail.lock().unwrap_or_else(|poison| poison.into_inner());
                    if tail.len() == STDERR_TAIL_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
                if let Some((_, done)) = &exit {
                    done.store(true, Ordering::Release);
                }
            });
        }
        let (tx, rx) = std::sync::mpsc::channel();
        if let Some(out) = child.stdout.take() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(out);
                let mut banner = String::new();
                let _ = reader.read_line(&mut banner);
                let _ = tx.send(banner);
                // Keep draining so the child never blocks on a full pipe.
                let mut sink = Vec::new();
                let _ = reader.read_to_end(&mut sink);
            });
        }
        let mut server = ServerProcess {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stderr,
            telemetry: None,
            spawned,
            loaded: None,
            remote,
        };
        let seen = match rx.recv_timeout(timeout) {
            Ok(banner) => match parse_banner(&banner) {
                Some(mut addr) => {
                    if let Some(remote) = &server.remote {
                        addr.set_ip(remote.address);
                    }
                    server.addr = addr;
                    server.loaded = parse_loaded(&banner, spawned.elapsed());
                    return Ok(server);
                }
                // End of stdout: the process is ending; say how.
                None if banner.is_empty() => match server.child.wait_timeout(EXIT_GRACE) {
                    Some(status) => NotStarted::Ended {
                        exit: server.exit_of(status),
                        after: spawned.elapsed(),
                    },
                    None => NotStarted::BadBanner(banner),
                },
                None => NotStarted::BadBanner(banner.trim_end().to_owned()),
            },
            Err(RecvTimeoutError::Timeout) => match server.child.try_wait() {
                Ok(Some(status)) => NotStarted::Ended {
                    exit: server.exit_of(status),
                    after: spawned.elapsed(),
                },
                _ => NotStarted::Silent {
                    waited: timeout,
                    cpu: server.cpu_time(),
                },
            },
            Err(RecvTimeoutError::Disconnected) => NotStarted::BadBanner(String::new()),
        };
        // A silent server gets no grace: it has had its time.
        server.kill_now();
        // Give the stderr reader a moment to take the last lines.
        std::thread::sleep(Duration::from_millis(100));
        Err(StartError {
            seen,
            stderr_tail: server.stderr_tail(),
        })
    }

    /// When the process was spawned.
    pub fn spawned(&self) -> Instant {
        self.spawned
    }

    /// When its runtime was ready and its app loaded (a JS row whose
    /// banner said so).
    pub fn loaded(&self) -> Option<LoadedAt> {
        self.loaded
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|poison| poison.into_inner());
        tail.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// User plus system CPU time the server process (all its threads) has
    /// used so far; `None` when /proc cannot tell (it has ended, runs on
    /// another host, or this is not Linux).
    pub fn cpu_time(&self) -> Option<Duration> {
        super::cpu_time::process_cpu_time(self.local_pid()?)
    }

    /// The server's process id here; `None` for one on another host (the
    /// child here is ssh).
    pub fn local_pid(&self) -> Option<u32> {
        self.remote.is_none().then(|| self.child.id())
    }

    /// How the process ended, if it has (a server should run until stopped).
    pub fn exited(&mut self) -> Option<Exit> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(self.exit_of(status)),
            _ => None,
        }
    }

    /// How the server ended, given how its child here did: for a remote
    /// one, what its wrapper said (ssh cannot tell a signal there), else
    /// ssh's own status (255: the connection failed; its message is in the
    /// stderr tail).
    fn exit_of(&self, status: ExitStatus) -> Exit {
        let Some(remote) = &self.remote else {
            return Exit::of(status);
        };
        // The wrapper's line may still be on its way through the pipe.
        let deadline = Instant::now() + Duration::from_millis(500);
        while !remote.stderr_done.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let said = *remote.exit.lock().unwrap_or_else(|poison| poison.into_inner());
        said.unwrap_or_else(|| Exit::of(status))
    }

    /// Stops the server: SIGTERM, then SIGKILL if it lingers.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        if let Some(remote) = &mut self.remote {
            // The end of its stdin stops the remote server as SIGTERM would
            // (serve stops within 3 s); ssh then exits with the session.
            drop(remote.stdin.take());
            if self.child.wait_timeout(REMOTE_STOP_WAIT).is_some() {
                return;
            }
        }
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: signalling our own child by its PID.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        if self.child.wait_timeout(Duration::from_secs(3)).is_none() {
            self.kill_now();
        }
    }

    fn kill_now(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// `Child::wait` with a deadline.
pub(super) trait WaitTimeout {
    fn wait_timeout(&mut self, timeout: Duration) -> Option<ExitStatus>;
}

impl WaitTimeout for Child {
    fn wait_timeout(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The address in `fwbench serve`'s banner (`… on http://127.0.0.1:PORT/ …`).
fn parse_banner(banner: &str) -> Option<SocketAddr> {
    let start = banner.find("http://")? + "http://".len();
    banner[start..].split('/').next()?.parse().ok()
}

/// The start-up split in a JS row's banner (`… · started: runtime ready
/// R ms, app loaded A ms, banner B ms`, src/serve.rs), moved to the
/// spawner's clock: the banner arrived `banner_seen` after the spawn.
fn parse_loaded(banner: &str, banner_seen: Duration) -> Option<LoadedAt> {
    let note = &banner[banner.rfind("started: ")? + "started: ".len()..];
    let mut runtime_ready = None;
    let mut app_loaded = None;
    let mut at_banner = None;
    for part in note.trim_end().split(", ") {
        let (label, ms) = part.strip_suffix(" ms")?.rsplit_once(' ')?;
        let at = Duration::try_from_secs_f64(ms.parse::<f64>().ok()? / 1e3).ok()?;
        match label {
            "runtime ready" => runtime_ready = Some(at),
            "app loaded" => app_loaded = Some(at),
            "banner" => at_banner = Some(at),
            _ => {}
        }
    }
    let before_main = banner_seen.saturating_sub(at_banner?);
    Some(LoadedAt {
        runtime_ready: before_main + runtime_ready?,
        app_loaded: before_main + app_loaded?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Result<ServerProcess, StartError> {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        ServerProcess::spawn(command, timeout)
    }

    #[test]
    fn banners_give_the_address() {
        let banner = "fwbench serving x (fetch app) on http://127.0.0.1:4321/ with 1 worker [QuickJS]";
        assert_eq!(parse_banner(banner), Some("127.0.0.1:4321".parse().unwrap()));
        assert_eq!(parse_banner("fwbench: failed to load"), None);
    }

    #[test]
    fn a_js_banner_gives_the_start_up_split_on_the_spawners_clock() {
        let banner = "fwbench serving x (fetch app) on http://127.0.0.1:4321/ with 1 worker [V8] \
                      · started: runtime ready 8.0 ms, app loaded 20.5 ms, banner 21.0 ms\n";
        // The banner came 25 ms after the spawn: 4 ms before `main`.
        let loaded = parse_loaded(banner, Duration::from_millis(25)).expect("a split");
        assert_eq!(loaded.runtime_ready, Duration::from_millis(12));
        assert_eq!(loaded.app_loaded, Duration::from_micros(24_500));
        let native = "fwbench serving x (native) on http://127.0.0.1:1/ with 1 worker [native Rust] \
                      · started: banner 1.0 ms";
        assert_eq!(parse_loaded(native, Duration::from_millis(3)), None);
        assert_eq!(
            parse_loaded("fwbench serving x on http://127.0.0.1:1/", Duration::ZERO),
            None
        );
    }

    #[test]
    fn a_server_that_prints_its_banner_has_started() {
        let server = sh(
            "echo 'serving on http://127.0.0.1:4321/ now'; sleep 30",
            Duration::from_secs(30),
        )
        .map_err(|e| e.seen.to_string())
        .unwrap();
        assert_eq!(server.addr, "127.0.0.1:4321".parse().unwrap());
    }

    #[test]
    fn a_server_that_exits_says_its_status_and_stderr() {
        let error = sh("echo 'app.js:3 TypeError' >&2; exit 3", Duration::from_secs(30))
            .err()
            .expect("it exits");
        assert!(
            matches!(
                error.seen,
                NotStarted::Ended {
                    exit: Exit::Status(3),
                    ..
                }
            ),
            "{:?}",
            error.seen
        );
        assert!(error.seen.to_string().starts_with("exited with status 3 after"));
        assert_eq!(error.stderr_tail, "app.js:3 TypeError");
        assert!(!error.seen.may_be_the_machine());
    }

    #[test]
    fn a_server_killed_by_a_signal_says_which() {
        let error = sh("kill -9 $$", Duration::from_secs(30)).err().expect("killed");
        assert!(
            matches!(
                error.seen,
                NotStarted::Ended {
                    exit: Exit::Signal(9),
                    ..
                }
            ),
            "{:?}",
            error.seen
        );
        assert!(
            error.seen.to_string().contains("killed by signal 9"),
            "{}",
            error.seen
        );
        assert!(error.seen.may_be_the_machine());
    }

    #[test]
    fn a_silent_server_is_reported_still_running_after_the_wait() {
        let started = Instant::now();
        let error = sh("echo starting >&2; exec sleep 30", Duration::from_millis(300))
            .err()
            .expect("no banner");
        let text = error.seen.to_string();
        assert!(
            text.starts_with("still running with no banner after 0.3 s"),
            "{text}"
        );
        assert!(text.contains("of CPU"), "{text}");
        assert_eq!(error.stderr_tail, "starting");
        assert!(error.seen.may_be_the_machine());
        // It was killed, not waited for.
        assert!(started.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn a_busy_servers_cpu_time_grows() {
        let server = sh(
            "echo 'serving on http://127.0.0.1:4321/ now'; while :; do :; done",
            Duration::from_secs(30),
        )
        .map_err(|e| e.seen.to_string())
        .unwrap();
        let before = server.cpu_time().expect("a running process has a CPU time");
        std::thread::sleep(Duration::from_millis(300));
        let after = server.cpu_time().expect("still running");
        // The clock ticks in hundredths of a second; the loop spins on a
        // whole core unless the machine is busy, so ask for little.
        assert!(after > before, "{before:?} then {after:?}");
    }

    #[test]
    fn a_server_that_prints_something_else_is_not_started() {
        let error = sh("echo 'hello there'; sleep 30", Duration::from_secs(30))
            .err()
            .expect("bad banner");
        assert_eq!(error.seen, NotStarted::BadBanner("hello there".into()));
    }
}
