//! The hyper side of one request: checks, hand-off to the worker's JS
//! runtime, and the wait for its answer.

use std::cell::RefCell;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use bytes::BytesMut;
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode};
use hyper::body::{Body, Incoming};

use super::body::{ReqBody, ResBody};
use super::table::{full_url, plain_response, RequestTable, Slot};

/// The last `Host` a connection's request passed [`is_plain_host`] and
/// [`is_url_host`] with: a client sends the same one on every request of a
/// keep-alive connection, and comparing bytes is cheaper than checking them
/// again.
#[derive(Default)]
pub struct KnownHost(RefCell<Vec<u8>>);

impl KnownHost {
    fn is_plain(&self, host: &[u8]) -> bool {
        // Empty until a host passed (and "" is not plain).
        if !host.is_empty() && *self.0.borrow() == host {
            return true;
        }
        let plain = is_plain_host(host) && is_url_host(host);
        if plain {
            let mut known = self.0.borrow_mut();
            known.clear();
            known.extend_from_slice(host);
        }
        plain
    }
}

/// The authority of the URL the app sees: the request target's (absolute
/// form), else the one `Host` header, else the listener's address. Either
/// must be a plain `host[:port]`: it is spliced in front of the path, so
/// anything else (`a/admin?`, `a#`, `user@a`, two headers) would let the
/// client rewrite the path the app routes on, and one the app's URL parser
/// refuses (`a:99999`) would fail in every handler that reads the URL.
/// `None`: answer 400.
fn authority<'a>(parts: &'a http::request::Parts, listener: &'a str, known: &KnownHost) -> Option<&'a str> {
    if let Some(authority) = parts.uri.authority() {
        let authority = authority.as_str();
        return known.is_plain(authority.as_bytes()).then_some(authority);
    }
    let mut hosts = parts.headers.get_all(http::header::HOST).iter();
    let Some(host) = hosts.next() else {
        return Some(listener);
    };
    let plain = known.is_plain(host.as_bytes()) && hosts.next().is_none();
    // Checked: every byte is ASCII.
    plain.then(|| host.to_str().ok()).flatten()
}

/// Whether `host` is a plain `host[:port]`: a name (letters, digits,
/// `-._~` and sub-delims) or a bracketed IPv6 address, then at most a
/// `:` and 1 to 5 digits. Nothing that ends the authority (`/?#`), adds
/// userinfo (`@`) or is not ASCII. Whether the name itself is valid is the
/// URL parser's question, in JS. Byte tests, not `Authority::parse`,
/// because this runs on every request.
fn is_plain_host(host: &[u8]) -> bool {
    let (name, port) = match host.first() {
        Some(b'[') => match host.iter().position(|&b| b == b']') {
            Some(end) => (&host[1..end], &host[end + 1..]),
            None => return false,
        },
        _ => match host.iter().position(|&b| b == b':') {
            Some(colon) => host.split_at(colon),
            None => (host, &[][..]),
        },
    };
    let bracketed = host.first() == Some(&b'[');
    let name_ok = !name.is_empty()
        && name
            .iter()
            .all(|&b| NAME_BYTES[usize::from(b)] || (bracketed && (b == b':' || b == b'.')));
    let port_ok = match port {
        [] => true,
        [b':', digits @ ..] => (1..=5).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    name_ok && port_ok
}

/// Whether the URL parser apps read `request.url` with takes `host` (a
/// plain one) as a URL's host and port. The byte check lets through what
/// only that parser refuses: a port past 65535 (`a:99999`), a name that
/// reads as an IPv4 address but is not one (`1.2.3.4.5`,
/// `999.999.999.999`), brackets around no IPv6 address (`[zz]`). The same
/// parser (the `url` crate, behind deno_web's `URL`), so the two cannot
/// disagree; it runs once per connection and `Host` (see [`KnownHost`]).
fn is_url_host(host: &[u8]) -> bool {
    std::str::from_utf8(host).is_ok_and(|host| deno_core::url::Url::parse(&format!("http://{host}/")).is_ok())
}

/// The bytes a host name may hold, as a table (an IPv6 address in
/// brackets also holds `:`).
const NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let allowed = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-._~!$&'()*+,;=";
    let mut i = 0;
    while i < allowed.len() {
        table[allowed[i] as usize] = true;
        i += 1;
    }
    table
};

