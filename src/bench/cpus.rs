//! CPU sets: parsing `--server-cpus` / `--load-cpus`, choosing the default
//! split, and pinning (the servers to one set, the load generator to the
//! other, so the two never compete for a core).

use anyhow::{bail, Context};
use serde::Serialize;

/// Where the servers and the load generator run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CpuSets {
    /// CPUs of the row servers.
    pub server: Vec<usize>,
    /// CPUs of the load generator.
    pub load: Vec<usize>,
    /// Why nothing is pinned (the two sets overlap or one is empty), or
    /// `None` when the sets are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_pinned: Option<String>,
}

impl CpuSets {
    /// The sets from `--server-cpus` and `--load-cpus` (each `None` for the
    /// default: the first half of the CPUs this process may use for the
    /// servers, the rest for the load). Fails on a malformed list or a CPU
    /// this process may not use.
    pub fn resolve(server: Option<&str>, load: Option<&str>) -> anyhow::Result<CpuSets> {
        let allowed = allowed_cpus();
        let parse = |text: Option<&str>, flag: &str| -> anyhow::Result<Option<Vec<usize>>> {
            text.map(|t| parse_cpu_list(t).with_context(|| format!("invalid --{flag} '{t}'")))
                .transpose()
        };
        let server = parse(server, "server-cpus")?;
        let load = parse(load, "load-cpus")?;
        for cpu in server.iter().chain(load.iter()).flatten() {
            if !allowed.contains(cpu) {
                bail!("CPU {cpu} is not available to this process (available: {allowed:?})");
            }
        }
        let half = allowed.len() / 2;
        let server = server.unwrap_or_else(|| allowed[..half.max(1).min(allowed.len())].to_vec());
        let load = load.unwrap_or_else(|| allowed.iter().copied().filter(|c| !server.contains(c)).collect());
        let not_pinned = (load.is_empty() || server.iter().any(|cpu| load.contains(cpu))).then(|| {
            format!(
                "servers and load generator share CPUs (available: {allowed:?}); not pinned, figures include their contention"
            )
        });
        Ok(CpuSets {
            server,
            load,
            not_pinned,
        })
    }

    /// The sets when the servers run on another machine (`--server-host`):
    /// `server` names CPUs of that machine, checked against `remote` (the
    /// CPUs a process may use there), and defaults to all of them; `load`
    /// names this machine's, by default all it may use. The two sets never
    /// compete, so they are always applied.
    pub fn resolve_remote(
        server: Option<&str>,
        load: Option<&str>,
        remote: &[usize],
    ) -> anyhow::Result<CpuSets> {
        let allowed = allowed_cpus();
        let server = match server {
            Some(text) => {
                let cpus = parse_cpu_list(text).with_context(|| format!("invalid --server-cpus '{text}'"))?;
                if let Some(cpu) = cpus.iter().find(|cpu| !remote.contains(cpu)) {
                    bail!("--server-cpus: CPU {cpu} is not available on the server host (available there: {remote:?})");
                }
                cpus
            }
            None => remote.to_vec(),
        };
        let load = match load {
            Some(text) => {
                let cpus = parse_cpu_list(text).with_context(|| format!("invalid --load-cpus '{text}'"))?;
                if let Some(cpu) = cpus.iter().find(|cpu| !allowed.contains(cpu)) {
                    bail!("--load-cpus: CPU {cpu} is not available to this process (available: {allowed:?})");
                }
                cpus
            }
            None => allowed,
        };
        Ok(CpuSets {
            server,
            load,
            not_pinned: None,
        })
    }

    /// Whether the sets are applied.
    pub fn pinned(&self) -> bool {
        self.not_pinned.is_none()
    }

    /// The CPUs a row server is pinned to (none when not pinned).
    pub fn for_servers(&self) -> Vec<usize> {
        if self.pinned() {
            self.server.clone()
        } else {
            Vec::new()
        }
    }
}

