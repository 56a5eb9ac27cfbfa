//! Random app answers for the property test (status, header fields, body
//! kind), the JSON the test app reads them from, and the model of what
//! the host must do with each: send it as told, refuse it with a 500, or
//! cut the connection after its head (docs/reference.md, "Serve an app").

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use serde_json::{json, Value};

use super::wire::is_tchar;

/// A response's status and its header fields (name, value bytes).
type StatusAndFields = (u16, Vec<(String, Vec<u8>)>);
/// How the app hands its answer to the host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Via {
    /// A platform `Response`: its constructor checks status and headers.
    Response,
    /// The host's light-response protocol: status and headers reach the
    /// adapter's own checks unfiltered.
    Light,
}

#[derive(Debug)]
pub enum Content {
    None,
    /// `text` repeated `times` times (so a long body stays a short spec).
    Text {
        text: String,
        times: usize,
    },
    Bytes(Pattern),
    /// A ReadableStream of these chunks; with `fail_after`, it errors
    /// after that many.
    Stream {
        chunks: Vec<Pattern>,
        fail_after: Option<usize>,
    },
    /// The request as the app saw it, as JSON text.
    Echo,
}

/// `len` pseudo-random bytes from `seed` (xorshift32, as the test app
/// makes them), so a body of any size takes a few bytes of the spec.
#[derive(Debug, Clone, Copy)]
pub struct Pattern {
    pub seed: u32,
    pub len: usize,
}

impl Pattern {
    fn random(rng: &mut StdRng, len: usize) -> Pattern {
        Pattern { seed: rng.gen(), len }
    }

