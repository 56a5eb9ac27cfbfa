//! Random requests for the property test: a head (method, target, header
//! set) and a body (none, `Content-Length`, chunked with or without
//! extensions and trailers), either valid or with one defect a server
//! must refuse; written as bytes, and what the app must see of a valid
//! one.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use serde_json::{json, Value};

use super::wire::is_tchar;

/// Names the generator leaves to the framing and to the test itself.
const RESERVED: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "upgrade",
    "expect",
    "te",
    "x-prop-answer",
];

/// One request.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub target: Vec<u8>,
    /// The `Host` header's value; none is sent if `None`.
    pub host: Option<String>,
    /// Further fields, sent in this order, each with the whitespace
    /// around its value that the parser must drop.
    pub headers: Vec<Field>,
    pub body: Body,
    /// Sends `Connection: close`.
    pub close: bool,
    pub defect: Option<Defect>,
}

#[derive(Debug)]
pub struct Field {
    pub name: Vec<u8>,
    pub value: Vec<u8>,
    /// Spaces and tabs before and after the value on the wire.
    pub padding: (&'static str, &'static str),
}

#[derive(Debug)]
pub enum Body {
    None,
    Length(Vec<u8>),
    Chunked {
        chunks: Vec<Vec<u8>>,
        extensions: bool,
        trailers: Vec<(String, String)>,
    },
}

/// One thing wrong with a request, and what it must get.
#[derive(Debug, Clone, Copy)]
pub enum Defect {
    /// A control byte (or DEL) inside a header value.
    ControlInValue,
    /// A byte that is not a token character in a header name.
    BadNameByte,
    SpaceBeforeColon,
    /// A head line that ends in a bare LF (CVE-2022-32214's pattern).
    BareLf,
    /// An obsolete line folding (a line starting with a space).
    ObsFold,
    /// A raw byte past 0x7F in the target.
    NonAsciiTarget,
    SpaceInTarget,
    /// A `Host` that is not a plain `host[:port]`.
    BadHost,
    TwoHosts,
    /// More header fields than `--max-headers` (100).
    TooManyHeaders,
    /// A head past `--max-header-bytes` (16 KiB).
    HeadTooLarge,
    BadContentLength(&'static str),
    TwoContentLengths,
    /// A declared body past `--max-body-bytes` (1 MiB).
    BodyTooLarge,
    /// A transfer coding the server does not know.
    UnknownTransferEncoding,
    /// A chunk size that is not hex, inside the body.
    BadChunkSize,
}

/// What a request with a defect must get.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Refusal {
    /// This status or the connection closed without an answer; then the
    /// connection is closed either way.
    Status(u16),
    /// The head was fine, so the app may answer (any well-framed answer),
    /// or not; then the connection is closed.
    AnyThenClose,
}

impl Defect {
    pub fn refusal(self) -> Refusal {
        match self {
            Defect::TooManyHeaders | Defect::HeadTooLarge => Refusal::Status(431),
            Defect::BodyTooLarge => Refusal::Status(413),
            Defect::BadChunkSize => Refusal::AnyThenClose,
            _ => Refusal::Status(400),
        }
    }
}

const METHODS: &[&str] = &[
    "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "HEAD", "OPTIONS", "TRACE",
    "PURGE", "M-SEARCH", "get", "X_Y.1~",
];

const HOSTS: &[&str] = &[
    "prop.test",
    "prop.test:8080",
    "127.0.0.1:1",
    "[::1]:80",
    "a-b.c_d~",
    "xn--bcher-kva.example",
    "a:65535",
];

const BAD_HOSTS: &[&str] = &["a/b", "a b", "user@a", "a:99999", "[zz]", "1.2.3.4.5", "a#", ""];

const BAD_LENGTHS: &[&str] = &["abc", "-1", "1 2", "0x10", "99999999999999999999999", ""];

/// Bytes a path segment or query may hold besides `%XX`.
const PCHAR: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@";

