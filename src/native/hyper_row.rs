//! The `hyper` row: one service function, no framework. Its mw scenario does
//! the chain's work inline (five reads of `x-test`, the timing store, five
//! headers stamped after the response exists).

use std::convert::Infallible;
use std::time::Instant;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::{Request, Response, StatusCode};
use http_body_util::Full;

use super::{Scenario, HELLO_JSON};

/// Answers one request for `scenario`.
pub async fn handle<B>(scenario: Scenario, request: Request<B>) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path();
    let response = match (scenario, path) {
        (Scenario::Hello, "/") => json(HELLO_JSON),
        (Scenario::Param, _) if path.starts_with("/user/") && path.len() > "/user/".len() => {
            let id = &path["/user/".len()..];
            if id.contains('/') {
                not_found()
            } else {
                text(id.to_owned())
            }
        }
        (Scenario::Mw, "/mw") => {
            let started = Instant::now();
            for _ in 0..5 {
                std::hint::black_box(request.headers().get("x-test"));
            }
            let mut response = json(HELLO_JSON);
            let headers = response.headers_mut();
            for (name, value) in [
                ("x-mw-5", "5"),
                ("x-mw-4", "4"),
                ("x-mw-3", "3"),
                ("x-mw-2", "2"),
                ("x-mw-1", "1"),
            ] {
                headers.insert(name, HeaderValue::from_static(value));
            }
            std::hint::black_box(started.elapsed());
            response
        }
        _ => not_found(),
    };
    Ok(response)
}

fn json(body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn text(body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn not_found() -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(b"Not Found")));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
