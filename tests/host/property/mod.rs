//! A property test of the adapter's request and response conversion,
//! over real sockets: random requests (methods, targets with queries,
//! header sets with empty, long, repeated and obs-text values, bodies by
//! length or chunked with extensions and trailers, and now and then one
//! defect a server must refuse) carry random answers for the app to give
//! (statuses from 0 to 2^32, header names and values valid or not, bodies
//! as nothing, text, bytes, streams of random chunks that may fail
//! midway, content-lengths that may lie). For every case:
//!
//! - every response is well-framed HTTP/1.1 (wire.rs reads it strictly),
//!   or the connection ends;
//! - a valid request that carries a valid answer gets exactly that answer
//!   (status, fields, body; the request as the app saw it, for an echo),
//!   an invalid answer gets docs/reference.md's 500 with one log line, and a
//!   stream that fails or breaks its content-length is cut with one log
//!   line, never completed;
//! - a request with a defect gets its 4xx, or the connection closes;
//! - after any connection ends, a new one still gets a known-good answer,
//!   and at the end the server is alive and has not panicked.
//!
//! The cases come from a seed (printed), so a run can be replayed:
//!
//! ```sh
//! FWBENCH_PROP_SEED=7 FWBENCH_PROP_CASES=1000000 cargo test --release --test tests property -- --nocapture
//! FWBENCH_PROP_SEED=7 FWBENCH_PROP_CASE=4711 cargo test --release --test tests property   # one case alone
//! ```
//!
//! `FWBENCH_PROP_CASES` defaults to 100,000 (about half a minute).

mod answer;
mod request;
mod wire;

use std::collections::HashMap;
use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::support::{fixture, Server};
use answer::{Answer, Body, Outcome};
use request::{Refusal, Request};
use wire::{Read1, Response, Wire};

/// The share of requests with a defect.
const DEFECTS: f64 = 0.05;

/// Parallel keep-alive connections.
const CONNECTIONS: usize = 6;

/// How long a response may take: past the default `--handler-timeout`
/// (10 s), so a handler that hangs shows as its 504, not as silence.
const READ_TIMEOUT: Duration = Duration::from_secs(15);

/// Failures kept (and printed) before the run stops.
const MAX_FAILURES: usize = 5;

/// One case: a request and the answer it asks the app for.
struct Case {
    index: u64,
    request: Request,
    answer: Answer,
}

impl Case {
    /// Case `index` of the run seeded with `seed`: the same on every run.
    fn new(seed: u64, index: u64) -> Case {
        let mut rng = StdRng::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let answer = Answer::random(&mut rng);
        // The head stays within the server's 16 KiB with the answer in it.
        let budget = (12 * 1024usize).saturating_sub(answer.to_json().len());
        let request = Request::random(&mut rng, DEFECTS, budget);
        Case {
            index,
            request,
            answer,
        }
    }
}

/// The run's settings, from the environment.
struct Settings {
    seed: u64,
    cases: Vec<u64>,
}

impl Settings {
    fn from_env() -> Settings {
        let number = |name: &str| {
            std::env::var(name).ok().map(|value| {
                value
                    .parse::<u64>()
                    .unwrap_or_else(|_| panic!("{name}={value:?} is not a whole number"))
            })
        };
        let seed = number("FWBENCH_PROP_SEED").unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(1, |d| d.as_nanos() as u64)
        });
        let cases = match number("FWBENCH_PROP_CASE") {
            Some(one) => vec![one],
            None => (0..number("FWBENCH_PROP_CASES").unwrap_or(100_000)).collect(),
        };
        Settings { seed, cases }
    }
}

/// What the cases found, by kind.
#[derive(Default)]
struct Tally {
    sent: AtomicU64,
    refused: AtomicU64,
    cut: AtomicU64,
    bad_requests: AtomicU64,
    reconnects: AtomicU64,
}

/// A line the server's log must or may hold for a case: the request's
/// `METHOD /path`, and whether it is a cut's (else a 500's).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct LogLine {
    request: String,
    cut: bool,
}

impl LogLine {
    /// The log line `line` is, if it is a 500's or a cut's.
    fn parse(line: &str) -> Option<LogLine> {
        let (request, what) = line.strip_prefix("fwbench: ")?.split_once(" -> ")?;
        let cut = what.starts_with("connection cut: ");
        (cut || what.starts_with("500: ")).then(|| LogLine {
            request: request.to_owned(),
            cut,
        })
    }
}

/// The log lines the cases call for: those they must have, and those
/// they may have (a request whose body breaks after the app got it).
#[derive(Default)]
struct LogLines {
    must: HashMap<LogLine, usize>,
    may: HashMap<LogLine, usize>,
}

