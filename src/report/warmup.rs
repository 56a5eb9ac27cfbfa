//! A row's warm-up curve (`bench --warmup-curve`): from its server's first
//! requests (before any other load), the median and p99 latency and the
//! req/s of every block of 1,000 answers, and when it settled: the first
//! block from which three in a row have a median within a band of the
//! final one (the median of the last five blocks' medians). What a cold
//! instance pays: the requests and the time until its JIT and caches are
//! warm.
//!
//! The band is [`STEADY_WITHIN`] (5 %), or the final blocks' own spread
//! when that is wider, up to [`STEADY_WITHIN_AT_MOST`]: on a machine whose
//! medians wander by 10 % from block to block, a 5 % band would call no
//! curve settled, and a band wider than the noise is no claim; past 15 %
//! the end of the curve is still moving, and the band stays there.

use serde::{Deserialize, Serialize};

use crate::load::BlockStats;

/// How close to the final median a block's median must be to count as
/// steady.
pub const STEADY_WITHIN: f64 = 0.05;

/// The widest the band gets when the final blocks spread more.
pub const STEADY_WITHIN_AT_MOST: f64 = 0.15;

/// How many blocks in a row must be steady.
pub const STEADY_BLOCKS: usize = 3;

/// The blocks at the end that make the final figure.
pub const FINAL_BLOCKS: usize = 5;

/// One block of the curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CurveBlock {
    /// Answers in the block.
    pub answers: u64,
    /// Median latency, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Its last answer, seconds from the curve's first request.
    pub end_s: f64,
    /// Its answers per second.
    pub requests_per_sec: f64,
}

/// A row's warm-up curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarmupCurve {
    /// Answers per block.
    pub block: u64,
    /// Every block, in order.
    pub blocks: Vec<CurveBlock>,
    /// The final median: the median of the last five blocks' medians, µs.
    pub final_p50_us: f64,
    /// How close to it a block's median counted as steady (a fraction).
    pub band: f64,
    /// Where it settled; `None` when it did not within the requests sent.
    pub steady: Option<Steady>,
}

/// When a curve settled.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Steady {
    /// Blocks before the first steady one.
    pub blocks: usize,
    /// Requests answered before it.
    pub requests: u64,
    /// Seconds from the first request to its start.
    pub seconds: f64,
}

impl WarmupCurve {
    /// The curve of `blocks` of `block` answers each; `None` with too few
    /// blocks to tell a final state from the rest.
    pub fn of(block: u64, blocks: &[BlockStats]) -> Option<WarmupCurve> {
        let blocks: Vec<CurveBlock> = blocks
            .iter()
            .map(|b| CurveBlock {
                answers: b.answers,
                p50_us: b.p50_us,
                p99_us: b.p99_us,
                end_s: b.end_s,
                requests_per_sec: b.requests_per_sec,
            })
            .collect();
        if blocks.len() < FINAL_BLOCKS + 1 {
            return None;
        }
        let mut last: Vec<f64> = blocks[blocks.len() - FINAL_BLOCKS..]
            .iter()
            .map(|b| b.p50_us)
            .collect();
        last.sort_by(f64::total_cmp);
        let final_p50_us = last[FINAL_BLOCKS / 2];
        let spread = (last[FINAL_BLOCKS - 1] - last[0]) / final_p50_us.max(f64::MIN_POSITIVE);
        let band = spread.clamp(STEADY_WITHIN, STEADY_WITHIN_AT_MOST);
        let near = |b: &CurveBlock| (b.p50_us - final_p50_us).abs() <= band * final_p50_us;
        let first =
            (0..=blocks.len() - STEADY_BLOCKS).find(|&k| blocks[k..k + STEADY_BLOCKS].iter().all(near));
        let steady = first.map(|k| Steady {
            blocks: k,
            requests: blocks[..k].iter().map(|b| b.answers).sum(),
            seconds: if k == 0 { 0.0 } else { blocks[k - 1].end_s },
        });
        Some(WarmupCurve {
            block,
            blocks,
            final_p50_us,
            band,
            steady,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(p50s: &[f64]) -> Vec<BlockStats> {
        p50s.iter()
            .enumerate()
            .map(|(i, &p50_us)| BlockStats {
                answers: 1000,
                p50_us,
                p99_us: p50_us * 3.0,
                end_s: (i + 1) as f64 * 0.1,
                requests_per_sec: 10_000.0,
            })
            .collect()
    }

    #[test]
    fn a_curve_settles_where_three_blocks_in_a_row_are_near_the_final_median() {
        // Slow for four blocks, one outlier later, then steady at ~100.
        let p50s = [
            900.0, 400.0, 200.0, 120.0, 101.0, 99.0, 150.0, 100.0, 102.0, 98.0, 100.0, 101.0,
        ];
        let curve = WarmupCurve::of(1000, &blocks(&p50s)).unwrap();
        assert_eq!(curve.final_p50_us, 100.0);
        assert_eq!(curve.band, STEADY_WITHIN);
        let steady = curve.steady.unwrap();
        assert_eq!(steady.blocks, 7, "{curve:?}");
        assert_eq!(steady.requests, 7000);
        assert!((steady.seconds - 0.7).abs() < 1e-9);
    }

    #[test]
    fn a_curve_steady_from_the_start_or_never_says_so() {
        let steady = WarmupCurve::of(1000, &blocks(&[100.0, 101.0, 99.0, 100.0, 100.0, 100.0])).unwrap();
        assert_eq!(steady.steady.map(|s| (s.blocks, s.requests)), Some((0, 0)));
        // Still falling at the end: the band stops at 15 % and the curve
        // has not settled.
        let never =
            WarmupCurve::of(1000, &blocks(&[400.0, 300.0, 250.0, 200.0, 150.0, 120.0, 100.0])).unwrap();
        assert_eq!(never.band, STEADY_WITHIN_AT_MOST);
        assert_eq!(never.steady, None, "{never:?}");
        assert_eq!(WarmupCurve::of(1000, &blocks(&[1.0, 2.0, 3.0, 4.0, 5.0])), None);
    }

    #[test]
    fn a_noisy_end_widens_the_band_to_its_own_spread() {
        // Slow, then wandering by 9 % around 100.
        let curve = WarmupCurve::of(
            1000,
            &blocks(&[300.0, 290.0, 95.0, 104.0, 100.0, 96.0, 105.0, 100.0]),
        )
        .unwrap();
        assert!((curve.band - 0.09).abs() < 1e-9, "{curve:?}");
        assert_eq!(curve.steady.map(|s| s.blocks), Some(2));
    }
}
