//! `--server-host user@host`: the row servers on another machine, reached
//! with the system's OpenSSH client (`ssh`, so the user's own
//! `~/.ssh/config`, keys and agent apply), and loaded from here.
//!
//! Before any row starts, [`ServerMachine::connect`] asks `ssh -G` where the
//! destination really is (an alias in `~/.ssh/config` resolves there), runs
//! the remote fwbench's `--version` and refuses a different one, reads
//! that machine's CPU, kernel and CPUs (`fwbench machine-facts`), and times a
//! few TCP connects to its SSH port: what the report records about the
//! other machine and the network path. Any failure here is a set-up error
//! (exit 2) with ssh's own message, so a host that refuses SSH stops the
//! run before its first row.
//!
//! Each row's server is then `ssh … sh -c '"$@"; …' [env FWBENCH_…=…]
//! taskset -c CPUS fwbench serve --host 0.0.0.0 --stop-on-stdin-eof …`
//! ([`ServerMachine::command`]), this run's engine switches passed on:
//! - `BatchMode=yes`, so ssh fails instead of asking for a password;
//! - no pty (`-T`): the banner arrives on stdout and the messages on
//!   stderr, apart, as from a local server;
//! - stopping is closing ssh's stdin: sshd sends no signal when a session
//!   ends, but it closes the command's stdin, and `--stop-on-stdin-eof`
//!   makes that end of file a SIGTERM. It comes whether `bench` ended the
//!   row, was stopped by Ctrl-C, or died (ssh gets SIGTERM with its parent
//!   and drops the connection), so no server is left running there;
//! - the wrapper prints how the server ended (`fwbench-remote-exit N`) on
//!   stderr, since ssh itself cannot say a signal killed it.

use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use super::child::{output_within, NoOutput};
use crate::cli::RemoteArgs;
use crate::report::{MachineInfo, RoundTrips, ServerHostInfo};

/// The line the remote wrapper writes on stderr when the server ends,
/// followed by its exit status as `sh` saw it (128 + N: signal N).
pub const EXIT_MARKER: &str = "fwbench-remote-exit ";

/// How long ssh may take to connect: a host that does not answer fails
/// the run's set-up instead of hanging it.
const CONNECT_TIMEOUT_S: u32 = 10;

/// How long a command run there may take, login included: a machine that
/// lets ssh in but whose fwbench stalls would otherwise hang the run.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// How much of its output is read: `--version` and `machine-facts` answer
/// in a few hundred bytes, and 200 MB once were read whole.
const ANSWER_CAP: u64 = 1 << 20;

/// How many TCP connects time the network path.
const RTT_SAMPLES: usize = 15;

/// What `fwbench machine-facts` prints: the machine, for the report, and the
/// CPUs a server may be pinned to there, for `--server-cpus`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MachineFacts {
    /// CPU model, logical CPUs, kernel, OS.
    pub machine: MachineInfo,
    /// The CPUs a process there may run on.
    pub cpus: Vec<usize>,
}

impl MachineFacts {
    /// This machine's facts.
    pub fn here() -> MachineFacts {
        MachineFacts {
            machine: super::machine::describe(),
            cpus: super::cpus::allowed_cpus(),
        }
    }
}

/// `fwbench machine-facts` (hidden): this machine's facts as one JSON line,
/// for a `bench --server-host` on another machine.
pub fn print_machine_facts(out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, &MachineFacts::here())?;
    writeln!(out)?;
    Ok(())
}

/// The machine the row servers run on, checked and described.
#[derive(Debug, Clone, Serialize)]
pub struct ServerMachine {
    /// The SSH destination as given.
    pub destination: String,
    /// Extra `ssh -o` options, in order.
    pub ssh_options: Vec<String>,
    /// The fwbench the remote side runs.
    pub remote_bin: String,
    /// The address load goes to (the SSH host name, resolved here).
    pub address: IpAddr,
    /// The port sshd answered on (timed for the round trips).
    #[serde(skip)]
    ssh_port: u16,
    /// What the remote fwbench said about its machine.
    #[serde(skip)]
    pub facts: MachineFacts,
}