    pub fn bytes(self) -> Vec<u8> {
        let mut x = self.seed.max(1);
        (0..self.len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect()
    }
}

/// What the app is told to answer.
#[derive(Debug)]
pub struct Answer {
    pub via: Via,
    /// Any number: JSON carries it as is (`200.5` and `4294967496` too).
    pub status: f64,
    pub headers: Vec<(String, String)>,
    pub content: Content,
    /// Answer from a promise after a timer, instead of at once.
    pub later: bool,
}

/// What the host must do with an answer.
#[derive(Debug)]
pub enum Outcome {
    /// Send it: this status, these fields (names in lower case; framing
    /// fields apart, see [`Framing`]) and this body.
    Sent {
        status: u16,
        headers: Vec<(String, Vec<u8>)>,
        framing: Framing,
        body: Body,
    },
    /// Refuse it: a 500 and one log line, the connection kept.
    Refused(String),
    /// Its head may go out, but the connection is cut before the body
    /// completes (a stream that fails, or breaks its content-length).
    Cut(String),
}

/// The fields of the wire's framing the app set: hyper writes these
/// itself (and drops them where a response has no body), so they are
/// checked apart from the other fields.
#[derive(Debug, Default)]
pub struct Framing {
    /// The app's `Content-Length`, if it set one.
    pub content_length: Option<u64>,
    /// The app asked for `Connection: close`.
    pub close: bool,
}

#[derive(Debug)]
pub enum Body {
    Bytes(Vec<u8>),
    /// The JSON of what the app saw of the request.
    Echo,
    /// None (a response to HEAD, a 204 or a 304).
    Empty,
}

const STATUSES: &[f64] = &[
    200.0, 200.0, 200.0, 201.0, 202.0, 204.0, 205.0, 206.0, 226.0, 301.0, 302.0, 304.0, 307.0, 400.0, 404.0,
    410.0, 418.0, 451.0, 500.0, 503.0, 599.0,
];

/// Numbers that are not valid statuses, or are only after a conversion.
const ODD_STATUSES: &[f64] = &[
    0.0,
    99.0,
    100.0,
    101.0,
    103.0,
    199.0,
    600.0,
    999.0,
    1000.0,
    -1.0,
    65_736.0,
    4_294_967_496.0,
    200.5,
    1e9,
];

const BAD_NAMES: &[&str] = &[
    "",
    "a b",
    "x:y",
    "x\0y",
    "\u{141}x",
    "\u{e9}",
    "x\ny",
    "(",
    "a\u{100}",
    "x\u{1F600}",
];

const BAD_VALUES: &[&str] = &[
    "a\0b",
    "a\rb",
    "a\nb",
    "a\u{7f}b",
    "\u{20ac}",
    "a\u{100}",
    "\u{1F600}",
    "\r\n",
    "\u{141}b",
    "\u{10a}b",
];

impl Answer {
    pub fn random(rng: &mut StdRng) -> Answer {
        let via = if rng.gen() { Via::Response } else { Via::Light };
        let status = match rng.gen_range(0..10) {
            0..=5 => *STATUSES.choose(rng).unwrap_or(&200.0),
            6..=7 => f64::from(rng.gen_range(100..=999)),
            _ => *ODD_STATUSES.choose(rng).unwrap_or(&0.0),
        };
        let content = match rng.gen_range(0..20) {
            0..=3 => Content::None,
            4..=8 => {
                let times = if rng.gen_bool(0.05) {
                    rng.gen_range(100..1000)
                } else {
                    1
                };
                Content::Text {
                    text: random_text(rng),
                    times,
                }
            }
            9..=11 => Content::Bytes({
                let len = size(rng);
                Pattern::random(rng, len)
            }),
            12..=15 => {
                let chunks: Vec<Pattern> = (0..rng.gen_range(0..6))
                    .map(|_| {
                        let len = if rng.gen_bool(0.1) {
                            0
                        } else {
                            rng.gen_range(1..3000)
                        };
                        Pattern::random(rng, len)
                    })
                    .collect();
                let fail_after = rng.gen_bool(0.25).then(|| rng.gen_range(0..=chunks.len()));
                Content::Stream { chunks, fail_after }
            }
            _ => Content::Echo,
        };
        let mut headers: Vec<(String, String)> = Vec::new();
        for _ in 0..rng.gen_range(0..6) {
            let name = match rng.gen_range(0..20) {
                0..=13 => random_token(rng),
                14..=15 => [
                    "content-type",
                    "set-cookie",
                    "cache-control",
                    "vary",
                    "x-powered-by",
                ]
                .choose(rng)
                .copied()
                .unwrap_or("vary")
                .to_owned(),
                16..=17 => match headers.choose(rng) {
                    Some((earlier, _)) => earlier.to_uppercase(),
                    None => random_token(rng),
                },
                _ => BAD_NAMES.choose(rng).copied().unwrap_or("").to_owned(),
            };
            headers.push((name, random_value(rng)));
        }
        add_framing(rng, &mut headers, &content);
        Answer {
            via,
            status,
            headers,
            content,
            later: rng.gen_bool(0.3),
        }
    }

    /// The JSON the test app reads (tests/fixtures/prop/app.js), ASCII
    /// only: it travels in a request header, where other bytes would be
    /// read as Latin-1.
    pub fn to_json(&self) -> String {
        let mut spec = json!({
            "via": if self.via == Via::Light { "light" } else { "response" },
            "status": self.status,
            "headers": self.headers.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
            "later": self.later,
        });
        let fields = match &self.content {
            Content::None => json!({ "body": "none" }),
            Content::Text { text, times } => json!({ "body": "string", "text": text, "times": times }),
            Content::Bytes(pattern) => json!({ "body": "bytes", "bytes": [pattern.seed, pattern.len] }),
            Content::Stream { chunks, fail_after } => json!({
                "body": "stream",
                "chunks": chunks.iter().map(|c| json!([c.seed, c.len])).collect::<Vec<_>>(),
                "fail_after": fail_after,
            }),
            Content::Echo => json!({ "body": "echo" }),
        };
        if let (Value::Object(spec), Value::Object(fields)) = (&mut spec, fields) {
            spec.extend(fields);
        }
        ascii_json(&spec.to_string())
    }

