//! Integration tests of `fwbench serve`: the embedded JS host and its hyper
//! adapter, driven over real TCP connections. One test binary, modules by
//! topic (ripgrep's layout).

mod faults;
mod framing;
mod globals;
mod hostile;
mod loading;
mod outside_heap;
mod property;
mod sandbox;
mod serve;
mod snapshot;
mod stopping;
mod webcrypto;
