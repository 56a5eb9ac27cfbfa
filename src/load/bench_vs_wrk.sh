#!/bin/sh
# Benchmark of the load generator against wrk (issue 3), not a test.
#
# The native hyper hello server runs pinned to CPU 0; `fwbench load -c 50`
# and `wrk -t1 -c50` run pinned to CPU 1, alternating and reversing the
# order every round (hono's benchmarks/fetch/compare.sh habit), fresh
# process each time. Prints one CSV line per run, then the medians and the
# median of the per-round ratios.
#
# Usage: src/load/bench_vs_wrk.sh [ROUNDS=3] [DURATION=10s] [PORT=18080]
# Needs: cargo build --release; wrk (Debian package `wrk`); taskset.
set -eu
ROUNDS=${1:-3}
DURATION=${2:-10s}
PORT=${3:-18080}
BIN=${BIN:-target/release/fwbench}
URL="http://127.0.0.1:$PORT/"
OUT=$(mktemp -d)

taskset -c 0 "$BIN" serve --framework hyper --scenario hello --port "$PORT" --workers 1 >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT INT TERM
sleep 1

# wrk prints latency percentiles with units; normalize to microseconds.
to_us() {
    awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); print v+0 }
           else if (v ~ /ms$/) { sub(/ms$/,"",v); print v*1000 }
           else if (v ~ /s$/) { sub(/s$/,"",v); print v*1000000 } }'
}

run_fwbench() {
    taskset -c 1 "$BIN" load "$URL" -c 50 -d "$DURATION" --json --no-progress >"$OUT/fw.json" || true
    rps=$(sed -n 's/^ *"requests_per_sec": *\([0-9.]*\).*/\1/p' "$OUT/fw.json" | head -1)
    p50=$(sed -n 's/^ *"p50_us": *\([0-9.]*\).*/\1/p' "$OUT/fw.json" | head -1)
    echo "$1,fwbench,$rps,$p50"
}

run_wrk() {
    taskset -c 1 wrk -t1 -c50 -d"$DURATION" --latency "$URL" >"$OUT/wrk.txt"
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$OUT/wrk.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt" | to_us)
    echo "$1,wrk,$rps,$p50"
}

echo "round,tool,requests_per_sec,p50_us" | tee "$OUT/raw.csv"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    if [ $((r % 2)) -eq 1 ]; then
        run_fwbench "$r" | tee -a "$OUT/raw.csv"
        run_wrk "$r" | tee -a "$OUT/raw.csv"
    else
        run_wrk "$r" | tee -a "$OUT/raw.csv"
        run_fwbench "$r" | tee -a "$OUT/raw.csv"
    fi
    r=$((r + 1))
done

awk -F, 'NR > 1 { rps[$1 "," $2] = $3; p50[$1 "," $2] = $4; rounds[$1] = 1 }
    END {
        n = 0
        for (r in rounds) { n++; rr[n] = rps[r ",fwbench"] / rps[r ",wrk"]; pr[n] = p50[r ",fwbench"] / p50[r ",wrk"] }
        # insertion sort, then median
        for (i = 2; i <= n; i++) for (j = i; j > 1 && rr[j-1] > rr[j]; j--) { t = rr[j]; rr[j] = rr[j-1]; rr[j-1] = t }
        for (i = 2; i <= n; i++) for (j = i; j > 1 && pr[j-1] > pr[j]; j--) { t = pr[j]; pr[j] = pr[j-1]; pr[j-1] = t }
        m = (n % 2) ? rr[(n+1)/2] : (rr[n/2] + rr[n/2+1]) / 2
        q = (n % 2) ? pr[(n+1)/2] : (pr[n/2] + pr[n/2+1]) / 2
        printf "median ratio fwbench/wrk: requests/s %.3f, p50 %.3f (over %d rounds)\n", m, q, n
    }' "$OUT/raw.csv"
echo "raw results in $OUT"
