/**
 * In-process fetch-loop benchmark: s200, s200-light and hono on the
 * hello and mw apps of fwbench's scenarios (docs/unwind-tax.md).
 * A benchmark, not a test; run it on Node >= 20:
 *
 *     node js/s200/bench/fetch-loop.mjs [--rounds 15] [--ms 150] [--read-body]
 *
 * Method: one process; every variant is checked once (status, body, the
 * five x-mw-* headers), warmed up, then timed in rounds. Each round runs
 * every variant for about --ms milliseconds, in an order that reverses
 * every round (A B C, C B A, ...; hono's benchmarks/fetch/compare.sh does
 * the same across processes), and the report gives the median of the
 * rounds. One iteration is `await app.fetch(new Request(...))` followed by
 * what an adapter does with the result: read the status, walk the headers
 * with forEach and pick up the body. For s200 and hono that body is the
 * platform Response's stream (not drained unless --read-body); for
 * s200-light it is the light response's own body (a string), read through
 * the adapter protocol (`fetchLight`, no platform Response built). Every
 * request, hello included, carries the x-test header the mw links read,
 * so mw vs hello measures the chain and nothing else.
 *
 * Two framework-free rows bound what any chain can reach: "raw hello" is a
 * bare fetch function building the same JSON Response, and "raw hello +
 * link work" additionally does, inline and with no chain, exactly the
 * platform calls the five mw links make (5 request-header reads, 5
 * response-header writes, 2 performance.now). Their ratio is the best
 * mw/hello any in-place framework can show in this loop.
 */

import * as s200 from '../index.js';
import * as light from '../light.js';
import { Hono } from '../../../vendor/node_modules/hono/dist/index.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(args[i + 1]);
};
const ROUNDS = opt('rounds', 15);
const ROUND_MS = opt('ms', 150);
const READ_BODY = args.includes('--read-body');

// --- the apps, as fwbench's hello and mw scenarios write them -------------

function s200Apps(m) {
  const app = m.createApp();
  const mwLink = (i) => (ctx, next) => {
    ctx.req.headers.get('x-test');
    return next().then(() => {
      ctx.res.headers.set(`x-mw-${i}`, String(i));
    });
  };
  m.use(
    app,
    '/mw',
    mwLink(1),
    mwLink(2),
    (ctx, next) => {
      ctx.req.headers.get('x-test');
      const t0 = performance.now();
      return next().then(() => {
        ctx.state.elapsed = performance.now() - t0;
        ctx.res.headers.set('x-mw-3', '3');
      });
    },
    mwLink(4),
    mwLink(5)
  );
  m.get(app, '/mw', (ctx) => m.json(ctx, { message: 'hello' }));
  m.get(app, '/', (ctx) => m.json(ctx, { message: 'hello' }));
  return app;
}

function honoApp() {
  const app = new Hono();
  const mwLink = (i) =>
    app.use('/mw/*', async (c, next) => {
      c.req.header('x-test');
      await next();
      c.header(`x-mw-${i}`, String(i));
    });
  mwLink(1);
  mwLink(2);
  app.use('/mw/*', async (c, next) => {
    c.req.header('x-test');
    const t0 = performance.now();
    await next();
    c.header('x-mw-3', '3');
    c.set('elapsed', performance.now() - t0);
  });
  mwLink(4);
  mwLink(5);
  app.get('/mw', (c) => c.json({ message: 'hello' }));
  app.get('/', (c) => c.json({ message: 'hello' }));
  return app;
}

// --- what an adapter does with a result -------------------------------------

let sink = 0;
const countHeader = () => {
  sink++;
};

/** Platform Response: status, headers, the body stream (drained only with --read-body). */
async function consumePlatform(res) {
  sink += res.status;
  res.headers.forEach(countHeader);
  if (READ_BODY) sink += (await res.text()).length;
  else if (res.body !== null) sink++;
}

/** Light response, through the adapter protocol only: status, headers.forEach, body. */
function consumeLight(res) {
  if (res[Symbol.for('fwbench.light-response')] !== true) throw new Error('expected a light response');
  sink += res.status;
  res.headers.forEach(countHeader);
  const body = res.body;
  if (typeof body === 'string') sink += body.length;
  else if (body != null) sink++;
}

// Framework-free bound (see the header comment).
const JSON_INIT = { headers: { 'content-type': 'application/json' } };
const rawHello = (req) => {
  req.url;
  return new Response(JSON.stringify({ message: 'hello' }), JSON_INIT);
};
const rawLinkWork = (req) => {
  req.url;
  for (let i = 0; i < 5; i++) req.headers.get('x-test');
  const t0 = performance.now();
  const res = new Response(JSON.stringify({ message: 'hello' }), JSON_INIT);
  for (let i = 5; i >= 1; i--) res.headers.set(`x-mw-${i}`, String(i));
  sink += performance.now() - t0;
  return res;
};

const s200App = s200Apps(s200);
const lightApp = s200Apps(light);
const hono = honoApp();

const request = (path) => new Request(`http://localhost${path}`, { headers: { 'x-test': '1' } });

