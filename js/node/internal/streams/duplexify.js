// Duplex.from(body): any stream-like body as one Duplex.
// Derived from Node.js lib/internal/streams/duplexify.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { AbortError, E, invalidArgType } from "../../internal_errors.js";
import { destroyer } from "./destroy.js";
import { Duplex } from "./duplex.js";
import { finished } from "./end-of-stream.js";
import { readableFrom } from "./from.js";
import { PassThrough } from "./passthrough.js";
import { Readable } from "./readable.js";
import { isDuplexNodeStream, isIterable, isNodeStream, isReadable, isReadableNodeStream, isWritable, isWritableNodeStream } from "./utils.js";

function duplexify(body, name) {
  if (isDuplexNodeStream(body)) return body;
  if (typeof Blob === "function" && body instanceof Blob) return duplexify(Readable.fromWeb(body.stream()), name);
  if (isReadableNodeStream(body)) return duplexPair({ readable: body });
  if (isWritableNodeStream(body)) return duplexPair({ writable: body });
  if (isNodeStream(body)) return duplexPair({ writable: false, readable: false });
  if (typeof body === "function") {
    // An async generator function of its source: the written chunks go in, what it yields comes out.
    const input = new PassThrough({ objectMode: true, highWaterMark: 1 });
    const output = body(input[Symbol.asyncIterator]());
    if (isIterable(output)) return duplexPair({ readable: Readable.from(output), writable: input });
    if (typeof output?.then === "function") {
      const d = duplexPair({ writable: input });
      output.then(null, (err) => d.destroy(err));
      return d;
    }
    throw E.invalidReturn("Iterable, AsyncIterable or AsyncFunction", name, output);
  }
  if (isIterable(body)) return readableFrom(Duplex, body, { objectMode: true, writable: false });
  if (typeof body?.then === "function") {
    const d = new Duplex({ objectMode: true, writable: false, read() {} });
    body.then((val) => {
      if (val != null) d.push(val);
      d.push(null);
    }, (err) => destroyer(d, err));
    return d;
  }
  if (body && typeof body === "object" && (body.readable !== undefined || body.writable !== undefined)) {
    const readable = body.readable && isReadableNodeStream(body.readable) ? body.readable : body.readable ? duplexify(body.readable) : undefined;
    const writable = body.writable && isWritableNodeStream(body.writable) ? body.writable : body.writable ? duplexify(body.writable) : undefined;
    return duplexPair({ readable, writable });
  }
  throw invalidArgType(name, ["Blob", "ReadableStream", "WritableStream", "Stream", "Iterable", "AsyncIterable", "Function", "{ readable, writable } pair", "Promise"], body);
}

// One Duplex whose writable side writes to `pair.writable` and whose readable side reads `pair.readable`.
function duplexPair(pair) {
  const r = pair.readable && typeof pair.readable.read !== "function" ? Readable.wrap(pair.readable) : pair.readable;
  const w = pair.writable;
  let readable = !!isReadable(r);
  let writable = !!isWritable(w);
  let ondrain, onfinish, onreadable, onclose, d;
  function onfinished(err) {
    const cb = onclose;
    onclose = null;
    if (cb) cb(err);
    else if (err) d.destroy(err);
  }
  d = new Duplex({
    readableObjectMode: !!r?.readableObjectMode,
    writableObjectMode: !!w?.writableObjectMode,
    readable,
    writable,
  });
  if (writable) {
    finished(w, (err) => {
      writable = false;
      if (err) destroyer(r, err);
      onfinished(err);
    });
    d._write = function (chunk, encoding, callback) {
      if (w.write(chunk, encoding)) callback();
      else ondrain = callback;
    };
    d._final = function (callback) {
      w.end();
      onfinish = callback;
    };
    w.on("drain", () => {
      if (ondrain) {
        const cb = ondrain;
        ondrain = null;
        cb();
      }
    });
    w.on("finish", () => {
      if (onfinish) {
        const cb = onfinish;
        onfinish = null;
        cb();
      }
    });
  }
  if (readable) {
    finished(r, (err) => {
      readable = false;
      if (err) destroyer(r, err);
      onfinished(err);
    });
    r.on("readable", () => {
      if (onreadable) {
        const cb = onreadable;
        onreadable = null;
        cb();
      }
    });
    r.on("end", () => d.push(null));
    d._read = function () {
      while (true) {
        const buf = r.read();
        if (buf === null) {
          onreadable = d._read;
          return;
        }
        if (!d.push(buf)) return;
      }
    };
  }
  d._destroy = function (err, callback) {
    if (!err && onclose !== null) err = new AbortError();
    onreadable = ondrain = onfinish = null;
    if (onclose === null) {
      callback(err);
    } else {
      onclose = callback;
      destroyer(w, err);
      destroyer(r, err);
    }
  };
  return d;
}

export { duplexPair, duplexify };
