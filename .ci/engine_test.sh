#!/usr/bin/env bash
# Tests .ci/engine.sh's order of V8 archive sources: RUSTY_V8_ARCHIVE, the
# cache, ../shared/v8 (with a good, a bad and a missing checksum), the v8
# crate's download, and the QuickJS-ng fallback. Each case copies engine.sh
# into a fresh checkout under a temporary directory, with small fake
# archives (engine.sh only checks files and checksums, it never reads an
# archive), and runs choose_engine with a clean environment. Takes about a
# second; .ci/test.sh runs it.
#
#   .ci/engine_test.sh      # ends with "N passed, N failed"; exit 1 on a failure
set -uo pipefail

engine_sh=$(cd "$(dirname "$0")" && pwd)/engine.sh
name=librusty_v8_simdutf_release_x86_64-unknown-linux-gnu.a.gz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
case_no=0

# A fresh layout: $dir/repo (the checkout, engine.sh in its .ci), $dir/shared/v8
# beside it (empty), $dir/cache for XDG_CACHE_HOME (empty), $dir/elsewhere.
new_case() {
  case_no=$((case_no + 1))
  dir=$tmp/$case_no
  mkdir -p "$dir/repo/.ci" "$dir/shared/v8" "$dir/cache" "$dir/elsewhere"
  cp "$engine_sh" "$dir/repo/.ci/engine.sh"
  shared=$dir/shared/v8/$name
  cached=$dir/cache/fwbench/v8/$name
}

# fake_archive PATH: a small stand-in for the 38 MB archive.
fake_archive() {
  mkdir -p "$(dirname "$1")"
  printf 'not really V8 (%s)\n' "$1" >"$1"
}

# good_sum / bad_sum: the .sha256 beside the shared archive, in sha256sum's
# own format, as ../shared/v8 has it ("<hex>  <name>").
good_sum() { (cd "$dir/shared/v8" && sha256sum "$name" >"$name.sha256"); }
bad_sum() { printf '%s  %s\n' "$(printf 'other bytes' | sha256sum | cut -d' ' -f1)" "$name" >"$shared.sha256"; }

