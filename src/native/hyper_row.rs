//! The `hyper` row: one service function, no framework. Its mw chain is
//! `depth` tower layers around that function, the way hyper apps add
//! middleware: each reads `x-test`, awaits the inner service and stamps its
//! header on the response (link 3 also stores its elapsed time). The depth
//! is chosen at run time, so each layer is boxed: a link costs a boxed
//! future per request and, since hyper-util's `TowerToHyperService` clones
//! the service for every request, a boxed clone. The error scenario runs
//! the same five links around a handler whose failure is turned into its
//! 500 JSON answer where it happens (a hyper service has no error handler
//! of its own: an `Err` would close the connection); the routes scenario
//! tries the GitHub table's routes in order, as a router-less app would.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Incoming};
use tower::util::BoxCloneService;
use tower::{Layer, Service};

use super::shapes::{self, Order};
use super::{link_header, Elapsed, Scenario, HELLO_JSON, TIMED_LINK};

/// The mw chain as one service: `depth` [`LinkLayer`]s, link 1 outermost.
pub type Chain = BoxCloneService<Request<Incoming>, Response<Full<Bytes>>, Infallible>;

/// Answers one request for `scenario` (for mw and error, the handler at
/// the chain's end).
pub async fn handle<B>(scenario: Scenario, request: Request<B>) -> Result<Response<Full<Bytes>>, Infallible>
where
    B: Body,
    B::Error: std::fmt::Display,
{
    if scenario == Scenario::JsonPost {
        return Ok(json_post(request).await);
    }
    if matches!(scenario, Scenario::Hello | Scenario::Param) {
        // hello and param read `accept`, as their JS apps do (mw's links
        // read `x-test` instead): scenarios/hello.js says why.
        std::hint::black_box(request.headers().get(ACCEPT));
    }
    let path = request.uri().path();
    let response = match (scenario, path) {
        (Scenario::Hello, "/") | (Scenario::Mw(_), "/mw") => json(HELLO_JSON),
        (Scenario::Param, _) if path.starts_with("/user/") && path.len() > "/user/".len() => {
            let id = &path["/user/".len()..];
            if id.contains('/') {
                not_found()
            } else {
                text(id.to_owned())
            }
        }
        (Scenario::Error, _) => match path.strip_prefix("/api/orders/") {
            Some(id) if !id.is_empty() && !id.contains('/') => match shapes::load_order(id) {
                Ok(order) => json_owned(StatusCode::OK, order),
                Err(error) => json_owned(StatusCode::INTERNAL_SERVER_ERROR, shapes::error_json(&error)),
            },
            _ => not_found(),
        },
        (Scenario::BigJson, "/users") => json_owned(StatusCode::OK, shapes::users_page()),
        (Scenario::Routes, _) => match shapes::find_route(request.method().as_str(), path) {
            Some((route, params)) => json_owned(StatusCode::OK, shapes::route_answer(&route.id, params)),
            None => json_owned(StatusCode::NOT_FOUND, shapes::NOT_FOUND_JSON),
        },
        _ => not_found(),
    };
    Ok(response)
}

/// json-post: the body collected and parsed into an [`Order`], answered
/// with its summary (201), 422 for another currency, 400 for a body that
/// is not an order.
async fn json_post<B>(request: Request<B>) -> Response<Full<Bytes>>
where
    B: Body,
    B::Error: std::fmt::Display,
{
    if request.method() != Method::POST || request.uri().path() != "/orders" {
        return not_found();
    }
    let bytes = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => return bad_request(format!("cannot read the body: {error}")),
    };
    match serde_json::from_slice::<Order>(&bytes) {
        Ok(order) => match shapes::summarize(&order) {
            Some(summary) => json_owned(StatusCode::CREATED, summary),
            None => json_owned(StatusCode::UNPROCESSABLE_ENTITY, shapes::REFUSED_JSON),
        },
        Err(error) => bad_request(format!("not an order: {error}")),
    }
}

/// `scenario`'s handler inside `depth` links (mw, and error's five).
pub fn chain(scenario: Scenario, depth: usize) -> Chain {
    let handler = tower::service_fn(move |request| handle(scenario, request));
    // Wrap inside-out, so that link 1 is outermost, as in the JS chains.
    (1..=depth).rev().fold(BoxCloneService::new(handler), |inner, i| {
        BoxCloneService::new(LinkLayer::new(i).layer(inner))
    })
}

/// Adds link `i` of the chain around a service.
struct LinkLayer {
    name: HeaderName,
    value: HeaderValue,
    timed: bool,
}

impl LinkLayer {
    fn new(i: usize) -> Self {
        let (name, value) = link_header(i);
        LinkLayer {
            name,
            value,
            timed: i == TIMED_LINK,
        }
    }
}

impl Layer<Chain> for LinkLayer {
    type Service = Link;

    fn layer(&self, inner: Chain) -> Link {
        Link {
            name: self.name.clone(),
            value: self.value.clone(),
            timed: self.timed,
            inner,
        }
    }
}

/// One link: reads `x-test`, calls the rest of the chain, stamps its header.
#[derive(Clone)]
struct Link {
    name: HeaderName,
    value: HeaderValue,
    timed: bool,
    inner: Chain,
}

impl Service<Request<Incoming>> for Link {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        std::hint::black_box(request.headers().get("x-test"));
        let started = self.timed.then(Instant::now);
        // `inner` was readied by poll_ready and is called here, not from
        // the future, so no ready clone needs handing over (tower's
        // clone-and-replace idiom would clone the rest of the chain at every
        // link: a cost quadratic in the depth).
        let response = self.inner.call(request);
        let (name, value) = (self.name.clone(), self.value.clone());
        Box::pin(async move {
            let mut response = response.await?;
            if let Some(started) = started {
                response.extensions_mut().insert(Elapsed(started.elapsed()));
            }
            response.headers_mut().insert(name, value);
            Ok(response)
        })
    }
}

fn json(body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn json_owned(status: StatusCode, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn bad_request(message: String) -> Response<Full<Bytes>> {
    let mut response = text(message);
    *response.status_mut() = StatusCode::BAD_REQUEST;
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
