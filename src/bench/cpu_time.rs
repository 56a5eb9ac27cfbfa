//! How busy, and how held back, a row server was during one measurement,
//! from /proc read before and after it: its CPU time, and the time its
//! threads were ready to run but waited for a CPU (the scheduler's
//! run-queue delay, `/proc/<pid>/task/*/schedstat`).
//!
//! The wait is what a busy machine costs a round, measured where it hurts:
//! a compile, a browser or another benchmark on the server's CPUs makes the
//! server wait, and its figures drop. Counting other processes' CPU time
//! instead would also count work on CPUs the server never needed (an idle
//! half of its CPU set, the gaps a client-bound row leaves) and the
//! kernel's handling of the benchmark's own loopback traffic.

use std::time::{Duration, Instant};

use super::server::ServerProcess;

/// CPU time (user + system, every thread) of process `pid`.
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold
    // spaces: utime and stime are the 12th and 13th of them.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let per_second = u64::try_from(per_second).ok().filter(|&n| n > 0)?;
    Some(Duration::from_millis(ticks * 1000 / per_second))
}

/// Time the threads of process `pid` spent ready to run but waiting for a
/// CPU, summed over its threads; `None` without schedstat (a kernel
/// without scheduler statistics) or once the process is gone.
pub fn run_queue_wait(pid: u32) -> Option<Duration> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0;
    let mut seen = false;
    for task in tasks.flatten() {
        // A thread may exit between the listing and the read.
        let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        total += schedstat_wait_ns(&text)?;
        seen = true;
    }
    seen.then(|| Duration::from_nanos(total))
}

/// The run-queue wait (ns) in a schedstat line: `<on-CPU ns> <waiting ns>
/// <timeslices>`.
fn schedstat_wait_ns(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

/// The server's clocks at the start of one measurement.
pub struct RoundClock {
    cpu: Option<Duration>,
    wait: Option<Duration>,
    started: Instant,
}

/// How busy and how held back the server was over one measurement, as
/// shares of the cores it could use (1.0: every core, all the time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundCpu {
    /// Running.
    pub busy: Option<f64>,
    /// Ready to run but waiting for a CPU.
    pub waiting: Option<f64>,
}

impl RoundClock {
    /// Reads `server`'s clocks now.
    pub fn start(server: &ServerProcess) -> RoundClock {
        RoundClock {
            cpu: server.cpu_time(),
            wait: run_queue_wait(server.pid()),
            started: Instant::now(),
        }
    }

    /// The shares since [`RoundClock::start`], over the `cores` the server
    /// could keep busy; a share is `None` when its clock could not be read
    /// at either end.
    pub fn stop(&self, server: &ServerProcess, cores: usize) -> RoundCpu {
        let wall = self.started.elapsed();
        let share = |start: Option<Duration>, now: Option<Duration>| {
            cpu_share(now?.checked_sub(start?)?, wall, cores)
        };
        RoundCpu {
            busy: share(self.cpu, server.cpu_time()),
            waiting: share(self.wait, run_queue_wait(server.pid())),
        }
    }
}

/// `used / (wall × cores)`, or `None` for no wall time or no cores.
fn cpu_share(used: Duration, wall: Duration, cores: usize) -> Option<f64> {
    let capacity = wall.as_secs_f64() * cores as f64;
    (capacity > 0.0).then(|| used.as_secs_f64() / capacity)
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn the_wait_is_the_second_schedstat_field() {
        assert_eq!(
            schedstat_wait_ns("649907633 1508919787 1334\n"),
            Some(1_508_919_787)
        );
        assert_eq!(schedstat_wait_ns("649907633\n"), None);
        assert_eq!(schedstat_wait_ns(""), None);
    }

    #[test]
    fn this_process_has_a_cpu_time_and_a_run_queue_wait() {
        let me = std::process::id();
        assert!(process_cpu_time(me).is_some());
        assert!(
            run_queue_wait(me).is_some(),
            "is /proc/self/task/*/schedstat there?"
        );
        assert_eq!(process_cpu_time(u32::MAX), None);
        assert_eq!(run_queue_wait(u32::MAX), None);
    }

    /// A shell busy loop of a few seconds.
    const SPIN: &str = "i=0; while [ $i -lt 4000000 ]; do i=$((i+1)); done";

    /// Two busy loops pinned to one CPU: each waits for the other about
    /// half the time.
    #[test]
    fn a_thread_that_shares_its_cpu_waits() {
        let spin = || {
            Command::new("taskset")
                // Bounded, should the test die before it kills them.
                .args(["-c", "0", "sh", "-c", SPIN])
                .stdout(Stdio::null())
                .spawn()
                .expect("taskset and timeout run")
        };
        let (mut first, mut second) = (spin(), spin());
        std::thread::sleep(Duration::from_millis(100));
        // taskset execs: the PID is the shell's by now.
        let before = run_queue_wait(first.id());
        std::thread::sleep(Duration::from_millis(500));
        let after = run_queue_wait(first.id());
        let _ = (first.kill(), second.kill(), first.wait(), second.wait());
        let waited = after.unwrap().saturating_sub(before.unwrap());
        // About 250 ms; ask for much less, the machine may be busy.
        assert!(waited > Duration::from_millis(50), "waited {waited:?}");
    }

    #[test]
    fn a_share_is_time_over_wall_time_times_cores() {
        let second = Duration::from_secs(1);
        assert_eq!(cpu_share(second / 2, second, 1), Some(0.5));
        assert_eq!(cpu_share(second, second * 2, 2), Some(0.25));
        assert_eq!(cpu_share(second, Duration::ZERO, 1), None);
        assert_eq!(cpu_share(second, second, 0), None);
    }
}
