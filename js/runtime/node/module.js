// node:module for fwbench: the CommonJS loader's public face (_cjs.js):
// createRequire, Module (with Module._cache, wrap, _load, ...),
// builtinModules and isBuiltin. Registering loader hooks is not available.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';
import { createRequire, Module } from './_cjs.js';

const builtinModules = [
  'assert', 'assert/strict', 'async_hooks', 'buffer', 'child_process', 'cluster', 'console', 'crypto',
  'diagnostics_channel', 'dns', 'events', 'fs', 'fs/promises', 'http', 'http2', 'https', 'module',
  'net', 'os', 'path', 'path/posix', 'perf_hooks', 'process', 'querystring', 'stream',
  'stream/promises', 'stream/web', 'string_decoder', 'timers', 'timers/promises', 'tls', 'tty',
  'url', 'util', 'util/types', 'v8', 'vm', 'worker_threads', 'zlib',
];
const isBuiltin = (name) => builtinModules.includes(String(name).replace(/^node:/, ''));
const SourceMap = unavailableClass('module', 'SourceMap');
const register = unavailableFunction('module', 'register');
const syncBuiltinESMExports = () => {};
const findSourceMap = () => undefined;
const enableCompileCache = () => ({ status: 0, message: 'fwbench keeps its own code cache' });
const getCompileCacheDir = () => undefined;

Module.builtinModules = builtinModules;
Module.isBuiltin = isBuiltin;
Module.register = register;
Module.syncBuiltinESMExports = syncBuiltinESMExports;
Module.findSourceMap = findSourceMap;
Module.SourceMap = SourceMap;
Module.enableCompileCache = enableCompileCache;
Module.getCompileCacheDir = getCompileCacheDir;

export default sandboxedModule('module', Module);
export {
  builtinModules, isBuiltin, Module, SourceMap, createRequire, register, syncBuiltinESMExports,
  findSourceMap, enableCompileCache, getCompileCacheDir,
};
