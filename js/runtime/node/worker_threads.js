// node:worker_threads for fwbench: one JS thread per runtime, no workers.
// isMainThread is true and threadId 0 (pino and thread-stream read them at
// import time); creating a Worker or a channel throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const isMainThread = true;
const threadId = 0;
const parentPort = null;
const workerData = null;
const resourceLimits = {};
const SHARE_ENV = Symbol.for('nodejs.worker_threads.SHARE_ENV');
const Worker = unavailableClass('worker_threads', 'Worker');
const MessageChannel = unavailableClass('worker_threads', 'MessageChannel');
const MessagePort = unavailableClass('worker_threads', 'MessagePort');
const BroadcastChannel = unavailableClass('worker_threads', 'BroadcastChannel');
const receiveMessageOnPort = unavailableFunction('worker_threads', 'receiveMessageOnPort');
const markAsUntransferable = unavailableFunction('worker_threads', 'markAsUntransferable');
const moveMessagePortToContext = unavailableFunction('worker_threads', 'moveMessagePortToContext');
const getEnvironmentData = unavailableFunction('worker_threads', 'getEnvironmentData');
const setEnvironmentData = unavailableFunction('worker_threads', 'setEnvironmentData');

export default sandboxedModule('worker_threads', {
  isMainThread, threadId, parentPort, workerData, resourceLimits, SHARE_ENV, Worker,
  MessageChannel, MessagePort, BroadcastChannel, receiveMessageOnPort, markAsUntransferable,
  moveMessagePortToContext, getEnvironmentData, setEnvironmentData,
});
export {
  isMainThread, threadId, parentPort, workerData, resourceLimits, SHARE_ENV, Worker,
  MessageChannel, MessagePort, BroadcastChannel, receiveMessageOnPort, markAsUntransferable,
  moveMessagePortToContext, getEnvironmentData, setEnvironmentData,
};
