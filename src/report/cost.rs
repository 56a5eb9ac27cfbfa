/*!
What a request costs, as a round records it (the server's and the client's
CPU time per request, the JS heap's allocation and collection, the
requests' time in the server) and as `serve --in-runtime` measures it
without the transport. Plain data, read and written by every other part
of the report: this file imports nothing of the crate.

A figure the engine cannot give (QuickJS-ng has no GC hooks, a native row
has no JS heap) is absent, never made up.
*/

use serde::{Deserialize, Serialize};

/// What one round's requests cost, per request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RequestCost {
    /// The server process's user-space CPU time per answered request, µs.
    pub server_user_us: f64,
    /// Its kernel time per answered request, µs.
    pub server_system_us: f64,
    /// The load generator's CPU time per request it sent, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_us: Option<f64>,
    /// The JS heap's side; absent for native rows and engines without the
    /// hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap: Option<HeapCost>,
    /// The requests' time in the server; absent for native rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_time: Option<ServerTime>,
}

impl RequestCost {
    /// User plus kernel time per request, µs.
    pub fn server_us(&self) -> f64 {
        self.server_user_us + self.server_system_us
    }
}

/// Allocation and garbage collection over a round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeapCost {
    /// Bytes allocated on the JS heap per answered request.
    pub bytes_per_request: f64,
    /// GC pause time per answered request, µs.
    pub gc_us: f64,
    /// GC pause time as a share of the server's CPU time (0 to 1).
    pub gc_share: f64,
    /// Young-generation collections in the round.
    pub young_gcs: u64,
    /// Full collections in the round.
    pub full_gcs: u64,
    /// The longest single pause in the round, µs.
    pub longest_pause_us: f64,
}

/// The requests' time in the server, from arrival (the parsed head handed
/// to the app's worker) to answer (the app's response committed), and
/// whether the tail is garbage collection: the share of the requests
/// slower than this p99 that a GC pause overlapped, beside the share of all
/// requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ServerTime {
    /// The median, µs.
    pub p50_us: f64,
    /// The 99th percentile, µs.
    pub p99_us: f64,
    /// Requests slower than the p99 in the round.
    pub slower_than_p99: u64,
    /// The share of those a GC pause overlapped (0 to 1); absent on an
    /// engine without GC hooks, or with no request past the p99.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_in_gc: Option<f64>,
    /// The share of all requests a GC pause overlapped (0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_in_gc: Option<f64>,
}

/// A JS row's request served inside its runtime, with no transport (`serve
/// --in-runtime`), once after the rounds, pinned like the row's server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InRuntimeCost {
    /// Requests measured.
    pub requests: u64,
    /// CPU µs per request: the app, the framework and the adapter's JS side.
    pub cpu_us: f64,
    /// Bytes allocated on the JS heap per request (V8 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_request: Option<f64>,
    /// GC pause µs per request (V8 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_us: Option<f64>,
    /// Answers that differed from the scenario's expectation.
    pub mismatches: u64,
    /// Why the measurement could not be made, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
