// node:v8 for fwbench: the engine is QuickJS-ng, not V8; heap statistics,
// snapshots and serialization throw.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const Serializer = unavailableClass('v8', 'Serializer');
const Deserializer = unavailableClass('v8', 'Deserializer');
const cachedDataVersionTag = unavailableFunction('v8', 'cachedDataVersionTag');
const getHeapCodeStatistics = unavailableFunction('v8', 'getHeapCodeStatistics');
const getHeapSnapshot = unavailableFunction('v8', 'getHeapSnapshot');
const getHeapSpaceStatistics = unavailableFunction('v8', 'getHeapSpaceStatistics');
const getHeapStatistics = unavailableFunction('v8', 'getHeapStatistics');
const serialize = unavailableFunction('v8', 'serialize');
const deserialize = unavailableFunction('v8', 'deserialize');
const setFlagsFromString = unavailableFunction('v8', 'setFlagsFromString');
const setHeapSnapshotNearHeapLimit = unavailableFunction('v8', 'setHeapSnapshotNearHeapLimit');
const writeHeapSnapshot = unavailableFunction('v8', 'writeHeapSnapshot');

export default sandboxedModule('v8', {
  Serializer, Deserializer, cachedDataVersionTag, getHeapCodeStatistics, getHeapSnapshot,
  getHeapSpaceStatistics, getHeapStatistics, serialize, deserialize, setFlagsFromString,
  setHeapSnapshotNearHeapLimit, writeHeapSnapshot,
});
export {
  Serializer, Deserializer, cachedDataVersionTag, getHeapCodeStatistics, getHeapSnapshot,
  getHeapSpaceStatistics, getHeapStatistics, serialize, deserialize, setFlagsFromString,
  setHeapSnapshotNearHeapLimit, writeHeapSnapshot,
};
