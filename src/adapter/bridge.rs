//! The bridge between hyper and JS on one worker: the table of in-flight
//! requests, and the ops JS uses to read a request and commit its response.
//!
//! A request enters the table from the hyper service (`WorkerShared::submit`)
//! and waits there until JS commits a response through one of the respond
//! ops, which puts the answer in the request's place and wakes the service
//! (`WorkerShared::poll_answer`). Request ids are never reused, so a late
//! commit (after a 504, or after the client went away) finds nothing and is
//! dropped. A request JS has not answered within `--handler-timeout` is
//! answered 504 by a sweep over the table (`expire_handlers`), not by a
//! timer per request.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write as _;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use deno_core::{op2, v8, JsBuffer, OpState};
use deno_error::JsErrorBox;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;

use super::body::{ResBody, StreamSender};
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
    pub body: Option<Incoming>,
    /// Body bytes read so far, checked against the limit.
    pub body_read: usize,
    /// The service future waiting for the answer, once it has been polled.
    waiter: Option<Waker>,
    /// The sweep tick it arrived in (see `WorkerShared::expire_handlers`).
    arrived: u32,
}

impl Slot {
    /// A request as hyper parsed it, for `url` (from [`full_url`]).
    pub fn new(
        method: Method,
        (url, path_start): (String, usize),
        headers: http::HeaderMap,
        body: Option<Incoming>,
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

/// State shared by a worker's hyper connections, its driver and its ops.
pub struct WorkerShared {
    pub config: ServeConfig,
    /// The port this worker's listener is bound to.
    pub port: Cell<u16>,
    /// The requests in flight and their answers. An answer waits here for
    /// the service future the slot's waker wakes, instead of going
    /// through a channel per request (an allocation and atomics).
    requests: RefCell<IdMap<Entry>>,
    queue: RefCell<VecDeque<u32>>,
    next_id: Cell<u32>,
    driver: RefCell<Option<Waker>>,
    /// Streamed responses JS is still writing; dropping one (the runtime was
    /// torn down) fails its body.
    streams: RefCell<IdMap<StreamSender>>,
    /// Set when a handler failed because the engine refused an allocation
    /// past the heap limit (see `op_fwbench_heap_exhausted`).
    heap_exhausted: Cell<bool>,
    /// The handler-timeout sweep's clock, in ticks.
    tick: Cell<u32>,
    /// Emptied request header maps, for responses. hyper parses a
    /// connection's next request into the header map of the response
    /// before it, so handing it request maps back closes the loop: no
    /// header map is allocated or freed per request.
    spare_headers: RefCell<Vec<HeaderMap>>,
    /// The last `content-type` value the typed-text respond op made: an
    /// app answers most requests with the same one, and a clone shares
    /// its bytes where parsing would copy them.
    last_content_type: RefCell<Option<HeaderValue>>,
}

/// Spare header maps kept at most (more are freed): one per request in
/// flight would be plenty, and most of the time one is in use.
const SPARE_HEADER_MAPS: usize = 16;

/// The largest spare header map kept, in fields: a request with many
/// headers does not leave its large map behind for every later response.
const SPARE_HEADER_MAP_CAPACITY: usize = 64;

/// The JS functions serve.js registers at bootstrap.
pub struct BridgeFns {
    /// `handle(id, method, hasBody)`
    pub handle: v8::Global<v8::Function>,
    /// `async setApp(defaultExport) -> kind`
    pub set_app: v8::Global<v8::Function>,
}

impl WorkerShared {
    pub fn new(config: ServeConfig) -> Rc<Self> {
        Rc::new(Self {
            config,
            port: Cell::new(0),
            requests: RefCell::default(),
            queue: RefCell::default(),
            next_id: Cell::new(1),
            driver: RefCell::default(),
            streams: RefCell::default(),
            heap_exhausted: Cell::new(false),
            tick: Cell::new(0),
            spare_headers: RefCell::default(),
            last_content_type: RefCell::default(),
        })
    }

    /// An empty header map for a response, a recycled one when at hand.
    pub fn response_headers(&self) -> HeaderMap {
        self.spare_headers.borrow_mut().pop().unwrap_or_default()
    }

    /// Keeps a request's header map, emptied, for a later response.
    fn recycle_headers(&self, mut headers: HeaderMap) {
        let mut spare = self.spare_headers.borrow_mut();
        if spare.len() < SPARE_HEADER_MAPS && headers.capacity() <= SPARE_HEADER_MAP_CAPACITY {
            headers.clear();
            spare.push(headers);
        }
    }

    /// The `content-type` header value of Latin-1 `bytes`, shared with the
    /// previous response's when it is the same.
    fn content_type_value(&self, bytes: &[u8]) -> Result<HeaderValue, JsErrorBox> {
        let mut last = self.last_content_type.borrow_mut();
        if let Some(value) = last.as_ref().filter(|value| value.as_bytes() == bytes) {
            return Ok(value.clone());
        }
        let value = HeaderValue::from_bytes(bytes).map_err(|_| {
            JsErrorBox::type_error(format!(
                "invalid value for header content-type: {:?}",
                String::from_utf8_lossy(bytes)
            ))
        })?;
        *last = Some(value.clone());
        Ok(value)
    }

    /// Whether a handler ran out of heap since the last call (the runtime
    /// must then be rebuilt, as after the near-heap-limit callback).
    pub fn take_heap_exhausted(&self) -> bool {
        self.heap_exhausted.replace(false)
    }

    /// Puts a request in the table and wakes the driver; returns its id.
    pub fn submit(&self, mut slot: Slot) -> u32 {
        slot.arrived = self.tick.get();
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
            // their head was committed; what is left never answered.
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
    pub fn reply(&self, id: u32, response: Response<ResBody>) {
        let answered = {
            let mut requests = self.requests.borrow_mut();
            match requests.get_mut(&id) {
                Some(entry @ Entry::Waiting(_)) => std::mem::replace(entry, Entry::Answered(response)),
                // Already answered, or gone: a late commit is dropped.
                _ => return,
            }
        };
        if let Entry::Waiting(slot) = answered {
            if let Some(waker) = slot.waiter {
                waker.wake();
            }
            self.recycle_headers(slot.headers);
        }
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

    fn with_slot<T>(&self, id: u32, f: impl FnOnce(&mut Slot) -> T) -> Result<T, JsErrorBox> {
        match self.requests.borrow_mut().get_mut(&id) {
            Some(Entry::Waiting(slot)) => Ok(f(slot)),
            _ => Err(JsErrorBox::type_error(
                "the request is closed (already answered or timed out)",
            )),
        }
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

fn shared(state: &OpState) -> Rc<WorkerShared> {
    state.borrow::<Rc<WorkerShared>>().clone()
}

/// A response with `status` (checked) and `body`, without headers yet.
fn response_head(status: u32, body: ResBody) -> Result<Response<ResBody>, JsErrorBox> {
    let status = u16::try_from(status)
        .ok()
        .and_then(|code| StatusCode::from_u16(code).ok())
        .ok_or_else(|| JsErrorBox::range_error(format!("invalid response status {status}")))?;
    if status.is_informational() {
        // hyper would send it as the final answer (a 101 with no upgrade).
        return Err(JsErrorBox::range_error(format!(
            "response status {} is informational (1xx): fwbench does not send 1xx responses or upgrades",
            status.as_u16()
        )));
    }
    let mut response = Response::new(body);
    *response.status_mut() = status;
    Ok(response)
}

/// The response headers the respond ops receive: `count` fields, each a
/// name and a value, all joined by NUL into one Latin-1 string (one
/// string crosses into Rust far more cheaply than an array of them). No
/// valid name or value holds a NUL, and one that did would change the
/// count, so it is refused rather than read as another field. The fields
/// go into `map`, an empty one (recycled, see `response_headers`).
fn header_map(mut map: HeaderMap, count: u32, joined: &[u8]) -> Result<HeaderMap, JsErrorBox> {
    // `count` comes from JS: no more room than the string can fill, and
    // the map's own size limit is an error, not a panic (an op cannot
    // unwind; a panic would abort the process).
    let room = (count as usize).min(joined.len() / 2 + 1);
    map.try_reserve(room).map_err(|_| too_many_headers())?;
    if count == 0 && joined.is_empty() {
        return Ok(map);
    }
    let mut parts = joined.split(|&byte| byte == 0);
    for _ in 0..count {
        let (Some(name), Some(value)) = (parts.next(), parts.next()) else {
            return Err(malformed_header_list());
        };
        let name = HeaderName::from_bytes(name).map_err(|_| {
            JsErrorBox::type_error(format!("invalid header name {:?}", String::from_utf8_lossy(name)))
        })?;
        let value = HeaderValue::from_bytes(value)
            .map_err(|_| JsErrorBox::type_error(format!("invalid value for header {name}")))?;
        // append, not insert: repeated headers (set-cookie) are all kept.
        map.try_append(name, value).map_err(|_| too_many_headers())?;
    }
    if parts.next().is_some() {
        return Err(malformed_header_list());
    }
    Ok(map)
}

fn malformed_header_list() -> JsErrorBox {
    JsErrorBox::type_error("malformed response header list: a header name or value contains a NUL character")
}

fn too_many_headers() -> JsErrorBox {
    JsErrorBox::range_error("the response has more header fields than the host can hold")
}

fn build_response(status: u32, headers: HeaderMap, body: ResBody) -> Result<Response<ResBody>, JsErrorBox> {
    let mut response = response_head(status, body)?;
    *response.headers_mut() = headers;
    Ok(response)
}

/// A response with a complete body, for request `id`. An app-set
/// `Content-Length` is checked against the body: hyper writes the body
/// whole, so a wrong length would end the response early (the rest read as
/// the next response on a keep-alive connection) or late (the next
/// response swallowed). A mismatch is the app's error, as in Node
/// (`ERR_HTTP_CONTENT_LENGTH_MISMATCH`), and answered 500.
fn full_response(
    shared: &WorkerShared,
    id: u32,
    status: u32,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response<ResBody>, JsErrorBox> {
    let length = body.len();
    let response = build_response(status, headers, ResBody::full(body))?;
    if response.headers().contains_key(http::header::CONTENT_LENGTH) {
        let head_request = shared
            .with_slot(id, |slot| slot.method == Method::HEAD)
            .unwrap_or(false);
        check_content_length(&response, length, head_request)?;
    }
    Ok(response)
}

/// Whether `response`'s `Content-Length` values (if any) are numbers that
/// frame a body of `length` bytes. A response to HEAD, and a 304, declare
/// the length of a body they do not send, so only the number is checked.
fn check_content_length(
    response: &Response<ResBody>,
    length: usize,
    head_request: bool,
) -> Result<(), JsErrorBox> {
    for value in response.headers().get_all(http::header::CONTENT_LENGTH) {
        let declared = std::str::from_utf8(value.as_bytes())
            .ok()
            .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|text| text.parse::<u64>().ok())
            .ok_or_else(|| {
                JsErrorBox::type_error(format!(
                    "invalid content-length {:?}: not a number of bytes",
                    String::from_utf8_lossy(value.as_bytes())
                ))
            })?;
        let declares_only = head_request || response.status() == StatusCode::NOT_MODIFIED;
        if !declares_only && declared != length as u64 {
            return Err(JsErrorBox::type_error(format!(
                "the response's content-length of {declared} bytes does not match its body of {length} bytes"
            )));
        }
    }
    Ok(())
}

/// Registers serve.js's `handle` and `setApp` with the Rust side.
#[op2]
pub fn op_fwbench_register(
    state: &mut OpState,
    #[scoped] handle: v8::Global<v8::Function>,
    #[scoped] set_app: v8::Global<v8::Function>,
) {
    state.put(BridgeFns { handle, set_app });
}

/// The port the app is served on.
#[op2(fast)]
#[smi]
pub fn op_fwbench_host_port(state: &mut OpState) -> u32 {
    shared(state).port.get().into()
}

/// The request's full URL.
#[op2]
pub fn op_fwbench_req_url<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    state: &mut OpState,
    #[smi] id: u32,
) -> Result<v8::Local<'s, v8::String>, JsErrorBox> {
    shared(state).with_slot(id, |slot| {
        one_byte_string(scope, slot.url().as_bytes(), v8::NewStringType::Normal)
    })?
}

/// The request target's path and query (what Node calls `req.url`).
#[op2]
pub fn op_fwbench_req_path<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    state: &mut OpState,
    #[smi] id: u32,
) -> Result<v8::Local<'s, v8::String>, JsErrorBox> {
    shared(state).with_slot(id, |slot| {
        one_byte_string(scope, slot.path().as_bytes(), v8::NewStringType::Normal)
    })?
}

/// The request's headers as one flat list, `[name, value, name, value,
/// …]`, repeated headers kept, values as Latin-1 (a ByteString, as the
/// Fetch standard and Node read them). Names are internalized strings:
/// apps use them as property keys (node's `req.headers[name]`), and a
/// fresh string is internalized at every keyed access instead of once.
#[op2]
pub fn op_fwbench_req_headers<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    state: &mut OpState,
    #[smi] id: u32,
) -> Result<v8::Local<'s, v8::Array>, JsErrorBox> {
    shared(state).with_slot(id, |slot| {
        let mut flat = Vec::with_capacity(slot.headers.len() * 2);
        for (name, value) in &slot.headers {
            let name = one_byte_string(scope, name.as_str().as_bytes(), v8::NewStringType::Internalized)?;
            flat.push(name.into());
            flat.push(one_byte_string(scope, value.as_bytes(), v8::NewStringType::Normal)?.into());
        }
        Ok(v8::Array::new_with_elements(scope, &flat))
    })?
}

