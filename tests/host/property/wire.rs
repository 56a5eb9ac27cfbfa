//! A strict reader of HTTP/1.1 responses over a blocking socket: what the
//! property test holds every answer to. The head is parsed by httparse
//! (hyper's own parser, here with none of its leniencies turned on) after
//! a check that every line ends in CRLF (httparse also takes a bare LF);
//! the body is framed by RFC 9112 section 6.3, and a chunked body is read
//! strictly (hex sizes, CRLF after each chunk, trailer fields).

use std::io::{ErrorKind, Read};
use std::net::TcpStream;
use std::time::Duration;

/// The longest response head accepted.
const MAX_HEAD: usize = 64 * 1024;

/// One response as it came off the wire.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Names in lower case, values as bytes, in wire order.
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl Response {
    /// Every value of header `name` (lower case), in order.
    pub fn values(&self, name: &str) -> impl Iterator<Item = &[u8]> + '_ {
        let name = name.to_owned();
        self.headers
            .iter()
            .filter(move |(n, _)| *n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// Whether a `Connection` header carries the `close` option.
    pub fn closes(&self) -> bool {
        self.values("connection").any(|value| {
            value
                .split(|&b| b == b',')
                .any(|option| option.trim_ascii().eq_ignore_ascii_case(b"close"))
        })
    }
}

/// What reading one response found.
#[derive(Debug)]
pub enum Read1 {
    /// A complete, well-framed response.
    Complete(Response),
    /// The connection ended (closed or reset) before a complete response;
    /// what had arrived of it.
    Closed(Vec<u8>),
    /// Bytes that are not a well-framed HTTP/1.1 response.
    Malformed(String, Vec<u8>),
    /// Nothing more arrived within the read timeout.
    Silent(Vec<u8>),
}

/// The client end of one connection, reading responses strictly.
pub struct Wire {
    stream: TcpStream,
    buf: Vec<u8>,
    /// Bytes of `buf` already consumed by earlier responses.
    at: usize,
}

/// Why a read stopped early.
enum Stop {
    Closed,
    Silent,
    Malformed(String),
}

impl Wire {
    pub fn new(stream: TcpStream, timeout: Duration) -> std::io::Result<Wire> {
        stream.set_read_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        Ok(Wire {
            stream,
            buf: Vec::with_capacity(16 * 1024),
            at: 0,
        })
    }

    pub fn stream(&mut self) -> &mut TcpStream {
        &mut self.stream
    }

    /// Reads the response to a request with `method` (a response to HEAD
    /// has no body, whatever its head declares).
    pub fn read_response(&mut self, method: &str) -> Read1 {
        self.buf.drain(..self.at);
        self.at = 0;
        match self.response(method.eq_ignore_ascii_case("HEAD")) {
            Ok(response) => Read1::Complete(response),
            Err(Stop::Closed) => Read1::Closed(self.buf.clone()),
            Err(Stop::Silent) => Read1::Silent(self.buf.clone()),
            Err(Stop::Malformed(why)) => Read1::Malformed(why, self.buf.clone()),
        }
    }

    /// Whether bytes arrived that no request asked for (read without
    /// waiting), or the connection has ended: `Ok(true)` if it ended.
    pub fn unsolicited(&mut self) -> Result<bool, Vec<u8>> {
        if self.at < self.buf.len() {
            return Err(self.buf[self.at..].to_vec());
        }
        let mut byte = [0u8; 1];
        let _ = self.stream.set_nonblocking(true);
        let peeked = self.stream.peek(&mut byte);
        let _ = self.stream.set_nonblocking(false);
        match peeked {
            Ok(0) => Ok(true),
            Ok(_) => {
                let mut rest = vec![0u8; 4096];
                let n = self.stream.read(&mut rest).unwrap_or(0);
                rest.truncate(n);
                Err(rest)
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(false),
            Err(_) => Ok(true),
        }
    }

    /// Waits (up to the read timeout) for the server to end the
    /// connection; `Err` with whatever it sent instead.
    pub fn expect_end(&mut self) -> Result<(), Vec<u8>> {
        if self.at < self.buf.len() {
            return Err(self.buf[self.at..].to_vec());
        }
        let mut rest = [0u8; 4096];
        match self.stream.read(&mut rest) {
            Ok(0) => Ok(()),
            Ok(n) => Err(rest[..n].to_vec()),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(b"(the connection stayed open)".to_vec())
            }
            Err(_) => Ok(()),
        }
    }

    /// Reads more bytes into the buffer.
    fn fill(&mut self) -> Result<(), Stop> {
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err(Stop::Closed),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Err(Stop::Silent),
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(()),
            Err(_) => Err(Stop::Closed),
        }
    }

    /// Makes sure `n` unread bytes are buffered.
    fn want(&mut self, n: usize) -> Result<(), Stop> {
        while self.buf.len() - self.at < n {
            self.fill()?;
        }
        Ok(())
    }

    /// The next line (without its CRLF), which must end in CRLF and be at
    /// most `max` bytes long.
    fn line(&mut self, max: usize) -> Result<Vec<u8>, Stop> {
        loop {
            if let Some(end) = self.buf[self.at..].iter().position(|&b| b == b'\n') {
                let line = &self.buf[self.at..self.at + end];
                let Some(line) = line.strip_suffix(b"\r") else {
                    return Err(malformed("a body line ends in a bare LF"));
                };
                let line = line.to_vec();
                self.at += end + 1;
                return Ok(line);
            }
            if self.buf.len() - self.at > max {
                return Err(malformed("a body line is too long"));
            }
            self.fill()?;
        }
    }

    fn response(&mut self, to_head: bool) -> Result<Response, Stop> {
        let head_end = loop {
            if let Some(end) = find(&self.buf[self.at..], b"\r\n\r\n") {
                break end + 4;
            }
            if find(&self.buf[self.at..], b"\n\n").is_some() {
                return Err(malformed("the head ends in a bare LF"));
            }
            if self.buf.len() > MAX_HEAD {
                return Err(malformed("the head is longer than 64 KiB"));
            }
            self.fill()?;
        };
        let head = &self.buf[self.at..self.at + head_end];
        if head
            .iter()
            .enumerate()
            .any(|(i, &b)| b == b'\n' && (i == 0 || head[i - 1] != b'\r'))
        {
            return Err(malformed("a head line ends in a bare LF"));
        }
        let mut fields = [httparse::EMPTY_HEADER; 256];
        let mut parsed = httparse::Response::new(&mut fields);
        match httparse::ParserConfig::default().parse_response(&mut parsed, head) {
            Ok(httparse::Status::Complete(n)) if n == head_end => {}
            Ok(_) => return Err(malformed("httparse did not read the head to its end")),
            Err(e) => return Err(malformed(&format!("httparse: {e}"))),
        }
        if parsed.version != Some(1) {
            return Err(malformed("not HTTP/1.1"));
        }
        let status = parsed.code.unwrap_or_default();
        let headers: Vec<(String, Vec<u8>)> = parsed
            .headers
            .iter()
            .map(|h| (h.name.to_ascii_lowercase(), h.value.to_vec()))
            .collect();
        self.at += head_end;
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        if (100..200).contains(&status) {
            return Err(malformed("a 1xx response"));
        }
        if to_head || status == 204 || status == 304 {
            return Ok(response);
        }
        let te: Vec<&[u8]> = response.values("transfer-encoding").collect();
        let lengths: Vec<&[u8]> = response.values("content-length").collect();
        if !te.is_empty() {
            if !lengths.is_empty() {
                return Err(malformed("both transfer-encoding and content-length"));
            }
            let last = te.last().and_then(|v| v.rsplit(|&b| b == b',').next());
            if !last.is_some_and(|coding| coding.trim_ascii().eq_ignore_ascii_case(b"chunked")) {
                return Err(malformed("a transfer-encoding whose last coding is not chunked"));
            }
            response.body = self.chunked()?;
        } else if let Some(&first) = lengths.first() {
            if lengths.iter().any(|&other| other != first) {
                return Err(malformed("two content-lengths that differ"));
            }
            let length: usize = std::str::from_utf8(first)
                .ok()
                .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|text| text.parse().ok())
                .ok_or_else(|| malformed("a content-length that is not a number"))?;
            self.want(length)?;
            response.body = self.buf[self.at..self.at + length].to_vec();
            self.at += length;
        } else {
            // Framed by the connection's end: legal, but then the server
            // must close.
            loop {
                match self.fill() {
                    Ok(()) => {}
                    Err(Stop::Closed) => break,
                    Err(other) => return Err(other),
                }
            }
            response.body = self.buf[self.at..].to_vec();
            self.at = self.buf.len();
        }
        Ok(response)
    }

    /// A chunked body (RFC 9112 section 7.1), trailers included.
    fn chunked(&mut self) -> Result<Vec<u8>, Stop> {
        let mut body = Vec::new();
        loop {
            let line = self.line(1024)?;
            let digits_end = line.iter().position(|&b| b == b';').unwrap_or(line.len());
            let size = std::str::from_utf8(&line[..digits_end])
                .ok()
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|digits| usize::from_str_radix(digits, 16).ok())
                .ok_or_else(|| malformed("a chunk size that is not hex digits"))?;
            if size == 0 {
                break;
            }
            self.want(size + 2)?;
            body.extend_from_slice(&self.buf[self.at..self.at + size]);
            if &self.buf[self.at + size..self.at + size + 2] != b"\r\n" {
                return Err(malformed("a chunk not followed by CRLF"));
            }
            self.at += size + 2;
        }
        loop {
            let trailer = self.line(MAX_HEAD)?;
            if trailer.is_empty() {
                return Ok(body);
            }
            let valid = trailer
                .iter()
                .position(|&b| b == b':')
                .is_some_and(|colon| colon > 0 && trailer[..colon].iter().all(|&b| is_tchar(b)));
            if !valid {
                return Err(malformed("a trailer field that is not name: value"));
            }
        }
    }
}

fn malformed(why: &str) -> Stop {
    Stop::Malformed(why.to_owned())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// RFC 9110 token characters.
pub fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}
