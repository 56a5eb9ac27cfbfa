//! The body types: a request's, as the table holds it (hyper's stream, or
//! the whole body at once), and a response's (a whole buffer, or chunks
//! streamed from JS).

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio::sync::mpsc;

/// Small chunks already read are joined into one of up to this many bytes
/// before JS gets them ([`ReqBody::next_data`]).
pub const COALESCE_BYTES: usize = 64 * 1024;

/// A request's body as the table holds it: hyper's stream for a request
/// from a socket, or the whole body at once for one the in-runtime run
/// made (adapter/in_runtime.rs).
#[derive(Debug)]
pub enum ReqBody {
    /// Read from the connection as it comes.
    Stream(Incoming),
    /// Given whole; empty once read.
    Whole(Bytes),
}

impl ReqBody {
    /// The next chunk of data, skipping empty chunks and trailers; `None`
    /// at the end. Chunks already read from the connection are joined, up
    /// to [`COALESCE_BYTES`]: a body sent as a million 1-byte chunks would
    /// otherwise be a million buffers in JS (hundreds of MB for 1 MiB).
    pub async fn next_data(&mut self) -> Option<Result<Bytes, hyper::Error>> {
        match self {
            ReqBody::Stream(body) => {
                let first = loop {
                    match body.frame().await? {
                        Err(error) => return Some(Err(error)),
                        Ok(frame) => match frame.into_data() {
                            Ok(data) if !data.is_empty() => break data,
                            _ => continue,
                        },
                    }
                };
                // A whole body, or a large chunk, goes as it is (the common
                // case costs nothing more).
                if first.len() >= COALESCE_BYTES || body.is_end_stream() {
                    return Some(Ok(first));
                }
                let mut joined = bytes::BytesMut::from(first);
                // hyper hands the next frame over only once asked (its body
                // channel holds none): ask, and when it has none yet let the
                // connection's task run once and ask again. Twice nothing:
                // it waits for the socket, and JS gets what is here.
                let mut idle = 0;
                while joined.len() < COALESCE_BYTES && idle < 2 {
                    let ready = std::future::poll_fn(|cx| match Pin::new(&mut *body).poll_frame(cx) {
                        Poll::Pending => Poll::Ready(None),
                        Poll::Ready(frame) => Poll::Ready(Some(frame)),
                    })
                    .await;
                    match ready {
                        None => {
                            idle += 1;
                            tokio::task::yield_now().await;
                        }
                        // The end, which the next call reads again.
                        Some(None) => break,
                        // The body is broken: its error, not a part of it.
                        Some(Some(Err(error))) => return Some(Err(error)),
                        Some(Some(Ok(frame))) => {
                            idle = 0;
                            if let Ok(data) = frame.into_data() {
                                joined.extend_from_slice(&data);
                            }
                        }
                    }
                }
                Some(Ok(joined.freeze()))
            }
            ReqBody::Whole(bytes) => (!bytes.is_empty()).then(|| Ok(std::mem::take(bytes))),
        }
    }
}

/// A response body: either complete, or fed by a JS ReadableStream through
/// `op_fwbench_stream_write` (a bounded channel, so a slow client slows JS).
pub enum ResBody {
    /// The whole body (taken when sent).
    Full(Option<Bytes>),
    /// Chunks as JS produces them.
    Stream(StreamBody),
}

impl ResBody {
    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        let bytes = bytes.into();
        Self::Full((!bytes.is_empty()).then_some(bytes))
    }

    /// A streamed body and the sender JS feeds it through. With
    /// `declared`, the length its head declares, the chunk that completes
    /// that length is held back until JS completes the stream: hyper ends
    /// the response as soon as it has written the declared bytes, so a
    /// stream that then fails, or goes on past them, would otherwise look
    /// complete to the client (adapter/stream.rs).
    pub fn stream(slack: usize, declared: Option<u64>) -> (Self, StreamSender) {
        let (tx, rx) = mpsc::channel(slack);
        let end = Arc::new(AtomicU8::new(OPEN));
        let body = StreamBody {
            rx,
            end: end.clone(),
            remaining: declared,
            held: None,
        };
        (Self::Stream(body), StreamSender { tx, end })
    }
}

const OPEN: u8 = 0;
const COMPLETE: u8 = 1;
const FAILED: u8 = 2;

