//! One row's server: a `fwbench serve --framework F --scenario S` child
//! process, pinned to the server CPU set, so no framework's global patching
//! can reach another row and every row gets the same adapter and settings.
//!
//! Starting one says what happened when it does not start: still running
//! with no banner after the wait, exited with a status, or killed by a
//! signal, each with the time it took and the process's stderr tail.
//!
//! With `--server-host` the child is `ssh` running the same `fwbench serve`
//! on that machine: launch.rs keeps what differs (the stop order, the exit
//! line, the address), and the server's CPU time and heap figures, read
//! here from /proc and a local socket, are not taken.

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::banner::{self, LoadedAt};
use super::exit::{Exit, WaitTimeout};
use super::launch::Launch;
use super::listening::listens_on;
use super::runtimes::gc_trace::{self, GcTrace};
use super::spec::ServerSpec;
use super::telemetry::{TelemetryChannel, SERVER_FD};
use crate::adapter::ServerSnapshot;

/// How many stderr lines a row keeps, to show when it fails.
const STDERR_TAIL_LINES: usize = 20;
/// How long a process that closed its stdout gets to finish exiting, so its
/// exit status and last stderr lines can be reported.
const EXIT_GRACE: Duration = Duration::from_secs(2);

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
                    exit: Exit::Signal(_) | Exit::SessionLost,
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

/// A running row server; killed (by its PID) when dropped.
pub struct ServerProcess {
    child: Child,
    /// Where load goes (the banner's address, on the server's machine).
    pub addr: SocketAddr,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The first line of its stdout, until it is read.
    banner: Option<Receiver<String>>,
    /// Where its heap and GC counters are asked for.
    telemetry: Option<TelemetryChannel>,
    /// When it was spawned.
    spawned: Instant,
    /// When its runtime was ready and its app loaded, from its banner.
    loaded: Option<LoadedAt>,
    /// Here or on another machine.
    launch: Launch,
    /// A Node or Deno row's collections, counted from its stdout.
    gc_trace: Option<GcTrace>,
}

