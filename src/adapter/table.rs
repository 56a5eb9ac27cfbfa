//! A worker's request table: the requests in flight between hyper and JS,
//! and their answers.
//!
//! A request enters the table from the hyper service ([`RequestTable::submit`])
//! and waits there until JS commits a response through one of the respond
//! ops (adapter/ops.rs), which puts the answer in the request's place and
//! wakes the service ([`RequestTable::poll_answer`]). Request ids are never
//! reused, so a late commit (after a 504, or after the client went away)
//! finds nothing and is dropped. A request JS has not answered within
//! `--handler-timeout` is answered 504 by a sweep over the table
//! ([`RequestTable::expire_handlers`]), not by a timer per request.
//! Deno's `ext/http` keeps its request records the same way, apart from
//! its ops (`service.rs` beside `http_next.rs`).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write as _;
use std::task::{Context, Poll, Waker};

use deno_error::JsErrorBox;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode};

use super::body::{ReqBody, ResBody};
use super::request_timing::{Arrival, RequestTiming};
use super::stream::{Ending, OpenStream};
use super::ServeConfig;

/// One request waiting for JS.
pub struct Slot {
    pub method: Method,
    /// Full URL as JS sees it (`http://host/path?query`).
    url: String,
    /// Where the path starts in `url`.
    path_start: usize,
    pub headers: http::HeaderMap,
    /// The request body, if it has one; taken while a read is in flight.
    pub body: Option<ReqBody>,
    /// Body bytes read so far, checked against the limit.
    pub body_read: usize,
    /// The service future waiting for the answer, once it has been polled.
    waiter: Option<Waker>,
    /// The sweep tick it arrived in (see [`RequestTable::expire_handlers`]).
    arrived: u32,
    /// When it arrived, if the table times requests.
    arrival: Option<Arrival>,
}

impl Slot {
    /// A request as hyper parsed it, for `url` (from [`full_url`]).
    pub fn new(
        method: Method,
        (url, path_start): (String, usize),
        headers: http::HeaderMap,
        body: Option<ReqBody>,
    ) -> Self {
        Self {
            method,
            url,
            path_start,
            headers,
            body,
            body_read: 0,
            waiter: None,
            arrived: 0,
            arrival: None,
        }
    }

    /// The full URL as JS sees it (`http://host/path?query`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The path and query (the request target in origin form).
    pub fn path(&self) -> &str {
        &self.url[self.path_start..]
    }
}

/// `http://{authority}{path}`, in one allocation, and where its path
/// starts.
pub fn full_url(authority: &str, path: &str) -> (String, usize) {
    const SCHEME: &str = "http://";
    let path_start = SCHEME.len() + authority.len();
    let mut url = String::with_capacity(path_start + path.len());
    url.push_str(SCHEME);
    url.push_str(authority);
    url.push_str(path);
    (url, path_start)
}

/// Sweep ticks per `--handler-timeout`: a handler is answered 504 after
/// between this many and one more ticks, i.e. no sooner than the limit and
/// within an eighth past it.
pub const TICKS_PER_HANDLER_TIMEOUT: u32 = 8;

/// Hashes request ids. They are sequential integers this worker hands out,
/// so SipHash's defence against chosen keys buys nothing here, and it
/// costs a few hundred instructions per request; one multiply by an odd
/// constant (Fibonacci hashing) spreads them over the buckets.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, id: u32) {
        self.0 = u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A table keyed by request id.
type IdMap<V> = HashMap<u32, V, BuildHasherDefault<IdHasher>>;

/// A request's place in the table: waiting for JS, then holding its answer
/// until the service future takes it. One table, not one for requests
/// and one for answers: an entry moved from one to the other cost a
/// removal and an insertion on every request.
enum Entry {
    Waiting(Slot),
    Answered(Response<ResBody>),
}

/// The requests one worker has in flight, shared by its hyper connections,
/// its driver and its ops.
pub struct RequestTable {
    /// The server's limits (body size, handler timeout).
    pub config: ServeConfig,
    /// The port this worker's listener is bound to.
    port: u16,
    /// The requests in flight and their answers. An answer waits here for
    /// the service future the slot's waker wakes, instead of going
    /// through a channel per request (an allocation and atomics).
    requests: RefCell<IdMap<Entry>>,
    queue: RefCell<VecDeque<u32>>,
    next_id: Cell<u32>,
    driver: RefCell<Option<Waker>>,
    /// Streamed responses JS is still writing; dropping one (the runtime was
    /// torn down) fails its body.
    streams: RefCell<IdMap<OpenStream>>,
    /// Set when a handler failed because the engine refused an allocation
    /// past the heap limit (see `op_fwbench_heap_exhausted`).
    heap_exhausted: Cell<bool>,
    /// The handler-timeout sweep's clock, in ticks.
    tick: Cell<u32>,
    /// Times each request from arrival to answer, for `bench`'s telemetry.
    timing: Option<RequestTiming>,
}

