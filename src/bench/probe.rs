//! One request to a row's server, read in full, to validate it against the
//! scenario's expectations before any load is sent.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{anyhow, Context};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};

use crate::scenario::{ScenarioRequest, SeenResponse};

/// Sends `request` to `addr` over a new HTTP/1.1 connection.
pub async fn send(
    addr: SocketAddr,
    request: &ScenarioRequest,
    timeout: Duration,
) -> anyhow::Result<SeenResponse> {
    tokio::time::timeout(timeout, send_inner(addr, request))
        .await
        .map_err(|_| anyhow!("no response within {timeout:?}"))?
}

async fn send_inner(addr: SocketAddr, spec: &ScenarioRequest) -> anyhow::Result<SeenResponse> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    let mut builder = http::Request::builder()
        .method(spec.method.as_str())
        .uri(&spec.path)
        .header(http::header::HOST, addr.to_string());
    for (name, value) in &spec.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let body = Full::new(Bytes::from(spec.body.clone().unwrap_or_default()));
    let request = builder
        .body(body)
        .with_context(|| format!("invalid scenario request {} {}", spec.method, spec.path))?;
    let response = sender.send_request(request).await.context("the request failed")?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = response
        .into_body()
        .collect()
        .await
        .context("reading the body failed")?
        .to_bytes();
    Ok(SeenResponse {
        status,
        headers,
        body: body.to_vec(),
    })
}
