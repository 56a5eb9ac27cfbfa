/*!
 * vendor/build.mjs — bundles the pinned third-party frameworks into vendor/dist/.
 *
 * Run `node vendor/build.mjs` (from anywhere; `--no-minify` keeps the output
 * readable for debugging). It writes, with esbuild's JS API from
 * vendor/node_modules:
 *
 *   dist/hono.js, dist/hono/<subpath>.js, dist/hono-node-server.js and the
 *     shared dist/chunks/hono-*.js (one build with code splitting, so every
 *     hono subpath and @hono/node-server share one Hono class),
 *   dist/express.js, dist/fastify.js, dist/elysia.js (one ES module each),
 *   dist/npm/<package>.js: the production middleware packages the `prod`
 *     scenario mounts (MIDDLEWARE below), one ES module each per framework
 *     group; elysia's plugins import `elysia` itself, left external so they
 *     extend the one Elysia class dist/elysia.js holds,
 *   dist/polyfills/<name>.js: the npm polyfills (events, buffer,
 *     readable-stream, string_decoder, url) that js/runtime/node/*.js imports
 *     as fwbench:///vendor/polyfills/<name>.js,
 *   dist/manifest.json: {frameworks: {name: version}, packages: {middleware
 *     package: version}, specifiers: {bare specifier: file under dist/}}; the
 *     embedded host maps each listed bare specifier to
 *     fwbench:///vendor/<file>.
 *
 * How Node built-ins are handled (the contract with js/runtime/node/): a
 * bundle imports a built-in only as a static ESM import of `node:X`, which
 * the host maps to fwbench:///runtime/node/X.js. ESM sources already import
 * that way and stay external. A CommonJS `require('X')` cannot stay external:
 * esbuild would turn it into a runtime `__require('X')` that throws "Dynamic
 * require is not supported". So each required built-in resolves to a virtual
 * CommonJS module `module.exports = __fwbench_node_X`, and an esbuild
 * `inject` file declares `import __fwbench_node_X from 'node:X'`; esbuild
 * binds every such free identifier to that import, so the bundle's prologue
 * holds the static imports and `require('X')` returns the shim's default
 * export, which is what `require('X')` returns in Node. Finding which
 * built-ins a bundle requires takes a first (discovery) pass, so each bundle
 * imports only the shims it uses.
 */

import * as esbuild from 'esbuild';
import { builtinModules, createRequire } from 'node:module';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VENDOR = dirname(fileURLToPath(import.meta.url));
const DIST = join(VENDOR, 'dist');
const require = createRequire(join(VENDOR, 'package.json'));
const minify = !process.argv.includes('--no-minify');

/** Frameworks whose versions go into the manifest (and `fwbench --version`). */
const FRAMEWORKS = ['hono', '@hono/node-server', 'express', 'fastify', 'elysia'];

/**
 * hono subpaths a user commonly imports. Runtime-specific adapters
 * (hono/bun, hono/deno, hono/aws-lambda, ...), JSX, SSG, serve-static and
 * dev tooling are left out: they need a platform fwbench is not.
 */
const HONO_SUBPATHS = [
  'hono-base', 'tiny', 'quick', 'http-exception', 'factory', 'validator',
  'adapter', 'combine', 'route', 'client', 'html', 'streaming', 'ws', 'conninfo',
  'accepts', 'basic-auth', 'bearer-auth', 'body-limit', 'cache', 'compress',
  'context-storage', 'cookie', 'cors', 'csrf', 'etag', 'ip-restriction', 'jwt',
  'language', 'logger', 'method-override', 'powered-by', 'pretty-json',
  'request-id', 'secure-headers', 'timeout', 'timing', 'trailing-slash',
  'router/reg-exp-router', 'router/smart-router', 'router/trie-router',
  'router/pattern-router', 'router/linear-router',
];

/**
 * The middleware packages scenarios/prod.js mounts (CORS, security headers,
 * request id, access log, JWT auth per framework; hono's are hono
 * subpaths, above), bundled unmodified, grouped by the framework they plug
 * into. `external` stays a bare import the host resolves: elysia's plugins
 * must extend the same Elysia class as the app. Which package fills which
 * concern, and why: scenarios/README.md, "The prod chain".
 */
