// The node:* shims against Node's own modules: same answers for path,
// querystring, util.format/inspect, net.isIP, url.parse, Buffer, crypto
// digests, events, http header rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as nodePath from 'node:path';
import nodeQuerystring from 'node:querystring';
import nodeUtil from 'node:util';
import nodeNet from 'node:net';
import nodeUrl from 'node:url';
import nodeCrypto from 'node:crypto';
import { setup } from './harness.mjs';
import * as hostStandin from './host-standin.mjs';

await setup();
const shim = async (name) => (await import(`../node/${name}.js`)).default;
const [path, querystring, util, net, url, buffer, crypto, EventEmitter, assertShim, http, dc, asyncHooks] =
  await Promise.all(['path', 'querystring', 'util', 'net', 'url', 'buffer', 'crypto', 'events', 'assert', 'http',
    'diagnostics_channel', 'async_hooks'].map(shim));
const { logLines } = await import('./host-standin.mjs');

test('path matches node:path (posix)', () => {
  const cases = ['', '.', '..', '/', '//', 'a', '/a/b/../c/./d', 'a/b/', '../a/../../b', '/a//b///c/',
    'index.html', '.bashrc', 'a.b.c', '/x/y.tar.gz', 'file.', '..a', '/a/b/c/..', 'a/./b/../../..'];
  for (const p of cases) {
    for (const fn of ['normalize', 'dirname', 'basename', 'extname', 'isAbsolute']) {
      assert.deepEqual(path[fn](p), nodePath.posix[fn](p), `${fn}(${JSON.stringify(p)})`);
    }
    assert.deepEqual(path.parse(p), nodePath.posix.parse(p), `parse(${JSON.stringify(p)})`);
    assert.equal(path.basename(p, '.c'), nodePath.posix.basename(p, '.c'));
  }
  assert.equal(path.join('/a', 'b', '../c', ''), nodePath.posix.join('/a', 'b', '../c', ''));
  assert.equal(path.resolve('a', '../b'), '/b'); // cwd is '/' in fwbench
  assert.equal(path.resolve('/x', 'y', '/z', 'w'), nodePath.posix.resolve('/x', 'y', '/z', 'w'));
  for (const [a, b] of [['/a/b/c', '/a/d'], ['/a', '/a/b/c'], ['/a/b', '/'], ['/', '/x'], ['/a/b', '/a/b']]) {
    assert.equal(path.relative(a, b), nodePath.posix.relative(a, b), `relative(${a}, ${b})`);
  }
  assert.equal(path.format({ dir: '/a', name: 'b', ext: 'js' }), nodePath.posix.format({ dir: '/a', name: 'b', ext: 'js' }));
  assert.throws(() => path.join(1), { code: 'ERR_INVALID_ARG_TYPE' });
});

test('querystring matches node:querystring', () => {
  const inputs = ['', 'a=1&b=2', 'a=1&a=2&a=3', 'a&b=&=c', 'x=%20y+z', 'bad=%E0%A4%A', 'k%3D=v%26',
    '&&a=1&&', 'u=%F0%9F%98%80', 'a=1;b=2', '__proto__=x'];
  for (const q of inputs) {
    assert.deepEqual({ ...querystring.parse(q) }, { ...nodeQuerystring.parse(q) }, `parse(${q})`);
  }
  assert.deepEqual({ ...querystring.parse('a:1;b:2', ';', ':') }, { ...nodeQuerystring.parse('a:1;b:2', ';', ':') });
  const obj = { a: 'x y', b: ['1', 2, true], c: '', d: null, e: 'é&=' };
  assert.equal(querystring.stringify(obj), nodeQuerystring.stringify(obj));
  assert.equal(querystring.escape("a b!'()*~"), nodeQuerystring.escape("a b!'()*~"));
  assert.equal(Object.getPrototypeOf(querystring.parse('a=1')), null);
});