    /// What the host must do with this answer to a `method` request.
    pub fn outcome(&self, method: &str) -> Outcome {
        let converted = match self.via {
            Via::Response => self.as_platform_response(),
            Via::Light => self.as_light_response(),
        };
        let (status, headers) = match converted {
            Ok(converted) => converted,
            Err(why) => return Outcome::Refused(why),
        };
        host_rules(status, headers, &self.content, method)
    }

    /// What `new Response(body, { status, headers })` makes of it, or why
    /// it throws: the status is a WebIDL `unsigned short` (truncated,
    /// modulo 2^16) in 200..=599; a null-body status takes no body; names
    /// are tokens; values, stripped of leading and trailing HTTP
    /// whitespace, hold no NUL, CR or LF and no character past U+00FF; a
    /// string body adds a text/plain content type when none is set.
    fn as_platform_response(&self) -> Result<StatusAndFields, String> {
        let status = webidl_unsigned_short(self.status);
        if !(200..=599).contains(&status) {
            return Err(format!("the Response constructor refuses status {}", self.status));
        }
        if matches!(status, 204 | 205 | 304) && !matches!(self.content, Content::None) {
            return Err(format!("status {status} takes no body"));
        }
        let mut headers = Vec::new();
        for (name, value) in &self.headers {
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return Err(format!("invalid header name {name:?}"));
            }
            let value = value.trim_matches(|c| matches!(c, '\t' | '\n' | '\r' | ' '));
            if value
                .chars()
                .any(|c| matches!(c, '\0' | '\r' | '\n') || c > '\u{ff}')
            {
                return Err(format!("invalid header value {value:?}"));
            }
            // Then the host's own check (the fetch standard lets other
            // control characters through).
            if !is_field_value(value) {
                return Err(format!("invalid header value {value:?}"));
            }
            headers.push((name.to_ascii_lowercase(), latin1_bytes(value)));
        }
        let text = matches!(self.content, Content::Text { .. } | Content::Echo);
        if text && !headers.iter().any(|(name, _)| name == "content-type") {
            headers.push(("content-type".to_owned(), b"text/plain;charset=UTF-8".to_vec()));
        }
        Ok((status, headers))
    }

    /// What the adapter makes of a light response's status and fields: an
    /// integral status from 100 to 999, names that are tokens, Latin-1
    /// values of visible characters, spaces and tabs.
    fn as_light_response(&self) -> Result<StatusAndFields, String> {
        let status = self.status;
        if status.fract() != 0.0 || !(100.0..=999.0).contains(&status) {
            return Err(format!("invalid status {status}"));
        }
        let mut headers = Vec::new();
        for (name, value) in &self.headers {
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return Err(format!("invalid header name {name:?}"));
            }
            if !is_field_value(value) {
                return Err(format!("invalid header value {value:?}"));
            }
            headers.push((name.to_ascii_lowercase(), latin1_bytes(value)));
        }
        Ok((status as u16, headers))
    }
}

