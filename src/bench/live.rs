//! A row being measured: its running server, what it was started as,
//! and what bench keeps of it across its loads (the rounds, the warm-up
//! curve, the per-connection load).

use hdrhistogram::Histogram;

use super::server::ServerProcess;
use super::spec::ServerSpec;
use crate::report::RowKind;
use crate::scenario::ScenarioInfo;

/// A row being measured: its server and what to send it.
pub struct LiveRow {
    /// Its framework's (or app row's) name.
    pub framework: &'static str,
    /// Its scenario's label.
    pub scenario: String,
    /// JS or native.
    pub kind: RowKind,
    /// Its running server.
    pub server: ServerProcess,
    /// What its server was started as.
    pub spec: ServerSpec,
    /// The scenario's request and expectations.
    pub info: ScenarioInfo,
    /// Latency over all its rounds so far.
    pub histogram: Option<Histogram<u64>>,
    /// Requests it has answered in rounds so far, warm-ups included.
    pub served: u64,
}
