//! fwbench's integration tests, in one test binary (ripgrep's layout): one
//! module per area, and one support module they share. One binary means
//! one link of the engine instead of one per area.
//!
//! - `host`: `fwbench serve`, the JS host and its hyper adapter over TCP;
//! - `frameworks`: the peer frameworks' apps and every built-in scenario;
//! - `bench`: `check`, `bench`, `sweep`, their reports and exit statuses;
//! - `load`: the load generator against in-process servers;
//! - `report`: the report writers and `compare` (golden files);
//! - `k8s`: `k8s-job`'s manifests against Kubernetes' schemas, and its
//!   pods' command run here.
//! - `projects`: unmodified npm projects served as on Node, and bad ones
//!   refused;
//! - `remote`: `bench --server-host` and segmented loads across network
//!   namespace hosts with a real sshd (needs root).

mod bench;
mod frameworks;
mod host;
mod k8s;
mod layout;
mod load;
mod projects;
mod remote;
mod report;
mod support;
