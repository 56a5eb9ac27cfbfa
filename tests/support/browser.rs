//! A headless Chromium driven over the DevTools protocol through a pipe
//! (`--remote-debugging-pipe`: commands on its fd 3, replies and events on
//! its fd 4, each JSON message ended by a NUL byte), so the HTML report is
//! checked in a real browser with nothing but the Debian package: no
//! WebDriver, no Playwright, no network port.
//!
//! [`Browser::find`] says why there is none (not installed); a test then
//! skips, or fails when FWBENCH_REQUIRE_BROWSER is set (CI as root, where
//! .ci/test.sh installs it).

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long one command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A running headless Chromium with one page attached.
pub struct Browser {
    child: Child,
    commands: std::fs::File,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    /// Every event seen so far, in order.
    pub events: Vec<Value>,
    _profile: PathBuf,
}

/// Whether a browser test may skip when Chromium is missing.
pub fn browser_required() -> bool {
    std::env::var_os("FWBENCH_REQUIRE_BROWSER").is_some_and(|v| v == "1")
}

impl Browser {
    /// The Chromium binary: $FWBENCH_CHROMIUM, else `chromium` or
    /// `chromium-browser` on PATH; `Err` says what was looked for.
    pub fn find() -> Result<PathBuf, String> {
        if let Some(path) = std::env::var_os("FWBENCH_CHROMIUM") {
            return Ok(PathBuf::from(path));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        for dir in std::env::split_paths(&path) {
            for name in ["chromium", "chromium-browser"] {
                let candidate = dir.join(name);
                if candidate.is_file() {
                    return Ok(candidate);
                }
            }
        }
        Err("no chromium on PATH (Debian: apt-get install chromium) and FWBENCH_CHROMIUM unset".into())
    }

    /// Starts `binary` headless with a fresh profile under `scratch` and
    /// attaches to a blank page with the runtime, log, network and page
    /// domains on.
    pub fn start(binary: &Path, scratch: &Path) -> Browser {
        let profile = scratch.join("chromium-profile");
        std::fs::create_dir_all(&profile).expect("profile dir");
        let (their_in, our_out) = pipe();
        let (our_in, their_out) = pipe();
        let (their_in_fd, their_out_fd) = (their_in.as_raw_fd(), their_out.as_raw_fd());
        let mut command = Command::new(binary);
        command
            .args([
                "--headless=new",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe fcntl and dup2 between fork and
        // exec. Both ends are first copied above 10, so placing one at 3
        // cannot close the other if it happened to be 3 or 4.
        unsafe {
            command.pre_exec(move || {
                let input = libc::fcntl(their_in_fd, libc::F_DUPFD_CLOEXEC, 10);
                let output = libc::fcntl(their_out_fd, libc::F_DUPFD_CLOEXEC, 10);
                if input < 0 || output < 0 || libc::dup2(input, 3) < 0 || libc::dup2(output, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start chromium");
        drop((their_in, their_out));
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(std::fs::File::from(our_in));
            let mut buffer = Vec::new();
            while reader.read_until(0, &mut buffer).is_ok_and(|n| n > 0) {
                if buffer.last() == Some(&0) {
                    buffer.pop();
                }
                if let Ok(message) = serde_json::from_slice::<Value>(&buffer) {
                    if tx.send(message).is_err() {
                        break;
                    }
                }
                buffer.clear();
            }
        });
        let mut browser = Browser {
            child,
            commands: std::fs::File::from(our_out),
            messages,
            next_id: 0,
            session: String::new(),
            events: Vec::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = target["targetId"].as_str().expect("targetId").to_owned();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        );
        browser.session = attached["sessionId"].as_str().expect("sessionId").to_owned();
        for domain in ["Runtime", "Log", "Network", "Page"] {
            browser.call(&format!("{domain}.enable"), json!({}));
        }
        browser
    }

    /// Sends `method` (to the page once attached) and waits for its result;
    /// events that arrive meanwhile are kept in [`Browser::events`].
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("json");
        bytes.push(0);
        self.commands.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(reply) if reply["id"] == id => {
                    assert!(reply.get("error").is_none(), "{method}: {reply}");
                    return reply["result"].clone();
                }
                Ok(event) => self.events.push(event),
                Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer {method} in time"),
                Err(RecvTimeoutError::Disconnected) => panic!("chromium ended before answering {method}"),
            }
        }
    }

    /// Opens `url` and waits for its load event.
    pub fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        while !self.events.iter().any(|e| e["method"] == "Page.loadEventFired") {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(event) => self.events.push(event),
                Err(_) => panic!("{url} did not load in time"),
            }
        }
    }

    /// The value of the page expression `expression` (JSON-serialisable).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(result.get("exceptionDetails").is_none(), "{expression}: {result}");
        result["result"]["value"].clone()
    }

    /// Errors the page reported: uncaught exceptions, console.error calls
    /// and error log entries.
    pub fn errors(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| {
                e["method"] == "Runtime.exceptionThrown"
                    || (e["method"] == "Runtime.consoleAPICalled" && e["params"]["type"] == "error")
                    || (e["method"] == "Log.entryAdded" && e["params"]["entry"]["level"] == "error")
            })
            .map(Value::to_string)
            .collect()
    }

    /// The URL of every request the page made.
    pub fn requests(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .filter_map(|e| e["params"]["request"]["url"].as_str().map(str::to_owned))
            .collect()
    }

    /// A PNG of the page, written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        );
        let data = shot["data"].as_str().expect("screenshot data");
        use base64::Engine as _;
        let png = base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("base64 screenshot");
        std::fs::write(path, png).expect("write the screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Stopped by the PID it was started with.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A pipe's (read, write) ends, both close-on-exec (the child gets its
/// ends as fds 3 and 4 by dup2, which clears the flag on the copies).
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: fds is two ints, as pipe2 needs.
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(made, 0, "pipe2: {}", std::io::Error::last_os_error());
    // SAFETY: pipe2 just made these two descriptors, owned by no one else.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}
