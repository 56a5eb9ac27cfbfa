//! Strict line endings in request heads: a bare LF (one not after a CR)
//! in a request head gets 400, as in Node, instead of counting as a line
//! end.
//!
//! hyper's parser (httparse) takes a bare LF for a line end, so
//! `X-A: a\nTransfer-Encoding: chunked` is two headers to it while a proxy
//! in front may read one: the request smuggling pattern behind
//! CVE-2022-32214. httparse has no strict mode, so the bytes are checked
//! before hyper reads them: [`GuardedIo`] wraps the socket and follows the
//! connection's framing (head, then its body), and turns a bare LF in a
//! head into a NUL, which httparse refuses at that very place, so hyper
//! answers 400 and closes as for any malformed head. Only head bytes are
//! looked at (with `memchr`, newline to newline); a body is skipped by its
//! length, or by its chunk sizes.
//!
//! Where a head's body ends is hyper's to say, not a second parse of its
//! `Content-Length` and `Transfer-Encoding` (two readings of one head are
//! what smuggling lives on): [`Framed`] tells the guard the body's framing
//! from the request hyper hands the service. Until then, the bytes after
//! the head stay in the guard, so hyper never holds bytes the guard has
//! not checked (a pipelined second head).

use std::cell::RefCell;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use http::{Request, Response};
use hyper::body::{Body, Incoming};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Where the guard is in a connection's byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// In a request head (or the empty lines that may precede one):
    /// `line` bytes of the current line seen so far, the last a CR if
    /// `cr`; `started` once a line with content ended (before that, an
    /// empty line is skipped, as httparse does, instead of ending the head);
    /// `seen` bytes of the head so far.
    Head {
        line: usize,
        cr: bool,
        started: bool,
        seen: usize,
    },
    /// A head ended; its body's framing is not known yet (see [`Framed`]).
    AwaitFraming,
    /// This many body bytes to pass.
    Body(u64),
    /// A chunked body, followed as hyper's decoder reads it.
    Chunked(Chunk),
    /// A head reached the size limit unfinished: hyper holds the limit's
    /// worth of it and refuses it (431); the rest is never handed on.
    TooLarge,
    /// Not following any more: a bare LF was neutralized (hyper refuses
    /// the head and closes), or the stream left the framing hyper accepts
    /// (it fails the body and closes too). Bytes pass unchecked.
    Off,
}

const NEW_HEAD: State = State::Head {
    line: 0,
    cr: false,
    started: false,
    seen: 0,
};

/// The states of hyper's chunked decoder (`ChunkedState` in hyper's
/// proto/h1/decode.rs), with the same transitions; where hyper fails the
/// body (and the connection), the guard turns [`State::Off`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    Start,
    Size(u64),
    SizeLws(u64),
    Extension(u64),
    SizeLf(u64),
    Data(u64),
    DataCr,
    DataLf,
    Trailer,
    TrailerLf,
    EndCr,
    EndLf,
}

impl Chunk {
    /// The state after `byte`, `None` where hyper's decoder fails.
    fn next(self, byte: u8) -> Option<State> {
        let hex = |size: u64| {
            let digit = char::from(byte).to_digit(16)?;
            size.checked_mul(16)?.checked_add(u64::from(digit))
        };
        let chunk = match (self, byte) {
            (Chunk::Start, _) => Chunk::Size(hex(0)?),
            (Chunk::Size(size), b'\t' | b' ') => Chunk::SizeLws(size),
            (Chunk::Size(size) | Chunk::SizeLws(size), b';') => Chunk::Extension(size),
            (Chunk::Size(size) | Chunk::SizeLws(size) | Chunk::Extension(size), b'\r') => Chunk::SizeLf(size),
            (Chunk::Size(size), _) => Chunk::Size(hex(size)?),
            (Chunk::SizeLws(size), b'\t' | b' ') => Chunk::SizeLws(size),
            (Chunk::Extension(_), b'\n') => return None,
            (Chunk::Extension(size), _) => Chunk::Extension(size),
            (Chunk::SizeLf(0), b'\n') => Chunk::EndCr,
            (Chunk::SizeLf(size), b'\n') => Chunk::Data(size),
            (Chunk::DataCr, b'\r') => Chunk::DataLf,
            (Chunk::DataLf, b'\n') => Chunk::Start,
            (Chunk::Trailer, b'\r') => Chunk::TrailerLf,
            (Chunk::Trailer, _) => Chunk::Trailer,
            (Chunk::TrailerLf, b'\n') => Chunk::EndCr,
            (Chunk::EndCr, b'\r') => Chunk::EndLf,
            (Chunk::EndCr, _) => Chunk::Trailer,
            (Chunk::EndLf, b'\n') => return Some(NEW_HEAD),
            _ => return None,
        };
        Some(State::Chunked(chunk))
    }
}