impl ServerMachine {
    /// Checks `args.server_host` (`None` without one): where it is, that
    /// SSH gets in without a prompt, that its fwbench is this one's
    /// version, and what machine it is. Every failure says what to do.
    pub fn connect(args: &RemoteArgs) -> anyhow::Result<Option<ServerMachine>> {
        let Some(destination) = args.server_host.clone() else {
            return Ok(None);
        };
        if destination.starts_with('-') {
            bail!("--server-host {destination:?}: expected user@host or a host name, not an option");
        }
        let mut machine = ServerMachine {
            destination,
            ssh_options: args.ssh_options.clone(),
            remote_bin: args.remote_bin.clone(),
            address: IpAddr::from([0, 0, 0, 0]),
            ssh_port: 22,
            facts: MachineFacts {
                machine: MachineInfo::default(),
                cpus: Vec::new(),
            },
        };
        let (address, port) = machine.resolve()?;
        machine.address = address;
        machine.ssh_port = port;
        machine.check_version()?;
        machine.facts = machine.read_facts()?;
        Ok(Some(machine))
    }

    /// `ssh` with the options every call uses, up to the destination.
    fn ssh(&self) -> Command {
        let mut command = Command::new("ssh");
        command
            .args(["-o", "BatchMode=yes"])
            .args(["-o", &format!("ConnectTimeout={CONNECT_TIMEOUT_S}")]);
        for option in &self.ssh_options {
            command.args(["-o", option]);
        }
        command
    }

    /// Runs `words` there (quoted for its shell), waits, returns the output.
    fn run(&self, words: &[&str]) -> anyhow::Result<Output> {
        let mut command = self.ssh();
        command.args(["-T", "--", &self.destination, &shell_words(words)]);
        let error = match output_within(command, ANSWER_WITHIN, ANSWER_CAP) {
            Ok(output) => return Ok(output),
            Err(NoOutput::Spawn(error)) => anyhow::Error::new(error)
                .context("cannot run ssh (the OpenSSH client): is it installed and on PATH?"),
            Err(NoOutput::TimedOut) => anyhow::anyhow!(
                "no answer within {:.1} s: the machine or its fwbench stalls",
                ANSWER_WITHIN.as_secs_f64()
            ),
            Err(NoOutput::TooLarge) => {
                anyhow::anyhow!(
                    "answered more than {} KiB, which no fwbench answer is",
                    ANSWER_CAP >> 10
                )
            }
        };
        Err(error.context(format!(
            "--server-host {}: `{}`",
            self.destination,
            words.join(" ")
        )))
    }

    /// The address and SSH port `ssh -G` resolves the destination to.
    fn resolve(&self) -> anyhow::Result<(IpAddr, u16)> {
        let mut command = self.ssh();
        let output = command
            .args(["-G", "--", &self.destination])
            .stdin(Stdio::null())
            .output()
            .context("cannot run ssh (the OpenSSH client): is it installed and on PATH?")?;
        if !output.status.success() {
            bail!(
                "--server-host {}: ssh -G refused it: {}",
                self.destination,
                last_words(&output.stderr)
            );
        }
        let config = String::from_utf8_lossy(&output.stdout);
        let value = |key: &str| {
            config
                .lines()
                .find_map(|line| line.strip_prefix(key)?.strip_prefix(' ').map(str::trim))
        };
        let name = value("hostname").unwrap_or(&self.destination).to_owned();
        let port: u16 = value("port").and_then(|p| p.parse().ok()).unwrap_or(22);
        let addrs: Vec<SocketAddr> = (name.as_str(), port)
            .to_socket_addrs()
            .with_context(|| format!("--server-host {}: cannot resolve {name}", self.destination))?
            .collect();
        let address = addrs
            .iter()
            .find(|a| a.is_ipv4())
            .or(addrs.first())
            .map(SocketAddr::ip)
            .with_context(|| format!("--server-host {}: {name} has no address", self.destination))?;
        Ok((address, port))
    }

