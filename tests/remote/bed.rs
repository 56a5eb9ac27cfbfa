//! A test bed of real hosts on one machine: network namespaces joined by
//! veth pairs on a bridge, a real `sshd` (Debian's openssh-server) in the
//! server host with keys made for the test, and `ip netns exec` to run
//! fwbench on either side.
//!
//! ```text
//!   server host (sshd, row servers)        client hosts (bench, load)
//!   br0 10.231.0.1/24 ── veth ───────────── eth0 10.231.0.11/24
//!                     ── veth ───────────── eth0 10.231.0.12/24 …
//! ```
//!
//! The addresses repeat from bed to bed: each bed's namespaces are their
//! own network, so beds of tests running at once never meet, and no
//! traffic leaves them. Dropping the bed kills what it started, by PID
//! (sshd, then any process still in its namespaces: only what the test
//! started can be there), and deletes its namespaces, also when the test
//! failed.
//!
//! Needs root and `ip netns`; [`Bed::new`] says loudly why it cannot, and
//! with `FWBENCH_REQUIRE_NETNS=1` (as .ci/test.sh sets) that is a failure,
//! not a skip.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The server host's address.
pub const SERVER: &str = "10.231.0.1";

/// Names the beds of this test process apart.
static BEDS: AtomicU32 = AtomicU32::new(0);

/// One bed at a time: each runs servers and load generators on the same
/// few cores, and two at once would measure each other.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Namespaces, a bridge, an sshd: see the module docs.
pub struct Bed {
    /// The server host's namespace.
    pub server: String,
    /// The client hosts' namespaces, in order.
    pub clients: Vec<String>,
    /// Keys, sshd's config and log, known_hosts.
    pub dir: PathBuf,
    sshd: Option<Child>,
    /// Other processes the test started in the bed, killed on drop.
    started: Vec<u32>,
    /// Held while the bed exists (dropped last: after the cleanup).
    _turn: MutexGuard<'static, ()>,
}