impl Request {
    /// A random request whose fields take at most `budget` bytes;
    /// `defects` is the share (0 to 1) with a defect.
    pub fn random(rng: &mut StdRng, defects: f64, mut budget: usize) -> Request {
        let method = METHODS.choose(rng).copied().unwrap_or("GET").to_owned();
        let mut request = Request {
            target: Vec::new(),
            host: (!rng.gen_bool(0.05)).then(|| HOSTS.choose(rng).copied().unwrap_or("x").to_owned()),
            headers: Vec::new(),
            body: Body::None,
            close: rng.gen_bool(0.02),
            defect: None,
            method,
        };
        request.target = random_target(rng, &mut request.host);
        let count = match rng.gen_range(0..10) {
            0 => 0,
            1 => rng.gen_range(20..40),
            _ => rng.gen_range(1..8),
        };
        for _ in 0..count {
            let field = random_field(rng, &request.headers);
            let size = field.name.len() + field.value.len() + 6;
            if size > budget {
                break;
            }
            budget -= size;
            request.headers.push(field);
        }
        request.body = match rng.gen_range(0..10) {
            0..=4 => Body::None,
            5..=7 => Body::Length({
                let len = body_size(rng);
                random_bytes(rng, len)
            }),
            _ => Body::Chunked {
                chunks: (0..rng.gen_range(1..5))
                    .map(|_| {
                        let len = rng.gen_range(1..3000);
                        random_bytes(rng, len)
                    })
                    .collect(),
                extensions: rng.gen_bool(0.3),
                trailers: (0..rng.gen_range(0..3))
                    .map(|i| (format!("x-trailer-{i}"), random_ascii(rng, 12)))
                    .collect(),
            },
        };
        if rng.gen_bool(defects) {
            request.defect = Some(random_defect(rng, &mut request));
        }
        request
    }

