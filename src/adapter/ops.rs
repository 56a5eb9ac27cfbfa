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
use http::{HeaderMap, HeaderValue, StatusCode};

use super::body::ResBody;
use super::response::{
    build_response, declared_length, declares_only, full_response, header_map, one_content_length,
    response_head,
};
use super::stream::OpenStream;
use super::table::{plain_response, RequestTable};

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
    status: f64,
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
    status: f64,
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
    status: f64,
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
/// `op_fwbench_stream_write`. A head that declares no bytes waits for the
/// stream's end instead (adapter/stream.rs), and a response that carries
/// no body is sent without it.
#[op2(fast)]
#[smi]
pub fn op_fwbench_respond_stream(
    state: &mut OpState,
    #[smi] id: u32,
    status: f64,
    header_count: u32,
    #[string(onebyte)] headers: Cow<[u8]>,
) -> Result<u32, JsErrorBox> {
    let AdapterState { table, recycler } = state.borrow_mut::<AdapterState>();
    let headers = header_map(recycler.header_map(), header_count, &headers)?;
    let mut head = build_response(status, headers, ResBody::full(Bytes::new()))?;
    let declared = declared_length(head.headers())?;
    if declared.is_some() {
        one_content_length(head.headers_mut());
    }
    if declares_only(table, id, &head) {
        // No body goes out (a response to HEAD, a 204, a 304): the head is
        // the whole response, and the stream is not read (its first write
        // finds no stream, and serve.js cancels it). Read, it could fail
        // after the response was complete, logging a cut that never was.
        recycler.keep(table.reply(id, head));
        return Ok(id);
    }
    // A few chunks of slack; past that, JS waits for the client.
    let (body, tx) = ResBody::stream(8, declared);
    let response = head.map(|_| body);
    if OpenStream::head_waits(declared) {
        table.open_stream(
            id,
            OpenStream::new(tx, table.describe(id), declared, Some(response)),
        );
    } else {
        table.open_stream(id, OpenStream::new(tx, table.describe(id), declared, None));
        recycler.keep(table.reply(id, response));
    }
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

/// Ends a streamed response: completed, or `failed` with JS's description
/// of the error (the client sees a cut body, and one log line names it).
#[op2(fast)]
pub fn op_fwbench_stream_close(state: &mut OpState, #[smi] sid: u32, failed: bool, #[string] error: &str) {
    let failure = failed.then(|| format!("the response stream failed: {error}"));
    state.borrow::<AdapterState>().table.close_stream(sid, failure);
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
    let status = u16::try_from(status)
        .ok()
        .and_then(|code| StatusCode::from_u16(code).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
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
    const SERVE: &str = crate::engine::snapshot_sets::ADAPTER_MODULE;
    let mut ext = fwbench_adapter::init(table);
    ext.esm_files = Cow::Owned(vec![deno_core::ExtensionFileSource::new(
        SERVE,
        deno_core::ascii_str_include!("../../js/runtime/serve.js"),
    )]);
    ext.esm_entry_point = Some(SERVE);
    ext
}

#[cfg(test)]
mod tests {
    use super::*;

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