/// A JS string of Latin-1 `bytes` (URLs and header fields are bytes),
/// internalized when JS will use it as a property key.
fn one_byte_string<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    bytes: &[u8],
    kind: v8::NewStringType,
) -> Result<v8::Local<'s, v8::String>, JsErrorBox> {
    v8::String::new_from_one_byte(scope, bytes, kind)
        .ok_or_else(|| JsErrorBox::range_error("a request field is too long for a JS string"))
}

/// The next chunk of the request body; empty at the end.
#[op2]
#[buffer]
pub async fn op_fwbench_req_body_read(
    state: Rc<std::cell::RefCell<OpState>>,
    #[smi] id: u32,
) -> Result<Vec<u8>, JsErrorBox> {
    let shared = shared(&state.borrow());
    let limit = shared.config.max_body_bytes;
    let Some(mut body) = shared.with_slot(id, |slot| slot.body.take())? else {
        return Ok(Vec::new());
    };
    loop {
        match body.frame().await {
            None => return Ok(Vec::new()),
            Some(Err(error)) => {
                return Err(JsErrorBox::generic(format!(
                    "reading the request body failed: {error}"
                )))
            }
            Some(Ok(frame)) => {
                let Ok(data) = frame.into_data() else { continue };
                if data.is_empty() {
                    continue;
                }
                let total = shared.with_slot(id, |slot| {
                    slot.body_read += data.len();
                    slot.body_read
                })?;
                if total > limit {
                    shared.reply(
                        id,
                        plain_response(StatusCode::PAYLOAD_TOO_LARGE, "request body too large"),
                    );
                    return Err(JsErrorBox::range_error(format!(
                        "the request body exceeds the limit of {limit} bytes (--max-body-bytes)"
                    )));
                }
                shared.with_slot(id, |slot| slot.body = Some(body))?;
                return Ok(data.to_vec());
            }
        }
    }
}

