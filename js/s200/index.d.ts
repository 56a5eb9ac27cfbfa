/**
 * Types for s200 (index.js). s200-light (light.js) has the same API; see
 * light.d.ts.
 */

/** What a handler, a fallback or a short-circuiting middleware produces. */
export type AnyResponse = Response | LightResponse;

/** The per-request context passed to every middleware and handler. */
export interface Context<Res extends AnyResponse = Response> {
  /** The platform Request (or the host's request object: url, method, headers). */
  readonly req: Request;
  /**
   * The response. `null` on the way in; always a response once a `next()`
   * has resolved (handler result, 404/405/500 fallbacks, or a middleware's
   * own response). Mutate it in place; assign it to short-circuit.
   */
  res: Res | null;
  /** Route parameters (`/user/:id` gives `{ id }`; a trailing `*` gives `'*'`), percent-decoded; read-only. */
  readonly params: Readonly<Record<string, string>>;
  /** The query string, first value per key, parsed on first read. */
  readonly query: Readonly<Record<string, string>>;
  /** Per-request store for middleware and handlers. */
  state: Record<string, unknown>;
  /** What a handler or a later middleware threw or rejected with, if anything. */
  error: unknown;
  /** The request method, upper case. */
  readonly method: string;
  /** The request path without the query, as sent (not percent-decoded). */
  readonly path: string;
}

/** Resolves once the rest of the chain ran; `ctx.res` exists then. Never rejects. */
export type Next = () => Promise<void>;

/**
 * Middleware: runs before the rest of the chain, `await next()`, then sees
 * `ctx.res`. Returning a response (or setting `ctx.res`) without calling
 * `next()` short-circuits the chain.
 */
export type Middleware<Res extends AnyResponse = Response> = (
  ctx: Context<Res>,
  next: Next
) => Promise<void | AnyResponse | undefined> | void | AnyResponse;

/** A route handler. */
export type Handler<Res extends AnyResponse = Response> = (ctx: Context<Res>) => AnyResponse | Promise<AnyResponse>;

export interface AppOptions<Res extends AnyResponse = Response> {
  /** Builds the response for an error, synchronously. Default: 500 "Internal Server Error". */
  onError?: (err: unknown, ctx: Context<Res>) => AnyResponse;
  /** Builds the 404 response. Default: 404 "Not Found". */
  notFound?: (ctx: Context<Res>) => AnyResponse;
  /** Print each caught error with console.error. Default: true. */
  logErrors?: boolean;
  /** Make a light app (what s200/light's createApp does). Default: false. */
  light?: boolean;
}

declare const RESPONSE_KIND: unique symbol;

/** What every app has; `Res` is the kind of response inside its chain. */
export interface AppBase<Res extends AnyResponse> {
  /** Answers a request. */
  readonly fetch: (request: Request) => AnyResponse | Promise<AnyResponse>;
  /** Type-level only: the response kind of the chain. */
  readonly [RESPONSE_KIND]?: Res;
}

/** An s200 app: `export default app` serves on Deno, Bun, fwbench, and Node via a fetch adapter. */
export interface App extends AppBase<Response> {
  /** Answers a request; synchronously when the whole chain ran synchronously. */
  readonly fetch: (request: Request) => Response | Promise<Response>;
}

/** Creates an app. */
export function createApp(options?: AppOptions<Response> & { light?: false }): App;
export function createApp(options: AppOptions<LightResponse> & { light: true }): LightApp;

/** Registers middleware for a path prefix (`'/'`, `'*'` or a bare function: every path). */
export function use<Res extends AnyResponse>(app: AppBase<Res>, path: string, ...middleware: Middleware<Res>[]): AppBase<Res>;
export function use<Res extends AnyResponse>(app: AppBase<Res>, ...middleware: Middleware<Res>[]): AppBase<Res>;

/** Registers a GET route; HEAD requests are answered by it too, without body. */
export function get<Res extends AnyResponse>(app: AppBase<Res>, path: string, handler: Handler<Res>): AppBase<Res>;
/** Registers a POST route. */
export function post<Res extends AnyResponse>(app: AppBase<Res>, path: string, handler: Handler<Res>): AppBase<Res>;
/** Registers a PUT route. */
export function put<Res extends AnyResponse>(app: AppBase<Res>, path: string, handler: Handler<Res>): AppBase<Res>;
/** Registers a PATCH route. */
export function patch<Res extends AnyResponse>(app: AppBase<Res>, path: string, handler: Handler<Res>): AppBase<Res>;
/** Registers a DELETE route (`delete` is reserved). */
export function del<Res extends AnyResponse>(app: AppBase<Res>, path: string, handler: Handler<Res>): AppBase<Res>;
/** Registers a route for every method. */
export function all<Res extends AnyResponse>(app: AppBase<Res>, path: string, handler: Handler<Res>): AppBase<Res>;

/** A ResponseInit, or just a status. */
export type Init = ResponseInit | number;

