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
    /// at the end.
    pub async fn next_data(&mut self) -> Option<Result<Bytes, hyper::Error>> {
        match self {
            ReqBody::Stream(body) => loop {
                match body.frame().await? {
                    Err(error) => return Some(Err(error)),
                    Ok(frame) => match frame.into_data() {
                        Ok(data) if !data.is_empty() => return Some(Ok(data)),
                        _ => continue,
                    },
                }
            },
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

    /// A streamed body and the sender JS feeds it through.
    pub fn stream(slack: usize) -> (Self, StreamSender) {
        let (tx, rx) = mpsc::channel(slack);
        let end = Arc::new(AtomicU8::new(OPEN));
        let body = StreamBody { rx, end: end.clone() };
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
                match body.rx.poll_recv(cx) {
                    Poll::Ready(Some(chunk)) => Poll::Ready(Some(Ok(Frame::data(chunk)))),
                    Poll::Ready(None) if body.end.load(Ordering::Acquire) == COMPLETE => Poll::Ready(None),
                    Poll::Ready(None) => Poll::Ready(Some(Err(io::Error::other(
                        "the response stream ended before JS completed it",
                    )))),
                    Poll::Pending => Poll::Pending,
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
