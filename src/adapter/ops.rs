//! The ops JS uses to read a request and commit its response, and the
//! adapter's extension that registers them with js/runtime/serve.js.
//!
//! The request itself waits in the worker's [`RequestTable`]; the ops read
//! it lazily (URL and headers only when asked for), convert the response
//! JS made into hyper's, and put it in the request's place. Response
//! headers cross as one NUL-joined Latin-1 string (see [`header_map`]).

use std::borrow::Cow;
use std::rc::Rc;

use bytes::Bytes;
use deno_core::{op2, v8, JsBuffer, OpState};
use deno_error::JsErrorBox;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Response, StatusCode};

use super::body::ResBody;
use super::table::{plain_response, DeclaredLength, RequestTable};

/// The JS functions serve.js registers at bootstrap.
pub struct BridgeFns {
    /// `handle(id, method, hasBody)`
    pub handle: v8::Global<v8::Function>,
    /// `async setApp(defaultExport) -> kind`
    pub set_app: v8::Global<v8::Function>,
}

/// What the ops keep in their runtime's `OpState`.
struct AdapterState {
    table: Rc<RequestTable>,
    recycler: Recycler,
}

/// Spare header maps kept at most (more are freed): one per request in
/// flight would be plenty, and most of the time one is in use.
const SPARE_HEADER_MAPS: usize = 16;

/// The largest spare header map kept, in fields: a request with many
/// headers does not leave its large map behind for every later response.
const SPARE_HEADER_MAP_CAPACITY: usize = 64;

/// What one response leaves for the next: its request's header map and
/// its content type.
#[derive(Default)]
struct Recycler {
    /// Emptied request header maps, for responses. hyper parses a
    /// connection's next request into the header map of the response
    /// before it, so handing it request maps back closes the loop: no
    /// header map is allocated or freed per request.
    spare_headers: Vec<HeaderMap>,
    /// The last `content-type` value the typed-text respond op made: an
    /// app answers most requests with the same one, and a clone shares
    /// its bytes where parsing would copy them.
    last_content_type: Option<HeaderValue>,
}

impl Recycler {
    /// An empty header map for a response, a recycled one when at hand.
    fn header_map(&mut self) -> HeaderMap {
        self.spare_headers.pop().unwrap_or_default()
    }

    /// Keeps an answered request's header map, emptied, for a later
    /// response.
    fn keep(&mut self, headers: Option<HeaderMap>) {
        let Some(mut headers) = headers else { return };
        if self.spare_headers.len() < SPARE_HEADER_MAPS && headers.capacity() <= SPARE_HEADER_MAP_CAPACITY {
            headers.clear();
            self.spare_headers.push(headers);
        }
    }

    /// The `content-type` header value of Latin-1 `bytes`, shared with the
    /// previous response's when it is the same.
    fn content_type(&mut self, bytes: &[u8]) -> Result<HeaderValue, JsErrorBox> {
        if let Some(value) = self
            .last_content_type
            .as_ref()
            .filter(|value| value.as_bytes() == bytes)
        {
            return Ok(value.clone());
        }
        let value = HeaderValue::from_bytes(bytes).map_err(|_| {
            JsErrorBox::type_error(format!(
                "invalid value for header content-type: {:?}",
                String::from_utf8_lossy(bytes)
            ))
        })?;
        self.last_content_type = Some(value.clone());
        Ok(value)
    }
}

/// The worker's table, for ops that outlive their borrow of the state.
fn table(state: &OpState) -> Rc<RequestTable> {
    state.borrow::<AdapterState>().table.clone()
}

/// A response status JS gave, as hyper's type.
fn status_code(status: u32) -> Option<StatusCode> {
    u16::try_from(status)
        .ok()
        .and_then(|code| StatusCode::from_u16(code).ok())
}

