/*!
HTTP/1.1 response framing for the load client, without I/O: parse a head
out of the read buffer with httparse, decide how the body is delimited
(Content-Length, chunked, or until close) and decode the body incrementally,
feeding its bytes to a [`BodySink`] without keeping them.

Kept free of I/O so every framing rule is unit-tested on byte strings;
`conn.rs` drives it over a socket.
*/

use std::fmt;
use std::mem::MaybeUninit;

use super::validate::{BodySink, Checker, MismatchKind};

/// Most headers a response may have.
pub(crate) const MAX_HEADERS: usize = 64;

/// Why a response is not valid HTTP/1.1, as far as framing is concerned.
/// A cheap Copy enum: garbage may arrive at full speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Malformed {
    /// httparse rejected the status line or a header.
    Head(httparse::Error),
    /// The head does not fit the read buffer.
    HeadTooLarge,
    /// Content-Length is not a number, or two disagree.
    ContentLength,
    /// Bad chunked encoding.
    Chunk,
    /// 101 Switching Protocols or similar: not a response to load-test.
    Upgrade,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Head(e) => write!(f, "invalid response head ({e})"),
            Self::HeadTooLarge => write!(f, "response head larger than the read buffer"),
            Self::ContentLength => write!(f, "invalid or conflicting Content-Length"),
            Self::Chunk => write!(f, "invalid chunked body encoding"),
            Self::Upgrade => write!(f, "unexpected protocol switch (status 101)"),
        }
    }
}

/// A parsed response head.
#[derive(Debug)]
pub(crate) struct Head {
    /// Status code.
    pub(crate) status: u16,
    /// Bytes of the head in the buffer, final CRLF included.
    pub(crate) len: usize,
    /// How the body is delimited.
    pub(crate) body: BodyDecoder,
    /// Whether the connection may carry another request afterwards.
    pub(crate) keep_alive: bool,
    /// The first validation failure of status or headers.
    pub(crate) mismatch: Option<MismatchKind>,
    /// A description of that failure, when `describe` was asked.
    pub(crate) example: Option<String>,
}

/// Parses one response head from the start of `buf`.
///
/// Returns `Ok(None)` when more bytes are needed. 1xx interim responses are
/// returned like any head (with an empty body); the caller skips them.
/// `describe` asks for a text example of a mismatch.
pub(crate) fn parse_head(
    buf: &[u8],
    head_request: bool,
    checker: &Checker,
    describe: bool,
) -> Result<Option<Head>, Malformed> {
    // Uninitialized slots: an initialized array would be 2 KiB of stores
    // per response, most of them never read.
    let mut headers = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut []);
    let len = match httparse::ParserConfig::default().parse_response_with_uninit_headers(
        &mut resp,
        buf,
        &mut headers,
    ) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(Malformed::Head(e)),
    };
    let status = resp.code.unwrap_or(0);
    let http10 = resp.version == Some(0);
    let mut content_length: Option<u64> = None;
    let mut chunked = false;
    let mut other_coding = false;
    let mut close = false;
    let mut keep_alive_token = false;
    for h in resp.headers.iter() {
        let name = h.name.as_bytes();
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = parse_decimal(h.value).ok_or(Malformed::ContentLength)?;
            if content_length.is_some_and(|c| c != n) {
                return Err(Malformed::ContentLength);
            }
            content_length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            // The last coding decides: chunked must be the final one.
            let last = h.value.rsplit(|&b| b == b',').next().unwrap_or_default();
            if last.trim_ascii().eq_ignore_ascii_case(b"chunked") {
                chunked = true;
                other_coding = false;
            } else {
                other_coding = true;
            }
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in h.value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                close |= token.eq_ignore_ascii_case(b"close");
                keep_alive_token |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        }
    }
    if status == 101 {
        return Err(Malformed::Upgrade);
    }
    let mut keep_alive = !close && (!http10 || keep_alive_token);
    let body = if head_request || (100..200).contains(&status) || status == 204 || status == 304 {
        BodyDecoder::Empty
    } else if other_coding {
        keep_alive = false;
        BodyDecoder::UntilClose
    } else if chunked {
        BodyDecoder::Chunked(Chunk::Size { size: 0, digits: 0 })
    } else if let Some(n) = content_length {
        if n == 0 {
            BodyDecoder::Empty
        } else {
            BodyDecoder::Length(n)
        }
    } else {
        keep_alive = false;
        BodyDecoder::UntilClose
    };
    let mut mismatch = None;
    let mut example = None;
    if (100..200).contains(&status) {
        // Interim: validated on the final response.
    } else if !checker.status_ok(status) {
        mismatch = Some(MismatchKind::Status);
        if describe {
            example = Some(checker.describe_status(status));
        }
    } else if let Some(i) = checker.check_headers(resp.headers) {
        mismatch = Some(MismatchKind::Header);
        if describe {
            example = Some(checker.describe_header(i, resp.headers));
        }
    }
    Ok(Some(Head {
        status,
        len,
        body,
        keep_alive,
        mismatch,
        example,
    }))
}