const MIDDLEWARE = {
  express: { packages: ['cors', 'helmet', 'express-request-id', 'morgan', 'express-jwt'] },
  fastify: { packages: ['@fastify/cors', '@fastify/helmet', '@fastify/jwt'] },
  elysia: {
    packages: ['@elysiajs/cors', 'elysia-helmet', '@bogeychan/elysia-logger', '@elysiajs/jwt'],
    external: ['elysia'],
  },
};

/**
 * Specifiers that name an npm package explicitly (trailing slash) but must
 * still resolve to the shim, because the whole runtime needs one identity
 * for Buffer, EventEmitter, process and StringDecoder.
 */
const SLASHED_TO_SHIM = new Set(['buffer/', 'events/', 'process/', 'string_decoder/', 'util/']);

/** Packages replaced by a platform global instead of being bundled. */
const GLOBAL_ALIASES = {
  'abort-controller':
    'module.exports = { AbortController: globalThis.AbortController, AbortSignal: globalThis.AbortSignal };',
};

const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith('_')));

/** Returns the built-in name `path` refers to (without `node:`), or null. */
function builtinName(path) {
  if (path.startsWith('node:')) return path.slice(5);
  if (SLASHED_TO_SHIM.has(path)) return path.slice(0, -1);
  return BUILTINS.has(path) ? path : null;
}

const identFor = (name) => `__fwbench_node_${name.replace(/[^A-Za-z0-9]/g, '_')}`;

/**
 * The esbuild plugin that keeps built-ins external as `node:X` imports and
 * turns `require('X')` into a reference to an injected import (see header).
 * `required` collects the built-ins reached through require(); `redirect`
 * maps a package name to a built-in used in its place.
 */
function nodeBuiltins(required, redirect = {}) {
  return {
    name: 'fwbench-node-builtins',
    setup(build) {
      build.onResolve({ filter: /^[a-z@_]/ }, (args) => {
        if (args.path in GLOBAL_ALIASES) return { path: args.path, namespace: 'fwbench-global' };
        const name = redirect[args.path] ?? builtinName(args.path);
        if (name === null) return undefined;
        if (args.kind === 'require-call' || args.kind === 'require-resolve') {
          required.add(name);
          return { path: name, namespace: 'fwbench-node-require' };
        }
        return { path: `node:${name}`, external: true };
      });
      build.onLoad({ filter: /.*/, namespace: 'fwbench-node-require' }, (args) => ({
        contents: `module.exports = ${identFor(args.path)};`,
        loader: 'js',
      }));
      build.onLoad({ filter: /.*/, namespace: 'fwbench-global' }, (args) => ({
        contents: GLOBAL_ALIASES[args.path],
        loader: 'js',
      }));
    },
  };
}

const common = {
  absWorkingDir: VENDOR,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'es2023',
  minifyWhitespace: minify,
  minifySyntax: minify,
  legalComments: 'eof',
  logLevel: 'warning',
  metafile: true,
};

/**
 * Builds one group of entry points in two passes: discovery (which built-ins
 * are required), then the real build with the inject file for them.
 */
