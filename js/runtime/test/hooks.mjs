// Node module-customization hooks that make Node resolve modules the way
// fwbench's embedded host does, so the shims and vendor bundles can be
// tested under plain Node (see register.mjs):
//
//   fwbench:///vendor/<file>      -> vendor/dist/<file>
//   fwbench:///runtime/host.js    -> js/runtime/test/host-standin.mjs
//   fwbench:///runtime/<file>     -> js/runtime/<file>
//   node:X and bare built-in X    -> js/runtime/node/X.js   (*)
//   bare specifiers listed in vendor/dist/manifest.json
//                                  -> vendor/dist/<file>     (*)
//
// (*) only for importers inside the sandbox: js/runtime/node/, vendor/dist/
// and js/runtime/test/fixtures/ (the test apps). The tests themselves and
// the host stand-in keep Node's real built-ins.
import { builtinModules } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';

const ROOT = new URL('../../../', import.meta.url);
const NODE_SHIMS = new URL('js/runtime/node/', ROOT);
const RUNTIME = new URL('js/runtime/', ROOT);
const DIST = new URL('vendor/dist/', ROOT);
const FIXTURES = new URL('js/runtime/test/fixtures/', ROOT);
const HOST_STANDIN = new URL('js/runtime/test/host-standin.mjs', ROOT);

let specifiers = null;
function manifestSpecifiers() {
  if (specifiers === null) {
    const file = new URL('manifest.json', DIST);
    if (!existsSync(file)) throw new Error('vendor/dist/manifest.json is missing: run `node vendor/build.mjs` first');
    specifiers = JSON.parse(readFileSync(file, 'utf8')).specifiers;
  }
  return specifiers;
}

const BUILTINS = new Set(builtinModules);
const inSandbox = (parentURL) =>
  !!parentURL &&
  (parentURL.startsWith(NODE_SHIMS.href) || parentURL.startsWith(DIST.href) || parentURL.startsWith(FIXTURES.href));

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith('fwbench:///')) {
    const path = specifier.slice('fwbench:///'.length);
    let url;
    if (path === 'runtime/host.js') url = HOST_STANDIN;
    else if (path.startsWith('vendor/')) url = new URL(path.slice('vendor/'.length), DIST);
    else if (path.startsWith('runtime/')) url = new URL(path.slice('runtime/'.length), RUNTIME);
    else throw new Error(`fwbench harness: unknown fwbench:/// module ${specifier}`);
    return { url: url.href, shortCircuit: true, format: 'module' };
  }
  if (inSandbox(context.parentURL)) {
    const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
    if (specifier.startsWith('node:') || BUILTINS.has(name)) {
      const url = new URL(`${name}.js`, NODE_SHIMS);
      if (!existsSync(url)) throw new Error(`fwbench has no shim for node:${name} (imported by ${context.parentURL})`);
      return { url: url.href, shortCircuit: true, format: 'module' };
    }
    const mapped = manifestSpecifiers()[specifier];
    if (mapped) return { url: new URL(mapped, DIST).href, shortCircuit: true, format: 'module' };
  }
  return nextResolve(specifier, context);
}
