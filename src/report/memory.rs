//! A row server's memory: what it holds while serving (resident set, and
//! for fwbench's own JS rows the JS heap after a full collection and the
//! memory outside it), its peak, what one more connection costs, and
//! whether it grows with the requests served (a leak).
//!
//! The leak check fits each reading (taken after every round, the heap's
//! after a forced full collection, so garbage not yet collected is not
//! counted) against the requests the server had answered by then: the
//! slope is bytes kept per request, reported per million requests. It is
//! flagged past [`HEAP_LEAK_BYTES_PER_REQUEST`] on the heap (where it is
//! known: collected, so a cache that stops growing is not a leak by the
//! next readings) or [`RSS_LEAK_BYTES_PER_REQUEST`] on the resident set
//! (whose pages an allocator keeps: a coarser figure). Three rounds are
//! the fewest that tell growth from one step up.

use serde::{Deserialize, Serialize};

/// Bytes of heap kept per request above which a row is flagged.
pub const HEAP_LEAK_BYTES_PER_REQUEST: f64 = 16.0;

/// Bytes of resident set kept per request above which a row without heap
/// figures is flagged.
pub const RSS_LEAK_BYTES_PER_REQUEST: f64 = 64.0;

/// The fewest readings a leak check is made from.
pub const LEAK_READINGS: usize = 3;

const MIB: f64 = 1024.0 * 1024.0;

/// The JS heap after a full collection, MiB (every worker's summed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeapAfterGc {
    /// Live objects.
    pub used_mib: f64,
    /// What the heap reserved.
    pub total_mib: f64,
    /// Outside the heap for JS objects (ArrayBuffers' stores).
    pub external_mib: f64,
}

/// A row server's memory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RowMemory {
    /// Its resident set at the end of each round's window, the median over
    /// the rounds: what the server holds while serving.
    pub steady_rss_mib: f64,
    /// The highest its resident set has been, start-up included (the
    /// kernel's high-water mark, after the last round).
    pub peak_rss_mib: f64,
    /// The JS heap after a full collection, median over the rounds; absent
    /// for native rows, other runtimes' and engines without the figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap: Option<HeapAfterGc>,
    /// Resident set per extra open connection, KiB (`--memory-connections`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_connection_kib: Option<f64>,
    /// Whether it grows with the requests served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leak: Option<LeakCheck>,
}

/// Growth with the requests served.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LeakCheck {
    /// Readings fitted.
    pub readings: usize,
    /// Resident set growth, bytes per million requests.
    pub rss_bytes_per_million: f64,
    /// Heap (after collection) growth, bytes per million requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_bytes_per_million: Option<f64>,
    /// Past its threshold: the row keeps memory per request.
    pub flagged: bool,
}

/// What one round left behind: requests answered so far (warm-up
/// included), the resident set, the heap after collection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Requests the server had answered by then.
    pub served: u64,
    /// Resident set, MiB.
    pub rss_mib: f64,
    /// The heap after a full collection.
    pub heap: Option<HeapAfterGc>,
}

impl RowMemory {
    /// The figures of `readings` (one per round) and the peak; `None`
    /// without either.
    pub fn of(readings: &[Reading], peak_mib: Option<f64>) -> Option<RowMemory> {
        let peak_rss_mib = peak_mib?;
        let steady_rss_mib = median(readings.iter().map(|r| r.rss_mib).collect())?;
        let heaps: Vec<HeapAfterGc> = readings.iter().filter_map(|r| r.heap).collect();
        let heap = (!heaps.is_empty()).then(|| HeapAfterGc {
            used_mib: median(heaps.iter().map(|h| h.used_mib).collect()).unwrap_or(0.0),
            total_mib: median(heaps.iter().map(|h| h.total_mib).collect()).unwrap_or(0.0),
            external_mib: median(heaps.iter().map(|h| h.external_mib).collect()).unwrap_or(0.0),
        });
        Some(RowMemory {
            steady_rss_mib,
            peak_rss_mib,
            heap,
            per_connection_kib: None,
            leak: LeakCheck::of(readings),
        })
    }
}

