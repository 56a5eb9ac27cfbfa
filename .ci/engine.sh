# Chooses the JS engine fwbench is built with; sourced by setup.sh and
# test.sh so that every cargo command of a run uses the same one (a
# different feature set or archive would rebuild the engine).
#
# V8 is the default. The `v8` crate links a prebuilt static archive, found
# in this order:
#   1. $RUSTY_V8_ARCHIVE, if it names a file;
#   2. the archive tools/build-v8.sh builds from source, offline, into
#      ${XDG_CACHE_HOME:-~/.cache}/fwbench/v8/;
#   3. the v8 crate's own download (any machine with internet access).
# When none of these works the QuickJS-ng engine is built instead, and this
# says so. FWBENCH_ENGINE=quickjs (or =v8) forces the choice.
#
# Sets ENGINE (v8 or quickjs), ENGINE_FEATURES (cargo flags) and exports
# RUSTY_V8_ARCHIVE when an archive was found.

V8_ARCHIVE_NAME=librusty_v8_simdutf_release_x86_64-unknown-linux-gnu.a.gz
V8_CACHE_DIR=${FWBENCH_V8_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fwbench/v8}
# Written when the v8 crate could not download its archive, so later runs
# go straight to QuickJS instead of retrying (about 40 s) every time.
V8_DOWNLOAD_FAILED=target/.v8-download-failed

engine_note() { printf '== engine: %s\n' "$*" >&2; }

choose_engine() {
  ENGINE=${FWBENCH_ENGINE:-}
  if [ -n "${RUSTY_V8_ARCHIVE:-}" ] && [ ! -f "$RUSTY_V8_ARCHIVE" ]; then
    engine_note "RUSTY_V8_ARCHIVE=$RUSTY_V8_ARCHIVE is not a file; ignoring it"
    unset RUSTY_V8_ARCHIVE
  fi
  if [ -z "${RUSTY_V8_ARCHIVE:-}" ] && [ -f "$V8_CACHE_DIR/$V8_ARCHIVE_NAME" ]; then
    export RUSTY_V8_ARCHIVE=$V8_CACHE_DIR/$V8_ARCHIVE_NAME
  fi
  case "$ENGINE" in
    quickjs) engine_note "QuickJS-ng (FWBENCH_ENGINE=quickjs)" ;;
    v8 | "")
      if [ -n "${RUSTY_V8_ARCHIVE:-}" ]; then
        ENGINE=v8
        engine_note "V8, archive $RUSTY_V8_ARCHIVE"
      elif [ "$ENGINE" = v8 ] || [ ! -f "$V8_DOWNLOAD_FAILED" ]; then
        ENGINE=v8
        engine_note "V8, archive downloaded by the v8 crate (no local archive found)"
      else
        ENGINE=quickjs
        engine_note "QuickJS-ng: no V8 archive here and the v8 crate could not download one" \
          "(build one with tools/build-v8.sh, or set RUSTY_V8_ARCHIVE)"
      fi
      ;;
    *)
      engine_note "FWBENCH_ENGINE must be v8 or quickjs, not '$ENGINE'"
      return 2
      ;;
  esac
  if [ "$ENGINE" = v8 ]; then
    ENGINE_FEATURES=""
  else
    ENGINE_FEATURES="--no-default-features --features quickjs"
  fi
}
