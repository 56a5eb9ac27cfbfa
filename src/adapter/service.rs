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
    let authority = parts
        .headers
        .get(http::header::HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or(&host);
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