impl LeakCheck {
    /// The check over `readings`; `None` with fewer than
    /// [`LEAK_READINGS`] or no requests between them.
    pub fn of(readings: &[Reading]) -> Option<LeakCheck> {
        if readings.len() < LEAK_READINGS {
            return None;
        }
        let rss: Vec<(f64, f64)> = readings
            .iter()
            .map(|r| (r.served as f64, r.rss_mib * MIB))
            .collect();
        let rss_per_request = slope(&rss)?;
        let heap_points: Vec<(f64, f64)> = readings
            .iter()
            .filter_map(|r| Some((r.served as f64, r.heap?.used_mib * MIB)))
            .collect();
        let heap_per_request = (heap_points.len() == readings.len())
            .then(|| slope(&heap_points))
            .flatten();
        let flagged = match heap_per_request {
            Some(heap) => heap > HEAP_LEAK_BYTES_PER_REQUEST,
            None => rss_per_request > RSS_LEAK_BYTES_PER_REQUEST,
        };
        Some(LeakCheck {
            readings: readings.len(),
            rss_bytes_per_million: rss_per_request * 1e6,
            heap_bytes_per_million: heap_per_request.map(|b| b * 1e6),
            flagged,
        })
    }
}

/// The least-squares slope of y against x; `None` when x does not vary.
fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(served: u64, rss_mib: f64, used_mib: Option<f64>) -> Reading {
        Reading {
            served,
            rss_mib,
            heap: used_mib.map(|used_mib| HeapAfterGc {
                used_mib,
                total_mib: used_mib * 2.0,
                external_mib: 0.5,
            }),
        }
    }

    #[test]
    fn a_heap_that_grows_a_kib_per_request_is_flagged_one_that_does_not_is_not() {
        let kib_per_request = 1024.0 / MIB;
        let leaking: Vec<Reading> = (1..=4)
            .map(|k| {
                reading(
                    k * 100_000,
                    60.0 + k as f64,
                    Some(8.0 + (k * 100_000) as f64 * kib_per_request),
                )
            })
            .collect();
        let check = LeakCheck::of(&leaking).unwrap();
        assert!(check.flagged);
        let per_request = check.heap_bytes_per_million.unwrap() / 1e6;
        assert!((per_request - 1024.0).abs() < 1e-6, "{per_request}");

        // Up and down by a few KiB around the same size: no growth.
        let steady: Vec<Reading> = [8.0, 8.004, 7.998, 8.002]
            .iter()
            .enumerate()
            .map(|(k, used)| reading((k as u64 + 1) * 100_000, 60.0, Some(*used)))
            .collect();
        let check = LeakCheck::of(&steady).unwrap();
        assert!(!check.flagged, "{check:?}");
    }

    #[test]
    fn without_heap_figures_the_resident_set_decides_and_two_readings_are_too_few() {
        let rss_only: Vec<Reading> = (1..=3)
            .map(|k| reading(k * 10_000, 50.0 + k as f64, None))
            .collect();
        // 1 MiB per 10,000 requests: 105 bytes a request.
        let check = LeakCheck::of(&rss_only).unwrap();
        assert!(
            check.flagged && check.heap_bytes_per_million.is_none(),
            "{check:?}"
        );
        assert_eq!(LeakCheck::of(&rss_only[..2]), None);
    }

    #[test]
    fn the_steady_figures_are_medians() {
        let readings = [
            reading(1, 60.0, Some(8.0)),
            reading(2, 64.0, Some(9.0)),
            reading(3, 62.0, Some(10.0)),
        ];
        let memory = RowMemory::of(&readings, Some(80.0)).unwrap();
        assert_eq!(memory.steady_rss_mib, 62.0);
        assert_eq!(memory.heap.unwrap().used_mib, 9.0);
        assert_eq!(memory.peak_rss_mib, 80.0);
        assert_eq!(RowMemory::of(&readings, None), None);
        assert_eq!(RowMemory::of(&[], Some(80.0)), None);
    }
}
