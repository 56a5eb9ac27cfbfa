//! `serve --framework F --scenario S --in-runtime DURATION`: one row's app
//! served its scenario's request inside its runtime, with no transport
//! (adapter/in_runtime.rs), every answer checked against the scenario's
//! expectation; writes one JSON [`InRuntimeReport`] line to the channel
//! serve keeps for it (src/serve.rs: no app can print there) and exits. `bench`
//! runs it for each JS row, pinned like the row's server.

use std::time::Duration;

use anyhow::{bail, Context};
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use serde::{Deserialize, Serialize};

use crate::adapter::in_runtime::{self, Answer, SyntheticRequest};
use crate::adapter::{AppSpec, ServeConfig};
use crate::engine::HeapSnapshot;
use crate::outcome::Outcome;
use crate::scenario::{self, ScenarioRef};
use crate::scenario::{mismatches, SeenResponse};

/// What an in-runtime run measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InRuntimeReport {
    /// Answers in the measured part.
    pub requests: u64,
    /// The worker thread's CPU time per answer, µs.
    pub cpu_us_per_request: f64,
    /// Wall time per answer, µs.
    pub wall_us_per_request: f64,
    /// Allocation and GC over the measured part (V8 only).
    pub heap: Option<HeapSnapshot>,
    /// Answers, warm-up included, that differed from the expectation.
    pub mismatches: u64,
    /// The first difference seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<String>,
}

/// Runs `spec` (the app of `scenario`) for `warmup`, then `duration`, and
/// prints the report.
pub fn run(
    spec: &AppSpec,
    config: ServeConfig,
    scenario: &ScenarioRef,
    warmup: Duration,
    duration: Duration,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<Outcome> {
    let info = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start a tokio runtime")?
        .block_on(scenario::load_info(scenario))?;
    let request = synthetic(&info.request)?;
    let mut report = InRuntimeReport::default();
    let mut check = |answer: Answer| {
        let seen = SeenResponse {
            status: answer.status,
            headers: answer
                .headers
                .iter()
                .map(|(name, value)| {
                    (
                        name.as_str().to_owned(),
                        String::from_utf8_lossy(value.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: answer.body.to_vec(),
        };
        let problems = mismatches(&info.expect, &seen);
        if !problems.is_empty() {
            report.mismatches += 1;
            report.first_mismatch.get_or_insert_with(|| problems.join("; "));
        }
    };
    let measured = in_runtime::run(spec, config, &request, warmup, duration, &mut check)?;
    if measured.requests == 0 {
        bail!("no request was answered in {duration:?}");
    }
    let per_request = |time: Duration| time.as_secs_f64() * 1e6 / measured.requests as f64;
    report.requests = measured.requests;
    report.cpu_us_per_request = per_request(measured.cpu);
    report.wall_us_per_request = per_request(measured.wall);
    report.heap = measured.heap;
    serde_json::to_writer(&mut *out, &report).context("cannot write the report")?;
    writeln!(out).context("cannot write the report")?;
    // The figure stands (it is what those answers cost), but answers the
    // scenario does not expect fail the run, as they fail a bench row.
    Ok(match report.mismatches {
        0 => Outcome::Passed,
        n => Outcome::Failed(format!(
            "{n} of {} answers differed from the scenario's expectation",
            report.requests
        )),
    })
}

/// The scenario's request as the table holds one.
fn synthetic(request: &scenario::ScenarioRequest) -> anyhow::Result<SyntheticRequest> {
    let method = Method::from_bytes(request.method.as_bytes())
        .with_context(|| format!("the scenario's method {:?} is not valid", request.method))?;
    let mut headers = HeaderMap::new();
    for (name, value) in &request.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .with_context(|| format!("the scenario's header name {name:?} is not valid"))?;
        let value = HeaderValue::from_str(value)
            .with_context(|| format!("the scenario's header value {value:?} is not valid"))?;
        headers.append(name, value);
    }
    // A body is framed by its length, as the load generator sends it
    // (body parsers such as express.json() read only a framed body).
    let body = request.body.clone().map(bytes::Bytes::from);
    if let Some(body) = &body {
        headers.insert(http::header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    }
    Ok(SyntheticRequest {
        method,
        path: request.path.clone(),
        headers,
        body,
    })
}
