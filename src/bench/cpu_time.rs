//! How busy, and how held back, a row server was during one measurement,
//! from /proc read before and after it: its CPU time, the time its threads
//! were ready to run but waited for a CPU (the scheduler's run-queue delay,
//! `/proc/<pid>/task/*/schedstat`), and the time other processes ran on
//! its CPUs (`/proc/stat` less the server, and less fwbench when they
//! share CPUs).
//!
//! What a busy machine costs a round is the time the server waited while
//! others held its CPUs: the smaller of the two (neither alone says it),
//! plus the steal time of its CPUs (on a virtual machine, the time the
//! hypervisor ran someone else while they had work: invisible to the
//! server's own clocks, it slows a round just as much).
//! The wait also counts waits behind the server's own threads (a V8 server's
//! garbage-collector and compiler threads share its one pinned CPU with the
//! worker, and a quiet machine shows a 30–60 % wait). Others' time alone
//! also counts work on CPUs the server did not need (an idle half of its
//! CPU set, the gaps a client-bound row leaves).

use std::time::{Duration, Instant};

use super::cpus::CpuSets;

/// CPU time (user + system, every thread) of process `pid`.
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    let split = process_cpu_split(pid)?;
    Some(split.user + split.system)
}

/// A process's CPU time, in user space and in the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuSplit {
    /// In user space (the app, the engine, hyper).
    pub user: Duration,
    /// In the kernel on its behalf (sockets, wake-ups).
    pub system: Duration,
}

/// [`process_cpu_time`], user and system apart.
pub fn process_cpu_split(pid: u32) -> Option<CpuSplit> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold
    // spaces: utime and stime are the 12th and 13th of them.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |at: usize| fields.get(at)?.parse::<u64>().ok();
    Some(CpuSplit {
        user: ticks_to_duration(ticks(11)?)?,
        system: ticks_to_duration(ticks(12)?)?,
    })
}

/// Time of a set of CPUs since boot, from /proc/stat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuSetTime {
    /// Running processes: user, nice and system time. Interrupt and softirq
    /// time are left out: under load they are mostly the loopback traffic
    /// of the measurement itself, not another process.
    pub busy: Duration,
    /// Stolen by the hypervisor while the CPUs had work.
    pub steal: Duration,
}

/// The [`CpuSetTime`] of `cpus` (every CPU when empty).
pub fn cpu_set_time(cpus: &[usize]) -> Option<CpuSetTime> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let (busy, steal) = busy_and_steal_ticks(&stat, cpus)?;
    Some(CpuSetTime {
        busy: ticks_to_duration(busy)?,
        steal: ticks_to_duration(steal)?,
    })
}