impl RequestTable {
    /// An empty table for a worker listening on `port`.
    pub fn new(config: ServeConfig, port: u16) -> Self {
        Self {
            config,
            port,
            requests: RefCell::default(),
            queue: RefCell::default(),
            next_id: Cell::new(1),
            driver: RefCell::default(),
            streams: RefCell::default(),
            heap_exhausted: Cell::new(false),
            tick: Cell::new(0),
            timing: None,
        }
    }

    /// The same table, timing each request from its arrival to its answer
    /// with `timing`.
    pub fn timed(self, timing: Option<RequestTiming>) -> Self {
        Self { timing, ..self }
    }

    /// Hands the request times to the telemetry thread (when it asked).
    pub fn publish_timing(&self) {
        if let Some(timing) = &self.timing {
            timing.publish();
        }
    }

    /// The port this worker's listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Notes that a handler ran out of heap (see `op_fwbench_heap_exhausted`).
    pub fn set_heap_exhausted(&self) {
        self.heap_exhausted.set(true);
    }

    /// Whether a handler ran out of heap since the last call (the runtime
    /// must then be rebuilt, as after the near-heap-limit callback).
    pub fn take_heap_exhausted(&self) -> bool {
        self.heap_exhausted.replace(false)
    }

    /// Puts a request in the table and wakes the driver; returns its id.
    pub fn submit(&self, mut slot: Slot) -> u32 {
        slot.arrived = self.tick.get();
        slot.arrival = self.timing.as_ref().map(RequestTiming::arrival);
        let id = self.next_id.get();
        // Ids stay positive small integers (V8 smis) and are not reused
        // while a request could still be in flight.
        self.next_id.set(if id >= i32::MAX as u32 { 1 } else { id + 1 });
        self.requests.borrow_mut().insert(id, Entry::Waiting(slot));
        self.queue.borrow_mut().push_back(id);
        if let Some(waker) = self.driver.borrow_mut().take() {
            waker.wake();
        }
        id
    }

    /// Advances the sweep clock one tick and answers 504 to every request
    /// that has waited [`TICKS_PER_HANDLER_TIMEOUT`] ticks: the worker
    /// calls it every `--handler-timeout` / that many. One sweep instead
    /// of a timer per request, because arming and cancelling a timer is a
    /// measurable share of a small request's cost.
    pub fn expire_handlers(&self) {
        let tick = self.tick.get().wrapping_add(1);
        self.tick.set(tick);
        let expired: Vec<u32> = self
            .requests
            .borrow()
            .iter()
            // `arrived` is the tick before the request came, so after
            // this many more ticks at least the full limit has passed.
            .filter(|(_, entry)| {
                matches!(entry, Entry::Waiting(slot) if tick.wrapping_sub(slot.arrived) > TICKS_PER_HANDLER_TIMEOUT)
            })
            .map(|(&id, _)| id)
            .collect();
        for id in expired {
            // Streamed responses were answered (their slot is gone) when
            // their head was committed, unless their head waits for the
            // stream's end (adapter/stream.rs): what is left never
            // answered.
            let timeout = self.config.handler_timeout;
            // Not eprintln!: a closed stderr must not stop the sweep.
            let _ = writeln!(
                std::io::stderr(),
                "fwbench: handler did not respond within {timeout:?} (--handler-timeout); answered 504"
            );
            self.reply(
                id,
                plain_response(StatusCode::GATEWAY_TIMEOUT, "the handler did not respond in time"),
            );
        }
    }

    /// How many requests are waiting for JS.
    pub fn in_flight(&self) -> usize {
        let requests = self.requests.borrow();
        requests
            .values()
            .filter(|entry| matches!(entry, Entry::Waiting(_)))
            .count()
    }

    /// Forgets a request and its answer: the service future is gone (the
    /// client disconnected, or it took the answer).
    pub fn forget(&self, id: u32) {
        self.requests.borrow_mut().remove(&id);
    }

    /// Request `id`'s answer, once committed; until then the service
    /// future's waker is kept in the slot. A request with neither slot nor
    /// answer was dropped unanswered, which only a worker going away does.
    pub fn poll_answer(&self, id: u32, cx: &mut Context<'_>) -> Poll<Response<ResBody>> {
        let mut requests = self.requests.borrow_mut();
        if let Some(Entry::Waiting(slot)) = requests.get_mut(&id) {
            match &slot.waiter {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                _ => slot.waiter = Some(cx.waker().clone()),
            }
            return Poll::Pending;
        }
        match requests.remove(&id) {
            Some(Entry::Answered(response)) => Poll::Ready(response),
            _ => Poll::Ready(plain_response(
                StatusCode::SERVICE_UNAVAILABLE,
                "the worker stopped while handling this request",
            )),
        }
    }

