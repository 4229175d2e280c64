// Readable's iterator helpers (Node's experimental operators), one chunk at a time.
// Derived from Node.js lib/internal/streams/operators.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { AbortError, invalidArgType, nodeError } from "../../internal_errors.js";
import { validateAbortSignal, validateFunction } from "../validators.js";
import { Readable } from "./readable.js";

// Iterator helpers (Node's experimental operators), run one chunk at a time.
function operatorOptions(options) {
  if (options != null && typeof options !== "object") throw invalidArgType("options", ["Object"], options);
  validateAbortSignal(options?.signal, "options.signal");
  return options?.signal;
}
function throwIfAborted(signal) {
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
}
const streamOperators = {
  map(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    const src = this;
    return Readable.from((async function* () {
      for await (const chunk of src) {
        throwIfAborted(signal);
        yield await fn(chunk, { signal });
      }
    })());
  },
  filter(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    const src = this;
    return Readable.from((async function* () {
      for await (const chunk of src) {
        throwIfAborted(signal);
        if (await fn(chunk, { signal })) yield chunk;
      }
    })());
  },
  flatMap(fn, options) {
    const mapped = this.map(fn, options);
    return Readable.from((async function* () {
      for await (const inner of mapped) yield* inner;
    })());
  },
  take(number, options) {
    const signal = operatorOptions(options);
    const src = this;
    number = toIntegerOrInfinity(number);
    return Readable.from((async function* () {
      throwIfAborted(signal);
      if (number <= 0) return;
      for await (const chunk of src) {
        throwIfAborted(signal);
        yield chunk;
        if (--number <= 0) return;
      }
    })());
  },
  drop(number, options) {
    const signal = operatorOptions(options);
    const src = this;
    number = toIntegerOrInfinity(number);
    return Readable.from((async function* () {
      throwIfAborted(signal);
      for await (const chunk of src) {
        throwIfAborted(signal);
        if (number-- <= 0) yield chunk;
      }
    })());
  },
  asIndexedPairs(options) {
    const signal = operatorOptions(options);
    const src = this;
    return Readable.from((async function* () {
      let index = 0;
      for await (const chunk of src) {
        throwIfAborted(signal);
        yield [index++, chunk];
      }
    })());
  },
  compose() {
    throw new Error("node:stream.Readable.prototype.compose is not supported by the Paseo plugin host yet");
  },
};
const promiseOperators = {
  async toArray(options) {
    const signal = operatorOptions(options);
    const result = [];
    for await (const chunk of this) {
      throwIfAborted(signal);
      result.push(chunk);
    }
    return result;
  },
  async forEach(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    for await (const chunk of this) {
      throwIfAborted(signal);
      await fn(chunk, { signal });
    }
  },
  async some(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    for await (const chunk of this) {
      throwIfAborted(signal);
      if (await fn(chunk, { signal })) return true;
    }
    return false;
  },
  async every(fn, options) {
    validateFunction(fn, "fn");
    return !(await this.some(async (...args) => !(await fn(...args)), options));
  },
  async find(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    for await (const chunk of this) {
      throwIfAborted(signal);
      if (await fn(chunk, { signal })) return chunk;
    }
    return undefined;
  },
  async reduce(reducer, initialValue, options) {
    validateFunction(reducer, "reducer");
    const signal = operatorOptions(options);
    let hasInitial = arguments.length > 1;
    let acc = initialValue;
    for await (const chunk of this) {
      throwIfAborted(signal);
      if (!hasInitial) {
        acc = chunk;
        hasInitial = true;
      } else {
        acc = await reducer(acc, chunk, { signal });
      }
    }
    if (!hasInitial) throw nodeError(TypeError, "ERR_MISSING_ARGS", "Reduce of an empty stream requires an initial value");
    return acc;
  },
};
function toIntegerOrInfinity(number) {
  number = Number(number);
  if (Number.isNaN(number)) return 0;
  if (number < 0) throw nodeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "number" is out of range. It must be >= 0. Received ${number}`);
  return Math.trunc(number);
}

export { operatorOptions, promiseOperators, streamOperators, throwIfAborted, toIntegerOrInfinity };
