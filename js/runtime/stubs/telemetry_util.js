// Stand-in for `ext:deno_telemetry/util.ts` (see telemetry.js): no spans.
(function () {
  const { internals } = globalThis.__bootstrap;
  internals.__telemetryUtil = {
    updateSpanFromClientResponse() {},
    updateSpanFromError() {},
    updateSpanFromRequest() {},
  };
  return internals.__telemetryUtil;
})();
