//! The answers of the built-ins past the article's three, as the native
//! rows build them (the JS apps' work in plain Rust): the json-post order
//! summary, the big-json users page, the error scenario's failing handler,
//! and the routes scenario's table (read from the file the JS apps import)
//! with its answers and its not-found body. hyper and axum differ only in
//! how they route and extract; what they compute is here, once.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The fields of scenarios/json-post.js's order the summary reads; serde
/// skips the rest while it parses.
#[derive(Debug, Deserialize)]
pub struct Order {
    id: String,
    currency: String,
    items: Vec<Item>,
}

#[derive(Debug, Deserialize)]
struct Item {
    quantity: u64,
    #[serde(rename = "unitPrice")]
    unit_price: u64,
}

/// The one field json-post checks: an order in another currency is refused.
const CURRENCY: &str = "EUR";

/// json-post's answer to a refused order (422).
pub const REFUSED_JSON: &str = r#"{"error":"unsupported currency"}"#;

#[derive(Serialize)]
struct Summary<'a> {
    id: &'a str,
    status: &'static str,
    lines: usize,
    quantity: u64,
    total: u64,
    currency: &'a str,
}

/// json-post's answer: `Some` summary JSON for an accepted order (201),
/// `None` for one in another currency (422 with [`REFUSED_JSON`]).
pub fn summarize(order: &Order) -> Option<String> {
    if order.currency != CURRENCY {
        return None;
    }
    let summary = Summary {
        id: &order.id,
        status: "accepted",
        lines: order.items.len(),
        quantity: order.items.iter().map(|item| item.quantity).sum(),
        total: order
            .items
            .iter()
            .map(|item| item.quantity * item.unit_price)
            .sum(),
        currency: &order.currency,
    };
    Some(serde_json::to_string(&summary).expect("a summary serializes"))
}

#[derive(Serialize)]
struct UsersPage {
    page: u32,
    #[serde(rename = "perPage")]
    per_page: u32,
    total: u32,
    items: Vec<User>,
}

#[derive(Serialize)]
struct User {
    id: u32,
    login: String,
    name: String,
    email: String,
    active: bool,
    roles: Vec<&'static str>,
    stats: Stats,
    #[serde(rename = "createdAt")]
    created_at: String,
}

#[derive(Serialize)]
struct Stats {
    repos: u32,
    followers: u32,
    following: u32,
}

/// big-json's page size (scenarios/big-json.js's PER_PAGE).
const PER_PAGE: u32 = 80;

/// big-json's answer: the page of users built and serialized now, as
/// scenarios/big-json.js's usersPage() is on every request.
pub fn users_page() -> Vec<u8> {
    let items = (1..=PER_PAGE)
        .map(|i| User {
            id: 1000 + i,
            login: format!("user{i}"),
            name: format!("User Number {i}"),
            email: format!("user{i}@example.com"),
            active: i % 3 != 0,
            roles: if i % 5 == 0 {
                vec!["admin", "editor"]
            } else {
                vec!["reader"]
            },
            stats: Stats {
                repos: (i * 7) % 40,
                followers: (i * 131) % 997,
                following: (i * 17) % 89,
            },
            created_at: format!("2025-{:02}-{:02}T09:00:00Z", i % 12 + 1, i % 28 + 1),
        })
        .collect();
    let page = UsersPage {
        page: 1,
        per_page: PER_PAGE,
        total: 1250,
        items,
    };
    serde_json::to_vec(&page).expect("a users page serializes")
}

/// What the error scenario's handler fails with.
#[derive(Debug)]
pub struct StoreUnavailable;

impl std::fmt::Display for StoreUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("order store unavailable")
    }
}

impl std::error::Error for StoreUnavailable {}

/// The error scenario's handler work: it fails, as a lost database
/// connection would (scenarios/error.js's loadOrder).
pub fn load_order(_id: &str) -> Result<String, StoreUnavailable> {
    Err(StoreUnavailable)
}

/// The error scenario's 500 body for `error`: `{"error": <message>}`.
pub fn error_json(error: &dyn std::error::Error) -> String {
    serde_json::json!({ "error": error.to_string() }).to_string()
}

/// One route of scenarios/data/github-routes.js.
#[derive(Debug)]
pub struct Route {
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: String,
    /// The path, parameters as `:name`.
    pub path: String,
    /// GitHub's operation id, the first field of the answer.
    pub id: String,
}

/// The route table the JS apps register, in the same order.
const ROUTES_JS: &str = include_str!("../../scenarios/data/github-routes.js");

