//! Support for the integration tests: start `fwbench serve` on an
//! ephemeral port and talk to it with a small, real HTTP/1.1 client over
//! TCP, run the other commands (with [`bench()`] and [`sweep()`] building
//! the arguments of a short run), and ([`servers`]) in-process servers for
//! the load generator's tests, and ([`browser`]) a headless Chromium for
//! the HTML report's.

pub mod bench;
pub mod browser;
pub mod servers;

pub use bench::{bench, sweep, BenchArgs};

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The fixtures directory (tests/fixtures).
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

/// A `fwbench serve` child process; killed (by its PID) when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
    /// The banner line `serve` printed.
    pub banner: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `fwbench serve APP --port 0 EXTRA...` and waits until it
    /// prints the URL it listens on.
    pub fn start(app: &Path, extra: &[&str]) -> Server {
        let mut args: Vec<&OsStr> = vec![app.as_os_str()];
        args.extend(extra.iter().map(OsStr::new));
        Server::start_with(&args)
    }

    /// Starts `fwbench serve --framework FRAMEWORK --scenario SCENARIO
    /// --port 0` (a built-in scenario's name or a scenario file's path).
    pub fn scenario(framework: &str, scenario: impl AsRef<OsStr>) -> Server {
        Server::start_with(&[
            OsStr::new("--framework"),
            OsStr::new(framework),
            OsStr::new("--scenario"),
            scenario.as_ref(),
        ])
    }

    /// [`Server::start`] with `env` set for the process.
    pub fn start_with_env(app: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut args: Vec<&OsStr> = vec![app.as_os_str()];
        args.extend(extra.iter().map(OsStr::new));
        Server::spawn(&args, env)
    }

    /// Starts `fwbench serve ARGS... --port 0` and waits until it prints the
    /// URL it listens on.
    pub fn start_with(args: &[&OsStr]) -> Server {
        Server::spawn(args, &[])
    }

    /// [`Server::start_with`] with `env` set for the process.
    pub fn spawn(args: &[&OsStr], env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fwbench"))
            .envs(env.iter().copied())
            .arg("serve")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn fwbench serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let mut err = child.stderr.take().expect("piped stderr");
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read the serve banner");
        let Some(start) = line.find("http://") else {
            let _ = child.wait();
            std::thread::sleep(Duration::from_millis(100));
            panic!(
                "fwbench serve did not start: {line}\nstderr: {}",
                stderr.lock().unwrap()
            );
        };
        let addr = line[start + 7..].split('/').next().unwrap().to_owned();
        // Keep draining stdout so the child never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while stdout.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
                sink.clear();
            }
        });
        Server {
            child,
            addr,
            banner: line.trim_end().to_owned(),
            stderr,
        }
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits (up to `timeout`) until stderr contains `needle`.
    pub fn wait_for_log(&self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let log = self.stderr();
            if log.contains(needle) || Instant::now() > deadline {
                return log;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// GET `path` on a new connection.
    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], None)
    }

    /// Sends one request on a new connection and reads the response.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Response {
        let mut conn = Connection::open(&self.addr);
        conn.send(method, path, headers, body);
        conn.read_response_to(method)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}\nstderr: {}", self.stderr()))
    }

    /// Sends `raw` bytes and returns whatever comes back until the server
    /// closes the connection or `timeout` passes.
    pub fn raw(&self, raw: &[u8], timeout: Duration) -> String {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream.set_read_timeout(Some(timeout)).unwrap();
        let _ = stream.write_all(raw);
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Sends SIGINT (Ctrl-C) and waits for the process to exit.
    pub fn interrupt(mut self) -> std::process::ExitStatus {
        signal(&self.child, "-INT");
        wait_or_kill(&mut self.child, Duration::from_secs(10))
            .expect("fwbench serve did not stop after Ctrl-C")
    }

    /// Waits up to `timeout` for the process to end on its own; `None`
    /// (and it is killed) if it does not.
    pub fn wait_for_exit(mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        wait_or_kill(&mut self.child, timeout)
    }

    /// Sends SIGTERM and returns how long the process took to exit (it is
    /// killed, and the test fails, if it takes more than 10 s).
    pub fn terminate(mut self) -> Duration {
        let started = Instant::now();
        signal(&self.child, "-TERM");
        let stopped = wait_or_kill(&mut self.child, Duration::from_secs(10));
        assert!(
            stopped.is_some(),
            "fwbench serve did not stop within 10 s of SIGTERM\nstderr: {}",
            self.stderr()
        );
        started.elapsed()
    }

    /// The server's resident set size in KiB (Linux /proc).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc/PID/status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS in /proc/PID/status")
    }
}

