//! In-process servers for the load generator's integration tests, each on
//! `127.0.0.1:0` (mini-redis's `start_server()` shape) and on its own thread
//! and runtime, so stopping one closes every connection it holds.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// What a scripted hyper server does with request number `i` (from 0).
pub enum Action {
    /// Answer with this status, body and extra headers.
    Respond(u16, &'static str, Vec<(&'static str, &'static str)>),
    /// Wait, then answer 200 "hello".
    Stall(Duration),
    /// Close the connection without answering.
    Drop,
}

/// A running test server; stops (closing all its connections) on drop.
pub struct Server {
    pub addr: SocketAddr,
    /// Requests received so far.
    pub requests: Arc<AtomicU64>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Stops the server now: the listener and every connection close.
    pub fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs `serve(listener, requests, shutdown)` on a thread of its own with a
/// current-thread runtime; dropping the runtime closes every connection.
fn spawn<F, Fut>(serve: F) -> Server
where
    F: FnOnce(TcpListener, Arc<AtomicU64>, oneshot::Receiver<()>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + 'static,
{
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    std_listener.set_nonblocking(true).expect("nonblocking");
    let addr = std_listener.local_addr().expect("local addr");
    let requests = Arc::new(AtomicU64::new(0));
    let (tx, rx) = oneshot::channel();
    let counter = requests.clone();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("server runtime");
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            let listener = TcpListener::from_std(std_listener).expect("listener");
            serve(listener, counter, rx).await;
        });
    });
    Server {
        addr,
        requests,
        stop: Some(tx),
        thread: Some(thread),
    }
}

/// A hello server: `{"message":"hello"}` as JSON for every request.
pub fn hello() -> Server {
    scripted(|_| {
        Action::Respond(
            200,
            r#"{"message":"hello"}"#,
            vec![("content-type", "application/json")],
        )
    })
}

/// A hyper server that asks `script` what to do with each request.
pub fn scripted(script: impl Fn(u64) -> Action + Send + Sync + 'static) -> Server {
    let script = Arc::new(script);
    spawn(move |listener, requests, mut shutdown| async move {
        loop {
            let stream = tokio::select! {
                r = listener.accept() => match r { Ok((s, _)) => s, Err(_) => continue },
                _ = &mut shutdown => return,
            };
            let script = script.clone();
            let requests = requests.clone();
            tokio::task::spawn_local(async move {
                let service = service_fn(move |_req: Request<hyper::body::Incoming>| {
                    let i = requests.fetch_add(1, Ordering::SeqCst);
                    let action = script(i);
                    async move {
                        let (status, body, headers) = match action {
                            Action::Respond(s, b, h) => (s, b, h),
                            Action::Stall(d) => {
                                tokio::time::sleep(d).await;
                                (200, "hello", vec![])
                            }
                            Action::Drop => return Err(std::io::Error::other("dropping the connection")),
                        };
                        let mut resp = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
                        *resp.status_mut() = StatusCode::from_u16(status).expect("status");
                        for (n, v) in headers {
                            resp.headers_mut().insert(n, v.parse().expect("header value"));
                        }
                        Ok::<_, std::io::Error>(resp)
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

/// A raw TCP server that answers every request head (up to the blank line)
/// with `reply`, byte for byte, then closes if `close` is set.
pub fn raw(reply: &'static [u8], close: bool) -> Server {
    spawn(move |listener, requests, mut shutdown| async move {
        loop {
            let mut stream = tokio::select! {
                r = listener.accept() => match r { Ok((s, _)) => s, Err(_) => continue },
                _ = &mut shutdown => return,
            };
            let requests = requests.clone();
            tokio::task::spawn_local(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Ok(n) = stream.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        requests.fetch_add(1, Ordering::SeqCst);
                        if stream.write_all(reply).await.is_err() {
                            return;
                        }
                        if close {
                            return;
                        }
                    }
                }
            });
        }
    })
}

/// A raw TCP server that talks out of turn: it writes `greeting` as soon as
/// it accepts a connection, before any request, then answers every request
/// head with each of `replies`, one write apiece (two replies: a server
/// that answers every request twice).
pub fn out_of_turn(greeting: &'static [u8], replies: &'static [&'static [u8]]) -> Server {
    spawn(move |listener, requests, mut shutdown| async move {
        loop {
            let mut stream = tokio::select! {
                r = listener.accept() => match r { Ok((s, _)) => s, Err(_) => continue },
                _ = &mut shutdown => return,
            };
            let requests = requests.clone();
            tokio::task::spawn_local(async move {
                if !greeting.is_empty() && stream.write_all(greeting).await.is_err() {
                    return;
                }
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Ok(n) = stream.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        requests.fetch_add(1, Ordering::SeqCst);
                        for reply in replies {
                            if stream.write_all(reply).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
    })
}

/// A plain 200 "hello" answer.
pub fn ok() -> Action {
    Action::Respond(200, "hello", vec![])
}