impl Bed {
    /// A server host and `clients` client hosts; `None` (after saying why
    /// on stderr) when this machine cannot make them.
    pub fn new(name: &str, clients: usize) -> Option<Bed> {
        if let Some(why) = cannot_make_beds() {
            assert!(
                std::env::var_os("FWBENCH_REQUIRE_NETNS").is_none(),
                "FWBENCH_REQUIRE_NETNS is set but the test bed cannot be made: {why}"
            );
            eprintln!("\n*** SKIPPED {name}: {why} (network-namespace test beds need root, `ip netns` and sshd) ***\n");
            return None;
        }
        // A test that failed in its bed poisons the lock; the next bed is
        // still sound (the failed one was cleaned up on drop).
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poison| poison.into_inner());
        let tag = format!(
            "fwb{}-{}",
            std::process::id(),
            BEDS.fetch_add(1, Ordering::Relaxed)
        );
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{tag}-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let bed = Bed {
            server: format!("{tag}-s"),
            clients: (1..=clients).map(|k| format!("{tag}-c{k}")).collect(),
            dir,
            sshd: None,
            started: Vec::new(),
            _turn: turn,
        };
        // From here on, Drop deletes whatever was made.
        ip(&["netns", "add", &bed.server]);
        in_ns(&bed.server, &["ip", "link", "set", "lo", "up"]);
        in_ns(&bed.server, &["ip", "link", "add", "br0", "type", "bridge"]);
        in_ns(
            &bed.server,
            &["ip", "addr", "add", &format!("{SERVER}/24"), "dev", "br0"],
        );
        in_ns(&bed.server, &["ip", "link", "set", "br0", "up"]);
        for (k, client) in bed.clients.clone().iter().enumerate() {
            ip(&["netns", "add", client]);
            let port = format!("p{}", k + 1);
            // Made inside the client, its peer born in the server host:
            // no interface name in the machine's own namespace.
            in_ns(client, &["ip", "link", "set", "lo", "up"]);
            in_ns(
                client,
                &[
                    "ip",
                    "link",
                    "add",
                    "eth0",
                    "type",
                    "veth",
                    "peer",
                    "name",
                    &port,
                    "netns",
                    &bed.server,
                ],
            );
            in_ns(client, &["ip", "addr", "add", &client_addr(k), "dev", "eth0"]);
            in_ns(client, &["ip", "link", "set", "eth0", "up"]);
            in_ns(&bed.server, &["ip", "link", "set", &port, "master", "br0"]);
            in_ns(&bed.server, &["ip", "link", "set", &port, "up"]);
        }
        Some(bed)
    }

    /// Starts sshd in the server host (host key and a user key made here,
    /// root allowed: CI runs as root) and waits until a client gets in.
    pub fn start_sshd(&mut self) {
        let dir = &self.dir;
        for key in ["host_key", "user_key"] {
            run(Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.join(key)));
        }
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys")).unwrap();
        let host_key = std::fs::read_to_string(dir.join("host_key.pub")).unwrap();
        std::fs::write(dir.join("known_hosts"), format!("{SERVER} {host_key}")).unwrap();
        let config = format!(
            "ListenAddress {SERVER}\nHostKey {}\nAuthorizedKeysFile {}\nStrictModes no\nPermitRootLogin yes\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nPidFile none\n",
            dir.join("host_key").display(),
            dir.join("authorized_keys").display()
        );
        std::fs::write(dir.join("sshd_config"), config).unwrap();
        // Debian's sshd refuses to start without its privilege-separation
        // directory, which only its service script makes.
        std::fs::create_dir_all("/run/sshd").unwrap();
        let log = std::fs::File::create(dir.join("sshd.log")).unwrap();
        let sshd = Command::new("ip")
            .args(["netns", "exec", &self.server, &sshd_path(), "-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start sshd");
        self.sshd = Some(sshd);
        let deadline = Instant::now() + Duration::from_secs(15);
        // Knocking before sshd listens only fills its log.
        std::thread::sleep(Duration::from_millis(300));
        loop {
            let mut probe = self.in_client(0, "ssh");
            probe
                .args(self.ssh_args())
                .args([&format!("root@{SERVER}"), "true"]);
            let out = probe.output().unwrap();
            if out.status.success() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "sshd did not let the test in: {}\nsshd log:\n{}",
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// `-o` options for ssh to the bed's sshd with the test's keys only.
    pub fn ssh_options(&self) -> Vec<String> {
        vec![
            format!("IdentityFile={}", self.dir.join("user_key").display()),
            "IdentitiesOnly=yes".into(),
            format!("UserKnownHostsFile={}", self.dir.join("known_hosts").display()),
            "GlobalKnownHostsFile=/dev/null".into(),
            "StrictHostKeyChecking=yes".into(),
        ]
    }

    /// [`Bed::ssh_options`] as `ssh` arguments.
    fn ssh_args(&self) -> Vec<String> {
        self.ssh_options()
            .into_iter()
            .flat_map(|option| ["-o".to_owned(), option])
            .collect()
    }

    /// [`Bed::ssh_options`] as fwbench's `--ssh-option` flags.
    pub fn fwbench_ssh_flags(&self) -> Vec<String> {
        self.ssh_options()
            .into_iter()
            .flat_map(|option| ["--ssh-option".to_owned(), option])
            .collect()
    }

    /// `program` in client host `k` (0-based).
    pub fn in_client(&self, k: usize, program: &str) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.clients[k], program]);
        command
    }

    /// `fwbench ARGS` in client host `k`.
    pub fn fwbench_in_client(&self, k: usize) -> Command {
        self.in_client(k, env!("CARGO_BIN_EXE_fwbench"))
    }

    /// `fwbench ARGS` in the server host.
    pub fn fwbench_in_server(&self) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.server, env!("CARGO_BIN_EXE_fwbench")]);
        command
    }

    /// Records a process the test started in the bed, to kill on drop.
    pub fn track(&mut self, child: &Child) {
        self.started.push(child.id());
    }

    /// The PIDs of processes in the server host other than sshd itself.
    pub fn server_processes(&self) -> Vec<u32> {
        let sshd = self.sshd.as_ref().map(Child::id);
        netns_pids(&self.server)
            .into_iter()
            .filter(|pid| Some(*pid) != sshd)
            .collect()
    }

    /// Waits up to `timeout` until the server host has no process but
    /// sshd; the ones left, if any, with their command lines.
    pub fn wait_until_server_idle(&self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = self.server_processes();
            if left.is_empty() || Instant::now() > deadline {
                return left.iter().map(|pid| describe(*pid)).collect();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The PID of the row server (`fwbench serve`, this test's binary) in
    /// the server host, once one runs (up to `timeout`); else what runs
    /// there.
    pub fn wait_for_row_server(&self, timeout: Duration) -> Result<u32, String> {
        let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_fwbench")).unwrap();
        let deadline = Instant::now() + timeout;
        loop {
            let running = self.server_processes();
            let found = running.iter().copied().find(|pid| {
                std::fs::read_link(format!("/proc/{pid}/exe")).ok().as_ref() == Some(&exe)
                    && describe(*pid).contains(" serve ")
            });
            if let Some(pid) = found {
                return Ok(pid);
            }
            if Instant::now() > deadline {
                let seen: Vec<_> = running.iter().map(|pid| describe(*pid)).collect();
                return Err(format!("no row server; running there: {seen:#?}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// sshd's log so far, for failure messages.
    pub fn sshd_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        for pid in self.started.drain(..) {
            kill(pid);
        }
        if let Some(mut sshd) = self.sshd.take() {
            let _ = sshd.kill();
            let _ = sshd.wait();
        }
        // Whatever is still in the bed's namespaces was started by this
        // test (sshd's sessions, row servers): kill it by its PID.
        for ns in std::iter::once(&self.server).chain(&self.clients) {
            for pid in netns_pids(ns) {
                kill(pid);
            }
        }
        for ns in std::iter::once(&self.server).chain(&self.clients) {
            let _ = Command::new("ip").args(["netns", "delete", ns]).status();
        }
    }
}

/// Client `k`'s address with its prefix.
fn client_addr(k: usize) -> String {
    format!("10.231.0.{}/24", 11 + k)
}

/// Why this machine cannot make beds, if it cannot.
fn cannot_make_beds() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not running as root".into());
    }
    let works = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !works("ip", &["netns", "list"]) {
        return Some("`ip netns` is not available".into());
    }
    if !Path::new(&sshd_path()).exists() {
        return Some("no sshd (apt-get install openssh-server; .ci/setup.sh does)".into());
    }
    if !works("ssh", &["-V"]) {
        return Some("no ssh client".into());
    }
    None
}

/// Where Debian puts sshd (it must be started by its absolute path).
fn sshd_path() -> String {
    "/usr/sbin/sshd".into()
}

/// `ip ARGS`, which must succeed.
fn ip(args: &[&str]) {
    run(Command::new("ip").args(args));
}

/// `ARGS` in namespace `ns`, which must succeed.
fn in_ns(ns: &str, args: &[&str]) {
    run(Command::new("ip").args(["netns", "exec", ns]).args(args));
}

/// Runs `command`, panicking with its stderr if it fails.
fn run(command: &mut Command) -> Output {
    let out = command.output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        out.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The processes in namespace `ns`.
fn netns_pids(ns: &str) -> Vec<u32> {
    Command::new("ip")
        .args(["netns", "pids", ns])
        .output()
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// `PID: command line`, for messages.
fn describe(pid: u32) -> String {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let words: Vec<_> = cmdline
        .split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(String::from_utf8_lossy)
        .collect();
    format!("{pid}: {}", words.join(" "))
}

/// SIGKILL to `pid`.
fn kill(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: signalling a process by its PID.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}
