// The CommonJS loader: Node's `require` for an app's project.
//
// A CommonJS file is compiled as Node compiles it, inside the module
// wrapper `function (exports, require, module, __filename, __dirname)`,
// called with `this` = `module.exports`. Modules are cached by real path
// (`require.cache`) before they run, so a cycle sees the partial exports
// of the module still loading, as in Node. JSON files parse into
// `module.exports`; an ES module is loaded synchronously (`require(esm)`,
// Node 22+) and its namespace returned (its `"module.exports"` export if
// it has one); Node built-ins come from js/runtime/node/; a package the
// project does not have but fwbench bundles (hono, express, ...) is that
// copy's default export.
//
// Resolution, formats and sources (TypeScript stripped) are the host's
// (src/engine/project/): Node's algorithm with the `require` conditions.
// ES modules import CommonJS through a facade the host generates, which
// calls `importCommonJS`.
import { projectServices } from 'fwbench:///runtime/host.js';
import { nodeError } from './_internal.js';
import { dirname } from './path.js';
import { fileURLToPath, pathToFileURL } from './url.js';

const services = projectServices();
const ReflectApply = Reflect.apply;

/** `require.cache`: modules by real path. */
const cache = Object.create(null);
/** Built-ins, by name: what `require('fs')` returns. */
const builtins = new Map();
/** The entry module, when it is CommonJS (`require.main`). */
let mainModule;

const WRAPPER_PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];

/** Node's `module.paths`: node_modules in every directory up from `dir`. */
function nodeModulePaths(dir) {
  const paths = [];
  for (let at = dir; ; at = dirname(at)) {
    if (!at.endsWith('/node_modules')) paths.push(`${at === '/' ? '' : at}/node_modules`);
    if (at === '/') break;
  }
  return paths;
}

/** A file URL as the host's loader spells it (WHATWG's encoding). */
function fileURL(path) {
  return pathToFileURL(path).href;
}

/** A path argument: a path, or a file URL (string or URL). */
function toPath(value) {
  if (value instanceof URL || (typeof value === 'string' && value.startsWith('file:'))) return fileURLToPath(value);
  return typeof value === 'string' ? value : String(value);
}

/** A module: what `module` is inside a CommonJS file. */
export class Module {
  constructor(id = '', parent = undefined) {
    this.id = id;
    this.path = dirname(id);
    this.exports = {};
    this.filename = id || null;
    this.loaded = false;
    this.children = [];
    this.paths = id ? nodeModulePaths(this.path) : [];
    Object.defineProperty(this, 'parent', { value: parent, writable: true, enumerable: false });
    if (parent && !parent.children.includes(this)) parent.children.push(this);
  }

  require(id) {
    return requireFrom(this, id);
  }
}

/** The files a failed require came through, innermost first. */
function requireStack(parent) {
  const stack = [];
  for (let at = parent; at; at = at.parent) if (at.filename) stack.push(at.filename);
  return stack;
}

/** Node's error for a specifier that did not resolve. */
function resolveError(request, parent, message) {
  const stack = requireStack(parent);
  const code = message.startsWith('Cannot find module')
    ? 'MODULE_NOT_FOUND'
    : message.startsWith('Package subpath')
    ? 'ERR_PACKAGE_PATH_NOT_EXPORTED'
    : 'ERR_INVALID_PACKAGE_CONFIG';
  const text = stack.length > 0 ? `${message}\nRequire stack:\n- ${stack.join('\n- ')}` : message;
  const error = nodeError(code, text);
  error.requireStack = stack;
  return error;
}

/** What `request` names from `parent`: `{ kind, target }`. */
function resolve(parent, request) {
  if (typeof request !== 'string') {
    throw nodeError('ERR_INVALID_ARG_TYPE', `The "id" argument must be of type string. Received ${typeof request}`, TypeError);
  }
  if (request === '') {
    throw nodeError('ERR_INVALID_ARG_VALUE', "The argument 'id' must be a non-empty string. Received ''", TypeError);
  }
  const referrer = parent?.filename ?? `${services.root()}/[eval]`;
  let answer;
  try {
    answer = services.resolve(request, referrer, true);
  } catch (error) {
    throw resolveError(request, parent, error.message);
  }
  const colon = answer.indexOf(':');
  return { kind: answer.slice(0, colon), target: answer.slice(colon + 1) };
}

/**
 * The namespace of the ES module at `url`, loaded and evaluated now,
 * through a wrapper module the host generates (src/engine/loader.rs,
 * `require_esm_wrapper`): with `interop`, as Node's `require(esm)` returns
 * it (a module with a default export gets `__esModule: true`).
 */
function importNow(url, interop = false) {
  const hex = Array.from(new TextEncoder().encode(url), (b) => b.toString(16).padStart(2, '0')).join('');
  const { namespace } = services.importSync(`fwbench:///require-esm/ns/${hex}`);
  if (interop && 'default' in namespace && !('__esModule' in namespace)) {
    return services.importSync(`fwbench:///require-esm/interop/${hex}`);
  }
  return namespace;
}

function requireFrom(parent, request) {
  const { kind, target } = resolve(parent, request);
  if (kind === 'builtin') return loadBuiltin(target, parent);
  if (kind === 'bundled') {
    const namespace = importNow(target);
    return namespace.default ?? namespace;
  }
  return loadFile(target, parent);
}

function loadBuiltin(name, parent) {
  let exports = builtins.get(name);
  if (exports === undefined) {
    let namespace;
    try {
      namespace = importNow(`fwbench:///runtime/node/${name}.js`);
    } catch (error) {
      const who = parent?.filename ? ` (required by ${parent.filename})` : '';
      throw nodeError(
        'ERR_UNKNOWN_BUILTIN_MODULE',
        `node:${name} is not available in fwbench${who}: ${error.message} (docs/node-compat.md lists what is)`,
      );
    }
    exports = namespace.default ?? namespace;
    builtins.set(name, exports);
  }
  return exports;
}