    /// Refuses a remote fwbench that is missing or not this version.
    fn check_version(&self) -> anyhow::Result<()> {
        let switches = fwbench_switches();
        let mut words: Vec<&str> = Vec::new();
        if !switches.is_empty() {
            words.push("env");
            words.extend(switches.iter().map(String::as_str));
        }
        words.extend([self.remote_bin.as_str(), "--version"]);
        let output = self.run(&words)?;
        let theirs = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        match output.status.code() {
            Some(0) => {}
            // ssh's own failure: the host, the network or the login.
            Some(255) | None => bail!(
                "cannot reach --server-host {} over SSH ({}): {}; check that `ssh -o BatchMode=yes {} true` \
                 works without a prompt (keys, known_hosts, user)",
                self.destination,
                self.address,
                last_words(&output.stderr),
                self.destination
            ),
            Some(code) => bail!(
                "--server-host {}: `{} --version` failed there (status {code}): {}; install the same fwbench \
                 there and name it with --remote-bin PATH",
                self.destination,
                self.remote_bin,
                last_words(&output.stderr)
            ),
        }
        let ours = local_version()?;
        if theirs != ours {
            bail!(
                "--server-host {}: its fwbench ({}) is not this one: it reports {:?}, this one {:?}; \
                 install the same build there (or name it with --remote-bin PATH)",
                self.destination,
                self.remote_bin,
                one_line(&theirs),
                one_line(&ours)
            );
        }
        Ok(())
    }

    /// The remote machine's facts, from its fwbench.
    fn read_facts(&self) -> anyhow::Result<MachineFacts> {
        let output = self.run(&[&self.remote_bin, "machine-facts"])?;
        if !output.status.success() {
            bail!(
                "--server-host {}: `{} machine-facts` failed there: {}",
                self.destination,
                self.remote_bin,
                last_words(&output.stderr)
            );
        }
        serde_json::from_slice(&output.stdout).with_context(|| {
            format!(
                "--server-host {}: unreadable answer from `{} machine-facts`",
                self.destination, self.remote_bin
            )
        })
    }

