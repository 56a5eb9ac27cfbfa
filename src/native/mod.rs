//! Native Rust rows: the built-in scenarios (hello, param, mw) served by
//! plain Rust, under the same adapter settings as the JS rows (the same
//! hyper HTTP/1.1 builder, worker model and listener), so the ratio to
//! `hyper` says what the JS layer costs.
//!
//! - `hyper`: one service function;
//! - `axum`: a router, with the mw chain as five axum middleware layers,
//!   each stamping its header after the handler ran (the unwind).

mod axum_row;
mod hyper_row;
mod server;

pub use server::start;

/// A built-in scenario a native row implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// GET / → `{"message":"hello"}` as JSON.
    Hello,
    /// GET /user/:id → the id as text/plain.
    Param,
    /// GET /mw through five links reading `x-test` and stamping `x-mw-<i>`.
    Mw,
}

impl Scenario {
    /// The scenario for a built-in name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "hello" => Some(Self::Hello),
            "param" => Some(Self::Param),
            "mw" => Some(Self::Mw),
            _ => None,
        }
    }
}

/// The hello body, byte for byte what the JS rows send.
const HELLO_JSON: &str = r#"{"message":"hello"}"#;
