//! How a command that ran came out, for its exit status: every command's
//! result (load's verdict and compare's gate convert into it).

/// How a command that ran came out: exit status 0 or 1. A usage or set-up
/// error is an `Err` instead: exit status 2 (see `cli::EXIT_STATUS`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub enum Outcome {
    /// Everything passed.
    Passed,
    /// The command ran but something failed; says what, in one line.
    Failed(String),
}
