//! `fwbench serve`'s arguments: what to serve, and how (workers, limits,
//! the in-runtime mode).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::parse::{parse_env_var, parse_header_bytes, parse_header_set, MAX_DEPTH};
use crate::header_sets::HeaderSet;
use crate::load::parse_duration;

/// `fwbench serve APP.js`
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The app: an npm project's directory (its entry from package.json:
    /// `exports`, `main`, else index.js) or a module file (ES module,
    /// CommonJS or TypeScript). It runs as on Node: its node_modules,
    /// `require`, the Node built-ins fwbench provides (docs/node-compat.md);
    /// `s200` and the bundled frameworks serve where the project has no
    /// copy of its own. Omit it to serve a scenario's app instead
    /// (--framework and --scenario).
    #[arg(required_unless_present = "scenario", conflicts_with_all = ["scenario", "framework"])]
    pub app: Option<PathBuf>,
    /// Add KEY=VALUE to the app's `process.env` (repeatable). It holds
    /// PORT (the port served) and NODE_ENV=production besides; nothing of
    /// fwbench's own environment.
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env_var, conflicts_with = "scenario")]
    pub env: Vec<(String, String)>,
    /// Add the variables of a `.env`-style file (KEY=VALUE lines, as
    /// Node's --env-file reads them) to the app's `process.env`; --env wins.
    #[arg(long, value_name = "FILE", conflicts_with = "scenario")]
    pub env_file: Option<PathBuf>,
    /// Serve this framework's app from --scenario (s200, s200-light, hono,
    /// hono-patched, express, fastify, elysia).
    #[arg(long, requires = "scenario")]
    pub framework: Option<String>,
    /// A built-in scenario (`fwbench list` names them: hello, param, mw, json-post, ...) or a
    /// scenario file's path.
    #[arg(long, requires = "framework")]
    pub scenario: Option<String>,
    /// For a scenario with a depth parameter (mw: its middleware chain),
    /// build the chain with this many links instead of its default.
    #[arg(long, requires = "scenario", value_parser = clap::value_parser!(u16).range(0..=MAX_DEPTH as i64))]
    pub depth: Option<u16>,
    /// For a scenario that declares its chain's concerns (prod: cors,
    /// security-headers, request-id, access-log, auth), build the chain
    /// without these, comma-separated (what `sweep --ablate` serves).
    #[arg(
        long,
        requires = "scenario",
        value_delimiter = ',',
        value_name = "CONCERN,..."
    )]
    pub without: Vec<String>,
    /// Port to listen on; 0 picks a free one (the URL is printed).
    #[arg(long, short, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Worker threads, each with its own JS runtime (isolate).
    #[arg(long, short, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: u16,
    /// Answer 504 when a handler has not responded after this long. Loading
    /// the app (top-level await, an app's ready()) must finish within it too.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub handler_timeout: Duration,
    /// Interrupt JS that uses this much CPU time without returning: a call or
    /// one turn of the event loop, idle waiting excluded, time spent waiting
    /// for a busy CPU excluded (answered 500; at load, a load error).
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub cpu_limit: Duration,
    /// Heap limit per JS runtime in MiB; past it the runtime is interrupted
    /// (with half the limit, 16 to 256 MiB, of room to unwind in), rebuilt,
    /// and its in-flight requests answered 503.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(8..=65536))]
    pub max_heap_mb: u32,
    /// Largest request body in bytes (413 past it).
    #[arg(long, default_value_t = 1 << 20)]
    pub max_body_bytes: usize,
    /// Largest request head in bytes (431 or a closed connection past it);
    /// at least 8192, the smallest read buffer hyper accepts.
    #[arg(long, default_value_t = 16 << 10, value_parser = parse_header_bytes)]
    pub max_header_bytes: usize,
    /// Most header lines in a request head (431 past it), whatever their
    /// size; raising it costs an allocation per request.
    #[arg(long, default_value_t = crate::adapter::DEFAULT_MAX_HEADERS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65535))]
    pub max_headers: usize,
    /// How long a client may take to send a request head once it has
    /// started it (408 and close past it; an idle keep-alive connection is
    /// closed).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub header_read_timeout: Duration,
    /// Instead of listening, serve the scenario's request to the app inside
    /// its runtime for this long (no socket, no hyper: the framework's cost
    /// without the transport), check every answer, and print CPU µs, bytes
    /// and GC per request as one JSON line.
    #[arg(long, requires = "scenario", value_parser = parse_duration, value_name = "DURATION")]
    pub in_runtime: Option<Duration>,
    /// The request header set `--in-runtime`'s request carries besides the
    /// scenario's own headers: minimal, browser or api (as `bench
    /// --headers`). Default: the scenario's own `headerSet`, else minimal.
    #[arg(long, requires = "in_runtime", value_name = "SET", value_parser = parse_header_set)]
    pub headers: Option<HeaderSet>,
    /// Unmeasured time before `--in-runtime`'s measurement.
    #[arg(long, default_value = "500ms", requires = "in_runtime", value_parser = parse_duration)]
    pub in_runtime_warmup: Duration,
    /// An inherited socket on which `bench` asks for the workers' heap and
    /// GC counters (internal: `bench` passes it to its row servers).
    #[arg(long, hide = true, value_parser = clap::value_parser!(i32).range(3..))]
    pub telemetry_fd: Option<i32>,
    /// Stop, as on SIGTERM, when stdin reaches its end (internal: `bench
    /// --server-host` starts its row servers so, since closing an SSH
    /// session closes the remote command's stdin but sends no signal).
    #[arg(long, hide = true)]
    pub stop_on_stdin_eof: bool,
    /// With `--stop-on-stdin-eof`: stop also when stdin has been silent
    /// this long (internal: bench writes a heartbeat line every second, so
    /// a controller cut off by a network partition, whose SSH session the
    /// other side keeps open for minutes, stops its servers all the same).
    #[arg(long, hide = true, default_value = "10s", value_parser = crate::load::parse_duration)]
    pub stdin_heartbeat_timeout: std::time::Duration,
}
