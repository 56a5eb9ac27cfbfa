/*!
The one-line live progress on stderr: elapsed time, responses, the recent
rate and errors, redrawn in place. Drawn only when enabled (a terminal on
stderr), cleared at the end so it never mixes with the report.
*/

use std::io::Write;
use std::time::Duration;

/// Redraws at most this often.
const EVERY: Duration = Duration::from_millis(500);

pub(crate) struct Monitor {
    enabled: bool,
    total: Option<Duration>,
    last_at: Duration,
    last_responses: u64,
    drawn: bool,
}

impl Monitor {
    /// `total` is the planned run length (warm-up included), if known.
    pub(crate) fn new(enabled: bool, total: Option<Duration>) -> Monitor {
        Monitor {
            enabled,
            total,
            last_at: Duration::ZERO,
            last_responses: 0,
            drawn: false,
        }
    }

    pub(crate) fn tick(&mut self, elapsed: Duration, responses: u64, errors: u64) {
        if !self.enabled || elapsed < self.last_at + EVERY {
            return;
        }
        let window = (elapsed - self.last_at).as_secs_f64();
        let rate = responses.saturating_sub(self.last_responses) as f64 / window;
        self.last_at = elapsed;
        self.last_responses = responses;
        let of = self
            .total
            .map_or(String::new(), |t| format!("/{:.0}s", t.as_secs_f64()));
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2K[{:.1}s{of}] {responses} responses, {rate:.0} req/s, {errors} errors",
            elapsed.as_secs_f64()
        );
        let _ = err.flush();
        self.drawn = true;
    }

    pub(crate) fn finish(&mut self) {
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.drawn = false;
        }
    }
}
