/*!
The per-thread collector (oha's `ResultData::push` idea): workers hand it
every outcome, answered or failed, and it alone decides what counts. It keeps
only aggregates (HDR histograms, counters, one example per kind), so memory
stays flat however long the run; the threads' collectors are merged at the
end.
*/

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use tokio::time::Instant;

use super::blocks::BlockRecorder;
use super::conn::Answer;
use super::error::{RequestError, KINDS};
use super::histogram;

/// A request is reported late when it went out this much after its
/// intended send time (open loop only). With the precise pacer a send is
/// normally a few µs late; 1 ms means the client or a stalled connection
/// held it back.
pub(crate) const LATE_AFTER: Duration = Duration::from_millis(1);

/// One answered request and its timestamps.
#[derive(Debug)]
pub(crate) struct Exchange {
    /// When the request was due: the schedule slot in open loop, the send
    /// time in closed loop.
    pub(crate) intended: Instant,
    /// When it was written.
    pub(crate) sent: Instant,
    /// When its response was complete.
    pub(crate) done: Instant,
    pub(crate) answer: Answer,
}

/// Live counters of one thread, read by the progress line. Written only by
/// their thread (plain stores, no read-modify-write); padded so two
/// threads' counters never share a cache line.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(crate) struct LiveCounters {
    pub(crate) responses: AtomicU64,
    pub(crate) errors: AtomicU64,
}

/// Open-loop send delays.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Late {
    /// Requests sent more than [`LATE_AFTER`] after their intended time.
    pub(crate) count: u64,
    /// Sum of their delays, µs.
    pub(crate) total_us: u64,
    /// Largest delay of any request, µs.
    pub(crate) max_us: u64,
}

/// Everything one thread measured.
pub(crate) struct Collector {
    /// Latency from intended send time to complete response (equal to the
    /// service time in closed loop).
    pub(crate) latency: Histogram<u64>,
    /// Open loop only: latency from the actual send (uncorrected).
    pub(crate) service: Option<Histogram<u64>>,
    /// Responses by status code (index = code).
    pub(crate) status: Vec<u64>,
    pub(crate) responses: u64,
    /// 2xx and validated.
    pub(crate) successes: u64,
    pub(crate) bytes: u64,
    pub(crate) errors: [u64; KINDS],
    pub(crate) error_examples: [Option<String>; KINDS],
    pub(crate) mismatches: [u64; 3],
    pub(crate) mismatch_example: Option<String>,
    pub(crate) late: Late,
    /// Sum of service times, µs (for the achieved concurrency).
    pub(crate) busy_us: u64,
    /// Outcomes excluded because they belong to the warm-up.
    pub(crate) warmup: u64,
    /// Latency per block of consecutive answers, when asked for.
    pub(crate) blocks: Option<BlockRecorder>,
    progress: Arc<LiveCounters>,
}

impl Collector {
    pub(crate) fn new(open_loop: bool, progress: Arc<LiveCounters>) -> Collector {
        Collector {
            latency: histogram::new(),
            service: open_loop.then(histogram::new),
            status: vec![0; 1000],
            responses: 0,
            successes: 0,
            bytes: 0,
            errors: [0; KINDS],
            error_examples: Default::default(),
            mismatches: [0; 3],
            mismatch_example: None,
            late: Late::default(),
            busy_us: 0,
            warmup: 0,
            blocks: None,
            progress,
        }
    }

    /// Also records latency per block of consecutive answers.
    pub(crate) fn with_blocks(mut self, blocks: Option<BlockRecorder>) -> Collector {
        self.blocks = blocks;
        self
    }

    /// Whether a described example of a mismatch is still wanted.
    pub(crate) fn wants_example(&self) -> bool {
        self.mismatch_example.is_none()
    }

    /// Takes one outcome. `measured` is false for the warm-up.
    pub(crate) fn push(&mut self, outcome: Result<Exchange, RequestError>, measured: bool) {
        if !measured {
            self.warmup += 1;
            return;
        }
        match outcome {
            Ok(x) => self.push_exchange(x),
            Err(e) => self.push_error(e),
        }
    }

    fn push_exchange(&mut self, x: Exchange) {
        let service = x.done.saturating_duration_since(x.sent);
        let latency = x.done.saturating_duration_since(x.intended);
        histogram::record(&mut self.latency, latency);
        if let Some(blocks) = &mut self.blocks {
            blocks.record(x.done, latency);
        }
        if let Some(h) = &mut self.service {
            histogram::record(h, service);
            let delay = x.sent.saturating_duration_since(x.intended);
            let delay_us = delay.as_micros() as u64;
            self.late.max_us = self.late.max_us.max(delay_us);
            if delay > LATE_AFTER {
                self.late.count += 1;
                self.late.total_us += delay_us;
            }
        }
        self.busy_us += service.as_micros() as u64;
        let a = x.answer;
        if let Some(slot) = self.status.get_mut(usize::from(a.status)) {
            *slot += 1;
        }
        self.responses += 1;
        self.bytes += a.wire_bytes;
        match a.mismatch {
            None if (200..300).contains(&a.status) => self.successes += 1,
            None => {}
            Some(kind) => {
                self.mismatches[kind as usize] += 1;
                if self.mismatch_example.is_none() {
                    self.mismatch_example = a.example;
                }
            }
        }
        self.progress.responses.store(self.responses, Ordering::Relaxed);
    }

