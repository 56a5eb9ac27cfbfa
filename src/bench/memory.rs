//! A row server's memory, from /proc: its resident set now (read at the
//! end of each round's window, connections still open: the steady figure
//! is their median) and at its peak (the kernel's high-water mark, read
//! after the last round). The same reading for every runtime, fwbench's
//! own or another. And the JS heap's sizes its telemetry reports, as the
//! report holds them.

/// What /proc/PID/status says of a process's memory, in MiB.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resident {
    /// Resident set size now (`VmRSS`).
    pub now_mib: f64,
    /// The highest it has been (`VmHWM`).
    pub peak_mib: f64,
}

/// The heap's sizes the server reported, in the report's MiB.
pub fn heap_after_gc(sizes: crate::engine::HeapSizes) -> crate::report::HeapAfterGc {
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    crate::report::HeapAfterGc {
        used_mib: mib(sizes.used_bytes),
        total_mib: mib(sizes.total_bytes),
        external_mib: mib(sizes.external_bytes),
    }
}

/// Process `pid`'s resident memory; `None` once it has ended.
pub fn resident(pid: u32) -> Option<Resident> {
    parse(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

fn parse(status: &str) -> Option<Resident> {
    let kib = |key: &str| -> Option<f64> {
        let line = status.lines().find(|line| line.starts_with(key))?;
        line[key.len()..]
            .trim()
            .strip_suffix("kB")?
            .trim()
            .parse::<f64>()
            .ok()
    };
    Some(Resident {
        now_mib: kib("VmRSS:")? / 1024.0,
        peak_mib: kib("VmHWM:")? / 1024.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_give_the_resident_set_and_its_peak() {
        let status = "Name:\tnode\nVmPeak:\t 1000 kB\nVmHWM:\t   81920 kB\nVmRSS:\t   61440 kB\n";
        assert_eq!(
            parse(status),
            Some(Resident {
                now_mib: 60.0,
                peak_mib: 80.0
            })
        );
        assert_eq!(parse("Name:\tkthreadd\n"), None);
        assert!(resident(std::process::id()).is_some_and(|r| r.now_mib > 0.0 && r.peak_mib >= r.now_mib));
    }
}