/// A running property test against one server.
struct Run<'a> {
    server: &'a Server,
    seed: u64,
    tally: Tally,
    log_lines: Mutex<LogLines>,
    failures: Mutex<Vec<String>>,
    stop: AtomicBool,
}

#[test]
fn random_requests_and_answers_are_converted_as_the_readme_says() {
    let settings = Settings::from_env();
    let server = Server::start(&fixture("prop/app.js"), &["--workers", "2"]);
    let run = Run {
        server: &server,
        seed: settings.seed,
        tally: Tally::default(),
        log_lines: Mutex::default(),
        failures: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
    };
    let started = Instant::now();
    let lanes = if settings.cases.len() == 1 { 1 } else { CONNECTIONS };
    std::thread::scope(|scope| {
        for lane in 0..lanes {
            let run = &run;
            let cases: Vec<u64> = settings.cases.iter().copied().skip(lane).step_by(lanes).collect();
            scope.spawn(move || run.lane(&cases));
        }
    });
    let elapsed = started.elapsed();
    let failures = run.failures.into_inner().unwrap_or_default();
    let tally = &run.tally;
    let summary = format!(
        "seed {}: {} cases in {:.1} s over {lanes} connections: {} sent as told, {} refused with a 500, \
         {} cut, {} bad requests refused; {} reconnections",
        settings.seed,
        settings.cases.len(),
        elapsed.as_secs_f64(),
        tally.sent.load(Ordering::Relaxed),
        tally.refused.load(Ordering::Relaxed),
        tally.cut.load(Ordering::Relaxed),
        tally.bad_requests.load(Ordering::Relaxed),
        tally.reconnects.load(Ordering::Relaxed),
    );
    eprintln!("property: {summary}");
    assert!(
        failures.is_empty(),
        "{summary}\n\n{}\n\nreplay one case: FWBENCH_PROP_SEED={} FWBENCH_PROP_CASE=N",
        failures.join("\n\n"),
        settings.seed
    );
    let log = server.stderr();
    assert!(!log.contains("panicked"), "the server panicked:\n{log}");
    assert!(server.get("/").status == 200, "the server no longer answers");
    // One log line per refused answer and per cut stream, no more.
    let expected = run.log_lines.into_inner().unwrap_or_default();
    let log = wait_for_lines(&server, expected.must.values().sum());
    if let Err(problems) = check_log(&log, &expected) {
        panic!("{summary}\nthe server's log does not match the cases:\n{problems}");
    }
}

