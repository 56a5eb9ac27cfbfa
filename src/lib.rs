/*!
fwbench: host JavaScript web frameworks in embedded, sandboxed JS runtimes,
serve them through hyper, and load-test them beside native Rust servers
under identical conditions.

Layout (docs/ARCHITECTURE.md has the whole picture):
- [`engine`]: the embedded JS host (deno_core on V8 or QuickJS-ng), its Web
  globals, module loader, sandbox and limits;
- [`adapter`]: the hyper server and its bridge into JS;
- [`framework_list`]: the one list of frameworks, as plain data (build.rs
  compiles it too); [`frameworks`]: what the binary adds to it (versions,
  selection, row kinds);
- [`native`]: native Rust rows (hyper, axum);
- [`scenario`]: scenario modules (request, expectations, apps), and the
  suites of built-in ones;
- [`header_sets`]: the request header sets (`--headers`);
- [`load`]: the load generator (`fwbench load`);
- [`bench`]: the framework × scenario matrix, `check`, `list`, `bench`;
- [`sweep`]: `sweep`, the cost of one more middleware link; [`estimate`]:
  an estimate with its 95 % confidence interval;
- [`capacity`]: `capacity`, the highest rate a row holds under a p99
  target;
- [`k8s`]: `k8s-job`, the Kubernetes Jobs of a load cut into N pods;
- [`report`]: the results model, its writers and `compare`;
- [`serve`], [`jstest`]: the `serve` and `test` commands; [`in_runtime`]:
  `serve --in-runtime`, a JS row's cost without the transport;
- [`cli`]: the command line (clap); [`capped_read`]: files it names, read
  up to a size cap;
- [`units`]: how times are written for people; [`process_start`]: when
  this process started, for the start-up split; [`child_run`]: someone
  else's JS run in a child fwbench, so what cannot be interrupted ends the
  child, not the run.
*/
#![warn(missing_docs)]

pub mod adapter;
pub mod bench;
pub mod capacity;
pub mod capped_read;
pub mod child_run;
pub mod cli;
pub mod engine;
pub mod estimate;
pub mod framework_list;
pub mod frameworks;
pub mod header_sets;
pub mod in_runtime;
pub mod jstest;
pub mod k8s;
pub mod load;
pub mod native;
pub mod outcome;
pub mod process_start;
pub mod report;
pub mod scenario;
pub mod serve;
pub mod sweep;
mod thread_cpu;
pub mod units;