/// routes and routes-miss's answer to a path no route takes (404): GitHub's.
pub const NOT_FOUND_JSON: &str =
    r#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#;

/// The route table, read once from scenarios/data/github-routes.js, whose
/// `export default` is a JSON array of [method, path, operation id].
pub fn routes() -> &'static [Route] {
    static ROUTES: OnceLock<Vec<Route>> = OnceLock::new();
    ROUTES.get_or_init(|| {
        parse_routes(ROUTES_JS).expect("scenarios/data/github-routes.js holds a JSON route table")
    })
}

/// Reads the table out of the module's text.
fn parse_routes(module: &str) -> Result<Vec<Route>, String> {
    let (_, table) = module
        .split_once("\nexport default ")
        .ok_or("no line starting `export default` in the route table module")?;
    let table = table.trim().trim_end_matches(';');
    let rows: Vec<(String, String, String)> = serde_json::from_str(table)
        .map_err(|error| format!("the route table is not a JSON array of triples: {error}"))?;
    Ok(rows
        .into_iter()
        .map(|(method, path, id)| Route { method, path, id })
        .collect())
}

/// A route's answer: `{"route": <id>, <param>: <value>, ...}`, the
/// parameters in the path's order (as the JS apps build it).
pub fn route_answer<'a>(id: &str, params: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let quote = |text: &str| serde_json::to_string(text).expect("a string serializes");
    let mut out = format!("{{\"route\":{}", quote(id));
    for (name, value) in params {
        out.push(',');
        out.push_str(&quote(name));
        out.push(':');
        out.push_str(&quote(value));
    }
    out.push('}');
    out
}

/// The first route that takes `method` and `path`, with its parameters (the
/// path's segments, not percent-decoded): the routes tried in order, as a
/// router-less hyper app would.
pub fn find_route<'a>(method: &str, path: &'a str) -> Option<(&'static Route, Vec<(&'static str, &'a str)>)> {
    routes().iter().find_map(|route| {
        if route.method != method {
            return None;
        }
        let mut params = Vec::new();
        let mut wanted = route.path.split('/');
        let mut given = path.split('/');
        loop {
            match (wanted.next(), given.next()) {
                (None, None) => return Some((route, params)),
                (Some(pattern), Some(segment)) => match pattern.strip_prefix(':') {
                    Some(name) if !segment.is_empty() => params.push((name, segment)),
                    None if pattern == segment => {}
                    _ => return None,
                },
                _ => return None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_route_table_has_its_hundred_routes() {
        let routes = routes();
        assert_eq!(routes.len(), 100);
        assert_eq!(routes[0].path, "/user");
        assert_eq!(routes[97].id, "actions/list-jobs-for-workflow-run");
        assert!(parse_routes("// export default [\nexport default [[\"GET\"]];").is_err());
    }

    #[test]
    fn routes_match_in_order_with_their_parameters() {
        let (route, params) = find_route("GET", "/repos/fwbench/bench/issues/comments").unwrap();
        assert_eq!(route.id, "issues/list-comments-for-repo");
        assert_eq!(params, [("owner", "fwbench"), ("repo", "bench")]);
        let (route, params) = find_route("GET", "/repos/fwbench/bench/issues/25").unwrap();
        assert_eq!(route.id, "issues/get");
        assert_eq!(params[2], ("issue_number", "25"));
        assert!(find_route("POST", "/repos/fwbench/bench/issues/25").is_none());
        assert!(find_route("GET", "/repos/fwbench/bench/discussions/7").is_none());
        assert!(find_route("GET", "/users//repos").is_none());
    }

    #[test]
    fn answers_are_the_js_apps_json() {
        let answer = route_answer("repos/get", [("owner", "a\"b"), ("repo", "c")]);
        assert_eq!(answer, r#"{"route":"repos/get","owner":"a\"b","repo":"c"}"#);
        let order: Order = serde_json::from_str(
            r#"{"id":"o1","currency":"EUR","x":[1],"items":[{"quantity":2,"unitPrice":5,"sku":"s"}]}"#,
        )
        .unwrap();
        assert_eq!(
            summarize(&order).unwrap(),
            r#"{"id":"o1","status":"accepted","lines":1,"quantity":2,"total":10,"currency":"EUR"}"#
        );
        let dollars: Order = serde_json::from_str(r#"{"id":"o1","currency":"USD","items":[]}"#).unwrap();
        assert_eq!(summarize(&dollars), None);
        assert_eq!(
            error_json(&load_order("42").unwrap_err()),
            r#"{"error":"order store unavailable"}"#
        );
    }
}
