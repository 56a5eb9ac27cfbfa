// LightHeaders, LightResponse and toResponse against the platform's behaviour.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LIGHT_RESPONSE, LightHeaders, LightResponse, isLightResponse, toResponse } from './light-response.js';

describe('LightHeaders', () => {
  test('get/set/has/delete are case-insensitive; names come out lower case', () => {
    const h = new LightHeaders();
    h.set('Content-Type', 'text/plain');
    assert.equal(h.get('content-type'), 'text/plain');
    assert.equal(h.get('CONTENT-TYPE'), 'text/plain');
    assert.equal(h.has('Content-type'), true);
    assert.deepEqual([...h.keys()], ['content-type']);
    h.delete('CONTENT-TYPE');
    assert.equal(h.has('content-type'), false);
    assert.equal(h.get('content-type'), null);
  });

  test('append joins repeated values with ", " like Headers', () => {
    const h = new LightHeaders();
    const p = new Headers();
    for (const x of [h, p]) {
      x.append('Vary', 'Origin');
      x.append('vary', 'Accept');
    }
    assert.equal(h.get('vary'), 'Origin, Accept');
    assert.equal(h.get('vary'), p.get('vary'));
  });

  test('set replaces; values are trimmed and stringified like Headers', () => {
    const h = new LightHeaders();
    h.set('x-a', '1');
    h.set('X-A', '  2\t');
    h.set('x-n', 42);
    assert.equal(h.get('x-a'), '2');
    assert.equal(h.get('x-n'), '42');
    assert.equal(new Headers({ 'x-a': '  2\t' }).get('x-a'), '2');
  });

  test('set-cookie values stay separate: getSetCookie, forEach, entries', () => {
    const h = new LightHeaders();
    h.append('Set-Cookie', 'a=1; Path=/');
    h.append('set-cookie', 'b=2, with comma');
    h.set('x-other', 'y');
    assert.deepEqual(h.getSetCookie(), ['a=1; Path=/', 'b=2, with comma']);
    const seen = [];
    h.forEach((value, name) => seen.push([name, value]));
    assert.deepEqual(seen, [
      ['x-other', 'y'],
      ['set-cookie', 'a=1; Path=/'],
      ['set-cookie', 'b=2, with comma'],
    ]);
    assert.deepEqual([...h.entries()], seen);
    assert.deepEqual([...h], seen);
    assert.equal(h.get('set-cookie'), 'a=1; Path=/, b=2, with comma');
    h.set('set-cookie', 'c=3');
    assert.deepEqual(h.getSetCookie(), ['c=3']);
    h.delete('Set-Cookie');
    assert.deepEqual(h.getSetCookie(), []);
    assert.equal(h.has('set-cookie'), false);
  });

  test('keys/values/entries/iterator agree with each other', () => {
    const h = new LightHeaders({ a: '1', b: '2' });
    assert.deepEqual([...h.keys()], ['a', 'b']);
    assert.deepEqual([...h.values()], ['1', '2']);
    assert.deepEqual([...h.entries()], [['a', '1'], ['b', '2']]);
    assert.deepEqual([...h], [...h.entries()]);
  });

  test('forEach passes (value, name, headers) and honours thisArg', () => {
    const h = new LightHeaders({ a: '1' });
    const ctx = { calls: 0 };
    h.forEach(function (value, name, headers) {
      this.calls++;
      assert.equal(value, '1');
      assert.equal(name, 'a');
      assert.equal(headers, h);
    }, ctx);
    assert.equal(ctx.calls, 1);
  });

  test('init from an object, pairs, a Headers and a LightHeaders (cookies kept apart)', () => {
    const platform = new Headers();
    platform.append('set-cookie', 'a=1');
    platform.append('set-cookie', 'b=2');
    platform.set('x', 'y');
    const fromPlatform = new LightHeaders(platform);
    assert.deepEqual(fromPlatform.getSetCookie(), ['a=1', 'b=2']);
    assert.equal(fromPlatform.get('x'), 'y');
    const copy = new LightHeaders(fromPlatform);
    assert.deepEqual(copy.getSetCookie(), ['a=1', 'b=2']);
    assert.deepEqual([...new LightHeaders([['A', '1'], ['a', '2']])], [['a', '1, 2']]);
    assert.deepEqual([...new LightHeaders({ B: 'x' })], [['b', 'x']]);
  });

  test('invalid names and values throw TypeError where Headers throws', () => {
    const h = new LightHeaders();
    for (const bad of ['', 'has space', 'colon:', 'naïve', 'a\nb']) {
      assert.throws(() => h.set(bad, 'v'), TypeError);
      assert.throws(() => new Headers().set(bad, 'v'), TypeError);
    }
    for (const bad of ['a\r\nb', 'nul\0']) {
      assert.throws(() => h.set('x', bad), TypeError);
      assert.throws(() => new Headers().set('x', bad), TypeError);
    }
    assert.throws(() => new LightHeaders([['only-one']]), TypeError);
  });
});