    /// The request as bytes, with `answer` (JSON, ASCII) in its
    /// `x-prop-answer` header.
    pub fn to_wire(&self, answer: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(1024);
        out.extend_from_slice(self.method.as_bytes());
        out.push(b' ');
        out.extend_from_slice(&self.target);
        if matches!(self.defect, Some(Defect::SpaceInTarget)) {
            out.extend_from_slice(b" x");
        }
        out.extend_from_slice(b" HTTP/1.1\r\n");
        if let Some(host) = &self.host {
            out.extend_from_slice(format!("Host: {host}\r\n").as_bytes());
        }
        let eol: &[u8] = if matches!(self.defect, Some(Defect::BareLf)) {
            b"\n"
        } else {
            b"\r\n"
        };
        for (i, field) in self.headers.iter().enumerate() {
            out.extend_from_slice(&field.name);
            if i == 0 && matches!(self.defect, Some(Defect::SpaceBeforeColon)) {
                out.push(b' ');
            }
            out.push(b':');
            out.extend_from_slice(field.padding.0.as_bytes());
            out.extend_from_slice(&field.value);
            out.extend_from_slice(field.padding.1.as_bytes());
            out.extend_from_slice(if i == 0 { eol } else { b"\r\n" });
            if i == 0 && matches!(self.defect, Some(Defect::ObsFold)) {
                out.extend_from_slice(b" folded\r\n");
            }
        }
        match self.defect {
            Some(Defect::TwoHosts) => out.extend_from_slice(b"Host: other.test\r\n"),
            Some(Defect::TooManyHeaders) => {
                for i in 0..120 {
                    out.extend_from_slice(format!("x-many-{i}: v\r\n").as_bytes());
                }
            }
            Some(Defect::HeadTooLarge) => {
                out.extend_from_slice(b"x-large: ");
                out.extend(std::iter::repeat_n(b'l', 17 * 1024));
                out.extend_from_slice(b"\r\n");
            }
            _ => {}
        }
        out.extend_from_slice(format!("x-prop-answer: {answer}\r\n").as_bytes());
        if self.close {
            out.extend_from_slice(b"Connection: close\r\n");
        }
        match (&self.body, self.defect) {
            (_, Some(Defect::BadContentLength(length))) => {
                out.extend_from_slice(format!("Content-Length: {length}\r\n\r\n").as_bytes());
            }
            (_, Some(Defect::TwoContentLengths)) => {
                out.extend_from_slice(b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd");
            }
            (_, Some(Defect::BodyTooLarge)) => {
                out.extend_from_slice(b"Content-Length: 2000000\r\n\r\n");
            }
            (_, Some(Defect::UnknownTransferEncoding)) => {
                out.extend_from_slice(b"Transfer-Encoding: gzip\r\n\r\n");
            }
            (Body::None, _) => out.extend_from_slice(b"\r\n"),
            (Body::Length(bytes), _) => {
                out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", bytes.len()).as_bytes());
                out.extend_from_slice(bytes);
            }
            (
                Body::Chunked {
                    chunks,
                    extensions,
                    trailers,
                },
                defect,
            ) => {
                out.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
                for (i, chunk) in chunks.iter().enumerate() {
                    if i == 0 && matches!(defect, Some(Defect::BadChunkSize)) {
                        out.extend_from_slice(b"zz\r\n");
                    }
                    out.extend_from_slice(format!("{:x}", chunk.len()).as_bytes());
                    if *extensions {
                        out.extend_from_slice(b";ext=\"v\";flag");
                    }
                    out.extend_from_slice(b"\r\n");
                    out.extend_from_slice(chunk);
                    out.extend_from_slice(b"\r\n");
                }
                out.extend_from_slice(b"0\r\n");
                for (name, value) in trailers {
                    out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
                }
                out.extend_from_slice(b"\r\n");
            }
        }
        out
    }

    /// The body as the app must read it.
    pub fn body_bytes(&self) -> Vec<u8> {
        match &self.body {
            Body::None => Vec::new(),
            Body::Length(bytes) => bytes.clone(),
            Body::Chunked { chunks, .. } => chunks.concat(),
        }
    }

    /// What a fetch-style app must see of this (valid) request, as the
    /// test app reports it: its method, its URL (the target after
    /// `http://` and the authority: the target's own, else `Host`, else
    /// the listener's), its headers as a platform `Headers` iterates them
    /// (names in lower case, sorted, the values of a repeated name joined
    /// by `, `, except `set-cookie`'s), and its body in hex.
    pub fn seen_by_fetch(&self, listener: &str, answer: &str) -> Value {
        let mut fields = self.fields(answer);
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        let mut headers: Vec<(String, String)> = Vec::new();
        for (name, value) in fields {
            match headers.last_mut() {
                // deno_fetch's Headers skips the ", " after an empty
                // value (the Fetch standard keeps it: "" and "a" make ", a").
                Some((last, joined)) if *last == name && name != "set-cookie" => {
                    if !joined.is_empty() {
                        joined.push_str(", ");
                    }
                    joined.push_str(&value);
                }
                _ => headers.push((name, value)),
            }
        }
        json!({
            "method": self.method,
            "url": self.url(listener),
            "headers": headers.into_iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
            "body": hex(&self.body_bytes()),
        })
    }

    /// Every field the server receives, names in lower case, values as
    /// Latin-1 text, in wire order.
    fn fields(&self, answer: &str) -> Vec<(String, String)> {
        let mut fields = Vec::new();
        if let Some(host) = &self.host {
            fields.push(("host".to_owned(), host.clone()));
        }
        for field in &self.headers {
            fields.push((latin1(&field.name).to_ascii_lowercase(), latin1(&field.value)));
        }
        fields.push(("x-prop-answer".to_owned(), answer.to_owned()));
        if self.close {
            fields.push(("connection".to_owned(), "close".to_owned()));
        }
        match &self.body {
            Body::None => {}
            Body::Length(bytes) => fields.push(("content-length".to_owned(), bytes.len().to_string())),
            Body::Chunked { .. } => fields.push(("transfer-encoding".to_owned(), "chunked".to_owned())),
        }
        fields
    }

    /// `METHOD /path?query`, as the server's log lines name the request.
    pub fn log_name(&self, listener: &str) -> String {
        let url = self.url(listener);
        let after_scheme = &url["http://".len()..];
        let path = after_scheme.find('/').map_or("/", |at| &after_scheme[at..]);
        format!("{} {path}", self.method)
    }

    /// The URL the app must see.
    pub fn url(&self, listener: &str) -> String {
        let target = latin1(&self.target);
        if let Some(rest) = target.strip_prefix("http://") {
            let path_at = rest.find('/').unwrap_or(rest.len());
            let path = if path_at == rest.len() {
                "/"
            } else {
                &rest[path_at..]
            };
            return format!("http://{}{path}", &rest[..path_at]);
        }
        let authority = self.host.as_deref().unwrap_or(listener);
        format!("http://{authority}{target}")
    }
}

/// A target: mostly origin form (a path and maybe a query, with
/// percent-encoded bytes), sometimes absolute form (whose authority then
/// names the URL's, so it must be a plain host too).
fn random_target(rng: &mut StdRng, host: &mut Option<String>) -> Vec<u8> {
    let mut target = Vec::new();
    if rng.gen_bool(0.05) {
        target.extend_from_slice(b"http://");
        target.extend_from_slice(HOSTS.choose(rng).copied().unwrap_or("x").as_bytes());
        if rng.gen_bool(0.2) {
            return target;
        }
        // The Host header must still be a plain host (or absent).
        host.get_or_insert_with(|| "prop.test".to_owned());
    }
    for _ in 0..rng.gen_range(1..5) {
        target.extend_from_slice(b"/");
        for _ in 0..rng.gen_range(0..12) {
            push_pchar(rng, &mut target);
        }
    }
    if rng.gen_bool(0.4) {
        target.push(b'?');
        for _ in 0..rng.gen_range(0..40) {
            if rng.gen_bool(0.1) {
                target.push(*b"/?".choose(rng).unwrap_or(&b'/'));
            } else {
                push_pchar(rng, &mut target);
            }
        }
    }
    target
}

fn push_pchar(rng: &mut StdRng, out: &mut Vec<u8>) {
    if rng.gen_bool(0.1) {
        out.extend_from_slice(format!("%{:02X}", rng.gen::<u8>()).as_bytes());
    } else {
        out.push(*PCHAR.choose(rng).unwrap_or(&b'a'));
    }
}

/// A header field: a random token name, or a repeat of an earlier name
/// in another case; a value that is empty, plain, spaced, long, or with
/// bytes past 0x7F (obs-text).
fn random_field(rng: &mut StdRng, earlier: &[Field]) -> Field {
    let name = match earlier.choose(rng) {
        Some(field) if rng.gen_bool(0.2) => field
            .name
            .iter()
            .map(|b| {
                if rng.gen() {
                    b.to_ascii_uppercase()
                } else {
                    b.to_ascii_lowercase()
                }
            })
            .collect(),
        _ if rng.gen_bool(0.2) => ["accept", "cookie", "set-cookie", "user-agent", "x-forwarded-for"]
            .choose(rng)
            .map_or(b"accept".to_vec(), |name| name.as_bytes().to_vec()),
        _ => loop {
            let name = {
                let len = rng.gen_range(1..24);
                random_token(rng, len)
            };
            if !RESERVED.iter().any(|r| r.as_bytes().eq_ignore_ascii_case(&name)) {
                break name;
            }
        },
    };
    let value = match rng.gen_range(0..10) {
        0 => Vec::new(),
        1 => {
            let len = rng.gen_range(1000..3000);
            random_value(rng, len, true)
        }
        2..=3 => {
            let len = rng.gen_range(1..40);
            random_value(rng, len, true)
        }
        _ => {
            let len = rng.gen_range(1..40);
            random_value(rng, len, false)
        }
    };
    let padding = [("", ""), (" ", ""), ("", " "), ("\t ", " \t"), ("  ", "")]
        .choose(rng)
        .copied()
        .unwrap_or(("", ""));
    Field { name, value, padding }
}

/// A field value: visible ASCII, inner spaces and tabs, and with
/// `obs_text` bytes past 0x7F; never starting or ending with whitespace.
fn random_value(rng: &mut StdRng, len: usize, obs_text: bool) -> Vec<u8> {
    let mut value: Vec<u8> = (0..len)
        .map(|_| match rng.gen_range(0..20) {
            0 => b' ',
            1 => b'\t',
            2 | 3 if obs_text => rng.gen_range(0x80..=0xFF),
            _ => rng.gen_range(0x21..0x7F),
        })
        .collect();
    while value.last().is_some_and(|&b| b == b' ' || b == b'\t') {
        value.pop();
    }
    while value.first().is_some_and(|&b| b == b' ' || b == b'\t') {
        value.remove(0);
    }
    value
}

fn random_token(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let tchars: Vec<u8> = (0u8..128).filter(|&b| is_tchar(b)).collect();
    (0..len).map(|_| *tchars.choose(rng).unwrap_or(&b'x')).collect()
}

fn random_ascii(rng: &mut StdRng, len: usize) -> String {
    (0..len).map(|_| rng.gen_range(b'a'..=b'z') as char).collect()
}

pub fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    rng.fill(bytes.as_mut_slice());
    bytes
}

