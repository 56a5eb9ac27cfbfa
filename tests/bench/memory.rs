//! Memory per row in every bench report: the resident set, the JS heap
//! after a full collection, the memory one more connection costs, and the
//! leak check. A fixture that keeps 1 KiB per request must be flagged
//! with a slope near 1 KiB a request; the same app keeping nothing must
//! not be.

use super::{read_json, scratch};
use crate::support::{bench, fixture, fwbench};

#[test]
fn a_kib_kept_per_request_is_flagged_as_such_and_an_app_that_keeps_nothing_is_not() {
    let dir = scratch("bench-memory");
    let out = fwbench(
        bench(&dir)
            .frameworks("s200,hyper")
            .only("hello")
            .scenario(fixture("bench/anatomy/keeps-1k.js"))
            .scenario(fixture("bench/anatomy/plain.js"))
            .duration("1s")
            .warmup("300ms")
            .rounds(3)
            .skip_in_runtime()
            .set("--memory-connections", "200"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Memory per row"), "{stdout}");
    let report = read_json(&dir.join("report.json"));
    let memory = |framework: &str, scenario: &str| {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["framework"] == framework && row["scenario"] == scenario)
            .map(|row| row["memory"].clone())
            .unwrap_or_else(|| panic!("no row {framework} × {scenario}"))
    };

    let leaking = memory("s200", "keeps-1k");
    let leak = &leaking["leak"];
    assert_eq!(leak["flagged"], true, "{leaking}");
    // The heap's slope on V8; QuickJS-ng has no heap figures, and its
    // resident set's slope decides.
    let slope = if cfg!(feature = "v8") {
        &leak["heap_bytes_per_million"]
    } else {
        &leak["rss_bytes_per_million"]
    };
    let per_request = slope.as_f64().unwrap() / 1e6;
    assert!(
        (per_request / 1024.0 - 1.0).abs() <= 0.3,
        "kept {per_request:.0} bytes a request, not about 1024: {leaking}"
    );

    let plain = memory("s200", "plain");
    assert_eq!(plain["leak"]["flagged"], false, "{plain}");
    let heap = &plain["heap"];
    if cfg!(feature = "v8") {
        let (used, total) = (
            heap["used_mib"].as_f64().unwrap(),
            heap["total_mib"].as_f64().unwrap(),
        );
        assert!(used > 0.0 && used <= total, "{plain}");
        assert!(heap["external_mib"].as_f64().is_some(), "{plain}");
    } else {
        assert!(heap.is_null(), "QuickJS-ng makes up no heap figure: {plain}");
    }
    assert!(
        plain["steady_rss_mib"].as_f64().unwrap() <= plain["peak_rss_mib"].as_f64().unwrap(),
        "{plain}"
    );
    // 150 more connections than the rounds' 50: each costs some memory.
    assert!(plain["per_connection_kib"].as_f64().unwrap() > 0.0, "{plain}");

    // A native row: its resident set, no JS heap.
    let native = memory("hyper", "hello");
    assert!(native["steady_rss_mib"].as_f64().unwrap() > 0.0, "{native}");
    assert!(native["heap"].is_null(), "{native}");
    assert!(native["leak"]["rss_bytes_per_million"].is_number(), "{native}");
}

#[test]
fn too_few_memory_connections_are_refused() {
    let dir = scratch("bench-memory-refused");
    let out = fwbench(bench(&dir).frameworks("hyper").set("--memory-connections", "10"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("must be above --connections"), "{stderr}");
}
