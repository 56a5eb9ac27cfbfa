//! Running someone else's JS in a child fwbench process, so that what no
//! interrupt can stop (a built-in looping in native code, which ends its
//! process with status 70; an allocation V8 cannot make, status 71) ends
//! the child and fails one item, not the whole run. `bench` reads a
//! scenario file's data this way and `fwbench test` runs each test file so.
//!
//! The child answers on file descriptor [`ANSWER_FD`], a pipe no JS can
//! write to (the node:fs shim writes to descriptors 1 and 2 only), so
//! whatever the JS prints cannot forge the answer. (`serve`, whose stdout
//! bench reads, keeps its stdout apart instead: [`keep_stdout`].)

use std::ffi::OsString;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};

use anyhow::Context;

/// The most a child may answer on stdout, and the most of its stderr kept
/// for the error when it fails.
const ANSWER_CAP: u64 = 16 << 20;
const STDERR_TAIL: usize = 4 << 10;

/// The descriptor a child writes its answer to.
pub const ANSWER_FD: i32 = 3;

/// Where a child's output (its stdout and stderr) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStderr {
    /// To this process's stdout and stderr as it comes (a test file's
    /// lines).
    Shown,
    /// Its stderr kept, its end quoted in the error if the child fails;
    /// its stdout dropped.
    Kept,
}

/// The child's side: the descriptor its parent reads the answer from
/// ([`ANSWER_FD`]), made close-on-exec so no process it starts inherits it.
pub fn answer_channel() -> anyhow::Result<std::fs::File> {
    // SAFETY: fcntl on a descriptor number; a closed one fails with EBADF.
    let ok = unsafe { libc::fcntl(ANSWER_FD, libc::F_SETFD, libc::FD_CLOEXEC) } == 0;
    if !ok {
        anyhow::bail!(
            "descriptor {ANSWER_FD} is not open: this internal command answers its parent fwbench on it"
        );
    }
    // SAFETY: the descriptor is open (above) and nothing else in this
    // process owns it.
    Ok(std::fs::File::from(unsafe { OwnedFd::from_raw_fd(ANSWER_FD) }))
}

/// This process's stdout, kept apart for the answer (a banner, a line of
/// figures, a scenario's data) before any JS runs. File descriptor 1 then
/// goes where stderr goes, so whatever JS prints (`console.log`,
/// `process.stdout`) lands in the log, and none of it lands where the
/// parent reads the answer.
pub fn keep_stdout() -> anyhow::Result<std::fs::File> {
    // SAFETY: duplicating this process's own standard descriptors, before
    // any JS or other thread of ours writes to them; the new one is owned
    // by the File returned, and close-on-exec.
    let kept = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3) };
    if kept < 0 {
        return Err(std::io::Error::last_os_error()).context("cannot keep stdout apart");
    }
    // SAFETY: `kept` is a descriptor just made, owned by nothing else.
    let channel = std::fs::File::from(unsafe { std::os::fd::OwnedFd::from_raw_fd(kept) });
    // SAFETY: as above; dup2 onto fd 1 closes what fd 1 was (its copy is
    // `kept`).
    if unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) } < 0 {
        return Err(std::io::Error::last_os_error()).context("cannot send JS output to stderr");
    }
    Ok(channel)
}

/// Runs this fwbench binary with `args` and returns what it answered on
/// [`ANSWER_FD`]; `what` names the work for the errors. A child that exits with
/// anything but 0 is an error naming why ([`exit_reason`]) and, when its
/// stderr is kept, quoting its last lines.
pub fn run(args: &[OsString], what: &str, stderr: ChildStderr) -> anyhow::Result<Vec<u8>> {
    let exe = std::env::current_exe().context("cannot find this fwbench binary to run a child")?;
    let (ours, theirs) = answer_pipe().context("cannot make a pipe for a child's answer")?;
    let theirs_fd = theirs.as_raw_fd();
    let mut command = Command::new(exe);
    command.args(args).stdin(Stdio::null());
    match stderr {
        ChildStderr::Shown => command.stdout(Stdio::inherit()).stderr(Stdio::inherit()),
        ChildStderr::Kept => command.stdout(Stdio::null()).stderr(Stdio::piped()),
    };
    // SAFETY: the closure runs between fork and exec and makes only
    // async-signal-safe calls (dup2, fcntl).
    unsafe { command.pre_exec(move || hand_over(theirs_fd, ANSWER_FD)) };
    let spawned = command.spawn();
    // Ours alone must hold the write end, or the read below never ends.
    drop(theirs);
    let mut child = spawned.with_context(|| format!("cannot start a child fwbench for {what}"))?;
    let tail = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut tail = Vec::new();
            let mut chunk = [0u8; 8192];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                tail.extend_from_slice(&chunk[..n]);
                if tail.len() > 2 * STDERR_TAIL {
                    tail.drain(..tail.len() - STDERR_TAIL);
                }
            }
            tail
        })
    });
    let mut answer = Vec::new();
    std::fs::File::from(ours)
        .take(ANSWER_CAP + 1)
        .read_to_end(&mut answer)
        .with_context(|| format!("cannot read the answer of the child fwbench for {what}"))?;
    if answer.len() as u64 > ANSWER_CAP {
        let _ = child.kill();
    }
    let status = child
        .wait()
        .with_context(|| format!("lost the child fwbench for {what}"))?;
    let tail = tail.and_then(|thread| thread.join().ok()).unwrap_or_default();
    if !status.success() {
        let said = String::from_utf8_lossy(&tail[tail.len().saturating_sub(STDERR_TAIL)..]);
        let said = said.trim();
        anyhow::bail!(
            "{}{}",
            exit_reason(status),
            if said.is_empty() {
                String::new()
            } else {
                format!("; it said: {said}")
            }
        );
    }
    if answer.len() as u64 > ANSWER_CAP {
        anyhow::bail!(
            "the child fwbench for {what} answered more than {} MiB",
            ANSWER_CAP >> 20
        );
    }
    Ok(answer)
}

/// A pipe for a child's answer: (read end, write end), both close-on-exec.
fn answer_pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills `fds` with two new descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are new descriptors owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Puts descriptor `fd` at `at` in a child, without close-on-exec: call it
/// between fork and exec (`Command::pre_exec`), where it makes only
/// async-signal-safe calls.
pub fn hand_over(fd: i32, at: i32) -> std::io::Result<()> {
    // SAFETY: dup2 and fcntl on descriptor numbers; a bad one fails.
    let ok = unsafe {
        if fd == at {
            // dup2 onto itself would keep close-on-exec set.
            let flags = libc::fcntl(fd, libc::F_GETFD);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) == 0
        } else {
            libc::dup2(fd, at) == at
        }
    };
    if ok {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Why a fwbench process ended as it did, in words.
pub fn exit_reason(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(70), _) => "its JS ran on in native code past the CPU time limit (exit status 70)".to_owned(),
        (Some(71), _) => "the JS engine gave up (exit status 71)".to_owned(),
        (Some(code), _) => format!("it exited with status {code}"),
        (None, Some(signal)) => format!("it was killed by signal {signal}"),
        (None, None) => "it ended without a status".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_reasons_name_the_engines_statuses_and_signals() {
        assert!(exit_reason(ExitStatus::from_raw(70 << 8)).contains("native code"));
        assert!(exit_reason(ExitStatus::from_raw(71 << 8)).contains("gave up"));
        assert_eq!(
            exit_reason(ExitStatus::from_raw(2 << 8)),
            "it exited with status 2"
        );
        assert_eq!(exit_reason(ExitStatus::from_raw(9)), "it was killed by signal 9");
    }
}