function loadFile(filename, parent, isMain = false) {
  const cached = cache[filename];
  if (cached !== undefined) {
    if (parent && !parent.children.includes(cached)) parent.children.push(cached);
    return cached.exports;
  }
  const module = new Module(filename, parent);
  if (isMain) {
    mainModule = module;
    module.id = '.';
  }
  cache[filename] = module;
  let threw = true;
  try {
    run(module, services.format(filename));
    threw = false;
  } finally {
    if (threw) delete cache[filename];
  }
  return module.exports;
}

function run(module, format) {
  const { filename } = module;
  switch (format) {
    case 'json': {
      const text = services.source(filename);
      try {
        module.exports = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      } catch (error) {
        error.message = `${filename}: ${error.message}`;
        throw error;
      }
      break;
    }
    case 'module': {
      let namespace;
      try {
        namespace = importNow(fileURL(filename), true);
      } catch (error) {
        if (/Top-level await/.test(error?.message)) {
          throw nodeError(
            'ERR_REQUIRE_ASYNC_MODULE',
            `require() cannot be used on an ES module with top-level await: ${filename}; use import() (as in Node)`,
          );
        }
        throw error;
      }
      module.exports = 'module.exports' in namespace ? namespace['module.exports'] : namespace;
      break;
    }
    case 'addon':
      throw nodeError(
        'ERR_DLOPEN_FAILED',
        `Cannot load native addon ${filename}: fwbench's sandbox runs no native code\nRequire stack:\n- ${requireStack(module.parent).join('\n- ')}`,
      );
    case 'wasm':
      throw nodeError('ERR_UNKNOWN_FILE_EXTENSION', `Cannot load ${filename}: WebAssembly is not available in fwbench's sandbox`);
    default: {
      let source = services.source(filename);
      // A shebang line is not JavaScript inside a function body.
      if (source.startsWith('#!')) source = `//${source.slice(2)}`;
      const [wrapper, error] = services.compileFunction(source, fileURL(filename), WRAPPER_PARAMS);
      if (error) throw compileError(error.thrown, module);
      ReflectApply(wrapper, module.exports, [module.exports, makeRequire(module), module, filename, module.path]);
    }
  }
  module.loaded = true;
}

/**
 * A CommonJS file that does not compile: V8's SyntaxError, with the place
 * (from the host's parser, as V8 gives none for a module wrapper) and the
 * files that required it, as Node prints them.
 */
function compileError(thrown, module) {
  if (!(thrown instanceof SyntaxError)) return thrown;
  const place = services.syntaxError(module.filename) || module.filename;
  const stack = requireStack(module.parent);
  thrown.message = `${thrown.message} (${place})${stack.length > 0 ? `\nRequire stack:\n- ${stack.join('\n- ')}` : ''}`;
  thrown.stack = `${thrown.name}: ${thrown.message}\n    at ${place.replace(/: .*$/, '')}`;
  return thrown;
}

/** The `require` function of `module`. */
function makeRequire(module) {
  const require = function require(id) {
    return requireFrom(module, id);
  };
  function resolveFilename(request, options) {
    if (options?.paths !== undefined) {
      throw nodeError('ERR_FWBENCH_NOT_AVAILABLE', 'require.resolve() with `paths` is not available in fwbench');
    }
    const { kind, target } = resolve(module, request);
    return kind === 'builtin' ? (request.startsWith('node:') ? request : target) : target;
  }
  resolveFilename.paths = (request) =>
    resolve(module, request).kind === 'builtin' ? null : nodeModulePaths(module.path);
  require.resolve = resolveFilename;
  Object.defineProperty(require, 'main', { get: () => mainModule, enumerable: true });
  require.cache = cache;
  require.extensions = Module._extensions;
  return require;
}

/**
 * What `import` of the CommonJS file `filename` gets (the host's facade
 * calls this): its `module.exports`, running it first if no `require` or
 * `import` has. The app's entry is `require.main`.
 */
export function importCommonJS(filename, isMain = false) {
  return loadFile(filename, undefined, isMain && mainModule === undefined);
}

/** `module.createRequire(filename)`: a `require` resolving from that file. */
export function createRequire(filename) {
  const path = toPath(filename);
  if (!path.startsWith('/')) {
    throw nodeError(
      'ERR_INVALID_ARG_VALUE',
      `The argument 'filename' must be a file URL object, file URL string, or absolute path string. Received ${JSON.stringify(String(filename))}`,
      TypeError,
    );
  }
  return makeRequire(new Module(path.endsWith('/') ? `${path}noop.js` : path));
}

Module._cache = cache;
Module._extensions = Object.create(null);
for (const extension of ['.js', '.json', '.node']) {
  Module._extensions[extension] = () => {
    throw nodeError('ERR_FWBENCH_NOT_AVAILABLE', `require.extensions['${extension}'] cannot be called in fwbench`);
  };
}
Module.createRequire = createRequire;
Module.wrap = (script) => `(function (${WRAPPER_PARAMS.join(', ')}) { ${script}\n});`;
Module.wrapper = [`(function (${WRAPPER_PARAMS.join(', ')}) { `, '\n});'];
Module._nodeModulePaths = nodeModulePaths;
Module._load = (request, parent) => requireFrom(parent ?? new Module(`${services.root()}/[eval]`), request);
Module._resolveFilename = (request, parent) => makeRequire(parent ?? new Module(`${services.root()}/[eval]`)).resolve(request);
Module.Module = Module;