/// Commits a response with a string body.
#[op2(fast)]
pub fn op_fwbench_respond_text(
    state: &mut OpState,
    #[smi] id: u32,
    #[smi] status: u32,
    header_count: u32,
    #[string(onebyte)] headers: Cow<[u8]>,
    #[string] body: String,
) -> Result<(), JsErrorBox> {
    let shared = shared(state);
    let headers = header_map(shared.response_headers(), header_count, &headers)?;
    let response = full_response(&shared, id, status, headers, Bytes::from(body))?;
    shared.reply(id, response);
    Ok(())
}

/// Commits a response with a string body whose one header is its content
/// type: what `new Response(text)`, `Response.json()` and most framework
/// helpers make. It spares the header list's conversion, a large share of
/// a small response's cost.
#[op2(fast)]
pub fn op_fwbench_respond_typed_text(
    state: &mut OpState,
    #[smi] id: u32,
    #[smi] status: u32,
    #[string(onebyte)] content_type: Cow<[u8]>,
    #[string] body: String,
) -> Result<(), JsErrorBox> {
    let shared = shared(state);
    // Latin-1, as the other respond ops read header values.
    let content_type = shared.content_type_value(&content_type)?;
    let mut response = response_head(status, ResBody::full(Bytes::from(body)))?;
    let mut headers = shared.response_headers();
    headers.insert(http::header::CONTENT_TYPE, content_type);
    *response.headers_mut() = headers;
    shared.reply(id, response);
    Ok(())
}

