//! A child process run to its end for its output, bounded: at most a time
//! (then killed) and a number of bytes of each of stdout and stderr, both
//! read while it runs so that a chatty child cannot block on a full pipe.
//! `--server-host`'s checks (remote.rs) and the in-runtime runs
//! (in_runtime.rs) run theirs through it, each with its own messages.

use std::io::{self, Read};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use super::exit::WaitTimeout;

/// Why a child gave no output.
#[derive(Debug)]
pub enum NoOutput {
    /// It could not be started.
    Spawn(io::Error),
    /// It ran past its time, and was killed.
    TimedOut,
    /// It wrote more than its cap on stdout or stderr.
    TooLarge,
}

/// Runs `command` (stdin closed) for at most `limit`, keeping at most `cap`
/// bytes of its stdout and of its stderr.
pub fn output_within(mut command: Command, limit: Duration, cap: u64) -> Result<Output, NoOutput> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(NoOutput::Spawn)?;
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(pipe) = pipe {
                let _ = pipe.take(cap.saturating_add(1)).read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let Some(status) = child.wait_timeout(limit) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(NoOutput::TimedOut);
    };
    let (stdout, stderr) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    if stdout.len() as u64 > cap || stderr.len() as u64 > cap {
        return Err(NoOutput::TooLarge);
    }
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_command_that_stalls_or_floods_is_cut_off() {
        let stalled = output_within(sh("sleep 30"), Duration::from_millis(300), 1024);
        assert!(matches!(stalled, Err(NoOutput::TimedOut)), "{stalled:?}");
        let flood = output_within(sh("head -c 100000 /dev/zero"), Duration::from_secs(30), 1024);
        assert!(matches!(flood, Err(NoOutput::TooLarge)), "{flood:?}");
        let fine = output_within(
            sh("echo fwbench 0.1.0; echo note >&2; exit 3"),
            Duration::from_secs(30),
            1024,
        )
        .expect("an answer");
        assert_eq!(fine.stdout, b"fwbench 0.1.0\n");
        assert_eq!(fine.stderr, b"note\n");
        assert_eq!(fine.status.code(), Some(3));
    }
}
