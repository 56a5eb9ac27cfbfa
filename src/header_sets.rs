//! Request header sets: the headers a kind of client sends on every request
//! (`--headers minimal|browser|api` on `bench`, `sweep`, `check`, `load`,
//! and `serve --in-runtime`; a scenario may name its own with `export const
//! headerSet = 'browser'`). The built-in scenarios send one or two headers
//! of their own; real clients send a dozen, and node-style frameworks pay
//! per header to build `req.headers`, so the set can move the ranking.
//!
//! A set is only ever combined with a request's own headers by
//! [`HeaderSet::compose`]: the request's own header wins over the set's
//! header of the same name. Where each value comes from is in
//! docs/header-sets.md; keep the two in step.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A named set of request headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HeaderSet {
    /// No headers of its own: the request's own headers only (what every
    /// run sent before header sets existed, so old figures stay comparable).
    #[default]
    Minimal,
    /// A desktop Chrome 150 on Windows fetching JSON from its own origin
    /// (`fetch('/api/…')` from a page), with a session's cookies.
    Browser,
    /// A server-side API client: a bearer token, JSON content type and
    /// accept, its own user agent, a request id.
    Api,
}

/// Every set, in the order `--help` and errors list them.
pub const ALL: [HeaderSet; 3] = [HeaderSet::Minimal, HeaderSet::Browser, HeaderSet::Api];

/// The browser set's cookies: 15 of them in 604 bytes, the mix a logged-in
/// page carries (analytics, consent, preferences, CSRF, session, cart).
const BROWSER_COOKIE: &str = "_ga=GA1.1.1548733927.1780306802; \
    _ga_7X2K9QH4LM=GS2.1.s1785360012$o14$g1$t1785360190$j52$l0$h0; \
    _gid=GA1.1.901273645.1785359999; _fbp=fb.1.1780306803112.734216859; \
    cookie_consent=necessary%2Cpreferences%2Cstatistics; locale=en-US; theme=dark; \
    tz=Europe%2FBerlin; csrftoken=Xq3vN8kLp2RtY7wZ5mB1cD9fG4hJ6sA0eU2iO8yT; \
    sessionid=s%3AqT7vRk2mX9pL4wN8cB3yH6jF1dZ5gS0a.Vh8Kc3nP5tW2xR7mQ9zL4bY6fJ1dG8sA3eU0iO5yT2k; \
    cart_id=c7e2b9f4-3a1d-4c8e-9b5f-6d2a8e1c0f47; ab_checkout=variant-b; \
    recent_search=%5B%22rust%22%2C%22hono%22%5D; last_visit=1785360190; \
    _hjSessionUser_381726=eyJpZCI6IjRlOGM5YjFhLTJkM2YiLCJjIjoxfQ";

/// Chrome 150's headers on HTTP/1.1, in the order it sends them (Host,
/// which the load generator writes, comes first on the wire).
const BROWSER: &[(&str, &str)] = &[
    ("Connection", "keep-alive"),
    ("sec-ch-ua-platform", "\"Windows\""),
    (
        "User-Agent",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
         Chrome/150.0.0.0 Safari/537.36",
    ),
    ("Accept", "*/*"),
    (
        "sec-ch-ua",
        "\"Not;A=Brand\";v=\"8\", \"Chromium\";v=\"150\", \"Google Chrome\";v=\"150\"",
    ),
    ("sec-ch-ua-mobile", "?0"),
    ("Sec-Fetch-Site", "same-origin"),
    ("Sec-Fetch-Mode", "cors"),
    ("Sec-Fetch-Dest", "empty"),
    ("Referer", "http://localhost:3000/dashboard/orders?page=2"),
    ("Accept-Encoding", "gzip, deflate, br, zstd"),
    ("Accept-Language", "en-US,en;q=0.9"),
    ("Cookie", BROWSER_COOKIE),
];

/// An RS256 JWT's shape and size: a real header and claims, base64url, and
/// 256 bytes of made-up signature (nothing can verify it).
const API_TOKEN: &str = "Bearer \
    eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjJmNmMxZTBhOWIifQ.\
    eyJpc3MiOiJodHRwczovL2F1dGguZXhhbXBsZS5jb20vIiwic3ViIjoidXNlcl8wMUhaWDRNOFEyVko3SzNOOVA1UjZUOFcwWSIs\
    ImF1ZCI6Imh0dHBzOi8vYXBpLmV4YW1wbGUuY29tIiwiaWF0IjoxNzk2MDgzMjAwLCJleHAiOjE3OTYwODY4MDAsInNjb3BlIjoi\
    cmVhZDpvcmRlcnMgd3JpdGU6b3JkZXJzIiwiYXpwIjoid2ViLWRhc2hib2FyZCJ9.\
    5Q26KBGOUAwxXTVKQSndItm6w2j4pONnHLqnUaeElAJcYyAPSUy4tgRhgfDexEXY4nRh1HWZynzHTZMQjP74hQHVLXfIiYgQiS_c\
    1gRk9Vd0ytdoTuB-UpcE2Hsba2dZvlsTh3Z362CnAyt-NJN-benwJ4uJZzha9ic5sKkNWiG5CgQkjf2igbYFvWyZj9ZF2zCL9dCF\
    mx-ev1PwuLhSAt_bW2tqhuK9lJLAMS-8OEUHQHxc6skynF7fRLffZtFGovakAwmxB-u_-Y3RtlCHxQjYmU_7nCnY69Brv9xGI-Yl\
    CzBst3NfCUrfrgm1XOnBYotsMWm7xA8Pihxb-9zfxQ";

