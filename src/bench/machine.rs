//! What a run was measured with and on, for the report: the machine (CPU
//! model, logical CPUs, kernel and OS, read from /proc and
//! /etc/os-release) and the tool (fwbench, its engine, framework and
//! dependency versions).

use std::collections::BTreeMap;

use crate::frameworks;
use crate::report::{MachineInfo, ToolInfo};

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

/// fwbench, its engine, and the versions of `frameworks` and of the crates
/// and npm packages that shape the figures.
pub fn tool_info(frameworks: &[&'static frameworks::Framework]) -> ToolInfo {
    let framework_versions = frameworks
        .iter()
        .map(|framework| (framework.name.to_owned(), frameworks::version(framework)))
        .collect();
    let mut dependency_versions: BTreeMap<String, String> = [
        ("deno_core", option_env!("FWBENCH_DEP_DENO_CORE")),
        ("deno_web", option_env!("FWBENCH_DEP_DENO_WEB")),
        ("deno_fetch", option_env!("FWBENCH_DEP_DENO_FETCH")),
        // Only the engine this binary was built with: Cargo.lock pins both.
        if cfg!(feature = "v8") {
            ("v8 (rusty_v8)", option_env!("FWBENCH_DEP_V8"))
        } else {
            ("v8x (QuickJS-ng backend)", option_env!("FWBENCH_DEP_V8X"))
        },
        ("hyper", option_env!("FWBENCH_DEP_HYPER")),
        ("axum", option_env!("FWBENCH_DEP_AXUM")),
        ("tokio", option_env!("FWBENCH_DEP_TOKIO")),
    ]
    .into_iter()
    .filter_map(|(name, version)| Some((name.to_owned(), version?.to_owned())))
    .collect();
    let manifest = crate::engine::embedded::vendor_manifest();
    for (name, version) in manifest.frameworks.iter().chain(&manifest.packages) {
        dependency_versions.insert(format!("npm:{name}"), version.clone());
    }
    ToolInfo {
        fwbench_version: env!("CARGO_PKG_VERSION").to_owned(),
        engine: crate::engine::engine_name().to_owned(),
        framework_versions,
        dependency_versions,
        // Checked when the command started (main.rs): what is left is set.
        engine_switches: crate::engine::switches::from_env().unwrap_or_default(),
    }
}
