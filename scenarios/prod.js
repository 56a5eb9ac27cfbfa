// scenarios/prod.js: one JSON route behind the chain a production API
// mounts, built in each framework from its own or its most-used published
// packages (pinned in vendor/package.json, bundled unmodified):
//
//   cors              Access-Control-Allow-Origin for the app's origin
//   security-headers  helmet's set (nosniff, SAMEORIGIN, no-referrer, ...)
//   request-id        a fresh UUID per request, answered in x-request-id
//   access-log        the logger's own line format, into a bounded sink
//   auth              an HS256 JWT bearer token verified on every request
//
// then the handler answers {"message":"hello","user":<the token's sub>}.
// Which package fills which concern in each framework, and why it is the
// usual choice: scenarios/README.md, "The prod chain".
//
// The concerns are declared (`concerns` below) so that a chain can be built
// without some of them: every factory receives `{ concerns }`, the names it
// must mount (all by default), and `expect` answers for the same list
// (the headers of a concern left out must be absent). `fwbench sweep
// --ablate prod` removes one concern at a time this way; a scenario of your
// own takes part by exporting `concerns` and reading the option.
//
// The access log goes to `accessLog`, an in-memory sink that keeps the last
// LOG_CAPACITY lines (so a long run's memory stays flat) and counts them
// all; nothing is written to stderr. Lines per request, by each logger's
// default: one for s200's logger, morgan and the elysia logger; two for
// hono's logger ("<--" in, "-->" out) and fastify's pino ("incoming
// request", "request completed"). The elysia logger writes after the
// answer is sent (onAfterResponse), as it does on Bun.
//
// What is read: `authorization` (every auth link) and `origin` (every CORS
// link), in each framework's idiom; both are the request's own headers, so
// they win over any `--headers` set's.
// Format: scenarios/README.md.

export const description =
  'one JSON route behind CORS, security headers, request id, access log and HS256 JWT auth from each framework\'s own packages';

/** The concerns of the chain, outermost first (see the header). */
export const concerns = ['cors', 'security-headers', 'request-id', 'access-log', 'auth'];

/** The origin the app allows (the browser app that calls the API). */
const ORIGIN = 'https://app.example.com';
/** The HS256 secret every auth link verifies with. */
const SECRET = 'fwbench-prod-chain-hs256-secret-0123456789';
/**
 * A token signed with SECRET: {"alg":"HS256","typ":"JWT"} and
 * {"sub":"u_42","scope":"orders:read","iat":1767225600,"exp":4102444800}
 * (expires in 2100). tests/frameworks/prod.rs and the WebCrypto tests
 * check it verifies.
 */
export const TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
  'eyJzdWIiOiJ1XzQyIiwic2NvcGUiOiJvcmRlcnM6cmVhZCIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.' +
  'pmthC4YMAa0IEHPsL5Fi7Eizs-TZSvQv0h_5TOxBwVQ';
/** The route. */
const PATH = '/api/me';

export const request = {
  method: 'GET',
  path: PATH,
  headers: { origin: ORIGIN, authorization: `Bearer ${TOKEN}` },
  body: null,
};

/**
 * The security headers every framework's package sets with the same value
 * (helmet's defaults, which hono/secure-headers and elysia-helmet follow);
 * each package sets more, and some differ (helmet 8's HSTS is a year,
 * hono's 180 days), so only these are the scenario's expectation.
 */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** What a chain with `concerns` answers (all of them by default). */
export function expect({ concerns: on = concerns } = {}) {
  const has = (name) => on.includes(name);
  return {
    status: 200,
    // Without auth the handler has no verified token to name a user from.
    body: JSON.stringify({ message: 'hello', user: has('auth') ? 'u_42' : null }),
    // express and fastify add "; charset=utf-8"; parameters are ignored.
    contentType: 'application/json',
    headers: {
      ...(has('cors') ? { 'access-control-allow-origin': ORIGIN } : {}),
      ...(has('security-headers') ? SECURITY_HEADERS : {}),
    },
    // A new id per request: its presence is checked, not its value.
    headersPresent: has('request-id') ? ['x-request-id'] : [],
    // A concern left out is really gone: none of its headers is sent.
    headersAbsent: [
      ...(has('cors') ? [] : ['access-control-allow-origin']),
      ...(has('security-headers') ? [] : Object.keys(SECURITY_HEADERS)),
      ...(has('request-id') ? [] : ['x-request-id']),
    ],
  };
}