/// A service calling an API through its SDK.
const API: &[(&str, &str)] = &[
    ("authorization", API_TOKEN),
    ("content-type", "application/json"),
    ("accept", "application/json"),
    ("user-agent", "acme-orders-sdk/3.8.1 (node/22.11.0; linux x64)"),
    ("x-request-id", "0b7c6f1e-5d2a-4e9b-8f3c-1a6d9e2b4c70"),
];

impl HeaderSet {
    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            HeaderSet::Minimal => "minimal",
            HeaderSet::Browser => "browser",
            HeaderSet::Api => "api",
        }
    }

    /// Its headers, in the order they are sent.
    pub fn headers(self) -> &'static [(&'static str, &'static str)] {
        match self {
            HeaderSet::Minimal => &[],
            HeaderSet::Browser => BROWSER,
            HeaderSet::Api => API,
        }
    }

    /// The headers a request sends under this set: the set's, each in its
    /// place unless `own` names the same header (case-insensitively), in
    /// which case `own`'s value takes that place; then `own`'s other
    /// headers, in their order. A request's own headers always win: they
    /// are what the request is about (mw's `x-test`, hello's `accept`).
    pub fn compose(self, own: &[(String, String)]) -> Vec<(String, String)> {
        let mut used = vec![false; own.len()];
        let mut headers = Vec::with_capacity(self.headers().len() + own.len());
        for (name, value) in self.headers() {
            match own.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)) {
                Some(index) => {
                    headers.push(own[index].clone());
                    used[index] = true;
                }
                None => headers.push(((*name).to_owned(), (*value).to_owned())),
            }
        }
        headers.extend(
            own.iter()
                .zip(&used)
                .filter(|(_, used)| !**used)
                .map(|(header, _)| header.clone()),
        );
        headers
    }
}

impl fmt::Display for HeaderSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HeaderSet {
    type Err = String;

    fn from_str(text: &str) -> Result<HeaderSet, String> {
        let wanted = text.trim();
        ALL.into_iter()
            .find(|set| set.name().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| {
                format!(
                    "unknown header set '{text}': expected minimal (the request's own headers \
                     only), browser (a desktop Chrome's fetch, with cookies) or api (an API \
                     client with a bearer token); docs/header-sets.md lists each"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn minimal_sends_the_requests_own_headers_only() {
        let mine = own(&[("x-test", "1"), ("accept", "application/json")]);
        assert_eq!(HeaderSet::Minimal.compose(&mine), mine);
        assert!(HeaderSet::Minimal.compose(&[]).is_empty());
    }

    #[test]
    fn a_requests_own_header_wins_in_the_sets_place() {
        let sent = HeaderSet::Api.compose(&own(&[("x-test", "1"), ("Accept", "text/plain")]));
        let names: Vec<&str> = sent.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "authorization",
                "content-type",
                "Accept",
                "user-agent",
                "x-request-id",
                "x-test"
            ]
        );
        assert_eq!(sent[2].1, "text/plain");
        assert_eq!(sent.len(), API.len() + 1);
    }

    #[test]
    fn the_browser_set_is_what_the_docs_say() {
        let names: Vec<String> = BROWSER.iter().map(|(n, _)| n.to_ascii_lowercase()).collect();
        for wanted in [
            "accept",
            "accept-encoding",
            "accept-language",
            "user-agent",
            "sec-fetch-dest",
            "sec-fetch-mode",
            "sec-fetch-site",
            "sec-ch-ua",
            "sec-ch-ua-mobile",
            "sec-ch-ua-platform",
            "referer",
            "cookie",
        ] {
            assert!(names.iter().any(|n| n == wanted), "no {wanted} in {names:?}");
        }
        assert_eq!(BROWSER_COOKIE.len(), 604);
        assert_eq!(BROWSER_COOKIE.split("; ").count(), 15);
        assert!(!BROWSER_COOKIE.contains("  "), "line continuations left spaces");
    }

    #[test]
    fn the_api_token_looks_like_a_jwt() {
        let token = API_TOKEN.strip_prefix("Bearer ").unwrap();
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3);
        let base64url = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        assert!(parts.iter().all(|p| !p.is_empty() && p.chars().all(base64url)));
        // 256 bytes of RS256 signature are 342 base64url characters.
        assert_eq!(parts[2].len(), 342);
    }

    #[test]
    fn every_value_is_a_valid_header_line() {
        for set in ALL {
            for (name, value) in set.headers() {
                assert!(http::HeaderName::from_bytes(name.as_bytes()).is_ok(), "{name}");
                assert!(http::HeaderValue::from_str(value).is_ok(), "{name}: {value}");
            }
        }
    }

    #[test]
    fn names_parse_and_unknown_ones_list_the_sets() {
        for set in ALL {
            assert_eq!(set.name().parse::<HeaderSet>(), Ok(set));
        }
        assert_eq!("Browser".parse::<HeaderSet>(), Ok(HeaderSet::Browser));
        let error = "chrome".parse::<HeaderSet>().unwrap_err();
        assert!(error.contains("'chrome'") && error.contains("minimal"), "{error}");
        assert!(error.contains("browser") && error.contains("api"), "{error}");
    }
}
