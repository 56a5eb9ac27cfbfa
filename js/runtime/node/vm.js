// node:vm for fwbench: no separate contexts or script compilation from
// strings; every function and class throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const Script = unavailableClass('vm', 'Script');
const SourceTextModule = unavailableClass('vm', 'SourceTextModule');
const SyntheticModule = unavailableClass('vm', 'SyntheticModule');
const Module = unavailableClass('vm', 'Module');
const createContext = unavailableFunction('vm', 'createContext');
const isContext = unavailableFunction('vm', 'isContext');
const runInContext = unavailableFunction('vm', 'runInContext');
const runInNewContext = unavailableFunction('vm', 'runInNewContext');
const runInThisContext = unavailableFunction('vm', 'runInThisContext');
const compileFunction = unavailableFunction('vm', 'compileFunction');
const measureMemory = unavailableFunction('vm', 'measureMemory');

export default sandboxedModule('vm', {
  Script, SourceTextModule, SyntheticModule, Module, createContext, isContext, runInContext,
  runInNewContext, runInThisContext, compileFunction, measureMemory,
});
export {
  Script, SourceTextModule, SyntheticModule, Module, createContext, isContext, runInContext,
  runInNewContext, runInThisContext, compileFunction, measureMemory,
};
