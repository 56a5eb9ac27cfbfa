// `node --import ./js/runtime/test/register.mjs app.mjs` runs app.mjs with
// fwbench's module mapping (see hooks.mjs): node:* from js/runtime/node/,
// frameworks from vendor/dist/. Tests import this before the modules under
// test; it also installs js/runtime/node/globals.js when FWBENCH_GLOBALS=1.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
