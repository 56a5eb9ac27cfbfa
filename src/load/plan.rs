/*!
The validated plan of a load run (the second of ripgrep's two stages,
`flags/hiargs.rs`): [`LoadPlan::from_args`] turns raw flags into a plan, and
every check of values and of how they combine lives in
[`LoadPlan::validate`], which [`execute`](super::execute) runs again so a
plan built in code (by `fwbench bench`) gets the same checks as one built
from the command line.
*/

use std::time::Duration;

use anyhow::Context;

use super::segment::{Segment, JOB_INDEX_VAR};
use crate::capped_read::{mib, read_capped};

use super::args::{is_token_byte, LoadArgs};
use super::limits::{
    DEFAULT_DURATION, DEFAULT_TIMEOUT, HARD_CAP, MAX_BODY_BYTES, MAX_CONNECTIONS, MAX_PIPELINE, MAX_THREADS,
};
use super::target::{parse_target_allowing, AllowedHost, Target, TargetError};
use super::validate::{ExpectHeader, Expectations};

/// A plan that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The URL is unusable or not on loopback.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A value or a combination of values is invalid.
    #[error("{0}")]
    Invalid(String),
}

/// The request sent on every connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSpec {
    /// Method, e.g. `GET`.
    pub method: String,
    /// Extra headers, in order. `Host` here replaces the default one.
    pub headers: Vec<(String, String)>,
    /// Body (empty for none).
    pub body: Vec<u8>,
}

impl Default for RequestSpec {
    fn default() -> Self {
        RequestSpec {
            method: "GET".to_string(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }
}

/// Everything a load run needs, validated.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    /// Where the load goes (loopback, or an address the user named:
    /// target.rs).
    pub target: Target,
    /// What is sent.
    pub request: RequestSpec,
    /// Keep-alive connections held open.
    pub connections: usize,
    /// Worker threads (at most one per connection is used).
    pub threads: usize,
    /// Measured duration, after the warm-up.
    pub duration: Option<Duration>,
    /// Exact number of measured requests.
    pub requests: Option<u64>,
    /// Warm-up before measuring.
    pub warmup: Duration,
    /// Requests written back to back per connection (closed loop only).
    pub pipeline: u32,
    /// Open loop: requests per second over all connections.
    pub rate: Option<f64>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// What every response must look like.
    pub expect: Expectations,
    /// Whether to draw a live progress line on stderr.
    pub progress: bool,
    /// The part of a larger load this plan is, if it is one.
    pub segment: Option<Segment>,
    /// Also report latency per block of this many consecutive answers
    /// (blocks.rs): a warm-up curve's figures. `None`: not recorded.
    pub blocks: Option<u64>,
}

impl LoadPlan {
    /// A plan for `url` with the defaults of `fwbench load URL`: 50
    /// connections, one thread per available CPU, 10 s, closed loop, GET,
    /// any 2xx accepted, no progress line.
    pub fn new(url: &str) -> Result<LoadPlan, PlanError> {
        LoadPlan::new_allowing(url, &[])
    }

    /// [`LoadPlan::new`] for a target that may also be one of `allowed`
    /// (hosts the user named: `--allow-host`, `bench --server-host`).
    pub fn new_allowing(url: &str, allowed: &[AllowedHost]) -> Result<LoadPlan, PlanError> {
        Ok(LoadPlan {
            target: parse_target_allowing(url, allowed)?,
            request: RequestSpec::default(),
            connections: 50,
            threads: available_cpus(),
            duration: Some(DEFAULT_DURATION),
            requests: None,
            warmup: Duration::ZERO,
            pipeline: 1,
            rate: None,
            timeout: DEFAULT_TIMEOUT,
            expect: Expectations::default(),
            segment: None,
            blocks: None,
            progress: false,
        })
    }

