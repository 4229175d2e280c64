// Destruction and (async) construction, shared by both sides.
// Derived from Node.js lib/internal/streams/destroy.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { AbortError, E, aggregateTwoErrors } from "../../internal_errors.js";
import { isDestroyed, isFinished, isRequest, kConstruct, kDestroy, kIsDestroyed, nextTick } from "./utils.js";

function destroy(err, cb) {
  const r = this._readableState, w = this._writableState;
  const s = w || r;
  if (w?.destroyed || r?.destroyed) {
    if (typeof cb === "function") cb();
    return this;
  }
  checkError(err, w, r);
  if (w) w.destroyed = true;
  if (r) r.destroyed = true;
  if (!s.constructed) {
    this.once(kDestroy, function (er) { _destroy(this, aggregateTwoErrors(er, err), cb); });
  } else {
    _destroy(this, err, cb);
  }
  return this;
}

function _destroy(self, err, cb) {
  let called = false;
  function onDestroy(err) {
    if (called) return;
    called = true;
    const r = self._readableState, w = self._writableState;
    checkError(err, w, r);
    if (w) w.closed = true;
    if (r) r.closed = true;
    if (typeof cb === "function") cb(err);
    if (err) nextTick(emitErrorCloseNT, self, err);
    else nextTick(emitCloseNT, self);
  }
  try {
    self._destroy(err || null, onDestroy);
  } catch (e) {
    onDestroy(e);
  }
}

function checkError(err, w, r) {
  if (!err) return;
  if (w && !w.errored) w.errored = err;
  if (r && !r.errored) r.errored = err;
}

function emitErrorCloseNT(self, err) {
  emitErrorNT(self, err);
  emitCloseNT(self);
}
function emitCloseNT(self) {
  const r = self._readableState, w = self._writableState;
  if (w) w.closeEmitted = true;
  if (r) r.closeEmitted = true;
  if (w?.emitClose || r?.emitClose) self.emit("close");
}
function emitErrorNT(self, err) {
  const r = self._readableState, w = self._writableState;
  if (w?.errorEmitted || r?.errorEmitted) return;
  if (w) w.errorEmitted = true;
  if (r) r.errorEmitted = true;
  self.emit("error", err);
}

function undestroy() {
  const r = this._readableState, w = this._writableState;
  if (r) {
    r.constructed = true; r.closed = false; r.closeEmitted = false; r.destroyed = false; r.errored = null;
    r.errorEmitted = false; r.reading = false; r.ended = r.readable === false; r.endEmitted = r.readable === false;
  }
  if (w) {
    w.constructed = true; w.destroyed = false; w.closed = false; w.closeEmitted = false; w.errored = null;
    w.errorEmitted = false; w.finalCalled = false; w.prefinished = false; w.ended = w.writable === false;
    w.ending = w.writable === false; w.finished = w.writable === false;
  }
}

function errorOrDestroy(stream, err, sync) {
  const r = stream._readableState, w = stream._writableState;
  if (w?.destroyed || r?.destroyed) return;
  if (r?.autoDestroy || w?.autoDestroy) {
    stream.destroy(err);
  } else if (err) {
    checkError(err, w, r);
    if (sync) nextTick(emitErrorNT, stream, err);
    else emitErrorNT(stream, err);
  }
}

function construct(stream, cb) {
  if (typeof stream._construct !== "function") return;
  const r = stream._readableState, w = stream._writableState;
  if (r) r.constructed = false;
  if (w) w.constructed = false;
  stream.once(kConstruct, cb);
  if (stream.listenerCount(kConstruct) > 1) return; // Duplex: already scheduled
  nextTick(constructNT, stream);
}
function constructNT(stream) {
  let called = false;
  function onConstruct(err) {
    if (called) {
      errorOrDestroy(stream, err ?? E.multipleCallback());
      return;
    }
    called = true;
    const r = stream._readableState, w = stream._writableState;
    const s = w || r;
    if (r) r.constructed = true;
    if (w) w.constructed = true;
    if (s.destroyed) stream.emit(kDestroy, err);
    else if (err) errorOrDestroy(stream, err, true);
    else nextTick(() => stream.emit(kConstruct));
  }
  try {
    stream._construct((err) => nextTick(onConstruct, err));
  } catch (err) {
    nextTick(onConstruct, err);
  }
}

// Destroys any stream-like thing (used by pipeline and the iterator).
function destroyer(stream, err) {
  if (!stream || isDestroyed(stream)) return;
  if (!err && !isFinished(stream)) err = new AbortError();
  if (isRequest(stream)) stream.abort();
  else if (isRequest(stream.req)) stream.req.abort();
  else if (typeof stream.destroy === "function") stream.destroy(err);
  else if (typeof stream.close === "function") stream.close();
  else if (err) nextTick(() => stream.emit("error", err));
  else nextTick(() => stream.emit("close"));
  if (!stream.destroyed) stream[kIsDestroyed] = true;
}

export { _destroy, checkError, construct, constructNT, destroy, destroyer, emitCloseNT, emitErrorCloseNT, emitErrorNT, errorOrDestroy, undestroy };
