//! The `axum` row: a router per scenario; the mw chain is five axum
//! middleware layers, each reading `x-test` and stamping its header after
//! the handler ran (`next.run(request).await`, then write), the third also
//! storing its elapsed time in the request's extensions.

use std::time::Instant;

use axum::extract::{Path, Request};
use axum::http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::{Scenario, HELLO_JSON};

/// The router for `scenario`.
pub fn router(scenario: Scenario) -> Router {
    match scenario {
        Scenario::Hello => Router::new().route("/", get(hello)),
        Scenario::Param => Router::new().route("/user/{id}", get(user)),
        Scenario::Mw => {
            // Layers wrap outside-in: the last added runs first, so add 5..1
            // to have link 1 outermost, as in the JS chains.
            Router::new()
                .route("/mw", get(hello))
                .layer(middleware::from_fn(|r, n| link(5, r, n)))
                .layer(middleware::from_fn(|r, n| link(4, r, n)))
                .layer(middleware::from_fn(timed_link))
                .layer(middleware::from_fn(|r, n| link(2, r, n)))
                .layer(middleware::from_fn(|r, n| link(1, r, n)))
        }
    }
}

async fn hello() -> Response {
    (
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        HELLO_JSON,
    )
        .into_response()
}

async fn user(Path(id): Path<String>) -> Response {
    (
        [(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        id,
    )
        .into_response()
}

const NAMES: [&str; 6] = ["", "x-mw-1", "x-mw-2", "x-mw-3", "x-mw-4", "x-mw-5"];
const VALUES: [&str; 6] = ["", "1", "2", "3", "4", "5"];

async fn link(i: usize, request: Request, next: Next) -> Response {
    std::hint::black_box(request.headers().get("x-test"));
    let mut response = next.run(request).await;
    response.headers_mut().insert(
        HeaderName::from_static(NAMES[i]),
        HeaderValue::from_static(VALUES[i]),
    );
    response
}

/// Elapsed time of the rest of the chain, stored per request (the third
/// link's `ctx.state.elapsed` in the JS chains).
#[derive(Clone, Copy)]
struct Elapsed(#[allow(dead_code)] std::time::Duration);

async fn timed_link(mut request: Request, next: Next) -> Response {
    std::hint::black_box(request.headers().get("x-test"));
    let started = Instant::now();
    request
        .extensions_mut()
        .insert(Elapsed(std::time::Duration::ZERO));
    let mut response = next.run(request).await;
    response.extensions_mut().insert(Elapsed(started.elapsed()));
    response
        .headers_mut()
        .insert(HeaderName::from_static("x-mw-3"), HeaderValue::from_static("3"));
    response
}
