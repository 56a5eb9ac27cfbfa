//! hono-patched replaces its runtime's global Request and Response with
//! @hono/node-server's lightweight classes (overrideGlobalObjects). That
//! replacement must stay inside that runtime: another runtime in
//! the same process, and another row's process, keep the platform classes.

use std::thread::sleep;
use std::time::Duration;

use serde_json::Value;

use crate::support::{fixture, Connection, Server};

/// GET `path` on `conn`, as JSON.
fn get_json(conn: &mut Connection, path: &str) -> Value {
    conn.send("GET", path, &[], None);
    let response = conn.read_response().unwrap_or_else(|e| panic!("GET {path}: {e}"));
    assert_eq!(response.status, 200, "GET {path}: {}", response.text());
    serde_json::from_slice(&response.body).unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

fn replaced(globals: &Value) -> bool {
    let flags = ["requestReplaced", "responseReplaced", "lightweightResponse"].map(|key| &globals[key]);
    assert!(flags.iter().all(|flag| flag.is_boolean()), "{globals}");
    assert!(
        flags.iter().all(|flag| *flag == flags[0]),
        "all or nothing: {globals}"
    );
    flags[0] == true
}

/// Two workers are two runtimes (isolates) in one process. One is patched
/// the way the hono-patched row patches; the other must still have the
/// platform classes.
#[test]
fn patched_globals_do_not_reach_another_runtime_in_the_process() {
    let server = Server::start(&fixture("frameworks/isolation/app.js"), &["--workers", "2"]);
    // A connection is served by the worker that accepted it, so this one
    // stays with the runtime it patches.
    let mut patched_conn = Connection::open(&server.addr);
    let before = get_json(&mut patched_conn, "/globals");
    assert!(!replaced(&before), "nothing is patched at start: {before}");
    let patched = get_json(&mut patched_conn, "/patch");
    assert_eq!(patched["runtime"], before["runtime"]);
    assert!(
        replaced(&patched),
        "the patch took effect, so the test means something: {patched}"
    );
    assert!(replaced(&get_json(&mut patched_conn, "/globals")), "and it stays");

    // Reach the other runtime: while the patched one spins (its thread is
    // busy in JS), only the other worker can accept a new connection.
    for _ in 0..5 {
        patched_conn.send("GET", "/spin?ms=300", &[], None);
        sleep(Duration::from_millis(60));
        let other = get_json(&mut Connection::open(&server.addr), "/globals");
        let spun = patched_conn.read_response().expect("the spin answers");
        assert_eq!(spun.status, 200);
        if other["runtime"] == patched["runtime"] {
            continue; // accepted before the spin started; try again
        }
        assert!(
            !replaced(&other),
            "the other runtime keeps the platform classes: {other}"
        );
        return;
    }
    panic!("never reached the second worker\nstderr: {}", server.stderr());
}

/// The way bench runs rows: hono-patched and hono as two processes serving
/// the same scenario. The first has the lightweight classes, the second the
/// platform ones.
#[test]
fn a_hono_row_keeps_the_platform_globals_beside_a_hono_patched_row() {
    let scenario = fixture("frameworks/scenarios/globals.js");
    let patched = Server::scenario("hono-patched", &scenario);
    let plain = Server::scenario("hono", &scenario);
    let globals = |server: &Server| -> Value {
        let response = server.get("/globals");
        assert_eq!(response.status, 200, "{}", response.text());
        serde_json::from_slice(&response.body).unwrap()
    };
    let patched_globals = globals(&patched);
    assert!(replaced(&patched_globals), "hono-patched: {patched_globals}");
    let plain_globals = globals(&plain);
    assert!(!replaced(&plain_globals), "hono: {plain_globals}");
}
