//! The hyper side of one request: checks, hand-off to the worker's JS
//! runtime, and the wait for its answer (bounded by `--handler-timeout`).

use std::convert::Infallible;
use std::rc::Rc;

use http::{Request, Response, StatusCode};
use hyper::body::{Body, Incoming};

use super::body::ResBody;
use super::bridge::{plain_response, Slot, WorkerShared};

/// Removes a request from the table if the service future is dropped (the
/// client disconnected) or gives up, so a handler that never settles cannot
/// leak its slot.
struct Forget<'a>(&'a WorkerShared, u32);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.0.forget(self.1);
    }
}

/// The authority of the URL the app sees: the request target's (absolute
/// form), else the one `Host` header, else the listener's address. `Host`
/// must be a plain `host[:port]`: it is spliced in front of the path, so
/// anything else (`a/admin?`, `a#`, `user@a`, two headers) would let the
/// client rewrite the path the app routes on. `None`: answer 400.
fn authority<'a>(parts: &'a http::request::Parts, listener: &'a str) -> Option<&'a str> {
    if let Some(authority) = parts.uri.authority() {
        return Some(authority.as_str());
    }
    let mut hosts = parts.headers.get_all(http::header::HOST).iter();
    let Some(host) = hosts.next() else {
        return Some(listener);
    };
    let host = host.to_str().ok()?;
    let parsed: http::uri::Authority = host.parse().ok()?;
    (hosts.next().is_none() && parsed.as_str() == host && !host.contains('@')).then_some(host)
}

/// Answers one request through the worker's JS app.
pub async fn handle(
    shared: Rc<WorkerShared>,
    request: Request<Incoming>,
    host: Rc<str>,
) -> Result<Response<ResBody>, Infallible> {
    let limit = shared.config.max_body_bytes;
    if let Some(length) = request.body().size_hint().exact() {
        if length > limit as u64 {
            return Ok(plain_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request body of {length} bytes exceeds the limit of {limit}"),
            ));
        }
    }
    let (parts, body) = request.into_parts();
    let Some(authority) = authority(&parts, &host) else {
        return Ok(plain_response(
            StatusCode::BAD_REQUEST,
            "the Host header is not a host[:port]",
        ));
    };
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("http://{authority}{path}");
    let (tx, rx) = tokio::sync::oneshot::channel();
    let has_body = !body.is_end_stream();
    let id = shared.submit(Slot {
        method: parts.method,
        url,
        headers: parts.headers,
        body: has_body.then_some(body),
        body_read: 0,
        reply: Some(tx),
    });
    let _forget = Forget(&shared, id);
    let timeout = shared.config.handler_timeout;
    Ok(match tokio::time::timeout(timeout, rx).await {
        Ok(Ok(response)) => response,
        Ok(Err(_)) => plain_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "the JS runtime was restarted while handling this request",
        ),
        Err(_) => {
            eprintln!(
                "fwbench: handler did not respond within {timeout:?} (--handler-timeout); answered 504"
            );
            plain_response(StatusCode::GATEWAY_TIMEOUT, "the handler did not respond in time")
        }
    })
}
