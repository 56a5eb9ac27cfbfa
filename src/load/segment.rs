//! Load segments: the K-th of N equal parts of one load, so that N load
//! generators (on other machines, or in other network namespaces) together
//! send exactly the load one would (`fwbench load --segment K/N`), and
//! `fwbench merge` adds their reports back into one.
//!
//! Each quantity is cut at the points `floor(total × i / N)` (k6's execution
//! segments do the same): part K gets the difference between its two cut
//! points, so the N parts add up to the whole exactly, and no two parts
//! differ by more than one (connection, request).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The most segments a load may be cut into.
pub const MAX_SEGMENTS: u32 = 1000;

/// The variable in which Kubernetes hands each pod of an Indexed Job its
/// completion index, 0-based (`load --segment-from-job-index N` reads it).
pub const JOB_INDEX_VAR: &str = "JOB_COMPLETION_INDEX";

/// Part `k` (1-based) of `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// Which part, 1 ..= n.
    pub k: u32,
    /// Into how many parts.
    pub n: u32,
}

impl Segment {
    /// This segment's share of a whole count.
    pub fn of_count(&self, total: u64) -> u64 {
        let cut = |i: u32| (u128::from(total) * u128::from(i) / u128::from(self.n)) as u64;
        cut(self.k) - cut(self.k - 1)
    }

    /// The segment of a pod in an Indexed Job of `n` pods, from the text of
    /// its [`JOB_INDEX_VAR`] (`None`: unset). The index is 0-based and K is
    /// 1-based, so index `i` runs part `i + 1` of `n`: the pods 0 ..= n-1
    /// together run parts 1 ..= n, each once.
    pub fn from_job_index(index: Option<&str>, n: u32) -> Result<Segment, String> {
        let flag = format!("--segment-from-job-index {n}");
        if n == 0 || n > MAX_SEGMENTS {
            return Err(format!("{flag}: N must be from 1 to {MAX_SEGMENTS}"));
        }
        let Some(text) = index else {
            return Err(format!(
                "{flag}: {JOB_INDEX_VAR} is not set; Kubernetes sets it in each pod of an Indexed \
                 Job (fwbench k8s-job writes one); elsewhere use --segment K/N"
            ));
        };
        let index: u32 = text.trim().parse().map_err(|_| {
            format!(
                "{flag}: {JOB_INDEX_VAR} is {text:?}, not a whole number from 0 to {}",
                n - 1
            )
        })?;
        if index >= n {
            return Err(format!(
                "{flag}: {JOB_INDEX_VAR} is {index}, but a Job of {n} pods numbers them 0 to {}; \
                 are the Job's completions and this N the same?",
                n - 1
            ));
        }
        Ok(Segment { k: index + 1, n })
    }

    /// This segment's share of a rate (requests per second).
    pub fn of_rate(&self, total: f64) -> f64 {
        let cut = |i: u32| total * f64::from(i) / f64::from(self.n);
        cut(self.k) - cut(self.k - 1)
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl FromStr for Segment {
    type Err = String;

    fn from_str(text: &str) -> Result<Segment, String> {
        let bad = || format!("--segment takes K/N, e.g. 2/3 (part 2 of 3), got {text:?}");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if n == 0 || n > MAX_SEGMENTS {
            return Err(format!("--segment {text}: N must be from 1 to {MAX_SEGMENTS}"));
        }
        if k == 0 || k > n {
            return Err(format!("--segment {text}: K must be from 1 to N ({n})"));
        }
        Ok(Segment { k, n })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(total: u64, n: u32) -> Vec<u64> {
        (1..=n).map(|k| Segment { k, n }.of_count(total)).collect()
    }

    #[test]
    fn the_parts_add_up_to_the_whole_and_differ_by_at_most_one() {
        assert_eq!(parts(50, 3), vec![16, 17, 17]);
        assert_eq!(parts(10, 4), vec![2, 3, 2, 3]);
        for (total, n) in [(1, 1), (7, 7), (100, 3), (1_000_003, 17), (u64::MAX, 5)] {
            let split = parts(total, n);
            let sum: u128 = split.iter().map(|&p| u128::from(p)).sum();
            assert_eq!(sum, u128::from(total), "{total} in {n}");
            let (lo, hi) = (split.iter().min().unwrap(), split.iter().max().unwrap());
            assert!(hi - lo <= 1, "{split:?}");
        }
        let rates: f64 = (1..=3).map(|k| Segment { k, n: 3 }.of_rate(1000.0)).sum();
        assert!((rates - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn a_job_index_from_0_runs_the_segment_from_1() {
        let of_3 = |index: &str| Segment::from_job_index(Some(index), 3);
        assert_eq!(of_3("0"), Ok(Segment { k: 1, n: 3 }));
        assert_eq!(of_3("2"), Ok(Segment { k: 3, n: 3 }));
        assert_eq!(
            Segment::from_job_index(Some("999"), MAX_SEGMENTS).map(|s| s.k),
            Ok(1000)
        );
        assert!(of_3("3").unwrap_err().contains("0 to 2"));
        assert!(of_3("-1").unwrap_err().contains("not a whole number"));
        assert!(Segment::from_job_index(None, 3)
            .unwrap_err()
            .contains("is not set"));
        assert!(Segment::from_job_index(Some("0"), 0)
            .unwrap_err()
            .contains("from 1 to"));
        assert!(Segment::from_job_index(Some("0"), MAX_SEGMENTS + 1).is_err());
    }

    #[test]
    fn segments_parse_as_k_of_n_and_refuse_the_rest() {
        assert_eq!("2/3".parse(), Ok(Segment { k: 2, n: 3 }));
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/1001", ""] {
            assert!(bad.parse::<Segment>().is_err(), "{bad}");
        }
    }
}
