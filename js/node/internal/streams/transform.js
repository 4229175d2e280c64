// Transform: a Duplex whose output is computed from its input.
// Derived from Node.js lib/internal/streams/transform.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { E } from "../../internal_errors.js";
import { Duplex } from "./duplex.js";
import { getHighWaterMark } from "./state.js";
import { kCallback, nextTick } from "./utils.js";

export function Transform(options) {
  if (!(this instanceof Transform)) return new Transform(options);
  // A readable hwm of 0 would stall the transform; let the writable side buffer instead.
  const readableHighWaterMark = options ? getHighWaterMark(this, options, "readableHighWaterMark", true) : null;
  if (readableHighWaterMark === 0) {
    options = { ...options, highWaterMark: null, readableHighWaterMark, writableHighWaterMark: options.writableHighWaterMark || 0 };
  }
  Duplex.call(this, options);
  this._readableState.sync = false;
  this[kCallback] = null;
  if (options) {
    if (typeof options.transform === "function") this._transform = options.transform;
    if (typeof options.flush === "function") this._flush = options.flush;
  }
  this.on("prefinish", transformPrefinish);
}
Object.setPrototypeOf(Transform.prototype, Duplex.prototype);
Object.setPrototypeOf(Transform, Duplex);

function transformFinal(cb) {
  if (typeof this._flush === "function" && !this.destroyed) {
    this._flush((er, data) => {
      if (er) {
        if (cb) cb(er);
        else this.destroy(er);
        return;
      }
      if (data != null) this.push(data);
      this.push(null);
      if (cb) cb();
    });
  } else {
    this.push(null);
    if (cb) cb();
  }
}
function transformPrefinish() {
  if (this._final !== transformFinal) transformFinal.call(this);
}
Transform.prototype._final = transformFinal;

Transform.prototype._transform = function () {
  throw E.notImplemented("_transform()");
};

Transform.prototype._write = function (chunk, encoding, callback) {
  const rState = this._readableState;
  const wState = this._writableState;
  const length = rState.length;
  this._transform(chunk, encoding, (err, val) => {
    if (err) {
      callback(err);
      return;
    }
    if (val != null) this.push(val);
    if (rState.ended) {
      nextTick(callback);
    } else if (wState.ended || length === rState.length || rState.length < rState.highWaterMark) {
      callback();
    } else {
      // The readable side is full: take the next chunk when it is read.
      this[kCallback] = callback;
    }
  });
};

Transform.prototype._read = function () {
  if (this[kCallback]) {
    const callback = this[kCallback];
    this[kCallback] = null;
    callback();
  }
};

export { transformFinal, transformPrefinish };
