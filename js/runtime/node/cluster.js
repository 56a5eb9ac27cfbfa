// node:cluster for fwbench: one process per benchmark row; cluster.isPrimary is
// true and isWorker false, and forking throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const isPrimary = true;
const isMaster = true;
const isWorker = false;
const workers = {};
const Worker = unavailableClass('cluster', 'Worker');
const fork = unavailableFunction('cluster', 'fork');
const setupPrimary = unavailableFunction('cluster', 'setupPrimary');
const setupMaster = unavailableFunction('cluster', 'setupMaster');
const disconnect = unavailableFunction('cluster', 'disconnect');

export default sandboxedModule('cluster', {
  isPrimary, isMaster, isWorker, workers, Worker, fork, setupPrimary, setupMaster, disconnect,
});
export {
  isPrimary, isMaster, isWorker, workers, Worker, fork, setupPrimary, setupMaster, disconnect,
};