async function buildGroup(label, options, scratch, redirect) {
  const required = new Set();
  const plugins = [nodeBuiltins(required, redirect)];
  await esbuild.build({ ...common, ...options, write: false, plugins });
  const inject = [];
  if (required.size > 0) {
    // A fixed name per group: esbuild derives identifiers from it, and the
    // bundles should be byte-identical from one build to the next.
    const file = join(scratch, `node-builtins-${label.replace(/[^a-z0-9]/gi, '_')}.mjs`);
    const lines = [...required].sort().map(
      (name) => `import ${identFor(name)} from 'node:${name}';\nexport { ${identFor(name)} };`,
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    inject.push(file);
  }
  const result = await esbuild.build({ ...common, ...options, inject, plugins });
  return { result, required: [...required].sort() };
}

/** The readable-stream entry: Node's `require('stream')` shape plus stream/promises. */
const READABLE_STREAM_ENTRY = `
import Stream from 'readable-stream/lib/stream.js';
import promises from 'readable-stream/lib/stream/promises.js';
export { Stream as default, promises };
`;

async function main() {
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  // A fixed scratch folder (ignored by git): esbuild records the inject
  // file's relative path in the bundle, so it must not vary between builds.
  const scratch = join(VENDOR, '.build');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const readableEntry = join(scratch, 'readable-stream.mjs');
  writeFileSync(readableEntry, READABLE_STREAM_ENTRY);
  // The scratch entry imports readable-stream from vendor/node_modules.
  const nodePaths = [join(VENDOR, 'node_modules')];

  const groups = [
    // One group per polyfill: esbuild's inject is per build, and a polyfill
    // must import only the shims it needs (buffer must not import itself).
    ...Object.entries({
      events: require.resolve('events/events.js'),
      buffer: require.resolve('buffer/index.js'),
      string_decoder: require.resolve('string_decoder/lib/string_decoder.js'),
      url: require.resolve('url/url.js'),
      'readable-stream': readableEntry,
    }).map(([name, entry]) => ({
      label: `polyfills/${name}`,
      options: { entryPoints: { [`polyfills/${name}`]: entry }, nodePaths, outdir: DIST },
      // Node's legacy url.parse(s, true) parses the query with querystring;
      // the npm url package uses qs, which differs (nesting, arrays).
      redirect: name === 'url' ? { qs: 'querystring' } : undefined,
    })),
    {
      label: 'hono',
      options: {
        entryPoints: [
          { in: 'hono', out: 'hono' },
          ...HONO_SUBPATHS.map((sub) => ({ in: `hono/${sub}`, out: `hono/${sub}` })),
          { in: '@hono/node-server', out: 'hono-node-server' },
        ],
        splitting: true,
        chunkNames: 'chunks/hono-[hash]',
        outdir: DIST,
      },
    },
    { label: 'express', options: { entryPoints: { express: 'express' }, outdir: DIST } },
    { label: 'fastify', options: { entryPoints: { fastify: 'fastify' }, outdir: DIST } },
    { label: 'elysia', options: { entryPoints: { elysia: 'elysia' }, outdir: DIST } },
    // One group per framework, split so packages the group shares (helmet
    // under @fastify/helmet, pino under the elysia logger) are one chunk.
    ...Object.entries(MIDDLEWARE).map(([framework, { packages, external = [] }]) => ({
      label: `${framework} middleware`,
      options: {
        entryPoints: packages.map((name) => ({ in: name, out: `npm/${name}` })),
        splitting: true,
        chunkNames: `chunks/${framework}-mw-[hash]`,
        external,
        outdir: DIST,
      },
    })),
  ];

  const specifiers = {
    hono: 'hono.js',
    ...Object.fromEntries(HONO_SUBPATHS.map((sub) => [`hono/${sub}`, `hono/${sub}.js`])),
    '@hono/node-server': 'hono-node-server.js',
    express: 'express.js',
    fastify: 'fastify.js',
    elysia: 'elysia.js',
    ...Object.fromEntries(
      Object.values(MIDDLEWARE).flatMap(({ packages }) => packages.map((name) => [name, `npm/${name}.js`])),
    ),
  };

  try {
    for (const { label, options, redirect } of groups) {
      const t0 = performance.now();
      const { result, required } = await buildGroup(label, options, scratch, redirect);
      const outputs = Object.entries(result.metafile.outputs);
      const bytes = outputs.reduce((sum, [, out]) => sum + out.bytes, 0);
      console.log(
        `${label.padEnd(26)} ${String(outputs.length).padStart(3)} file(s) ${(bytes / 1024).toFixed(0).padStart(6)} KiB ` +
          `${(performance.now() - t0).toFixed(0).padStart(5)} ms  requires: ${required.join(' ') || '-'}`,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const frameworks = Object.fromEntries(
    FRAMEWORKS.map((name) => [
      name,
      JSON.parse(readFileSync(join(VENDOR, 'node_modules', name, 'package.json'), 'utf8')).version,
    ]),
  );
  const packages = Object.fromEntries(
    Object.values(MIDDLEWARE)
      .flatMap(({ packages: names }) => names)
      .sort()
      .map((name) => [name, JSON.parse(readFileSync(join(VENDOR, 'node_modules', name, 'package.json'), 'utf8')).version]),
  );
  const manifest = { frameworks, packages, specifiers };
  writeFileSync(join(DIST, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`wrote ${join(DIST, 'manifest.json')}`);
}

await main();