test('util.format and util.inspect match node:util for common values', () => {
  const formats = [
    ['%s is %d years', 'Bob', 42], ['%i %f %j', '42.5px', '1.5', { a: [1] }], ['100%% %s', 'done'],
    ['%s', { a: 1 }], ['%s', -0], ['%d', 10n], ['no args'], ['%s'], ['%c styled', 'color: red'],
    [1, 'two', { three: 3 }], ['%o', [1]], ['a', 'b', 'c'], ['%O', { nested: { deep: { er: {} } } }],
  ];
  for (const args of formats) assert.equal(util.format(...args), nodeUtil.format(...args), nodeUtil.inspect(args));
  class Foo { constructor() { this.x = 1; } }
  const values = [1, 'str', 'it\'s', null, undefined, true, 10n, Symbol('s'), [], {}, [1, 'a', [2, [3, [4]]]],
    { a: 1, 'b-c': 2, [Symbol('k')]: 3 }, new Map([['a', 1]]), new Set([1, 2]), new Date(0), /re/g,
    new Foo(), Object.create(null), function named() {}, () => {}, class K {}, new Uint8Array([1, 2]),
    [undefined, null], { f() {} }, new Number(3), new String('ab'), { get g() { return 1; } }];
  for (const v of values) assert.equal(util.inspect(v), nodeUtil.inspect(v), String(nodeUtil.inspect(v)));
  const circular = { name: 'c' };
  circular.self = circular;
  assert.match(util.inspect(circular), /\[Circular \*1\]/);
  assert.equal(util.inspect({ [util.inspect.custom]: () => 'custom!' }), 'custom!');
});

test('util helpers', async () => {
  const sleepy = util.promisify((ms, cb) => setTimeout(() => cb(null, ms * 2), ms));
  assert.equal(await sleepy(1), 2);
  function A() {}
  function B() {}
  util.inherits(A, B);
  assert.ok(new A() instanceof B);
  assert.equal(A.super_, B);
  assert.ok(util.isDeepStrictEqual({ a: [1, { b: new Map([[1, 2]]) }] }, { a: [1, { b: new Map([[1, 2]]) }] }));
  assert.ok(!util.isDeepStrictEqual({ a: 1 }, { a: '1' }));
  assert.ok(util.types.isDate(new Date()) && !util.types.isDate({ __proto__: Date.prototype }));
  assert.ok(util.types.isRegExp(/x/) && !util.types.isRegExp(RegExp.prototype));
  assert.ok(util.types.isUint8Array(new Uint8Array(1)) && !util.types.isUint8Array(new Uint16Array(1)));
  assert.ok(util.types.isAsyncFunction(async () => {}));
  const dep = util.deprecate(() => 7, 'old thing', 'DEP_FW1');
  const before = logLines.length;
  assert.equal(dep(), 7);
  assert.equal(dep(), 7);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(logLines.slice(before).filter((l) => l.includes('DEP_FW1')).length, 1);
  assert.equal(util.debuglog('x').enabled, false);
});