/// Commits a response with a byte body.
#[op2]
pub fn op_fwbench_respond_bytes(
    state: &mut OpState,
    #[smi] id: u32,
    #[smi] status: u32,
    header_count: u32,
    #[string(onebyte)] headers: Cow<[u8]>,
    #[buffer] body: JsBuffer,
) -> Result<(), JsErrorBox> {
    let shared = shared(state);
    let headers = header_map(shared.response_headers(), header_count, &headers)?;
    let response = full_response(&shared, id, status, headers, Bytes::copy_from_slice(&body))?;
    shared.reply(id, response);
    Ok(())
}

/// Commits the head of a streamed response; returns the stream's id for
/// `op_fwbench_stream_write`.
#[op2(fast)]
#[smi]
pub fn op_fwbench_respond_stream(
    state: &mut OpState,
    #[smi] id: u32,
    #[smi] status: u32,
    header_count: u32,
    #[string(onebyte)] headers: Cow<[u8]>,
) -> Result<u32, JsErrorBox> {
    let shared = shared(state);
    let headers = header_map(shared.response_headers(), header_count, &headers)?;
    // A few chunks of slack; past that, JS waits for the client.
    let (body, tx) = ResBody::stream(8);
    let response = build_response(status, headers, body)?;
    shared.streams.borrow_mut().insert(id, tx);
    shared.reply(id, response);
    Ok(id)
}