/// One connection's guard, shared by its [`GuardedIo`] and its [`Framed`]
/// service.
#[derive(Debug)]
pub struct HeadGuard {
    state: State,
    /// The most bytes of one head handed to hyper (its `max_buf_size`).
    head_limit: usize,
    /// Bytes read past a head's end before its framing was known, from
    /// `held_from` on not yet handed to hyper.
    held: Vec<u8>,
    held_from: usize,
}

impl HeadGuard {
    /// A guard for a new connection whose heads hyper reads into a buffer
    /// of `head_limit` bytes at most (`--max-header-bytes`).
    ///
    /// hyper refuses a head (431) only when its buffer is full and the
    /// head unfinished, but one read may fill the buffer past that size:
    /// a head a little over the limit that arrived in one read (likelier
    /// on a keep-alive connection, whose reads have grown) was taken. The
    /// guard hands hyper at most `head_limit` bytes of a head, so the
    /// limit holds however the bytes arrive.
    pub fn new(head_limit: usize) -> Self {
        Self {
            state: NEW_HEAD,
            head_limit,
            held: Vec::new(),
            held_from: 0,
        }
    }
}

/// What follows a request head, as hyper framed it.
#[derive(Debug, Clone, Copy)]
pub enum BodyFraming {
    /// `Content-Length` bytes (0: none).
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

impl BodyFraming {
    /// The framing of `request`'s body: hyper knows the exact length of
    /// every request body but a chunked one (a request without either
    /// header has none).
    pub fn of<B: Body>(request: &Request<B>) -> Self {
        match request.body().size_hint().exact() {
            Some(length) => Self::Length(length),
            None => Self::Chunked,
        }
    }
}

impl HeadGuard {
    /// Tells the guard how the body after the head it stopped at is framed.
    pub fn body_follows(&mut self, framing: BodyFraming) {
        if self.state == State::AwaitFraming {
            self.state = match framing {
                BodyFraming::Length(0) => NEW_HEAD,
                BodyFraming::Length(length) => State::Body(length),
                BodyFraming::Chunked => State::Chunked(Chunk::Start),
            };
        }
    }

    /// Checks `bytes`, the next ones of the stream, in place (a bare LF in
    /// a head becomes a NUL) and returns how many may go on to hyper: all
    /// of them, or those up to the end of a head whose framing is not
    /// known yet.
    fn scan(&mut self, bytes: &mut [u8]) -> usize {
        let mut at = 0;
        while at < bytes.len() {
            match self.state {
                State::Head {
                    line,
                    cr,
                    started,
                    seen,
                } => {
                    let room = self.head_limit.saturating_sub(seen);
                    let window = &bytes[at..bytes.len().min(at + room)];
                    let Some(newline) = memchr::memchr(b'\n', window) else {
                        if window.len() < bytes.len() - at {
                            self.state = State::TooLarge;
                            return at + window.len();
                        }
                        self.state = State::Head {
                            line: line + window.len(),
                            cr: bytes.last() == Some(&b'\r'),
                            started,
                            seen: seen + window.len(),
                        };
                        return bytes.len();
                    };
                    let seen = seen + newline + 1;
                    let end = at + newline;
                    let length = line + newline;
                    let after_cr = if newline > 0 { bytes[end - 1] == b'\r' } else { cr };
                    at = end + 1;
                    if !after_cr {
                        // httparse refuses a NUL anywhere in a head, right
                        // where this line would have ended.
                        bytes[end] = 0;
                        self.state = State::Off;
                    } else if length > 1 {
                        self.state = State::Head {
                            line: 0,
                            cr: false,
                            started: true,
                            seen,
                        };
                    } else if started {
                        self.state = State::AwaitFraming;
                        return at;
                    } else {
                        // An empty line before a head: hyper skips it but
                        // keeps it in its buffer.
                        self.state = State::Head {
                            line: 0,
                            cr: false,
                            started: false,
                            seen,
                        };
                    }
                }
                State::AwaitFraming | State::TooLarge => return at,
                State::Body(left) => {
                    let passed = left.min((bytes.len() - at) as u64);
                    at += passed as usize;
                    self.state = if passed == left {
                        NEW_HEAD
                    } else {
                        State::Body(left - passed)
                    };
                }
                State::Chunked(Chunk::Data(left)) => {
                    let passed = left.min((bytes.len() - at) as u64);
                    at += passed as usize;
                    self.state = State::Chunked(if passed == left {
                        Chunk::DataCr
                    } else {
                        Chunk::Data(left - passed)
                    });
                }
                State::Chunked(chunk) => {
                    self.state = chunk.next(bytes[at]).unwrap_or(State::Off);
                    at += 1;
                }
                State::Off => return bytes.len(),
            }
        }
        bytes.len()
    }