    /// Registers the driver's waker, to be woken on the next `submit`.
    pub fn set_driver_waker(&self, waker: &Waker) {
        let mut slot = self.driver.borrow_mut();
        match &*slot {
            Some(existing) if existing.will_wake(waker) => {}
            _ => *slot = Some(waker.clone()),
        }
    }

    /// Takes the queued request ids, oldest first.
    pub fn take_queue(&self) -> VecDeque<u32> {
        std::mem::take(&mut *self.queue.borrow_mut())
    }

    /// The method and body presence of a queued request, if still wanted.
    pub fn dispatch_info(&self, id: u32) -> Option<(Method, bool)> {
        match self.requests.borrow().get(&id) {
            Some(Entry::Waiting(slot)) => Some((slot.method.clone(), slot.body.is_some())),
            _ => None,
        }
    }

    /// Sends `response` for request `id` (if anyone still waits for it).
    /// Returns the request's header map, which nothing reads any more: the
    /// respond ops recycle it for a later response (adapter/ops.rs).
    pub fn reply(&self, id: u32, response: Response<ResBody>) -> Option<HeaderMap> {
        let answered = {
            let mut requests = self.requests.borrow_mut();
            match requests.get_mut(&id) {
                Some(entry @ Entry::Waiting(_)) => std::mem::replace(entry, Entry::Answered(response)),
                // Already answered, or gone: a late commit is dropped.
                _ => return None,
            }
        };
        let Entry::Waiting(slot) = answered else {
            return None;
        };
        if let (Some(timing), Some(arrival)) = (&self.timing, slot.arrival) {
            timing.answered(arrival);
        }
        if let Some(waker) = slot.waiter {
            waker.wake();
        }
        Some(slot.headers)
    }

