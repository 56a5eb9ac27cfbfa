/*!
The raw flags of `fwbench load`, as clap yields them (the first of ripgrep's
two stages, `flags/lowargs.rs`). Nothing here touches the network or checks
how flags combine: [`LoadPlan::from_args`](super::LoadPlan::from_args) does
that in one place.

The value parsers below follow oha's `src/cli.rs`: a bad value gets a message
naming the expected syntax.
*/

use std::path::PathBuf;
use std::time::Duration;

use super::limits::MAX_PIPELINE;
use crate::header_sets::HeaderSet;

/// Flags of `fwbench load URL [options]`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Exit status: 0 when every measured response passed validation (by default: any 2xx) and \
no request failed; 1 when the run is flagged (errors, unsolicited bytes from the server, \
validation mismatches, or Ctrl-C or SIGTERM) or measured no response; 2 for a usage or set-up error (a bad flag, a target that refuses \
connections, a --body-file past 16 MiB).

Load only goes to loopback (127.0.0.0/8 or ::1), or to an address named with --allow-host \
as well as in the URL, and every run is bounded: by -d or -n, and by a hard cap of one hour.")]
pub struct LoadArgs {
    /// Target URL: http only, loopback only (unless --allow-host), e.g.
    /// http://127.0.0.1:3000/hello.
    pub url: String,

    /// Also allow this host as the target (repeatable): a server on
    /// another machine or network namespace that you run (e.g. one of
    /// several load generators of `--segment`), or the Service a
    /// `k8s-job` pod loads. An IP address allows that address; a name
    /// allows what it resolves to when the URL uses the same name. Named
    /// here and in the URL, so a typo in either is refused, not followed.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<super::target::AllowedHost>,

    /// Number of keep-alive connections to hold open.
    #[arg(short = 'c', long, default_value_t = 50)]
    pub connections: usize,

    /// Worker threads, each with its own event loop; connections are spread
    /// over them. Default: the CPUs this process may run on.
    #[arg(short = 't', long)]
    pub threads: Option<usize>,

    /// Measured duration (after the warm-up), e.g. 10s, 500ms, 2m.
    /// Default 10s unless -n is given.
    #[arg(short = 'd', long, value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Exact number of measured requests (answered or failed) to send.
    #[arg(short = 'n', long, value_parser = parse_count)]
    pub requests: Option<u64>,

    /// Warm-up before measuring; nothing sent during it enters any figure.
    #[arg(long, value_parser = parse_duration, default_value = "0s")]
    pub warmup: Duration,

    /// Run only part K of N of this load: its share of the connections, of
    /// -n and of --rate (the N parts add up to exactly the whole), so N
    /// load generators together send what one would; `fwbench merge` adds
    /// their --json reports into one. E.g. --segment 2/3.
    #[arg(long, value_name = "K/N")]
    pub segment: Option<super::segment::Segment>,

    /// Run the segment of this pod of a Kubernetes Indexed Job of N pods:
    /// part JOB_COMPLETION_INDEX + 1 of N (Kubernetes numbers the pods from
    /// 0, --segment from 1). `fwbench k8s-job` writes Jobs that use it.
    #[arg(long, value_name = "N", conflicts_with = "segment")]
    pub segment_from_job_index: Option<u32>,

    /// Requests written back to back on a connection before reading the
    /// answers (closed loop only).
    #[arg(long, default_value_t = 1, value_parser = parse_pipeline)]
    pub pipeline: u32,

    /// Open loop: total requests per second, spread evenly over the
    /// connections. Latency is then measured from each request's intended
    /// send time (coordinated-omission correction, as wrk2 does).
    #[arg(long, value_parser = parse_rate)]
    pub rate: Option<f64>,

    /// Request method.
    #[arg(short = 'm', long, default_value = "GET")]
    pub method: String,

    /// Request header 'name: value'; repeatable. A -H header replaces the
    /// --headers set's header of the same name.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<HeaderArg>,

    /// A request header set sent with every request besides the -H
    /// headers: minimal (none), browser (a desktop Chrome's same-origin
    /// fetch, with 600 bytes of cookies) or api (an API client with a
    /// bearer token); docs/header-sets.md lists each. The set's headers
    /// come first, in its order; a -H header of the same name takes its
    /// place.
    #[arg(long = "headers", value_name = "SET", value_parser = parse_header_set)]
    pub header_set: Option<HeaderSet>,

    /// Request body text.
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,

    /// Request body read from a file, 16 MiB at most (a larger file is
    /// refused before the run starts, exit 2).
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<PathBuf>,

    /// Per-request timeout, from send to the end of the response.
    #[arg(long, value_parser = parse_duration, default_value = "5s")]
    pub timeout: Duration,

    /// Every response must have this status (default: any 2xx).
    #[arg(long, value_parser = parse_status)]
    pub expect_status: Option<u16>,

    /// Every response must carry this header, with this value when one is
    /// given: 'name' or 'name: value'; repeatable.
    #[arg(long = "expect-header", value_name = "NAME[: VALUE]", value_parser = parse_expect_header)]
    pub expect_headers: Vec<ExpectHeaderArg>,

    /// Every response body must be exactly this text.
    #[arg(long, value_name = "TEXT")]
    pub expect_body: Option<String>,

    /// Write the latency percentile distribution in HdrHistogram's text
    /// format (milliseconds), readable by HdrHistogram's plotter.
    #[arg(long, value_name = "FILE")]
    pub hdr_out: Option<PathBuf>,

