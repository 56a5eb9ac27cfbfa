/*!
Latency histograms: how they are sized, summarized and written out.

HdrHistogram with 3 significant digits over 1 µs ..= 60 s: about 140 KiB per
histogram whatever the number of samples, so a run's memory does not grow
with its length. Values above 60 s are clamped (a request that slow has hit
`--timeout` anyway).

[`write_percentiles`] writes the percentile distribution in the text format
of HdrHistogram's `outputPercentileDistribution` (Java), which its public
plotter and wrk2's `--latency` output share: a "Value Percentile TotalCount
1/(1-Percentile)" table followed by `#[Mean ...]`, `#[Max ...]` and
`#[Buckets ...]` lines.
*/

use std::io::{self, Write};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest value tracked, µs.
pub const MAX_US: u64 = 60_000_000;
const SIGFIGS: u8 = 3;

/// A new empty latency histogram (µs).
pub fn new() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_US, SIGFIGS).expect("constant histogram bounds are valid")
}

/// Records one latency, clamped to [`MAX_US`].
pub(crate) fn record(h: &mut Histogram<u64>, d: Duration) {
    h.saturating_record((d.as_micros() as u64).min(MAX_US));
}

/// `h` in HdrHistogram's own interchange form: the V2 compressed encoding,
/// in base64 (what HdrHistogram's log files and tools read), so runs can be
/// added later without losing a sample ([`decode`]).
pub fn encode(h: &Histogram<u64>) -> String {
    use base64::Engine as _;
    use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
    let mut bytes = Vec::new();
    // Writing into a Vec fails only on a histogram too large to encode,
    // which one with these bounds is not.
    if V2DeflateSerializer::new().serialize(h, &mut bytes).is_err() {
        return String::new();
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A histogram from [`encode`]'s form.
pub fn decode(text: &str) -> Result<Histogram<u64>, String> {
    use base64::Engine as _;
    use hdrhistogram::serialization::Deserializer;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|e| format!("not base64: {e}"))?;
    let plain = inflate(&bytes)?;
    check_header(&plain)?;
    Deserializer::new()
        .deserialize(&mut plain.as_slice())
        .map_err(|e| format!("not an HdrHistogram V2 encoding: {e:?}"))
}

/// The V2 cookies of the hdrhistogram crate: plain, and deflated (`encode`
/// writes the latter).
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_DEFLATE_COOKIE: u32 = 0x1c84_9314;

/// The most a histogram of [`new`]'s bounds takes encoded plain (about
/// 23,000 buckets of at most 9 bytes): past it an encoding is no such
/// histogram, whatever it inflates to.
const MAX_PLAIN_BYTES: u64 = 1 << 20;

/// The plain V2 encoding in `bytes`: as it is, or inflated with a cap (a
/// few kilobytes of deflate can claim gigabytes).
fn inflate(bytes: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let cookie = be_u32(bytes, 0).ok_or("too short for an HdrHistogram encoding")?;
    match cookie {
        V2_COOKIE => Ok(bytes.to_vec()),
        V2_DEFLATE_COOKIE => {
            let mut plain = Vec::new();
            flate2::read::ZlibDecoder::new(bytes.get(8..).unwrap_or_default())
                .take(MAX_PLAIN_BYTES + 1)
                .read_to_end(&mut plain)
                .map_err(|e| format!("its deflated payload does not inflate: {e}"))?;
            if plain.len() as u64 > MAX_PLAIN_BYTES {
                return Err(format!(
                    "it inflates past {} KiB, which no latency histogram does",
                    MAX_PLAIN_BYTES >> 10
                ));
            }
            Ok(plain)
        }
        _ => Err(format!("not an HdrHistogram V2 encoding (cookie {cookie:#x})")),
    }
}

/// Refuses an encoding whose bounds are not [`new`]'s before a histogram is
/// sized by them: a header claiming 5 significant digits up to 2^62 makes
/// one of gigabytes.
fn check_header(plain: &[u8]) -> Result<(), String> {
    // cookie, payload length, normalizing offset, significant digits (4
    // bytes each), lowest and highest trackable value (8 bytes each).
    let digits = be_u32(plain, 12).ok_or("its header is cut short")?;
    let lowest = be_u64(plain, 16).ok_or("its header is cut short")?;
    let highest = be_u64(plain, 24).ok_or("its header is cut short")?;
    if (digits, lowest, highest) != (u32::from(SIGFIGS), 1, MAX_US) {
        return Err(format!(
            "its bounds ({digits} digits, {lowest} ..= {highest} µs) are not a fwbench latency histogram's \
             ({SIGFIGS} digits, 1 ..= {MAX_US} µs)"
        ));
    }
    Ok(())
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be_u64(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// Adds `from` into `into` (same bounds, so it cannot fail).
pub(crate) fn add(into: &mut Histogram<u64>, from: &Histogram<u64>) {
    // Both come from `new()`: identical bounds never make `add` fail.
    let _ = into.add(from);
}

/// A latency distribution in microseconds (from an HDR histogram): what
/// `fwbench load` reports and what a bench report's rounds store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Arithmetic mean.
    pub mean: f64,
    /// Standard deviation.
    pub stdev: f64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// 99.99th percentile.
    pub p9999: u64,
    /// Largest value recorded.
    pub max: u64,
}

impl Percentiles {
    /// Summarizes `h`; all zero when it is empty.
    pub fn of(h: &Histogram<u64>) -> Percentiles {
        if h.is_empty() {
            return Percentiles::default();
        }
        Percentiles {
            mean: h.mean(),
            stdev: h.stdev(),
            p50: h.value_at_quantile(0.5),
            p90: h.value_at_quantile(0.9),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            p9999: h.value_at_quantile(0.9999),
            max: h.max(),
        }
    }
}

/// A latency distribution with its sample count, as `fwbench load` reports
/// it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LatencyStats {
    /// Number of samples.
    pub count: u64,
    /// The distribution, µs.
    pub percentiles: Percentiles,
}

impl LatencyStats {
    /// Summarizes `h`; all zero when it is empty.
    pub fn of(h: &Histogram<u64>) -> LatencyStats {
        LatencyStats {
            count: h.len(),
            percentiles: Percentiles::of(h),
        }
    }
}

/// `fwbench load --json` spells each figure with its unit (`p50_us`), as it
/// did before the figures were shared with the bench report.
impl Serialize for LatencyStats {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let p = &self.percentiles;
        let mut out = serializer.serialize_struct("LatencyStats", 9)?;
        out.serialize_field("count", &self.count)?;
        out.serialize_field("mean_us", &p.mean)?;
        out.serialize_field("stdev_us", &p.stdev)?;
        out.serialize_field("p50_us", &p.p50)?;
        out.serialize_field("p90_us", &p.p90)?;
        out.serialize_field("p99_us", &p.p99)?;
        out.serialize_field("p99_9_us", &p.p999)?;
        out.serialize_field("p99_99_us", &p.p9999)?;
        out.serialize_field("max_us", &p.max)?;
        out.end()
    }
}

