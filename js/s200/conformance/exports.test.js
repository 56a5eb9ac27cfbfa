// index.js and light.js are one API: same export names, same shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as s200 from '../index.js';
import * as light from '../light.js';

const EXPECTED = [
  'LIGHT_RESPONSE',
  'LightHeaders',
  'LightResponse',
  'all',
  'cors',
  'createApp',
  'del',
  'get',
  'isLightResponse',
  'json',
  'logger',
  'patch',
  'post',
  'put',
  'requestId',
  'send',
  'setHeader',
  'text',
  'toResponse',
  'use',
];

test('index.js exports exactly the documented names', () => {
  assert.deepEqual(Object.keys(s200).sort(), EXPECTED);
});

test('light.js exports the same names as index.js', () => {
  assert.deepEqual(Object.keys(light).sort(), Object.keys(s200).sort());
});

test('everything but createApp is shared between the two', () => {
  for (const name of EXPECTED) {
    if (name === 'createApp') assert.notEqual(light[name], s200[name]);
    else assert.equal(light[name], s200[name], name);
  }
});

test('batteries are factories returning named functions', () => {
  assert.equal(s200.logger().name, 'logger');
  assert.equal(s200.cors().name, 'cors');
  assert.equal(s200.requestId().name, 'requestId');
});

test('app.fetch is an own, bound function (export default app works)', async () => {
  for (const m of [s200, light]) {
    const app = m.createApp();
    m.get(app, '/', (ctx) => m.text(ctx, 'ok'));
    const { fetch } = app;
    const res = await fetch(new Request('http://localhost/'));
    assert.equal(res.status, 200);
  }
});
