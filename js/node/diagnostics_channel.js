// `node:diagnostics_channel`: named channels that publish to their subscribers synchronously, and
// tracing channels (start, end, asyncStart, asyncEnd, error) around sync, promise and callback
// calls, with Node's order of events and context objects. As in Node, a channel has no
// subscribers until one subscribes (or a store is bound), then becomes active; a subscriber that
// throws does not stop the others: its error is rethrown from a `process.nextTick` callback,
// where the engine reports it as an uncaught error. Stores (`bindStore`) are anything with a
// `run(context, fn)` method, as AsyncLocalStorage has.
import { lazyModule } from "paseo:internal/core";
import process from "node:process";

// Channels by name. Node holds a channel weakly until something subscribes; here they are kept
// (a plugin names few channels), which keeps `channel(name) === channel(name)` as well.
const channels = new Map();

// Node's error shapes, loaded only when one is thrown (they need node:util).
const invalidArgType = (...args) => lazyModule("paseo:internal/node/internal_errors").invalidArgType(...args);

const reportLater = (err) => process.nextTick(() => { throw err; });

function validateFunction(value, name) {
  if (typeof value !== "function") throw invalidArgType(name, ["function"], value);
}

function markActive(channel) {
  Object.setPrototypeOf(channel, ActiveChannel.prototype);
  channel._subscribers = [];
  channel._stores = new Map();
}

function maybeMarkInactive(channel) {
  if (!channel._subscribers.length && !channel._stores.size) {
    Object.setPrototypeOf(channel, Channel.prototype);
    channel._subscribers = undefined;
    channel._stores = undefined;
  }
}

// `transform` turns the published message into the store's context; a transform that throws is
// reported as a subscriber's error would be, and the function runs without that store.
function wrapStoreRun(store, data, next, transform = (v) => v) {
  return () => {
    let context;
    try {
      context = transform(data);
    } catch (err) {
      reportLater(err);
      return next();
    }
    return store.run(context, next);
  };
}

// A channel with subscribers or stores: the same object as its inactive form, with this prototype.
class ActiveChannel {
  subscribe(subscription) {
    validateFunction(subscription, "subscription");
    // A copy, so that a publish under way goes on with the list it started with.
    this._subscribers = [...this._subscribers, subscription];
  }
  unsubscribe(subscription) {
    const index = this._subscribers.indexOf(subscription);
    if (index === -1) return false;
    this._subscribers = [...this._subscribers.slice(0, index), ...this._subscribers.slice(index + 1)];
    maybeMarkInactive(this);
    return true;
  }
  bindStore(store, transform) {
    this._stores.set(store, transform);
  }
  unbindStore(store) {
    if (!this._stores.has(store)) return false;
    this._stores.delete(store);
    maybeMarkInactive(this);
    return true;
  }
  get hasSubscribers() {
    return true;
  }
  publish(data) {
    const subscribers = this._subscribers;
    for (let i = 0; i < (subscribers?.length || 0); i++) {
      try {
        subscribers[i](data, this.name);
      } catch (err) {
        reportLater(err);
      }
    }
  }
  runStores(data, fn, thisArg, ...args) {
    let run = () => {
      this.publish(data);
      return Reflect.apply(fn, thisArg, args);
    };
    for (const [store, transform] of this._stores.entries()) run = wrapStoreRun(store, data, run, transform);
    return run();
  }
}

export class Channel {
  constructor(name) {
    this._subscribers = undefined;
    this._stores = undefined;
    this.name = name;
    channels.set(name, this);
  }
  static [Symbol.hasInstance](instance) {
    const prototype = instance === null || typeof instance !== "object" ? undefined : Object.getPrototypeOf(instance);
    return prototype === Channel.prototype || prototype === ActiveChannel.prototype;
  }
  subscribe(subscription) {
    markActive(this);
    this.subscribe(subscription);
  }
  unsubscribe() {
    return false;
  }
  bindStore(store, transform) {
    markActive(this);
    this.bindStore(store, transform);
  }
  unbindStore() {
    return false;
  }
  get hasSubscribers() {
    return false;
  }
  publish() {}
  runStores(data, fn, thisArg, ...args) {
    return Reflect.apply(fn, thisArg, args);
  }
}

export function channel(name) {
  const existing = channels.get(name);
  if (existing) return existing;
  if (typeof name !== "string" && typeof name !== "symbol") throw invalidArgType("channel", ["string", "symbol"], name);
  return new Channel(name);
}

export function subscribe(name, subscription) {
  return channel(name).subscribe(subscription);
}

export function unsubscribe(name, subscription) {
  return channel(name).unsubscribe(subscription);
}

export function hasSubscribers(name) {
  const existing = channels.get(name);
  return existing ? existing.hasSubscribers : false;
}

const TRACE_EVENTS = ["start", "end", "asyncStart", "asyncEnd", "error"];

function assertChannel(value, name) {
  if (!(value instanceof Channel)) throw invalidArgType(name, ["Channel"], value);
}

class TracingChannel {
  constructor(nameOrChannels) {
    if (typeof nameOrChannels === "string") {
      for (const event of TRACE_EVENTS) {
        Object.defineProperty(this, event, { value: channel(`tracing:${nameOrChannels}:${event}`) });
      }
    } else if (typeof nameOrChannels === "object" && nameOrChannels !== null) {
      for (const event of TRACE_EVENTS) {
        const value = nameOrChannels[event];
        assertChannel(value, `nameOrChannels.${event}`);
        Object.defineProperty(this, event, { value });
      }
    } else {
      throw invalidArgType("nameOrChannels", ["string", "TracingChannel", "Object"], nameOrChannels);
    }
  }
  get hasSubscribers() {
    return this.start.hasSubscribers || this.end.hasSubscribers || this.asyncStart.hasSubscribers ||
      this.asyncEnd.hasSubscribers || this.error.hasSubscribers;
  }
  subscribe(handlers) {
    for (const event of TRACE_EVENTS) {
      if (handlers[event]) this[event]?.subscribe(handlers[event]);
    }
  }
  unsubscribe(handlers) {
    let done = true;
    for (const event of TRACE_EVENTS) {
      if (!handlers[event]) continue;
      if (!this[event]?.unsubscribe(handlers[event])) done = false;
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
    validateFunction(callback, "callback");
    function wrappedCallback(err, res) {
      if (err) {
        context.error = err;
        error.publish(context);
      } else {
        context.result = res;
      }
      // Through runStores, so that a store bound to asyncStart sees the callback run.
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

export function tracingChannel(nameOrChannels) {
  return new TracingChannel(nameOrChannels);
}

export default { channel, hasSubscribers, subscribe, tracingChannel, unsubscribe, Channel };
