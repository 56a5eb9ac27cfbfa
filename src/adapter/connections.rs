//! Accepting and serving HTTP/1.1 connections: the one piece of server code
//! the JS adapter and the native rows share, so every row of a benchmark
//! gets the same accept loop, the same hyper settings, the same slow-client
//! answer and the same shutdown. Only the service differs.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use http::{Request, Response};
use hyper::body::{Body, Incoming};
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper_util::rt::TokioIo;
use slab::Slab;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::heads::{Framed, GuardedIo, HeadGuard};
use super::timer::WatchedTimer;
use super::{ServeConfig, DEFAULT_MAX_HEADERS, DRAIN, MIN_HEADER_BYTES};

/// The HTTP/1.1 connection settings every server uses, JS rows and native
/// rows alike: keep-alive, the request-head limits and the slow-client
/// timeout.
fn http1_builder(config: &ServeConfig, timer: WatchedTimer) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(timer)
        .header_read_timeout(config.header_read_timeout)
        .max_buf_size(head_limit(config))
        .keep_alive(true);
    if config.max_headers != DEFAULT_MAX_HEADERS {
        builder.max_headers(config.max_headers);
    }
    builder
}

/// The most bytes of a request head: `--max-header-bytes`; `serve`
/// refuses less than hyper's smallest buffer, and a config built in code is
/// raised to it, as hyper would panic below it.
fn head_limit(config: &ServeConfig) -> usize {
    config.max_header_bytes.max(MIN_HEADER_BYTES)
}

/// Turns a worker's handle on the shared listening socket into a tokio
/// listener on the worker's own runtime.
pub fn worker_listener(listener: std::net::TcpListener) -> std::io::Result<TcpListener> {
    listener.set_nonblocking(true)?;
    TcpListener::from_std(listener)
}

/// Accepts connections until `shutdown` turns true, serving each on the
/// current `LocalSet` with a service from `make_service`; then lets open
/// connections finish their current request ([`DRAIN`] at most).
pub async fn serve<F, S, B>(
    listener: TcpListener,
    config: &ServeConfig,
    mut shutdown: watch::Receiver<bool>,
    mut make_service: F,
) where
    F: FnMut() -> S,
    S: Service<Request<Incoming>, Response = Response<B>> + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    B: Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut connections = JoinSet::new();
    let stop = Rc::new(StopSignal::default());
    // The header-read timeouts of all this worker's connections.
    let timer = WatchedTimer::default();
    let mut watchman = AbortOnDrop(tokio::task::spawn_local(timer.clone().watch()));
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let served =
                        connection(stream, config, timer.clone(), make_service(), stop.clone());
                    connections.spawn_local(served);
                }
                Err(error) => {
                    // Out of file descriptors and the like: back off rather
                    // than spin.
                    eprintln!("fwbench: accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = shutdown.wait_for(|stop| *stop) => break,
            ended = &mut watchman.0 => {
                // It never ends on its own, so it panicked; without it no
                // header-read timeout fires. Stop serving rather than
                // serve without them.
                eprintln!("fwbench: the header-timeout watchman stopped ({ended:?}); the worker stops");
                break;
            }
        }
        while connections.try_join_next().is_some() {}
    }
    stop.stop();
    let _ = tokio::time::timeout(DRAIN, async { while connections.join_next().await.is_some() {} }).await;
}

/// The stop of one worker's connections: a flag set once, and the wakers
/// of the connections waiting for it, each registered when it changes.
/// Not a `watch` receiver per connection: every wake-up of a connection
/// task polls its stop future again, and a waiting receiver's poll takes
/// the channel's lock, on every request.
#[derive(Default)]
struct StopSignal {
    stopped: Cell<bool>,
    waiters: RefCell<Slab<Waker>>,
}

impl StopSignal {
    /// Sets the flag and wakes every waiting connection.
    fn stop(&self) {
        self.stopped.set(true);
        let waiters = std::mem::take(&mut *self.waiters.borrow_mut());
        for (_, waker) in waiters {
            waker.wake();
        }
    }
}

/// Resolves once its [`StopSignal`] is set.
struct Stopped {
    signal: Rc<StopSignal>,
    /// Its place in `waiters`, once polled.
    key: Option<usize>,
}

impl Stopped {
    fn new(signal: Rc<StopSignal>) -> Self {
        Self { signal, key: None }
    }
}

impl Future for Stopped {
    type Output = ();

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let signal = &this.signal;
        if signal.stopped.get() {
            return Poll::Ready(());
        }
        let mut waiters = signal.waiters.borrow_mut();
        match this.key.and_then(|key| waiters.get_mut(key)) {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            Some(waker) => *waker = cx.waker().clone(),
            None => this.key = Some(waiters.insert(cx.waker().clone())),
        }
        Poll::Pending
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        if let (Some(key), false) = (self.key, self.signal.stopped.get()) {
            self.signal.waiters.borrow_mut().try_remove(key);
        }
    }
}

