// `v8.serialize`/`v8.deserialize` in V8's value-serialization format (version 15), with the
// typed arrays, DataViews and Buffers written as Node's DefaultSerializer writes them (as host
// objects: a type index, the byte length and the bytes). So the bytes are Node's, byte for byte,
// for the values a plugin sends: data Node wrote reads here and the other way round.
//
// Written in JS instead of handing the bytes to the engine's own deserializer: that one is
// QuickJS's object reader on the QuickJS engine, which trusts its input (it reads raw pointers for
// shared buffers), and `v8.deserialize` takes whatever bytes a plugin gives it. Here every read
// is bounds-checked and the worst a bad input can do is throw "Unable to deserialize cloned data."
import { Buffer } from "node:buffer";

const VERSION = 15;

// Node's `arrayBufferViewTypes` order; 10 is Buffer.
const VIEW_TYPES = [
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, DataView, Buffer, BigInt64Array, BigUint64Array,
];

const ERROR_TAGS = new Map([
  [EvalError.prototype, "E"], [RangeError.prototype, "R"], [ReferenceError.prototype, "F"],
  [SyntaxError.prototype, "S"], [TypeError.prototype, "T"], [URIError.prototype, "U"],
]);
const ERROR_CLASSES = { E: EvalError, R: RangeError, F: ReferenceError, S: SyntaxError, T: TypeError, U: URIError };

const REGEXP_FLAGS = [["g", 1], ["i", 2], ["m", 4], ["y", 8], ["u", 16], ["s", 32], ["d", 128], ["v", 256]];

const code = (ch) => ch.charCodeAt(0);

function cloneError(value) {
  let text;
  if (typeof value === "function") text = Function.prototype.toString.call(value);
  else if (typeof value === "symbol") text = value.toString();
  else text = `#<${value?.constructor?.name ?? "Object"}>`;
  return new Error(`${text} could not be cloned.`);
}

class Writer {
  bytes = new Uint8Array(64);
  length = 0;
  ids = new Map();

