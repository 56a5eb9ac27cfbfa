/*!
The native hyper "hello" server: `GET` anything answers
`{"message":"hello"}` with `content-type: application/json`, over hyper 1's
HTTP/1.1 server with keep-alive. It is the floor every framework row is
compared with, and the server the load generator is benchmarked against.
*/

use std::convert::Infallible;
use std::future::Future;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// The response body.
pub const HELLO: &str = r#"{"message":"hello"}"#;

/// Accepts connections on `listener` and serves each on its own task until
/// `shutdown` completes; then stops accepting and returns (connections
/// still open finish on their tasks or when the runtime drops).
pub async fn serve(listener: TcpListener, shutdown: impl Future) {
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // EMFILE and the like: keep serving the open connections.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = &mut shutdown => return,
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service_fn(hello))
                .await;
        });
    }
}

async fn hello(_req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut resp = Response::new(Full::new(Bytes::from_static(HELLO.as_bytes())));
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(resp)
}