fn parse_decimal(v: &[u8]) -> Option<u64> {
    let v = v.trim_ascii();
    if v.is_empty() || v.len() > 19 {
        return None;
    }
    v.iter().try_fold(0u64, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u64::from(b - b'0'))
    })
}

/// Incremental body decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyDecoder {
    /// No body.
    Empty,
    /// This many body bytes still to come.
    Length(u64),
    /// Chunked transfer coding, in this state.
    Chunked(Chunk),
    /// The body ends when the server closes the connection.
    UntilClose,
}

/// State of the chunked decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chunk {
    /// Reading the hex size.
    Size { size: u64, digits: u8 },
    /// Skipping a chunk extension up to CR.
    Extension { size: u64 },
    /// Expecting LF after the size line's CR.
    SizeLf { size: u64 },
    /// This many data bytes of the chunk still to come.
    Data(u64),
    /// Expecting CR after chunk data.
    DataCr,
    /// Expecting LF after chunk data.
    DataLf,
    /// At the start of a trailer line (or the final empty line).
    TrailerStart,
    /// Inside a trailer field line, up to its LF.
    TrailerLine,
    /// Expecting the final LF.
    EndLf,
}

/// Most hex digits of a chunk size (2^60 bytes is plenty).
const MAX_CHUNK_DIGITS: u8 = 15;

impl BodyDecoder {
    /// Whether the body is complete.
    pub(crate) fn is_done(&self) -> bool {
        matches!(self, Self::Empty)
    }