  reserve(n) {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
  byte(b) { this.reserve(1); this.bytes[this.length++] = b; }
  tag(ch) { this.byte(code(ch)); }
  raw(bytes) { this.reserve(bytes.length); this.bytes.set(bytes, this.length); this.length += bytes.length; }
  varint(n) {
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      this.byte(b);
    } while (n > 0);
  }
  double(x) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, x, true);
    this.raw(b);
  }
  bigintDigits(value) {
    const negative = value < 0n;
    let magnitude = negative ? -value : value;
    const digits = [];
    while (magnitude > 0n) { digits.push(Number(magnitude & 0xffn)); magnitude >>= 8n; }
    while (digits.length % 8) digits.push(0);
    this.varint(digits.length * 2 + (negative ? 1 : 0));
    this.raw(digits);
  }
  string(s) {
    let oneByte = true;
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) { oneByte = false; break; }
    if (oneByte) {
      this.tag('"');
      this.varint(s.length);
      const b = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
      this.raw(b);
      return;
    }
    const byteLength = s.length * 2;
    // The two-byte data starts at an even offset: a padding byte when it would not.
    if ((this.length + 1 + varintSize(byteLength)) & 1) this.byte(0);
    this.tag("c");
    this.varint(byteLength);
    const b = new Uint8Array(byteLength);
    for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); b[2 * i] = c & 0xff; b[2 * i + 1] = c >> 8; }
    this.raw(b);
  }
  number(x) {
    if (Number.isInteger(x) && x >= -(2 ** 31) && x < 2 ** 31 && !Object.is(x, -0)) {
      this.tag("I");
      this.varint(x >= 0 ? x * 2 : -x * 2 - 1); // zigzag
    } else {
      this.tag("N");
      this.double(x);
    }
  }
  key(k) {
    const n = Number(k);
    if (String(n) === k && Number.isInteger(n) && n >= 0 && n < 2 ** 32 - 1) this.number(n);
    else this.string(k);
  }
  properties(object, keys) {
    for (const k of keys) {
      this.key(k);
      this.value(object[k]);
    }
    return keys.length;
  }

  value(v) {
    switch (typeof v) {
      case "undefined": return this.tag("_");
      case "boolean": return this.tag(v ? "T" : "F");
      case "number": return this.number(v);
      case "bigint": this.tag("Z"); return this.bigintDigits(v);
      case "string": return this.string(v);
      case "symbol": case "function": throw cloneError(v);
    }
    if (v === null) return this.tag("0");
    const seen = this.ids.get(v);
    if (seen !== undefined) { this.tag("^"); return this.varint(seen); }
    this.receiver(v);
  }

  receiver(v) {
    if (isProxy(v)) throw cloneError(v);
    const id = this.ids.size;
    this.ids.set(v, id);
    if (ArrayBuffer.isView(v)) {
      let index = v.constructor === Buffer || v instanceof Buffer ? 10 : VIEW_TYPES.indexOf(Object.getPrototypeOf(v).constructor);
      if (index < 0) index = VIEW_TYPES.findIndex((T) => T !== Buffer && v instanceof T);
      if (index < 0) throw cloneError(v);
      this.tag("\\");
      this.varint(index);
      this.varint(v.byteLength);
      return this.raw(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    }
    if (v instanceof ArrayBuffer) {
      this.tag("B");
      this.varint(v.byteLength);
      return this.raw(new Uint8Array(v));
    }
    if (Array.isArray(v)) return this.array(v);
    if (v instanceof Date) { this.tag("D"); return this.double(v.getTime()); }
    if (v instanceof RegExp) {
      this.tag("R");
      this.string(v.source);
      let flags = 0;
      for (const [ch, bit] of REGEXP_FLAGS) if (v.flags.includes(ch)) flags |= bit;
      return this.varint(flags);
    }
    if (v instanceof Map) {
      this.tag(";");
      const entries = [...v];
      for (const [k, value] of entries) { this.value(k); this.value(value); }
      this.tag(":");
      return this.varint(entries.length * 2);
    }
    if (v instanceof Set) {
      this.tag("'");
      const items = [...v];
      for (const item of items) this.value(item);
      this.tag(",");
      return this.varint(items.length);
    }
    if (v instanceof Error) return this.error(v);
    const boxed = boxedKind(v);
    if (boxed === "number") { this.tag("n"); return this.double(Number.prototype.valueOf.call(v)); }
    if (boxed === "string") { this.tag("s"); return this.string(String.prototype.valueOf.call(v)); }
    if (boxed === "boolean") return this.tag(Boolean.prototype.valueOf.call(v) ? "y" : "x");
    if (boxed === "bigint") { this.tag("z"); return this.bigintDigits(BigInt.prototype.valueOf.call(v)); }
    if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet || v instanceof WeakRef
      || (typeof SharedArrayBuffer === "function" && v instanceof SharedArrayBuffer)) {
      throw cloneError(v);
    }
    this.tag("o");
    const count = this.properties(v, Object.keys(v));
    this.tag("{");
    this.varint(count);
  }

  array(v) {
    const length = v.length;
    let holey = false;
    for (let i = 0; i < length; i++) if (!Object.hasOwn(v, i)) { holey = true; break; }
    const extra = Object.keys(v).filter((k) => !isIndex(k));
    if (!holey) {
      this.tag("A");
      this.varint(length);
      for (let i = 0; i < length; i++) this.value(v[i]);
      const count = this.properties(v, extra);
      this.tag("$");
      this.varint(count);
      return this.varint(length);
    }
    this.tag("a");
    this.varint(length);
    const count = this.properties(v, Object.keys(v));
    this.tag("@");
    this.varint(count);
    this.varint(length);
  }

  error(v) {
    this.tag("r");
    const tag = ERROR_TAGS.get(Object.getPrototypeOf(v));
    if (tag) this.tag(tag);
    const message = Object.getOwnPropertyDescriptor(v, "message");
    if (message && "value" in message) { this.tag("m"); this.string(String(message.value)); }
    if (Object.hasOwn(v, "cause")) { this.tag("c"); this.value(v.cause); }
    const stack = v.stack;
    if (typeof stack === "string") { this.tag("s"); this.string(stack); }
    this.tag(".");
  }
}

function varintSize(n) {
  let size = 1;
  while (n >= 128) { n = Math.floor(n / 128); size++; }
  return size;
}

