#!/usr/bin/env bash
# Builds fwbench on the QuickJS-ng engine as target/release/fwbench-quickjs,
# beside the default binary, so one machine can run the same matrix on both
# engines and compare them:
#
#   tools/build-quickjs.sh
#   target/release/fwbench bench --json v8.json
#   target/release/fwbench-quickjs bench --json quickjs.json
#   target/release/fwbench compare quickjs.json v8.json
#
# Run .ci/setup.sh first (npm packages, framework bundles). Both builds share
# target/: cargo keeps each feature set's artifacts apart, so switching back
# relinks nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/engine.sh

cargo build --release --locked --no-default-features --features quickjs
cp target/release/fwbench target/release/fwbench-quickjs
echo "built target/release/fwbench-quickjs" >&2

# Put the default engine's binary back in place (up to date: no rebuild).
choose_engine
if [ "$ENGINE" != quickjs ]; then
  # shellcheck disable=SC2086 # ENGINE_FEATURES is a list of flags
  cargo build --release --locked $ENGINE_FEATURES
fi