/// Whether `log` holds exactly the lines `expected` calls for.
fn check_log(log: &str, expected: &LogLines) -> Result<(), String> {
    let mut problems = Vec::new();
    let mut seen: HashMap<LogLine, usize> = HashMap::new();
    for line in log.lines() {
        match LogLine::parse(line) {
            Some(parsed) => *seen.entry(parsed).or_default() += 1,
            None => problems.push(format!("a line that is not a 500's or a cut's: {line}")),
        }
    }
    for (line, &must) in &expected.must {
        let found = seen.get(line).copied().unwrap_or_default();
        if found < must {
            problems.push(format!("missing ({found} of {must}): {line:?}"));
        }
    }
    for (line, &found) in &seen {
        let allowed = expected.must.get(line).copied().unwrap_or_default()
            + expected.may.get(line).copied().unwrap_or_default();
        if found > allowed {
            problems.push(format!("{found} lines where {allowed} were due: {line:?}"));
        }
    }
    problems.truncate(20);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The server's log once it has `count` lines (or after 5 s).
fn wait_for_lines(server: &Server, count: usize) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let log = server.stderr();
        if log.lines().count() >= count || Instant::now() > deadline {
            return log;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Run<'_> {
    /// Runs `cases` one after another on keep-alive connections.
    fn lane(&self, cases: &[u64]) {
        let mut wire: Option<Wire> = None;
        for &index in cases {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let conn = match wire.take() {
                Some(conn) => conn,
                None => match self.fresh_connection() {
                    Ok(conn) => conn,
                    Err(why) => return self.fail(format!("case {index}: {why}")),
                },
            };
            let case = Case::new(self.seed, index);
            match self.check(&case, conn) {
                Ok(kept) => wire = kept,
                Err(why) => self.fail(describe(&case, &why)),
            }
        }
    }

    /// A new connection, on which the server first answers a known-good
    /// request.
    fn fresh_connection(&self) -> Result<Wire, String> {
        self.tally.reconnects.fetch_add(1, Ordering::Relaxed);
        let stream = TcpStream::connect(&self.server.addr).map_err(|e| format!("connect: {e}"))?;
        let mut wire = Wire::new(stream, READ_TIMEOUT).map_err(|e| format!("socket: {e}"))?;
        wire.stream()
            .write_all(b"GET / HTTP/1.1\r\nHost: prop.test\r\n\r\n")
            .map_err(|e| format!("the known-good request: {e}"))?;
        match wire.read_response("GET") {
            Read1::Complete(response) if response.status == 200 && response.body == b"ok" => Ok(wire),
            other => Err(format!(
                "the known-good request on a new connection got {}",
                show(&other)
            )),
        }
    }

    fn fail(&self, failure: String) {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.push(failure);
        if failures.len() >= MAX_FAILURES {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Notes that case `case`'s request must (or, not `must`, may) have
    /// its log line.
    fn expect_log_line(&self, case: &Case, cut: bool, must: bool) {
        let line = LogLine {
            request: case.request.log_name(&self.server.addr),
            cut,
        };
        let mut lines = self.log_lines.lock().unwrap_or_else(|e| e.into_inner());
        let lines = if must { &mut lines.must } else { &mut lines.may };
        *lines.entry(line).or_default() += 1;
    }

    /// Sends case `case` on `wire` and checks what comes back; the
    /// connection, if it may be used again.
    fn check(&self, case: &Case, mut wire: Wire) -> Result<Option<Wire>, String> {
        let answer = case.answer.to_json();
        let bytes = case.request.to_wire(&answer);
        let read = send(&mut wire, &bytes, &case.request.method);
        if let Some(defect) = case.request.defect {
            self.tally.bad_requests.fetch_add(1, Ordering::Relaxed);
            if defect.refusal() == Refusal::AnyThenClose {
                self.expect_log_line(case, false, false);
                self.expect_log_line(case, true, false);
            }
            return match (defect.refusal(), read) {
                // A request hyper could not read ends its connection; one
                // the adapter refuses (a bad Host) may keep it.
                (Refusal::Status(status), Read1::Complete(response)) if response.status == status => {
                    if response.closes() {
                        expect_end(wire)
                    } else {
                        keep(wire, &response)
                    }
                }
                (_, Read1::Closed(_)) | (Refusal::AnyThenClose, Read1::Complete(_)) => expect_end(wire),
                (refusal, read) => Err(format!("expected {refusal:?}, got {}", show(&read))),
            };
        }
        let outcome = case.answer.outcome(&case.request.method);
        let response = match (&outcome, read) {
            (Outcome::Cut(_), Read1::Closed(_)) => {
                self.tally.cut.fetch_add(1, Ordering::Relaxed);
                self.expect_log_line(case, true, true);
                return Ok(None);
            }
            (_, Read1::Complete(response)) => response,
            (_, other) => {
                return Err(format!(
                    "expected {}, got {}",
                    expectation(&outcome),
                    show(&other)
                ))
            }
        };
        let closing = response.closes() || case.request.close;
        match &outcome {
            Outcome::Sent {
                status,
                headers,
                framing,
                body,
            } => {
                self.tally.sent.fetch_add(1, Ordering::Relaxed);
                if response.status != *status {
                    return Err(format!(
                        "expected status {status}, got {}",
                        show_response(&response)
                    ));
                }
                let mut got: Vec<(String, Vec<u8>)> = response
                    .headers
                    .iter()
                    .filter(|(name, _)| {
                        !matches!(
                            name.as_str(),
                            "content-length" | "transfer-encoding" | "connection"
                        ) && (name != "date" || headers.iter().any(|(n, _)| n == "date"))
                    })
                    .cloned()
                    .collect();
                let mut want: Vec<(String, Vec<u8>)> = headers
                    .iter()
                    .map(|(name, value)| (name.clone(), value.trim_ascii().to_vec()))
                    .collect();
                // Only the order of one name's values carries meaning.
                got.sort_by(|a, b| a.0.cmp(&b.0));
                want.sort_by(|a, b| a.0.cmp(&b.0));
                if got != want {
                    return Err(format!(
                        "expected the fields {:?}, got {}",
                        show_fields(&want),
                        show_response(&response)
                    ));
                }
                let has_body = !matches!(body, Body::Empty);
                if let (Some(declared), true) = (framing.content_length, has_body) {
                    let number = |value: &[u8]| std::str::from_utf8(value).ok()?.parse::<u64>().ok();
                    if response
                        .values("content-length")
                        .any(|v| number(v) != Some(declared))
                    {
                        return Err(format!(
                            "the app's content-length {declared} became {}",
                            show_response(&response)
                        ));
                    }
                }
                match body {
                    Body::Bytes(bytes) if response.body != *bytes => {
                        return Err(format!(
                            "expected a body of {} bytes, got {}",
                            bytes.len(),
                            show_response(&response)
                        ))
                    }
                    Body::Echo => {
                        let seen: serde_json::Value =
                            serde_json::from_slice(&response.body).map_err(|e| {
                                format!("the echo is not JSON ({e}): {}", show_response(&response))
                            })?;
                        let want = case.request.seen_by_fetch(&self.server.addr, &answer);
                        if seen != want {
                            return Err(format!("the app saw\n  {seen}\nbut was sent\n  {want}"));
                        }
                    }
                    Body::Empty if !response.body.is_empty() => {
                        return Err(format!("expected no body, got {}", show_response(&response)))
                    }
                    _ => {}
                }
                if framing.close && !response.closes() {
                    return Err(format!(
                        "the app's connection: close was dropped: {}",
                        show_response(&response)
                    ));
                }
            }
            Outcome::Refused(_) => {
                self.tally.refused.fetch_add(1, Ordering::Relaxed);
                self.expect_log_line(case, false, true);
                let body: &[u8] = if case.request.method == "HEAD" {
                    b""
                } else {
                    b"Internal Server Error\n"
                };
                if response.status != 500 || response.body != body {
                    return Err(format!("expected the 500, got {}", show_response(&response)));
                }
            }
            Outcome::Cut(_) => {
                return Err(format!(
                    "expected a cut connection, got a complete response: {}",
                    show_response(&response)
                ))
            }
        }
        if closing {
            return expect_end(wire);
        }
        keep(wire, &response)
    }
}

/// The connection after `response`, which kept it: nothing more may have
/// arrived, and it must still be open.
fn keep(mut wire: Wire, response: &Response) -> Result<Option<Wire>, String> {
    match wire.unsolicited() {
        Ok(false) => Ok(Some(wire)),
        Ok(true) => Err(format!(
            "the server closed a keep-alive connection after {}",
            show_response(response)
        )),
        Err(extra) => Err(format!(
            "bytes after the response: {:?}",
            String::from_utf8_lossy(&extra)
        )),
    }
}

/// Sends `bytes` and reads the response to `method`. A large request is
/// written from another thread: a server may answer before it reads the
/// body, and both ends blocked writing would never finish.
fn send(wire: &mut Wire, bytes: &[u8], method: &str) -> Read1 {
    if bytes.len() <= 32 * 1024 {
        // A refused request may be closed before it is all written: what
        // comes back is the answer.
        let _ = wire.stream().write_all(bytes);
        return wire.read_response(method);
    }
    let Ok(mut writer) = wire.stream().try_clone() else {
        return Read1::Closed(Vec::new());
    };
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let _ = writer.write_all(bytes);
        });
        wire.read_response(method)
    })
}

