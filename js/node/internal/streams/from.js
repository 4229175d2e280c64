// Readable.from(iterable).
// Derived from Node.js lib/internal/streams/from.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { Buffer } from "node:buffer";
import { E, invalidArgType } from "../../internal_errors.js";
import { nextTick } from "./utils.js";

function readableFrom(Ctor, iterable, opts) {
  if (typeof iterable === "string" || iterable instanceof Buffer) {
    return new Ctor({
      objectMode: true,
      ...opts,
      read() {
        this.push(iterable);
        this.push(null);
      },
    });
  }
  let iterator, isAsync;
  if (iterable && typeof iterable[Symbol.asyncIterator] === "function") {
    isAsync = true;
    iterator = iterable[Symbol.asyncIterator]();
  } else if (iterable && typeof iterable[Symbol.iterator] === "function") {
    isAsync = false;
    iterator = iterable[Symbol.iterator]();
  } else {
    throw invalidArgType("iterable", ["Iterable"], iterable);
  }
  const readable = new Ctor({ objectMode: true, highWaterMark: 1, ...opts });
  let reading = false;
  readable._read = function () {
    if (!reading) {
      reading = true;
      next();
    }
  };
  readable._destroy = function (error, cb) {
    close(error).then(() => nextTick(cb, error), (e) => nextTick(cb, e || error));
  };
  async function close(error) {
    const hadError = error !== undefined && error !== null;
    if (hadError && typeof iterator.throw === "function") {
      const { value, done } = await iterator.throw(error);
      await value;
      if (done) return;
    }
    if (typeof iterator.return === "function") {
      const { value } = await iterator.return();
      await value;
    }
  }
  async function next() {
    for (;;) {
      try {
        const { value, done } = isAsync ? await iterator.next() : iterator.next();
        if (done) {
          readable.push(null);
        } else {
          const res = value && typeof value.then === "function" ? await value : value;
          if (res === null) {
            reading = false;
            throw E.nullValues();
          } else if (readable.push(res)) {
            continue;
          } else {
            reading = false;
          }
        }
      } catch (err) {
        readable.destroy(err);
      }
      break;
    }
  }
  return readable;
}

export { readableFrom };
