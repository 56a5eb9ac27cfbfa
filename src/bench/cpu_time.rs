//! CPU time from /proc, read before and after each measurement: the row
//! server's own, fwbench's own (the load generator runs inside it), and
//! how busy the servers' CPUs were in all. What is left over is the time
//! other processes took from the server's CPUs meanwhile (a niced compile,
//! a browser, another benchmark), which makes a round slower than the
//! server can go; the report warns when it was more than a sliver.
//!
//! Only the servers' CPU set counts when the bench is pinned: other work on
//! the load generator's CPUs takes time the client mostly did not need
//! (a server-bound row leaves it idle much of the round), and a client it
//! did slow down shows as client-bound. Unpinned, every CPU counts, minus
//! the server and fwbench.

use std::time::{Duration, Instant};

use super::cpus::CpuSets;
use super::server::ServerProcess;

/// CPU time (user + system, every thread) of process `pid`.
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold
    // spaces: utime and stime are the 12th and 13th of them.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    ticks_to_duration(ticks)
}

/// Busy time of `cpus` (every CPU when empty) since boot, from /proc/stat:
/// user, nice, system and steal time. Interrupt and softirq time are left
/// out: under load they are mostly the loopback traffic of the measurement
/// itself, not another process.
pub fn busy_time(cpus: &[usize]) -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    ticks_to_duration(busy_ticks(&stat, cpus)?)
}

/// The busy ticks of `cpus` (all when empty) in /proc/stat's `text`.
fn busy_ticks(text: &str, cpus: &[usize]) -> Option<u64> {
    let mut total = 0;
    let mut seen = 0;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("cpu") else {
            continue;
        };
        let Some((id, counters)) = rest.split_once(' ') else {
            continue;
        };
        // "cpu" (the sum) has no id; "cpu3" is one CPU.
        let wanted = match id.parse::<usize>() {
            Ok(cpu) => cpus.contains(&cpu),
            Err(_) => id.is_empty() && cpus.is_empty(),
        };
        if !wanted {
            continue;
        }
        let fields: Vec<u64> = counters
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        // user nice system idle iowait irq softirq steal …
        let [user, nice, system, _idle, _iowait, _irq, _softirq, steal, ..] = fields[..] else {
            return None;
        };
        total += user + nice + system + steal;
        seen += 1;
    }
    let expected = if cpus.is_empty() { 1 } else { cpus.len() };
    (seen == expected).then_some(total)
}

fn ticks_to_duration(ticks: u64) -> Option<Duration> {
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let per_second = u64::try_from(per_second).ok().filter(|&n| n > 0)?;
    Some(Duration::from_millis(ticks * 1000 / per_second))
}

/// The CPU times at the start of one measurement.
pub struct RoundClock {
    server: Option<Duration>,
    own: Option<Duration>,
    busy: Option<Duration>,
    /// The CPUs whose busy time is read (all when empty).
    cpus: Vec<usize>,
    /// Whether fwbench's own time counts against `cpus` (not pinned).
    shared: bool,
    started: Instant,
}

/// How busy each party was over one measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundCpu {
    /// The server's share of the cores it could use (1.0: all busy).
    pub server: Option<f64>,
    /// CPUs' worth of time other processes took from the server's CPUs
    /// (1.0: one whole core, all the time).
    pub others: Option<f64>,
}

impl RoundClock {
    /// Reads the clocks now, for a bench pinned as `sets` says.
    pub fn start(server: &ServerProcess, sets: &CpuSets) -> RoundClock {
        let cpus = sets.for_servers();
        RoundClock {
            server: server.cpu_time(),
            own: process_cpu_time(std::process::id()),
            busy: busy_time(&cpus),
            shared: cpus.is_empty(),
            cpus,
            started: Instant::now(),
        }
    }

    /// The figures since [`RoundClock::start`]; `server_cores` is how many
    /// cores the server could keep busy. A figure is `None` when a clock
    /// could not be read at either end.
    pub fn stop(&self, server: &ServerProcess, server_cores: usize) -> RoundCpu {
        let wall = self.started.elapsed();
        let since = |start: Option<Duration>, now: Option<Duration>| now?.checked_sub(start?);
        let server_used = since(self.server, server.cpu_time());
        let own_used = since(self.own, process_cpu_time(std::process::id()));
        let busy = since(self.busy, busy_time(&self.cpus));
        let own_used = if self.shared {
            own_used
        } else {
            Some(Duration::ZERO)
        };
        let others = match (busy, server_used, own_used) {
            // Tick sampling can put the difference a little below zero.
            (Some(busy), Some(server), Some(own)) => {
                let left = busy.as_secs_f64() - server.as_secs_f64() - own.as_secs_f64();
                cpu_share(Duration::from_secs_f64(left.max(0.0)), wall, 1)
            }
            _ => None,
        };
        RoundCpu {
            server: server_used.and_then(|used| cpu_share(used, wall, server_cores)),
            others,
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
    use super::*;

    const STAT: &str = "\
cpu  1000 50 300 9000 10 5 7 2 0 0
cpu0 600 0 200 4000 5 3 4 1 0 0
cpu1 400 50 100 5000 5 2 3 1 0 0
intr 12345
ctxt 678
";

    #[test]
    fn busy_ticks_are_user_nice_system_and_steal_of_the_chosen_cpus() {
        assert_eq!(busy_ticks(STAT, &[]), Some(1000 + 50 + 300 + 2));
        assert_eq!(busy_ticks(STAT, &[0]), Some(600 + 200 + 1));
        assert_eq!(busy_ticks(STAT, &[1]), Some(400 + 50 + 100 + 1));
        assert_eq!(busy_ticks(STAT, &[0, 1]), Some(801 + 551));
    }

    #[test]
    fn a_cpu_missing_from_proc_stat_gives_no_figure() {
        assert_eq!(busy_ticks(STAT, &[0, 7]), None);
        assert_eq!(busy_ticks("cpu0 1 2\n", &[0]), None);
    }

    #[test]
    fn this_process_and_this_machine_have_cpu_times() {
        assert!(process_cpu_time(std::process::id()).is_some());
        assert!(busy_time(&[]).is_some());
        assert_eq!(process_cpu_time(u32::MAX), None);
    }

    #[test]
    fn a_share_is_cpu_time_over_wall_time_times_cores() {
        let second = Duration::from_secs(1);
        assert_eq!(cpu_share(second / 2, second, 1), Some(0.5));
        assert_eq!(cpu_share(second, second * 2, 2), Some(0.25));
        assert_eq!(cpu_share(second, Duration::ZERO, 1), None);
        assert_eq!(cpu_share(second, second, 0), None);
    }
}