/// Moves the header values' bytes out of hyper's read buffer into one
/// buffer of their own. While a request waits for JS, hyper reads its
/// connection to notice a client that went away, and reserves read space
/// first; as long as the request's values still share its read buffer,
/// that reserve cannot reuse the buffer and allocates a new one (8 KiB, on
/// every request). One copy of the values costs less.
fn detach_values(headers: &mut HeaderMap) {
    let total: usize = headers.values().map(|value| value.len()).sum();
    let mut bytes = BytesMut::with_capacity(total);
    for value in headers.values() {
        bytes.extend_from_slice(value.as_bytes());
    }
    let bytes = bytes.freeze();
    let mut start = 0;
    for value in headers.values_mut() {
        let end = start + value.len();
        // Copied from a valid value, so valid: the check cannot fail.
        if let Ok(copy) = HeaderValue::from_maybe_shared(bytes.slice(start..end)) {
            *value = copy;
        }
        start = end;
    }
}

/// Answers one request through the worker's JS app: checks it and hands
/// it to JS at once, when hyper calls the service, and returns the future
/// that waits for the answer. At once because hyper reads the connection
/// again before it first polls that future (see [`detach_values`]).
/// `listen_addr` is the worker's listening address, the authority of a
/// request without a Host header.
pub fn handle(
    table: &Rc<RequestTable>,
    request: Request<Incoming>,
    listen_addr: &str,
    known_host: &KnownHost,
) -> Answer {
    let limit = table.config.max_body_bytes;
    if let Some(length) = request.body().size_hint().exact() {
        if length > limit as u64 {
            return Answer::refused(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request body of {length} bytes exceeds the limit of {limit}"),
            );
        }
    }
    let (parts, body) = request.into_parts();
    let Some(authority) = authority(&parts, listen_addr, known_host) else {
        return Answer::refused(StatusCode::BAD_REQUEST, "the Host header is not a host[:port]");
    };
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    if !path.is_ascii() {
        // hyper passes raw bytes past 0x7F in the target through; read as
        // Latin-1 they would reach the app as other characters than the
        // client meant (`é` sent as UTF-8 read as `Ã©`). Node answers 400.
        return Answer::refused(
            StatusCode::BAD_REQUEST,
            "the request target holds bytes that are not ASCII: percent-encode them",
        );
    }
    let has_body = !body.is_end_stream();
    let url = full_url(authority, path);
    let http::request::Parts {
        method, mut headers, ..
    } = parts;
    detach_values(&mut headers);
    let id = table.submit(Slot::new(
        method,
        url,
        headers,
        has_body.then_some(ReqBody::Stream(body)),
    ));
    Answer::Waiting(table.clone(), id)
}

/// The answer to one request, as hyper's service future.
pub enum Answer {
    /// Refused before JS saw it (taken when polled).
    Refused(Option<Response<ResBody>>),
    /// Waiting in the worker's table: the answer comes from JS, from the
    /// handler-timeout sweep (504) or from a runtime rebuild (503).
    Waiting(Rc<RequestTable>, u32),
}

impl Answer {
    fn refused(status: StatusCode, message: &str) -> Self {
        Self::Refused(Some(plain_response(status, message)))
    }
}

impl Future for Answer {
    type Output = Result<Response<ResBody>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Answer::Refused(response) => {
                Poll::Ready(Ok(response.take().expect("Answer polled after completion")))
            }
            Answer::Waiting(table, id) => table.poll_answer(*id, cx).map(Ok),
        }
    }
}

