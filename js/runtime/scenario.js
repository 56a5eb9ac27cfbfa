// Builds a framework's app from a scenario module (scenarios/*.js): the
// scenario exports `apps`, one async factory per framework, and fwbench
// serves what the factory returns. Which factory a framework uses and how
// its app is served come from fwbench's framework registry
// (src/frameworks.rs), passed in by the generated main module.

/**
 * The app for `framework` from `scenario`, ready to be the main module's
 * default export.
 * @param {Record<string, unknown>} scenario the scenario module's namespace
 * @param {string} name the scenario's name, for messages
 * @param {{ name: string, factory: string, mode: string }} framework the
 *   registry's row: its name, the `apps` key its app comes from, and how the
 *   app is served ("fetch", "node" or "hono-node-server": hono's app with
 *   the runtime's global Request/Response replaced by @hono/node-server's
 *   lightweight classes, as Node users of hono get them)
 * @param {{ depth?: number, without?: string[] }} [options] what the
 *   factory is built for: a scenario that exports `depth` (its chain's
 *   default length) receives the depth asked for, or its default; one that
 *   exports `concerns` receives those not in `without`
 */
export async function appFor(scenario, name, framework, options = {}) {
  const apps = scenario.apps;
  if (apps === null || typeof apps !== "object") {
    throw new TypeError(`scenario '${name}' does not export \`apps\` (one factory per framework)`);
  }
  const factory = apps[framework.name] ?? apps[framework.factory];
  if (typeof factory !== "function") {
    throw new TypeError(
      `scenario '${name}' has no app for framework '${framework.name}' (apps['${framework.factory}'])`,
    );
  }
  const app = await factory(factoryOptions(scenario, name, options));
  if (framework.mode === "hono-node-server" && apps[framework.name] === undefined) {
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

/**
 * The options a scenario's factories (and an `expect` function) receive:
 * `{ depth }` for a scenario that exports a default `depth`, and
 * `{ concerns }` for one that exports the names of its chain's concerns
 * (scenarios/prod.js): the concerns to mount, every one unless `without`
 * names some to leave out (what an ablation run asks for). Else `{}`.
 */
export function factoryOptions(scenario, name, { depth, without } = {}) {
  const options = {};
  if (scenario.depth === undefined) {
    if (depth !== undefined) {
      throw new TypeError(
        `scenario '${name}' has no depth parameter (it would export \`depth\`, its chain's default length: see scenarios/README.md)`,
      );
    }
  } else {
    const chosen = depth ?? scenario.depth;
    if (!Number.isInteger(chosen) || chosen < 0) {
      throw new TypeError(`scenario '${name}': depth must be a whole number >= 0, not ${String(chosen)}`);
    }
    options.depth = chosen;
  }
  if (scenario.concerns !== undefined) {
    options.concerns = enabledConcerns(scenario.concerns, name, without ?? []);
  } else if (without !== undefined && without.length > 0) {
    throw new TypeError(
      `scenario '${name}' declares no concerns (it would export \`concerns\`, the names of its chain's parts: see scenarios/README.md)`,
    );
  }
  return options;
}

/** The declared concerns minus `without`, each name in `without` checked. */
function enabledConcerns(declared, name, without) {
  if (!Array.isArray(declared) || !declared.every((c) => typeof c === "string" && c !== "")) {
    throw new TypeError(`scenario '${name}': concerns must be an array of names`);
  }
  const unknown = without.filter((c) => !declared.includes(c));
  if (unknown.length > 0) {
    throw new TypeError(
      `scenario '${name}' has no concern ${unknown.map((c) => `'${c}'`).join(", ")} (it declares ${declared.join(", ")})`,
    );
  }
  return declared.filter((c) => !without.includes(c));
}
