#!/usr/bin/env python3
"""Benchmark (not a test): start-up of every JS row, process start to first
validated answer, for one or more fwbench binaries side by side.

For each framework and each binary, N fresh `fwbench serve --scenario hello
--port 0` processes (pinned to CPU 0, or the --cpus given) are started in turn, the binaries
interleaved start by start, so a busy moment hits every binary alike. The
clock starts just before the process is spawned and stops when the answer
to GET / has been read and checked (status 200, body {"message":"hello"}): the
banner's URL is read from stdout, then one request is sent, no polling.
With --workers 2 also given, the extra isolate's cost is the difference:
on one CPU, the CPU time it takes; with --cpus 0-1, what it adds when the
workers start side by side (each worker builds its runtime in its own
thread).

Usage:
  benches/startup.py [--starts 5] [--workers 1,2] [--cpus 0] LABEL=[VAR=VALUE,...:]PATH ...
  benches/startup.py before=/tmp/old/fwbench after=target/release/fwbench
  benches/startup.py bootstrap=FWBENCH_SNAPSHOT=bootstrap:target/release/fwbench \
      framework=target/release/fwbench

A binary may be given environment variables of its own (before a colon):
the same binary with its snapshots switched (FWBENCH_SNAPSHOT=off or
bootstrap) is a side-by-side comparison without a second build.

Prints per framework, binary and worker count the median start-up in ms
with its min-max, and the ratio of each binary's median to the first's.
"""
import argparse
import http.client
import os
import statistics
import subprocess
import sys
import time

FRAMEWORKS = ["s200", "s200-light", "hono", "hono-patched", "express", "fastify", "elysia"]


def start_once(binary, env, framework, workers, cpus):
    """Spawn, read the banner, get one answer; ms from spawn to the answer."""
    started = time.perf_counter()
    server = subprocess.Popen(
        ["taskset", "-c", cpus, binary, "serve", "--framework", framework, "--scenario", "hello",
         "--port", "0", "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        banner = server.stdout.readline()
        if "http://" not in banner:
            server.kill()
            raise SystemExit(f"{binary} {framework}: no banner: {banner!r} {server.stderr.read()}")
        hostport = banner.split("http://", 1)[1].split("/", 1)[0]
        host, port = hostport.rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        connection.request("GET", "/")
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status != 200 or body != b'{"message":"hello"}':
            raise SystemExit(f"{binary} {framework}: answered {response.status} {body[:80]!r}")
        connection.close()
        return elapsed
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--workers", default="1", help="worker counts, comma-separated (1,2)")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    parser.add_argument("--cpus", default="0", help="the CPUs the servers run on, as taskset takes them (0, 0-1)")
    parser.add_argument("bins", nargs="+", metavar="LABEL=PATH")
    args = parser.parse_args()
    bins = []
    for item in args.bins:
        label, sep, path = item.partition("=")
        if not sep:
            sys.exit(f"'{item}' is not LABEL=PATH")
        env = dict(os.environ)
        variables, colon, rest = path.partition(":")
        if colon and "=" in variables:
            path = rest
            for variable in variables.split(","):
                name, sep, value = variable.partition("=")
                if not sep:
                    sys.exit(f"'{variable}' in '{item}' is not VAR=VALUE")
                env[name] = value
        version = subprocess.run([path, "--version"], capture_output=True, text=True, env=env).stdout.strip()
        print(f"# {label}: {item.partition('=')[2]}: {version}")
        bins.append((label, path, env))
    workers = [int(w) for w in args.workers.split(",")]
    print(f"# {args.starts} starts each, interleaved, servers on CPUs {args.cpus}; ms from spawn to the first answer read")
    print(f"{'framework':<14} {'workers':>7} " + " ".join(f"{label + ' ms (min-max)':>24}" for label, _, _ in bins)
          + ("  ratios to " + bins[0][0] if len(bins) > 1 else ""))
    for framework in args.frameworks.split(","):
        for count in workers:
            samples = {label: [] for label, _, _ in bins}
            for _ in range(args.starts):
                for label, path, env in bins:
                    samples[label].append(start_once(path, env, framework, count, args.cpus))
            medians = {label: statistics.median(s) for label, s in samples.items()}
            cells = [f"{medians[l]:8.1f} ({min(s):.1f}-{max(s):.1f})".rjust(24) for l, s in samples.items()]
            ratios = " ".join(f"{medians[l] / medians[bins[0][0]]:.2f}" for l, _, _ in bins[1:])
            print(f"{framework:<14} {count:>7} " + " ".join(cells) + (f"  {ratios}" if ratios else ""))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
