#!/usr/bin/env bash
# Sets up a fresh machine for fwbench, idempotently: the system packages the
# build needs, the pinned npm packages, the framework bundles, and the
# release build. Safe to run again; each step is skipped when it is done.
#
#   .ci/setup.sh            # then: target/release/fwbench bench
#
# FWBENCH_PROFILE=quick builds target/quick/fwbench instead (the release
# optimizations without fat LTO); FWBENCH_PROFILE=ci what the tests run
# (.ci/test.sh).
# FWBENCH_BUILD_TESTS=1 builds the test binaries in the same cargo run
# (.ci/test.sh): they then compile beside the binary, not after it.
#
# The JS engine is V8 when its archive is found or can be downloaded, else
# QuickJS-ng; .ci/engine.sh explains the choice and FWBENCH_ENGINE forces it.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

# System packages: cmake builds WAMR (QuickJS backend); libsimde-dev gives
# WAMR's CMake the simde headers it would otherwise fetch from GitHub (see
# .cargo/offline-toolchain.cmake).
missing=()
command -v cmake >/dev/null || missing+=(cmake)
[ -f /usr/include/simde/wasm/simd128.h ] || missing+=(libsimde-dev)
command -v node >/dev/null || missing+=(nodejs npm)
# sshd for tests/remote/, which runs `bench --server-host` against a real
# sshd in a network-namespace host (the OpenSSH client comes with it).
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
# Chromium for the tests only: tests/report/browser.rs opens report.html in
# it (headless, over the DevTools pipe).
if [ "${FWBENCH_BUILD_TESTS:-}" = 1 ]; then
  command -v chromium >/dev/null || missing+=(chromium)
fi
if [ ${#missing[@]} -gt 0 ]; then
  step "installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages, exactly as locked. npm ci wipes node_modules, so only run it
# when nothing is installed or the lock file changed since the last install.
if [ ! -f vendor/node_modules/.package-lock.json ] ||
  [ vendor/package-lock.json -nt vendor/node_modules/.package-lock.json ]; then
  step "installing the pinned npm packages (vendor/)"
  npm ci --prefix vendor --no-audit --no-fund --loglevel=error
fi

# Framework bundles (generated, never committed), rebuilt when their inputs
# are newer than the manifest.
manifest=vendor/dist/manifest.json
if [ ! -f "$manifest" ] || [ vendor/build.mjs -nt "$manifest" ] ||
  [ vendor/node_modules/.package-lock.json -nt "$manifest" ]; then
  step "bundling the frameworks (vendor/build.mjs)"
  node vendor/build.mjs
fi

# kubernetes-validate (PyPI, pinned in .ci/kubernetes-validate.txt) in its
# own venv: the tests of `fwbench k8s-job` validate its manifests against the
# Kubernetes schemas it ships, offline (kubectl's dry run needs a cluster's
# OpenAPI). Reinstalled only when the pins change. tests/k8s/ finds it here.
k8s_venv="${FWBENCH_K8S_VENV:-$HOME/.cache/fwbench/kubernetes-validate}"
k8s_pins=.ci/kubernetes-validate.txt
if ! cmp -s "$k8s_pins" "$k8s_venv/pins.txt"; then
  step "installing kubernetes-validate ($k8s_pins) into $k8s_venv"
  rm -rf "$k8s_venv"
  python3 -m venv "$k8s_venv"
  "$k8s_venv/bin/pip" install --quiet --disable-pip-version-check -r "$k8s_pins"
  cp "$k8s_pins" "$k8s_venv/pins.txt"
fi

# The engine: V8 when an archive is found or can be downloaded, else
# QuickJS-ng (.ci/engine.sh says which, and why).
. .ci/engine.sh
choose_engine
PROFILE=${FWBENCH_PROFILE:-release}
TARGETS=""
[ "${FWBENCH_BUILD_TESTS:-}" = 1 ] && TARGETS="--bins --tests"
step "building fwbench ($PROFILE profile, engine $ENGINE${TARGETS:+, with the tests})"
# shellcheck disable=SC2086 # ENGINE_FEATURES and TARGETS are lists of flags
if [ "$ENGINE" = v8 ] && [ -z "${RUSTY_V8_ARCHIVE:-}" ]; then
  # The v8 crate will try to download its archive: keep that attempt's
  # output in a log and fall back to QuickJS-ng if the download fails.
  build_log=target/.setup-build.log
  mkdir -p target
  engine_note "no local V8 archive: letting the v8 crate download one (it retries for ~40 s when offline)"
  if ! cargo build --profile "$PROFILE" --locked $ENGINE_FEATURES $TARGETS >"$build_log" 2>&1; then
    if [ -z "${FWBENCH_ENGINE:-}" ] && grep -q 'failed to run custom build command for `v8 ' "$build_log"; then
      touch "$V8_DOWNLOAD_FAILED"
      engine_note "the v8 crate could not download its archive (details: $build_log); building QuickJS-ng instead"
      choose_engine
      cargo build --profile "$PROFILE" --locked $ENGINE_FEATURES $TARGETS
    else
      tail -n 40 "$build_log" >&2
      exit 1
    fi
  fi
else
  cargo build --profile "$PROFILE" --locked $ENGINE_FEATURES $TARGETS
fi
