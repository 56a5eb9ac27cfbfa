#!/bin/sh
# Benchmark of the load generator against wrk, not a test.
#
# The native hyper hello server runs pinned to CPU $SERVER_CPU (0); `fwbench
# load -c 50` and `wrk -t1 -c50` run pinned to CPU $CLIENT_CPU (1),
# alternating and reversing the order every round (hono's
# benchmarks/fetch/compare.sh habit), a fresh client process each time.
#
# The machine may be shared, so every run also records how much CPU time
# *other* processes used meanwhile: user + system + irq + softirq time from
# /proc/stat (a task's own times include the softirq work done on its
# behalf, here the loopback traffic) minus the server's and the client's
# own. Niced time is left out: a nice 19 idle-priority build yields the CPU
# at once to anything else. Before each round the
# script waits (up to $QUIET_WAIT s) for a second with less than
# $QUIET_CPU CPU-s of such other work. A round in which either run saw more
# than $MAX_OTHERS CPU-s of other work per second is marked disturbed and run
# again (at most $RETRIES times); the summary uses undisturbed rounds only
# (or, when every round was disturbed, all of them, and says so).
#
# Per run it records requests/s, p50/p99 latency, mean latency and the mean
# concurrency it implies (Little's law: requests/s x mean latency), the
# client's and the server's CPU share (CPU time / wall time; 1.0 = one core
# busy) and the others' CPU per second.
#
# Output: one CSV line per run, then the median of the per-round ratios
# fwbench/wrk for requests/s and p50 with their min-max, and each tool's
# medians. Everything (command, machine, conditions, raw lines, summary) is
# also written to $RESULTS/load-vs-wrk-<date-time>.txt.
#
# On a machine that is never quiet, SCHED="chrt -f 1" runs the server and
# the clients at real-time priority, so other work no longer delays their
# wake-ups: close to a dedicated machine, except that the kernel's real-time
# throttling caps each at 95% of its CPU (so a server that saturates shows
# 0.95), and other processes wait meanwhile: keep such runs short.
#
# Usage: benches/load-vs-wrk.sh [ROUNDS=5] [DURATION=10s] [PORT=18080]
# Env: BIN, FW_CONNECTIONS (fwbench's -c, 50), FW_ARGS (more fwbench load
#      flags), SERVER_CPU, CLIENT_CPU, MAX_OTHERS, QUIET_CPU, QUIET_WAIT,
#      RETRIES, RESULTS (benches/results), SCHED (a command prefix for the
#      server and the clients, e.g. "chrt -f 1").
# Needs: cargo build --release; wrk (Debian package `wrk`); taskset; GNU time;
#        python3 (to read fwbench's JSON).
set -eu
ROUNDS=${1:-5}
DURATION=${2:-10s}
PORT=${3:-18080}
BIN=${BIN:-target/release/fwbench}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
MAX_OTHERS=${MAX_OTHERS:-0.05}
QUIET_CPU=${QUIET_CPU:-0.05}
QUIET_WAIT=${QUIET_WAIT:-300}
FW_CONNECTIONS=${FW_CONNECTIONS:-50}
FW_ARGS=${FW_ARGS:-}
RETRIES=${RETRIES:-3}
RESULTS=${RESULTS:-benches/results}
SCHED=${SCHED:-}
URL="http://127.0.0.1:$PORT/"
OUT=$(mktemp -d)
HZ=$(getconf CLK_TCK)
STAMP=$(date -u +%Y-%m-%dT%H%M%SZ)
mkdir -p "$RESULTS"
REPORT="$RESULTS/load-vs-wrk-$STAMP.txt"

# shellcheck disable=SC2086 # SCHED is a command prefix
$SCHED taskset -c "$SERVER_CPU" "$BIN" serve --framework hyper --scenario hello --port "$PORT" --workers 1 >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT INT TERM
sleep 1

