//! Converting the response JS made into hyper's: its status, its header
//! list, and its framing (`Content-Length`, `Transfer-Encoding`), checked
//! here where a bad one can still be answered 500 and logged. hyper would
//! otherwise refuse to write such a head and close the connection without
//! a word (docs/reference.md, "Answers the host will not send: 500").

use bytes::Bytes;
use deno_error::JsErrorBox;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Response, StatusCode};

use super::body::ResBody;
use super::table::RequestTable;

/// A response status JS gave, as hyper's type: a whole number from 100 to
/// 999. Taken as a JS number, not a small integer: the op's integer
/// conversion truncated `200.5` and wrapped `2 ** 32 + 200` to 200.
pub(super) fn status_code(status: f64) -> Option<StatusCode> {
    if !(100.0..=999.0).contains(&status) || status.fract() != 0.0 {
        return None;
    }
    StatusCode::from_u16(status as u16).ok()
}

/// A response with `status` (checked) and `body`, without headers yet.
pub(super) fn response_head(status: f64, body: ResBody) -> Result<Response<ResBody>, JsErrorBox> {
    let status = status_code(status).ok_or_else(|| {
        JsErrorBox::range_error(format!(
            "invalid response status {status}: a status is a whole number from 100 to 999"
        ))
    })?;
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
/// go into `map`, an empty one (recycled, see `ops::Recycler`).
pub(super) fn header_map(mut map: HeaderMap, count: u32, joined: &[u8]) -> Result<HeaderMap, JsErrorBox> {
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

pub(super) fn build_response(
    status: f64,
    headers: HeaderMap,
    body: ResBody,
) -> Result<Response<ResBody>, JsErrorBox> {
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
pub(super) fn full_response(
    table: &RequestTable,
    id: u32,
    status: f64,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response<ResBody>, JsErrorBox> {
    let length = body.len();
    let mut response = build_response(status, headers, ResBody::full(body))?;
    let headers = response.headers();
    if headers.contains_key(http::header::CONTENT_LENGTH)
        || headers.contains_key(http::header::TRANSFER_ENCODING)
    {
        if let Some(declared) = declared_length(headers)? {
            if !declares_only(table, id, &response) && declared != length as u64 {
                return Err(JsErrorBox::type_error(format!(
                    "the response's content-length of {declared} bytes does not match its body of {length} bytes"
                )));
            }
            one_content_length(response.headers_mut());
        }
    }
    Ok(response)
}

/// Keeps one of several (equal, checked) `Content-Length` values: hyper
/// writes the first and, for a body it knows to be empty (a response to
/// HEAD), refuses the second, closing the connection without an answer.
pub(super) fn one_content_length(headers: &mut HeaderMap) {
    let mut values = headers.get_all(http::header::CONTENT_LENGTH).iter();
    if let (Some(first), Some(_)) = (values.next(), values.next()) {
        let first = first.clone();
        headers.insert(http::header::CONTENT_LENGTH, first);
    }
}

/// Whether `response` carries no body, so a `Content-Length` it declares
/// is only checked to be a number: a response to HEAD and a 304 declare
/// the length of a body they do not send, and a 204 has none (hyper drops
/// both its body and its `Content-Length`).
pub(super) fn declares_only(table: &RequestTable, id: u32, response: &Response<ResBody>) -> bool {
    matches!(
        response.status(),
        StatusCode::NOT_MODIFIED | StatusCode::NO_CONTENT
    ) || table
        .with_slot(id, |slot| slot.method == Method::HEAD)
        .unwrap_or(false)
}

/// The body length `headers`' `Content-Length` declares, if they have one:
/// every value a number of bytes, all the same, and no `Transfer-Encoding`
/// beside it. hyper refuses to write any other head and closes the
/// connection without a word (the client sees an empty reply), so it is
/// refused here, where it can still be answered 500 and logged. A
/// `Transfer-Encoding` must be `chunked`, once: hyper applies no other
/// coding, yet would send the body chunked under the app's header with
/// `chunked` appended (`gzip, chunked` over a body that is not gzip, and
/// `chunked` added to the next header written, such as `connection:
/// close, chunked`), and `chunked` twice would tell the client to decode
/// it twice.
pub(super) fn declared_length(headers: &HeaderMap) -> Result<Option<u64>, JsErrorBox> {
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
    let mut codings = headers.get_all(http::header::TRANSFER_ENCODING).iter();
    if let Some(coding) = codings.next() {
        if declared.is_some() {
            // RFC 9112 section 6.2: a sender must not send both.
            return Err(JsErrorBox::type_error(
                "the response sets both transfer-encoding and content-length: a response is framed by one of them",
            ));
        }
        if !coding.as_bytes().trim_ascii().eq_ignore_ascii_case(b"chunked") || codings.next().is_some() {
            return Err(JsErrorBox::type_error(format!(
                "the response sets transfer-encoding: {:?}: fwbench frames bodies itself and applies no transfer \
                 coding but chunked (to compress, set content-encoding and compress the body)",
                String::from_utf8_lossy(coding.as_bytes())
            )));
        }
    }
    Ok(declared)
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
        assert_eq!(status_code(404.0), Some(StatusCode::NOT_FOUND));
        assert_eq!(status_code(70_000.0), None);
        assert!(response_head(101.0, ResBody::full("")).is_err());
        assert!(response_head(1000.0, ResBody::full("")).is_err());
        assert_eq!(
            response_head(204.0, ResBody::full("")).map(|r| r.status()).ok(),
            Some(StatusCode::NO_CONTENT)
        );
    }
}