    /// The report as JSON: `--json` prints it instead of the human summary;
    /// `--json=FILE` writes it to FILE as well, as `bench --json FILE` does
    /// (`--json=-` is stdout).
    #[arg(
        long,
        value_name = "FILE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "-"
    )]
    pub json: Option<PathBuf>,

    /// No live progress line, even on a terminal.
    #[arg(long)]
    pub no_progress: bool,
}

/// One `-H 'name: value'` flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderArg {
    /// Header name as typed.
    pub name: String,
    /// Header value, surrounding whitespace trimmed.
    pub value: String,
}

/// One `--expect-header 'name[: value]'` flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectHeaderArg {
    /// Header name as typed.
    pub name: String,
    /// Required value, or `None` when only presence is checked.
    pub value: Option<String>,
}

/// Parses a duration: a number followed by `us`, `ms`, `s`, `m` or `h`
/// (`1.5s`, `500ms`, `2m`); a bare number means seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad =
        || format!("invalid duration '{text}': expected a number with a unit, like 500ms, 10s, 2m or 1h");
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let value: f64 = number.parse().map_err(|_| bad())?;
    let scale = match unit.trim() {
        "" | "s" | "sec" | "secs" => 1.0,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(bad()),
    };
    let secs = value * scale;
    if !secs.is_finite() || secs > 1e9 {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse_count(text: &str) -> Result<u64, String> {
    match text.trim().replace('_', "").parse::<u64>() {
        Ok(0) => Err("the request count must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "invalid request count '{text}': expected a whole number like 10000"
        )),
    }
}

fn parse_pipeline(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_PIPELINE).contains(&n) => Ok(n),
        _ => Err(format!(
            "invalid pipeline depth '{text}': expected a whole number from 1 to {}",
            MAX_PIPELINE
        )),
    }
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!(
            "invalid rate '{text}': expected requests per second above 0, like 5000"
        )),
    }
}

fn parse_status(text: &str) -> Result<u16, String> {
    match text.trim().parse::<u16>() {
        Ok(s) if (100..=999).contains(&s) => Ok(s),
        _ => Err(format!(
            "invalid status '{text}': expected a three-digit HTTP status like 200"
        )),
    }
}

/// Parses `--headers SET`, naming the sets on a bad value.
pub fn parse_header_set(text: &str) -> Result<HeaderSet, String> {
    text.parse()
}

/// Parses `-H 'name: value'`.
pub fn parse_header(text: &str) -> Result<HeaderArg, String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(format!(
            "invalid header '{text}': expected 'name: value', like 'accept: application/json'"
        ));
    };
    let name = check_header_name(name, text)?;
    let value = check_header_value(value, text)?;
    Ok(HeaderArg { name, value })
}

/// Parses `--expect-header 'name'` or `--expect-header 'name: value'`.
pub fn parse_expect_header(text: &str) -> Result<ExpectHeaderArg, String> {
    match text.split_once(':') {
        None => Ok(ExpectHeaderArg {
            name: check_header_name(text, text)?,
            value: None,
        }),
        Some((name, value)) => Ok(ExpectHeaderArg {
            name: check_header_name(name, text)?,
            value: Some(check_header_value(value, text)?),
        }),
    }
}

fn check_header_name(name: &str, whole: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(is_token_byte) {
        return Err(format!(
            "invalid header '{whole}': the name must be a non-empty token \
             (letters, digits and !#$%&'*+-.^_`|~), as in 'name: value'"
        ));
    }
    Ok(name.to_string())
}

fn check_header_value(value: &str, whole: &str) -> Result<String, String> {
    let value = value.trim();
    if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return Err(format!(
            "invalid header '{whole}': the value may not contain line breaks or NUL"
        ));
    }
    Ok(value.to_string())
}

/// Whether `b` may appear in an HTTP token (RFC 9110 §5.6.2).
pub(crate) fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_with_units() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration(" 0s "), Ok(Duration::ZERO));
    }

    #[test]
    fn bad_durations_name_the_syntax() {
        for bad in ["", "s", "10x", "-1s", "1.2.3s", "ten seconds", "1e999s"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("500ms, 10s"), "{bad}: {err}");
        }
    }

    #[test]
    fn headers() {
        assert_eq!(
            parse_header("Accept:  application/json "),
            Ok(HeaderArg {
                name: "Accept".into(),
                value: "application/json".into()
            })
        );
        // Only the first colon separates: values may contain colons.
        assert_eq!(parse_header("x-time: 12:30").unwrap().value, "12:30");
        assert_eq!(parse_header("x-empty:").unwrap().value, "");
        assert!(parse_header("no colon").unwrap_err().contains("'name: value'"));
        assert!(parse_header(": value").is_err());
        assert!(parse_header("bad name: v").is_err());
        assert!(parse_header("x: a\r\nInjected: yes").is_err());
    }

    #[test]
    fn expect_headers() {
        assert_eq!(
            parse_expect_header("content-type"),
            Ok(ExpectHeaderArg {
                name: "content-type".into(),
                value: None
            })
        );
        assert_eq!(
            parse_expect_header("content-type: application/json")
                .unwrap()
                .value,
            Some("application/json".into())
        );
        assert!(parse_expect_header("").is_err());
    }

    #[test]
    fn counts_rates_statuses() {
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert!(parse_count("0").is_err());
        assert!(parse_count("ten").is_err());
        assert_eq!(parse_rate("2500.5"), Ok(2500.5));
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("inf").is_err());
        assert_eq!(parse_status("404"), Ok(404));
        assert!(parse_status("42").is_err());
        assert!(parse_pipeline("0").is_err());
        assert_eq!(parse_pipeline("16"), Ok(16));
    }
}