# user + system + irq + softirq jiffies of the whole machine (niced time
# left out), and the server's user + system jiffies.
busy() { awk '/^cpu /{print $2 + $4 + $7 + $8}' /proc/stat; }
server_cpu() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }
now() { date +%s.%N; }

# Waits until one second passes with little other work (or QUIET_WAIT runs
# out: the round then goes ahead and is judged by its own figures).
wait_quiet() {
    waited=0
    while [ "$waited" -lt "$QUIET_WAIT" ]; do
        b0=$(busy); s0=$(server_cpu)
        sleep 1
        b1=$(busy); s1=$(server_cpu)
        calm=$(awk -v b="$((b1 - b0 - (s1 - s0)))" -v hz="$HZ" -v q="$QUIET_CPU" 'BEGIN { print (b / hz < q) ? 1 : 0 }')
        [ "$calm" = 1 ] && return 0
        waited=$((waited + 1))
    done
}

# wrk prints latency percentiles with units; normalize to microseconds.
to_us() {
    awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); print v+0 }
           else if (v ~ /ms$/) { sub(/ms$/,"",v); print v*1000 }
           else if (v ~ /s$/) { sub(/s$/,"",v); print v*1000000 } }'
}

# run TOOL: runs one client, prints
# "rps,p50_us,p99_us,mean_us,concurrency,client_cpu,server_cpu,others_cpu".
run() {
    b0=$(busy); s0=$(server_cpu); t0=$(now)
    if [ "$1" = fwbench ]; then
        # shellcheck disable=SC2086 # FW_ARGS is a list of flags
        /usr/bin/time -f "%U %S" -o "$OUT/time" $SCHED taskset -c "$CLIENT_CPU" \
            "$BIN" load "$URL" -c "$FW_CONNECTIONS" -d "$DURATION" $FW_ARGS --json --no-progress >"$OUT/fw.json" || true
        figures=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
l = r["latency"]
print(r["requests_per_sec"], l["p50_us"], l["p99_us"], l["mean_us"])' "$OUT/fw.json")
    else
        # shellcheck disable=SC2086 # SCHED is a command prefix
        /usr/bin/time -f "%U %S" -o "$OUT/time" $SCHED taskset -c "$CLIENT_CPU" \
            wrk -t1 -c50 -d"$DURATION" --latency "$URL" >"$OUT/wrk.txt"
        figures="$(awk '/^Requests\/sec:/ {print $2}' "$OUT/wrk.txt") \
$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt" | to_us) \
$(awk '$1 == "99%" {print $2}' "$OUT/wrk.txt" | to_us) \
$(awk '$1 == "Latency" && NF > 4 {print $2}' "$OUT/wrk.txt" | to_us)"
    fi
    b1=$(busy); s1=$(server_cpu); t1=$(now)
    echo "$figures" | awk -v b="$((b1 - b0))" -v s="$((s1 - s0))" -v hz="$HZ" -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
        -v client="$(awk '{ print $1 + $2 }' "$OUT/time")" \
        '{ printf "%.0f,%.0f,%.0f,%.0f,%.1f,%.3f,%.3f,%.3f\n", $1, $2, $3, $4, $1 * $4 / 1e6,
           client / wall, s / hz / wall, ((b - s) / hz - client) / wall }'
}

{
    echo "# fwbench load vs wrk, $STAMP"
    echo "command: benches/load-vs-wrk.sh $ROUNDS $DURATION $PORT" \
        "(FW_CONNECTIONS=$FW_CONNECTIONS FW_ARGS='$FW_ARGS' MAX_OTHERS=$MAX_OTHERS QUIET_CPU=$QUIET_CPU SCHED='$SCHED')"
    echo "fwbench: $("$BIN" --version | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' (dirty)')"
    echo "wrk: $(wrk -v 2>&1 | head -1)"
    echo "machine: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) CPUs, kernel $(uname -r)"
    echo "conditions: server 'fwbench serve --framework hyper --scenario hello --workers 1' on CPU $SERVER_CPU;" \
        "clients on CPU $CLIENT_CPU: 'fwbench load -c $FW_CONNECTIONS -d $DURATION $FW_ARGS', 'wrk -t1 -c50 -d$DURATION'"
    echo "cpu columns: share of one core (CPU time / wall); others = other processes' non-niced CPU-s per second"
    echo
} >"$REPORT"

