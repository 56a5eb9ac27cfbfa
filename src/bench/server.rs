//! One row's server: a `fwbench serve --framework F --scenario S` child
//! process, pinned to the server CPU set, so no framework's global patching
//! can reach another row and every row gets the same adapter and settings.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, bail, Context};

/// How many stderr lines a row keeps, to show when it fails.
const STDERR_TAIL_LINES: usize = 20;

/// What to start, and where.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// Framework name (`hono`, `axum`, …).
    pub framework: String,
    /// Scenario: a built-in name or a file path.
    pub scenario: String,
    /// Worker threads.
    pub workers: usize,
    /// CPUs the server may run on (empty: no pinning).
    pub cpus: Vec<usize>,
}

/// A running row server; killed (by its PID) when dropped.
pub struct ServerProcess {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl ServerProcess {
    /// Starts the server and waits (up to `timeout`) until it listens.
    pub fn start(spec: &ServerSpec, timeout: Duration) -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("cannot find the fwbench executable")?;
        let mut command = Command::new(exe);
        command
            .args([
                "serve",
                "--port",
                "0",
                "--framework",
                &spec.framework,
                "--scenario",
                &spec.scenario,
            ])
            .args(["--workers", &spec.workers.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let set = (!spec.cpus.is_empty()).then(|| cpu_set(&spec.cpus));
        // SAFETY: runs in the forked child before exec and only makes
        // syscalls, on data built before the fork:
        // - its own process group, so the terminal's Ctrl-C reaches only
        //   `fwbench bench`, which then stops its rows itself;
        // - SIGTERM when `bench` dies, so a killed run leaves no servers;
        // - the server CPU set.
        unsafe {
            command.pre_exec(move || {
                libc::setpgid(0, 0);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                if let Some(set) = &set {
                    if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let mut child = command.spawn().context("cannot start the row's server process")?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr.clone();
        let err = child.stderr.take().expect("stderr is piped");
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut tail = tail.lock().unwrap_or_else(|poison| poison.into_inner());
                if tail.len() == STDERR_TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        let out = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(out);
            let mut banner = String::new();
            let _ = reader.read_line(&mut banner);
            let _ = tx.send(banner);
            // Keep draining so the child never blocks on a full pipe.
            let mut sink = Vec::new();
            let _ = reader.read_to_end(&mut sink);
        });
        let mut server = ServerProcess {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stderr,
        };
        let banner = rx.recv_timeout(timeout).unwrap_or_default();
        match parse_banner(&banner) {
            Some(addr) => server.addr = addr,
            None => {
                // Give stderr a moment to arrive before reporting it.
                let _ = server.child.wait_timeout_ms(300);
                bail!("the server did not start{}", server.tail_suffix());
            }
        }
        Ok(server)
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|poison| poison.into_inner());
        tail.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    fn tail_suffix(&self) -> String {
        let tail = self.stderr_tail();
        if tail.is_empty() {
            String::new()
        } else {
            format!(": {tail}")
        }
    }

    /// Fails if the process has exited (crashed), with its stderr tail.
    pub fn check_alive(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait().context("cannot check the server process")? {
            None => Ok(()),
            Some(status) => Err(anyhow!("the server exited ({status}){}", self.tail_suffix())),
        }
    }

    /// Stops the server: SIGTERM, then SIGKILL if it lingers.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: signalling our own child by its PID.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        if self.child.wait_timeout_ms(3000).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// `Child::wait` with a deadline.
trait WaitTimeout {
    fn wait_timeout_ms(&mut self, ms: u64) -> Option<std::process::ExitStatus>;
}

impl WaitTimeout for Child {
    fn wait_timeout_ms(&mut self, ms: u64) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + Duration::from_millis(ms);
        loop {
            if let Ok(Some(status)) = self.try_wait() {
                return Some(status);
            }
            if std::time::Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The address in `fwbench serve`'s banner (`… on http://127.0.0.1:PORT/ …`).
fn parse_banner(banner: &str) -> Option<SocketAddr> {
    let start = banner.find("http://")? + "http://".len();
    banner[start..].split('/').next()?.parse().ok()
}

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
    fn banners_give_the_address() {
        let banner = "fwbench serving x (fetch app) on http://127.0.0.1:4321/ with 1 worker [QuickJS]";
        assert_eq!(parse_banner(banner), Some("127.0.0.1:4321".parse().unwrap()));
        assert_eq!(parse_banner("fwbench: failed to load"), None);
    }
}
