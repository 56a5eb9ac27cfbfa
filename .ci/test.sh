#!/usr/bin/env bash
# fwbench's whole test suite, from a fresh clone: set-up, then the Rust unit
# and integration tests, the JS suites under Node's test runner, a smoke run
# of benches/runtimes/bench.py and the lint gates.
#
# Everything builds under the `quick` profile (Cargo.toml): the release
# optimizations without fat LTO. Under `release` each test binary would be
# a whole-program link of the engine, minutes apiece; `quick` builds the
# crates once and links each binary in seconds. The tests exercise the same
# code; figures are never taken from this build.
#
#   .ci/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's header says how far into the run it starts, so a slow phase
# shows in CI's log.
phase() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS" >&2; }

phase '.ci/engine_test.sh (where the V8 archive comes from)'
.ci/engine_test.sh

phase 'cargo fmt --check'
cargo fmt --check

phase 'set-up and build (.ci/setup.sh, quick profile)'
FWBENCH_PROFILE=quick .ci/setup.sh
# The engine setup.sh built: every cargo command below must use the same
# features and archive, or it would build the engine again.
. .ci/engine.sh
choose_engine

# As root (CI), tests/remote/'s network-namespace hosts must be made:
# a test that cannot make them fails instead of skipping.
if [ "$(id -u)" -eq 0 ]; then export FWBENCH_REQUIRE_NETNS=1; fi

phase "cargo test (quick profile, engine $ENGINE)"
# shellcheck disable=SC2086 # ENGINE_FEATURES is a list of flags
cargo test --profile quick --locked $ENGINE_FEATURES

phase 'node --test (s200, runtime shims)'
node --test js/s200/ js/runtime/test/

phase 'the s200 suite inside the embedded engine'
target/quick/fwbench test js/s200

phase 'benches/runtimes/bench.py --check (every app starts and answers on fwbench, Node, Deno, hyper)'
# A smoke run of the script the README's Node/Deno figures rest on: it
# measures nothing, but it catches an app, a flag or a runtime pin that
# broke.
FWBENCH=target/quick/fwbench python3 benches/runtimes/bench.py --check

phase 'cargo clippy -D warnings'
# shellcheck disable=SC2086
cargo clippy --profile quick --locked --all-targets $ENGINE_FEATURES -- -D warnings

printf '\n== .ci/test.sh passed in %d s\n' "$SECONDS" >&2
