//! The `axum` row: a router per scenario (hello and param read `accept`,
//! as the JS apps do); the mw chain is `depth` axum
//! middleware layers, each reading `x-test` and stamping its header after
//! the handler ran (`next.run(request).await`, then write), the third also
//! storing its elapsed time. The error scenario mounts the same five links
//! around a handler returning `Result<_, AppError>`, whose `IntoResponse`
//! is the 500 JSON answer (axum's error idiom); routes registers the GitHub
//! table with `{param}` paths and a JSON `fallback` for the rest.

use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{Path, Request};
use axum::http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, on, post, MethodFilter};
use axum::Router;

use super::shapes::{self, Order, StoreUnavailable};
use super::{link_header, Elapsed, Scenario, HELLO_JSON, MW_DEPTH, TIMED_LINK};

/// The router for `scenario`.
pub fn router(scenario: Scenario) -> Router {
    match scenario {
        Scenario::Hello => Router::new().route("/", get(hello_reading_accept)),
        Scenario::Param => Router::new().route("/user/{id}", get(user)),
        Scenario::Mw(depth) => with_links(Router::new().route("/mw", get(hello)), depth),
        Scenario::Error => with_links(Router::new().route("/api/orders/{id}", get(order)), MW_DEPTH),
        Scenario::JsonPost => Router::new().route("/orders", post(json_post)),
        Scenario::BigJson => Router::new().route("/users", get(users)),
        Scenario::Routes => routes(),
    }
}

/// `router` inside `depth` links.
fn with_links(router: Router, depth: usize) -> Router {
    // Layers wrap outside-in: the last added runs first, so add depth..1 to
    // have link 1 outermost, as in the JS chains.
    (1..=depth).rev().fold(router, |router, i| {
        let (name, value) = link_header(i);
        let timed = i == TIMED_LINK;
        router.layer(middleware::from_fn(move |request, next| {
            link(name.clone(), value.clone(), timed, request, next)
        }))
    })
}

/// The GitHub table, in the JS apps' order; axum's router (matchit) picks a
/// literal segment over a parameter whatever the order.
fn routes() -> Router {
    let router = shapes::routes().iter().fold(Router::new(), |router, route| {
        let filter = match route.method.as_str() {
            "GET" => MethodFilter::GET,
            "POST" => MethodFilter::POST,
            "PUT" => MethodFilter::PUT,
            "PATCH" => MethodFilter::PATCH,
            "DELETE" => MethodFilter::DELETE,
            other => panic!("scenarios/data/github-routes.js: unexpected method {other}"),
        };
        let path: Vec<String> = route
            .path
            .split('/')
            .map(|segment| match segment.strip_prefix(':') {
                Some(name) => format!("{{{name}}}"),
                None => segment.to_owned(),
            })
            .collect();
        let id = route.id.as_str();
        router.route(
            &path.join("/"),
            on(
                filter,
                move |Path(params): Path<Vec<(String, String)>>| async move {
                    json(
                        StatusCode::OK,
                        shapes::route_answer(id, params.iter().map(|(n, v)| (n.as_str(), v.as_str()))),
                    )
                },
            ),
        )
    });
    router.fallback(|| async { json(StatusCode::NOT_FOUND, shapes::NOT_FOUND_JSON) })
}

fn json(status: StatusCode, body: impl Into<Bytes>) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body.into(),
    )
        .into_response()
}

async fn hello() -> Response {
    json(StatusCode::OK, HELLO_JSON)
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

/// The error scenario's failure, answered as its 500 JSON body.
struct AppError(StoreUnavailable);

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        json(StatusCode::INTERNAL_SERVER_ERROR, shapes::error_json(&self.0))
    }
}

async fn order(Path(id): Path<String>) -> Result<Response, AppError> {
    let order = shapes::load_order(&id).map_err(AppError)?;
    Ok(json(StatusCode::OK, order))
}

/// json-post. axum's `Json` extractor needs its `json` feature (and the
/// serde_path_to_error crate); the body is parsed with serde_json as that
/// extractor does, after the same content-type check.
async fn json_post(request: Request) -> Response {
    let is_json = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !is_json {
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, "expected application/json").into_response();
    }
    let bytes = match axum::body::to_bytes(request.into_body(), usize::MAX).await {
        Ok(bytes) => bytes,
        Err(error) => {
            return (StatusCode::BAD_REQUEST, format!("cannot read the body: {error}")).into_response()
        }
    };
    match serde_json::from_slice::<Order>(&bytes) {
        Ok(order) => match shapes::summarize(&order) {
            Some(summary) => json(StatusCode::CREATED, summary),
            None => json(StatusCode::UNPROCESSABLE_ENTITY, shapes::REFUSED_JSON),
        },
        Err(error) => (StatusCode::BAD_REQUEST, format!("not an order: {error}")).into_response(),
    }
}

async fn users() -> Response {
    json(StatusCode::OK, shapes::users_page())
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