/// The server must end the connection now.
fn expect_end(mut wire: Wire) -> Result<Option<Wire>, String> {
    wire.expect_end().map(|()| None).map_err(|extra| {
        format!(
            "expected the connection to end, got {:?}",
            String::from_utf8_lossy(&extra)
        )
    })
}

fn expectation(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Sent { status, .. } => format!("the answer ({status})"),
        Outcome::Refused(why) => format!("a 500 ({why})"),
        Outcome::Cut(why) => format!("a cut connection ({why})"),
    }
}

fn describe(case: &Case, why: &str) -> String {
    let request = case.request.to_wire(&case.answer.to_json());
    if let Ok(path) = std::env::var("FWBENCH_PROP_DUMP") {
        let _ = std::fs::write(path, &request);
    }
    format!(
        "case {}: {why}\n  defect: {:?}\n  request ({} bytes): {}\n  answer: {}\n  outcome: {}",
        case.index,
        case.request.defect,
        request.len(),
        clip(&request, 1500),
        clip(case.answer.to_json().as_bytes(), 1500),
        expectation(&case.answer.outcome(&case.request.method)),
    )
}

fn show(read: &Read1) -> String {
    match read {
        Read1::Complete(response) => show_response(response),
        Read1::Closed(bytes) => format!("the connection closed after {}", clip(bytes, 600)),
        Read1::Malformed(why, bytes) => format!("a malformed response ({why}): {}", clip(bytes, 600)),
        Read1::Silent(bytes) => format!("no answer in {READ_TIMEOUT:?} after {}", clip(bytes, 600)),
    }
}

fn show_response(response: &Response) -> String {
    format!(
        "{} {:?} body {}",
        response.status,
        show_fields(&response.headers),
        clip(&response.body, 300)
    )
}

fn show_fields(fields: &[(String, Vec<u8>)]) -> Vec<String> {
    fields
        .iter()
        .map(|(name, value)| format!("{name}: {}", String::from_utf8_lossy(value)))
        .collect()
}

/// Bytes as escaped text, at most `max` of them.
fn clip(bytes: &[u8], max: usize) -> String {
    let shown = &bytes[..bytes.len().min(max)];
    let more = bytes.len().saturating_sub(max);
    let text: String = shown.escape_ascii().to_string();
    if more > 0 {
        format!("\"{text}\" (+{more} bytes)")
    } else {
        format!("\"{text}\"")
    }
}