    /// Builds and validates a plan from command-line flags (reads
    /// `--body-file`).
    pub fn from_args(args: &LoadArgs) -> anyhow::Result<LoadPlan> {
        let mut plan = LoadPlan::new_allowing(&args.url, &args.allow_hosts)?;
        plan.connections = args.connections;
        if let Some(t) = args.threads {
            plan.threads = t;
        }
        plan.duration = match (args.duration, args.requests) {
            (None, None) => Some(DEFAULT_DURATION),
            (d, _) => d,
        };
        plan.requests = args.requests;
        plan.warmup = args.warmup;
        plan.pipeline = args.pipeline;
        plan.rate = args.rate;
        plan.timeout = args.timeout;
        plan.request.method = args.method.clone();
        let own: Vec<(String, String)> = args
            .headers
            .iter()
            .map(|h| (h.name.clone(), h.value.clone()))
            .collect();
        plan.request.headers = args.header_set.unwrap_or_default().compose(&own);
        plan.request.body = match (&args.body, &args.body_file) {
            (Some(text), _) => text.clone().into_bytes(),
            (None, Some(path)) => read_capped(path, MAX_BODY_BYTES as u64)
                .with_context(|| format!("cannot read --body-file {}", path.display()))?,
            (None, None) => Vec::new(),
        };
        plan.expect = Expectations {
            status: args.expect_status,
            headers: args
                .expect_headers
                .iter()
                .map(|h| ExpectHeader {
                    name: h.name.clone(),
                    value: h.value.clone(),
                })
                .collect(),
            body: args.expect_body.as_ref().map(|b| b.clone().into_bytes()),
        };
        plan.progress = !args.no_progress;
        let segment = match (args.segment, args.segment_from_job_index) {
            (Some(segment), _) => Some(segment),
            (None, Some(n)) => {
                let index = std::env::var(JOB_INDEX_VAR).ok();
                Some(Segment::from_job_index(index.as_deref(), n).map_err(PlanError::Invalid)?)
            }
            (None, None) => None,
        };
        if let Some(segment) = segment {
            plan.cut_to(segment)?;
        }
        plan.validate()?;
        Ok(plan)
    }

    /// Keeps only `segment`'s share of the connections, the request count
    /// and the rate (segment.rs).
    fn cut_to(&mut self, segment: Segment) -> Result<(), PlanError> {
        let connections = segment.of_count(self.connections as u64) as usize;
        if connections == 0 {
            return Err(PlanError::Invalid(format!(
                "--segment {segment}: {} connections cut into {} parts leave this part none; give at least {} connections",
                self.connections, segment.n, segment.n
            )));
        }
        self.connections = connections;
        if let Some(total) = self.requests {
            let share = segment.of_count(total);
            if share == 0 {
                return Err(PlanError::Invalid(format!(
                    "--segment {segment}: -n {total} cut into {} parts leaves this part no request",
                    segment.n
                )));
            }
            self.requests = Some(share);
        }
        self.rate = self.rate.map(|rate| segment.of_rate(rate));
        self.segment = Some(segment);
        Ok(())
    }