/// The host's own rules (adapter/ops.rs), for either way of answering.
fn host_rules(status: u16, headers: Vec<(String, Vec<u8>)>, content: &Content, method: &str) -> Outcome {
    if (100..200).contains(&status) {
        return Outcome::Refused(format!("1xx status {status}"));
    }
    let values = |wanted: &str| -> Vec<Vec<u8>> {
        headers
            .iter()
            .filter(|(name, _)| name == wanted)
            .map(|(_, value)| value.clone())
            .collect()
    };
    let te = values("transfer-encoding");
    let chunked_only = te.len() == 1 && te[0].trim_ascii().eq_ignore_ascii_case(b"chunked");
    if !te.is_empty() && !chunked_only {
        return Outcome::Refused("a transfer-encoding other than chunked".to_owned());
    }
    let mut content_length = None;
    for value in values("content-length") {
        let parsed = std::str::from_utf8(&value)
            .ok()
            .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|text| text.parse::<u64>().ok());
        match (parsed, content_length) {
            (None, _) => return Outcome::Refused("a content-length that is not a number".to_owned()),
            (Some(length), Some(first)) if length != first => {
                return Outcome::Refused("two content-lengths".to_owned())
            }
            (Some(length), _) => content_length = Some(length),
        }
    }
    if content_length.is_some() && !te.is_empty() {
        return Outcome::Refused("both content-length and transfer-encoding".to_owned());
    }
    let head = method == "HEAD";
    // A response to HEAD, a 204 or a 304 sends no body: its content-length
    // is only checked to be a number.
    let no_body = head || status == 204 || status == 304;
    let declares_only = no_body;
    let body = match content {
        Content::None => Body::Bytes(Vec::new()),
        Content::Text { text, times } => Body::Bytes(text.repeat(*times).into_bytes()),
        Content::Bytes(pattern) => Body::Bytes(pattern.bytes()),
        Content::Echo => Body::Echo,
        Content::Stream { chunks, fail_after } => {
            let total: usize = chunks.iter().map(|c| c.len).sum();
            let broken = if fail_after.is_some() {
                Some("the stream fails".to_owned())
            } else {
                content_length
                    .filter(|&declared| declared != total as u64)
                    .map(|declared| format!("a stream of {total} bytes under a content-length of {declared}"))
            };
            match broken {
                // A stream that declares no bytes is answered when it
                // ends, so its head has not gone out yet.
                Some(why) if !no_body && content_length == Some(0) => return Outcome::Refused(why),
                Some(why) if !no_body => return Outcome::Cut(why),
                _ => {}
            }
            Body::Bytes(chunks.iter().flat_map(|c| c.bytes()).collect())
        }
    };
    if let (Body::Bytes(bytes), Some(declared)) = (&body, content_length) {
        if !declares_only && declared != bytes.len() as u64 {
            return Outcome::Refused("a content-length that does not match the body".to_owned());
        }
    }
    let close = values("connection")
        .iter()
        .any(|v| v.eq_ignore_ascii_case(b"close"));
    let headers = headers
        .into_iter()
        .filter(|(name, _)| {
            !matches!(
                name.as_str(),
                "content-length" | "transfer-encoding" | "connection"
            )
        })
        .collect();
    Outcome::Sent {
        status,
        headers,
        framing: Framing {
            content_length,
            close,
        },
        body: if no_body { Body::Empty } else { body },
    }
}

/// WebIDL's conversion to `unsigned short`: truncated, modulo 2^16.
fn webidl_unsigned_short(x: f64) -> u16 {
    if !x.is_finite() {
        return 0;
    }
    x.trunc().rem_euclid(65_536.0) as u16
}

/// Framing fields now and then: a content-length that is right or lies,
/// or is not a number, or is there twice; a transfer-encoding; a
/// `Connection: close`.
fn add_framing(rng: &mut StdRng, headers: &mut Vec<(String, String)>, content: &Content) {
    let length = match content {
        Content::None => Some(0),
        Content::Text { text, times } => Some(text.len() * times),
        Content::Bytes(pattern) => Some(pattern.len),
        Content::Stream { chunks, .. } => Some(chunks.iter().map(|c| c.len).sum()),
        // Its length is not known here.
        Content::Echo => None,
    };
    if let Some(length) = length.filter(|_| rng.gen_bool(0.25)) {
        let (name, value) = ("content-length".to_owned(), length.to_string());
        match rng.gen_range(0..8) {
            0..=2 => headers.push((name, value)),
            3 => headers.push((name, (length + rng.gen_range(1..10)).to_string())),
            4 => headers.push((name, length.saturating_sub(rng.gen_range(1..10)).to_string())),
            5 => headers.push((name, format!("0{length}"))),
            6 => headers.extend([(name.clone(), value.clone()), (name, value)]),
            _ => headers.push((
                name,
                ["abc", "+5", "-1", "", "1 2"]
                    .choose(rng)
                    .copied()
                    .unwrap_or("x")
                    .to_owned(),
            )),
        }
    }
    if rng.gen_bool(0.05) {
        let coding = ["chunked", "Chunked", "gzip", "gzip, chunked"]
            .choose(rng)
            .copied()
            .unwrap_or("gzip");
        headers.push(("transfer-encoding".to_owned(), coding.to_owned()));
    }
    if rng.gen_bool(0.03) {
        headers.push(("connection".to_owned(), "close".to_owned()));
    }
}