test('net.isIP matches node:net', () => {
  const inputs = ['127.0.0.1', '255.255.255.255', '256.1.1.1', '01.2.3.4', '1.2.3', '::1', '::', 'fe80::1%eth0',
    '2001:db8::ff00:42:8329', '::ffff:192.168.1.1', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', 'gg::1', '', 'localhost'];
  for (const ip of inputs) {
    assert.equal(net.isIP(ip), nodeNet.isIP(ip), ip);
    assert.equal(net.isIPv4(ip), nodeNet.isIPv4(ip), ip);
    assert.equal(net.isIPv6(ip), nodeNet.isIPv6(ip), ip);
  }
});

test('url: legacy parse as node:url, WHATWG helpers', () => {
  const inputs = ['/a/b?x=1&y=2#h', 'http://user:pw@Example.com:8080/p/a/t/h?query=string#hash', '/sp ace?q=a b',
    '//host/path', 'mailto:x@y.z', '/p?a=1&a=2'];
  for (const u of inputs) {
    const mine = url.parse(u);
    const node = nodeUrl.parse(u);
    for (const key of ['protocol', 'slashes', 'auth', 'host', 'port', 'hostname', 'hash', 'search', 'query', 'pathname', 'path', 'href']) {
      assert.deepEqual(mine[key], node[key], `${u} ${key}`);
    }
  }
  assert.deepEqual({ ...url.parse('/p?a=1&a=2&b=', true).query }, { ...nodeUrl.parse('/p?a=1&a=2&b=', true).query });
  assert.equal(url.fileURLToPath('file:///a/b%20c'), '/a/b c');
  assert.equal(url.pathToFileURL('/a/b c').href, 'file:///a/b%20c');
  assert.equal(url.format(new URL('http://u:p@h/x?y#z'), { auth: false, fragment: false }), 'http://h/x?y');
});

test('Buffer: small Buffers are slices of one shared pool, as in Node', () => {
  const { Buffer } = buffer;
  const a = Buffer.from('abc');
  const b = Buffer.from('d\u00e9f');
  const c = Buffer.allocUnsafe(10);
  // Node pools these too.
  assert.equal(globalThis.Buffer.from('abc').buffer, globalThis.Buffer.from('def').buffer);
  assert.equal(a.buffer, b.buffer);
  assert.equal(b.buffer, c.buffer);
  assert.equal(a.buffer.byteLength, Buffer.poolSize);
  assert.equal(b.byteOffset % 8, 0, 'slices start 8-byte aligned');
  assert.equal(b.length, 4);
  a.fill(0x7a);
  c.fill(0x7a);
  assert.equal(b.toString(), 'd\u00e9f', 'writing one slice leaves the others alone');
  assert.equal(Buffer.concat([a, b]).toString(), 'zzzd\u00e9f');
  // Half a pool or more gets its own memory, as in Node.
  const big = Buffer.from('x'.repeat(Buffer.poolSize / 2));
  assert.notEqual(big.buffer, a.buffer);
  assert.equal(big.byteOffset, 0);
  // A full pool is replaced; earlier slices keep their bytes.
  const many = Array.from({ length: 1000 }, (_, n) => Buffer.from(`#${n}`));
  assert.deepEqual(many.map(String), Array.from({ length: 1000 }, (_, n) => `#${n}`));
  assert.equal(Buffer.from('').length, 0);
  assert.throws(() => Buffer.allocUnsafe(-1), RangeError);
  assert.throws(() => Buffer.allocUnsafe('1'), TypeError);
});

test('Buffer: UTF-8 through the platform codec, base64url, Node semantics', () => {
  const { Buffer } = buffer;
  const s = 'héllo wörld 😀 \uFEFFbom';
  assert.deepEqual([...Buffer.from(s)], [...globalThis.Buffer.from(s)]);
  assert.equal(Buffer.from(s).toString(), s);
  assert.equal(Buffer.byteLength(s), globalThis.Buffer.byteLength(s));
  assert.equal(Buffer.byteLength('\uD800x'), globalThis.Buffer.byteLength('\uD800x'));
  assert.equal(Buffer.from(s).toString('utf8', 1, 5), globalThis.Buffer.from(s).toString('utf8', 1, 5));
  assert.equal(Buffer.from(s).toString('base64url'), globalThis.Buffer.from(s).toString('base64url'));
  assert.equal(Buffer.from('aGk_-w', 'base64url').toString('hex'), globalThis.Buffer.from('aGk_-w', 'base64url').toString('hex'));
  assert.equal(Buffer.from([0xff, 0xfe]).toString('latin1'), 'ÿþ');
  assert.ok(Buffer.isBuffer(Buffer.concat([Buffer.from('a'), Buffer.from('b')])));
  assert.ok(Buffer.isEncoding('base64url'));
});

test('crypto: digests and HMAC through the host, timingSafeEqual', () => {
  for (const alg of ['md5', 'sha1', 'sha256', 'sha512']) {
    const data = 'The quick brown fox';
    assert.equal(crypto.createHash(alg).update(data).update(Buffer.from('!')).digest('hex'),
      nodeCrypto.createHash(alg).update(data).update('!').digest('hex'));
    for (const key of ['k', 'x'.repeat(200)]) {
      assert.equal(crypto.createHmac(alg, key).update(data).digest('base64'),
        nodeCrypto.createHmac(alg, key).update(data).digest('base64'));
    }
  }
  assert.ok(crypto.createHash('sha1').update('x').digest() instanceof Uint8Array);
  assert.equal(crypto.hash('sha256', 'abc'), nodeCrypto.createHash('sha256').update('abc').digest('hex'));
  assert.throws(() => crypto.createHash('sha3-256'), /not supported/);
  assert.equal(crypto.timingSafeEqual(Buffer.from('ab'), Buffer.from('ab')), true);
  assert.throws(() => crypto.timingSafeEqual(Buffer.from('a'), Buffer.from('ab')), { code: 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH' });
  assert.equal(crypto.randomBytes(70000).length, 70000);
  assert.match(crypto.randomUUID(), /^[0-9a-f-]{36}$/);
  const n = crypto.randomInt(10);
  assert.ok(n >= 0 && n < 10);
  assert.throws(() => crypto.createCipheriv('aes-128-gcm'), /node:crypto is not available in fwbench/);
});

test('events and diagnostics_channel', () => {
  const ee = new EventEmitter();
  const seen = [];
  ee.once('x', (v) => seen.push(v));
  ee.emit('x', 1);
  ee.emit('x', 2);
  assert.deepEqual(seen, [1]);
  assert.equal(typeof EventEmitter.once, 'function');
  const ch = dc.channel('fwbench.test');
  assert.equal(ch.hasSubscribers, false);
  const got = [];
  const sub = (msg, name) => got.push([msg, name]);
  dc.subscribe('fwbench.test', sub);
  ch.publish({ a: 1 });
  assert.deepEqual(got, [[{ a: 1 }, 'fwbench.test']]);
  assert.equal(dc.unsubscribe('fwbench.test', sub), true);
  const tc = dc.tracingChannel('fwbench.trace');
  const events = [];
  tc.subscribe({ start: () => events.push('start'), end: () => events.push('end'), asyncEnd: () => events.push('asyncEnd') });
  return tc.tracePromise(async () => 5, {}).then((v) => {
    assert.equal(v, 5);
    assert.deepEqual(events, ['start', 'end', 'asyncEnd']);
  });
});

test('AsyncLocalStorage follows awaits through the host async context', async () => {
  const als = new asyncHooks.AsyncLocalStorage();
  const result = await als.run({ id: 7 }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    await null;
    return als.getStore()?.id;
  });
  assert.equal(result, 7);
  assert.equal(als.getStore(), undefined);
  const resource = als.run('inside', () => new asyncHooks.AsyncResource('t'));
  assert.equal(resource.runInAsyncScope(() => als.getStore()), 'inside');
  assert.throws(() => asyncHooks.executionAsyncId(), /not available in fwbench/);
});

test('assert is callable with Node error codes', () => {
  assert.throws(() => assertShim(false), { code: 'ERR_ASSERTION', name: 'AssertionError' });
  assert.throws(() => assertShim.strictEqual(1, '1'), { code: 'ERR_ASSERTION' });
  assertShim.deepEqual({ a: 1 }, { a: '1' });
  assert.throws(() => assertShim.strict.deepEqual({ a: 1 }, { a: '1' }), { code: 'ERR_ASSERTION' });
  assertShim.throws(() => { throw new TypeError('x'); }, TypeError);
  assert.throws(() => assertShim.throws(() => {}), /Missing expected exception/);
});

test('http.IncomingMessage headers follow Node joining rules', async () => {
  const req = new http.IncomingMessage(null);
  req.rawHeaders = ['Host', 'a', 'host', 'b', 'Set-Cookie', 'x=1', 'set-cookie', 'y=2', 'Cookie', 'p=1', 'cookie', 'q=2',
    'Accept', 'text/html', 'accept', 'application/json', 'Content-Type', 'text/plain', 'content-type', 'x/y'];
  assert.deepEqual({ ...req.headers }, {
    host: 'a', 'set-cookie': ['x=1', 'y=2'], cookie: 'p=1; q=2', accept: 'text/html, application/json', 'content-type': 'text/plain',
  });
  assert.deepEqual(req.headersDistinct.host, ['a', 'b']);
});

test('http.ServerResponse keeps OutgoingMessage semantics', async () => {
  const { dispatchNode } = http;
  const { hostRequest } = await import('./harness.mjs');
  const result = await dispatchNode((req, res) => {
    assert.equal(res.statusCode, 200);
    res.setHeader('X-A', ['1', '2']);
    res.setHeader('x-b', 3);
    assert.equal(res.getHeader('x-a')[1], '2');
    assert.deepEqual(res.getHeaderNames(), ['x-a', 'x-b']);
    assert.equal(res.hasHeader('X-B'), true);
    res.removeHeader('x-b');
    assert.throws(() => res.setHeader('bad header', 'x'), { code: 'ERR_INVALID_HTTP_TOKEN' });
    assert.throws(() => res.setHeader('x-c', 'a\nb'), { code: 'ERR_INVALID_CHAR' });
    assert.equal(res._header, null);
    res.writeHead(201, { 'Content-Type': 'text/plain' });
    assert.equal(res.headersSent, true);
    // Node's raw header block, as a logger or compression middleware reads it.
    assert.equal(res._header, 'HTTP/1.1 201 Created\r\nX-A: 1\r\nX-A: 2\r\nContent-Type: text/plain\r\n\r\n');
    assert.throws(() => res.setHeader('x-late', '1'), { code: 'ERR_HTTP_HEADERS_SENT' });
    res.write('hello ');
    res.end(Buffer.from('world'));
    assert.equal(res.writableEnded, true);
    assert.equal(res.finished, true);
  }, hostRequest('/'));
  assert.equal(result.status, 201);
  assert.deepEqual(result.headers, [['X-A', '1'], ['X-A', '2'], ['Content-Type', 'text/plain']]);
  assert.equal(new TextDecoder().decode(result.body), 'hello world');

  const events = [];
  const head = await dispatchNode((req, res) => {
    res.on('finish', () => events.push('finish'));
    res.on('close', () => events.push('close'));
    res.end('ignored for HEAD');
  }, hostRequest('/', { method: 'HEAD' }));
  assert.equal(head.body, '');
  assert.deepEqual(head.headers, []);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(events, ['finish', 'close']);

  const echoed = await dispatchNode((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => res.end(`${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`));
  }, hostRequest('/post?x=1', { method: 'POST', body: new TextEncoder().encode('payload') }));
  assert.equal(echoed.body, 'POST /post?x=1 payload');
  assert.deepEqual(echoed.headers, [['Content-Length', '22']]);

  await assert.rejects(dispatchNode(() => { throw new Error('boom'); }, hostRequest('/')), /boom/);
  await assert.rejects(dispatchNode(async () => { throw new Error('async boom'); }, hostRequest('/')), /async boom/);
  await assert.rejects(dispatchNode((req, res) => res.destroy(), hostRequest('/')), /destroyed before res.end/);
});

test('http.Server.listen registers with the host instead of opening a socket', async () => {
  const server = http.createServer((req, res) => res.end('x'));
  assert.equal(server.address(), null);
  await new Promise((resolve) => server.listen(3000, '0.0.0.0', resolve));
  assert.deepEqual(hostStandin.registeredServers, [server]);
  assert.deepEqual(server.address(), { address: '127.0.0.1', family: 'IPv4', port: 8080 });
  assert.throws(() => server.listen(), { code: 'ERR_SERVER_ALREADY_LISTEN' });
  await new Promise((resolve) => server.close(resolve));
  assert.equal(server.listening, false);
  assert.deepEqual(hostStandin.registeredServers, []);
});

test('loading node:http hands its entry points to the host', () => {
  assert.equal(hostStandin.nodeBridge?.dispatchNode, http.dispatchNode);
  assert.equal(hostStandin.nodeBridge?.serverHandler, http.serverHandler);
});

test('sandboxed modules import, and throw clearly when used', async () => {
  const fs = await shim('fs');
  const os = await shim('os');
  const zlib = await shim('zlib');
  const tty = await shim('tty');
  const workerThreads = await shim('worker_threads');
  assert.equal(typeof fs.Stats, 'function');
  assert.equal(fs.constants.R_OK, 4);
  // Reads go through the host (its sandbox is tested in tests/host/ and
  // tests/projects/); writes and the rest throw here.
  assert.throws(() => fs.writeFileSync('/tmp/x', 'x'), /node:fs is not available in fwbench \(sandboxed host\): fs\.writeFileSync\(\)/);
  assert.throws(() => fs.someFutureApi(), /fs\.someFutureApi\(\)/);
  await assert.rejects((await shim('fs/promises')).writeFile('/x', 'x'), /not available in fwbench/);
  assert.equal(os.hostname(), 'localhost');
  assert.throws(() => os.cpus(), /node:os is not available/);
  assert.equal(os.EOL, '\n');
  assert.equal(zlib.gunzipSync(zlib.gzipSync('zlib works')).toString(), 'zlib works');
  assert.equal(tty.isatty(1), false);
  assert.equal(workerThreads.isMainThread, true);
  assert.throws(() => new workerThreads.Worker('x.js'), /new worker_threads\.Worker\(\)/);
});
