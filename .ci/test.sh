#!/usr/bin/env bash
# fwbench's whole test suite, from a fresh clone: set-up, then the Rust unit
# and integration tests, the JS suites under Node's test runner, a smoke run
# of benches/runtimes/bench.py and the lint gates.
#
# Everything builds under the `ci` profile (Cargo.toml): no fat LTO,
# opt-level 1, and 0 for the crates no test runs at speed (a QuickJS-ng
# build: `quick`, see below). Under `release` each test binary would be a
# whole-program link of the engine, minutes apiece; `ci` builds the crates
# once and links each binary in seconds. The tests exercise the same code; figures are
# never taken from this build.
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

# The ci profile builds the engine crates at opt-level 1. On V8 that costs
# the tests nothing (V8 is a prebuilt archive); QuickJS-ng's every op call
# crosses them, slowly enough to move the anatomy tests' 50 µs spin, so a
# QuickJS-ng build tests under quick.
. .ci/engine.sh
choose_engine
PROFILE=ci
if [ "$ENGINE" = quickjs ]; then PROFILE=quick; fi

phase "set-up and build (.ci/setup.sh, $PROFILE profile)"
FWBENCH_PROFILE=$PROFILE FWBENCH_BUILD_TESTS=1 .ci/setup.sh
# The engine setup.sh built (it may have fallen back to QuickJS-ng): every
# cargo command below must use the same features and archive, or it would
# build the engine again.
choose_engine

# The npm projects tests/projects/ serves as they are, each exactly as its
# lock file says (npm ci wipes node_modules: only when the lock is newer).
for project in tests/fixtures/projects/*/; do
  [ -f "$project/package-lock.json" ] || continue
  if [ ! -f "$project/node_modules/.package-lock.json" ] ||
    [ "$project/package-lock.json" -nt "$project/node_modules/.package-lock.json" ]; then
    phase "npm ci ($project)"
    npm ci --prefix "$project" --no-audit --no-fund --loglevel=error
  fi
done
# The Node those tests compare answers with (Node 26, pinned in
# benches/runtimes/bench.py, from the npm registry into the cache). Without
# it they still check fwbench's answers and say that Node was not there.
if FWBENCH_NODE=$(python3 benches/runtimes/bench.py --install 2>/dev/null); then
  export FWBENCH_NODE
else
  echo "Node 26 could not be installed: tests/projects/ will not compare with Node" >&2
fi

# As root (CI), tests/remote/'s network-namespace hosts must be made:
# a test that cannot make them fails instead of skipping.
if [ "$(id -u)" -eq 0 ]; then export FWBENCH_REQUIRE_NETNS=1; fi
# Likewise the browser test of the HTML report: setup.sh installed Chromium
# as root, so a missing one is a failure there, not a skip.
if [ "$(id -u)" -eq 0 ]; then export FWBENCH_REQUIRE_BROWSER=1; fi

phase "cargo test ($PROFILE profile, engine $ENGINE), cargo clippy beside it"
# The tests leave about a third of the two CPUs idle (they wait on servers
# and sockets), and clippy must check every crate again: it runs beside
# them at the lowest priority, taking what they leave. Cargo locks the
# build directory while it compiles, so clippy holds it alone and the tests
# run straight from the binaries setup.sh built (their doc-tests at the
# end). The JS suites and the smoke run below run beside clippy too.
# shellcheck disable=SC2086 # ENGINE_FEATURES is a list of flags
test_binaries=$(cargo test --profile "$PROFILE" --locked $ENGINE_FEATURES --no-run --message-format=json |
  python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message["profile"]["test"] and message["executable"]:
        print(message["executable"])')
clippy_log=target/.clippy.log
# shellcheck disable=SC2086
setsid --wait nice -n 19 cargo clippy --profile "$PROFILE" --locked --all-targets $ENGINE_FEATURES -- -D warnings \
  >"$clippy_log" 2>&1 &
clippy_pid=$!
# A failing step ends the script: clippy (its process group) goes with it.
trap 'kill -- -"$clippy_pid" 2>/dev/null || true' EXIT
for binary in $test_binaries; do
  printf '\n     Running %s\n' "$binary" >&2
  "$binary"
done

phase 'node --test (s200, runtime shims)'
node --test js/s200/ js/runtime/test/

phase 'the s200 suite inside the embedded engine'
target/$PROFILE/fwbench test js/s200

phase 'benches/runtimes/bench.py --check (every app starts and answers on fwbench, Node, Deno, hyper)'
# A smoke run of the script docs/reference.md's Node/Deno figures rest on: it
# measures nothing, but it catches an app, a flag or a runtime pin that
# broke.
FWBENCH=target/$PROFILE/fwbench python3 benches/runtimes/bench.py --check

phase 'cargo clippy -D warnings (the rest of it), doc-tests'
if ! wait "$clippy_pid"; then
  cat "$clippy_log" >&2
  exit 1
fi
trap - EXIT
tail -n 1 "$clippy_log" >&2
# shellcheck disable=SC2086
cargo test --profile "$PROFILE" --locked $ENGINE_FEATURES --doc

printf '\n== .ci/test.sh passed in %d s\n' "$SECONDS" >&2
