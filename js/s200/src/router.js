/**
 * Path patterns, middleware prefixes and the per-path lookup cache.
 *
 * Routes: `/users` (static), `/user/:id` (one segment per parameter),
 * `/files/*` (the rest of the path, in `params['*']`; also matches `/files`).
 * Middleware prefixes: `/api` runs for `/api` and everything below it (not
 * for `/apix`); `/api/*` is the same; `/`, `''` and `*` run everywhere;
 * `:name` segments match any one segment.
 *
 * Matching works on the raw path (as sent, not percent-decoded), so a route
 * and the middleware guarding it always see the same string; parameter
 * values are percent-decoded.
 *
 * What a path resolves to (its middleware list and matching routes) depends
 * only on the path, so it is computed once and cached per path (bounded;
 * cleared whenever a route or middleware is added).
 *
 * @module
 */

const NAME = /^[A-Za-z_$][\w$]*$/;
const EMPTY_PARAMS = Object.freeze(Object.create(null));

/** Upper bound on cached paths; dynamic paths (/user/1, /user/2...) each take one. */
const CACHE_LIMIT = 4096;

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function checkPath(path, what) {
  if (typeof path !== 'string' || path[0] !== '/') {
    throw new TypeError(`${what} path must be a string starting with "/", got ${JSON.stringify(path)}`);
  }
}

/**
 * Compiles a route pattern.
 * @param {string} path e.g. '/user/:id'
 * @returns {{ path: string, literal: boolean, regex: RegExp | null, names: string[] }}
 */
export function compileRoute(path) {
  checkPath(path, 'route');
  const segments = path.split('/');
  const names = [];
  let source = '';
  let literal = true;
  for (let i = 1; i < segments.length; i++) {
    const seg = segments[i];
    if (seg === '*' && i === segments.length - 1) {
      source += '(?:/(.*))?';
      names.push('*');
      literal = false;
    } else if (seg[0] === ':') {
      const name = seg.slice(1);
      if (!NAME.test(name)) throw new TypeError(`route ${path}: parameter ":${name}" needs a name like :id`);
      if (names.includes(name)) throw new TypeError(`route ${path}: parameter ":${name}" appears twice`);
      source += '/([^/]+)';
      names.push(name);
      literal = false;
    } else {
      source += '/' + escapeRegExp(seg);
    }
  }
  return { path, literal, regex: literal ? null : new RegExp(`^${source}$`), names };
}

/**
 * Compiles a middleware prefix into a predicate on the path.
 * @param {string} prefix
 * @returns {(path: string) => boolean}
 */
export function compilePrefix(prefix) {
  if (prefix === '*' || prefix === '') return () => true;
  checkPath(prefix, 'middleware');
  let p = prefix;
  if (p.endsWith('/*')) p = p.slice(0, -2);
  while (p.length > 0 && p.endsWith('/')) p = p.slice(0, -1);
  if (p === '') return () => true;
  if (p.includes(':') || p.includes('*')) {
    const source = p
      .split('/')
      .slice(1)
      .map((seg) => (seg[0] === ':' || seg === '*' ? '/[^/]+' : '/' + escapeRegExp(seg)))
      .join('');
    const regex = new RegExp(`^${source}(?:/|$)`);
    return (path) => regex.test(path);
  }
  const below = p + '/';
  return (path) => path === p || path.startsWith(below);
}

function decodeParam(value) {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // malformed escapes stay as sent
  }
}

/**
 * Matches one route against a path.
 * @returns {Record<string, string> | null} params, or null for no match
 */
function matchRoute(route, path) {
  if (route.literal) return route.path === path ? EMPTY_PARAMS : null;
  const m = route.regex.exec(path);
  if (m === null) return null;
  const params = Object.create(null);
  for (let i = 0; i < route.names.length; i++) params[route.names[i]] = decodeParam(m[i + 1] ?? '');
  return Object.freeze(params);
}

/**
 * What one path resolves to: the middleware that apply, the routes that
 * match (in registration order), and per method the chosen handler.
 */
class PathEntry {
  constructor(mws, matches) {
    /** @type {Function[]} */
    this.mws = mws;
    /** @type {{ route: object, params: Record<string, string> }[]} */
    this.matches = matches;
    /** method -> { handler, params } */
    this.byMethod = new Map();
  }
}

/**
 * Finds (or computes and caches) the entry for `path`.
 * @param {object} app the internal app record
 * @param {string} path
 * @returns {PathEntry}
 */
export function lookup(app, path) {
  let entry = app.cache.get(path);
  if (entry !== undefined) return entry;
  const mws = [];
  for (const m of app.middleware) if (m.match(path)) mws.push(m.fn);
  const matches = [];
  for (const route of app.routes) {
    const params = matchRoute(route, path);
    if (params !== null) matches.push({ route, params });
  }
  entry = new PathEntry(mws, matches);
  if (app.cache.size >= CACHE_LIMIT) app.cache.clear();
  app.cache.set(path, entry);
  return entry;
}

/**
 * Picks the handler for a method: the first route registered for that
 * method or for all methods; HEAD falls back to GET; otherwise the 405
 * fallback when the path matches some route, else the 404 fallback.
 * @param {object} app
 * @param {PathEntry} entry
 * @param {string} method
 * @returns {{ handler: Function, params: Record<string, string> }}
 */
export function resolve(app, entry, method) {
  let found = entry.byMethod.get(method);
  if (found !== undefined) return found;
  found = pick(entry.matches, method) ?? (method === 'HEAD' ? pick(entry.matches, 'GET') : undefined);
  if (found !== undefined) {
    found = { handler: found.route.handler, params: found.params };
  } else if (entry.matches.length === 0) {
    found = { handler: app.notFound, params: EMPTY_PARAMS };
  } else {
    found = { handler: methodNotAllowed(app, allowOf(entry.matches)), params: EMPTY_PARAMS };
  }
  entry.byMethod.set(method, found);
  return found;
}

function pick(matches, method) {
  for (const m of matches) if (m.route.method === method || m.route.method === 'ALL') return m;
  return undefined;
}

function allowOf(matches) {
  const methods = [];
  for (const { route } of matches) if (!methods.includes(route.method)) methods.push(route.method);
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  return methods.join(', ');
}

function methodNotAllowed(app, allow) {
  return function methodNotAllowed() {
    return app.kit.respond('Method Not Allowed', { status: 405, headers: { allow } }, 'text/plain; charset=UTF-8');
  };
}