/// Aborts a task when dropped: `serve`'s helper task ends with `serve`,
/// also when `serve` itself is dropped unfinished.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves one connection until it closes or shutdown is asked.
fn connection<S, B>(
    stream: TcpStream,
    config: &ServeConfig,
    timer: WatchedTimer,
    service: S,
    stop: Rc<StopSignal>,
) -> impl Future<Output = ()> + 'static
where
    S: Service<Request<Incoming>, Response = Response<B>> + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    B: Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let _ = stream.set_nodelay(true);
    let header_read_timeout = config.header_read_timeout;
    // Request heads are checked for bare LFs and their size before hyper
    // reads them.
    let guard = Rc::new(RefCell::new(HeadGuard::new(head_limit(config))));
    let io = TokioIo::new(GuardedIo::new(stream, guard.clone()));
    let mut conn = http1_builder(config, timer).serve_connection(io, Framed::new(service, guard));
    async move {
        tokio::select! {
            // In this order, not a random one: the random pick draws from a
            // thread-local generator on every poll of the connection. The
            // stop is still polled whenever the connection is pending.
            biased;
            result = &mut conn => {
                // Malformed requests: hyper answered 4xx or closed. A header
                // timeout hyper only closes; answer it here.
                let timed_out = result.as_ref().is_err_and(hyper::Error::is_timeout);
                let parts = conn.into_parts();
                if timed_out {
                    request_timeout(parts, header_read_timeout).await;
                } else {
                    linger(parts.io.into_inner().into_inner()).await;
                }
            }
            () = Stopped::new(stop) => {
                std::pin::Pin::new(&mut conn).graceful_shutdown();
                let _ = conn.await;
            }
        }
    }
}

/// How long a closed connection's socket is read and drained at most (see
/// [`linger`]).
const LINGER: Duration = Duration::from_secs(1);

/// Closes a connection hyper is done with gently. hyper has written its
/// last answer, but bytes the client sent that nobody read (the rest of a
/// request body the app left unread, a pipelined request) would make the
/// kernel answer the close with a reset, which drops the part of the answer
/// still in the send queue: a client reading a large answer slowly got it
/// cut short (found by the property test, tests/host/property/). So the
/// write side is shut (the client reads to the end) and the read side is
/// drained until the client closes, for [`LINGER`] at most, as nginx's
/// lingering close does. A client that closed first costs one read.
async fn linger(mut stream: TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let _ = tokio::time::timeout(LINGER, async {
        let _ = stream.shutdown().await;
        let mut sink = vec![0u8; 16 * 1024];
        while matches!(stream.read(&mut sink).await, Ok(read) if read > 0) {}
    })
    .await;
}

/// Answers 408 on a connection whose client started a request head but did
/// not finish it within `--header-read-timeout`, then closes it. An idle
/// keep-alive connection (nothing sent) is closed without a word, so a
/// client sending its next request just then cannot take the 408 for its
/// answer.
async fn request_timeout<S>(parts: http1::Parts<TokioIo<GuardedIo<TcpStream>>, S>, limit: Duration) {
    use tokio::io::AsyncWriteExt;
    if parts.read_buf.is_empty() {
        return;
    }
    let body = format!("the request head did not arrive within {limit:?}\n");
    let response = format!(
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = parts.io.into_inner().into_inner();
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_wakes_every_waiting_connection_and_a_gone_one_frees_its_place() {
        let signal = Rc::new(StopSignal::default());
        let mut cx = Context::from_waker(Waker::noop());
        let mut first = Box::pin(Stopped::new(signal.clone()));
        let mut second = Box::pin(Stopped::new(signal.clone()));
        assert!(first.as_mut().poll(&mut cx).is_pending());
        assert!(second.as_mut().poll(&mut cx).is_pending());
        // Polled again (a connection's every wake-up): same place.
        assert!(first.as_mut().poll(&mut cx).is_pending());
        assert_eq!(signal.waiters.borrow().len(), 2);
        let place = second.key;
        drop(second);
        assert_eq!(signal.waiters.borrow().len(), 1);
        let mut third = Box::pin(Stopped::new(signal.clone()));
        assert!(third.as_mut().poll(&mut cx).is_pending());
        assert_eq!(third.key, place, "the gone one's place is reused");
        signal.stop();
        assert!(first.as_mut().poll(&mut cx).is_ready());
        assert!(third.as_mut().poll(&mut cx).is_ready());
        assert!(Box::pin(Stopped::new(signal)).as_mut().poll(&mut cx).is_ready());
    }
}