fn random_token(rng: &mut StdRng) -> String {
    let tchars: Vec<u8> = (0u8..128).filter(|&b| is_tchar(b)).collect();
    (0..rng.gen_range(1..20))
        .map(|_| *tchars.choose(rng).unwrap_or(&b'x') as char)
        .collect()
}

/// A header value: mostly visible ASCII with inner spaces, sometimes
/// Latin-1 letters, empty, long, padded with whitespace, or invalid.
fn random_value(rng: &mut StdRng) -> String {
    let ascii = |rng: &mut StdRng, len: usize| -> String {
        (0..len)
            .map(|_| {
                if rng.gen_bool(0.1) {
                    ' '
                } else {
                    rng.gen_range(0x21u8..0x7F) as char
                }
            })
            .collect::<String>()
            .trim()
            .to_owned()
    };
    match rng.gen_range(0..20) {
        0 => String::new(),
        1 => {
            let len = rng.gen_range(500..1500);
            ascii(rng, len)
        }
        2..=3 => (0..rng.gen_range(1..20))
            .map(|_| {
                *['é', 'ÿ', '\u{80}', '\u{a0}', 'a', 'Ö']
                    .choose(rng)
                    .unwrap_or(&'a')
            })
            .collect(),
        4 => format!(
            "{}{}{}",
            [" ", "\t", "\r\n", ""].choose(rng).copied().unwrap_or(""),
            ascii(rng, 8),
            [" ", "\t ", "\n", ""].choose(rng).copied().unwrap_or("")
        ),
        5..=6 => BAD_VALUES.choose(rng).copied().unwrap_or("\0").to_owned(),
        7 => format!("a\t{}", ascii(rng, 5)),
        _ => {
            let len = rng.gen_range(1..40);
            ascii(rng, len)
        }
    }
}

/// A body text: ASCII, Latin-1, and characters UTF-8 writes in three and
/// four bytes; now and then 100 KiB of it.
fn random_text(rng: &mut StdRng) -> String {
    let len = match rng.gen_range(0..20) {
        0 => 0,
        _ => rng.gen_range(1..200),
    };
    (0..len)
        .map(|_| match rng.gen_range(0..10) {
            0 => *['é', '€', '\u{1F600}', '\n', '\0', '"', '\\']
                .choose(rng)
                .unwrap_or(&'x'),
            _ => rng.gen_range(0x20u8..0x7F) as char,
        })
        .collect()
}

fn size(rng: &mut StdRng) -> usize {
    match rng.gen_range(0..20) {
        0 => 0,
        1 => rng.gen_range(50_000..300_000),
        _ => rng.gen_range(1..3000),
    }
}

/// Whether the host takes `value` as a field value: Latin-1 visible
/// characters, spaces and tabs (http's `HeaderValue`).
fn is_field_value(value: &str) -> bool {
    value
        .chars()
        .all(|c| c == '\t' || (' '..='\u{ff}').contains(&c) && c != '\u{7f}')
}

/// Text as Latin-1 bytes (every character at most U+00FF).
fn latin1_bytes(text: &str) -> Vec<u8> {
    text.chars().map(|c| c as u32 as u8).collect()
}

/// JSON with every character past U+007E escaped as `\uXXXX` (UTF-16).
fn ascii_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if (c as u32) < 0x7F {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}
