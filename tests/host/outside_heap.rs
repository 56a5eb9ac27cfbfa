//! Memory an app holds outside the JS heap (ArrayBuffer and
//! SharedArrayBuffer backing stores, Blobs) counts against a budget the
//! size of `--max-heap-mb`, per worker. Past it the allocation fails (on V8
//! the heap limit's 503 and rebuild, as V8 calls the heap-limit callback
//! before it gives up; a RangeError, so a 500, where fwbench refuses it),
//! the server's RSS stays bounded, and the worker serves on.

use std::time::Duration;

use crate::support::{fixture, Server};

const LIMIT_MIB: u64 = 64;

fn hostile() -> Server {
    Server::start(
        &fixture("hostile/app.js"),
        &[
            "--max-heap-mb",
            "64",
            "--cpu-limit",
            "2s",
            "--handler-timeout",
            "20s",
        ],
    )
}

/// Requests `path` five times (each would keep 128 MiB): every one must
/// fail, and RSS must grow by less than twice the limit.
fn kept_past_the_limit_is_refused(path: &str) {
    let server = hostile();
    assert_eq!(server.get("/ok").status, 200);
    let before = server.rss_kib();
    for round in 1..=5 {
        let status = server.get(path).status;
        assert!(
            status == 500 || status == 503,
            "{path}, round {round}: {status} (an error was expected)\n{}",
            server.stderr()
        );
        assert_eq!(server.get("/ok").status, 200, "{path}, round {round}");
    }
    let grown_kib = server.rss_kib().saturating_sub(before);
    assert!(
        grown_kib < 2 * LIMIT_MIB * 1024,
        "{path}: RSS grew by {grown_kib} KiB at --max-heap-mb {LIMIT_MIB}"
    );
    assert!(server.terminate() < Duration::from_secs(3));
}

#[test]
fn shared_array_buffers_past_the_limit_are_refused() {
    kept_past_the_limit_is_refused("/keep-shared-128-mib");
}

#[test]
fn array_buffers_past_the_limit_are_refused() {
    kept_past_the_limit_is_refused("/keep-array-buffer-128-mib");
}

/// Blobs are copied into deno_web's blob store, in Rust: each 16 MiB one
/// counts, and the fifth at the latest is refused with a RangeError.
#[test]
fn blobs_past_the_limit_are_refused() {
    let server = hostile();
    let mut kept = 0;
    let refused = loop {
        let response = server.get("/keep-blob-16-mib");
        if response.status != 200 {
            break response.status;
        }
        kept += 1;
        assert!(
            kept <= 4,
            "{kept} Blobs of 16 MiB kept at --max-heap-mb {LIMIT_MIB}"
        );
    };
    assert_eq!(refused, 500, "{}", server.stderr());
    let log = server.wait_for_log("RangeError: a Blob of", Duration::from_secs(5));
    assert!(log.contains("--max-heap-mb"), "{log}");
    assert_eq!(server.get("/ok").status, 200);
}

/// Below the budget an app keeps what it allocates, and what it lets go of
/// is given back: 4 × 8 MiB of SharedArrayBuffer, twice over.
#[test]
fn buffers_below_the_limit_are_kept() {
    let server = hostile();
    for round in 1..=2 {
        for _ in 0..4 {
            let response = server.get("/keep-shared-8-mib");
            assert_eq!(response.status, 200, "round {round}: {}", server.stderr());
        }
        assert_eq!(server.get("/let-go").status, 200);
    }
}

/// WebAssembly memories are allocated where no limit counts them (on V8
/// from the page allocator, not the ArrayBuffer allocator): WebAssembly is
/// not there at all.
#[test]
fn webassembly_memories_cannot_be_made() {
    let server = hostile();
    assert_eq!(server.get("/wasm-memory-128-mib").status, 500);
    let log = server.wait_for_log("WebAssembly", Duration::from_secs(5));
    assert!(log.contains("ReferenceError"), "{log}");
    assert_eq!(server.get("/ok").status, 200);
}