    fn push_error(&mut self, e: RequestError) {
        let i = e.kind.index();
        self.errors[i] += 1;
        if self.error_examples[i].is_none() {
            self.error_examples[i] = Some(e.to_string());
        }
        let total: u64 = self.errors.iter().sum();
        self.progress.errors.store(total, Ordering::Relaxed);
    }

    /// Adds another thread's figures into this one.
    pub(crate) fn merge(&mut self, other: Collector) {
        histogram::add(&mut self.latency, &other.latency);
        if let (Some(mine), Some(theirs)) = (&mut self.service, &other.service) {
            histogram::add(mine, theirs);
        }
        for (a, b) in self.status.iter_mut().zip(&other.status) {
            *a += b;
        }
        self.responses += other.responses;
        self.successes += other.successes;
        self.bytes += other.bytes;
        for i in 0..self.errors.len() {
            self.errors[i] += other.errors[i];
        }
        for (mine, theirs) in self.error_examples.iter_mut().zip(other.error_examples) {
            if mine.is_none() {
                *mine = theirs;
            }
        }
        for i in 0..self.mismatches.len() {
            self.mismatches[i] += other.mismatches[i];
        }
        if self.mismatch_example.is_none() {
            self.mismatch_example = other.mismatch_example;
        }
        self.late.count += other.late.count;
        self.late.total_us += other.late.total_us;
        self.late.max_us = self.late.max_us.max(other.late.max_us);
        self.busy_us += other.busy_us;
        self.warmup += other.warmup;
        match (&mut self.blocks, other.blocks) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::error::ErrorKind;
    use crate::load::validate::MismatchKind;

    fn answer(status: u16, mismatch: Option<MismatchKind>) -> Answer {
        Answer {
            status,
            mismatch,
            example: mismatch.map(|k| format!("{k} example")),
            keep_alive: true,
            wire_bytes: 100,
        }
    }

    fn exchange(status: u16, mismatch: Option<MismatchKind>, late_ms: u64) -> Exchange {
        let intended = Instant::now();
        let sent = intended + Duration::from_millis(late_ms);
        Exchange {
            intended,
            sent,
            done: sent + Duration::from_millis(2),
            answer: answer(status, mismatch),
        }
    }

    #[test]
    fn the_collector_decides_what_counts() {
        let mut c = Collector::new(true, Arc::default());
        c.push(Ok(exchange(200, None, 0)), true);
        c.push(Ok(exchange(500, Some(MismatchKind::Status), 0)), true);
        c.push(Ok(exchange(404, None, 0)), true); // validated but not 2xx
        c.push(Ok(exchange(200, Some(MismatchKind::Body), 5)), true);
        c.push(Ok(exchange(200, None, 0)), false); // warm-up
        c.push(Err(RequestError::timeout(Duration::from_secs(1))), true);
        assert_eq!(c.responses, 4);
        assert_eq!(c.successes, 1);
        assert_eq!(c.status[200], 2);
        assert_eq!(c.status[500], 1);
        assert_eq!(c.mismatches, [1, 0, 1]);
        assert_eq!(c.mismatch_example.as_deref(), Some("status example"));
        assert_eq!(c.errors[ErrorKind::Timeout as usize], 1);
        assert_eq!(c.warmup, 1);
        assert_eq!(c.late.count, 1);
        assert_eq!(c.latency.len(), 4);
        // The late request's latency counts its 5 ms delay.
        assert!(c.latency.max() >= 7000);
        assert!(c.service.as_ref().unwrap().max() < 3000);
    }

    #[test]
    fn merge_adds_everything() {
        let mut a = Collector::new(false, Arc::default());
        let mut b = Collector::new(false, Arc::default());
        a.push(Ok(exchange(200, None, 0)), true);
        b.push(Ok(exchange(200, None, 0)), true);
        b.push(Err(RequestError::closed(true)), true);
        a.merge(b);
        assert_eq!(a.responses, 2);
        assert_eq!(a.latency.len(), 2);
        assert_eq!(a.errors[ErrorKind::Read as usize], 1);
        assert!(a.error_examples[ErrorKind::Read as usize]
            .as_deref()
            .unwrap()
            .contains("without responding"));
    }
}
