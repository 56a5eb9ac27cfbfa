//! A framework's cost without the transport: the same request handed to the
//! same app object again and again inside its runtime, with no socket, no
//! hyper and no connection task. Requests enter the request table as the
//! service would put them there, the driver dispatches them to JS exactly
//! as it does when serving (serve.js, the ops, the node bridge for
//! express and fastify), and the answers are taken from the table.
//!
//! So the figure is the app, the framework and the JS side of the adapter;
//! an HTTP row's server CPU per request minus it is what hyper, the kernel
//! and the connection tasks cost.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _};
use bytes::Bytes;
use http::{HeaderMap, Method};
use http_body_util::BodyExt;

use super::body::ReqBody;
use super::table::{full_url, RequestTable, Slot};
use super::worker::{expire_handlers, load, Driver};
use super::{AppSpec, ServeConfig};
use crate::engine::{HeapCounters, HeapSnapshot};
use crate::thread_cpu::ThreadCpuClock;

/// Requests in flight at once, like the HTTP row's default connections: a
/// handler that awaits (a fastify hook, a stream) still overlaps others.
const IN_FLIGHT: usize = 50;

/// The request to repeat.
#[derive(Debug, Clone)]
pub struct SyntheticRequest {
    /// Its method.
    pub method: Method,
    /// Path and query.
    pub path: String,
    /// Its headers (a Host is added when missing, `127.0.0.1:PORT` as over
    /// HTTP, and a Content-Length for a body that has none).
    pub headers: HeaderMap,
    /// Its body, given to the app whole; `None` for none.
    pub body: Option<Bytes>,
}

/// One answer, as the app gave it.
#[derive(Debug)]
pub struct Answer {
    /// Status code.
    pub status: u16,
    /// Headers.
    pub headers: HeaderMap,
    /// The whole body.
    pub body: Bytes,
}

/// What the measured part of a run did.
#[derive(Debug, Clone, Copy)]
pub struct InRuntimeRun {
    /// Requests answered in the measured part.
    pub requests: u64,
    /// The worker thread's CPU time over them.
    pub cpu: Duration,
    /// Their wall time.
    pub wall: Duration,
    /// Allocation and GC over them (None on engines without the hooks).
    pub heap: Option<HeapSnapshot>,
}

/// Loads `spec` and serves `request` to it for `warmup`, then for
/// `duration` (measured), handing every answer to `check`.
pub fn run(
    spec: &AppSpec,
    config: ServeConfig,
    request: &SyntheticRequest,
    warmup: Duration,
    duration: Duration,
    check: &mut dyn FnMut(Answer),
) -> anyhow::Result<InRuntimeRun> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start a tokio runtime")?;
    // The app sees what it would see served over HTTP: a real port on
    // loopback, held for the run (nothing is accepted on it), in its URL,
    // `Host` and the host's port. With port 0 and a portless Host an app
    // could tell it was being measured in the runtime and act otherwise.
    let stand_in = std::net::TcpListener::bind("127.0.0.1:0").context("cannot take a loopback port")?;
    let port = stand_in
        .local_addr()
        .context("cannot take a loopback port")?
        .port();
    let authority = format!("127.0.0.1:{port}");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let table = Rc::new(RequestTable::new(config, port));
        let heap = Arc::new(HeapCounters::default());
        let (mut driver, _style) = load(spec, &table, &heap)
            .await
            .with_context(|| format!("failed to load {}", spec.display))?;
        // A handler that never answers gets its 504, as when serving.
        let sweep = tokio::task::spawn_local(expire_handlers(table.clone()));
        let clock = ThreadCpuClock::CALLING_THREAD;
        repeat(&mut driver, &table, &authority, request, warmup, check).await?;
        let (cpu_before, heap_before) = (clock.read(), published(&heap, &mut driver));
        let started = Instant::now();
        let requests = repeat(&mut driver, &table, &authority, request, duration, check).await?;
        let wall = started.elapsed();
        let cpu = clock
            .read()
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before))
            .ok_or_else(|| anyhow!("cannot read this thread's CPU clock"))?;
        let heap = heap_before
            .zip(published(&heap, &mut driver))
            .map(|(before, after)| after.since(&before));
        sweep.abort();
        Ok(InRuntimeRun {
            requests,
            cpu,
            wall,
            heap,
        })
    })
}

/// The heap counters with the allocation total published now.
fn published(heap: &HeapCounters, driver: &mut Driver) -> Option<HeapSnapshot> {
    if !crate::engine::heap_stats_enabled() {
        return None;
    }
    heap.request_publish();
    driver.publish_heap();
    Some(heap.snapshot())
}

/// Keeps [`IN_FLIGHT`] copies of `request` in the table for `how_long`,
/// then waits for the last answers; returns how many were answered.
async fn repeat(
    driver: &mut Driver,
    table: &RequestTable,
    authority: &str,
    request: &SyntheticRequest,
    how_long: Duration,
    check: &mut dyn FnMut(Answer),
) -> anyhow::Result<u64> {
    let host =
        http::HeaderValue::from_str(authority).context("the stand-in authority is not a header value")?;
    let end = Instant::now() + how_long;
    let mut waiting: Vec<u32> = Vec::with_capacity(IN_FLIGHT);
    let mut answered = 0;
    loop {
        let sending = Instant::now() < end;
        while sending && waiting.len() < IN_FLIGHT {
            let mut headers = request.headers.clone();
            if !headers.contains_key(http::header::HOST) {
                headers.insert(http::header::HOST, host.clone());
            }
            if let Some(body) = &request.body {
                // Frameworks decide whether a request has a body from its
                // framing headers, as an HTTP client would have sent them.
                if !headers.contains_key(http::header::CONTENT_LENGTH)
                    && !headers.contains_key(http::header::TRANSFER_ENCODING)
                {
                    headers.insert(http::header::CONTENT_LENGTH, body.len().into());
                }
            }
            let slot = Slot::new(
                request.method.clone(),
                full_url(authority, &request.path),
                headers,
                request.body.clone().map(ReqBody::Whole),
            );
            waiting.push(table.submit(slot));
        }
        if waiting.is_empty() {
            return Ok(answered);
        }
        let done = poll_fn(|cx| {
            if let Poll::Ready(why) = driver.poll(cx, table) {
                return Poll::Ready(Err(anyhow!("the runtime had to be replaced: {why:?}")));
            }
            let mut done = Vec::new();
            waiting.retain(|&id| match table.poll_answer(id, cx) {
                Poll::Ready(response) => {
                    done.push(response);
                    false
                }
                Poll::Pending => true,
            });
            if done.is_empty() {
                Poll::Pending
            } else {
                Poll::Ready(Ok(done))
            }
        })
        .await?;
        for response in done {
            let (parts, body) = response.into_parts();
            // A streamed body is written by JS: keep the driver running
            // while it is read.
            let mut collect = pin!(body.collect());
            let body = poll_fn(|cx| {
                if let Poll::Ready(why) = driver.poll(cx, table) {
                    return Poll::Ready(Err(anyhow!("the runtime had to be replaced: {why:?}")));
                }
                collect
                    .as_mut()
                    .poll(cx)
                    .map(|r| r.map_err(|e| anyhow!("the app's response body failed: {e}")))
            })
            .await?
            .to_bytes();
            answered += 1;
            check(Answer {
                status: parts.status.as_u16(),
                headers: parts.headers,
                body,
            });
        }
    }
}
