//! The error scenario on every framework: the handler's throw becomes the
//! 500 JSON answer with every link's header (scenarios/error.js), and
//! nothing is logged per request except where the framework logs by
//! default: s200 (and s200-light) print each caught error with
//! console.error unless the app turns `logErrors` off; hono, express,
//! fastify (logger off by default), elysia and the native rows print
//! nothing once an error handler answers.

use std::time::Duration;

use fwbench::frameworks::FRAMEWORKS;

use crate::support::Server;

/// Requests sent to each server.
const REQUESTS: usize = 3;

#[test]
fn the_error_scenario_answers_500_json_and_logs_only_where_the_framework_does() {
    for framework in FRAMEWORKS.iter().map(|f| f.name) {
        let server = Server::scenario(framework, "error");
        for _ in 0..REQUESTS {
            let response = server.request("GET", "/api/orders/42", &[("x-test", "1")], None);
            assert_eq!(response.status, 500, "{framework}: {}", response.text());
            assert_eq!(
                response.text(),
                r#"{"error":"order store unavailable"}"#,
                "{framework}"
            );
            for i in 1..=5 {
                assert_eq!(
                    response.header_all(&format!("x-mw-{i}")),
                    [i.to_string().as_str()],
                    "{framework}: x-mw-{i}"
                );
            }
        }
        let logs_by_default = framework.starts_with("s200");
        let line = "s200: error in GET /api/orders/42: Error: order store unavailable";
        let log = if logs_by_default {
            // The line is written before the answer; the test's stderr
            // reader may lag behind it.
            let mut log = server.wait_for_log(line, Duration::from_secs(5));
            for _ in 0..50 {
                if log.matches(line).count() >= REQUESTS {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
                log = server.stderr();
            }
            log
        } else {
            std::thread::sleep(Duration::from_millis(200));
            server.stderr()
        };
        if logs_by_default {
            assert_eq!(log.matches(line).count(), REQUESTS, "{framework}: {log}");
        } else {
            assert_eq!(log, "", "{framework} logged");
        }
    }
}
