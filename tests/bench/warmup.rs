//! `bench --warmup-curve`: from a row server's first request, latency per
//! block of 1,000 answers and where it settled. A fixture slow for its
//! first 5,000 requests must be found settling after them; how close to
//! 5,000 is a calibration test (benches/calibrate.sh), since tests running
//! side by side move a block's latency by more than the band.

use std::sync::OnceLock;

use serde_json::Value;

use super::{read_json, scratch};
use crate::support::{bench, fixture, fwbench};

/// The curve of one bench of the fixture, shared by the tests below.
fn curve() -> &'static Value {
    static CURVE: OnceLock<Value> = OnceLock::new();
    CURVE.get_or_init(curve_of_the_fixture)
}

fn curve_of_the_fixture() -> Value {
    let dir = scratch("bench-warmup-curve");
    let out = fwbench(
        bench(&dir)
            .frameworks("s200")
            .scenario(fixture("bench/anatomy/slow-start.js"))
            .duration("300ms")
            .warmup("100ms")
            .rounds(1)
            .skip_in_runtime()
            .set("--warmup-curve", "12000"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Warm-up from the server's first request"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<svg class=\"chart warmup\""), "no warm-up chart");
    read_json(&dir.join("report.json"))["rows"][0]["warmup_curve"].clone()
}

#[test]
fn a_row_slow_for_its_first_five_thousand_requests_settles_after_them() {
    let curve = curve();
    let blocks = curve["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 12, "{curve}");
    assert!(blocks.iter().all(|b| b["answers"] == 1000), "{curve}");
    // Twice the work per request at first: the first block is the slower.
    let first = blocks[0]["p50_us"].as_f64().unwrap();
    let last = curve["final_p50_us"].as_f64().unwrap();
    assert!(first > 1.5 * last, "first block p50 {first} µs, final {last} µs");
    // Not before the slow requests are over; a busy machine (tests side
    // by side) may keep the fast blocks from settling at all.
    if let Some(settled) = curve["steady"]["requests"].as_f64() {
        assert!(
            settled >= 0.8 * 5000.0,
            "settled after {settled} requests: {curve}"
        );
        assert!(curve["steady"]["seconds"].as_f64().unwrap() > 0.0, "{curve}");
    }
}

/// On a quiet machine the curve settles after 5,000 requests ± 20 %.
#[test]
#[ignore = "calibration: run on a quiet machine (benches/calibrate.sh)"]
fn calibration_a_slow_start_of_five_thousand_requests_reads_as_five_thousand() {
    let curve = curve();
    let settled = curve["steady"]["requests"].as_f64().expect("settled");
    assert!(
        (settled / 5000.0 - 1.0).abs() <= 0.2,
        "settled after {settled} requests, not about 5000: {curve}"
    );
}
