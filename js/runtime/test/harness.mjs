// Shared helpers of the js/runtime tests: make sure vendor/dist exists,
// install fwbench's module mapping (register.mjs), and build host requests.
//
// Note: `node --test js/runtime/test/` runs every .mjs under a directory
// named test, so each support file and fixture here must also run cleanly
// on its own (fixtures import register.mjs, then load their framework with
// a dynamic import).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MANIFEST = new URL('../../../vendor/dist/manifest.json', import.meta.url);
const LOCK = fileURLToPath(new URL('../../../vendor/.build-lock', import.meta.url));

/**
 * Builds vendor/dist once if it is missing. Test files run in parallel
 * processes, so the first one takes a directory lock and the others wait.
 */
export async function ensureBuilt() {
  if (existsSync(MANIFEST)) return;
  let owner = false;
  try {
    mkdirSync(LOCK);
    owner = true;
  } catch {
    // another test process is building
  }
  if (owner) {
    try {
      execFileSync(process.execPath, ['vendor/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    } finally {
      rmdirSync(LOCK);
    }
    return;
  }
  for (let waited = 0; !existsSync(MANIFEST); waited += 200) {
    if (waited > 120_000) throw new Error('timed out waiting for vendor/dist (is vendor/.build-lock stale?)');
    await sleep(200);
  }
}

/** Installs the module mapping (register.mjs); import what you test dynamically after this. */
export async function setup() {
  await import('./register.mjs');
}

/** A hostRequest as the Rust adapter passes it to dispatchNode. */
export function hostRequest(url, { method = 'GET', headers = [], body = null } = {}) {
  return {
    method,
    url,
    headers: [['host', 'localhost:8080'], ...headers],
    body,
    remoteAddress: '127.0.0.1',
    remotePort: 50000,
  };
}

/** The response body as text. */
export const bodyText = (body) => (typeof body === 'string' ? body : new TextDecoder().decode(body));

/** The value of header `name` (case-insensitive) in a [name, value] list, or undefined. */
export const header = (headers, name) => headers.find(([n]) => n.toLowerCase() === name)?.[1];