/// A response with `status` (checked) and `body`, without headers yet.
fn response_head(status: u32, body: ResBody) -> Result<Response<ResBody>, JsErrorBox> {
    let status = status_code(status)
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
/// go into `map`, an empty one (recycled, see [`Recycler`]).
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
    table: &RequestTable,
    id: u32,
    status: u32,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response<ResBody>, JsErrorBox> {
    let length = body.len();
    let response = build_response(status, headers, ResBody::full(body))?;
    if response.headers().contains_key(http::header::CONTENT_LENGTH) {
        if let Some(declared) = declared_length(&response)? {
            if !declares_only(table, id, &response) && declared != length as u64 {
                return Err(JsErrorBox::type_error(format!(
                    "the response's content-length of {declared} bytes does not match its body of {length} bytes"
                )));
            }
        }
    }
    Ok(response)
}

/// Whether `response` declares the length of a body it does not send: a
/// response to HEAD, and a 304, so only the number is checked.
fn declares_only(table: &RequestTable, id: u32, response: &Response<ResBody>) -> bool {
    response.status() == StatusCode::NOT_MODIFIED
        || table
            .with_slot(id, |slot| slot.method == Method::HEAD)
            .unwrap_or(false)
}

/// The body length `response`'s `Content-Length` declares, if it has one:
/// every value a number of bytes, all the same, and no `Transfer-Encoding`
/// beside it. hyper refuses to write any other head and closes the
/// connection without a word (the client sees an empty reply), so it is
/// refused here, where it can still be answered 500 and logged.
fn declared_length(response: &Response<ResBody>) -> Result<Option<u64>, JsErrorBox> {
    let headers = response.headers();
    let mut declared = None;
    for value in headers.get_all(http::header::CONTENT_LENGTH) {
        let length = std::str::from_utf8(value.as_bytes())
            .ok()
            .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|text| text.parse::<u64>().ok())
            .ok_or_else(|| {
                JsErrorBox::type_error(format!(
                    "invalid content-length {:?}: not a number of bytes",
                    String::from_utf8_lossy(value.as_bytes())
                ))
            })?;
        if declared.is_some_and(|first| first != length) {
            return Err(JsErrorBox::type_error(format!(
                "the response declares two content-lengths, {} and {length} bytes",
                declared.unwrap_or_default()
            )));
        }
        declared = Some(length);
    }
    if declared.is_some() && headers.contains_key(http::header::TRANSFER_ENCODING) {
        // RFC 9112 section 6.2: a sender must not send both.
        return Err(JsErrorBox::type_error(
            "the response sets both transfer-encoding and content-length: a response is framed by one of them",
        ));
    }
    Ok(declared)
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
    state.borrow::<AdapterState>().table.port().into()
}

