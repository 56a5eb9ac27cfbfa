//! Checking a response against a scenario's expectations.

use super::ScenarioExpectations;

/// A response as seen on the wire, for checking.
#[derive(Debug, Clone, Default)]
pub struct SeenResponse {
    /// Status code.
    pub status: u16,
    /// Headers in order, names lower case.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl SeenResponse {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The media type of a content-type value: lower case, parameters dropped.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Every way `seen` differs from `expect`, each as one readable line; empty
/// when the response is as expected.
pub fn mismatches(expect: &ScenarioExpectations, seen: &SeenResponse) -> Vec<String> {
    let mut problems = Vec::new();
    if seen.status != expect.status {
        problems.push(format!("status {} (expected {})", seen.status, expect.status));
    }
    if let Some(body) = &expect.body {
        if seen.body != body.as_bytes() {
            let shown = String::from_utf8_lossy(&seen.body);
            let shown: String = shown.chars().take(200).collect();
            problems.push(format!("body {shown:?} (expected {body:?})"));
        }
    }
    if let Some(wanted) = &expect.content_type {
        match seen.header("content-type") {
            Some(actual) if media_type(actual) == media_type(wanted) => {}
            Some(actual) => problems.push(format!("content-type {actual:?} (expected {wanted:?})")),
            None => problems.push(format!("no content-type (expected {wanted:?})")),
        }
    }
    for (name, value) in &expect.headers {
        match seen.header(name) {
            Some(actual) if actual == value => {}
            Some(actual) => problems.push(format!("header {name}: {actual:?} (expected {value:?})")),
            None => problems.push(format!("no {name} header (expected {value:?})")),
        }
    }
    for name in &expect.headers_present {
        if seen.header(name).is_none() {
            problems.push(format!("no {name} header (expected one, any value)"));
        }
    }
    for name in &expect.headers_absent {
        if let Some(actual) = seen.header(name) {
            problems.push(format!("header {name}: {actual:?} (expected none)"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mw_expect() -> ScenarioExpectations {
        ScenarioExpectations {
            status: 200,
            body: Some(r#"{"message":"hello"}"#.into()),
            content_type: Some("application/json".into()),
            headers: vec![("x-mw-1".into(), "1".into())],
            headers_present: vec!["x-request-id".into()],
            headers_absent: vec!["access-control-allow-origin".into()],
        }
    }

    fn seen(status: u16, headers: &[(&str, &str)], body: &str) -> SeenResponse {
        SeenResponse {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_matching_response_passes_whatever_the_charset() {
        let ok = seen(
            200,
            &[
                ("content-type", "application/json; charset=utf-8"),
                ("X-MW-1", "1"),
                ("x-request-id", "3f1c"),
            ],
            r#"{"message":"hello"}"#,
        );
        assert!(mismatches(&mw_expect(), &ok).is_empty());
    }

    #[test]
    fn each_difference_is_named() {
        let bad = seen(404, &[("content-type", "text/plain")], "Not Found");
        let problems = mismatches(&mw_expect(), &bad);
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems[0].starts_with("status 404"));
        assert!(problems[1].contains("Not Found"));
        assert!(problems[2].contains("text/plain"));
        assert!(problems[3].contains("no x-mw-1 header"));
        assert!(problems[4].contains("no x-request-id header (expected one, any value)"));
    }

    #[test]
    fn a_header_that_should_be_gone_is_named() {
        let leaked = seen(
            200,
            &[
                ("content-type", "application/json"),
                ("x-mw-1", "1"),
                ("x-request-id", "3f1c"),
                ("Access-Control-Allow-Origin", "*"),
            ],
            r#"{"message":"hello"}"#,
        );
        assert_eq!(
            mismatches(&mw_expect(), &leaked),
            ["header access-control-allow-origin: \"*\" (expected none)"]
        );
    }
}
