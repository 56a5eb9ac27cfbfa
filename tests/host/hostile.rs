//! App code that tries to hang, bloat or fake its way past the host's
//! limits: each gets the documented answer and the worker goes on serving.

use std::time::{Duration, Instant};

use crate::support::{fixture, Connection, Server};

fn hostile(extra: &[&str]) -> Server {
    Server::start(&fixture("hostile/app.js"), extra)
}

#[test]
fn atomics_wait_cannot_block_the_worker() {
    let server = hostile(&["--cpu-limit", "1s", "--handler-timeout", "3s"]);
    let response = server.get("/atomics-wait");
    assert_eq!(response.status, 500, "{}", server.stderr());
    let log = server.wait_for_log("Atomics.wait", Duration::from_secs(5));
    assert!(log.contains("TypeError"), "{log}");
    assert_eq!(server.get("/ok").status, 200);
    assert!(server.terminate() < Duration::from_secs(3));
}

#[test]
fn big_allocations_are_stopped_at_the_heap_limit() {
    let server = hostile(&[
        "--max-heap-mb",
        "64",
        "--cpu-limit",
        "1s",
        "--handler-timeout",
        "20s",
    ]);
    let started = Instant::now();
    let response = server.get("/big-strings");
    assert_eq!(response.status, 503, "{}", server.stderr());
    // Generous: before the heap was capped this took 25 s and gigabytes.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(server.rss_kib() < 1 << 20, "RSS {} KiB", server.rss_kib());
    assert_eq!(server.get("/ok").status, 200);
}

/// One allocation bigger than the heap limit, made by one builtin call:
/// QuickJS fails it at once; V8, whose limit is looser (it takes one such
/// string into an empty heap), stops the next one in the larger room it
/// grants. Either way a 503 within two tries, and the worker goes on.
#[test]
fn a_single_allocation_past_the_heap_limit_is_stopped() {
    let server = hostile(&["--max-heap-mb", "64", "--cpu-limit", "1s"]);
    for path in ["/one-huge-string", "/one-huge-string-later"] {
        let mut statuses = Vec::new();
        while statuses.len() < 2 && statuses.last() != Some(&503) {
            statuses.push(server.get(path).status);
            assert_eq!(server.get("/ok").status, 200, "after {path}");
        }
        assert_eq!(
            statuses.last(),
            Some(&503),
            "{path}: {statuses:?} {}",
            server.stderr()
        );
    }
    let log = server.wait_for_log("heap limit", Duration::from_secs(5));
    assert!(log.contains("--max-heap-mb"), "{log}");
    assert!(server.rss_kib() < 1 << 20, "RSS {} KiB", server.rss_kib());
    assert!(server.terminate() < Duration::from_secs(3));
}

/// One string bigger than the room the engine is granted to unwind in:
/// QuickJS fails it at once; V8 lets it in (the first large object of its
/// young generation is taken whatever its size) and finds it at the next
/// collection, which rebuilds the runtime. Before that check the heap kept
/// it past the limit and the collection after the next such string aborted
/// the process.
#[test]
fn a_string_past_the_unwinding_room_does_not_end_the_server() {
    let server = hostile(&["--max-heap-mb", "64", "--cpu-limit", "1s"]);
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(server.get("/string-past-the-room").status);
        assert_eq!(server.get("/ok").status, 200, "{statuses:?} {}", server.stderr());
    }
    assert!(statuses.contains(&503), "{statuses:?} {}", server.stderr());
    let log = server.wait_for_log("heap limit", Duration::from_secs(5));
    assert!(log.contains("--max-heap-mb"), "{log}");
    assert!(server.rss_kib() < 1 << 20, "RSS {} KiB", server.rss_kib());
    assert!(server.terminate() < Duration::from_secs(3));
}

/// 256 MiB of zeros, gzipped: about 256 KiB, under `--max-body-bytes`.
fn gzip_bomb() -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..256 {
        encoder.write_all(&zeros).unwrap();
    }
    encoder.finish().unwrap()
}

/// Buffers the host makes for the app (a `DecompressionStream`'s output,
/// `TextEncoder.encode`'s results) count against the worker's budget for
/// memory outside the JS heap: past it the app gets a `RangeError` (on
/// QuickJS-ng, whose heap holds the strings being encoded, the heap
/// limit's 503 may come first), and the worker goes on. Before, a 256 KiB gzip body kept 256 MiB at a 64 MiB
/// limit and answered 200.
#[test]
fn buffers_the_host_makes_count_against_the_memory_limit() {
    let server = hostile(&["--max-heap-mb", "64", "--cpu-limit", "2s"]);
    let bomb = gzip_bomb();
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    let inflated = server.request("POST", "/inflate-kept", &[], Some(&bomb));
    assert_eq!(inflated.status, 500, "{} {}", inflated.text(), server.stderr());
    let log = server.wait_for_log("outside the JS heap", Duration::from_secs(5));
    assert!(log.contains("--max-heap-mb"), "{log}");
    assert_eq!(server.get("/ok").status, 200);

    let encoded = server.get("/encode-kept");
    let text = encoded.text();
    if cfg!(feature = "v8") {
        assert_eq!(encoded.status, 500, "{text}");
        assert!(
            text.starts_with("RangeError") && text.contains("outside the JS heap"),
            "{text}"
        );
    } else {
        // QuickJS-ng: the 8 MiB strings being encoded fill its heap first
        // (the heap limit's 503), or the encoded bytes its budget.
        assert!(matches!(encoded.status, 500 | 503), "{} {text}", encoded.status);
    }
    assert!(server.rss_kib() < 400 << 10, "RSS {} KiB", server.rss_kib());
    assert_eq!(server.get("/ok").status, 200);
    assert!(server.terminate() < Duration::from_secs(3));
}

