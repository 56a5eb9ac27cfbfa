/*!
Response validation during load: what every response must look like, and
the cheap checks the connection runs on each one while it still has the
bytes (status, header presence and value, body length and hash).

The checks run in the connection because headers and body are transient (the
read buffer is reused); the connection hands the collector only a
[`MismatchKind`], plus a described example while the run still lacks one, and
the collector decides what counts.
*/

use std::fmt;

/// What every response of a run must look like. The default accepts any
/// 2xx with any headers and body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    /// Exact status; `None` means any 2xx.
    pub status: Option<u16>,
    /// Headers that must be present, with a value when one is given.
    pub headers: Vec<ExpectHeader>,
    /// The exact body, when it is checked.
    pub body: Option<Vec<u8>>,
}

/// One required response header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectHeader {
    /// Header name (compared case-insensitively).
    pub name: String,
    /// Exact value (surrounding whitespace ignored), or `None` for presence.
    pub value: Option<String>,
}

/// The kinds of validation mismatch, counted separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MismatchKind {
    /// Unexpected status code.
    Status,
    /// A required header missing or with another value.
    Header,
    /// Body of another length or content.
    Body,
}

impl MismatchKind {
    /// Every kind, in report order.
    pub const ALL: [MismatchKind; 3] = [Self::Status, Self::Header, Self::Body];

    /// Lower-case name used in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Status => "status",
            Self::Header => "header",
            Self::Body => "body",
        }
    }
}

impl fmt::Display for MismatchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// [`Expectations`] compiled for the hot path.
#[derive(Debug, Clone)]
pub(crate) struct Checker {
    status: Option<u16>,
    headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    body: Option<(u64, u64)>,
    body_text: Option<Vec<u8>>,
}

impl Checker {
    pub(crate) fn new(expect: &Expectations) -> Checker {
        Checker {
            status: expect.status,
            headers: expect
                .headers
                .iter()
                .map(|h| {
                    (
                        h.name.trim().as_bytes().to_ascii_lowercase(),
                        h.value.as_ref().map(|v| v.trim().as_bytes().to_vec()),
                    )
                })
                .collect(),
            body: expect
                .body
                .as_ref()
                .map(|b| (b.len() as u64, fnv1a(FNV_OFFSET, b))),
            body_text: expect.body.clone(),
        }
    }

    /// Whether the body must be measured (length and hash).
    pub(crate) fn checks_body(&self) -> bool {
        self.body.is_some()
    }

    pub(crate) fn status_ok(&self, status: u16) -> bool {
        match self.status {
            Some(s) => s == status,
            None => (200..300).contains(&status),
        }
    }

    pub(crate) fn describe_status(&self, status: u16) -> String {
        match self.status {
            Some(s) => format!("status {status}, expected {s}"),
            None => format!("status {status}, expected a 2xx"),
        }
    }

    /// Checks the required headers; returns the index of the first failing
    /// one.
    pub(crate) fn check_headers(&self, headers: &[httparse::Header<'_>]) -> Option<usize> {
        'required: for (i, (name, value)) in self.headers.iter().enumerate() {
            for h in headers {
                if h.name.as_bytes().eq_ignore_ascii_case(name) {
                    match value {
                        None => continue 'required,
                        Some(v) if h.value.trim_ascii() == v.as_slice() => continue 'required,
                        Some(_) => {}
                    }
                }
            }
            return Some(i);
        }
        None
    }

    pub(crate) fn describe_header(&self, index: usize, headers: &[httparse::Header<'_>]) -> String {
        let Some((name, value)) = self.headers.get(index) else {
            return "header mismatch".to_string();
        };
        let name_text = String::from_utf8_lossy(name);
        let found: Vec<String> = headers
            .iter()
            .filter(|h| h.name.as_bytes().eq_ignore_ascii_case(name))
            .map(|h| format!("'{}'", String::from_utf8_lossy(h.value.trim_ascii())))
            .collect();
        match (value, found.is_empty()) {
            (_, true) => format!("header '{name_text}' missing"),
            (Some(v), false) => format!(
                "header '{name_text}' is {}, expected '{}'",
                found.join(", "),
                String::from_utf8_lossy(v)
            ),
            (None, false) => format!("header '{name_text}' mismatch"),
        }
    }

    /// Whether a body with this length and hash is the expected one.
    pub(crate) fn body_ok(&self, sink: &BodySink) -> bool {
        match self.body {
            None => true,
            Some((len, hash)) => sink.len == len && sink.hash == hash,
        }
    }

    pub(crate) fn describe_body(&self, sink: &BodySink) -> String {
        let expected = self.body_text.as_deref().unwrap_or_default();
        format!(
            "body of {} bytes starting '{}', expected {} bytes '{}'",
            sink.len,
            snippet(&sink.head),
            expected.len(),
            snippet(expected)
        )
    }
}

fn snippet(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(SNIPPET)];
    let mut s = String::from_utf8_lossy(cut).escape_debug().to_string();
    if bytes.len() > SNIPPET {
        s.push('…');
    }
    s
}