/** Lines the access log keeps; older ones are dropped (the count goes on). */
const LOG_CAPACITY = 1024;

/**
 * The access log's destination: a ring of the last LOG_CAPACITY lines and
 * the count of every line written. `write` takes what a logger hands a
 * stream (pino and morgan write one line per call, newline included).
 */
class LogSink {
  constructor(capacity) {
    this.capacity = capacity;
    this.ring = [];
    this.total = 0;
  }

  write(line) {
    this.ring[this.total % this.capacity] = line;
    this.total += 1;
    return true;
  }

  /** The lines kept, oldest first. */
  lines() {
    const start = this.total > this.capacity ? this.total % this.capacity : 0;
    return [...this.ring.slice(start), ...this.ring.slice(0, start)];
  }
}

/** This runtime's access log (one per worker; tests read it). */
export const accessLog = new LogSink(LOG_CAPACITY);

/** The handler's answer for the verified claims (null without auth). */
const answer = (claims) => ({ message: 'hello', user: claims?.sub ?? null });

/** The enabled-concern test every factory uses. */
const enabled = (on) => (name) => on.includes(name);

export const apps = {
  async s200({ concerns: on = concerns } = {}) {
    return s200App(await import('s200'), enabled(on));
  },

  async 's200-light'({ concerns: on = concerns } = {}) {
    return s200App(await import('s200/light'), enabled(on));
  },

  // Also serves hono-patched. hono's own middleware, each a subpath of the
  // hono package: hono/cors, hono/secure-headers, hono/request-id,
  // hono/logger (its print function writes to the sink), hono/jwt (which
  // verifies with crypto.subtle and puts the claims in c.get('jwtPayload')).
  async hono({ concerns: on = concerns } = {}) {
    const has = enabled(on);
    const { Hono } = await import('hono');
    const app = new Hono();
    if (has('cors')) {
      const { cors } = await import('hono/cors');
      app.use(cors({ origin: ORIGIN }));
    }
    if (has('security-headers')) {
      const { secureHeaders } = await import('hono/secure-headers');
      app.use(secureHeaders());
    }
    if (has('request-id')) {
      const { requestId } = await import('hono/request-id');
      app.use(requestId());
    }
    if (has('access-log')) {
      const { logger } = await import('hono/logger');
      app.use(logger((line) => accessLog.write(line)));
    }
    if (has('auth')) {
      const { jwt } = await import('hono/jwt');
      app.use(jwt({ secret: SECRET, alg: 'HS256' }));
    }
    app.get(PATH, (c) => c.json(answer(has('auth') ? c.get('jwtPayload') : null)));
    return app;
  },

  // cors, helmet, express-request-id, morgan ('combined', the Apache line
  // production setups log, to a stream that is the sink) and express-jwt
  // (jsonwebtoken underneath: node:crypto's createHmac with a secret
  // KeyObject); its UnauthorizedError is answered 401 JSON by an error
  // middleware, as express-jwt's README shows.
  async express({ concerns: on = concerns } = {}) {
    const has = enabled(on);
    const { default: express } = await import('express');
    const app = express();
    if (has('cors')) {
      const { default: cors } = await import('cors');
      app.use(cors({ origin: ORIGIN }));
    }
    if (has('security-headers')) {
      const { default: helmet } = await import('helmet');
      app.use(helmet());
    }
    if (has('request-id')) {
      const { default: requestId } = await import('express-request-id');
      app.use(requestId());
    }
    if (has('access-log')) {
      const { default: morgan } = await import('morgan');
      app.use(morgan('combined', { stream: accessLog }));
    }
    if (has('auth')) {
      // A CommonJS package: its exports are the default export's fields
      // (in Node as in the bundle).
      const { default: expressJwt } = await import('express-jwt');
      app.use(expressJwt.expressjwt({ secret: SECRET, algorithms: ['HS256'] }));
    }
    app.get(PATH, (req, res) => res.json(answer(has('auth') ? req.auth : null)));
    app.use((err, _req, res, next) => {
      if (err.name !== 'UnauthorizedError') return next(err);
      res.status(401).json({ error: 'unauthorized' });
    });
    return app;
  },

  // @fastify/cors, @fastify/helmet, fastify's own request id (genReqId,
  // answered by an onRequest hook: fastify does not send it by itself),
  // fastify's own logger (pino, its default JSON lines, to a stream that is
  // the sink) and @fastify/jwt (fast-jwt underneath) verified in an
  // onRequest hook, as its README shows. Returned un-ready.
  async fastify({ concerns: on = concerns } = {}) {
    const has = enabled(on);
    const { default: Fastify } = await import('fastify');
    const app = Fastify({
      logger: has('access-log') ? { stream: accessLog } : false,
      ...(has('request-id') ? { genReqId: () => crypto.randomUUID() } : {}),
    });
    if (has('cors')) {
      const { default: cors } = await import('@fastify/cors');
      await app.register(cors, { origin: ORIGIN });
    }
    if (has('security-headers')) {
      const { default: helmet } = await import('@fastify/helmet');
      await app.register(helmet);
    }
    if (has('request-id')) {
      app.addHook('onRequest', async (request, reply) => {
        reply.header('x-request-id', request.id);
      });
    }
    if (has('auth')) {
      const { default: jwt } = await import('@fastify/jwt');
      await app.register(jwt, { secret: SECRET });
      app.addHook('onRequest', async (request) => {
        await request.jwtVerify();
      });
    }
    app.get(PATH, async (request) => answer(has('auth') ? request.user : null));
    return app;
  },

  // @elysiajs/cors, elysia-helmet (the helmet port for elysia; elysia has
  // no official security-headers plugin), a request id stamped in
  // onRequest (no maintained request-id plugin exists for elysia 1.x),
  // @bogeychan/elysia-logger (pino, its default JSON line after each
  // answer, to the sink) and @elysiajs/jwt (jose underneath: crypto.subtle)
  // checked in a beforeHandle, as its README shows.
  async elysia({ concerns: on = concerns } = {}) {
    const has = enabled(on);
    const { Elysia } = await import('elysia');
    let app = new Elysia();
    if (has('cors')) {
      const { cors } = await import('@elysiajs/cors');
      app = app.use(cors({ origin: ORIGIN }));
    }
    if (has('security-headers')) {
      const { helmet } = await import('elysia-helmet');
      app = app.use(helmet());
    }
    if (has('request-id')) {
      app = app.onRequest(({ set }) => {
        set.headers['x-request-id'] = crypto.randomUUID();
      });
    }
    if (has('access-log')) {
      const { logger } = await import('@bogeychan/elysia-logger');
      app = app.use(logger({ stream: accessLog }));
    }
    if (!has('auth')) return app.get(PATH, () => answer(null));
    const { jwt } = await import('@elysiajs/jwt');
    return app
      .use(jwt({ name: 'jwt', secret: SECRET, alg: 'HS256' }))
      .derive(async ({ jwt, headers }) => {
        const header = headers.authorization;
        const claims = header?.startsWith('Bearer ') ? await jwt.verify(header.slice(7)) : false;
        return { claims };
      })
      .onBeforeHandle(({ claims, set }) => {
        if (!claims) {
          set.status = 401;
          return { error: 'unauthorized' };
        }
      })
      .get(PATH, ({ claims }) => answer(claims));
  },
};

