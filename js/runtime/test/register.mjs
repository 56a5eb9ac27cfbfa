// Installs fwbench's module mapping (hooks.mjs) in this Node process,
// building vendor/dist first if it is missing:
//
//   node --import ./js/runtime/test/register.mjs app.mjs
//
// runs app.mjs with node:* from js/runtime/node/ and the frameworks from
// vendor/dist/. Modules resolved before this runs keep Node's mapping, so
// tests and fixtures import what they test dynamically, after it.
import { register } from 'node:module';
import { ensureBuilt } from './harness.mjs';

await ensureBuilt();
register('./hooks.mjs', import.meta.url);
