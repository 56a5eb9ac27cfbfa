//! The prod scenario (scenarios/prod.js) on every JS framework: each
//! concern's visible effect on every answer, 200 and 401 alike (the CORS
//! origin, the security headers, a fresh UUID request id), the token
//! verified (200 with the user it names; 401 without a token, with a bad
//! signature, with a malformed one), and the access log's lines in the
//! runtime's bounded sink, in the number and format each package writes by
//! default. The sink is read through tests/fixtures/frameworks/scenarios/
//! prod-probe.js, the built-in apps with one more route, GET /__log. And
//! the concerns it declares: each left out in turn is gone from the answer
//! (tests/fixtures/concerns, in-process under `fwbench test`).

use std::collections::HashSet;

use serde_json::Value;

use crate::support::{fixture, Connection, Response, Server};

/// scenarios/prod.js's token (HS256, sub u_42, expires in 2100).
const TOKEN: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\
eyJzdWIiOiJ1XzQyIiwic2NvcGUiOiJvcmRlcnM6cmVhZCIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.\
pmthC4YMAa0IEHPsL5Fi7Eizs-TZSvQv0h_5TOxBwVQ";
const ORIGIN: &str = "https://app.example.com";
const PATH: &str = "/api/me";

/// The security headers every framework's package sets alike (the
/// scenario's expectation).
const SECURITY_HEADERS: &[(&str, &str)] = &[
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "SAMEORIGIN"),
    ("referrer-policy", "no-referrer"),
    ("x-dns-prefetch-control", "off"),
    ("x-download-options", "noopen"),
    ("x-permitted-cross-domain-policies", "none"),
    ("x-xss-protection", "0"),
];

/// What one framework's logger writes by default.
struct Logging {
    framework: &'static str,
    /// Lines per 200 answer.
    ok: u64,
    /// Lines per 401 answer.
    unauthorized: u64,
    /// Text in a line about a request to the route.
    marker: &'static str,
}

/// hono's logger writes a line in and a line out; fastify's pino logs
/// "incoming request" and "request completed", and a 401's error between
/// them (at info level, as fastify logs a client error); morgan, s200's
/// logger and the elysia logger one line per answer.
const LOGGING: &[Logging] = &[
    Logging {
        framework: "s200",
        ok: 1,
        unauthorized: 1,
        marker: "GET /api/me 401",
    },
    Logging {
        framework: "s200-light",
        ok: 1,
        unauthorized: 1,
        marker: "GET /api/me 401",
    },
    Logging {
        framework: "hono",
        ok: 2,
        unauthorized: 2,
        marker: "--> GET /api/me",
    },
    Logging {
        framework: "hono-patched",
        ok: 2,
        unauthorized: 2,
        marker: "--> GET /api/me",
    },
    Logging {
        framework: "express",
        ok: 1,
        unauthorized: 1,
        marker: "\"GET /api/me HTTP/1.1\" 401",
    },
    Logging {
        framework: "fastify",
        ok: 2,
        unauthorized: 3,
        marker: "\"msg\":\"request completed\"",
    },
    Logging {
        framework: "elysia",
        ok: 1,
        unauthorized: 1,
        marker: "/api/me\"",
    },
];

/// The bad tokens: none, a signature altered, and one that is not a JWT.
fn bad_authorizations() -> Vec<(&'static str, Option<String>)> {
    let mut forged = TOKEN.to_owned();
    let at = TOKEN.rfind('.').expect("three parts") + 1;
    forged.replace_range(at..at + 1, "q");
    vec![
        ("no token", None),
        ("a forged signature", Some(format!("Bearer {forged}"))),
        ("a malformed token", Some("Bearer x.y.z".to_owned())),
    ]
}

fn get(conn: &mut Connection, server: &Server, authorization: Option<&str>, path: &str) -> Response {
    let mut headers = vec![("origin", ORIGIN)];
    if let Some(value) = authorization {
        headers.push(("authorization", value));
    }
    conn.send("GET", path, &headers, None);
    conn.read_response_to("GET")
        .unwrap_or_else(|e| panic!("GET {path}: {e}\n{}", server.stderr()))
}