/** Responds with JSON (`content-type: application/json` unless init sets one). */
export function json<Res extends AnyResponse>(ctx: Context<Res>, body: unknown, init?: Init): Res;
/** Responds with text (`content-type: text/plain; charset=UTF-8` unless init sets one). */
export function text<Res extends AnyResponse>(ctx: Context<Res>, body: string, init?: Init): Res;
/** Responds with any body and no default content-type. */
export function send<Res extends AnyResponse>(ctx: Context<Res>, body: LightBody, init?: Init): Res;

/**
 * Sets a response header: straight on `ctx.res.headers` once the response
 * exists, otherwise when it materializes.
 */
export function setHeader(ctx: Context<AnyResponse>, name: string, value: string): void;

// --- light responses --------------------------------------------------------

/** The brand a host checks: `r[LIGHT_RESPONSE] === true` (`Symbol.for('fwbench.light-response')`). */
export const LIGHT_RESPONSE: unique symbol;

/** Bodies a light response may carry (the adapter protocol). */
export type LightBody = null | undefined | string | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>;

/** A Headers-compatible, case-insensitive header map; set-cookie values kept apart. */
export class LightHeaders implements Iterable<[string, string]> {
  constructor(init?: HeadersInit | LightHeaders);
  get(name: string): string | null;
  set(name: string, value: string): void;
  append(name: string, value: string): void;
  has(name: string): boolean;
  delete(name: string): void;
  getSetCookie(): string[];
  /** Once per field, and once per cookie for set-cookie. */
  forEach(callback: (value: string, name: string, headers: LightHeaders) => void, thisArg?: unknown): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}

/** A response as a plain object, readable by hosts without a platform Response. */
export class LightResponse {
  constructor(body?: LightBody, init?: { status?: number; statusText?: string; headers?: HeadersInit | LightHeaders });
  status: number;
  statusText: string;
  headers: LightHeaders;
  body: LightBody;
  readonly ok: boolean;
  readonly [LIGHT_RESPONSE]: true;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Whether `r` follows the light response protocol. */
export function isLightResponse(r: unknown): r is LightResponse;

/** Converts a light response to a platform Response; platform Responses pass through. */
export function toResponse(r: AnyResponse): Response;

/** A light app (s200-light). */
export interface LightApp extends AppBase<LightResponse> {
  /**
   * Answers with a real Response, or with the LightResponse itself when
   * `globalThis[Symbol.for('fwbench.host')]` is set (a host that reads light responses).
   */
  readonly fetch: (request: Request) => Response | LightResponse | Promise<Response | LightResponse>;
  /** Always answers with the LightResponse (for adapters that speak the protocol). */
  readonly fetchLight: (request: Request) => AnyResponse | Promise<AnyResponse>;
}

// --- batteries ----------------------------------------------------------------

/** One logged request. */
export interface LogEntry {
  method: string;
  path: string;
  status: number;
  /** Duration in milliseconds. */
  ms: number;
  /** What the handler or a later middleware threw, if anything. */
  error?: unknown;
}

export interface LoggerOptions {
  /** Where lines go. Default: console.log. */
  sink?: (line: string, entry: LogEntry) => void;
  /** Builds the line. Default: `GET /path 200 1.2ms` (plus the error, if any). */
  format?: (entry: LogEntry) => string;
  /** Clock in milliseconds. Default: performance.now. */
  now?: () => number;
}

/** One line per request: method, path, status, duration; errors too. */
export function logger(options?: LoggerOptions): Middleware<AnyResponse>;

export interface CorsOptions {
  /** `'*'` (default), a fixed origin, a list, or a function returning an origin, `true` (echo) or a refusal. */
  origin?:
    | string
    | string[]
    | ((origin: string, ctx: Context<AnyResponse>) => string | boolean | null | undefined | Promise<string | boolean | null | undefined>);
  /** Preflight Access-Control-Allow-Methods. Default: GET, HEAD, PUT, POST, DELETE, PATCH. */
  allowMethods?: string[];
  /** Preflight Access-Control-Allow-Headers. Default: echo Access-Control-Request-Headers. */
  allowHeaders?: string[];
  /** Access-Control-Expose-Headers on actual responses. */
  exposeHeaders?: string[];
  /** Send Access-Control-Allow-Credentials: true. Default: false. */
  credentials?: boolean;
  /** Preflight Access-Control-Max-Age in seconds. */
  maxAge?: number;
}

/** CORS: preflights answered with 204; headers stamped in place on actual responses (errors too). */
export function cors(options?: CorsOptions): Middleware<AnyResponse>;

export interface RequestIdOptions {
  /** Request and response header. Default: X-Request-Id. */
  headerName?: string;
  /** Longest incoming id reused. Default: 255. */
  limitLength?: number;
  /** Makes a new id. Default: crypto.randomUUID(). */
  generator?: (ctx: Context<AnyResponse>) => string;
  /** Key on ctx.state. Default: requestId. */
  stateKey?: string;
}

/** Reuses a valid incoming request id or makes one; exposes it on ctx.state; stamps it on the response (errors too). */
export function requestId(options?: RequestIdOptions): Middleware<AnyResponse>;