    /// Answers every request in flight with `status` and `message`, e.g.
    /// when the runtime is torn down.
    pub fn reply_all(&self, status: StatusCode, message: &str) {
        self.queue.borrow_mut().clear();
        self.streams.borrow_mut().clear();
        let mut wakers = Vec::new();
        for entry in self.requests.borrow_mut().values_mut() {
            let Entry::Waiting(slot) = entry else { continue };
            wakers.extend(slot.waiter.take());
            *entry = Entry::Answered(plain_response(status, message));
        }
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Answers request `id` with an error status and logs one line.
    pub fn reply_error(&self, id: u32, status: StatusCode, detail: &str) {
        let line = {
            let requests = self.requests.borrow();
            let Some(Entry::Waiting(slot)) = requests.get(&id) else {
                return;
            };
            format!(
                "{} {} -> {}: {}",
                slot.method,
                slot.path(),
                status.as_u16(),
                one_line(detail)
            )
        };
        eprintln!("fwbench: {line}");
        let body = status.canonical_reason().unwrap_or("Error");
        self.reply(id, plain_response(status, body));
    }

    /// Runs `f` on request `id`'s slot; an error for JS if the request is
    /// no longer waiting.
    pub fn with_slot<T>(&self, id: u32, f: impl FnOnce(&mut Slot) -> T) -> Result<T, JsErrorBox> {
        match self.requests.borrow_mut().get_mut(&id) {
            Some(Entry::Waiting(slot)) => Ok(f(slot)),
            _ => Err(JsErrorBox::type_error(
                "the request is closed (already answered or timed out)",
            )),
        }
    }

    /// Keeps stream `sid`, a streamed response JS writes (its id is its
    /// request's).
    pub fn open_stream(&self, sid: u32, stream: OpenStream) {
        self.streams.borrow_mut().insert(sid, stream);
    }

    /// A sender for the next chunk of stream `sid`, `len` bytes, if it is
    /// still open. A chunk that would take the body past its declared
    /// length is not sent: the stream ends there (hyper would drop the
    /// excess without a word).
    pub fn stream_chunks(&self, sid: u32, len: usize) -> Option<tokio::sync::mpsc::Sender<bytes::Bytes>> {
        let mut streams = self.streams.borrow_mut();
        match streams.get_mut(&sid)?.write(len) {
            Ok(sender) => Some(sender),
            Err(why) => {
                let stream = streams.remove(&sid)?;
                drop(streams);
                self.end_stream(sid, stream.end(Some(why)));
                None
            }
        }
    }

    /// Ends stream `sid`: completed by JS, or failed for `failure` (an
    /// error in the stream, described by JS).
    pub fn close_stream(&self, sid: u32, failure: Option<String>) {
        let Some(stream) = self.streams.borrow_mut().remove(&sid) else {
            return;
        };
        self.end_stream(sid, stream.end(failure));
    }

    fn end_stream(&self, sid: u32, ending: Ending) {
        match ending {
            Ending::Complete => {}
            Ending::Answer(response) => {
                self.reply(sid, response);
            }
            Ending::Refuse(why) => self.reply_error(sid, StatusCode::INTERNAL_SERVER_ERROR, &why),
            Ending::Cut { request, why } => {
                // Not eprintln!: a closed stderr must not stop the worker.
                let _ = writeln!(
                    std::io::stderr(),
                    "fwbench: {request} -> connection cut: {}",
                    one_line(&why)
                );
            }
        }
    }

    /// `METHOD /path` of request `id`, for log lines; empty once it is
    /// gone.
    pub fn describe(&self, id: u32) -> String {
        self.with_slot(id, |slot| format!("{} {}", slot.method, slot.path()))
            .unwrap_or_default()
    }
}

/// A short text/plain response.
pub fn plain_response(status: StatusCode, message: &str) -> Response<ResBody> {
    let mut response = Response::new(ResBody::full(format!("{message}\n")));
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The first line of an error plus its first stack frame, on one line.
fn one_line(detail: &str) -> String {
    let mut lines = detail.lines().map(str::trim).filter(|line| !line.is_empty());
    let first = lines.next().unwrap_or("(no message)");
    match lines.find(|line| line.starts_with("at ")) {
        Some(frame) => format!("{first} ({frame})"),
        None => first.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_log_lines_keep_message_and_first_frame() {
        let stack = "Error: boom\n    at handler (file:///app.js:3:9)\n    at other (x.js:1:1)";
        assert_eq!(one_line(stack), "Error: boom (at handler (file:///app.js:3:9))");
        assert_eq!(one_line("plain"), "plain");
    }

    /// A waker that counts its wake-ups.
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Wakes {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn table() -> RequestTable {
        RequestTable::new(ServeConfig::default(), 8080)
    }

    fn request(table: &RequestTable) -> u32 {
        let url = full_url("127.0.0.1:8080", "/");
        table.submit(Slot::new(Method::GET, url, HeaderMap::new(), None))
    }

    #[test]
    fn an_answer_wakes_the_waiting_service_and_is_taken_once() {
        let table = table();
        let wakes = std::sync::Arc::new(Wakes(Default::default()));
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let id = request(&table);
        assert!(table.poll_answer(id, &mut cx).is_pending());
        let headers = table.reply(id, plain_response(StatusCode::CREATED, "made"));
        assert!(
            headers.is_some(),
            "the request's header map comes back for recycling"
        );
        assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        let Poll::Ready(response) = table.poll_answer(id, &mut cx) else {
            panic!("the answer was committed");
        };
        assert_eq!(response.status(), StatusCode::CREATED);
        table.forget(id);
        assert_eq!(table.in_flight(), 0);
        assert!(table.requests.borrow().is_empty());
        // A late commit for the same id finds nothing and is dropped.
        assert!(table.reply(id, plain_response(StatusCode::OK, "late")).is_none());
        assert!(table.requests.borrow().is_empty());
    }

    #[test]
    fn a_request_dropped_unanswered_reads_503_and_a_gone_client_leaves_nothing() {
        let table = table();
        let mut cx = Context::from_waker(Waker::noop());
        let torn_down = request(&table);
        assert!(table.poll_answer(torn_down, &mut cx).is_pending());
        table.reply_all(StatusCode::SERVICE_UNAVAILABLE, "rebuilding");
        let Poll::Ready(response) = table.poll_answer(torn_down, &mut cx) else {
            panic!("reply_all answers every request");
        };
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        // The client went away after JS answered but before the service
        // took the answer: forgetting it drops the answer too.
        let gone = request(&table);
        table.reply(gone, plain_response(StatusCode::OK, "unread"));
        table.forget(gone);
        assert!(table.requests.borrow().is_empty());
        // Neither slot nor answer (the slot was dropped without one).
        let lost = request(&table);
        table.requests.borrow_mut().remove(&lost);
        assert!(
            matches!(table.poll_answer(lost, &mut cx), Poll::Ready(r) if r.status() == StatusCode::SERVICE_UNAVAILABLE)
        );
    }

    #[test]
    fn a_slot_knows_its_url_and_path() {
        let url = full_url("127.0.0.1:8080", "/user/7?x=1");
        let slot = Slot::new(Method::GET, url, HeaderMap::new(), None);
        assert_eq!(slot.url(), "http://127.0.0.1:8080/user/7?x=1");
        assert_eq!(slot.path(), "/user/7?x=1");
    }
}