/// Writes the percentile distribution of `h` (µs) in milliseconds, in
/// HdrHistogram's text format, with 5 ticks per half distance as
/// HdrHistogram and wrk2 do.
pub fn write_percentiles(h: &Histogram<u64>, w: &mut dyn Write) -> io::Result<()> {
    const SCALE: f64 = 1000.0;
    const TICKS: u32 = 5;
    let d = usize::from(SIGFIGS);
    writeln!(
        w,
        "{:>12} {:>14} {:>10} {:>14}\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    )?;
    let mut total = 0u64;
    if !h.is_empty() {
        for v in h.iter_quantiles(TICKS) {
            total += v.count_since_last_iteration();
            let value = v.value_iterated_to() as f64 / SCALE;
            let q = v.quantile_iterated_to();
            if q < 1.0 {
                writeln!(
                    w,
                    "{value:>12.d$} {q:>2.12} {total:>10} {:>14.2}",
                    1.0 / (1.0 - q)
                )?;
            } else {
                writeln!(w, "{value:>12.d$} {q:>2.12} {total:>10}")?;
            }
        }
    }
    let (mean, stdev) = if h.is_empty() {
        (0.0, 0.0)
    } else {
        (h.mean() / SCALE, h.stdev() / SCALE)
    };
    writeln!(w, "#[Mean    = {mean:>12.d$}, StdDeviation   = {stdev:>12.d$}]")?;
    writeln!(
        w,
        "#[Max     = {:>12.d$}, Total count    = {:>12}]",
        h.max() as f64 / SCALE,
        h.len()
    )?;
    // HdrHistogram's sub-bucket count: 2^ceil(log2(2 * 10^digits)), 2048
    // for 3 digits; the crate does not expose it.
    let sub_buckets = 1u64 << (2.0 * 10f64.powi(i32::from(h.sigfig()))).log2().ceil() as u32;
    writeln!(
        w,
        "#[Buckets = {:>12}, SubBuckets     = {:>12}]",
        h.buckets(),
        sub_buckets
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three runs' histograms, encoded and decoded, add up to the one
    /// histogram of all their samples: the same count at every value, so
    /// the same percentiles.
    #[test]
    fn encoded_histograms_add_up_without_loss() {
        let mut whole = new();
        let mut parts = Vec::new();
        for part in 0..3u64 {
            let mut h = new();
            for v in (1..=5000u64).filter(|v| v % 3 == part) {
                record(&mut h, Duration::from_micros(v * 7));
                record(&mut whole, Duration::from_micros(v * 7));
            }
            parts.push(encode(&h));
        }
        let mut merged = new();
        for text in &parts {
            add(&mut merged, &decode(text).expect("decodes"));
        }
        assert_eq!(merged, whole);
        assert_eq!(
            LatencyStats::of(&merged).percentiles.p99,
            LatencyStats::of(&whole).percentiles.p99
        );
        assert!(decode("not base64!").is_err());
        assert!(decode("aGVsbG8=").is_err(), "base64, but not a histogram");
    }

    /// A report read from a file is anyone's: its histogram's header must
    /// not size a histogram of gigabytes, nor its payload inflate to them.
    #[test]
    fn an_encoding_of_other_bounds_or_one_that_inflates_without_end_is_refused() {
        use base64::Engine as _;
        use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
        use std::io::Write as _;
        let wide = Histogram::<u64>::new_with_bounds(1, 1 << 40, 4).expect("bounds");
        let mut bytes = Vec::new();
        V2DeflateSerializer::new()
            .serialize(&wide, &mut bytes)
            .expect("encoded");
        let text = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let error = decode(&text).expect_err("other bounds");
        assert!(error.contains("are not a fwbench latency histogram's"), "{error}");

        let mut bomb = V2_DEFLATE_COOKIE.to_be_bytes().to_vec();
        bomb.extend(0u32.to_be_bytes());
        let mut deflate = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        deflate.write_all(&vec![0u8; 4 << 20]).expect("deflated");
        bomb.extend(deflate.finish().expect("deflated"));
        let text = base64::engine::general_purpose::STANDARD.encode(&bomb);
        let error = decode(&text).expect_err("inflates too far");
        assert!(error.contains("inflates past 1024 KiB"), "{error}");
    }

    #[test]
    fn stats_of_a_known_distribution() {
        let mut h = new();
        for v in 1..=1000u64 {
            record(&mut h, Duration::from_micros(v));
        }
        let s = LatencyStats::of(&h);
        assert_eq!(s.count, 1000);
        let p = s.percentiles;
        assert_eq!(p.p50, 500);
        assert_eq!(p.p90, 900);
        assert_eq!(p.p99, 990);
        assert_eq!(p.max, 1000);
        assert!((p.mean - 500.5).abs() < 0.5);
    }

    #[test]
    fn clamps_beyond_sixty_seconds() {
        let mut h = new();
        record(&mut h, Duration::from_secs(3600));
        assert!(h.max() >= MAX_US && h.max() < MAX_US + MAX_US / 500);
    }

    #[test]
    fn text_format_matches_hdrhistogram() {
        let mut h = new();
        // Below 2048 µs every value has a bucket of its own: exact figures.
        for v in [100u64, 200, 300, 400] {
            record(&mut h, Duration::from_micros(v));
        }
        let mut out = Vec::new();
        write_percentiles(&h, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "       Value     Percentile TotalCount 1/(1-Percentile)"
        );
        assert_eq!(lines[1], "");
        assert_eq!(lines[2], "       0.100 0.000000000000          1           1.00");
        // Like HdrHistogram, a value repeats until its quantile is passed.
        assert_eq!(lines[3], "       0.100 0.100000000000          1           1.11");
        let n = lines.len();
        assert_eq!(lines[n - 4], "       0.400 1.000000000000          4");
        assert_eq!(
            lines[n - 3],
            "#[Mean    =        0.250, StdDeviation   =        0.112]"
        );
        assert_eq!(
            lines[n - 2],
            "#[Max     =        0.400, Total count    =            4]"
        );
        assert_eq!(
            lines[n - 1],
            "#[Buckets =           16, SubBuckets     =         2048]"
        );
    }

    #[test]
    fn rows_show_highest_equivalent_values() {
        // Above 2048 µs buckets are 2 µs wide: 4000 reads as 4.001 ms, as
        // in HdrHistogram's own output.
        let mut h = new();
        record(&mut h, Duration::from_micros(4000));
        let mut out = Vec::new();
        write_percentiles(&h, &mut out).unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .contains("       4.001 1.000000000000          1\n"));
    }
}
