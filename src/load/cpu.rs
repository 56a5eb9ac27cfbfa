/*!
The generator's own resources. Its CPU use, so a report can say when the
client, not the server, was the limit: per-thread CPU time
(`CLOCK_THREAD_CPUTIME_ID`, read by each worker on itself) and the process's
CPU time and peak RSS (`getrusage(RUSAGE_SELF)`). And its open-file limit,
raised when `-c` needs it.
*/

use std::time::Duration;

use crate::thread_cpu::ThreadCpuClock;

/// CPU time consumed so far by the calling thread.
pub(crate) fn thread_cpu_time() -> Duration {
    ThreadCpuClock::CALLING_THREAD.read().unwrap_or(Duration::ZERO)
}

/// The whole process's usage so far.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProcessUsage {
    /// User plus system CPU time.
    pub(crate) cpu: Duration,
    /// Peak resident set size, KiB.
    pub(crate) max_rss_kib: u64,
}

pub(crate) fn process_usage() -> ProcessUsage {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid and writable; RUSAGE_SELF is a constant.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return ProcessUsage::default();
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
    // Linux reports ru_maxrss in KiB, macOS in bytes.
    let rss = ru.ru_maxrss as u64;
    let max_rss_kib = if cfg!(target_os = "macos") {
        rss / 1024
    } else {
        rss
    };
    ProcessUsage {
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        max_rss_kib,
    }
}

/// Raises the soft open-file limit to `needed` (at most the hard limit),
/// so thousands of connections do not fail with EMFILE where the soft limit
/// is the common 1024. Best effort: on failure connections report connect
/// errors, which say why.
pub(crate) fn raise_fd_limit(needed: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid, writable rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return;
    }
    let needed = needed as libc::rlim_t;
    if lim.rlim_cur < needed {
        lim.rlim_cur = needed.min(lim.rlim_max);
        // SAFETY: `lim` is a valid rlimit whose soft value is within the hard one.
        let _ = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_time_advances_with_work() {
        let before = thread_cpu_time();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_add(i ^ (x >> 3));
        }
        std::hint::black_box(x);
        assert!(thread_cpu_time() > before);
        let p = process_usage();
        assert!(p.cpu > Duration::ZERO);
        assert!(p.max_rss_kib > 0);
    }
}
