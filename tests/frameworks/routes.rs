//! The routes scenario's apps answer every route of their 100-route table
//! (scenarios/data/github-routes.js), not only the one `bench` asks for:
//! each framework, native rows included, is asked every route with its
//! method and the parameters filled in, and must answer that route's
//! operation id and parameters, in the path's order. A router that picked
//! a competing route (a parameter where a literal segment was registered
//! first) or lost a parameter fails here.

use fwbench::frameworks::FRAMEWORKS;
use fwbench::native::routes;

use crate::support::Server;

/// The value a test request puts in parameter `name`: realistic, and never
/// a literal segment a competing route has at the same place.
fn sample(name: &str) -> &'static str {
    match name {
        "owner" => "fwbench",
        "repo" => "bench",
        "username" => "octocat",
        "org" => "rust-lang",
        "team_slug" => "core",
        "secret_name" => "NPM_TOKEN",
        "gist_id" => "aa5a315d61ae9438b18d",
        "comment_id" => "1024",
        "branch" => "main",
        "ref" => "a1b2c3d",
        "basehead" => "main...dev",
        "path" => "README.md",
        "hook_id" => "17",
        "tag" => "v1.2.0",
        "release_id" => "311",
        "issue_number" => "25",
        "name" => "bug",
        "milestone_number" => "4",
        "pull_number" => "31",
        "review_id" => "77",
        "workflow_id" => "ci.yml",
        "run_id" => "8675309",
        "job_id" => "42424242",
        other => panic!("no sample value for the route parameter '{other}': add one"),
    }
}

#[test]
fn every_framework_answers_every_route_of_the_table() {
    let table = routes();
    assert_eq!(table.len(), 100);
    for framework in FRAMEWORKS.iter().map(|f| f.name) {
        let server = Server::scenario(framework, "routes");
        for route in table {
            let mut path = Vec::new();
            let mut expected = format!("{{\"route\":\"{}\"", route.id);
            for segment in route.path.split('/') {
                match segment.strip_prefix(':') {
                    Some(name) => {
                        path.push(sample(name));
                        expected.push_str(&format!(",\"{name}\":\"{}\"", sample(name)));
                    }
                    None => path.push(segment),
                }
            }
            expected.push('}');
            let path = path.join("/");
            let what = format!("{framework}: {} {path} ({})", route.method, route.path);
            let response = server.request(&route.method, &path, &[], None);
            assert_eq!(response.status, 200, "{what}: {}", response.text());
            assert_eq!(response.text(), expected, "{what}");
            let media_type = response
                .header("content-type")
                .map(|v| v.split(';').next().unwrap_or(""));
            assert_eq!(media_type, Some("application/json"), "{what}");
        }
        // A method the path has no route for, and a path no route takes,
        // both go to the not-found answer or the router's own refusal: never
        // a 200 from a wrong route.
        let response = server.request("DELETE", "/repos/fwbench/bench/issues/25", &[], None);
        assert!(
            matches!(response.status, 404 | 405),
            "{framework}: {}",
            response.status
        );
    }
}
