// node:module for fwbench: there is no CommonJS loader or file system, so
// createRequire() and friends throw. builtinModules lists the node:*
// modules fwbench provides (js/runtime/node/).
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const builtinModules = [
  'assert', 'assert/strict', 'async_hooks', 'buffer', 'child_process', 'cluster', 'crypto',
  'diagnostics_channel', 'dns', 'events', 'fs', 'fs/promises', 'http', 'http2', 'https', 'module',
  'net', 'os', 'path', 'path/posix', 'perf_hooks', 'process', 'querystring', 'stream',
  'stream/promises', 'stream/web', 'string_decoder', 'timers', 'timers/promises', 'tls', 'tty',
  'url', 'util', 'util/types', 'v8', 'vm', 'worker_threads', 'zlib',
];
const isBuiltin = (name) => builtinModules.includes(String(name).replace(/^node:/, ''));
const Module = unavailableClass('module', 'Module');
const SourceMap = unavailableClass('module', 'SourceMap');
const createRequire = unavailableFunction('module', 'createRequire');
const register = unavailableFunction('module', 'register');
const syncBuiltinESMExports = unavailableFunction('module', 'syncBuiltinESMExports');
const findSourceMap = unavailableFunction('module', 'findSourceMap');
const enableCompileCache = unavailableFunction('module', 'enableCompileCache');
const getCompileCacheDir = unavailableFunction('module', 'getCompileCacheDir');

export default sandboxedModule('module', {
  builtinModules, isBuiltin, Module, SourceMap, createRequire, register, syncBuiltinESMExports,
  findSourceMap, enableCompileCache, getCompileCacheDir,
});
export {
  builtinModules, isBuiltin, Module, SourceMap, createRequire, register, syncBuiltinESMExports,
  findSourceMap, enableCompileCache, getCompileCacheDir,
};
