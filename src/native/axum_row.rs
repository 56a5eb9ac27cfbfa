//! The `axum` row: a router per scenario (hello and param read `accept`,
//! as the JS apps do); the mw chain is `depth` axum
//! middleware layers, each reading `x-test` and stamping its header after
//! the handler ran (`next.run(request).await`, then write), the third also
//! storing its elapsed time.

use std::time::Instant;

use axum::extract::{Path, Request};
use axum::http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::{link_header, Elapsed, Scenario, HELLO_JSON, TIMED_LINK};

/// The router for `scenario`.
pub fn router(scenario: Scenario) -> Router {
    match scenario {
        Scenario::Hello => Router::new().route("/", get(hello_reading_accept)),
        Scenario::Param => Router::new().route("/user/{id}", get(user)),
        Scenario::Mw(depth) => {
            // Layers wrap outside-in: the last added runs first, so add
            // depth..1 to have link 1 outermost, as in the JS chains.
            (1..=depth)
                .rev()
                .fold(Router::new().route("/mw", get(hello)), |router, i| {
                    let (name, value) = link_header(i);
                    let timed = i == TIMED_LINK;
                    router.layer(middleware::from_fn(move |request, next| {
                        link(name.clone(), value.clone(), timed, request, next)
                    }))
                })
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

/// hello's handler: reads `accept`, as the JS apps do (scenarios/hello.js
/// says why), then answers as [`hello`]. `HeaderMap` as an extractor would
/// clone every header, so the handler reads them from the request.
async fn hello_reading_accept(request: Request) -> Response {
    std::hint::black_box(request.headers().get(ACCEPT));
    hello().await
}

async fn user(Path(id): Path<String>, request: Request) -> Response {
    std::hint::black_box(request.headers().get(ACCEPT));
    (
        [(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        id,
    )
        .into_response()
}

async fn link(name: HeaderName, value: HeaderValue, timed: bool, request: Request, next: Next) -> Response {
    std::hint::black_box(request.headers().get("x-test"));
    let started = timed.then(Instant::now);
    let mut response = next.run(request).await;
    if let Some(started) = started {
        response.extensions_mut().insert(Elapsed(started.elapsed()));
    }
    response.headers_mut().insert(name, value);
    response
}
