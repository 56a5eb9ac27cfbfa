// Stand-in for `ext:deno_telemetry/telemetry.ts`, which deno_fetch loads on
// first use of fetch(). fwbench has no tracing: spans are never entered.
(function () {
  const { internals } = globalThis.__bootstrap;
  const DID_NOT_ENTER = {};
  internals.__telemetry = {
    TRACING_ENABLED: false,
    PROPAGATORS: [],
    DID_NOT_ENTER,
    builtinTracer() {
      throw new Error("tracing is not available in fwbench");
    },
    ContextManager: { active() { return undefined; } },
    enterSpan() { return DID_NOT_ENTER; },
    exitSpan() {},
  };
  return internals.__telemetry;
})();