# run [VAR=value...]: choose_engine in the checkout with only the given
# environment; sets out (ENGINE|ENGINE_SOURCE|RUSTY_V8_ARCHIVE|ENGINE_FEATURES),
# line (what it printed on stderr) and status.
run() {
  out=$(cd "$dir/repo" && env -i PATH="$PATH" HOME="$dir/home" XDG_CACHE_HOME="$dir/cache" "$@" \
    bash -c '. .ci/engine.sh; choose_engine; s=$?
      printf "%s|%s|%s|%s" "${ENGINE:-}" "${ENGINE_SOURCE:-}" "${RUSTY_V8_ARCHIVE:-}" "${ENGINE_FEATURES:-}"
      exit $s' 2>"$dir/stderr")
  status=$?
  line=$(cat "$dir/stderr")
}

# expect TEST WANT_OUT LINE_PATTERN [STATUS]: compares the last run's result
# (and that it printed exactly one line, matching the extended regex).
expect() {
  local test=$1 want=$2 pattern=$3 want_status=${4:-0} why=""
  [ "$out" = "$want" ] || why="got $out, want $want"
  [ "$status" = "$want_status" ] || why="${why:+$why; }status $status, want $want_status"
  [ "$(printf '%s\n' "$line" | wc -l)" = 1 ] || why="${why:+$why; }not one line of output"
  printf '%s\n' "$line" | grep -Eq -- "$pattern" || why="${why:+$why; }line does not match /$pattern/"
  if [ -z "$why" ]; then
    passed=$((passed + 1))
    printf 'ok    %s\n' "$test"
  else
    failed=$((failed + 1))
    printf 'FAIL  %s: %s\n      line: %s\n' "$test" "$why" "$line"
  fi
}

quickjs_flags="--no-default-features --features quickjs"

new_case
fake_archive "$dir/elsewhere/$name"
fake_archive "$cached"
fake_archive "$shared" && good_sum
run RUSTY_V8_ARCHIVE="$dir/elsewhere/$name"
expect "RUSTY_V8_ARCHIVE comes first" "v8|env|$dir/elsewhere/$name|" \
  "^== engine: V8, archive from RUSTY_V8_ARCHIVE: $dir/elsewhere/$name\$"

new_case
fake_archive "$cached"
fake_archive "$shared" && good_sum
run RUSTY_V8_ARCHIVE="$dir/elsewhere/missing.a.gz"
expect "RUSTY_V8_ARCHIVE that is not a file: the cache, saying so" "v8|cache|$cached|" \
  "^== engine: V8, archive from the cache: $cached; RUSTY_V8_ARCHIVE=.*missing.a.gz is not a file\$"

new_case
fake_archive "$cached"
fake_archive "$shared" && good_sum
run
expect "the cache before ../shared" "v8|cache|$cached|" \
  "^== engine: V8, archive from the cache: $cached\$"

new_case
fake_archive "$dir/home/v8/$name"
fake_archive "$shared" && good_sum
run FWBENCH_V8_DIR="$dir/home/v8"
expect "FWBENCH_V8_DIR moves the cache" "v8|cache|$dir/home/v8/$name|" \
  "archive from the cache: $dir/home/v8/$name\$"

new_case
fake_archive "$shared" && good_sum
run
expect "../shared with a matching sha256" "v8|shared|$shared|" \
  "^== engine: V8, archive from \.\./shared/v8 \(sha256 matches its \.sha256\): $shared\$"

new_case
fake_archive "$shared" && good_sum
run FWBENCH_ENGINE=v8
expect "../shared with FWBENCH_ENGINE=v8" "v8|shared|$shared|" "archive from \.\./shared/v8"

new_case
fake_archive "$shared" && bad_sum
run
expect "../shared with a wrong sha256: ignored, download" "v8|download||" \
  "^== engine: V8, archive downloaded by the v8 crate \(no local archive found; ignored \.\./shared/v8/$name: its sha256 \([0-9a-f]{64}\) is not the one in its \.sha256 file \([0-9a-f]{64}\)\)\$"

new_case
fake_archive "$shared" && good_sum
tr a-f A-F <"$shared.sha256" >"$dir/upper" && mv "$dir/upper" "$shared.sha256"
run
expect "../shared with an upper-case sha256" "v8|shared|$shared|" "archive from \.\./shared/v8"

new_case
fake_archive "$shared"
run
expect "../shared without a .sha256: ignored, download" "v8|download||" \
  "ignored \.\./shared/v8/$name: no $name\.sha256 beside it"

new_case
fake_archive "$shared"
: >"$shared.sha256"
run
expect "../shared with an empty .sha256: ignored" "v8|download||" "is not the one in its \.sha256 file \(empty\)"

new_case
fake_archive "$shared" && good_sum
printf 'changed after its checksum was written\n' >>"$shared"
run
expect "../shared changed after its checksum: ignored" "v8|download||" "ignored \.\./shared/v8/.*is not the one"

new_case
fake_archive "$dir/repo/../shared/v8/other-version.a.gz"
run
expect "no archive anywhere: the v8 crate's download" "v8|download||" \
  "^== engine: V8, archive downloaded by the v8 crate \(no local archive found\)\$"

new_case
mkdir -p "$dir/repo/target" && touch "$dir/repo/target/.v8-download-failed"
run
expect "no archive, the download failed before: QuickJS-ng" "quickjs|none||$quickjs_flags" \
  "^== engine: QuickJS-ng: no V8 archive here and the v8 crate could not download one \(build one with tools/build-v8.sh, or set RUSTY_V8_ARCHIVE\)\$"

new_case
fake_archive "$shared" && bad_sum
mkdir -p "$dir/repo/target" && touch "$dir/repo/target/.v8-download-failed"
run
expect "bad ../shared and a failed download: QuickJS-ng, saying why" "quickjs|none||$quickjs_flags" \
  "^== engine: QuickJS-ng: .*or set RUSTY_V8_ARCHIVE; ignored \.\./shared/v8/$name: its sha256 .* is not the one"

new_case
fake_archive "$shared" && good_sum
mkdir -p "$dir/repo/target" && touch "$dir/repo/target/.v8-download-failed"
run
expect "a good ../shared makes a failed download irrelevant" "v8|shared|$shared|" "archive from \.\./shared/v8"

new_case
mkdir -p "$dir/repo/target" && touch "$dir/repo/target/.v8-download-failed"
run FWBENCH_ENGINE=v8
expect "FWBENCH_ENGINE=v8 tries the download again" "v8|download||" "downloaded by the v8 crate"

new_case
fake_archive "$shared" && good_sum
run FWBENCH_ENGINE=quickjs
expect "FWBENCH_ENGINE=quickjs" "quickjs|none||$quickjs_flags" "^== engine: QuickJS-ng \(FWBENCH_ENGINE=quickjs\)\$"

new_case
run FWBENCH_ENGINE=spidermonkey
expect "an unknown FWBENCH_ENGINE is refused" "spidermonkey|none||" "FWBENCH_ENGINE must be v8 or quickjs, not 'spidermonkey'" 2

new_case
fake_archive "$shared" && good_sum
out=$(cd "$dir" && env -i PATH="$PATH" HOME="$dir/home" XDG_CACHE_HOME="$dir/cache" \
  bash -c '. repo/.ci/engine.sh; choose_engine 2>/dev/null; printf "%s" "$ENGINE_SOURCE"')
status=0 line="== engine: (sourced from another directory)"
expect "../shared is found beside the checkout, not the working directory" "shared" "."

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
