// node:timers/promises for fwbench: promise forms of setTimeout,
// setImmediate and setInterval (an async iterator), honouring `signal`.
// scheduler.wait and scheduler.yield are the same promises.
import { setTimeout as nodeSetTimeout, setImmediate as nodeSetImmediate, clearTimeout, clearImmediate, setInterval as nodeSetInterval, clearInterval } from '../timers.js';

function abortError(signal) {
  const err = new Error('The operation was aborted', { cause: signal?.reason });
  err.name = 'AbortError';
  err.code = 'ABORT_ERR';
  return err;
}

function withSignal(options, arm, disarm) {
  const signal = options?.signal;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      disarm(handle);
      reject(abortError(signal));
    };
    const handle = arm((value) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function setTimeout(delay, value, options) {
  return withSignal(options, (done) => nodeSetTimeout(() => done(value), delay), clearTimeout);
}

function setImmediate(value, options) {
  return withSignal(options, (done) => nodeSetImmediate(() => done(value)), clearImmediate);
}

async function* setInterval(delay, value, options) {
  const signal = options?.signal;
  if (signal?.aborted) throw abortError(signal);
  let pending = 0;
  let wake = null;
  const timer = nodeSetInterval(() => {
    pending++;
    wake?.();
  }, delay);
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  try {
    while (true) {
      if (pending === 0) await new Promise((resolve) => (wake = resolve));
      wake = null;
      if (signal?.aborted) throw abortError(signal);
      pending--;
      yield value;
    }
  } finally {
    clearInterval(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

const scheduler = {
  wait: (delay, options) => setTimeout(delay, undefined, options),
  yield: () => setImmediate(),
};

export default { setTimeout, setImmediate, setInterval, scheduler };
export { setTimeout, setImmediate, setInterval, scheduler };
