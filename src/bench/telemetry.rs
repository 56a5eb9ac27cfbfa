//! `bench`'s end of a row server's telemetry channel (adapter/telemetry.rs
//! has the server's): a socket pair made before the server starts, whose
//! other end the server inherits as [`SERVER_FD`].

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use crate::adapter::ServerSnapshot;
use crate::engine::HeapSizes;

/// The descriptor number the server finds its end at (`--telemetry-fd`).
pub const SERVER_FD: i32 = 3;

/// How long a snapshot may take: a worker busy in JS gets half a second to
/// publish (adapter/telemetry.rs), the rest is slack.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(3);

/// `bench`'s end of the channel.
#[derive(Debug)]
pub struct TelemetryChannel {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl TelemetryChannel {
    /// A new channel, and the end to hand the server (see [`hand_over`]).
    pub fn pair() -> std::io::Result<(TelemetryChannel, OwnedFd)> {
        let (ours, theirs) = UnixStream::pair()?;
        ours.set_read_timeout(Some(ANSWER_TIMEOUT))?;
        ours.set_write_timeout(Some(ANSWER_TIMEOUT))?;
        let channel = TelemetryChannel {
            writer: ours.try_clone()?,
            reader: BufReader::new(ours),
        };
        Ok((channel, OwnedFd::from(theirs)))
    }

    /// The server's heap and GC counters and request times now: `None`
    /// when it did not answer in time (its parts are `None` where it has
    /// none: a native row, an engine without the hooks).
    pub fn snapshot(&mut self) -> Option<ServerSnapshot> {
        self.ask(b"snapshot\n")
    }

    /// The same, with the heap's sizes after every worker collected all
    /// its garbage (`None` in them for an engine or row without).
    pub fn heap_sizes(&mut self) -> Option<HeapSizes> {
        self.ask(b"heap-sizes\n")?.sizes
    }

    fn ask(&mut self, request: &[u8]) -> Option<ServerSnapshot> {
        self.writer.write_all(request).ok()?;
        let mut line = String::new();
        self.reader.read_line(&mut line).ok()?;
        serde_json::from_str::<ServerSnapshot>(&line).ok()
    }
}

/// Puts `theirs` at [`SERVER_FD`] in the child, without close-on-exec.
///
/// # Safety
///
/// Runs between fork and exec: only async-signal-safe calls.
pub unsafe fn hand_over(theirs: &OwnedFd) -> std::io::Result<()> {
    crate::child_run::hand_over(theirs.as_raw_fd(), SERVER_FD)
}
