// node:child_process for fwbench: the sandbox starts no processes; every
// function throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const ChildProcess = unavailableClass('child_process', 'ChildProcess');
const exec = unavailableFunction('child_process', 'exec');
const execFile = unavailableFunction('child_process', 'execFile');
const execFileSync = unavailableFunction('child_process', 'execFileSync');
const execSync = unavailableFunction('child_process', 'execSync');
const fork = unavailableFunction('child_process', 'fork');
const spawn = unavailableFunction('child_process', 'spawn');
const spawnSync = unavailableFunction('child_process', 'spawnSync');

export default sandboxedModule('child_process', {
  ChildProcess, exec, execFile, execFileSync, execSync, fork, spawn, spawnSync,
});
export {
  ChildProcess, exec, execFile, execFileSync, execSync, fork, spawn, spawnSync,
};