/// The sink's state, as GET /__log answers it.
fn probe(conn: &mut Connection, server: &Server) -> Value {
    let bearer = format!("Bearer {TOKEN}");
    let response = get(conn, server, Some(&bearer), "/__log");
    assert_eq!(
        response.status,
        200,
        "/__log: {}\n{}",
        response.text(),
        server.stderr()
    );
    serde_json::from_slice(&response.body).expect("the probe answers JSON")
}

/// Checks the concerns every answer shows, whatever its status, and
/// returns its request id.
fn check_concerns(framework: &str, what: &str, response: &Response) -> String {
    assert_eq!(
        response.header_all("access-control-allow-origin"),
        [ORIGIN],
        "{framework} {what}: CORS"
    );
    for (name, value) in SECURITY_HEADERS {
        assert_eq!(response.header_all(name), [*value], "{framework} {what}: {name}");
    }
    let id = response
        .header("x-request-id")
        .unwrap_or_else(|| panic!("{framework} {what}: no x-request-id"));
    assert!(is_uuid_v4(id), "{framework} {what}: request id {id:?}");
    id.to_owned()
}

fn is_uuid_v4(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
        && groups[2].starts_with('4')
}

fn serves_the_chain(logging: &Logging) {
    let framework = logging.framework;
    let server = Server::scenario(framework, fixture("frameworks/scenarios/prod-probe.js"));
    let mut conn = Connection::open(&server.addr);
    let before = probe(&mut conn, &server)["total"].as_u64().expect("a count");
    let mut ids = HashSet::new();
    let bearer = format!("Bearer {TOKEN}");

    const GOOD: u64 = 3;
    for _ in 0..GOOD {
        let response = get(&mut conn, &server, Some(&bearer), PATH);
        assert_eq!(response.status, 200, "{framework}: {}", response.text());
        assert_eq!(
            response.text(),
            r#"{"message":"hello","user":"u_42"}"#,
            "{framework}"
        );
        ids.insert(check_concerns(framework, "200", &response));
    }
    let bad = bad_authorizations();
    for (what, authorization) in &bad {
        let response = get(&mut conn, &server, authorization.as_deref(), PATH);
        assert_eq!(
            response.status,
            401,
            "{framework} with {what}: {}",
            response.text()
        );
        ids.insert(check_concerns(framework, what, &response));
    }
    assert_eq!(
        ids.len(),
        3 + bad.len(),
        "{framework}: a new request id per answer"
    );

    // Between two probes' handlers: every request's lines and one probe's
    // worth (the first's after its handler, the last's before). The elysia
    // logger writes after the answer, so the count may trail a little.
    let mut probes = 0;
    let state = loop {
        probes += 1;
        let state = probe(&mut conn, &server);
        let written = state["total"].as_u64().expect("a count") - before;
        let expected = GOOD * logging.ok + bad.len() as u64 * logging.unauthorized + probes * logging.ok;
        if written >= expected || probes == 20 {
            assert_eq!(written, expected, "{framework}: access-log lines: {state}");
            break state;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let last = state["last"].as_array().expect("the last lines");
    assert!(
        last.iter()
            .any(|line| line.as_str().is_some_and(|line| line.contains(logging.marker))),
        "{framework}: no line with {:?} in {last:?}",
        logging.marker
    );
    assert_eq!(
        server.stderr(),
        "",
        "{framework}: the access log goes to the sink only"
    );
}

/// One test per framework (hono-patched serves hono's app).
macro_rules! per_framework {
    ($($test:ident => $framework:literal,)*) => {
        $(
            #[test]
            fn $test() {
                let logging = LOGGING.iter().find(|l| l.framework == $framework).expect("a LOGGING row");
                serves_the_chain(logging);
            }
        )*

        #[test]
        fn every_js_framework_is_tested() {
            let tested = [$($framework),*];
            let js: Vec<&str> = fwbench::frameworks::FRAMEWORKS
                .iter()
                .filter(|f| f.kind() == fwbench::frameworks::RowKind::Js)
                .map(|f| f.name)
                .collect();
            assert_eq!(tested.to_vec(), js);
            assert_eq!(LOGGING.iter().map(|l| l.framework).collect::<Vec<_>>(), js);
        }
    };
}

per_framework! {
    s200 => "s200",
    s200_light => "s200-light",
    hono => "hono",
    hono_patched => "hono-patched",
    express => "express",
    fastify => "fastify",
    elysia => "elysia",
}

/// The sink keeps its last 1024 lines however many are written: hono's
/// two lines a request overflow it in 520 requests.
#[test]
fn the_access_log_sink_is_bounded() {
    let server = Server::scenario("hono", fixture("frameworks/scenarios/prod-probe.js"));
    let mut conn = Connection::open(&server.addr);
    let bearer = format!("Bearer {TOKEN}");
    for _ in 0..520 {
        let response = get(&mut conn, &server, Some(&bearer), PATH);
        assert_eq!(response.status, 200);
    }
    let state = probe(&mut conn, &server);
    assert!(state["total"].as_u64().expect("a count") > 1024, "{state}");
    assert_eq!(state["kept"], 1024, "{state}");
}

/// The prod scenario's concerns can be left out one at a time (what a
/// later `sweep --ablate` builds): tests/fixtures/concerns/concerns.test.js
/// builds the fetch-style apps without each and checks the answer against
/// `expect` for the same list.
#[test]
fn each_concern_left_out_is_gone_from_the_answer() {
    let out = crate::support::fwbench([std::ffi::OsStr::new("test"), fixture("concerns").as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("6 passed, 0 failed"), "{stdout}");
}

/// scenarios/prod.js's secret, which its tokens are signed with.
const SECRET: &[u8] = b"fwbench-prod-chain-hs256-secret-0123456789";

/// A token of `header` and `claims`, correctly signed with the secret, its
/// segments in base64url or (`standard`) in standard base64 unpadded.
fn signed(header: &str, claims: &str, standard: bool) -> String {
    use base64::Engine as _;
    use hmac::Mac as _;
    let engine = if standard {
        base64::engine::general_purpose::STANDARD_NO_PAD
    } else {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
    };
    let content = format!("{}.{}", engine.encode(header), engine.encode(claims));
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(SECRET).expect("any key length");
    mac.update(content.as_bytes());
    let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    format!("{content}.{signature}")
}

/// s200's auth link is as strict as the libraries it stands beside
/// (jsonwebtoken, jose): a token signed with the right key but bending the
/// format is refused. A string `exp` never expired, and an unknown `crit`
/// or standard-alphabet base64 passed.
#[test]
fn s200s_auth_link_refuses_signed_tokens_that_bend_the_format() {
    let header = r#"{"alg":"HS256","typ":"JWT"}"#;
    let claims = r#"{"sub":"u_42","exp":4102444800,"note":"???>>>"}"#;
    let standard = signed(header, claims, true);
    assert!(
        standard.contains(['+', '/']),
        "the case needs a '+' or '/': {standard}"
    );
    let server = Server::scenario("s200", fixture("frameworks/scenarios/prod-probe.js"));
    let mut conn = Connection::open(&server.addr);
    let status = |conn: &mut Connection, token: &str| {
        get(conn, &server, Some(&format!("Bearer {token}")), PATH).status
    };
    assert_eq!(
        status(&mut conn, &signed(header, claims, false)),
        200,
        "the signer itself is right"
    );
    for (what, token) in [
        (
            "exp as a string",
            signed(header, r#"{"sub":"u_42","exp":"4102444800"}"#, false),
        ),
        (
            "nbf as a string",
            signed(header, r#"{"sub":"u_42","nbf":"0"}"#, false),
        ),
        (
            "an unknown critical extension",
            signed(
                r#"{"alg":"HS256","typ":"JWT","crit":["b64"],"b64":true}"#,
                claims,
                false,
            ),
        ),
        ("standard-alphabet base64", standard),
        ("claims that are no object", signed(header, "42", false)),
    ] {
        assert_eq!(status(&mut conn, &token), 401, "{what}: {token}");
    }
}
