#!/usr/bin/env bash
# The calibration tests: figures that a quiet machine reads within a band
# (50 µs of spinning read as 40-60 µs of server CPU, ...), which the test
# suite checks only loosely because a busy machine moves them. Run on an
# idle machine, after .ci/setup.sh, one at a time (side by side they would
# load the machine for each other); each prints what it read when it fails.
#
#   benches/calibrate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/engine.sh
choose_engine
# shellcheck disable=SC2086 # ENGINE_FEATURES is a list of flags
cargo test --profile ci --locked $ENGINE_FEATURES --test tests -- --ignored --test-threads=1 calibration_
