//! A streamed response JS is still writing: the sender that feeds its body,
//! and the content-length its head declared, which the stream is held to.
//!
//! The rule (docs/reference.md, "Streamed answers and closing"): a streamed body that fails, or sends
//! more or fewer bytes than its head declares, never ends like a complete
//! response. Once its head is out, the connection is cut (one log line); a
//! chunk past the declared length is not sent. Two pieces make that hold
//! where hyper would otherwise complete the response early, since hyper
//! ends a response as soon as it has written the declared bytes:
//!
//! - the body holds back the chunk that completes the declared length
//!   until JS completes the stream (adapter/body.rs), so a stream that
//!   fails or goes on past it is cut one chunk short;
//! - a stream that declares no bytes at all would be complete with its
//!   head, so its head waits for the stream's end: then it is sent, or, if
//!   the stream failed or sent bytes, the request is answered 500 instead.
//!
//! The request table keeps one per stream and acts on its [`Ending`]; this
//! file decides, the table replies and logs.

use bytes::Bytes;
use http::Response;
use tokio::sync::mpsc;

use super::body::{ResBody, StreamSender};

/// A streamed response JS is still writing.
pub struct OpenStream {
    sender: StreamSender,
    /// `METHOD /path`, for the log line of a cut.
    request: String,
    /// The body length the head declares, when it is held to one (not for
    /// a response to HEAD or a 304, which declare a length they do not
    /// send).
    declared: Option<u64>,
    written: u64,
    /// The response, while its head waits for the stream's end.
    waiting_head: Option<Response<ResBody>>,
}

/// How a stream ended, for the table to act on.
pub enum Ending {
    /// The stream is complete (or its client went away): nothing to do.
    Complete,
    /// The stream is complete and its head waited: send the response now.
    Answer(Response<ResBody>),
    /// The head had not gone out: answer the request 500, for this reason.
    Refuse(String),
    /// The head was out: the body is cut; log `request` and `why`.
    Cut { request: String, why: String },
}

impl OpenStream {
    /// A stream feeding `sender`, for `request` (`METHOD /path`), held to
    /// `declared` bytes. With `head`, the response waits here for the end
    /// of the stream instead of going out now: pass it for a declared
    /// length of 0 (see the module's notes).
    pub fn new(
        sender: StreamSender,
        request: String,
        declared: Option<u64>,
        head: Option<Response<ResBody>>,
    ) -> Self {
        Self {
            sender,
            request,
            declared,
            written: 0,
            waiting_head: head,
        }
    }

    /// Whether a response with this declared length must wait for the end
    /// of its stream before its head goes out.
    pub fn head_waits(declared: Option<u64>) -> bool {
        declared == Some(0)
    }

    /// Counts the next chunk, `len` bytes: a sender to send it through, or
    /// why it must not be sent (it would take the body past its declared
    /// length; the stream must then end with that reason).
    pub fn write(&mut self, len: usize) -> Result<mpsc::Sender<Bytes>, String> {
        self.written += len as u64;
        match self.declared {
            Some(declared) if self.written > declared => Err(format!(
                "the response stream went past the {declared} bytes its content-length declares"
            )),
            _ => Ok(self.sender.chunks()),
        }
    }

    /// Ends the stream: `failure` is why JS failed it (an error in the
    /// stream, or a chunk past the declared length), `None` if JS
    /// completed it. A completed stream short of its declared length
    /// fails too.
    pub fn end(self, failure: Option<String>) -> Ending {
        let client_gone = self.sender.client_gone();
        let failure = failure.or_else(|| {
            self.declared
                .filter(|&declared| self.written < declared)
                .map(|declared| {
                    format!(
                        "the response stream ended after {} of the {declared} bytes its content-length declares",
                        self.written
                    )
                })
        });
        self.sender.finish(failure.is_none());
        match (self.waiting_head, failure) {
            (Some(response), None) => Ending::Answer(response),
            (Some(_), Some(why)) => Ending::Refuse(why),
            (None, None) => Ending::Complete,
            // Nobody reads the body any more: nothing to cut or log.
            (None, Some(_)) if client_gone => Ending::Complete,
            (None, Some(why)) => Ending::Cut {
                request: self.request,
                why,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(declared: Option<u64>, head: bool) -> (OpenStream, ResBody) {
        let (body, sender) = ResBody::stream(8, declared);
        let head = head.then(|| Response::new(ResBody::full("")));
        (OpenStream::new(sender, "GET /s".to_owned(), declared, head), body)
    }

    #[test]
    fn a_stream_is_held_to_its_declared_length() {
        let (mut open, _body) = stream(Some(5), false);
        assert!(open.write(3).is_ok());
        assert!(open.write(2).is_ok());
        let past = open.write(1).err().unwrap_or_default();
        assert!(past.contains("went past the 5 bytes"), "{past}");
        assert!(matches!(open.end(Some(past)), Ending::Cut { request, .. } if request == "GET /s"));

        let (mut short, _body) = stream(Some(5), false);
        assert!(short.write(4).is_ok());
        assert!(
            matches!(short.end(None), Ending::Cut { why, .. } if why.contains("ended after 4 of the 5 bytes"))
        );

        let (mut right, _body) = stream(Some(5), false);
        assert!(right.write(5).is_ok());
        assert!(matches!(right.end(None), Ending::Complete));
    }

    #[test]
    fn a_stream_whose_head_waits_is_answered_or_refused_at_its_end() {
        assert!(OpenStream::head_waits(Some(0)));
        assert!(!OpenStream::head_waits(Some(1)) && !OpenStream::head_waits(None));
        let (empty, _body) = stream(Some(0), true);
        assert!(matches!(empty.end(None), Ending::Answer(_)));
        let (failed, _body) = stream(Some(0), true);
        assert!(matches!(failed.end(Some("boom".to_owned())), Ending::Refuse(why) if why == "boom"));
        let (mut wrote, _body) = stream(Some(0), true);
        let past = wrote.write(1).err().unwrap_or_default();
        assert!(matches!(wrote.end(Some(past)), Ending::Refuse(_)));
    }

    #[test]
    fn a_stream_whose_client_went_away_is_not_logged_as_cut() {
        let (open, body) = stream(None, false);
        drop(body);
        assert!(matches!(open.end(Some("boom".to_owned())), Ending::Complete));
    }
}
