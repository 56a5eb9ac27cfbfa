#!/bin/sh
# Benchmark of the load generator against wrk, not a test.
#
# The native hyper hello server runs pinned to CPU 0; `fwbench load -c 50`
# and `wrk -t1 -c50` run pinned to CPU 1, alternating and reversing the
# order every round (hono's benchmarks/fetch/compare.sh habit), a fresh
# client process each time.
#
# The machine may be shared, so every run also records how much CPU time
# *other* processes used meanwhile (busy time from /proc/stat minus the
# server's and the client's own). A round in which either run saw more than
# $MAX_OTHERS CPU-seconds of other work is marked disturbed and run again (at
# most $RETRIES times); the medians use undisturbed rounds only.
#
# Output: one CSV line per run, then the median of the per-round ratios
# fwbench/wrk for requests/s and p50 latency. Each line also has the mean
# latency and the mean concurrency it implies (Little's law: requests/s x
# mean latency): wrk writes a connection's next request only on its next
# event-loop turn, so under load its connections sit idle part of the time
# and fewer than 50 requests are in flight, which lowers its latency.
# FW_CONNECTIONS sets fwbench's -c (default 50) to compare at wrk's
# effective concurrency.
#
# Usage: benches/load-vs-wrk.sh [ROUNDS=3] [DURATION=10s] [PORT=18080]
# Needs: cargo build --release; wrk (Debian package `wrk`); taskset; GNU time.
set -eu
ROUNDS=${1:-3}
DURATION=${2:-10s}
PORT=${3:-18080}
BIN=${BIN:-target/release/fwbench}
MAX_OTHERS=${MAX_OTHERS:-0.5}
FW_CONNECTIONS=${FW_CONNECTIONS:-50}
RETRIES=${RETRIES:-3}
URL="http://127.0.0.1:$PORT/"
OUT=$(mktemp -d)
HZ=$(getconf CLK_TCK)

taskset -c 0 "$BIN" serve --framework hyper --scenario hello --port "$PORT" --workers 1 >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT INT TERM
sleep 1

# user + nice + system + irq + softirq jiffies of the whole machine (a
# task's own times include the softirq work done on its behalf), and the
# server's user + system jiffies.
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
server_cpu() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }

# wrk prints latency percentiles with units; normalize to microseconds.
to_us() {
    awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); print v+0 }
           else if (v ~ /ms$/) { sub(/ms$/,"",v); print v*1000 }
           else if (v ~ /s$/) { sub(/s$/,"",v); print v*1000000 } }'
}

# run TOOL: runs one client, prints "rps,p50_us,mean_us,concurrency,others_cpu_s".
run() {
    b0=$(busy); s0=$(server_cpu)
    if [ "$1" = fwbench ]; then
        /usr/bin/time -f "%U %S" -o "$OUT/time" taskset -c 1 \
            "$BIN" load "$URL" -c "$FW_CONNECTIONS" -d "$DURATION" --json --no-progress >"$OUT/fw.json" || true
        rps=$(sed -n 's/^ *"requests_per_sec": *\([0-9.]*\).*/\1/p' "$OUT/fw.json" | head -1)
        p50=$(sed -n 's/^ *"p50_us": *\([0-9.]*\).*/\1/p' "$OUT/fw.json" | head -1)
        mean=$(sed -n 's/^ *"mean_us": *\([0-9.]*\).*/\1/p' "$OUT/fw.json" | head -1)
    else
        /usr/bin/time -f "%U %S" -o "$OUT/time" taskset -c 1 \
            wrk -t1 -c50 -d"$DURATION" --latency "$URL" >"$OUT/wrk.txt"
        rps=$(awk '/^Requests\/sec:/ {print $2}' "$OUT/wrk.txt")
        p50=$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt" | to_us)
        mean=$(awk '$1 == "Latency" && NF > 4 {print $2}' "$OUT/wrk.txt" | to_us)
    fi
    b1=$(busy); s1=$(server_cpu)
    others=$(awk -v b="$((b1 - b0))" -v s="$((s1 - s0))" -v hz="$HZ" \
        '{ printf "%.2f", (b - s) / hz - ($1 + $2) }' "$OUT/time")
    conc=$(awk -v r="$rps" -v m="$mean" 'BEGIN { printf "%.1f", r * m / 1e6 }')
    echo "$rps,$p50,$mean,$conc,$others"
}

echo "round,tool,requests_per_sec,p50_us,mean_us,concurrency,others_cpu_s,disturbed" | tee "$OUT/raw.csv"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    try=0
    while :; do
        if [ $((r % 2)) -eq 1 ]; then first=fwbench; second=wrk; else first=wrk; second=fwbench; fi
        a=$(run $first); b=$(run $second)
        bad=$(echo "$a $b" | awk -v m="$MAX_OTHERS" -F'[ ,]' '{ print ($5 > m || $10 > m) ? "yes" : "no" }')
        echo "$r,$first,$a,$bad" | tee -a "$OUT/raw.csv"
        echo "$r,$second,$b,$bad" | tee -a "$OUT/raw.csv"
        try=$((try + 1))
        if [ "$bad" = no ] || [ "$try" -gt "$RETRIES" ]; then break; fi
    done
    r=$((r + 1))
done

awk -F, 'NR > 1 && $8 == "no" { rps[$1 "," $2] = $3; p50[$1 "," $2] = $4; rounds[$1] = 1 }
    END {
        n = 0
        for (r in rounds) { n++; rr[n] = rps[r ",fwbench"] / rps[r ",wrk"]; pr[n] = p50[r ",fwbench"] / p50[r ",wrk"] }
        if (n == 0) { print "no undisturbed round"; exit }
        for (i = 2; i <= n; i++) for (j = i; j > 1 && rr[j-1] > rr[j]; j--) { t = rr[j]; rr[j] = rr[j-1]; rr[j-1] = t }
        for (i = 2; i <= n; i++) for (j = i; j > 1 && pr[j-1] > pr[j]; j--) { t = pr[j]; pr[j] = pr[j-1]; pr[j-1] = t }
        m = (n % 2) ? rr[(n+1)/2] : (rr[n/2] + rr[n/2+1]) / 2
        q = (n % 2) ? pr[(n+1)/2] : (pr[n/2] + pr[n/2+1]) / 2
        printf "median ratio fwbench/wrk over %d undisturbed rounds: requests/s %.3f, p50 %.3f\n", n, m, q
    }' "$OUT/raw.csv"
echo "raw results in $OUT"