impl Drop for Answer {
    /// Removes the request and its answer from the tables: the answer was
    /// taken, or the client disconnected and hyper dropped the future, and
    /// an answer nobody waits for must not stay.
    fn drop(&mut self) {
        if let Answer::Waiting(table, id) = self {
            table.forget(*id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(host: &[&str]) -> http::request::Parts {
        let mut request = Request::builder().uri("/p?q=1");
        for value in host {
            request = request.header(http::header::HOST, *value);
        }
        request.body(()).expect("valid request").into_parts().0
    }

    #[test]
    fn the_host_header_names_the_authority_when_it_is_plain() {
        for host in [
            "example.test",
            "example.test:8080",
            "127.0.0.1:80",
            "[::1]:8080",
            "a-b.c_d~",
            "a:65535",
        ] {
            assert_eq!(
                authority(&parts(&[host]), "listener:1", &KnownHost::default()),
                Some(host),
                "{host}"
            );
        }
        assert_eq!(
            authority(&parts(&[]), "127.0.0.1:9", &KnownHost::default()),
            Some("127.0.0.1:9")
        );
    }

    #[test]
    fn a_host_that_could_rewrite_the_path_is_refused() {
        for host in [
            "a/admin?",
            "a#",
            "a b",
            "user@a",
            "a\\b",
            "",
            "h\u{e9}",
            "a:b",
            "a:1:2",
            "[x",
            "]",
            ":80",
            "a:",
            "a:123456",
            "%zz",
            "[::1]x",
            "[::1]:8a",
            "a:99999",
            "a:65536",
            "[zz]",
            "1.2.3.4.5",
            "999.999.999.999",
        ] {
            assert_eq!(
                authority(&parts(&[host]), "listener:1", &KnownHost::default()),
                None,
                "{host:?}"
            );
        }
        assert_eq!(
            authority(&parts(&["a", "b"]), "listener:1", &KnownHost::default()),
            None
        );
    }

    #[test]
    fn a_connection_remembers_its_plain_host_and_still_refuses_others() {
        let known = KnownHost::default();
        assert_eq!(
            authority(&parts(&["a.test:80"]), "l:1", &known),
            Some("a.test:80")
        );
        assert_eq!(
            authority(&parts(&["a.test:80"]), "l:1", &known),
            Some("a.test:80")
        );
        assert_eq!(authority(&parts(&["a/admin?"]), "l:1", &known), None);
        assert_eq!(
            authority(&parts(&["a.test:80", "a.test:80"]), "l:1", &known),
            None
        );
        assert_eq!(authority(&parts(&[""]), "l:1", &KnownHost::default()), None);
        assert_eq!(authority(&parts(&["b.test"]), "l:1", &known), Some("b.test"));
        assert_eq!(
            authority(&parts(&["a.test:80"]), "l:1", &known),
            Some("a.test:80")
        );
    }

    #[test]
    fn detached_values_keep_their_bytes_and_free_the_read_buffer() {
        let read_buffer = bytes::Bytes::from(b"example.test:80text/html, */*".to_vec());
        let value = |range: std::ops::Range<usize>| {
            HeaderValue::from_maybe_shared(read_buffer.slice(range)).expect("valid value")
        };
        let mut headers = HeaderMap::new();
        headers.insert(http::header::HOST, value(0..15));
        headers.append(http::header::ACCEPT, value(15..24));
        headers.append(http::header::ACCEPT, value(26..29));

        detach_values(&mut headers);

        assert_eq!(headers[http::header::HOST], "example.test:80");
        let accepts: Vec<_> = headers.get_all(http::header::ACCEPT).iter().collect();
        assert_eq!(accepts, ["text/html", "*/*"]);
        assert!(
            read_buffer.try_into_mut().is_ok(),
            "the read buffer is still shared with the header values"
        );
    }
}
