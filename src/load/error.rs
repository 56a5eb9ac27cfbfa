//! Why a request failed: the kinds the report counts separately, and one
//! failure with its detail (formatted only when kept as an example).

use std::fmt;
use std::io;
use std::time::Duration;

use super::response::Malformed;

/// How many [`ErrorKind`]s there are.
pub(crate) const KINDS: usize = 6;

/// Kinds of failed request, counted separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Could not open a connection.
    Connect,
    /// Reading the response failed, or the server closed the connection
    /// before the response was complete.
    Read,
    /// Writing the request failed.
    Write,
    /// No complete response within `--timeout`.
    Timeout,
    /// The bytes received are not a valid HTTP/1.1 response.
    Malformed,
    /// Bytes arrived while no request was outstanding on the connection (a
    /// server that answers twice, or before it is asked). hyper's client
    /// refuses them too: taken as the next answer, they would credit the
    /// server with responses it never made to those requests.
    Unsolicited,
}

impl ErrorKind {
    /// Every kind, in report order.
    pub const ALL: [ErrorKind; KINDS] = [
        Self::Connect,
        Self::Read,
        Self::Write,
        Self::Timeout,
        Self::Malformed,
        Self::Unsolicited,
    ];

    /// Lower-case name used in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Connect => "connect",
            Self::Read => "read",
            Self::Write => "write",
            Self::Timeout => "timeout",
            Self::Malformed => "malformed",
            Self::Unsolicited => "unsolicited",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// A failed request (or connection attempt). Cheap to build: the message
/// is only formatted when the collector keeps it as an example.
#[derive(Debug)]
pub(crate) struct RequestError {
    pub(crate) kind: ErrorKind,
    detail: Detail,
}

#[derive(Debug)]
enum Detail {
    Io(io::Error),
    Malformed(Malformed),
    Closed { before_response: bool },
    Timeout(Duration),
    ConnectTimeout(Duration),
    Abandoned,
    Unsolicited { bytes: usize },
}

impl RequestError {
    pub(crate) fn io(kind: ErrorKind, e: io::Error) -> Self {
        RequestError {
            kind,
            detail: Detail::Io(e),
        }
    }

    pub(crate) fn malformed(m: Malformed) -> Self {
        RequestError {
            kind: ErrorKind::Malformed,
            detail: Detail::Malformed(m),
        }
    }

    pub(crate) fn closed(before_response: bool) -> Self {
        RequestError {
            kind: ErrorKind::Read,
            detail: Detail::Closed { before_response },
        }
    }

    pub(crate) fn timeout(after: Duration) -> Self {
        RequestError {
            kind: ErrorKind::Timeout,
            detail: Detail::Timeout(after),
        }
    }

    pub(crate) fn connect_timeout(after: Duration) -> Self {
        RequestError {
            kind: ErrorKind::Connect,
            detail: Detail::ConnectTimeout(after),
        }
    }

    /// `bytes` (at least) arrived while no request was outstanding.
    pub(crate) fn unsolicited(bytes: usize) -> Self {
        RequestError {
            kind: ErrorKind::Unsolicited,
            detail: Detail::Unsolicited { bytes },
        }
    }

    /// A pipelined request lost because an earlier one on the same
    /// connection failed with `kind`.
    pub(crate) fn abandoned(kind: ErrorKind) -> Self {
        RequestError {
            kind,
            detail: Detail::Abandoned,
        }
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.detail {
            Detail::Io(e) => write!(f, "{}: {e}", self.kind.name()),
            Detail::Malformed(m) => write!(f, "malformed response: {m}"),
            Detail::Closed {
                before_response: true,
            } => f.write_str("read: the server closed the connection without responding"),
            Detail::Closed {
                before_response: false,
            } => f.write_str("read: the server closed the connection in the middle of a response"),
            Detail::Timeout(d) => write!(f, "timeout: no complete response within {d:?}"),
            Detail::ConnectTimeout(d) => write!(f, "connect: not connected within {d:?}"),
            Detail::Unsolicited { bytes } => write!(
                f,
                "unsolicited: {bytes} bytes arrived while no request was outstanding on the \
                 connection (the server answered more than it was asked, or before)"
            ),
            Detail::Abandoned => write!(
                f,
                "{}: an earlier pipelined request on the connection failed",
                self.kind.name()
            ),
        }
    }
}