    /// Consumes body bytes from `data`, feeding the payload to `sink`.
    /// Returns how many bytes were consumed; the body is complete when
    /// [`is_done`](Self::is_done) turns true (the rest of `data` then belongs
    /// to the next response).
    pub(crate) fn feed(&mut self, data: &[u8], sink: &mut BodySink) -> Result<usize, Malformed> {
        match self {
            Self::Empty => Ok(0),
            Self::Length(remaining) => {
                let take = (*remaining).min(data.len() as u64) as usize;
                sink.feed(&data[..take]);
                *remaining -= take as u64;
                if *remaining == 0 {
                    *self = Self::Empty;
                }
                Ok(take)
            }
            Self::UntilClose => {
                sink.feed(data);
                Ok(data.len())
            }
            Self::Chunked(state) => {
                let mut i = 0;
                while i < data.len() {
                    let b = data[i];
                    *state = match *state {
                        Chunk::Size { size, digits } => match hex(b) {
                            Some(d) if digits < MAX_CHUNK_DIGITS => Chunk::Size {
                                size: size << 4 | u64::from(d),
                                digits: digits + 1,
                            },
                            Some(_) => return Err(Malformed::Chunk),
                            None if digits == 0 => return Err(Malformed::Chunk),
                            None => match b {
                                b'\r' => Chunk::SizeLf { size },
                                b';' | b' ' | b'\t' => Chunk::Extension { size },
                                _ => return Err(Malformed::Chunk),
                            },
                        },
                        Chunk::Extension { size } => match b {
                            b'\r' => Chunk::SizeLf { size },
                            b'\n' => return Err(Malformed::Chunk),
                            _ => Chunk::Extension { size },
                        },
                        Chunk::SizeLf { size } => match (b, size) {
                            (b'\n', 0) => Chunk::TrailerStart,
                            (b'\n', n) => Chunk::Data(n),
                            _ => return Err(Malformed::Chunk),
                        },
                        Chunk::Data(remaining) => {
                            let take = remaining.min((data.len() - i) as u64) as usize;
                            sink.feed(&data[i..i + take]);
                            i += take;
                            let left = remaining - take as u64;
                            *state = if left == 0 {
                                Chunk::DataCr
                            } else {
                                Chunk::Data(left)
                            };
                            continue;
                        }
                        Chunk::DataCr if b == b'\r' => Chunk::DataLf,
                        Chunk::DataLf if b == b'\n' => Chunk::Size { size: 0, digits: 0 },
                        Chunk::DataCr | Chunk::DataLf => return Err(Malformed::Chunk),
                        Chunk::TrailerStart => match b {
                            b'\r' => Chunk::EndLf,
                            b'\n' => return Err(Malformed::Chunk),
                            _ => Chunk::TrailerLine,
                        },
                        Chunk::TrailerLine => match b {
                            b'\n' => Chunk::TrailerStart,
                            _ => Chunk::TrailerLine,
                        },
                        Chunk::EndLf if b == b'\n' => {
                            *self = Self::Empty;
                            return Ok(i + 1);
                        }
                        Chunk::EndLf => return Err(Malformed::Chunk),
                    };
                    i += 1;
                }
                Ok(i)
            }
        }
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::validate::Expectations;

    fn any() -> Checker {
        Checker::new(&Expectations::default())
    }

    fn head(text: &str) -> Head {
        parse_head(text.as_bytes(), false, &any(), true)
            .expect("valid head")
            .expect("complete head")
    }

    /// Decodes `wire` fed in pieces of at most `step` bytes; returns the
    /// body and the bytes consumed.
    fn decode(mut dec: BodyDecoder, wire: &[u8], step: usize) -> Result<(Vec<u8>, usize), Malformed> {
        let mut body = Vec::new();
        let mut pos = 0;
        while !dec.is_done() {
            assert!(pos < wire.len(), "body incomplete");
            let end = (pos + step).min(wire.len());
            let mut piece = BodySink::default();
            piece.reset(true, true);
            let n = dec.feed(&wire[pos..end], &mut piece)?;
            body.extend_from_slice(&piece.head);
            pos += n;
        }
        Ok((body, pos))
    }

    #[test]
    fn content_length_head() {
        let h = head("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
        assert_eq!(h.status, 200);
        assert_eq!(h.len, 38);
        assert_eq!(h.body, BodyDecoder::Length(5));
        assert!(h.keep_alive);
        assert_eq!(h.mismatch, None);
    }

    #[test]
    fn partial_head_needs_more() {
        let r = parse_head(b"HTTP/1.1 200 OK\r\ncontent-le", false, &any(), false);
        assert!(matches!(r, Ok(None)));
    }

    #[test]
    fn garbage_is_malformed() {
        let r = parse_head(b"hello there\r\n\r\n", false, &any(), false);
        assert!(matches!(r, Err(Malformed::Head(_))));
        let r = parse_head(
            b"HTTP/1.1 200 OK\r\ncontent-length: 5x\r\n\r\n",
            false,
            &any(),
            false,
        );
        assert!(matches!(r, Err(Malformed::ContentLength)));
        let r = parse_head(
            b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\n",
            false,
            &any(),
            false,
        );
        assert!(matches!(r, Err(Malformed::ContentLength)));
    }

    #[test]
    fn connection_rules() {
        assert!(!head("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n").keep_alive);
        assert!(!head("HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n").keep_alive);
        assert!(head("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\ncontent-length: 0\r\n\r\n").keep_alive);
        // No length: the body runs to the close.
        let h = head("HTTP/1.1 200 OK\r\n\r\n");
        assert_eq!(h.body, BodyDecoder::UntilClose);
        assert!(!h.keep_alive);
    }

    #[test]
    fn bodiless_statuses_and_head_requests() {
        assert!(head("HTTP/1.1 204 No Content\r\n\r\n").body.is_done());
        assert!(head("HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n")
            .body
            .is_done());
        let h = parse_head(
            b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n",
            true,
            &any(),
            false,
        )
        .unwrap()
        .unwrap();
        assert!(h.body.is_done() && h.keep_alive);
    }

    #[test]
    fn status_mismatch_is_described() {
        let h = head("HTTP/1.1 500 Oops\r\ncontent-length: 0\r\n\r\n");
        assert_eq!(h.mismatch, Some(MismatchKind::Status));
        assert_eq!(h.example.as_deref(), Some("status 500, expected a 2xx"));
    }

    #[test]
    fn upgrade_is_refused() {
        let r = parse_head(
            b"HTTP/1.1 101 Switching\r\nupgrade: x\r\n\r\n",
            false,
            &any(),
            false,
        );
        assert!(matches!(r, Err(Malformed::Upgrade)));
    }

    #[test]
    fn length_body_leaves_the_next_response() {
        let (body, used) = decode(BodyDecoder::Length(5), b"helloHTTP/1.1", 64).unwrap();
        assert_eq!(body, b"hello");
        assert_eq!(used, 5);
    }

    #[test]
    fn chunked_in_every_split() {
        let wire = b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nx-trailer: 1\r\n\r\nNEXT";
        let body_end = wire.len() - 4;
        for step in 1..=wire.len() {
            let (body, used) = decode(
                BodyDecoder::Chunked(Chunk::Size { size: 0, digits: 0 }),
                wire,
                step,
            )
            .unwrap();
            assert_eq!(body, b"hello, world", "step {step}");
            assert_eq!(used, body_end, "step {step}");
        }
    }

    #[test]
    fn chunked_errors() {
        for wire in [
            &b"x\r\n"[..],
            b"5\r\nhelloXX",
            b"\r\n",
            b"5\nhello",
            b"1234567890abcdef0\r\n",
        ] {
            let r = decode(BodyDecoder::Chunked(Chunk::Size { size: 0, digits: 0 }), wire, 64);
            assert_eq!(
                r.unwrap_err(),
                Malformed::Chunk,
                "{:?}",
                String::from_utf8_lossy(wire)
            );
        }
    }
}