/// Sends a signal (`-TERM`, `-INT`) to `child` by its PID.
pub fn signal(child: &Child, which: &str) {
    Command::new("kill")
        .args([which, &child.id().to_string()])
        .status()
        .expect("run kill");
}

/// Waits up to `timeout` for `child` to exit; kills it (by its PID) and
/// returns `None` if it does not.
pub fn wait_or_kill(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of header `name`.
    pub fn header_all(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One keep-alive HTTP/1.1 connection.
pub struct Connection {
    reader: BufReader<TcpStream>,
}

impl Connection {
    pub fn open(addr: &str) -> Connection {
        let stream = TcpStream::connect(addr).expect("connect to fwbench");
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        Connection {
            reader: BufReader::new(stream),
        }
    }

    /// The socket, for raw writes and reads.
    pub fn stream(&mut self) -> &mut TcpStream {
        self.reader.get_mut()
    }

    pub fn send(&mut self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&[u8]>) {
        let mut head = format!("{method} {path} HTTP/1.1\r\nhost: test.local\r\n");
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(body) = body {
            head.push_str(&format!("content-length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes()).expect("write request head");
        if let Some(body) = body {
            stream.write_all(body).expect("write request body");
        }
    }

    /// Reads the response to a request that was not HEAD.
    pub fn read_response(&mut self) -> Result<Response, String> {
        self.read_response_to("GET")
    }

    /// Reads the response to a `method` request: a response to HEAD has no
    /// body, whatever its content-length says.
    pub fn read_response_to(&mut self, method: &str) -> Result<Response, String> {
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .map_err(|e| format!("read status line: {e}"))?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line {line:?}"))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader
                .read_line(&mut line)
                .map_err(|e| format!("read header: {e}"))?;
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            let (name, value) = trimmed
                .split_once(':')
                .ok_or_else(|| format!("bad header {trimmed:?}"))?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        if method.eq_ignore_ascii_case("HEAD") {
            return Ok(response);
        }
        if let Some(length) = response.header("content-length") {
            let length: usize = length.parse().map_err(|_| "bad content-length".to_string())?;
            response.body.resize(length, 0);
            self.reader
                .read_exact(&mut response.body)
                .map_err(|e| format!("read body: {e}"))?;
        } else if response.header("transfer-encoding") == Some("chunked") {
            loop {
                line.clear();
                self.reader
                    .read_line(&mut line)
                    .map_err(|e| format!("read chunk size: {e}"))?;
                let size =
                    usize::from_str_radix(line.trim(), 16).map_err(|_| format!("bad chunk size {line:?}"))?;
                let mut chunk = vec![0u8; size + 2];
                self.reader
                    .read_exact(&mut chunk)
                    .map_err(|e| format!("read chunk: {e}"))?;
                if size == 0 {
                    break;
                }
                response.body.extend_from_slice(&chunk[..size]);
            }
        }
        Ok(response)
    }
}

/// Runs `fwbench ARGS...` to completion (for commands that must fail).
pub fn fwbench<I, S>(args: I) -> std::process::Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(args)
        .output()
        .expect("run fwbench")
}

/// Runs `fwbench ARGS...` for at most `timeout`; `None` if it had to be
/// killed (by its PID) because it was still running.
pub fn fwbench_within<I, S>(args: I, timeout: Duration) -> Option<std::process::Output>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut child = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fwbench");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.read_to_end(&mut out);
            out
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let status = wait_or_kill(&mut child, timeout)?;
    Some(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}
