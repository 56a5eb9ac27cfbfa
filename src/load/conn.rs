/*!
One client connection: a tokio `TcpStream`, a reusable read buffer, and the
two operations the worker loop needs, "write these pre-serialized request
bytes" and "read one response". This is the wrk-style hand-written HTTP/1.1
client: no per-request allocation, no header map, no body buffering (the
body streams through a [`BodySink`] that keeps only length and hash).
*/

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::error::{ErrorKind, RequestError};
use super::response::{parse_head, BodyDecoder, Malformed};
use super::validate::{BodySink, Checker, MismatchKind};

/// Read buffer size. It must hold a whole response head (bodies stream
/// through it); wrk reads with 8 KiB, and we allow heads up to twice that.
const READ_BUF: usize = 16 * 1024;

/// One keep-alive connection to the target.
pub(crate) struct Conn {
    stream: TcpStream,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    sink: BodySink,
}

/// What the connection learnt from one response.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) mismatch: Option<MismatchKind>,
    pub(crate) example: Option<String>,
    pub(crate) keep_alive: bool,
    pub(crate) wire_bytes: u64,
}

impl Conn {
    /// Opens a connection with Nagle's algorithm off (requests are written
    /// whole, and a pipelined batch must not wait for an ACK).
    pub(crate) async fn connect(addr: SocketAddr) -> Result<Conn, RequestError> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| RequestError::io(ErrorKind::Connect, e))?;
        stream
            .set_nodelay(true)
            .map_err(|e| RequestError::io(ErrorKind::Connect, e))?;
        Ok(Conn {
            stream,
            buf: vec![0; READ_BUF].into_boxed_slice(),
            start: 0,
            end: 0,
            sink: BodySink::default(),
        })
    }

    /// Writes pre-serialized request bytes.
    pub(crate) async fn send(&mut self, bytes: &[u8]) -> Result<(), RequestError> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|e| RequestError::io(ErrorKind::Write, e))
    }

    /// Reads one complete response, skipping 1xx interim ones, and
    /// validates it with `checker`. `describe` asks for a text example of a
    /// mismatch (only wanted until the run has one).
    pub(crate) async fn read_response(
        &mut self,
        head_request: bool,
        checker: &Checker,
        describe: bool,
    ) -> Result<Answer, RequestError> {
        let mut wire = 0u64;
        let head = loop {
            if self.start < self.end {
                match parse_head(&self.buf[self.start..self.end], head_request, checker, describe) {
                    Ok(Some(head)) => {
                        self.start += head.len;
                        wire += head.len as u64;
                        if (100..200).contains(&head.status) {
                            continue;
                        }
                        break head;
                    }
                    Ok(None) => {}
                    Err(m) => return Err(RequestError::malformed(m)),
                }
            }
            if self.fill().await? == 0 {
                return Err(RequestError::closed(wire == 0 && self.start == self.end));
            }
        };
        let mut body = head.body;
        let mut keep_alive = head.keep_alive;
        self.sink.reset(checker.checks_body(), describe);
        loop {
            if self.start < self.end && !body.is_done() {
                let n = body
                    .feed(&self.buf[self.start..self.end], &mut self.sink)
                    .map_err(RequestError::malformed)?;
                self.start += n;
                wire += n as u64;
            }
            if body.is_done() {
                break;
            }
            if self.fill().await? == 0 {
                if body == BodyDecoder::UntilClose {
                    keep_alive = false;
                    break;
                }
                return Err(RequestError::closed(false));
            }
        }
        let mut mismatch = head.mismatch;
        let mut example = head.example;
        if mismatch.is_none() && !checker.body_ok(&self.sink) {
            mismatch = Some(MismatchKind::Body);
            if describe {
                example = Some(checker.describe_body(&self.sink));
            }
        }
        Ok(Answer {
            status: head.status,
            mismatch,
            example,
            keep_alive,
            wire_bytes: wire,
        })
    }

    /// Checks that nothing has arrived while no request is outstanding:
    /// bytes left in the buffer after the last answer, or waiting on the
    /// socket. They answer no request (a server that wrote two
    /// responses per request had the second taken as the next answer, ~9x
    /// the honest req/s at p50 0 µs). Costs no system call unless the
    /// runtime has seen the socket turn readable since the last read (tokio
    /// clears readiness after a short read). End of stream is not reported
    /// here: the next exchange reports the closed connection as before.
    pub(crate) fn check_idle(&mut self) -> Result<(), RequestError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            // Any error other than "nothing there" (a reset) is left to the
            // next write or read, which reports it as it always did.
            if let Ok(n) = self.stream.try_read(&mut self.buf) {
                self.end = n;
            }
        }
        match self.end - self.start {
            0 => Ok(()),
            bytes => Err(RequestError::unsolicited(bytes)),
        }
    }

    /// Reads more bytes into the buffer; returns 0 at end of stream.
    async fn fill(&mut self) -> Result<usize, RequestError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start == 0 {
                return Err(RequestError::malformed(Malformed::HeadTooLarge));
            }
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let n = self
            .stream
            .read(&mut self.buf[self.end..])
            .await
            .map_err(|e| RequestError::io(ErrorKind::Read, e))?;
        self.end += n;
        Ok(n)
    }
}
