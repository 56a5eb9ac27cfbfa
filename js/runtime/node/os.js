// node:os for fwbench: the sandbox does not reveal the machine. EOL, devNull
// and constants are facts of the platform fwbench targets and are given;
// hostname() is 'localhost', a name that says nothing about the machine
// (pino reads it when it loads and writes it in every line: fastify's
// logger, the elysia logger); every other function (cpus,
// networkInterfaces, ...) throws.
import { sandboxedModule, unavailableFunction } from './_internal.js';

const EOL = '\n';
const devNull = '/dev/null';
const constants = { signals: {}, errno: {}, priority: {} };
const arch = unavailableFunction('os', 'arch');
const availableParallelism = unavailableFunction('os', 'availableParallelism');
const cpus = unavailableFunction('os', 'cpus');
const endianness = unavailableFunction('os', 'endianness');
const freemem = unavailableFunction('os', 'freemem');
const getPriority = unavailableFunction('os', 'getPriority');
const homedir = unavailableFunction('os', 'homedir');
const hostname = () => 'localhost';
const loadavg = unavailableFunction('os', 'loadavg');
const machine = unavailableFunction('os', 'machine');
const networkInterfaces = unavailableFunction('os', 'networkInterfaces');
const platform = unavailableFunction('os', 'platform');
const release = unavailableFunction('os', 'release');
const setPriority = unavailableFunction('os', 'setPriority');
const tmpdir = unavailableFunction('os', 'tmpdir');
const totalmem = unavailableFunction('os', 'totalmem');
const type = unavailableFunction('os', 'type');
const uptime = unavailableFunction('os', 'uptime');
const userInfo = unavailableFunction('os', 'userInfo');
const version = unavailableFunction('os', 'version');

export default sandboxedModule('os', {
  EOL, devNull, constants, arch, availableParallelism, cpus, endianness, freemem, getPriority,
  homedir, hostname, loadavg, machine, networkInterfaces, platform, release, setPriority, tmpdir,
  totalmem, type, uptime, userInfo, version,
});
export {
  EOL, devNull, constants, arch, availableParallelism, cpus, endianness, freemem, getPriority,
  homedir, hostname, loadavg, machine, networkInterfaces, platform, release, setPriority, tmpdir,
  totalmem, type, uptime, userInfo, version,
};