describe('LightResponse and the adapter protocol', () => {
  test('carries the brand r[Symbol.for("fwbench.light-response")] === true', () => {
    const r = new LightResponse('x');
    assert.equal(r[Symbol.for('fwbench.light-response')], true);
    assert.equal(LIGHT_RESPONSE, Symbol.for('fwbench.light-response'));
    assert.equal(isLightResponse(r), true);
    assert.equal(isLightResponse(new Response('x')), false);
    assert.equal(isLightResponse(null), false);
  });

  test('exposes status (number), headers (forEach) and body as given', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const r = new LightResponse(bytes, { status: 201, headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(r.status, 201);
    assert.equal(typeof r.status, 'number');
    assert.equal(r.body, bytes);
    assert.equal(r.ok, true);
    const seen = [];
    r.headers.forEach((v, k) => seen.push(`${k}: ${v}`));
    assert.deepEqual(seen, ['content-type: application/octet-stream']);
    assert.equal(new LightResponse().body, null);
    assert.equal(new LightResponse().status, 200);
  });

  test('rejects a status outside 100..599', () => {
    assert.throws(() => new LightResponse(null, { status: 99 }), RangeError);
    assert.throws(() => new LightResponse(null, { status: 600 }), RangeError);
    assert.throws(() => new LightResponse(null, { status: 200.5 }), RangeError);
  });

  test('text()/json()/arrayBuffer() read the body (via a platform Response)', async () => {
    assert.equal(await new LightResponse('hi').text(), 'hi');
    assert.deepEqual(await new LightResponse('{"a":1}').json(), { a: 1 });
    assert.equal((await new LightResponse(new Uint8Array([7])).arrayBuffer()).byteLength, 1);
  });
});

describe('toResponse', () => {
  test('builds a platform Response with status, statusText, headers and body', async () => {
    const light = new LightResponse('{"ok":true}', { status: 418, statusText: 'Teapot', headers: { 'content-type': 'application/json' } });
    light.headers.append('set-cookie', 'a=1');
    light.headers.append('set-cookie', 'b=2');
    const res = toResponse(light);
    assert.ok(res instanceof Response);
    assert.equal(res.status, 418);
    assert.equal(res.statusText, 'Teapot');
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.equal(await res.text(), '{"ok":true}');
  });

  test('every body kind converts: null, string, Uint8Array, ArrayBuffer, ReadableStream', async () => {
    assert.equal(toResponse(new LightResponse(null)).body, null);
    assert.equal(await toResponse(new LightResponse('s')).text(), 's');
    assert.equal(await toResponse(new LightResponse(new TextEncoder().encode('u8'))).text(), 'u8');
    assert.equal(await toResponse(new LightResponse(new TextEncoder().encode('ab').buffer)).text(), 'ab');
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('str'));
        c.enqueue(new TextEncoder().encode('eam'));
        c.close();
      },
    });
    assert.equal(await toResponse(new LightResponse(stream)).text(), 'stream');
  });

  test('null-body statuses drop the body instead of throwing', () => {
    const res = toResponse(new LightResponse('ignored', { status: 204 }));
    assert.equal(res.status, 204);
    assert.equal(res.body, null);
  });

  test('passes platform Responses through unchanged', () => {
    const res = new Response('x');
    assert.equal(toResponse(res), res);
  });
});