/// Parses `0`, `0,2` or `0-3` into CPU numbers.
pub fn parse_cpu_list(text: &str) -> anyhow::Result<Vec<usize>> {
    // Checked before a range is expanded: `0-4294967295` would otherwise
    // be four billion entries, gigabytes, before any other check.
    let cpu = |number: &str| -> anyhow::Result<usize> {
        let cpu: usize = number.trim().parse()?;
        if cpu >= MAX_CPUS {
            bail!("CPU {cpu} is past the largest a CPU set holds ({})", MAX_CPUS - 1);
        }
        Ok(cpu)
    };
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (cpu(a)?, cpu(b)?);
                if a > b {
                    bail!("range {part} runs backwards");
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(cpu(part)?),
        }
        if cpus.len() > MAX_CPUS {
            bail!("more than {MAX_CPUS} CPUs listed");
        }
    }
    if cpus.is_empty() {
        bail!("no CPUs listed (expected e.g. 0, 0,2 or 0-3)");
    }
    Ok(cpus)
}

/// CPU numbers a `cpu_set_t` holds (Linux's `CPU_SETSIZE`): pinning can
/// name none past it.
const MAX_CPUS: usize = libc::CPU_SETSIZE as usize;

/// A `cpu_set_t` holding `cpus`.
pub fn cpu_set(cpus: &[usize]) -> libc::cpu_set_t {
    // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET write inside it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut set);
        for &cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        set
    }
}

/// Pins the calling thread (and threads it spawns later) to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> anyhow::Result<()> {
    if cpus.is_empty() {
        return Ok(());
    }
    let set = cpu_set(cpus);
    // SAFETY: a valid cpu_set_t for the calling thread (pid 0).
    let result = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if result != 0 {
        return Err(std::io::Error::last_os_error()).with_context(|| format!("cannot pin to CPUs {cpus:?}"));
    }
    Ok(())
}

/// The CPUs this process may run on, in order.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity fills a zeroed cpu_set_t we own.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_past_any_cpu_is_refused_before_it_is_expanded() {
        let error = parse_cpu_list("0-4294967295").unwrap_err().to_string();
        assert!(
            error.contains("CPU 4294967295 is past the largest a CPU set holds (1023)"),
            "{error}"
        );
        assert!(parse_cpu_list("1024").is_err());
        assert!(parse_cpu_list("0-1023,0-1023").is_err(), "2048 entries");
        assert_eq!(parse_cpu_list("0-1023").map(|cpus| cpus.len()).ok(), Some(1024));
    }

    #[test]
    fn cpu_lists_take_singles_lists_and_ranges() {
        assert_eq!(parse_cpu_list("1").unwrap(), [1]);
        assert_eq!(parse_cpu_list("0,2").unwrap(), [0, 2]);
        assert_eq!(parse_cpu_list("0-3").unwrap(), [0, 1, 2, 3]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
    }

    #[test]
    fn a_cpu_outside_the_allowed_set_is_refused_by_number() {
        let error = format!("{:#}", CpuSets::resolve(Some("4096"), None).unwrap_err());
        assert!(error.contains("CPU 4096"), "{error}");
    }

    #[test]
    fn a_server_hosts_cpus_are_checked_against_that_host() {
        let remote = [0, 1, 2, 3, 4, 5, 6, 7];
        let sets = CpuSets::resolve_remote(Some("6-7"), None, &remote).unwrap();
        assert_eq!(sets.server, [6, 7]);
        assert_eq!(sets.load, allowed_cpus());
        assert!(sets.pinned(), "two machines never share a CPU");
        let error = CpuSets::resolve_remote(Some("8"), None, &remote)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("CPU 8 is not available on the server host"),
            "{error}"
        );
        assert_eq!(
            CpuSets::resolve_remote(None, None, &remote).unwrap().server,
            remote
        );
    }

    #[test]
    fn overlapping_sets_are_not_pinned_and_say_why() {
        let first = allowed_cpus()[0].to_string();
        let sets = CpuSets::resolve(Some(&first), Some(&first)).unwrap();
        assert!(!sets.pinned());
        assert!(sets.for_servers().is_empty());
        assert!(sets.not_pinned.unwrap().contains("share CPUs"));
    }
}