/// The busy and steal ticks of `cpus` (all when empty) in /proc/stat's
/// `text`.
fn busy_and_steal_ticks(text: &str, cpus: &[usize]) -> Option<(u64, u64)> {
    let (mut busy, mut stolen) = (0, 0);
    let mut seen = 0;
    for line in text.lines() {
        let Some((id, counters)) = line.strip_prefix("cpu").and_then(|rest| rest.split_once(' ')) else {
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
        busy += user + nice + system;
        stolen += steal;
        seen += 1;
    }
    let expected = if cpus.is_empty() { 1 } else { cpus.len() };
    (seen == expected).then_some((busy, stolen))
}

/// Clock ticks (USER_HZ) as a duration.
fn ticks_to_duration(ticks: u64) -> Option<Duration> {
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

/// The clocks at the start of one measurement.
pub struct RoundClock {
    cpu: Option<CpuSplit>,
    wait: Option<Duration>,
    /// fwbench's own CPU time (counted only when it shares the server's
    /// CPUs, unpinned).
    own: Option<Duration>,
    set: Option<CpuSetTime>,
    /// The CPUs whose busy time is read (all when empty: not pinned).
    cpus: Vec<usize>,
    started: Instant,
}

/// How busy and how held back the server was over one measurement, as
/// shares of the cores it could use (1.0: every core, all the time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundCpu {
    /// Running.
    pub busy: Option<f64>,
    /// Ready to run but waiting while other processes (or the hypervisor)
    /// held its CPUs.
    pub waiting: Option<f64>,
    /// Its CPU time over the measurement, user and system apart.
    pub used: Option<CpuSplit>,
}

impl RoundClock {
    /// Reads the clocks now, for the server process `pid` pinned as `sets`
    /// says.
    pub fn start(pid: u32, sets: &CpuSets) -> RoundClock {
        let cpus = sets.for_servers();
        RoundClock {
            cpu: process_cpu_split(pid),
            wait: run_queue_wait(pid),
            own: process_cpu_time(std::process::id()),
            set: cpu_set_time(&cpus),
            cpus,
            started: Instant::now(),
        }
    }

    /// The shares since [`RoundClock::start`], over the `cores` the server
    /// could keep busy; a share is `None` when a clock it needs could not
    /// be read at either end.
    pub fn stop(&self, pid: u32, cores: usize) -> RoundCpu {
        let wall = self.started.elapsed();
        let since = |start: Option<Duration>, now: Option<Duration>| now?.checked_sub(start?);
        let used = self.cpu.zip(process_cpu_split(pid)).and_then(|(start, now)| {
            Some(CpuSplit {
                user: now.user.checked_sub(start.user)?,
                system: now.system.checked_sub(start.system)?,
            })
        });
        let ran = used.map(|u| u.user + u.system);
        let waited = since(self.wait, run_queue_wait(pid));
        // Pinned, fwbench's load runs on other CPUs than the server's.
        let own = if self.cpus.is_empty() {
            since(self.own, process_cpu_time(std::process::id()))
        } else {
            Some(Duration::ZERO)
        };
        let set = match (self.set, cpu_set_time(&self.cpus)) {
            (Some(start), Some(now)) => Some((
                now.busy.checked_sub(start.busy),
                now.steal.checked_sub(start.steal),
            )),
            _ => None,
        };
        let others = match (set, ran, own) {
            // Tick sampling can put the difference a little below zero.
            (Some((Some(busy), _)), Some(ran), Some(own)) => {
                Some(busy.saturating_sub(ran).saturating_sub(own))
            }
            _ => None,
        };
        let stolen = set.and_then(|(_, steal)| steal);
        RoundCpu {
            busy: ran.and_then(|ran| cpu_share(ran, wall, cores)),
            waiting: held_back(waited, others, stolen).and_then(|time| cpu_share(time, wall, cores)),
            used,
        }
    }
}

/// The time a server was held back by the rest of the machine: its
/// run-queue `wait`, at most the time `others` ran on its CPUs (a server
/// that waited behind its own threads on an otherwise idle CPU was not held
/// back), plus the time the hypervisor `stole` from its CPUs.
fn held_back(wait: Option<Duration>, others: Option<Duration>, stolen: Option<Duration>) -> Option<Duration> {
    Some(wait?.min(others?) + stolen?)
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
        assert!(cpu_set_time(&[]).is_some());
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

    const STAT: &str = "\
cpu  1000 50 300 9000 10 5 7 2 0 0
cpu0 600 0 200 4000 5 3 4 1 0 0
cpu1 400 50 100 5000 5 2 3 1 0 0
intr 12345
ctxt 678
";

    #[test]
    fn busy_is_user_nice_and_system_and_steal_is_apart() {
        assert_eq!(busy_and_steal_ticks(STAT, &[]), Some((1000 + 50 + 300, 2)));
        assert_eq!(busy_and_steal_ticks(STAT, &[0]), Some((600 + 200, 1)));
        assert_eq!(busy_and_steal_ticks(STAT, &[0, 1]), Some((800 + 550, 2)));
        // A CPU /proc/stat does not list gives no figure.
        assert_eq!(busy_and_steal_ticks(STAT, &[0, 7]), None);
        assert_eq!(busy_and_steal_ticks("cpu0 1 2\n", &[0]), None);
    }

    #[test]
    fn held_back_is_the_wait_at_most_what_others_ran_plus_steal() {
        let ms = |n| Some(Duration::from_millis(n));
        // Waited 400 ms, others ran 50 ms: its own threads took the rest.
        assert_eq!(held_back(ms(400), ms(50), ms(0)), ms(50));
        // Others ran all along, it waited 300 ms of it.
        assert_eq!(held_back(ms(300), ms(1000), ms(0)), ms(300));
        // The hypervisor took 200 ms the server's clocks never saw.
        assert_eq!(held_back(ms(0), ms(0), ms(200)), ms(200));
        assert_eq!(held_back(None, ms(1000), ms(0)), None);
        assert_eq!(held_back(ms(300), None, ms(0)), None);
    }

    /// Two threads of this process share one CPU: each waits for the other,
    /// but no other process ran there, so nothing held the process back.
    #[test]
    fn waiting_behind_its_own_threads_is_not_held_back() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;

        let cpu = super::super::cpus::allowed_cpus()[0];
        let me = std::process::id();
        let stop = Arc::new(AtomicBool::new(false));
        let spinners: Vec<_> = (0..2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    super::super::cpus::pin_current_thread(&[cpu]).expect("pin to an allowed CPU");
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(50));
        let busy_time = |cpus: &[usize]| cpu_set_time(cpus).map(|set| set.busy);
        let (wait, own, busy) = (run_queue_wait(me), process_cpu_time(me), busy_time(&[cpu]));
        std::thread::sleep(Duration::from_millis(600));
        // Read while the spinners live: a thread's wait goes with it.
        let (wait_after, own_after, busy_after) =
            (run_queue_wait(me), process_cpu_time(me), busy_time(&[cpu]));
        stop.store(true, Ordering::Relaxed);
        for spinner in spinners {
            spinner.join().expect("spinner ran");
        }
        let since = |start: Option<Duration>, now: Option<Duration>| now.unwrap() - start.unwrap();
        let waited = since(wait, wait_after);
        let others = since(busy, busy_after).saturating_sub(since(own, own_after));
        // About 600 ms of waiting (each waits half the time); others close
        // to nothing (tick sampling).
        assert!(waited > Duration::from_millis(200), "waited {waited:?}");
        let held = held_back(Some(waited), Some(others), Some(Duration::ZERO)).unwrap();
        assert!(held < waited / 2, "held back {held:?} of a {waited:?} wait");
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