    /// `ssh` running `fwbench ARGS` there, pinned to `cpus` (none: not
    /// pinned) with `taskset`, its exit status written on stderr after
    /// [`EXIT_MARKER`] and passed on as ssh's own.
    pub fn command(&self, args: &[String], cpus: &[usize]) -> Command {
        // "$@" runs the words after the script ($0 is only a name), so
        // nothing in them is parsed twice.
        let script = format!(r#""$@"; s=$?; echo "{EXIT_MARKER}$s" >&2; exit $s"#);
        let list = cpu_list(cpus);
        let switches = fwbench_switches();
        let mut words = vec!["sh", "-c", &script, "fwbench-row"];
        if !switches.is_empty() {
            words.push("env");
            words.extend(switches.iter().map(String::as_str));
        }
        if !cpus.is_empty() {
            words.extend(["taskset", "-c", &list]);
        }
        words.push(&self.remote_bin);
        words.extend(args.iter().map(String::as_str));
        let mut command = self.ssh();
        // -e none: no escape character, so no byte of the session can be
        // taken for a command to ssh.
        command.args(["-T", "-e", "none", "--", &self.destination, &shell_words(&words)]);
        command
    }

    /// The median of a few TCP connects to the host's SSH port: the network
    /// path's round trip (a connect takes one), before any row loads it.
    ///
    /// One connection at a time, each ended before the next: sshd counts
    /// connections that have not logged in against `MaxStartups` (10 by
    /// default) and past it drops new ones at random, the row servers'
    /// sessions among them. So each probe waits for sshd's greeting, says
    /// it is done and waits for sshd to close its side.
    pub fn round_trips(&self) -> Option<RoundTrips> {
        let to = SocketAddr::new(self.address, self.ssh_port);
        let mut times: Vec<f64> = (0..RTT_SAMPLES)
            .filter_map(|_| {
                let started = Instant::now();
                let stream = TcpStream::connect_timeout(&to, Duration::from_secs(2)).ok()?;
                let took = started.elapsed();
                end_politely(stream);
                Some(took.as_secs_f64() * 1e3)
            })
            .collect();
        if times.is_empty() {
            return None;
        }
        times.sort_by(f64::total_cmp);
        Some(RoundTrips {
            method: format!("TCP connect to {to}"),
            samples: times.len(),
            median_ms: times[times.len() / 2],
            min_ms: times[0],
            max_ms: times[times.len() - 1],
        })
    }

    /// What the report says about this machine.
    pub fn info(&self, rtt: Option<RoundTrips>) -> ServerHostInfo {
        ServerHostInfo {
            destination: self.destination.clone(),
            address: self.address.to_string(),
            machine: self.facts.machine.clone(),
            rtt,
        }
    }
}

/// This run's engine switches (engine/switches.rs) as `NAME=value` words:
/// ssh passes no environment, so the remote fwbench gets them on its
/// command line (through `env`), and serves and reports its version as a
/// local one would under them. They were checked when the command
/// started.
fn fwbench_switches() -> Vec<String> {
    crate::engine::switches::from_env()
        .unwrap_or_default()
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect()
}

/// This binary's `--version` text, as the remote one is asked for it.
fn local_version() -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("cannot find the fwbench executable")?;
    let output = Command::new(&exe)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {} --version", exe.display()))?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// `0,2,3` for taskset.
fn cpu_list(cpus: &[usize]) -> String {
    cpus.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// `words` as one POSIX shell command line: each in single quotes.
fn shell_words(words: &[&str]) -> String {
    words
        .iter()
        .map(|word| format!("'{}'", word.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last non-empty line of a process's stderr, or a placeholder.
fn last_words(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .map_or_else(|| "no message".to_owned(), |line| line.trim().to_owned())
}

/// Multi-line `--version` text joined for one message line.
fn one_line(text: &str) -> String {
    text.lines().map(str::trim).collect::<Vec<_>>().join("; ")
}

/// Reads the SSH server's greeting, closes our side and reads until the
/// server has closed its own (each step at most a second), so the probe's
/// connection is gone from sshd's count before the next one is made.
fn end_politely(mut stream: TcpStream) {
    use std::io::Read;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let mut buffer = [0u8; 256];
    let _ = stream.read(&mut buffer);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_reach_the_remote_shell_unchanged() {
        let line = shell_words(&["sh", "-c", r#""$@"; echo it's"#, "a b"]);
        assert_eq!(line, r#"'sh' '-c' '"$@"; echo it'\''s' 'a b'"#);
        // And a real shell reads them back as the same words.
        let output = Command::new("sh")
            .args(["-c", &format!("printf '%s|' {line}")])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            r#"sh|-c|"$@"; echo it's|a b|"#
        );
    }

    #[test]
    fn the_remote_command_pins_and_reports_its_exit() {
        let machine = ServerMachine {
            destination: "root@10.231.0.1".into(),
            ssh_options: vec!["Port=2222".into()],
            remote_bin: "/opt/fwbench".into(),
            address: "10.231.0.1".parse().unwrap(),
            ssh_port: 22,
            facts: MachineFacts::here(),
        };
        let command = machine.command(&["serve".into(), "--port".into(), "0".into()], &[1, 3]);
        let args: Vec<_> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args[..6],
            [
                "-o",
                "BatchMode=yes",
                "-o",
                "ConnectTimeout=10",
                "-o",
                "Port=2222"
            ]
        );
        let remote = args.last().unwrap();
        // This run's engine switches, if any, come between the wrapper and
        // taskset; the test process may have some set.
        let switches: String = fwbench_switches()
            .iter()
            .map(|word| format!(" '{word}'"))
            .collect();
        let env = if switches.is_empty() {
            String::new()
        } else {
            format!(" 'env'{switches}")
        };
        assert!(
            remote.ends_with(&format!(
                "'fwbench-row'{env} 'taskset' '-c' '1,3' '/opt/fwbench' 'serve' '--port' '0'"
            )),
            "{remote}"
        );
        assert!(remote.contains(EXIT_MARKER), "{remote}");
    }
}
