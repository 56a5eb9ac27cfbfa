//! Where a row's server runs, and what that changes about talking to it:
//! [`Launch::Local`], a child process here, or [`Launch::Remote`], `fwbench
//! serve` on another machine through an `ssh` child (remote.rs builds its
//! command). A remote server differs in three ways, all kept here:
//! - its stop order is the end of its stdin (sshd sends no signal when a
//!   session ends, but closes the command's stdin);
//! - how it ended comes from the wrapper's exit line on stderr, since ssh
//!   cannot tell a remote signal from a status;
//! - its banner names 0.0.0.0, and the load goes to the machine's address.

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::exit::{Exit, WaitTimeout};
use super::remote::EXIT_MARKER;

/// How long a server on another machine gets to stop after its stdin
/// closed: serve's 3 s, plus the session's round trips.
const REMOTE_STOP_WAIT: Duration = Duration::from_secs(5);

/// How often a remote server hears from bench (serve's
/// `--stdin-heartbeat-timeout`, 10 s, is ten of these).
const HEARTBEAT: Duration = Duration::from_secs(1);

/// A mutex's contents, even if a thread panicked holding it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// Where a row's server runs.
pub enum Launch {
    /// Here: the child is the server.
    Local,
    /// On another machine: the child is ssh.
    Remote(Session),
}

/// What a server on another machine needs besides its ssh child.
pub struct Session {
    /// The machine's address (the banner says 0.0.0.0).
    address: IpAddr,
    /// ssh's stdin: closing it ends the remote server's stdin. Shared with
    /// the heartbeat thread, which writes a line to it every second.
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    /// How the remote server ended, from its wrapper's stderr line.
    exit: ExitLine,
}

/// The remote wrapper's exit line, as ssh's stderr reader finds it.
#[derive(Clone, Default)]
pub struct ExitLine {
    said: Arc<Mutex<Option<Exit>>>,
    stderr_done: Arc<AtomicBool>,
}

impl ExitLine {
    /// Whether `line` is the wrapper's exit line; if so it is kept, and it
    /// is not one of the server's own stderr lines.
    pub fn take(&self, line: &str) -> bool {
        match exit_from_marker(line) {
            Some(exit) => {
                *lock(&self.said) = Some(exit);
                true
            }
            None => false,
        }
    }

    /// ssh's stderr has been read to its end: no exit line can come.
    pub fn stderr_ended(&self) {
        self.stderr_done.store(true, Ordering::Release);
    }

    /// What the wrapper said, waiting up to half a second for stderr to be
    /// read out (the line may still be in the pipe).
    fn said(&self) -> Option<Exit> {
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.stderr_done.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        *lock(&self.said)
    }
}

impl Launch {
    /// A server on the machine at `address`, over SSH.
    pub fn remote(address: IpAddr) -> Launch {
        Launch::Remote(Session {
            address,
            stdin: Arc::default(),
            exit: ExitLine::default(),
        })
    }

    /// The child's stdin: a pipe whose end stops a remote server; nothing
    /// for a local one (stopped by a signal).
    pub fn stdin(&self) -> Stdio {
        match self {
            Launch::Local => Stdio::null(),
            Launch::Remote(_) => Stdio::piped(),
        }
    }

    /// Keeps what the launch needs of the spawned child: a remote's stdin,
    /// on which a thread writes a heartbeat line every [`HEARTBEAT`] until
    /// the stop order closes it (`serve --stop-on-stdin-eof` stops after
    /// ten seconds of silence: a controller cut off from the machine).
    pub fn attach(&mut self, child: &mut Child) {
        let Launch::Remote(session) = self else { return };
        *lock(&session.stdin) = child.stdin.take();
        let stdin = session.stdin.clone();
        let _ = std::thread::Builder::new()
            .name("fwbench-heartbeat".into())
            .spawn(move || loop {
                std::thread::sleep(HEARTBEAT);
                let mut held = lock(&stdin);
                let Some(pipe) = held.as_mut() else { return };
                if pipe.write_all(b"\n").and_then(|()| pipe.flush()).is_err() {
                    return;
                }
            });
    }