impl ServerProcess {
    /// Starts `fwbench serve` for `spec` and waits (up to `timeout`) until
    /// it listens.
    pub fn start(spec: &ServerSpec, timeout: Duration) -> Result<Self, StartError> {
        if spec.foreign.is_some() {
            // Another runtime's launcher: its own command; GC figures from
            // V8's trace on its stdout where it prints one.
            let (command, launch) = spec.command(&[], None).map_err(|error| StartError {
                seen: NotStarted::Spawn(error),
                stderr_tail: String::new(),
            })?;
            let gc_trace = spec
                .foreign
                .as_ref()
                .filter(|(foreign, _)| foreign.gc_trace && !gc_trace::flags(foreign.runtime.kind).is_empty())
                .map(|_| GcTrace::default());
            return Self::spawn(command, launch, gc_trace)?.await_banner(timeout);
        }
        let mut args: Vec<String> = vec!["serve".into(), "--port".into(), "0".into()];
        args.extend(spec.app_args());
        args.extend(["--workers".into(), spec.workers.to_string()]);
        let (channel, theirs) = match &spec.machine {
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
        let (command, launch) = spec.command(&args, theirs).map_err(|error| StartError {
            seen: NotStarted::Spawn(error),
            stderr_tail: String::new(),
        })?;
        let mut server = Self::spawn(command, launch, None)?.await_banner(timeout)?;
        server.telemetry = channel;
        Ok(server)
    }

    /// The server's heap and GC counters and request times now (see
    /// [`TelemetryChannel::snapshot`]); for a Node or Deno row, its GC
    /// counters from V8's trace, with no request times.
    pub fn telemetry(&mut self) -> Option<ServerSnapshot> {
        if let Some(trace) = &self.gc_trace {
            return Some(ServerSnapshot {
                heap: Some(trace.snapshot()),
                latency: None,
                sizes: None,
            });
        }
        self.telemetry.as_mut()?.snapshot()
    }

    /// The JS heap's sizes after a full collection in every worker (see
    /// [`TelemetryChannel::heap_sizes`]); `None` for a native row, another
    /// runtime's, or an engine without the figures.
    pub fn heap_sizes(&mut self) -> Option<crate::engine::HeapSizes> {
        self.telemetry.as_mut()?.heap_sizes()
    }

    /// Runs `command` as launched by `launch`, reading its stderr (the
    /// tail kept, a remote wrapper's exit line taken out) and the first
    /// line of its stdout, the banner, in threads of their own; with
    /// `gc_trace`, V8's trace lines on its stdout, before the banner and
    /// after, are counted there.
    fn spawn(
        mut command: Command,
        mut launch: Launch,
        gc_trace: Option<GcTrace>,
    ) -> Result<Self, StartError> {
        let spawned = Instant::now();
        let mut child = command
            .stdin(launch.stdin())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| StartError {
                seen: NotStarted::Spawn(e.to_string()),
                stderr_tail: String::new(),
            })?;
        launch.attach(&mut child);
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(err) = child.stderr.take() {
            let tail = stderr.clone();
            let exit_line = launch.exit_line();
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    if exit_line.as_ref().is_some_and(|exit| exit.take(&line)) {
                        continue;
                    }
                    let mut tail = tail.lock().unwrap_or_else(|poison| poison.into_inner());
                    if tail.len() == STDERR_TAIL_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
                if let Some(exit) = &exit_line {
                    exit.stderr_ended();
                }
            });
        }
        let (tx, rx) = std::sync::mpsc::channel();
        if let Some(out) = child.stdout.take() {
            let trace = gc_trace.clone();
            std::thread::spawn(move || banner::read_stdout(BufReader::new(out), &tx, trace.as_ref()));
        }
        Ok(ServerProcess {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stderr,
            banner: Some(rx),
            telemetry: None,
            spawned,
            loaded: None,
            launch,
            gc_trace,
        })
    }

    /// Waits (up to `timeout`) for the first stdout line to be `fwbench
    /// serve`'s banner; a server that does not give it is stopped and
    /// what was seen returned.
    fn await_banner(mut self, timeout: Duration) -> Result<Self, StartError> {
        let received = match self.banner.take() {
            Some(banner) => banner.recv_timeout(timeout),
            None => Err(RecvTimeoutError::Disconnected),
        };
        let seen = match received {
            Ok(line) => match banner::address(&line) {
                // A server here must itself listen where its banner says;
                // one on another machine is reached through its address.
                Some(listening)
                    if self.local_pid().and_then(|pid| listens_on(pid, listening.port())) == Some(false) =>
                {
                    NotStarted::BadBanner(format!(
                        "{} (it does not listen on port {} itself)",
                        line.trim_end(),
                        listening.port()
                    ))
                }
                Some(listening) => {
                    self.addr = self.launch.load_address(listening);
                    self.loaded = banner::loaded_at(&line, self.spawned.elapsed());
                    return Ok(self);
                }
                // End of stdout: the process is ending; say how.
                None if line.is_empty() => match self.child.wait_timeout(EXIT_GRACE) {
                    Some(status) => NotStarted::Ended {
                        exit: self.launch.exit_of(status),
                        after: self.spawned.elapsed(),
                    },
                    None => NotStarted::BadBanner(line),
                },
                None => NotStarted::BadBanner(line.trim_end().to_owned()),
            },
            Err(RecvTimeoutError::Timeout) => match self.child.try_wait() {
                Ok(Some(status)) => NotStarted::Ended {
                    exit: self.launch.exit_of(status),
                    after: self.spawned.elapsed(),
                },
                _ => NotStarted::Silent {
                    waited: timeout,
                    cpu: self.cpu_time(),
                },
            },
            Err(RecvTimeoutError::Disconnected) => NotStarted::BadBanner(String::new()),
        };
        // A silent server gets no grace: it has had its time.
        self.kill_now();
        // Give the stderr reader a moment to take the last lines.
        std::thread::sleep(Duration::from_millis(100));
        Err(StartError {
            seen,
            stderr_tail: self.stderr_tail(),
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
        self.launch.is_local().then(|| self.child.id())
    }

    /// How the process ended, if it has (a server should run until stopped).
    pub fn exited(&mut self) -> Option<Exit> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(self.launch.exit_of(status)),
            _ => None,
        }
    }

    /// Stops the server: SIGTERM, then SIGKILL if it lingers.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        if self.launch.ask_to_stop(&mut self.child) {
            return;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Result<ServerProcess, StartError> {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        ServerProcess::spawn(command, Launch::Local, None)?.await_banner(timeout)
    }

    /// A server that listens on a port of its own, says so in its banner,
    /// then runs `then` (Python: the shell cannot listen).
    fn listening(then: &str, timeout: Duration) -> Result<ServerProcess, StartError> {
        let script = format!(
            "import socket, time\n\
             s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n\
             print('serving on http://127.0.0.1:%d/ now' % s.getsockname()[1], flush=True)\n\
             {then}\n"
        );
        let mut command = Command::new("python3");
        command.args(["-c", &script]);
        ServerProcess::spawn(command, Launch::Local, None)?.await_banner(timeout)
    }

    #[test]
    fn a_server_that_prints_its_banner_has_started() {
        let server = listening("time.sleep(30)", Duration::from_secs(30))
            .map_err(|e| e.seen.to_string())
            .unwrap();
        assert_eq!(server.addr.ip(), std::net::IpAddr::from([127, 0, 0, 1]));
        assert_ne!(server.addr.port(), 0);
    }

    /// Its banner could name any server's port (an app's `console.log` once
    /// came first and did): only its own listening socket is loaded.
    #[test]
    fn a_banner_naming_a_port_the_server_does_not_listen_on_is_refused() {
        let other = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = other.local_addr().expect("address").port();
        let error = sh(
            &format!("echo 'serving on http://127.0.0.1:{port}/ now'; sleep 30"),
            Duration::from_secs(30),
        )
        .err()
        .expect("not its own port");
        assert!(
            error
                .seen
                .to_string()
                .contains(&format!("it does not listen on port {port} itself")),
            "{}",
            error.seen
        );
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
        let server = listening("while True: pass", Duration::from_secs(30))
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