function isIndex(k) {
  const n = Number(k);
  return String(n) === k && Number.isInteger(n) && n >= 0 && n < 2 ** 32 - 1;
}

const IS_PROXY = Symbol.for("paseo.isProxy");
const isProxy = (v) => globalThis[IS_PROXY]?.(v) === true;

function boxedKind(v) {
  for (const [kind, valueOf] of [["number", Number], ["string", String], ["boolean", Boolean], ["bigint", BigInt]]) {
    try {
      valueOf.prototype.valueOf.call(v);
      return kind;
    } catch {}
  }
  return undefined;
}

export function serialize(value) {
  const w = new Writer();
  w.byte(0xff);
  w.varint(VERSION);
  w.value(value);
  return Buffer.from(w.bytes.buffer, 0, w.length);
}

class Malformed extends Error {}
const fail = () => { throw new Malformed(); };

class Reader {
  objects = [];
  constructor(bytes) { this.bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength); this.pos = 0; }
  byte() { if (this.pos >= this.bytes.length) fail(); return this.bytes[this.pos++]; }
  varint() {
    let n = 0, scale = 1, b;
    do {
      b = this.byte();
      n += (b & 0x7f) * scale;
      scale *= 128;
      if (scale > 2 ** 63) fail();
    } while (b & 0x80);
    return n;
  }
  take(n) {
    if (!Number.isSafeInteger(n) || n < 0 || this.pos + n > this.bytes.length) fail();
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  double() { const b = this.take(8); return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true); }
  bigint() {
    const field = this.varint();
    const digits = this.take(Math.floor(field / 2));
    let n = 0n;
    for (let i = digits.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(digits[i]);
    return field & 1 ? -n : n;
  }
  oneByteString() {
    const b = this.take(this.varint());
    let s = "";
    for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
    return s;
  }
  twoByteString() {
    const length = this.varint();
    if (length % 2) fail();
    const b = this.take(length);
    let s = "";
    for (let i = 0; i < b.length; i += 2) s += String.fromCharCode(b[i] | (b[i + 1] << 8));
    return s;
  }
  string() {
    const value = this.value();
    if (typeof value !== "string") fail();
    return value;
  }
  remember(object) { this.objects.push(object); return object; }

  value() {
    const tag = String.fromCharCode(this.byte());
    switch (tag) {
      case "\0": return this.value(); // padding
      case "?": this.varint(); return this.value(); // object count check, unused
      case "_": return undefined;
      case "0": return null;
      case "T": return true;
      case "F": return false;
      case "I": { const z = this.varint(); return z % 2 ? -(z + 1) / 2 : z / 2; }
      case "U": return this.varint();
      case "N": return this.double();
      case "Z": return this.bigint();
      case '"': return this.oneByteString();
      case "c": return this.twoByteString();
      case "S": return new TextDecoder().decode(this.take(this.varint()));
      case "^": { const id = this.varint(); if (id >= this.objects.length) fail(); return this.objects[id]; }
      case "o": return this.properties(this.remember({}), "{");
      case "A": {
        const length = this.varint();
        if (length > this.bytes.length - this.pos) fail();
        const array = this.remember(new Array(length));
        for (let i = 0; i < length; i++) {
          if (this.bytes[this.pos] === code("-")) { this.pos++; continue; } // a hole
          array[i] = this.value();
        }
        this.properties(array, "$");
        this.varint();
        return array;
      }
      case "a": {
        const array = this.remember(new Array(this.varint()));
        this.properties(array, "@");
        this.varint();
        return array;
      }
      case "D": return this.remember(new Date(this.double()));
      case "y": return this.remember(Object(true));
      case "x": return this.remember(Object(false));
      case "n": return this.remember(Object(this.double()));
      case "z": return this.remember(Object(this.bigint()));
      case "s": { const id = this.objects.push(undefined) - 1; return (this.objects[id] = Object(this.string())); }
      case "R": {
        const id = this.objects.push(undefined) - 1;
        const source = this.string();
        const bits = this.varint();
        const flags = REGEXP_FLAGS.filter(([, bit]) => bits & bit).map(([ch]) => ch).join("");
        let re;
        try { re = new RegExp(source, flags); } catch { fail(); }
        return (this.objects[id] = re);
      }
      case ";": {
        const map = this.remember(new Map());
        let count = 0;
        while (this.bytes[this.pos] !== code(":")) { map.set(this.value(), this.value()); count += 2; }
        this.pos++;
        if (this.varint() !== count) fail();
        return map;
      }
      case "'": {
        const set = this.remember(new Set());
        let count = 0;
        while (this.bytes[this.pos] !== code(",")) { set.add(this.value()); count++; }
        this.pos++;
        if (this.varint() !== count) fail();
        return set;
      }
      case "B": {
        const buffer = this.take(this.varint()).slice().buffer;
        this.remember(buffer);
        if (this.bytes[this.pos] === code("V")) { this.pos++; return this.view(buffer); }
        return buffer;
      }
      case "\\": {
        const id = this.objects.push(undefined) - 1;
        // Node's DefaultDeserializer reads the index, the length and the bytes, then checks.
        const Type = VIEW_TYPES[this.varint()];
        const length = this.varint();
        if (this.pos + length > this.bytes.length) throw new Error("ReadRawBytes() failed");
        const bytes = this.take(length).slice();
        if (!Type) fail();
        const size = Type.BYTES_PER_ELEMENT ?? 1;
        if (bytes.length % size) fail();
        const view = Type === Buffer ? Buffer.from(bytes.buffer) : new Type(bytes.buffer, 0, bytes.length / size);
        return (this.objects[id] = view);
      }
      case "r": return this.error();
      default: return fail();
    }
  }

  // A view V8 writes after its buffer ('V', subtag, offset, length, flags in version 14+).
  view(buffer) {
    const types = { b: Int8Array, B: Uint8Array, C: Uint8ClampedArray, w: Int16Array, W: Uint16Array,
      d: Int32Array, D: Uint32Array, f: Float32Array, F: Float64Array, q: BigInt64Array, Q: BigUint64Array, "?": DataView };
    const Type = types[String.fromCharCode(this.byte())] ?? fail();
    const offset = this.varint(), length = this.varint();
    this.varint(); // flags
    const size = Type.BYTES_PER_ELEMENT ?? 1;
    if (offset + length > buffer.byteLength || offset % size || length % size) fail();
    return this.remember(new Type(buffer, offset, Type === DataView ? length : length / size));
  }

  properties(object, end) {
    let count = 0;
    while (this.bytes[this.pos] !== code(end)) {
      if (this.pos >= this.bytes.length) fail();
      const key = this.value();
      if (typeof key !== "string" && typeof key !== "number") fail();
      Object.defineProperty(object, key, { value: this.value(), writable: true, enumerable: true, configurable: true });
      count++;
    }
    this.pos++;
    if (this.varint() !== count) fail();
    return object;
  }

  error() {
    const id = this.objects.push(undefined) - 1;
    let Class = Error, message, stack, cause, hasCause = false;
    for (;;) {
      const tag = String.fromCharCode(this.byte());
      if (tag === ".") break;
      if (ERROR_CLASSES[tag]) Class = ERROR_CLASSES[tag];
      else if (tag === "m") message = this.string();
      else if (tag === "s") stack = this.string();
      else if (tag === "c") { cause = this.value(); hasCause = true; }
      else fail();
    }
    const error = hasCause ? new Class(message, { cause }) : new Class(message);
    if (message === undefined) delete error.message;
    if (stack !== undefined) Object.defineProperty(error, "stack", { value: stack, writable: true, configurable: true });
    return (this.objects[id] = error);
  }
}

export function deserialize(bytes) {
  const r = new Reader(bytes);
  try {
    if (bytes.length === 0 || r.byte() !== 0xff) throw new Error("Unable to deserialize cloned data due to invalid or unsupported version.");
    const version = r.varint();
    if (version < 13 || version > VERSION) {
      throw new Error("Unable to deserialize cloned data due to invalid or unsupported version.");
    }
    return r.value();
  } catch (e) {
    if (e instanceof Malformed || e instanceof RangeError) throw new Error("Unable to deserialize cloned data.");
    throw e;
  }
}
