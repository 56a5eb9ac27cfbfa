//! Integration tests of the peer frameworks on fwbench's host: ordinary app
//! files for s200, s200-light, hono, hono-patched, express, fastify and
//! elysia served by `fwbench serve`, every built-in scenario served for
//! every framework with `--framework F --scenario S` and checked against
//! the scenario's own expectations, and the rule that hono-patched's
//! replaced globals stay inside its runtime. One test binary, modules by
//! topic; each server is started once per test (framework start-up is
//! 100-300 ms, so the binary stays well under a minute on two cores).

mod apps;
mod errors;
mod isolation;
mod prod;
mod routes;
mod scenarios;