// On the QuickJS backend (the v8x crate) a torn-down runtime does not free
// all the app kept: large strings and arrays not at all, many small objects
// in part (a third of them, measured), whether made at load or by a
// handler. Each rebuild leaks that (here about 100 MiB), which no limit in
// fwbench can bound. The heap limit itself holds (the tests above).
#[test]
#[cfg_attr(
    not(feature = "v8"),
    ignore = "v8x leaks a torn-down QuickJS runtime's objects"
)]
fn rss_stays_bounded_across_heap_limit_rebuilds() {
    let server = hostile(&[
        "--max-heap-mb",
        "64",
        "--cpu-limit",
        "1s",
        "--handler-timeout",
        "20s",
    ]);
    assert_eq!(server.get("/big-strings").status, 503, "{}", server.stderr());
    assert_eq!(server.get("/ok").status, 200);
    let after_first = server.rss_kib();
    for round in 2..=10 {
        assert_eq!(server.get("/big-strings").status, 503, "round {round}");
        assert_eq!(server.get("/ok").status, 200, "round {round}");
    }
    let after_tenth = server.rss_kib();
    assert!(
        after_tenth <= 2 * after_first,
        "RSS {after_first} KiB after the first rebuild, {after_tenth} KiB after the tenth"
    );
}

#[test]
fn a_stream_interrupted_in_js_does_not_end_like_a_complete_body() {
    let server = hostile(&["--cpu-limit", "300ms"]);
    let mut conn = Connection::open(&server.addr);
    conn.send("GET", "/stream-spins", &[], None);
    let read = conn.read_response();
    assert!(
        read.is_err(),
        "the client must see a cut body, not a complete one: {read:?}"
    );
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn a_stream_that_fails_behind_a_slow_client_is_cut_off() {
    let server = hostile(&[]);
    let mut conn = Connection::open(&server.addr);
    conn.send("GET", "/stream-fails-after-40-mib", &[], None);
    // Let the stream fill its channel and fail before reading anything.
    server.wait_for_log("response stream failed", Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(500));
    let read = conn.read_response();
    assert!(
        read.is_err(),
        "the client must see a cut body, not a complete one: {:?}",
        read.map(|r| r.body.len())
    );
    assert_eq!(server.get("/ok").status, 200);
}

#[test]
fn an_informational_status_from_the_app_is_a_500() {
    let server = hostile(&[]);
    let response = server.get("/switching-protocols");
    assert_eq!(response.status, 500);
    let log = server.wait_for_log("101", Duration::from_secs(5));
    assert!(log.contains("GET /switching-protocols -> 500"), "{log}");
    assert_eq!(server.get("/ok").status, 200);
}

/// A built-in that loops in native code ignores the CPU limit's interrupt.
/// The worker can never answer again, so the server says why and exits
/// (status 70) soon after the limit plus a second's grace, instead of
/// hanging with its port open.
#[test]
fn a_native_loop_the_interrupt_cannot_reach_ends_the_server_with_a_reason() {
    let server = hostile(&["--cpu-limit", "300ms", "--handler-timeout", "30s"]);
    let started = Instant::now();
    let mut connection = Connection::open(&server.addr);
    connection.send("GET", "/native-loop", &[], None);
    assert!(connection.read_response().is_err(), "no answer can come");
    let log = server.wait_for_log("cannot be interrupted", Duration::from_secs(15));
    assert!(log.contains("exiting with status 70"), "{log}");
    let status = server
        .wait_for_exit(Duration::from_secs(5))
        .expect("the server exits");
    assert_eq!(status.code(), Some(70));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// A size past V8's own limits is a fatal error of the engine, which it
/// answers by aborting the process (a bare SIGTRAP, status 133, nothing on
/// stderr fwbench wrote). The server says why and exits with status 71.
#[test]
#[cfg_attr(
    not(feature = "v8"),
    ignore = "V8's fatal errors: QuickJS-ng throws a RangeError here"
)]
fn a_size_past_the_engines_limits_ends_the_server_with_a_reason() {
    let server = hostile(&[]);
    let mut connection = Connection::open(&server.addr);
    connection.send("GET", "/sort-past-array-limits", &[], None);
    assert!(connection.read_response().is_err(), "no answer can come");
    let log = server.wait_for_log("the JS engine", Duration::from_secs(15));
    assert!(log.contains("exiting with status 71"), "{log}");
    let status = server
        .wait_for_exit(Duration::from_secs(5))
        .expect("the server exits");
    assert_eq!(status.code(), Some(71));
}

/// The same loop at a module's top level: `serve` ends with the reason
/// instead of hanging with no banner.
#[test]
fn a_native_loop_at_load_ends_serve_with_a_reason() {
    let app = fixture("hostile/native_loop_at_load.js");
    let out = crate::support::fwbench_within(
        [
            "serve",
            app.to_str().unwrap(),
            "--port",
            "0",
            "--cpu-limit",
            "300ms",
        ],
        Duration::from_secs(20),
    )
    .expect("serve must not hang on a native loop at load");
    assert_eq!(
        out.status.code(),
        Some(70),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be interrupted"));
}