/** name -> one iteration */
const variants = {
  's200 hello': async () => consumePlatform(await s200App.fetch(request('/'))),
  's200 mw': async () => consumePlatform(await s200App.fetch(request('/mw'))),
  's200-light hello': async () => consumeLight(await lightApp.fetchLight(request('/'))),
  's200-light mw': async () => consumeLight(await lightApp.fetchLight(request('/mw'))),
  'hono hello': async () => consumePlatform(await hono.fetch(request('/'))),
  'hono mw': async () => consumePlatform(await hono.fetch(request('/mw'))),
  'raw hello': async () => consumePlatform(await rawHello(request('/'))),
  'raw hello + link work': async () => consumePlatform(await rawLinkWork(request('/mw'))),
};

// --- validation ---------------------------------------------------------------

async function validate(name, res, mw = name.endsWith('mw')) {
  const { status } = res;
  const body = res[Symbol.for('fwbench.light-response')] === true ? res.body : await res.text();
  if (status !== 200 || body !== '{"message":"hello"}') throw new Error(`${name}: got ${status} ${body}`);
  if (mw) {
    for (let i = 1; i <= 5; i++) {
      if (res.headers.get(`x-mw-${i}`) !== String(i)) throw new Error(`${name}: x-mw-${i} missing`);
    }
  }
}

await validate('s200 hello', await s200App.fetch(request('/')));
await validate('s200 mw', await s200App.fetch(request('/mw')));
await validate('s200-light hello', await lightApp.fetchLight(request('/')));
await validate('s200-light mw', await lightApp.fetchLight(request('/mw')));
await validate('hono hello', await hono.fetch(request('/')));
await validate('hono mw', await hono.fetch(request('/mw')));
await validate('raw hello', rawHello(request('/')));
await validate('raw hello + link work', rawLinkWork(request('/mw')), true);

// --- timing -------------------------------------------------------------------

/**
 * Runs `fn` for about `ms` milliseconds; returns requests per second of wall
 * time and of this process's CPU time (user + system). The CPU figure is
 * less disturbed when other processes share the cores.
 */
async function timeFor(fn, ms) {
  let n = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 200; i++) await fn();
    n += 200;
    t = performance.now();
  }
  const c = process.cpuUsage(c0);
  return { wall: (n * 1000) / (t - t0), cpu: (n * 1e6) / (c.user + c.system) };
}

const names = Object.keys(variants);
for (const name of names) await timeFor(variants[name], ROUND_MS * 2); // warm-up

/** name -> req/s per round */
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const name of order) results[name].push(await timeFor(variants[name], ROUND_MS));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const med = Object.fromEntries(names.map((n) => [n, median(results[n].map((r) => r.wall))]));
const medCpu = Object.fromEntries(names.map((n) => [n, median(results[n].map((r) => r.cpu))]));

console.log(`s200 fetch-loop benchmark: node ${process.version}, ${ROUNDS} alternating rounds x ~${ROUND_MS} ms per variant, medians`);
console.log(`one iteration = await app.fetch(new Request(url, { headers: { 'x-test': '1' } })) + adapter-style read of status, headers, body`);
console.log(`s200 / hono: platform Response, body stream ${READ_BODY ? 'drained with text()' : 'picked up, not drained (--read-body drains it)'}`);
console.log(`s200-light: app.fetchLight(), light response read via the adapter protocol (status, headers.forEach, body); no platform Response in the loop`);
console.log(`wall = requests per second of elapsed time; cpu = requests per second of this process's CPU time`);
console.log('');
const w = Math.max(...names.map((n) => n.length));
console.log(`${''.padEnd(w)}  ${'wall req/s'.padStart(10)}  ${'us/req'.padStart(7)}  ${'rounds min-max'.padStart(15)}  ${'cpu req/s'.padStart(10)}`);
for (const n of names) {
  const walls = results[n].map((r) => r.wall);
  const range = `${Math.round(Math.min(...walls))}-${Math.round(Math.max(...walls))}`;
  console.log(
    `${n.padEnd(w)}  ${String(Math.round(med[n])).padStart(10)}  ${(1e6 / med[n]).toFixed(2).padStart(7)}  ${range.padStart(15)}  ${String(Math.round(medCpu[n])).padStart(10)}`
  );
}
console.log('');
console.log(`${'ratio'.padEnd(36)} ${'wall'.padStart(6)}  ${'cpu'.padStart(6)}  target`);
const ratio = (label, a, b, target) => {
  const r = med[a] / med[b];
  const rc = medCpu[a] / medCpu[b];
  const verdict = target > 0 ? `>= ${target.toFixed(2)} ${r >= target ? 'ok' : 'MISSED'} (wall)` : '';
  console.log(`${label.padEnd(36)} ${r.toFixed(3).padStart(6)}  ${rc.toFixed(3).padStart(6)}  ${verdict}`);
};
ratio('s200 mw / hono mw', 's200 mw', 'hono mw', 1.0);
ratio('s200-light mw / s200 mw', 's200-light mw', 's200 mw', 1.3);
ratio('s200 mw / s200 hello (unwind tax)', 's200 mw', 's200 hello', 0.9);
ratio('s200-light mw / s200-light hello', 's200-light mw', 's200-light hello', 0);
ratio('hono mw / hono hello', 'hono mw', 'hono hello', 0);
ratio('bound: raw link work / raw hello', 'raw hello + link work', 'raw hello', 0);
if (sink === 0) console.log('(sink)');
