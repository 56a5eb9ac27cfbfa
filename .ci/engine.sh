# Chooses the JS engine fwbench is built with; sourced by setup.sh and
# test.sh so that every cargo command of a run uses the same one (a
# different feature set or archive would rebuild the engine).
#
# V8 is the default. The `v8` crate links a prebuilt static archive, found
# in this order:
#   1. $RUSTY_V8_ARCHIVE, if it names a file;
#   2. the archive tools/build-v8.sh builds from source, offline, into
#      ${XDG_CACHE_HOME:-~/.cache}/fwbench/v8/ ($FWBENCH_V8_DIR);
#   3. ../shared/v8/ beside the checkout (the parent directory of the
#      repository), where some machines keep a prebuilt copy, used only if
#      its sha256 matches the .sha256 file beside it;
#   4. the v8 crate's own download (any machine with internet access).
# When none of these works the QuickJS-ng engine is built instead. One
# "== engine:" line says which engine and which source, and why a source
# that was there was passed over. FWBENCH_ENGINE=quickjs (or =v8) forces
# the choice. .ci/engine_test.sh tests this order.
#
# Sets ENGINE (v8 or quickjs), ENGINE_FEATURES (cargo flags), ENGINE_SOURCE
# (where V8's archive comes from: env, cache, shared, download, or none for
# QuickJS-ng) and exports RUSTY_V8_ARCHIVE when an archive was found.

V8_ARCHIVE_NAME=librusty_v8_simdutf_release_x86_64-unknown-linux-gnu.a.gz
V8_CACHE_DIR=${FWBENCH_V8_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fwbench/v8}
# ../shared/v8 of the repository this file belongs to, wherever it is run
# from. Optional: nothing else in the repository uses ../shared.
V8_SHARED_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/../shared/v8
# Written when the v8 crate could not download its archive, so later runs
# go straight to QuickJS instead of retrying (about 40 s) every time.
V8_DOWNLOAD_FAILED=target/.v8-download-failed

engine_note() { printf '== engine: %s\n' "$*" >&2; }

# Prints why the archive in ../shared/v8 must not be used, or nothing when
# its sha256 matches the one recorded beside it (sha256sum's format: the
# hex digest, then the file name).
shared_archive_problem() {
  local archive=$V8_SHARED_DIR/$V8_ARCHIVE_NAME
  local sum_file=$archive.sha256 expected actual
  if [ ! -f "$sum_file" ]; then
    echo "no $V8_ARCHIVE_NAME.sha256 beside it to check it against"
    return
  fi
  read -r expected _ <"$sum_file" || true
  actual=$(sha256sum "$archive" 2>/dev/null | cut -d' ' -f1)
  if [ -z "$actual" ]; then
    echo "it cannot be read"
  elif [ "$actual" != "${expected,,}" ]; then
    echo "its sha256 ($actual) is not the one in its .sha256 file (${expected:-empty})"
  fi
}

choose_engine() {
  ENGINE=${FWBENCH_ENGINE:-}
  ENGINE_SOURCE=none
  local passed_over="" problem shared_name
  case "$ENGINE" in
    v8 | quickjs | "") ;;
    *)
      engine_note "FWBENCH_ENGINE must be v8 or quickjs, not '$ENGINE'"
      return 2
      ;;
  esac
  if [ -n "${RUSTY_V8_ARCHIVE:-}" ]; then
    if [ -f "$RUSTY_V8_ARCHIVE" ]; then
      ENGINE_SOURCE=env
    else
      passed_over="RUSTY_V8_ARCHIVE=$RUSTY_V8_ARCHIVE is not a file"
      unset RUSTY_V8_ARCHIVE
    fi
  fi
  if [ "$ENGINE_SOURCE" = none ] && [ -f "$V8_CACHE_DIR/$V8_ARCHIVE_NAME" ]; then
    ENGINE_SOURCE=cache
    export RUSTY_V8_ARCHIVE=$V8_CACHE_DIR/$V8_ARCHIVE_NAME
  fi
  # Checksumming 38 MB takes a fraction of a second; not done for QuickJS.
  if [ "$ENGINE_SOURCE" = none ] && [ "$ENGINE" != quickjs ] &&
    [ -f "$V8_SHARED_DIR/$V8_ARCHIVE_NAME" ]; then
    shared_name=../shared/v8/$V8_ARCHIVE_NAME
    problem=$(shared_archive_problem)
    if [ -z "$problem" ]; then
      ENGINE_SOURCE=shared
      # Absolute: the v8 crate's build script runs in another directory.
      RUSTY_V8_ARCHIVE=$(cd "$V8_SHARED_DIR" && pwd -P)/$V8_ARCHIVE_NAME
      export RUSTY_V8_ARCHIVE
    else
      passed_over="${passed_over:+$passed_over; }ignored $shared_name: $problem"
    fi
  fi
  local why=${passed_over:+; $passed_over}
  case "$ENGINE" in
    quickjs)
      ENGINE_SOURCE=none
      engine_note "QuickJS-ng (FWBENCH_ENGINE=quickjs)"
      ;;
    *)
      case "$ENGINE_SOURCE" in
        env) engine_note "V8, archive from RUSTY_V8_ARCHIVE: $RUSTY_V8_ARCHIVE" ;;
        cache) engine_note "V8, archive from the cache: $RUSTY_V8_ARCHIVE$why" ;;
        shared) engine_note "V8, archive from ../shared/v8 (sha256 matches its .sha256): $RUSTY_V8_ARCHIVE$why" ;;
      esac
      if [ "$ENGINE_SOURCE" != none ]; then
        ENGINE=v8
      elif [ "$ENGINE" = v8 ] || [ ! -f "$V8_DOWNLOAD_FAILED" ]; then
        ENGINE=v8
        ENGINE_SOURCE=download
        engine_note "V8, archive downloaded by the v8 crate (no local archive found$why)"
      else
        ENGINE=quickjs
        ENGINE_SOURCE=none
        engine_note "QuickJS-ng: no V8 archive here and the v8 crate could not download one" \
          "(build one with tools/build-v8.sh, or set RUSTY_V8_ARCHIVE$why)"
      fi
      ;;
  esac
  if [ "$ENGINE" = v8 ]; then
    ENGINE_FEATURES=""
  else
    ENGINE_FEATURES="--no-default-features --features quickjs"
  fi
}
