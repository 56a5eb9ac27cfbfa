// node:events for fwbench: the `events` npm polyfill (Node's EventEmitter as
// of Node 14, bundled as fwbench:///vendor/polyfills/events.js), plus the
// newer static helpers frameworks call. One EventEmitter for the whole
// runtime: stream, http and process all build on this class.
//
// Absent on purpose: errorMonitor and captureRejections (the polyfill's
// emit() does not implement them, and a symbol that is never emitted would
// be silently wrong), on() (async iterator), EventEmitterAsyncResource.
import EventEmitter from 'fwbench:///vendor/polyfills/events.js';

/** events.getEventListeners(emitterOrTarget, name): only EventEmitters can be read. */
function getEventListeners(emitter, name) {
  if (typeof emitter.listeners === 'function') return emitter.listeners(name);
  throw new Error('events.getEventListeners() of an EventTarget is not available in fwbench');
}

/**
 * events.setMaxListeners(n, ...targets): without targets it sets the
 * default; EventTargets have no limit to set here (Node only uses it for a
 * leak warning), so they are skipped.
 */
function setMaxListeners(n = EventEmitter.defaultMaxListeners, ...targets) {
  if (targets.length === 0) {
    EventEmitter.defaultMaxListeners = n;
    return;
  }
  for (const target of targets) {
    if (typeof target.setMaxListeners === 'function') target.setMaxListeners(n);
  }
}

function getMaxListeners(emitter) {
  if (typeof emitter.getMaxListeners === 'function') return emitter.getMaxListeners();
  return EventEmitter.defaultMaxListeners;
}

/** events.addAbortListener(signal, listener) -> Disposable. */
function addAbortListener(signal, listener) {
  if (signal.aborted) {
    queueMicrotask(() => listener());
  } else {
    signal.addEventListener('abort', listener, { once: true });
  }
  const dispose = () => signal.removeEventListener('abort', listener);
  return { [Symbol.dispose ?? Symbol.for('nodejs.dispose')]: dispose };
}

EventEmitter.getEventListeners = getEventListeners;
EventEmitter.setMaxListeners = setMaxListeners;
EventEmitter.getMaxListeners = getMaxListeners;
EventEmitter.addAbortListener = addAbortListener;

export default EventEmitter;
export { EventEmitter, getEventListeners, setMaxListeners, getMaxListeners, addAbortListener };
export const { once, listenerCount } = EventEmitter;
export const usingDomains = false;
export const defaultMaxListeners = EventEmitter.defaultMaxListeners;
