//! What machine a run was on, for the report: CPU model, logical CPUs,
//! kernel and OS, read from /proc and /etc/os-release.

use crate::report::MachineInfo;

/// Describes this machine; fields it cannot read say "unknown".
pub fn describe() -> MachineInfo {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|line| {
            line.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|release| format!("Linux {}", release.trim()))
        .unwrap_or_else(|_| "unknown".into());
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| Some(line.strip_prefix("PRETTY_NAME=")?.trim_matches('"').to_owned()))
        })
        .unwrap_or_else(|| "unknown".into());
    MachineInfo {
        cpu_model,
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        kernel,
        os,
    }
}
