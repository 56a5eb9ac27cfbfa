// The bundles need no global beyond the host's Web globals and globals.js:
// fixtures/sandboxed-run.mjs deletes Node's own globals (process, Buffer,
// global, setImmediate, ...) before loading them, in a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './harness.mjs';

test('every framework serves the scenarios with only fwbench globals', async () => {
  await ensureBuilt();
  const script = fileURLToPath(new URL('./fixtures/sandboxed-run.mjs', import.meta.url));
  const out = execFileSync(process.execPath, [script], { env: { ...process.env, FWBENCH_SANDBOX_RUN: '1' } });
  const { removed, frameworks } = JSON.parse(out);
  assert.ok(removed.includes('process') && removed.includes('Buffer') && removed.includes('setImmediate'), removed.join());
  assert.deepEqual(Object.keys(frameworks).sort(), ['elysia', 'express', 'fastify', 'hono', 'hono-patched']);
  for (const [name, results] of Object.entries(frameworks)) {
    const byUrl = Object.fromEntries(results.map((r) => [r.url, r]));
    const h = (r, n) => r.headers.find(([k]) => k.toLowerCase() === n)?.[1];
    assert.equal(byUrl['/'].status, 200, name);
    assert.equal(byUrl['/'].body, '{"message":"hello"}', name);
    assert.equal(byUrl['/user/42'].body, '42', name);
    assert.equal(byUrl['/mw'].body, '{"message":"hello"}', name);
    for (const i of ['1', '2', '3', '4', '5']) assert.equal(h(byUrl['/mw'], `x-mw-${i}`), i, `${name} x-mw-${i}`);
    assert.equal(byUrl['/nope'].status, 404, name);
  }
});