    /// Where the remote wrapper's exit line is looked for; `None` here.
    pub fn exit_line(&self) -> Option<ExitLine> {
        match self {
            Launch::Local => None,
            Launch::Remote(session) => Some(session.exit.clone()),
        }
    }

    /// Where load goes, given the address the server's banner names.
    pub fn load_address(&self, mut listening: SocketAddr) -> SocketAddr {
        if let Launch::Remote(session) = self {
            listening.set_ip(session.address);
        }
        listening
    }

    /// Whether the server is the child itself (its PID and /proc are here).
    pub fn is_local(&self) -> bool {
        matches!(self, Launch::Local)
    }

    /// How the server ended, given how its child here did: for a remote
    /// one, what its wrapper said, else ssh's own status (255: the
    /// connection failed; its message is in the stderr tail).
    pub fn exit_of(&self, status: ExitStatus) -> Exit {
        match self {
            Launch::Local => Exit::of(status),
            Launch::Remote(session) => session.exit.said().unwrap_or(match status.code() {
                // ssh's own failure, not the remote command's status.
                Some(255) => Exit::SessionLost,
                _ => Exit::of(status),
            }),
        }
    }

    /// Gives the stop order the launch's own way, before any signal: a
    /// remote server's stdin is closed, which stops it as SIGTERM would,
    /// and ssh then exits with the session. Whether `child` has ended.
    pub fn ask_to_stop(&mut self, child: &mut Child) -> bool {
        match self {
            Launch::Local => false,
            Launch::Remote(session) => {
                drop(lock(&session.stdin).take());
                child.wait_timeout(REMOTE_STOP_WAIT).is_some()
            }
        }
    }
}

/// How a remote server ended, from the wrapper's line.
fn exit_from_marker(line: &str) -> Option<Exit> {
    let status: i32 = line.strip_prefix(EXIT_MARKER)?.trim().parse().ok()?;
    Some(Exit::from_shell_status(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrappers_exit_line_says_status_or_signal() {
        assert_eq!(exit_from_marker("fwbench-remote-exit 0"), Some(Exit::Status(0)));
        assert_eq!(exit_from_marker("fwbench-remote-exit 3"), Some(Exit::Status(3)));
        assert_eq!(exit_from_marker("fwbench-remote-exit 137"), Some(Exit::Signal(9)));
        assert_eq!(exit_from_marker("app.js:3 TypeError"), None);
    }

    #[test]
    fn a_remote_servers_load_goes_to_its_machine() {
        let banner: SocketAddr = "0.0.0.0:4321".parse().unwrap();
        let remote = Launch::remote("10.231.0.1".parse().unwrap());
        assert_eq!(remote.load_address(banner), "10.231.0.1:4321".parse().unwrap());
        assert_eq!(Launch::Local.load_address(banner), banner);
        let line = remote.exit_line().expect("a remote has one");
        assert!(line.take("fwbench-remote-exit 139"));
        assert!(!line.take("a server's own message"));
        line.stderr_ended();
        assert_eq!(line.said(), Some(Exit::Signal(11)));
    }

    /// ssh's 255 with no exit line is the session lost, not a status the
    /// server chose.
    #[test]
    fn a_remote_session_that_ends_with_255_and_no_exit_line_is_lost() {
        use std::os::unix::process::ExitStatusExt;
        let launch = Launch::remote(IpAddr::from([10, 0, 0, 2]));
        if let Launch::Remote(session) = &launch {
            session.exit.stderr_ended();
        }
        let lost = launch.exit_of(ExitStatus::from_raw(255 << 8));
        assert_eq!(lost, Exit::SessionLost);
        assert!(lost.to_string().contains("SSH session"), "{lost}");
        assert_eq!(launch.exit_of(ExitStatus::from_raw(2 << 8)), Exit::Status(2));
        assert_eq!(
            Launch::Local.exit_of(ExitStatus::from_raw(255 << 8)),
            Exit::Status(255)
        );
    }
}