const SNIPPET: usize = 60;

/// Accumulates what the validator needs from a body as it streams by:
/// length, FNV-1a hash and, when an example may be needed, its first bytes.
#[derive(Debug, Default)]
pub(crate) struct BodySink {
    pub(crate) len: u64,
    pub(crate) hash: u64,
    hashing: bool,
    keep_head: bool,
    pub(crate) head: Vec<u8>,
}

impl BodySink {
    /// Resets for a new body. `hashing` is whether the body is checked at
    /// all; `keep_head` whether its first bytes are kept for an example.
    pub(crate) fn reset(&mut self, hashing: bool, keep_head: bool) {
        self.len = 0;
        self.hash = FNV_OFFSET;
        self.hashing = hashing;
        self.keep_head = keep_head;
        self.head.clear();
    }

    pub(crate) fn feed(&mut self, data: &[u8]) {
        self.len += data.len() as u64;
        if self.hashing {
            self.hash = fnv1a(self.hash, data);
            if self.keep_head && self.head.len() < SNIPPET + 1 {
                let take = (SNIPPET + 1 - self.head.len()).min(data.len());
                self.head.extend_from_slice(&data[..take]);
            }
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bit: a few instructions per byte, no table, good enough to
/// tell a wrong body from the right one of the same length (not a defence
/// against a malicious server).
fn fnv1a(mut hash: u64, data: &[u8]) -> u64 {
    for &b in data {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header<'a>(name: &'a str, value: &'a str) -> httparse::Header<'a> {
        httparse::Header {
            name,
            value: value.as_bytes(),
        }
    }

    #[test]
    fn default_status_is_any_2xx() {
        let c = Checker::new(&Expectations::default());
        assert!(c.status_ok(200) && c.status_ok(204) && c.status_ok(299));
        assert!(!c.status_ok(301) && !c.status_ok(500));
        let c = Checker::new(&Expectations {
            status: Some(404),
            ..Default::default()
        });
        assert!(c.status_ok(404) && !c.status_ok(200));
    }

    #[test]
    fn headers_by_presence_and_value() {
        let c = Checker::new(&Expectations {
            headers: vec![
                ExpectHeader {
                    name: "Content-Type".into(),
                    value: Some("application/json".into()),
                },
                ExpectHeader {
                    name: "x-id".into(),
                    value: None,
                },
            ],
            ..Default::default()
        });
        let good = [header("content-type", " application/json "), header("X-Id", "7")];
        assert_eq!(c.check_headers(&good), None);
        let wrong = [header("content-type", "text/plain"), header("x-id", "7")];
        assert_eq!(c.check_headers(&wrong), Some(0));
        assert!(c.describe_header(0, &wrong).contains("'text/plain'"));
        let missing = [header("content-type", "application/json")];
        assert_eq!(c.check_headers(&missing), Some(1));
        assert!(c.describe_header(1, &missing).contains("missing"));
        // Any of several same-named headers may satisfy the check.
        let repeated = [
            header("content-type", "text/plain"),
            header("content-type", "application/json"),
            header("x-id", ""),
        ];
        assert_eq!(c.check_headers(&repeated), None);
    }

    #[test]
    fn body_by_length_and_hash_in_pieces() {
        let c = Checker::new(&Expectations {
            body: Some(b"{\"message\":\"hello\"}".to_vec()),
            ..Default::default()
        });
        let mut sink = BodySink::default();
        sink.reset(c.checks_body(), true);
        sink.feed(b"{\"message\":");
        sink.feed(b"\"hello\"}");
        assert!(c.body_ok(&sink));
        sink.reset(true, true);
        sink.feed(b"{\"message\":\"jello\"}");
        assert!(!c.body_ok(&sink));
        assert!(c.describe_body(&sink).contains("jello"));
    }
}
