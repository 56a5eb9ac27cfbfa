/**
 * Logger middleware: one line per request, errors included.
 *
 * @module
 */

/**
 * One logged request, as handed to the sink alongside the formatted line.
 * @typedef {object} LogEntry
 * @property {string} method
 * @property {string} path
 * @property {number} status
 * @property {number} ms duration in milliseconds
 * @property {unknown} [error] what the handler or a later middleware threw, if anything
 */

function errorText(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/**
 * The default line: `GET /users 200 1.2ms`, and for a failed request
 * `GET /users 500 0.4ms Error: boom`.
 * @param {LogEntry} e
 * @returns {string}
 */
export function formatLine(e) {
  const line = `${e.method} ${e.path} ${e.status} ${e.ms.toFixed(1)}ms`;
  return e.error === undefined ? line : `${line} ${errorText(e.error)}`;
}

/**
 * Creates the logger middleware.
 *
 * It times the rest of the chain and, once `next()` resolves, reads the
 * status from `ctx.res` (which always exists by then: 404, 405 and error
 * responses too) and the error from `ctx.error`. Register it first to time
 * everything.
 *
 * @param {object} [options]
 * @param {(line: string, entry: LogEntry) => void} [options.sink=console.log]
 *   where lines go; gets the formatted line and the structured entry
 * @param {(entry: LogEntry) => string} [options.format=formatLine] builds the line
 * @param {() => number} [options.now=() => performance.now()] clock in ms (inject one in tests)
 * @returns {(ctx: import('../../src/context.js').Context, next: () => Promise<void>) => Promise<void>}
 * @example
 * import { createApp, use, logger } from 's200';
 * const app = createApp();
 * use(app, '/', logger());                                   // GET / 200 0.3ms
 * use(app, '/api', logger({ sink: (line, e) => metrics.push(e) }));
 */
export function logger(options = {}) {
  const { sink = (line) => console.log(line), format = formatLine, now = () => performance.now() } = options;
  if (typeof sink !== 'function') throw new TypeError('logger: sink must be a function');
  if (typeof format !== 'function') throw new TypeError('logger: format must be a function');

  return async function logger(ctx, next) {
    const start = now();
    await next();
    /** @type {LogEntry} */
    const entry = { method: ctx.method, path: ctx.path, status: ctx.res.status, ms: now() - start, error: ctx.error };
    sink(format(entry), entry);
  };
}
