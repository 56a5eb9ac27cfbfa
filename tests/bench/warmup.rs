//! `bench --warmup-curve`: from a row server's first request, latency per
//! block of 1,000 answers and where it settled. A fixture slow for its
//! first 5,000 requests must be found settling after about 5,000.

use super::{read_json, scratch};
use crate::support::{bench, fixture, fwbench};

#[test]
fn a_row_slow_for_its_first_five_thousand_requests_settles_after_about_five_thousand() {
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
    let report = read_json(&dir.join("report.json"));
    let curve = &report["rows"][0]["warmup_curve"];
    let blocks = curve["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 12, "{curve}");
    assert!(blocks.iter().all(|b| b["answers"] == 1000), "{curve}");
    // Twice the work per request at first: the first block is the slower.
    let first = blocks[0]["p50_us"].as_f64().unwrap();
    let last = curve["final_p50_us"].as_f64().unwrap();
    assert!(first > 1.5 * last, "first block p50 {first} µs, final {last} µs");
    let settled = curve["steady"]["requests"].as_f64().expect("settled");
    assert!(
        (settled / 5000.0 - 1.0).abs() <= 0.2,
        "settled after {settled} requests, not about 5000: {curve}"
    );
    assert!(curve["steady"]["seconds"].as_f64().unwrap() > 0.0, "{curve}");

    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<svg class=\"chart warmup\""), "no warm-up chart");
}
