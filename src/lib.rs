/*!
fwbench: host JavaScript web frameworks in embedded JS runtimes and
load-test them beside native Rust servers (see DESIGN.md).

This branch carries the load generator ([`load`]) and the native hyper
server ([`native`]); the binary in `main.rs` is only the CLI over them.
*/
#![deny(missing_docs)]

pub mod load;
pub mod native;
