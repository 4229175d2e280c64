// Duplex: a Readable that is also a Writable (both states, one object).
// Derived from Node.js lib/internal/streams/duplex.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { addAbortSignal } from "./add-abort-signal.js";
import { construct } from "./destroy.js";
import { duplexify } from "./duplexify.js";
import { Stream } from "./legacy.js";
import { Readable, ReadableState, maybeReadMore } from "./readable.js";
import { late } from "./utils.js";
import { Writable, WritableState, clearBuffer, finishMaybe } from "./writable.js";

export function Duplex(options) {
  if (!(this instanceof Duplex)) return new Duplex(options);
  this._readableState = new ReadableState(options, this, true);
  this._writableState = new WritableState(options, this, true);
  if (options) {
    this.allowHalfOpen = options.allowHalfOpen !== false;
    if (options.readable === false) {
      this._readableState.readable = false;
      this._readableState.ended = true;
      this._readableState.endEmitted = true;
    }
    if (options.writable === false) {
      const w = this._writableState;
      w.writable = false;
      w.ending = w.ended = w.finished = true;
    }
    for (const name of ["read", "write", "writev", "destroy", "final", "construct"]) {
      if (typeof options[name] === "function") this[`_${name}`] = options[name];
    }
    if (options.signal) addAbortSignal(options.signal, this);
  } else {
    this.allowHalfOpen = true;
  }
  Stream.call(this, options);
  construct(this, () => {
    const r = this._readableState, w = this._writableState;
    if (r.needReadable) maybeReadMore(this, r);
    if (!w.writing) clearBuffer(this, w);
    finishMaybe(this, w);
  });
}
Object.setPrototypeOf(Duplex.prototype, Readable.prototype);
Object.setPrototypeOf(Duplex, Readable);
for (const method of Object.keys(Writable.prototype)) {
  if (!Duplex.prototype[method]) Duplex.prototype[method] = Writable.prototype[method];
}
Duplex.prototype.destroy = Writable.prototype.destroy;
{
  const w = Object.getOwnPropertyDescriptors(Writable.prototype);
  const props = {};
  for (const name of ["writable", "writableHighWaterMark", "writableObjectMode", "writableBuffer", "writableLength",
    "writableFinished", "writableCorked", "writableEnded", "writableNeedDrain"]) props[name] = w[name];
  props.destroyed = {
    get() {
      if (this._readableState === undefined || this._writableState === undefined) return false;
      return this._readableState.destroyed && this._writableState.destroyed;
    },
    set(value) {
      if (this._readableState && this._writableState) {
        this._readableState.destroyed = value;
        this._writableState.destroyed = value;
      }
    },
    configurable: true,
  };
  Object.defineProperties(Duplex.prototype, props);
}

Duplex.from = function from(body) {
  return duplexify(body, "body");
};
Duplex.fromWeb = function () {
  throw new Error("node:stream.Duplex.fromWeb is not supported by the Paseo plugin host yet");
};
Duplex.toWeb = function () {
  throw new Error("node:stream.Duplex.toWeb is not supported by the Paseo plugin host yet");
};

late.Duplex = Duplex;