/// The receiving end of a streamed body. How it ended is kept beside the
/// channel, not in it, so a full channel cannot lose it: the body is
/// complete only if JS said so; a failure in JS, or a sender dropped without
/// a word (the runtime was torn down mid-stream), fails the body, and hyper
/// then cuts the connection instead of writing the terminating chunk.
pub struct StreamBody {
    rx: mpsc::Receiver<Bytes>,
    end: Arc<AtomicU8>,
    /// Declared bytes not yet received, when the head declares a length.
    remaining: Option<u64>,
    /// The chunk that completed the declared length, until JS completes
    /// the stream.
    held: Option<Bytes>,
}

/// The sending end of a streamed body; dropping it without
/// [`StreamSender::finish`] fails the body.
pub struct StreamSender {
    tx: mpsc::Sender<Bytes>,
    end: Arc<AtomicU8>,
}

impl StreamSender {
    /// A sender for the same body (for one write in flight).
    pub fn chunks(&self) -> mpsc::Sender<Bytes> {
        self.tx.clone()
    }

    /// Whether the body's reader is gone (hyper dropped it: the client
    /// went away, or the response needs no body).
    pub fn client_gone(&self) -> bool {
        self.tx.is_closed()
    }

    /// Ends the body: complete, or failed (the client sees a cut body).
    pub fn finish(self, complete: bool) {
        self.end
            .store(if complete { COMPLETE } else { FAILED }, Ordering::Release);
    }
}

impl Body for ResBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Frame<Bytes>>>> {
        match self.get_mut() {
            Self::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Self::Stream(body) => {
                if body.end.load(Ordering::Acquire) == FAILED {
                    return Poll::Ready(Some(Err(io::Error::other("the response stream failed in JS"))));
                }
                loop {
                    return match body.rx.poll_recv(cx) {
                        Poll::Ready(Some(chunk)) => {
                            if let Some(remaining) = &mut body.remaining {
                                *remaining = remaining.saturating_sub(chunk.len() as u64);
                                if *remaining == 0 {
                                    // Past it, only empty chunks can come
                                    // (the table cuts a longer stream).
                                    if !chunk.is_empty() {
                                        body.held = Some(chunk);
                                    }
                                    continue;
                                }
                            }
                            Poll::Ready(Some(Ok(Frame::data(chunk))))
                        }
                        Poll::Ready(None) if body.end.load(Ordering::Acquire) == COMPLETE => {
                            Poll::Ready(body.held.take().map(|chunk| Ok(Frame::data(chunk))))
                        }
                        Poll::Ready(None) => Poll::Ready(Some(Err(io::Error::other(
                            "the response stream ended before JS completed it",
                        )))),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Self::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Self::Full(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64)),
            Self::Stream(_) => SizeHint::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frames `body` yields now, up to its end or an error (`None`).
    fn frames(body: &mut ResBody) -> Vec<Option<Bytes>> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut out = Vec::new();
        while let Poll::Ready(frame) = Pin::new(&mut *body).poll_frame(&mut cx) {
            match frame {
                Some(Ok(frame)) => out.push(frame.into_data().ok()),
                Some(Err(_)) => {
                    out.push(None);
                    break;
                }
                None => break,
            }
        }
        out
    }

    fn chunk(text: &'static str) -> Option<Bytes> {
        Some(Bytes::from_static(text.as_bytes()))
    }

    #[test]
    fn the_chunk_that_completes_a_declared_length_waits_for_the_stream_to_complete() {
        let (mut body, sender) = ResBody::stream(8, Some(5));
        let chunks = sender.chunks();
        for part in ["abc", "de", ""] {
            chunks
                .try_send(Bytes::from_static(part.as_bytes()))
                .expect("room");
        }
        drop(chunks);
        assert_eq!(frames(&mut body), [chunk("abc")], "\"de\" is held");
        sender.finish(true);
        assert_eq!(frames(&mut body), [chunk("de")]);
    }

    #[test]
    fn a_stream_that_fails_after_its_declared_length_is_cut_before_its_last_chunk() {
        let (mut body, sender) = ResBody::stream(8, Some(5));
        let chunks = sender.chunks();
        chunks.try_send(Bytes::from_static(b"abcde")).expect("room");
        drop(chunks);
        sender.finish(false);
        assert_eq!(frames(&mut body), [None], "an error, never the last bytes");
    }
}