    /// Checks every value and combination; the message says what to change.
    pub fn validate(&self) -> Result<(), PlanError> {
        let bad = |msg: String| Err(PlanError::Invalid(msg));
        if self.request.body.len() > MAX_BODY_BYTES {
            return bad(format!(
                "the request body is {} bytes, more than the {} fwbench load sends",
                self.request.body.len(),
                mib(MAX_BODY_BYTES as u64)
            ));
        }
        if !(1..=MAX_CONNECTIONS).contains(&self.connections) {
            return bad(format!(
                "-c/--connections must be from 1 to {MAX_CONNECTIONS}, got {}",
                self.connections
            ));
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return bad(format!(
                "-t/--threads must be from 1 to {MAX_THREADS}, got {}",
                self.threads
            ));
        }
        match (self.duration, self.requests) {
            (None, None) => return bad("give a duration (-d) or a request count (-n)".into()),
            (Some(d), _) if d.is_zero() || d > HARD_CAP => {
                return bad(format!(
                    "-d/--duration must be above 0 and at most {}s (the hard cap), got {d:?}",
                    HARD_CAP.as_secs()
                ))
            }
            (_, Some(0)) => return bad("-n/--requests must be at least 1".into()),
            _ => {}
        }
        if self.warmup > HARD_CAP {
            return bad(format!(
                "--warmup must be at most {}s, got {:?}",
                HARD_CAP.as_secs(),
                self.warmup
            ));
        }
        if !(1..=MAX_PIPELINE).contains(&self.pipeline) {
            return bad(format!(
                "--pipeline must be from 1 to {MAX_PIPELINE}, got {}",
                self.pipeline
            ));
        }
        if let Some(rate) = self.rate {
            if !(rate.is_finite() && rate > 0.0) {
                return bad(format!("--rate must be above 0 requests per second, got {rate}"));
            }
            if self.pipeline > 1 {
                return bad(
                    "--pipeline works in closed loop only: open loop (--rate) paces every \
                     request on its own; drop one of them"
                        .into(),
                );
            }
        }
        if self.timeout < Duration::from_millis(1) || self.timeout > HARD_CAP {
            return bad(format!(
                "--timeout must be from 1ms to {}s, got {:?}",
                HARD_CAP.as_secs(),
                self.timeout
            ));
        }
        let method = &self.request.method;
        if method.is_empty() || !method.bytes().all(is_token_byte) {
            return bad(format!(
                "invalid method '{method}': expected a token like GET, POST or PUT"
            ));
        }
        for (name, value) in &self.request.headers {
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return bad(format!("invalid header name '{name}'"));
            }
            if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
                return bad(format!(
                    "invalid value of header '{name}': no line breaks or NUL allowed"
                ));
            }
            if name.eq_ignore_ascii_case("content-length") || name.eq_ignore_ascii_case("transfer-encoding") {
                return bad(format!(
                    "header '{name}' is set by fwbench from --body/--body-file; remove -H '{name}: ...'"
                ));
            }
        }
        Ok(())
    }

    /// Whether the run is open loop.
    pub fn is_open_loop(&self) -> bool {
        self.rate.is_some()
    }

    /// Threads actually used: no more than connections.
    pub fn effective_threads(&self) -> usize {
        self.threads.min(self.connections).max(1)
    }

    /// Whether responses carry no body whatever their headers say.
    pub(crate) fn is_head_request(&self) -> bool {
        self.request.method.eq_ignore_ascii_case("HEAD")
    }

    /// The request serialized once, as sent on the wire.
    pub fn request_bytes(&self) -> Vec<u8> {
        let r = &self.request;
        let mut out = Vec::with_capacity(128 + r.body.len());
        out.extend_from_slice(r.method.as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.target.path.as_bytes());
        out.extend_from_slice(b" HTTP/1.1\r\n");
        if !r.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            out.extend_from_slice(b"Host: ");
            out.extend_from_slice(self.target.host_header.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        for (name, value) in &r.headers {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        let expects_body = ["POST", "PUT", "PATCH"]
            .iter()
            .any(|m| r.method.eq_ignore_ascii_case(m));
        if !r.body.is_empty() || expects_body {
            out.extend_from_slice(format!("Content-Length: {}\r\n", r.body.len()).as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&r.body);
        out
    }
}

/// CPUs this process may run on (respects `taskset`), at least 1.
pub fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> LoadPlan {
        LoadPlan::new("http://127.0.0.1:3000/x?y=1").unwrap()
    }

    #[test]
    fn defaults_are_valid() {
        plan().validate().unwrap();
    }

    #[test]
    fn serializes_get() {
        let p = plan();
        assert_eq!(
            String::from_utf8(p.request_bytes()).unwrap(),
            "GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n\r\n"
        );
    }

    #[test]
    fn serializes_post_with_headers_and_body() {
        let mut p = plan();
        p.request = RequestSpec {
            method: "POST".into(),
            headers: vec![("host".into(), "example".into()), ("x-a".into(), "1".into())],
            body: b"{}".to_vec(),
        };
        assert_eq!(
            String::from_utf8(p.request_bytes()).unwrap(),
            "POST /x?y=1 HTTP/1.1\r\nhost: example\r\nx-a: 1\r\nContent-Length: 2\r\n\r\n{}"
        );
        p.request.body.clear();
        assert!(String::from_utf8(p.request_bytes())
            .unwrap()
            .contains("Content-Length: 0\r\n"));
    }

    #[test]
    fn invalid_combinations_say_what_to_change() {
        type Change = Box<dyn Fn(&mut LoadPlan)>;
        let cases: Vec<(Change, &str)> = vec![
            (Box::new(|p| p.connections = 0), "-c/--connections"),
            (Box::new(|p| p.threads = 0), "-t/--threads"),
            (
                Box::new(|p| {
                    p.duration = None;
                    p.requests = None
                }),
                "-d",
            ),
            (Box::new(|p| p.duration = Some(HARD_CAP * 2)), "hard cap"),
            (
                Box::new(|p| {
                    p.rate = Some(100.0);
                    p.pipeline = 4
                }),
                "closed loop only",
            ),
            (Box::new(|p| p.request.method = "GE T".into()), "method"),
            (
                Box::new(|p| p.request.headers = vec![("Content-Length".into(), "3".into())]),
                "--body",
            ),
            (Box::new(|p| p.timeout = Duration::ZERO), "--timeout"),
        ];
        for (change, needle) in cases {
            let mut p = plan();
            change(&mut p);
            let err = p.validate().unwrap_err().to_string();
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }

    #[test]
    fn threads_never_exceed_connections() {
        let mut p = plan();
        p.threads = 8;
        p.connections = 3;
        assert_eq!(p.effective_threads(), 3);
    }
}
