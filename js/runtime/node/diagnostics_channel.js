// node:diagnostics_channel for fwbench: named channels (publish/subscribe,
// bindStore/runStores) and TracingChannel (traceSync, tracePromise,
// traceCallback), following Node's lib/diagnostics_channel.js. fastify,
// express's router and pino publish here; nothing subscribes unless the
// app does, so `hasSubscribers` keeps the request path cheap.
import process from './process.js';

const channels = new Map();

class Channel {
  constructor(name) {
    this.name = name;
    this._subscribers = [];
    this._stores = new Map();
  }

  get hasSubscribers() {
    return this._subscribers.length > 0 || this._stores.size > 0;
  }

  subscribe(subscription) {
    if (typeof subscription !== 'function') throw new TypeError('The "subscription" argument must be of type function');
    this._subscribers = [...this._subscribers, subscription];
  }

  unsubscribe(subscription) {
    const index = this._subscribers.indexOf(subscription);
    if (index === -1) return false;
    this._subscribers = this._subscribers.filter((_, i) => i !== index);
    return true;
  }

  publish(data) {
    for (const subscriber of this._subscribers) {
      try {
        subscriber(data, this.name);
      } catch (err) {
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }

  bindStore(store, transform) {
    this._stores.set(store, transform);
  }

  unbindStore(store) {
    return this._stores.delete(store);
  }

  runStores(data, fn, thisArg, ...args) {
    let run = () => {
      this.publish(data);
      return Reflect.apply(fn, thisArg, args);
    };
    for (const [store, transform] of this._stores) {
      const next = run;
      run = () => {
        let storeValue = data;
        if (typeof transform === 'function') {
          try {
            storeValue = transform(data);
          } catch (err) {
            process.nextTick(() => {
              throw err;
            });
            return next();
          }
        }
        return store.run(storeValue, next);
      };
    }
    return run();
  }
}

function channel(name) {
  if (typeof name !== 'string' && typeof name !== 'symbol') {
    throw new TypeError('The "channel" argument must be of type string or symbol');
  }
  let ch = channels.get(name);
  if (!ch) channels.set(name, (ch = new Channel(name)));
  return ch;
}

const subscribe = (name, subscription) => channel(name).subscribe(subscription);
const unsubscribe = (name, subscription) => channel(name).unsubscribe(subscription);
const hasSubscribers = (name) => channels.get(name)?.hasSubscribers ?? false;

const traceEvents = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];

class TracingChannel {
  constructor(nameOrChannels) {
    for (const event of traceEvents) {
      this[event] = typeof nameOrChannels === 'string'
        ? channel(`tracing:${nameOrChannels}:${event}`)
        : nameOrChannels[event];
    }
  }

  get hasSubscribers() {
    return traceEvents.some((event) => this[event].hasSubscribers);
  }

  subscribe(handlers) {
    for (const event of traceEvents) if (handlers[event]) this[event].subscribe(handlers[event]);
  }

  unsubscribe(handlers) {
    let done = true;
    for (const event of traceEvents) {
      if (handlers[event] && !this[event].unsubscribe(handlers[event])) done = false;
    }
    return done;
  }

  traceSync(fn, context = {}, thisArg, ...args) {
    if (!this.hasSubscribers) return Reflect.apply(fn, thisArg, args);
    const { start, end, error } = this;
    return start.runStores(context, () => {
      try {
        const result = Reflect.apply(fn, thisArg, args);
        context.result = result;
        return result;
      } catch (err) {
        context.error = err;
        error.publish(context);
        throw err;
      } finally {
        end.publish(context);
      }
    });
  }

  tracePromise(fn, context = {}, thisArg, ...args) {
    if (!this.hasSubscribers) return Reflect.apply(fn, thisArg, args);
    const { start, end, asyncStart, asyncEnd, error } = this;
    const reject = (err) => {
      context.error = err;
      error.publish(context);
      asyncStart.publish(context);
      asyncEnd.publish(context);
      return Promise.reject(err);
    };
    const resolve = (result) => {
      context.result = result;
      asyncStart.publish(context);
      asyncEnd.publish(context);
      return result;
    };
    return start.runStores(context, () => {
      try {
        let promise = Reflect.apply(fn, thisArg, args);
        if (!(promise instanceof Promise)) promise = Promise.resolve(promise);
        return promise.then(resolve, reject);
      } catch (err) {
        context.error = err;
        error.publish(context);
        throw err;
      } finally {
        end.publish(context);
      }
    });
  }

  traceCallback(fn, position = -1, context = {}, thisArg, ...args) {
    if (!this.hasSubscribers) return Reflect.apply(fn, thisArg, args);
    const { start, end, asyncStart, asyncEnd, error } = this;
    const callback = args.at(position);
    if (typeof callback !== 'function') throw new TypeError('The "callback" argument must be of type function');
    function wrappedCallback(err, res) {
      if (err) {
        context.error = err;
        error.publish(context);
      } else {
        context.result = res;
      }
      asyncStart.runStores(context, () => {
        try {
          return Reflect.apply(callback, this, arguments);
        } finally {
          asyncEnd.publish(context);
        }
      });
    }
    args.splice(position, 1, wrappedCallback);
    return start.runStores(context, () => {
      try {
        return Reflect.apply(fn, thisArg, args);
      } catch (err) {
        context.error = err;
        error.publish(context);
        throw err;
      } finally {
        end.publish(context);
      }
    });
  }
}

const tracingChannel = (nameOrChannels) => new TracingChannel(nameOrChannels);

const diagnosticsChannel = { channel, subscribe, unsubscribe, hasSubscribers, tracingChannel, Channel };
export default diagnosticsChannel;
export { channel, subscribe, unsubscribe, hasSubscribers, tracingChannel, Channel };
