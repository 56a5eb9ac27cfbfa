//! Native Rust rows: the built-in scenarios (hello, param, mw, and of the
//! others json-post, error, big-json, routes and routes-miss) served by
//! plain Rust, under the same adapter settings as the JS rows (the same
//! hyper HTTP/1.1 builder, worker model and listener), so the ratio to
//! `hyper` says what the JS layer costs.
//!
//! - `hyper`: one service function; its mw chain is tower layers around it;
//! - `axum`: a router, with the mw chain as axum middleware layers.
//!
//! In both, each link of the mw chain reads `x-test` and stamps `x-mw-<i>`
//! after the handler ran (the unwind), link 3 also storing its elapsed time,
//! as in scenarios/mw.js; the chain has five links, or `--depth` links.
//! The error scenario mounts the same five links under /api. What the
//! newer scenarios compute (an order summary, a users page, the route
//! table's answers) is shared by both rows (shapes.rs).
//!
//! `stream` has no native row: the rows' services answer a full body
//! (`Full<Bytes>`), and a streamed one would change the body type of every
//! scenario's service for one row.

mod axum_row;
mod hyper_row;
mod server;
mod shapes;

pub use server::start;
pub use shapes::{routes, Route};

/// A built-in scenario a native row implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// GET / → `{"message":"hello"}` as JSON.
    Hello,
    /// GET /user/:id → the id as text/plain.
    Param,
    /// GET /mw through this many links reading `x-test` and stamping
    /// `x-mw-<i>`.
    Mw(usize),
    /// POST /orders: parse the JSON order, answer 201 with its summary.
    JsonPost,
    /// GET /api/orders/:id through the five links: the handler fails, the
    /// links stamp the 500 JSON answer.
    Error,
    /// GET /users: a 16.3 KB JSON page built and serialized per request.
    BigJson,
    /// The 100-route GitHub table (scenarios routes and routes-miss: the
    /// same server, asked a different path).
    Routes,
}

/// The built-in scenarios the native rows implement, by name (the names
/// [`Scenario::from_name`] takes).
pub const SCENARIOS: &[&str] = &[
    "hello",
    "param",
    "mw",
    "json-post",
    "error",
    "big-json",
    "routes",
    "routes-miss",
];

/// The link that also stores its elapsed time, as in scenarios/mw.js.
const TIMED_LINK: usize = 3;

/// The mw chain's length when none is asked for (scenarios/mw.js's `depth`).
const MW_DEPTH: usize = 5;

impl Scenario {
    /// The scenario for a built-in name, its chain `depth` links long when
    /// given (mw only).
    pub fn from_name(name: &str, depth: Option<usize>) -> Result<Self, String> {
        let scenario = match name {
            "hello" => Self::Hello,
            "param" => Self::Param,
            "json-post" => Self::JsonPost,
            "error" => Self::Error,
            "big-json" => Self::BigJson,
            "routes" | "routes-miss" => Self::Routes,
            "mw" => return Ok(Self::Mw(depth.unwrap_or(MW_DEPTH))),
            _ => {
                return Err(format!(
                    "native rows implement only the built-in scenarios {}, not '{name}'",
                    SCENARIOS.join(", ")
                ))
            }
        };
        match depth {
            Some(_) => Err(format!("scenario '{name}' has no depth parameter (mw has)")),
            None => Ok(scenario),
        }
    }
}

/// The elapsed time of the rest of the chain, stored per request by link 3
/// (the JS chains' `ctx.state.elapsed`).
#[derive(Clone, Copy)]
struct Elapsed(#[allow(dead_code)] std::time::Duration);

/// The header link `i` stamps, `x-mw-<i>: <i>`.
fn link_header(i: usize) -> (http::HeaderName, http::HeaderValue) {
    let name = http::HeaderName::try_from(format!("x-mw-{i}")).expect("x-mw-<number> is a valid header name");
    (name, http::HeaderValue::from(i))
}

/// The hello body, byte for byte what the JS rows send.
const HELLO_JSON: &str = r#"{"message":"hello"}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_mw_takes_a_depth_and_defaults_to_five_links() {
        assert_eq!(Scenario::from_name("mw", None), Ok(Scenario::Mw(5)));
        assert_eq!(Scenario::from_name("mw", Some(0)), Ok(Scenario::Mw(0)));
        assert_eq!(Scenario::from_name("hello", None), Ok(Scenario::Hello));
        let error = Scenario::from_name("hello", Some(3)).unwrap_err();
        assert!(error.contains("has no depth parameter"), "{error}");
        let error = Scenario::from_name("echo", None).unwrap_err();
        assert!(error.contains("hello, param, mw, json-post"), "{error}");
        assert_eq!(Scenario::from_name("routes-miss", None), Ok(Scenario::Routes));
        assert_eq!(Scenario::from_name("stream", None).ok(), None);
    }

    #[test]
    fn link_headers_are_numbered() {
        let (name, value) = link_header(12);
        assert_eq!(name.as_str(), "x-mw-12");
        assert_eq!(value, "12");
    }
}
