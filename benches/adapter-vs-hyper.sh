#!/bin/sh
# Benchmark of the embedded host and adapter, not a test.
#
# The bare app (tests/fixtures/hello/app.js: new Response of the hello JSON)
# served by `fwbench serve` with 1 worker, and the native hyper row serving
# the same bytes, each pinned to CPU 0 and driven by `wrk -t1 -c50` pinned
# to CPU 1; the two alternate (A B B A ...) over ROUNDS rounds, a fresh
# server process each time. Prints one CSV line per run, the medians and
# the median of the per-round ratios JS/native.
#
# Usage: benches/adapter-vs-hyper.sh [ROUNDS=3] [DURATION=10s] [PORT=18090]
# Needs: cargo build --release; wrk (Debian package `wrk`); taskset.
set -eu
ROUNDS=${1:-3}
DURATION=${2:-10s}
PORT=${3:-18090}
BIN=${BIN:-target/release/fwbench}
APP=${APP:-tests/fixtures/hello/app.js}
OUT=$(mktemp -d)
SERVER=""
trap 'if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi' EXIT INT TERM

run() { # round, name, serve args...
    round=$1; name=$2; shift 2
    taskset -c 0 "$BIN" serve --port "$PORT" --workers 1 "$@" >"$OUT/server.log" 2>&1 &
    SERVER=$!
    i=0
    until grep -q "serving" "$OUT/server.log" 2>/dev/null; do
        i=$((i + 1)); [ "$i" -gt 200 ] && { cat "$OUT/server.log"; exit 1; }; sleep 0.05
    done
    taskset -c 1 wrk -t1 -c50 -d"$DURATION" --latency "http://127.0.0.1:$PORT/" >"$OUT/wrk.txt"
    kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$OUT/wrk.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt")
    echo "$round,$name,$rps,$p50"
}

echo "round,server,requests_per_sec,p50" | tee "$OUT/raw.csv"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    if [ $((r % 2)) -eq 1 ]; then
        run "$r" js "$APP" | tee -a "$OUT/raw.csv"
        run "$r" hyper --framework hyper --scenario hello | tee -a "$OUT/raw.csv"
    else
        run "$r" hyper --framework hyper --scenario hello | tee -a "$OUT/raw.csv"
        run "$r" js "$APP" | tee -a "$OUT/raw.csv"
    fi
    r=$((r + 1))
done

python3 - "$OUT/raw.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = lambda name: {int(r["round"]): float(r["requests_per_sec"]) for r in rows if r["server"] == name}
js, hy = by("js"), by("hyper")
ratios = [js[k] / hy[k] for k in sorted(js) if k in hy]
print(f"median req/s: js {statistics.median(js.values()):.0f}, hyper {statistics.median(hy.values()):.0f}")
print(f"per-round js/hyper: {', '.join(f'{r:.3f}' for r in ratios)}; median {statistics.median(ratios):.3f}")
PY
echo "raw: $OUT/raw.csv"