/// Sends one chunk of a streamed response; false once the client is gone.
#[op2]
pub async fn op_fwbench_stream_write(
    state: Rc<std::cell::RefCell<OpState>>,
    #[smi] sid: u32,
    #[buffer] chunk: JsBuffer,
) -> bool {
    let tx = shared(&state.borrow())
        .streams
        .borrow()
        .get(&sid)
        .map(StreamSender::chunks);
    match tx {
        Some(tx) => tx.send(Bytes::copy_from_slice(&chunk)).await.is_ok(),
        None => false,
    }
}

/// Ends a streamed response; `failed` aborts it (the client sees a cut body).
#[op2(fast)]
pub fn op_fwbench_stream_close(state: &mut OpState, #[smi] sid: u32, failed: bool) {
    if let Some(tx) = shared(state).streams.borrow_mut().remove(&sid) {
        tx.finish(!failed);
    }
}

/// A handler failed with the engine's out-of-memory error: QuickJS fails
/// one allocation that alone would cross the heap limit with an ordinary
/// `InternalError`, without the near-heap-limit callback. The request stays
/// in flight; the worker answers it (and any other) with the heap limit's
/// 503 when it rebuilds the runtime, as after the callback.
#[op2(fast)]
pub fn op_fwbench_heap_exhausted(state: &mut OpState) {
    // The driver looks right after each call into JS and each poll of the
    // event loop, so no wake-up is needed.
    shared(state).heap_exhausted.set(true);
}

