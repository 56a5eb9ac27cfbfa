//! Bringing one row up: start its server (once more if the first attempt
//! may have met a loaded machine), send the scenario's request and check
//! the answer. `check` and `bench` both use [`start_and_validate`]; a row
//! that fails says why in a [`RowFailure`].

use std::fmt;
use std::time::Duration;

use super::banner::LoadedAt;
use super::exit::Exit;
use super::probe;
use super::server::{NotStarted, ServerProcess, StartError};
use super::spec::ServerSpec;
use crate::scenario::{self, ScenarioInfo};

/// How long the validation request may take: generous, since on a loaded
/// machine a JS framework's first answer can be slow.
const VALIDATION_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a row was not measured, or stopped being measured.
#[derive(Debug, Clone, PartialEq)]
pub enum RowFailure {
    /// The matrix cannot run it: its scenario failed to load, or has no app
    /// for the framework.
    NotRunnable(String),
    /// Its server did not start, in `attempts` attempts; the last one's
    /// error.
    NotStarted {
        /// What was seen at the last attempt.
        last: StartError,
        /// How many starts were tried.
        attempts: u32,
    },
    /// The validation request got no answer.
    NoAnswer {
        /// What went wrong with the request.
        error: String,
        /// How the server ended, if it did.
        exit: Option<Exit>,
        /// Its stderr tail.
        stderr_tail: String,
    },
    /// The answer did not meet the scenario's expectations.
    Mismatch {
        /// Each difference.
        problems: Vec<String>,
        /// Its stderr tail.
        stderr_tail: String,
    },
    /// The server ended during a round.
    Crashed {
        /// How it ended.
        exit: Exit,
        /// Its stderr tail.
        stderr_tail: String,
    },
    /// A round could not be run against a server that is still up.
    Load {
        /// The load generator's error.
        error: String,
        /// Its stderr tail.
        stderr_tail: String,
    },
}

impl RowFailure {
    /// The server's last stderr lines, if there are any.
    pub fn stderr_tail(&self) -> Option<String> {
        let tail = match self {
            RowFailure::NotRunnable(_) => return None,
            RowFailure::NotStarted { last, .. } => &last.stderr_tail,
            RowFailure::NoAnswer { stderr_tail, .. }
            | RowFailure::Mismatch { stderr_tail, .. }
            | RowFailure::Crashed { stderr_tail, .. }
            | RowFailure::Load { stderr_tail, .. } => stderr_tail,
        };
        (!tail.is_empty()).then(|| tail.clone())
    }

    /// The failure of a round: a crash if the server ended, else the load
    /// generator's `error`.
    pub fn of_round(server: &mut ServerProcess, error: &anyhow::Error) -> RowFailure {
        let stderr_tail = server.stderr_tail();
        match server.exited() {
            Some(exit) => RowFailure::Crashed { exit, stderr_tail },
            None => RowFailure::Load {
                error: format!("{error:#}"),
                stderr_tail,
            },
        }
    }
}

impl fmt::Display for RowFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowFailure::NotRunnable(reason) => f.write_str(reason),
            RowFailure::NotStarted { last, attempts } => {
                write!(f, "the server did not start: {}", last.seen)?;
                if *attempts > 1 {
                    write!(f, " (at each of {attempts} attempts)")?;
                }
                Ok(())
            }
            RowFailure::NoAnswer { error, exit, .. } => {
                write!(f, "validation request failed: {error}")?;
                match exit {
                    Some(exit) => write!(f, "; the server {exit}"),
                    None => Ok(()),
                }
            }
            RowFailure::Mismatch { problems, .. } => write!(f, "validation: {}", problems.join("; ")),
            RowFailure::Crashed { exit, .. } => write!(f, "the server {exit} during a round"),
            RowFailure::Load { error, .. } => write!(f, "the load run failed: {error}"),
        }
    }
}

/// A row's server, up and answering as its scenario expects.
pub struct StartedRow {
    /// The server.
    pub server: ServerProcess,
    /// Time from spawning the process that started to its first validated
    /// answer.
    pub startup: Duration,
    /// When, on the same clock, its runtime was ready and its app loaded
    /// (a JS row).
    pub loaded: Option<LoadedAt>,
    /// What the first attempt saw, when it took a second one.
    pub retried_after: Option<NotStarted>,
}

/// Starts a row's server (waiting up to `timeout` for it to listen, and
/// trying once more when the first attempt may have met a loaded machine),
/// sends the scenario's request once and checks the answer.
pub fn start_and_validate(
    spec: &ServerSpec,
    info: &ScenarioInfo,
    timeout: Duration,
    tokio: &tokio::runtime::Runtime,
) -> Result<StartedRow, RowFailure> {
    let mut retried_after = None;
    let mut attempts = 0;
    let mut server = loop {
        attempts += 1;
        match ServerProcess::start(spec, timeout) {
            Ok(server) => break server,
            Err(error) if attempts == 1 && error.seen.may_be_the_machine() => {
                retried_after = Some(error.seen);
            }
            Err(last) => return Err(RowFailure::NotStarted { last, attempts }),
        }
    };
    let seen = match tokio.block_on(probe::send(server.addr, &info.request, VALIDATION_TIMEOUT)) {
        Ok(seen) => seen,
        Err(error) => {
            return Err(RowFailure::NoAnswer {
                error: format!("{error:#}"),
                exit: server.exited(),
                stderr_tail: server.stderr_tail(),
            })
        }
    };
    let startup = server.spawned().elapsed();
    let problems = scenario::mismatches(&info.expect, &seen);
    if !problems.is_empty() {
        return Err(RowFailure::Mismatch {
            problems,
            stderr_tail: server.stderr_tail(),
        });
    }
    Ok(StartedRow {
        loaded: server.loaded(),
        server,
        startup,
        retried_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_failure_names_what_was_seen_and_the_attempts() {
        let failure = RowFailure::NotStarted {
            last: StartError {
                seen: NotStarted::Silent {
                    waited: Duration::from_secs(60),
                    cpu: Some(Duration::from_millis(200)),
                },
                stderr_tail: String::new(),
            },
            attempts: 2,
        };
        assert_eq!(
            failure.to_string(),
            "the server did not start: still running with no banner after 60.0 s \
             (it used 0.2 s of CPU) (at each of 2 attempts)"
        );
        assert_eq!(failure.stderr_tail(), None);
    }

    #[test]
    fn a_crash_names_how_the_server_ended() {
        let failure = RowFailure::Crashed {
            exit: Exit::Signal(libc::SIGSEGV),
            stderr_tail: "last words".into(),
        };
        assert_eq!(
            failure.to_string(),
            "the server was killed by signal 11 (SIGSEGV) during a round"
        );
        assert_eq!(failure.stderr_tail().as_deref(), Some("last words"));
    }
}