/// The request's full URL.
#[op2]
pub fn op_fwbench_req_url<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    state: &mut OpState,
    #[smi] id: u32,
) -> Result<v8::Local<'s, v8::String>, JsErrorBox> {
    state.borrow::<AdapterState>().table.with_slot(id, |slot| {
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
    state.borrow::<AdapterState>().table.with_slot(id, |slot| {
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
    state.borrow::<AdapterState>().table.with_slot(id, |slot| {
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
    let table = table(&state.borrow());
    let limit = table.config.max_body_bytes;
    let Some(mut body) = table.with_slot(id, |slot| slot.body.take())? else {
        return Ok(Vec::new());
    };
    match body.next_data().await {
        None => Ok(Vec::new()),
        Some(Err(error)) => Err(JsErrorBox::generic(format!(
            "reading the request body failed: {error}"
        ))),
        Some(Ok(data)) => {
            let total = table.with_slot(id, |slot| {
                slot.body_read += data.len();
                slot.body_read
            })?;
            if total > limit {
                table.reply(
                    id,
                    plain_response(StatusCode::PAYLOAD_TOO_LARGE, "request body too large"),
                );
                return Err(JsErrorBox::range_error(format!(
                    "the request body exceeds the limit of {limit} bytes (--max-body-bytes)"
                )));
            }
            table.with_slot(id, |slot| slot.body = Some(body))?;
            Ok(data.to_vec())
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
    let AdapterState { table, recycler } = state.borrow_mut::<AdapterState>();
    let headers = header_map(recycler.header_map(), header_count, &headers)?;
    let response = full_response(table, id, status, headers, Bytes::from(body))?;
    recycler.keep(table.reply(id, response));
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
    let AdapterState { table, recycler } = state.borrow_mut::<AdapterState>();
    // Latin-1, as the other respond ops read header values.
    let content_type = recycler.content_type(&content_type)?;
    let mut response = response_head(status, ResBody::full(Bytes::from(body)))?;
    let mut headers = recycler.header_map();
    headers.insert(http::header::CONTENT_TYPE, content_type);
    *response.headers_mut() = headers;
    recycler.keep(table.reply(id, response));
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
    let AdapterState { table, recycler } = state.borrow_mut::<AdapterState>();
    let headers = header_map(recycler.header_map(), header_count, &headers)?;
    let response = full_response(table, id, status, headers, Bytes::copy_from_slice(&body))?;
    recycler.keep(table.reply(id, response));
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
    let AdapterState { table, recycler } = state.borrow_mut::<AdapterState>();
    let headers = header_map(recycler.header_map(), header_count, &headers)?;
    // A few chunks of slack; past that, JS waits for the client.
    let (body, tx) = ResBody::stream(8);
    let response = build_response(status, headers, body)?;
    let length = match declared_length(&response)? {
        Some(declared) if !declares_only(table, id, &response) => DeclaredLength::of(table, id, declared),
        _ => None,
    };
    table.open_stream(id, tx, length);
    recycler.keep(table.reply(id, response));
    Ok(id)
}

/// Sends one chunk of a streamed response; false once the client is gone.
#[op2]
pub async fn op_fwbench_stream_write(
    state: Rc<std::cell::RefCell<OpState>>,
    #[smi] sid: u32,
    #[buffer] chunk: JsBuffer,
) -> bool {
    let tx = table(&state.borrow()).stream_chunks(sid, chunk.len());
    match tx {
        Some(tx) => tx.send(Bytes::copy_from_slice(&chunk)).await.is_ok(),
        None => false,
    }
}

/// Ends a streamed response; `failed` aborts it (the client sees a cut body).
#[op2(fast)]
pub fn op_fwbench_stream_close(state: &mut OpState, #[smi] sid: u32, failed: bool) {
    state.borrow::<AdapterState>().table.close_stream(sid, !failed);
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
    state.borrow::<AdapterState>().table.set_heap_exhausted();
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
    let status = status_code(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    state
        .borrow::<AdapterState>()
        .table
        .reply_error(id, status, detail);
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
    options = { table: Rc<RequestTable> },
    state = |state, options| {
        state.put(AdapterState {
            table: options.table,
            recycler: Recycler::default(),
        });
    },
);

/// The adapter's extension for one worker's runtime, serving `table`.
pub fn extension(table: Rc<RequestTable>) -> deno_core::Extension {
    const SERVE: &str = "ext:fwbench_adapter/serve.js";
    let mut ext = fwbench_adapter::init(table);
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

    #[test]
    fn a_status_is_parsed_once_and_1xx_is_refused() {
        assert_eq!(status_code(404), Some(StatusCode::NOT_FOUND));
        assert_eq!(status_code(70_000), None);
        assert!(response_head(101, ResBody::full("")).is_err());
        assert!(response_head(1000, ResBody::full("")).is_err());
        assert_eq!(
            response_head(204, ResBody::full("")).map(|r| r.status()).ok(),
            Some(StatusCode::NO_CONTENT)
        );
    }

    #[test]
    fn the_recycler_keeps_small_emptied_maps_and_shares_a_repeated_content_type() {
        let mut recycler = Recycler::default();
        let mut used = HeaderMap::new();
        used.insert(http::header::ACCEPT, HeaderValue::from_static("*/*"));
        recycler.keep(Some(used));
        assert!(recycler.header_map().is_empty());
        let big = HeaderMap::with_capacity(SPARE_HEADER_MAP_CAPACITY * 4);
        recycler.keep(Some(big));
        assert!(recycler.spare_headers.is_empty(), "a large map is not kept");
        let first = recycler.content_type(b"text/plain").expect("valid");
        let again = recycler.content_type(b"text/plain").expect("valid");
        assert_eq!(first, again);
        assert!(recycler.content_type(b"bad\nvalue").is_err());
    }
}
