//! How a row's server process ended (a status or a signal, with the
//! signal's usual cause), and waiting for a child with a deadline.

use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// How a server process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this status.
    Status(i32),
    /// A signal killed it.
    Signal(i32),
    /// A server on another machine whose SSH session ended with ssh's own
    /// status 255 and no exit line from the wrapper: the wrapper itself
    /// was killed (a signal to the session's processes, the kernel's
    /// out-of-memory killer) or the connection broke. Its own status is not
    /// known.
    SessionLost,
}

impl Exit {
    /// How a child process here ended.
    pub fn of(status: ExitStatus) -> Exit {
        match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Status(code),
            (None, Some(signal)) => Exit::Signal(signal),
            // Neither a code nor a signal does not happen on Unix.
            (None, None) => Exit::Status(-1),
        }
    }

    /// How a process ended by the status `sh` reports for it: a process
    /// killed by signal N is status 128 + N.
    pub fn from_shell_status(status: i32) -> Exit {
        match status {
            129..=192 => Exit::Signal(status - 128),
            _ => Exit::Status(status),
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Exit::Status(code) => write!(f, "exited with status {code}"),
            Exit::Signal(signal) => write!(f, "was killed by signal {signal}{}", signal_name(signal)),
            Exit::SessionLost => write!(
                f,
                "ended with its SSH session, which gave no exit status (ssh's 255: the session's processes \
                 were killed, as by SIGKILL or the out-of-memory killer, or the connection broke)"
            ),
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

/// `Child::wait` with a deadline.
pub(super) trait WaitTimeout {
    /// The child's status once it has ended, or `None` after `timeout`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_status_past_128_is_a_signal() {
        assert_eq!(Exit::from_shell_status(0), Exit::Status(0));
        assert_eq!(Exit::from_shell_status(3), Exit::Status(3));
        assert_eq!(Exit::from_shell_status(137), Exit::Signal(9));
        assert_eq!(
            Exit::Signal(9).to_string(),
            "was killed by signal 9 (SIGKILL: out of memory, or killed from outside)"
        );
    }
}
