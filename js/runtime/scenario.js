// Builds a framework's app from a scenario module (scenarios/*.js): the
// scenario exports `apps`, one async factory per framework, and fwbench
// serves what the factory returns. The registry below says how each
// framework name maps onto a factory and a serving mode.

/** Marks a node-style request listener `(req, res)` for the adapter. */
export const NODE_LISTENER = Symbol.for("fwbench.node-listener");

/**
 * Framework names fwbench knows, with the factory each uses and how its
 * app is served. hono-patched is hono's app with the runtime's global
 * Request/Response replaced by @hono/node-server's lightweight classes
 * (getRequestListener's overrideGlobalObjects), as Node users of hono get
 * them. One row runs per process, so the replacement cannot reach another
 * framework's runtime.
 */
export const FRAMEWORKS = {
  "s200": { factory: "s200", mode: "fetch" },
  "s200-light": { factory: "s200-light", mode: "fetch" },
  "hono": { factory: "hono", mode: "fetch" },
  "hono-patched": { factory: "hono", mode: "hono-node-server" },
  "express": { factory: "express", mode: "node" },
  "fastify": { factory: "fastify", mode: "node" },
  "elysia": { factory: "elysia", mode: "fetch" },
};

/**
 * The app for `framework` from `scenario`, ready to be the main module's
 * default export.
 * @param {Record<string, unknown>} scenario the scenario module's namespace
 * @param {string} name the scenario's name, for messages
 * @param {string} framework a key of FRAMEWORKS
 */
export async function appFor(scenario, name, framework) {
  const entry = FRAMEWORKS[framework];
  if (entry === undefined) {
    throw new TypeError(
      `unknown framework '${framework}': fwbench knows ${Object.keys(FRAMEWORKS).join(", ")}`,
    );
  }
  const apps = scenario.apps;
  if (apps === null || typeof apps !== "object") {
    throw new TypeError(`scenario '${name}' does not export \`apps\` (one factory per framework)`);
  }
  const factory = apps[framework] ?? apps[entry.factory];
  if (typeof factory !== "function") {
    throw new TypeError(`scenario '${name}' has no app for framework '${framework}' (apps['${entry.factory}'])`);
  }
  const app = await factory();
  if (entry.mode === "hono-node-server" && apps[framework] === undefined) {
    // getRequestListener's side effect is the point: with
    // overrideGlobalObjects it replaces this runtime's global Request and
    // Response with @hono/node-server's lightweight classes. The app is then
    // served fetch-style: hono builds node-server's Response, which keeps
    // [status, body, headers] until the edge, and the adapter reads that
    // without building a platform Response (js/runtime/serve.js,
    // commitForeign). Requests stay the adapter's lazily materialized ones;
    // node-server's own Request wraps a node IncomingMessage, which would
    // put fwbench's node:http shim (not node-server's design) on the path.
    const { getRequestListener } = await import("@hono/node-server");
    getRequestListener(app.fetch, { overrideGlobalObjects: true });
  }
  return app;
}
