#!/usr/bin/env python3
"""Benchmark (not a test): per framework, start-up time (process
start to first good response, median of N fresh processes) and hello req/s
with 1 worker pinned to CPU 0 and `wrk -t1 -c50 -d10s` pinned to CPU 1.

Usage: benches/frameworks-startup.py [STARTS=5] [DURATION=10s]
Needs: cargo build --release; wrk (Debian package `wrk`); taskset.
"""
import statistics
import subprocess
import sys
import time
import urllib.request

BIN = "target/release/fwbench"
FRAMEWORKS = ["s200", "s200-light", "hono", "hono-patched", "express", "fastify", "elysia"]
STARTS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
DURATION = sys.argv[2] if len(sys.argv) > 2 else "10s"
PORT = 18300


def serve(framework):
    return subprocess.Popen(
        ["taskset", "-c", "0", BIN, "serve", "--framework", framework, "--scenario", "hello",
         "--port", str(PORT), "--workers", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def first_response_ms(framework):
    started = time.perf_counter()
    server = serve(framework)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/", timeout=1) as response:
                    if response.status == 200:
                        return (time.perf_counter() - started) * 1000
            except OSError:
                if server.poll() is not None:
                    raise SystemExit(f"{framework}: {server.stderr.read().decode()}")
                time.sleep(0.002)
    finally:
        server.terminate()
        server.wait()


def hello_rps(framework):
    server = serve(framework)
    try:
        first_response_ms_wait()
        out = subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c50", f"-d{DURATION}",
                              f"http://127.0.0.1:{PORT}/"], capture_output=True, text=True).stdout
        return float(next(l.split()[1] for l in out.splitlines() if l.startswith("Requests/sec")))
    finally:
        server.terminate()
        server.wait()


def first_response_ms_wait():
    for _ in range(500):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/", timeout=1).read()
            return
        except OSError:
            time.sleep(0.01)


print(f"{'framework':<14} {'start-up ms (median, min-max)':<30} hello req/s")
for framework in FRAMEWORKS:
    starts = [first_response_ms(framework) for _ in range(STARTS)]
    rps = hello_rps(framework)
    print(f"{framework:<14} {statistics.median(starts):6.0f} ({min(starts):.0f}-{max(starts):.0f}){'':<14} {rps:10.0f}")