fn body_size(rng: &mut StdRng) -> usize {
    match rng.gen_range(0..20) {
        0 => 0,
        1 => rng.gen_range(20_000..200_000),
        _ => rng.gen_range(1..4000),
    }
}

fn random_defect(rng: &mut StdRng, request: &mut Request) -> Defect {
    let needs_field = |request: &mut Request, rng: &mut StdRng| {
        if request.headers.is_empty() {
            request.headers.push(Field {
                name: b"x-defect".to_vec(),
                value: b"v".to_vec(),
                padding: (" ", ""),
            });
        }
        let _ = rng;
    };
    match rng.gen_range(0..16) {
        0 => {
            needs_field(request, rng);
            let byte = *[0u8, 1, 8, 0x0B, 0x0C, 0x0E, 0x1F, 0x7F, b'\r']
                .choose(rng)
                .unwrap_or(&0);
            let value = &mut request.headers[0].value;
            let at = rng.gen_range(0..=value.len());
            value.insert(at, byte);
            // A value ending in CR would read as CRLF's CR.
            value.push(b'v');
            Defect::ControlInValue
        }
        1 => {
            needs_field(request, rng);
            let byte = *b" (\"/[]{}\x80\xff".choose(rng).unwrap_or(&b'(');
            request.headers[0].name.push(byte);
            Defect::BadNameByte
        }
        2 => {
            needs_field(request, rng);
            Defect::SpaceBeforeColon
        }
        3 => {
            needs_field(request, rng);
            Defect::BareLf
        }
        4 => {
            needs_field(request, rng);
            Defect::ObsFold
        }
        5 => {
            request.target.extend_from_slice(b"\xc3\xa9");
            Defect::NonAsciiTarget
        }
        6 => Defect::SpaceInTarget,
        7 => {
            let host = BAD_HOSTS.choose(rng).copied().unwrap_or("a/b");
            request.host = Some(host.to_owned());
            // An absolute-form target's authority would be used instead.
            origin_form(request);
            Defect::BadHost
        }
        8 => {
            request.host.get_or_insert_with(|| "prop.test".to_owned());
            origin_form(request);
            Defect::TwoHosts
        }
        9 => Defect::TooManyHeaders,
        10 => Defect::HeadTooLarge,
        11 => Defect::BadContentLength(BAD_LENGTHS.choose(rng).copied().unwrap_or("abc")),
        12 => Defect::TwoContentLengths,
        13 => Defect::BodyTooLarge,
        14 => Defect::UnknownTransferEncoding,
        _ => {
            request.body = Body::Chunked {
                chunks: vec![b"abc".to_vec()],
                extensions: false,
                trailers: Vec::new(),
            };
            Defect::BadChunkSize
        }
    }
}

fn origin_form(request: &mut Request) {
    if request.target.starts_with(b"http://") {
        request.target = b"/absolute-form-was-here".to_vec();
    }
}

/// Bytes as Latin-1 text (how the host hands header bytes to JS).
pub fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