/**
 * The s200 app; the same code runs on s200 and s200-light. Its batteries
 * (cors, requestId, logger) and two links of the app's own, as an s200 app
 * writes what its framework does not ship: helmet's headers, and an HS256
 * bearer check with crypto.subtle.
 */
function s200App({ createApp, use, get, json, cors, requestId, logger, setHeader }, has) {
  const app = createApp();
  const chain = [];
  if (has('cors')) chain.push(cors({ origin: ORIGIN }));
  if (has('security-headers')) chain.push(securityHeaders(setHeader));
  if (has('request-id')) chain.push(requestId());
  if (has('access-log')) chain.push(logger({ sink: (line) => accessLog.write(line) }));
  if (has('auth')) chain.push(bearerJwt(json));
  if (chain.length > 0) use(app, '/', ...chain);
  get(app, PATH, (ctx) => json(ctx, answer(ctx.state.claims)));
  return app;
}

/** helmet 8's default headers, as name/value pairs. */
const HELMET_DEFAULTS = [
  [
    'content-security-policy',
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';" +
      "img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';" +
      "style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  ],
  ['cross-origin-opener-policy', 'same-origin'],
  ['cross-origin-resource-policy', 'same-origin'],
  ['origin-agent-cluster', '?1'],
  ['referrer-policy', 'no-referrer'],
  ['strict-transport-security', 'max-age=31536000; includeSubDomains'],
  ['x-content-type-options', 'nosniff'],
  ['x-dns-prefetch-control', 'off'],
  ['x-download-options', 'noopen'],
  ['x-frame-options', 'SAMEORIGIN'],
  ['x-permitted-cross-domain-policies', 'none'],
  ['x-xss-protection', '0'],
];

/** s200's security-headers link: helmet's defaults on every answer, 401s too. */
function securityHeaders(setHeader) {
  return async function securityHeaders(ctx, next) {
    await next();
    for (const [name, value] of HELMET_DEFAULTS) setHeader(ctx, name, value);
  };
}

/**
 * s200's auth link: verifies an HS256 bearer token with crypto.subtle and
 * puts its claims in ctx.state.claims, or answers 401. The key is imported
 * once, when the link is made. As strict as the libraries it stands beside
 * (jsonwebtoken, jose): segments in base64url only (no '+', '/' or '='), a
 * header that names no critical extension (`crit`: none is understood),
 * and `exp`/`nbf`, when present, numbers (a string `exp` would never
 * expire).
 */
function bearerJwt(json) {
  const encoder = new TextEncoder();
  const key = crypto.subtle.importKey('raw', encoder.encode(SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const unauthorized = (ctx) => json(ctx, { error: 'unauthorized' }, 401);
  return async function bearerJwt(ctx, next) {
    const header = ctx.req.headers.get('authorization');
    if (header === null || !header.startsWith('Bearer ')) return unauthorized(ctx);
    const token = header.slice(7);
    const parts = token.split('.');
    if (parts.length !== 3) return unauthorized(ctx);
    let claims;
    try {
      const head = JSON.parse(fromBase64url(parts[0], 'text'));
      if (head === null || typeof head !== 'object' || head.alg !== 'HS256' || 'crit' in head) {
        return unauthorized(ctx);
      }
      const signed = encoder.encode(`${parts[0]}.${parts[1]}`);
      if (!(await crypto.subtle.verify('HMAC', await key, fromBase64url(parts[2]), signed))) return unauthorized(ctx);
      claims = JSON.parse(fromBase64url(parts[1], 'text'));
    } catch {
      return unauthorized(ctx);
    }
    if (claims === null || typeof claims !== 'object') return unauthorized(ctx);
    const now = Date.now() / 1000;
    const time = (claim) => claim === undefined || typeof claim === 'number';
    if (!time(claims.exp) || !time(claims.nbf) || now >= claims.exp || now < claims.nbf) {
      return unauthorized(ctx);
    }
    ctx.state.claims = claims;
    await next();
  };
}

/** A base64url segment's bytes, or (`as` 'text') its UTF-8 text; throws on
 * any character outside base64url's alphabet. */
function fromBase64url(segment, as) {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) throw new TypeError('not base64url');
  const binary = atob(segment.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return as === 'text' ? new TextDecoder().decode(bytes) : bytes;
}
