/*!
Latency per block of consecutive answers (`LoadPlan::blocks`): the first
1,000 answers of a run, the next 1,000, and so on, each with its own
histogram and the time it spanned. What a warm-up curve is drawn from: how
a fresh server's latency and throughput settle as it serves its first
requests (its JIT compiling the hot code, its caches filling).

Answers are numbered in the order they complete, across every connection
and thread, by one shared counter: block `k` holds answers
`k × size .. (k + 1) × size`. Each thread records into its own blocks and
the threads' blocks are added at the end, as the collectors are.
*/

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::time::Instant;

use super::histogram;

/// One block's figures, as the report has them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BlockStats {
    /// Answers in the block (the size, but for the last block).
    pub answers: u64,
    /// Median latency, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// When its last answer completed, seconds from the run's start.
    pub end_s: f64,
    /// Its answers over the time since the previous block's last answer.
    pub requests_per_sec: f64,
}

/// One thread's blocks.
pub(crate) struct BlockRecorder {
    size: u64,
    counter: Arc<AtomicU64>,
    blocks: Vec<Block>,
}

struct Block {
    latency: Histogram<u64>,
    last_done: Option<Instant>,
}

impl BlockRecorder {
    /// Blocks of `size` answers, numbered by the shared `counter`.
    pub(crate) fn new(size: u64, counter: Arc<AtomicU64>) -> BlockRecorder {
        BlockRecorder {
            size: size.max(1),
            counter,
            blocks: Vec::new(),
        }
    }

    /// One answer, completed at `done` after `latency`.
    pub(crate) fn record(&mut self, done: Instant, latency: Duration) {
        let index = (self.counter.fetch_add(1, Ordering::Relaxed) / self.size) as usize;
        while self.blocks.len() <= index {
            self.blocks.push(Block {
                latency: histogram::new(),
                last_done: None,
            });
        }
        let block = &mut self.blocks[index];
        histogram::record(&mut block.latency, latency);
        block.last_done = Some(block.last_done.map_or(done, |last| last.max(done)));
    }

    /// Adds another thread's blocks into these.
    pub(crate) fn merge(&mut self, other: BlockRecorder) {
        for (index, theirs) in other.blocks.into_iter().enumerate() {
            match self.blocks.get_mut(index) {
                Some(mine) => {
                    histogram::add(&mut mine.latency, &theirs.latency);
                    mine.last_done = mine.last_done.max(theirs.last_done);
                }
                None => self.blocks.push(theirs),
            }
        }
    }

    /// Every block's figures, times from `start`.
    pub(crate) fn stats(&self, start: Instant) -> Vec<BlockStats> {
        let mut previous = start;
        self.blocks
            .iter()
            .filter(|block| !block.latency.is_empty())
            .map(|block| {
                let end = block.last_done.unwrap_or(previous).max(previous);
                let span = end.duration_since(previous).as_secs_f64();
                previous = end;
                let answers = block.latency.len();
                BlockStats {
                    answers,
                    p50_us: block.latency.value_at_quantile(0.5) as f64,
                    p99_us: block.latency.value_at_quantile(0.99) as f64,
                    end_s: end.duration_since(start).as_secs_f64(),
                    requests_per_sec: if span > 0.0 { answers as f64 / span } else { 0.0 },
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_fill_blocks_in_completion_order_across_threads() {
        let counter = Arc::new(AtomicU64::new(0));
        let start = Instant::now();
        let mut one = BlockRecorder::new(2, counter.clone());
        let mut two = BlockRecorder::new(2, counter);
        let ms = Duration::from_millis;
        // Answers 0 and 1 (slow), 2 and 3 (fast), 4.
        one.record(start + ms(10), ms(5));
        two.record(start + ms(12), ms(7));
        one.record(start + ms(13), ms(1));
        two.record(start + ms(14), ms(1));
        one.record(start + ms(20), ms(1));
        one.merge(two);
        let stats = one.stats(start);
        assert_eq!(stats.iter().map(|b| b.answers).collect::<Vec<_>>(), [2, 2, 1]);
        assert!(stats[0].p50_us >= 5000.0 && stats[1].p99_us < 1100.0, "{stats:?}");
        // Block 1 spans 12 ms → 14 ms: 2 answers in 2 ms.
        assert!((stats[1].requests_per_sec - 1000.0).abs() < 1.0, "{stats:?}");
        assert!((stats[2].end_s - 0.020).abs() < 1e-9);
    }
}