    /// Hands on held bytes (checked first) into `buf`; false if none are
    /// held.
    fn hand_on_held(&mut self, buf: &mut ReadBuf<'_>) -> bool {
        if self.held_from == self.held.len() {
            return false;
        }
        let count = buf.remaining().min(self.held.len() - self.held_from);
        let mut held = std::mem::take(&mut self.held);
        let range = self.held_from..self.held_from + count;
        let passed = self.scan(&mut held[range]);
        buf.put_slice(&held[self.held_from..self.held_from + passed]);
        self.held_from += passed;
        if self.held_from == held.len() {
            held.clear();
            self.held_from = 0;
        }
        self.held = held;
        true
    }
}

/// The socket of one connection, as hyper reads it through its
/// [`HeadGuard`].
pub struct GuardedIo<T> {
    io: T,
    guard: Rc<RefCell<HeadGuard>>,
}

impl<T> GuardedIo<T> {
    /// Wraps `io`; `guard` is shared with the connection's [`Framed`].
    pub fn new(io: T, guard: Rc<RefCell<HeadGuard>>) -> Self {
        Self { io, guard }
    }

    /// The socket.
    pub fn into_inner(self) -> T {
        self.io
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for GuardedIo<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let mut guard = this.guard.borrow_mut();
        if guard.state == State::AwaitFraming {
            // hyper hands a parsed head to the service before it reads on,
            // so this is not expected; should it happen, pass the bytes
            // rather than stall the connection.
            guard.state = State::Off;
        }
        if guard.hand_on_held(buf) {
            return Poll::Ready(Ok(()));
        }
        let start = buf.filled().len();
        std::task::ready!(Pin::new(&mut this.io).poll_read(cx, buf))?;
        let read = &mut buf.filled_mut()[start..];
        let passed = guard.scan(read);
        if passed < read.len() {
            guard.held.extend_from_slice(&read[passed..]);
            buf.set_filled(start + passed);
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for GuardedIo<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, bytes)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// A connection's service, telling its [`HeadGuard`] each request's body
/// framing before the request goes on.
pub struct Framed<S> {
    inner: S,
    guard: Rc<RefCell<HeadGuard>>,
}

impl<S> Framed<S> {
    /// Wraps `inner`; `guard` is shared with the connection's [`GuardedIo`].
    pub fn new(inner: S, guard: Rc<RefCell<HeadGuard>>) -> Self {
        Self { inner, guard }
    }
}

impl<S, B> hyper::service::Service<Request<Incoming>> for Framed<S>
where
    S: hyper::service::Service<Request<Incoming>, Response = Response<B>>,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = S::Future;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.guard.borrow_mut().body_follows(BodyFraming::of(&request));
        self.inner.call(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_is_handed_on_up_to_the_limit_however_it_arrives() {
        let limit = 8192;
        let head = |size: usize| {
            let mut head = b"GET / HTTP/1.1\r\nx-large: ".to_vec();
            head.resize(size - 4, b'l');
            head.extend_from_slice(b"\r\n\r\n");
            head
        };
        // A head of exactly the limit passes whole, in one read.
        let mut guard = HeadGuard::new(limit);
        let mut fits = head(limit);
        assert_eq!(guard.scan(&mut fits), limit);
        assert_eq!(guard.state, State::AwaitFraming);
        // One byte more, in one read: hyper gets the limit's worth, no end.
        let mut guard = HeadGuard::new(limit);
        let mut over = head(limit + 1);
        assert_eq!(guard.scan(&mut over), limit);
        assert_eq!(guard.state, State::TooLarge);
        assert_eq!(guard.scan(&mut over[limit..].to_vec()), 0, "nothing more");
        // The same in two reads, after empty lines that count too.
        let mut guard = HeadGuard::new(limit);
        let mut over = head(limit - 1);
        over.splice(0..0, b"\r\n\r\n".iter().copied());
        let (first, second) = over.split_at_mut(5000);
        assert_eq!(guard.scan(first), 5000);
        assert_eq!(guard.scan(second), limit - 5000);
        assert_eq!(guard.state, State::TooLarge);
    }

    /// Feeds `reads` to a guard as separate reads, telling it `framing`
    /// at each head's end; returns what hyper would get.
    fn through(reads: &[&[u8]], framing: &[BodyFraming]) -> Vec<u8> {
        let mut guard = HeadGuard::new(16 << 10);
        let mut framing = framing.iter();
        let mut out = Vec::new();
        let feed = |guard: &mut HeadGuard, bytes: &mut Vec<u8>, out: &mut Vec<u8>| {
            let passed = guard.scan(bytes);
            out.extend_from_slice(&bytes[..passed]);
            guard.held.extend_from_slice(&bytes[passed..]);
        };
        for read in reads {
            feed(&mut guard, &mut read.to_vec(), &mut out);
            loop {
                if guard.state == State::AwaitFraming {
                    guard.body_follows(*framing.next().expect("a framing per head"));
                }
                let mut held = std::mem::take(&mut guard.held);
                held.drain(..guard.held_from);
                guard.held_from = 0;
                if held.is_empty() || guard.state == State::TooLarge {
                    break;
                }
                feed(&mut guard, &mut held, &mut out);
            }
        }
        out
    }

    #[test]
    fn crlf_heads_pass_unchanged_whatever_the_reads() {
        let stream: &[u8] =
            b"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\nPOST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\na\nb\nc";
        let framing = [BodyFraming::Length(0), BodyFraming::Length(5)];
        assert_eq!(through(&[stream], &framing), stream);
        for split in 1..stream.len() {
            let (one, two) = stream.split_at(split);
            assert_eq!(through(&[one, two], &framing), stream, "split at {split}");
        }
    }

    #[test]
    fn a_bare_lf_in_a_head_becomes_a_nul_and_the_rest_passes() {
        let out = through(
            &[b"POST / HTTP/1.1\r\nX-A: a\nTransfer-Encoding: chunked\r\n\r\n"],
            &[],
        );
        assert_eq!(
            out,
            b"POST / HTTP/1.1\r\nX-A: a\0Transfer-Encoding: chunked\r\n\r\n"
        );
        assert_eq!(through(&[b"GET / HTTP/1.1\n\n"], &[]), b"GET / HTTP/1.1\0\n");
        assert_eq!(
            through(&[b"\nGET / HTTP/1.1\r\n\r\n"], &[]),
            b"\0GET / HTTP/1.1\r\n\r\n"
        );
        // Split between the CR and the LF: still a CRLF.
        let out = through(
            &[b"GET / HTTP/1.1\r", b"\nHost: a\r\n\r\n"],
            &[BodyFraming::Length(0)],
        );
        assert_eq!(out, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    }

    #[test]
    fn a_pipelined_head_after_a_body_is_checked_too() {
        let first = b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\na\nb";
        let second = b"GET /x HTTP/1.1\nHost: a\r\n\r\n";
        let out = through(&[&[&first[..], &second[..]].concat()], &[BodyFraming::Length(3)]);
        assert_eq!(&out[..first.len()], first, "the body's LF is not touched");
        assert_eq!(&out[first.len()..], b"GET /x HTTP/1.1\0Host: a\r\n\r\n");
    }

    #[test]
    fn a_chunked_body_is_skipped_by_its_sizes() {
        let first = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\na\nb\r\nA \r\n0123456789\r\n0\r\nT: 1\r\n\r\n";
        let second = b"GET / HTTP/1.1\r\nX: 1\nY: 2\r\n\r\n";
        let stream = [&first[..], &second[..]].concat();
        for split in 1..stream.len() {
            let (one, two) = stream.split_at(split);
            let out = through(&[one, two], &[BodyFraming::Chunked]);
            assert_eq!(&out[..first.len()], first, "split at {split}");
            assert_eq!(
                &out[first.len()..],
                b"GET / HTTP/1.1\r\nX: 1\0Y: 2\r\n\r\n",
                "split at {split}"
            );
        }
    }

    #[test]
    fn a_chunked_body_hyper_refuses_stops_the_guard() {
        let mut guard = HeadGuard::new(16 << 10);
        let head = b"POST / HTTP/1.1\r\n\r\n";
        assert_eq!(guard.scan(&mut head.to_vec()), head.len());
        guard.body_follows(BodyFraming::Chunked);
        guard.scan(&mut b"zz\r\n".to_vec());
        assert_eq!(guard.state, State::Off);
    }
}