echo "round,tool,requests_per_sec,p50_us,p99_us,mean_us,concurrency,client_cpu,server_cpu,others_cpu,disturbed" | tee "$OUT/raw.csv"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    try=0
    while :; do
        wait_quiet
        if [ $((r % 2)) -eq 1 ]; then first=fwbench; second=wrk; else first=wrk; second=fwbench; fi
        a=$(run $first); b=$(run $second)
        bad=$(echo "$a $b" | awk -v m="$MAX_OTHERS" -F'[ ,]' '{ print ($8 > m || $16 > m) ? "yes" : "no" }')
        echo "$r,$first,$a,$bad" | tee -a "$OUT/raw.csv"
        echo "$r,$second,$b,$bad" | tee -a "$OUT/raw.csv"
        try=$((try + 1))
        if [ "$bad" = no ] || [ "$try" -gt "$RETRIES" ]; then break; fi
    done
    r=$((r + 1))
done

SUMMARY=$(awk -F, '
    function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
    function median(a, n) { sort(a, n); return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
    # Undisturbed rounds only; if there are none, every round (its last try),
    # and the summary says so.
    NR > 1 && (!calm[$1] || $11 == "no") {
        if ($11 == "no") { calm[$1] = 1; quiet++ }
        k = $1 "," $2; rps[k] = $3; p50[k] = $4; ccpu[k] = $8; scpu[k] = $9; conc[k] = $7; rounds[$1] = 1
    }
    END {
        if (quiet) { for (r in rounds) if (!calm[r]) delete rounds[r]; label = "undisturbed rounds" }
        else label = "rounds, ALL DISTURBED (other work ran meanwhile)"
        n = 0
        for (r in rounds) {
            n++
            rr[n] = rps[r ",fwbench"] / rps[r ",wrk"]; pr[n] = p50[r ",fwbench"] / p50[r ",wrk"]
            fr[n] = rps[r ",fwbench"]; wr[n] = rps[r ",wrk"]
            fc[n] = ccpu[r ",fwbench"]; wc[n] = ccpu[r ",wrk"]
            fs[n] = scpu[r ",fwbench"]; ws[n] = scpu[r ",wrk"]
            fp[n] = p50[r ",fwbench"]; wp[n] = p50[r ",wrk"]
            fk[n] = conc[r ",fwbench"]; wk[n] = conc[r ",wrk"]
        }
        if (n == 0) { print "no round finished"; exit }
        printf "median ratio fwbench/wrk over %d %s: requests/s %.3f", n, label, median(rr, n)
        printf " (min %.3f, max %.3f), p50 %.3f (min %.3f, max %.3f)\n", rr[1], rr[n], median(pr, n), pr[1], pr[n]
        printf "fwbench medians: %.0f requests/s, p50 %.0f us, concurrency %.1f, client cpu %.2f, server cpu %.2f\n", median(fr, n), median(fp, n), median(fk, n), median(fc, n), median(fs, n)
        printf "wrk medians:     %.0f requests/s, p50 %.0f us, concurrency %.1f, client cpu %.2f, server cpu %.2f\n", median(wr, n), median(wp, n), median(wk, n), median(wc, n), median(ws, n)
    }' "$OUT/raw.csv")
echo "$SUMMARY"
{
    cat "$OUT/raw.csv"
    echo
    echo "$SUMMARY"
} >>"$REPORT"
echo "raw results in $OUT; report in $REPORT"