/// Answers with an error status (the handler threw, rejected or returned
/// something that is not a response) and logs one line.
#[op2(fast)]
pub fn op_fwbench_respond_error(
    state: &mut OpState,
    #[smi] id: u32,
    #[smi] status: u32,
    #[string] detail: &str,
) {
    let status = u16::try_from(status)
        .ok()
        .and_then(|code| StatusCode::from_u16(code).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    shared(state).reply_error(id, status, detail);
}

deno_core::extension!(
    fwbench_adapter,
    deps = [fwbench_engine],
    ops = [
        op_fwbench_register,
        op_fwbench_host_port,
        op_fwbench_req_url,
        op_fwbench_req_path,
        op_fwbench_req_headers,
        op_fwbench_req_body_read,
        op_fwbench_respond_text,
        op_fwbench_respond_typed_text,
        op_fwbench_respond_bytes,
        op_fwbench_respond_stream,
        op_fwbench_stream_write,
        op_fwbench_stream_close,
        op_fwbench_respond_error,
        op_fwbench_heap_exhausted,
    ],
    options = { shared: Rc<WorkerShared> },
    state = |state, options| {
        state.put(options.shared);
    },
);

/// The adapter's extension for one worker's runtime.
pub fn extension(shared: Rc<WorkerShared>) -> deno_core::Extension {
    const SERVE: &str = "ext:fwbench_adapter/serve.js";
    let mut ext = fwbench_adapter::init(shared);
    ext.esm_files = Cow::Owned(vec![crate::engine::embedded_source(
        SERVE,
        include_str!("../../js/runtime/serve.js"),
    )]);
    ext.esm_entry_point = Some(SERVE);
    ext
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

    #[test]
    fn response_headers_come_joined_by_nul() {
        let map = header_map(
            HeaderMap::new(),
            3,
            b"content-type\0text/plain\0set-cookie\0a=1\0set-cookie\0b=2",
        )
        .expect("valid list");
        assert_eq!(map["content-type"], "text/plain");
        assert_eq!(map.get_all("set-cookie").iter().count(), 2);
        assert!(header_map(HeaderMap::new(), 0, b"")
            .expect("empty list")
            .is_empty());
    }

    #[test]
    fn a_nul_inside_a_header_value_is_refused_not_read_as_a_field() {
        // The value "one\0x-injected\0two" would add a field if the count
        // were not checked.
        assert!(header_map(HeaderMap::new(), 1, b"x-a\0one\0x-injected\0two").is_err());
        assert!(header_map(HeaderMap::new(), 2, b"x-a\0one").is_err());
        assert!(header_map(HeaderMap::new(), 0, b"x-a\0one").is_err());
        assert!(header_map(HeaderMap::new(), 1, b"bad name\0one").is_err());
        assert!(header_map(HeaderMap::new(), 1, b"x-a\0line\r\nbreak").is_err());
        // A count far past what the string holds is an error, not a huge
        // allocation or a panic.
        assert!(header_map(HeaderMap::new(), u32::MAX, b"x-a\0one").is_err());
    }

    /// A waker that counts its wake-ups.
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Wakes {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn request(shared: &WorkerShared) -> u32 {
        let url = full_url("127.0.0.1:8080", "/");
        shared.submit(Slot::new(Method::GET, url, HeaderMap::new(), None))
    }

    #[test]
    fn an_answer_wakes_the_waiting_service_and_is_taken_once() {
        let shared = WorkerShared::new(ServeConfig::default());
        let wakes = std::sync::Arc::new(Wakes(Default::default()));
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let id = request(&shared);
        assert!(shared.poll_answer(id, &mut cx).is_pending());
        shared.reply(id, plain_response(StatusCode::CREATED, "made"));
        assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        let Poll::Ready(response) = shared.poll_answer(id, &mut cx) else {
            panic!("the answer was committed");
        };
        assert_eq!(response.status(), StatusCode::CREATED);
        shared.forget(id);
        assert_eq!(shared.in_flight(), 0);
        assert!(shared.requests.borrow().is_empty());
        // A late commit for the same id finds nothing and is dropped.
        shared.reply(id, plain_response(StatusCode::OK, "late"));
        assert!(shared.requests.borrow().is_empty());
    }

    #[test]
    fn a_request_dropped_unanswered_reads_503_and_a_gone_client_leaves_nothing() {
        let shared = WorkerShared::new(ServeConfig::default());
        let mut cx = Context::from_waker(Waker::noop());
        let torn_down = request(&shared);
        assert!(shared.poll_answer(torn_down, &mut cx).is_pending());
        shared.reply_all(StatusCode::SERVICE_UNAVAILABLE, "rebuilding");
        let Poll::Ready(response) = shared.poll_answer(torn_down, &mut cx) else {
            panic!("reply_all answers every request");
        };
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        // The client went away after JS answered but before the service
        // took the answer: forgetting it drops the answer too.
        let gone = request(&shared);
        shared.reply(gone, plain_response(StatusCode::OK, "unread"));
        shared.forget(gone);
        assert!(shared.requests.borrow().is_empty());
        // Neither slot nor answer (the slot was dropped without one).
        let lost = request(&shared);
        shared.requests.borrow_mut().remove(&lost);
        assert!(
            matches!(shared.poll_answer(lost, &mut cx), Poll::Ready(r) if r.status() == StatusCode::SERVICE_UNAVAILABLE)
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
