// node:buffer — a pure-JS Buffer (a Uint8Array subclass) with Node's semantics,
// including its own UTF-8/UTF-16LE/latin1/ascii/hex/base64(url) codecs.
// Standalone on purpose: the engine gives us nothing beyond ECMAScript.

// QuickJS-NG caps ArrayBuffers at INT32_MAX bytes and strings at 2^30 - 1
// units; these are also safe (lower) limits under V8.
export const kMaxLength = 2 ** 31 - 1;
export const kStringMaxLength = 2 ** 30 - 1;
export const constants = Object.freeze({ MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: kStringMaxLength });
export let INSPECT_MAX_BYTES = 50;

// ---------------------------------------------------------------- errors

function describe(v) {
  if (v == null) return ` Received ${v}`;
  if (typeof v === 'function') return ` Received function ${v.name}`;
  if (typeof v === 'object') {
    return v.constructor?.name ? ` Received an instance of ${v.constructor.name}` : ` Received ${String(v)}`;
  }
  let s = typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' ? v.toString() : String(v);
  if (typeof v === 'string') s = `'${s.length > 28 ? `${s.slice(0, 25)}...` : s}'`;
  return ` Received type ${typeof v} (${s})`;
}
function nodeError(Ctor, code, msg) {
  const e = new Ctor(msg);
  e.code = code;
  return e;
}
const errArgType = (name, types, v) =>
  nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "${name}" argument must be ${types}.${describe(v)}`);
const errRange = (name, range, v) =>
  nodeError(RangeError, 'ERR_OUT_OF_RANGE',
    `The value of "${name}" is out of range. It must be ${range}. Received ${typeof v === 'bigint' ? `${v}n` : String(v)}`);
const errBounds = () =>
  nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', 'Attempt to access memory outside buffer bounds');
const errEncoding = (enc) => nodeError(TypeError, 'ERR_UNKNOWN_ENCODING', `Unknown encoding: ${enc}`);
const errMissing = (name) => nodeError(TypeError, 'ERR_MISSING_ARGS', `The "${name}" argument must be specified`);
const errArgValue = (name, v) =>
  nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument '${name}' is invalid.${describe(v)}`);
function domError(msg, name) {
  // Node throws a DOMException here; use the global one when the runtime has it.
  if (typeof globalThis.DOMException === 'function') return new globalThis.DOMException(msg, name);
  const e = new Error(msg);
  e.name = name;
  e.code = 5; // legacy INVALID_CHARACTER_ERR
  return e;
}

const U8_ARRAY = 'an instance of Buffer or Uint8Array';
const taTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
const isUint8Array = (v) => taTag.call(v) === 'Uint8Array';
const isTypedArray = (v) => taTag.call(v) !== undefined;
const isAnyArrayBuffer = (v) =>
  v instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer);

function validateNumber(v, name, min, max) {
  if (typeof v !== 'number') throw errArgType(name, 'of type number', v);
  if ((min != null && v < min) || (max != null && v > max) || ((min != null || max != null) && Number.isNaN(v))) {
    throw errRange(name, `${min != null ? `>= ${min}` : ''}${min != null && max != null ? ' && ' : ''}${max != null ? `<= ${max}` : ''}`, v);
  }
}
function validateOffset(v, name, min = 0, max = kMaxLength) {
  if (typeof v !== 'number') throw errArgType(name, 'of type number', v);
  if (!Number.isInteger(v)) throw errRange(name, 'an integer', v);
  if (v < min || v > max) throw errRange(name, `>= ${min} && <= ${max}`, v);
}

// ---------------------------------------------------------------- codecs
// Each codec: len(str) = byte-length estimate, write(dst, str, off, max) =
// bytes written (never a partial character), slice(buf, start, end) = string.

function fromCodes(codes) {
  // String.fromCharCode.apply has an argument-count limit; go in chunks.
  let s = '';
  for (let i = 0; i < codes.length; i += 8192) s += String.fromCharCode.apply(null, codes.slice(i, i + 8192));
  return s;
}

function utf8Length(str) {
  let n = str.length;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 2; i++; }
    else n += 2; // 3 bytes; lone surrogates become U+FFFD (also 3 bytes)
  }
  return n;
}

function utf8Write(dst, str, off, max) {
  const end = off + max;
  let p = off;
  for (let i = 0; i < str.length; i++) {
    let c = str.charCodeAt(i);
    if (c < 0x80) {
      if (p >= end) break;
      dst[p++] = c;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = str.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        if (p + 4 > end) break;
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        dst[p++] = 0xf0 | (c >> 18);
        dst[p++] = 0x80 | ((c >> 12) & 0x3f);
        dst[p++] = 0x80 | ((c >> 6) & 0x3f);
        dst[p++] = 0x80 | (c & 0x3f);
        continue;
      }
      c = 0xfffd; // lone surrogate
    }
    if (c < 0x800) {
      if (p + 2 > end) break;
      dst[p++] = 0xc0 | (c >> 6);
    } else {
      if (p + 3 > end) break;
      dst[p++] = 0xe0 | (c >> 12);
      dst[p++] = 0x80 | ((c >> 6) & 0x3f);
    }
    dst[p++] = 0x80 | (c & 0x3f);
  }
  return p - off;
}

// WHATWG UTF-8 decode: each maximal invalid subsequence becomes one U+FFFD.
function utf8Slice(b, i, end) {
  const out = [];
  while (i < end) {
    const c = b[i++];
    if (c < 0x80) { out.push(c); continue; }
    let need = 0, cp = 0xfffd, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) { need = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; cp = c & 0xf; if (c === 0xe0) lo = 0xa0; else if (c === 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; cp = c & 7; if (c === 0xf0) lo = 0x90; else if (c === 0xf4) hi = 0x8f; }
    for (; need > 0; need--) {
      const n = b[i];
      if (i >= end || n < lo || n > hi) { cp = 0xfffd; break; } // the bad byte is re-read as a lead
      cp = (cp << 6) | (n & 0x3f);
      i++;
      lo = 0x80; hi = 0xbf;
    }
    if (cp > 0xffff) { cp -= 0x10000; out.push(0xd800 | (cp >> 10), 0xdc00 | (cp & 0x3ff)); }
    else out.push(cp);
  }
  return fromCodes(out);
}

function latin1Write(dst, str, off, max) {
  const n = Math.min(str.length, max);
  for (let i = 0; i < n; i++) dst[off + i] = str.charCodeAt(i); // Uint8Array truncates to the low byte
  return n;
}
const latin1Slice = (b, s, e) => fromCodes(Array.from(b.subarray(s, e)));
const asciiSlice = (b, s, e) => fromCodes(Array.from(b.subarray(s, e), (x) => x & 0x7f));

function utf16Write(dst, str, off, max) {
  const n = Math.min(str.length, max >>> 1);
  for (let i = 0; i < n; i++) {
    const c = str.charCodeAt(i);
    dst[off + 2 * i] = c;
    dst[off + 2 * i + 1] = c >>> 8;
  }
  return n * 2;
}
function utf16Slice(b, s, e) {
  const out = new Array((e - s) >>> 1);
  for (let i = 0; i < out.length; i++) out[i] = b[s + 2 * i] | (b[s + 2 * i + 1] << 8);
  return fromCodes(out);
}

const HEX = Array.from({ length: 256 }, (_, i) => (i < 16 ? '0' : '') + i.toString(16));
function hexVal(c) {
  if (c >= 48 && c <= 57) return c - 48;
  c |= 0x20;
  return c >= 97 && c <= 102 ? c - 87 : -1;
}
function hexWrite(dst, str, off, max) {
  // Node stops at the first invalid pair and drops a trailing odd digit.
  const n = Math.min(str.length >>> 1, max);
  for (let i = 0; i < n; i++) {
    // Like Node, only the low byte of each UTF-16 unit is looked at.
    const h = hexVal(str.charCodeAt(2 * i) & 0xff), l = hexVal(str.charCodeAt(2 * i + 1) & 0xff);
    if (h < 0 || l < 0) return i;
    dst[off + i] = (h << 4) | l;
  }
  return n;
}
function hexSlice(b, s, e) {
  let out = '';
  for (let i = s; i < e; i++) out += HEX[b[i]];
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_REV = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_REV[B64.charCodeAt(i)] = B64_REV[B64URL.charCodeAt(i)] = i;

function base64Length(str) {
  let n = str.length;
  if (str.charCodeAt(n - 1) === 0x3d) n--;
  if (n > 1 && str.charCodeAt(n - 1) === 0x3d) n--;
  return (n * 3) >>> 2;
}
function base64Write(dst, str, off, max) {
  // Node's decoder accepts both alphabets, skips any other character
  // (whitespace, junk) and stops at the first '='. Like Node, it only looks
  // at the low byte of each UTF-16 unit.
  const end = off + max;
  let p = off, n = 0, prev = 0;
  for (let i = 0; i < str.length && p < end; i++) {
    const c = str.charCodeAt(i) & 0xff;
    if (c === 0x3d) break;
    const v = c < 128 ? B64_REV[c] : -1;
    if (v < 0) continue;
    switch (n++) {
      case 0: break;
      case 1: dst[p++] = (prev << 2) | (v >> 4); break;
      case 2: dst[p++] = ((prev & 0xf) << 4) | (v >> 2); break;
      case 3: dst[p++] = ((prev & 3) << 6) | v; n = 0;
    }
    prev = v;
  }
  return p - off;
}
function base64Encode(b, s, e, alphabet, pad) {
  let out = '';
  for (; s + 2 < e; s += 3) {
    const x = (b[s] << 16) | (b[s + 1] << 8) | b[s + 2];
    out += alphabet[x >> 18] + alphabet[(x >> 12) & 63] + alphabet[(x >> 6) & 63] + alphabet[x & 63];
  }
  if (e - s === 1) {
    const x = b[s] << 16;
    out += alphabet[x >> 18] + alphabet[(x >> 12) & 63] + (pad ? '==' : '');
  } else if (e - s === 2) {
    const x = (b[s] << 16) | (b[s + 1] << 8);
    out += alphabet[x >> 18] + alphabet[(x >> 12) & 63] + alphabet[(x >> 6) & 63] + (pad ? '=' : '');
  }
  return out;
}

const codecs = {
  utf8: { len: utf8Length, write: utf8Write, slice: utf8Slice },
  utf16le: { len: (s) => s.length * 2, write: utf16Write, slice: utf16Slice },
  latin1: { len: (s) => s.length, write: latin1Write, slice: latin1Slice },
  ascii: { len: (s) => s.length, write: latin1Write, slice: asciiSlice }, // Node writes ascii as latin1
  hex: { len: (s) => s.length >>> 1, write: hexWrite, slice: hexSlice },
  base64: { len: base64Length, write: base64Write, slice: (b, s, e) => base64Encode(b, s, e, B64, true) },
  base64url: { len: base64Length, write: base64Write, slice: (b, s, e) => base64Encode(b, s, e, B64URL, false) },
};

// Canonical encoding name, or undefined. Node matches names case-insensitively.
function encodingName(enc) {
  switch (`${enc}`.toLowerCase()) {
    case 'utf8': case 'utf-8': return 'utf8';
    case 'ucs2': case 'ucs-2': case 'utf16le': case 'utf-16le': return 'utf16le';
    case 'latin1': case 'binary': return 'latin1';
    case 'ascii': case 'hex': case 'base64': case 'base64url': return `${enc}`.toLowerCase();
  }
}
function getCodec(enc) {
  const name = encodingName(enc);
  if (name === undefined) throw errEncoding(enc);
  return codecs[name];
}

// ---------------------------------------------------------------- Buffer

function toInteger(n, dflt) {
  n = +n;
  return !Number.isNaN(n) && n >= Number.MIN_SAFE_INTEGER && n <= Number.MAX_SAFE_INTEGER ? Math.floor(n) : dflt;
}
function adjustOffset(offset, length) {
  offset = Math.trunc(offset);
  if (offset === 0 || Number.isNaN(offset)) return 0;
  if (offset < 0) return Math.max(offset + length, 0);
  return Math.min(offset, length);
}

function fromString(str, enc) {
  const codec = typeof enc !== 'string' || enc.length === 0 ? codecs.utf8 : getCodec(enc);
  const buf = new Buffer(codec.len(str));
  const n = codec.write(buf, str, 0, buf.length);
  return n === buf.length ? buf : buf.subarray(0, n); // len() may overestimate (hex/base64)
}
function fromArrayLike(obj) {
  const buf = new Buffer(obj.length > 0 ? obj.length : 0);
  if (buf.length) buf.set(obj); // converts like Uint8Array does (ToUint8)
  return buf;
}
function fromArrayBuffer(ab, byteOffset, length) {
  byteOffset = byteOffset === undefined ? 0 : +byteOffset || 0;
  const maxLength = ab.byteLength - byteOffset;
  if (maxLength < 0) throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', '"offset" is outside of buffer bounds');
  if (length === undefined) length = maxLength;
  else {
    length = +length;
    if (length > maxLength) throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', '"length" is outside of buffer bounds');
    if (!(length > 0)) length = 0;
  }
  return new Buffer(ab, byteOffset, length);
}

function compareBytes(a, as, ae, b, bs, be) {
  const n = Math.min(ae - as, be - bs);
  for (let i = 0; i < n; i++) {
    if (a[as + i] !== b[bs + i]) return a[as + i] < b[bs + i] ? -1 : 1;
  }
  return ae - as < be - bs ? -1 : ae - as > be - bs ? 1 : 0;
}

function copyBytes(source, target, targetStart, sourceStart, sourceEnd) {
  const nb = Math.min(sourceEnd - sourceStart, target.length - targetStart, source.length - sourceStart);
  if (nb <= 0) return 0;
  target.set(new Uint8Array(source.buffer, source.byteOffset + sourceStart, nb), targetStart);
  return nb;
}

const u8fill = Uint8Array.prototype.fill;

// Node's fill(): numbers use TypedArray#fill; strings/views repeat a pattern.
function fillImpl(buf, value, offset, end, encoding) {
  let codec;
  if (typeof value === 'string') {
    if (offset === undefined || typeof offset === 'string') { encoding = offset; offset = 0; end = buf.length; }
    else if (typeof end === 'string') { encoding = end; end = buf.length; }
    const name = encoding == null || encoding === '' ? 'utf8' : encodingName(encoding);
    if (name === undefined) {
      if (typeof encoding !== 'string') throw errArgType('encoding', 'of type string', encoding);
      throw errEncoding(encoding);
    }
    codec = codecs[name];
    if (value.length === 0) value = 0;
    else if (value.length === 1 && name === 'latin1') value = value.charCodeAt(0);
    else if (value.length === 1 && name === 'utf8' && value.charCodeAt(0) < 128) value = value.charCodeAt(0);
  }
  if (offset === undefined) { offset = 0; end = buf.length; }
  else {
    validateOffset(offset, 'offset');
    if (end === undefined) end = buf.length;
    else validateOffset(end, 'end', 0, buf.length);
    if (offset >= end) return buf;
  }
  if (typeof value === 'number') {
    if (end > buf.length) throw errBounds();
    return u8fill.call(buf, value, offset, end);
  }
  let n;
  if (typeof value === 'string') {
    if (codec === codecs.utf8 || codec === codecs.utf16le) {
      // Node copies the whole encoding here, so a pattern may end mid-character.
      const bytes = fromString(value, codec === codecs.utf8 ? 'utf8' : 'utf16le');
      n = bytes.length;
      buf.set(bytes.subarray(0, end - offset), offset);
    } else {
      n = codec.write(buf, value, offset, end - offset);
    }
  } else if (ArrayBuffer.isView(value)) {
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    n = bytes.length;
    buf.set(bytes.subarray(0, end - offset), offset);
  } else {
    return u8fill.call(buf, (value >>> 0) & 255, offset, end); // booleans, objects: Node coerces to uint32
  }
  if (n === 0) throw errArgValue('value', value);
  for (let p = offset + n; p < end; p += n) buf.copyWithin(p, offset, Math.min(offset + n, offset + end - p));
  return buf;
}

// Node's IndexOfOffset(): where a search starts, or -1 for "no match possible".
function searchStart(length, offset, needleLength, forward) {
  if (offset < 0) {
    if (offset + length >= 0) return length + offset;
    return forward || needleLength === 0 ? 0 : -1;
  }
  if (offset + needleLength <= length) return offset;
  if (needleLength === 0) return length;
  return forward ? -1 : length - 1;
}
function searchBytes(hay, hayLen, needle, start, forward, step) {
  const nl = needle.length;
  const last = hayLen - nl;
  const matches = (i) => {
    for (let j = 0; j < nl; j++) if (hay[i + j] !== needle[j]) return false;
    return true;
  };
  if (forward) {
    for (let i = start - (start % step); i <= last; i += step) if (matches(i)) return i;
  } else {
    for (let i = Math.min(start, last); i >= 0; i--) if (i % step === 0 && matches(i)) return i;
  }
  return -1;
}
function indexOfImpl(buf, val, byteOffset, encoding, forward) {
  if (typeof byteOffset === 'string') { encoding = byteOffset; byteOffset = undefined; }
  else if (byteOffset > 0x7fffffff) byteOffset = 0x7fffffff;
  else if (byteOffset < -0x80000000) byteOffset = -0x80000000;
  byteOffset = +byteOffset; // null and [] become 0
  if (Number.isNaN(byteOffset)) byteOffset = forward ? 0 : buf.length;
  byteOffset = Math.trunc(byteOffset);

  // UTF-16 searches run over whole code units only, like Node's (not for numbers).
  const ucs2 = typeof val !== 'number' && encoding !== undefined && encodingName(encoding) === 'utf16le';
  const needleIsString = typeof val === 'string';
  if (typeof val === 'number') val = Uint8Array.of(val >>> 0);
  else if (typeof val === 'string') {
    if (encoding !== undefined) getCodec(encoding);
    val = fromString(val, encoding);
  } else if (!isUint8Array(val)) {
    throw errArgType('value', 'one of type number or string or an instance of Buffer or Uint8Array', val);
  }
  const hayLen = ucs2 ? buf.length & ~1 : buf.length;
  // Node rounds the length used for the start offset only for string needles.
  const start = searchStart(needleIsString ? hayLen : buf.length, byteOffset, val.length, forward);
  if (val.length === 0) return start;
  if (start < 0 || hayLen === 0 || val.length > hayLen || (forward && start + val.length > hayLen)) return -1;
  if (ucs2 && val.length < 2) return -1;
  return searchBytes(buf, hayLen, ucs2 ? val.subarray(0, val.length & ~1) : val, start, forward, ucs2 ? 2 : 1);
}

// Fixed-width integer access. Range and bounds checks mirror Node's messages.
function checkBounds(buf, offset, size) {
  if (typeof offset !== 'number') throw errArgType('offset', 'of type number', offset);
  if (offset + size > buf.length || offset < 0 || Math.floor(offset) !== offset) {
    if (Math.floor(offset) !== offset) throw errRange('offset', 'an integer', offset);
    if (buf.length - size < 0) throw errBounds();
    throw errRange('offset', `>= 0 and <= ${buf.length - size}`, offset);
  }
}
function checkValue(value, min, max, size) {
  if (value > max || value < min) {
    const n = typeof min === 'bigint' ? 'n' : '';
    const range = size <= 4 ? `>= ${min}${n} and <= ${max}${n}`
      : min == 0 ? `>= 0${n} and < 2${n} ** ${size * 8}${n}`
        : `>= -(2${n} ** ${size * 8 - 1}${n}) and < 2 ** ${size * 8 - 1}${n}`;
    throw errRange('value', range, value);
  }
}
function readIntAt(b, o, size, le, signed) {
  let v = 0;
  for (let i = 0; i < size; i++) v = v * 256 + b[le ? o + size - 1 - i : o + i];
  return signed && v >= 2 ** (size * 8 - 1) ? v - 2 ** (size * 8) : v;
}
function writeIntAt(b, v, o, size, le) {
  // Like Node: low 32 bits via ToUint32, the rest via floor division.
  const lo = v >>> 0, hi = Math.floor(v / 2 ** 32) >>> 0;
  for (let i = 0; i < size; i++) b[le ? o + i : o + size - 1 - i] = i < 4 ? lo >>> (8 * i) : hi >>> (8 * (i - 4));
  return o + size;
}
function checkByteLength(byteLength) {
  if (!(Number.isInteger(byteLength) && byteLength >= 1 && byteLength <= 6)) {
    if (Math.floor(byteLength) !== byteLength) {
      validateNumber(byteLength, 'byteLength');
      throw errRange('byteLength', 'an integer', byteLength);
    }
    throw errRange('byteLength', '>= 1 and <= 6', byteLength);
  }
}

const f32 = new Float32Array(1), f64 = new Float64Array(1);
const f32b = new Uint8Array(f32.buffer), f64b = new Uint8Array(f64.buffer);
const hostLE = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

export class Buffer extends Uint8Array {
  // `new Buffer(x)` is deprecated in Node, but TypedArray methods (subarray,
  // map, filter, Buffer.of) construct through here via @@species.
  constructor(arg, encodingOrOffset, length) {
    if (typeof arg === 'string') return fromString(arg, encodingOrOffset);
    super(arg, encodingOrOffset, length);
  }

  static from(value, encodingOrOffset, length) {
    if (typeof value === 'string') return fromString(value, encodingOrOffset);
    if (typeof value === 'object' && value !== null) {
      if (isAnyArrayBuffer(value)) return fromArrayBuffer(value, encodingOrOffset, length);
      const prim = value.valueOf && value.valueOf();
      if (prim != null && prim !== value && (typeof prim === 'string' || typeof prim === 'object')) {
        return Buffer.from(prim, encodingOrOffset, length);
      }
      if (value.length !== undefined || isAnyArrayBuffer(value.buffer)) {
        return typeof value.length === 'number' ? fromArrayLike(value) : new Buffer(0);
      }
      if (value.type === 'Buffer' && Array.isArray(value.data)) return fromArrayLike(value.data);
      if (typeof value[Symbol.toPrimitive] === 'function') {
        const p = value[Symbol.toPrimitive]('string');
        if (typeof p === 'string') return fromString(p, encodingOrOffset);
      }
    }
    throw errArgType('first argument',
      'of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object', value);
  }
  static copyBytesFrom(view, offset, length) {
    if (!isTypedArray(view)) throw errArgType('view', 'an instance of TypedArray', view);
    const len = view.length;
    if (len === 0) return new Buffer(0);
    let start = 0, end = len;
    if (offset !== undefined) {
      validateOffset(offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
      if (offset >= len) return new Buffer(0);
      start = offset;
    }
    if (length !== undefined) {
      validateOffset(length, 'length', 0, Number.MAX_SAFE_INTEGER);
      end = Math.min(start + length, len);
    }
    const per = view.BYTES_PER_ELEMENT;
    return fromArrayLike(new Uint8Array(view.buffer, view.byteOffset + start * per, (end - start) * per));
  }
  static alloc(size, fill, encoding) {
    validateNumber(size, 'size', 0, kMaxLength);
    const buf = new Buffer(size);
    return fill !== undefined && fill !== 0 && size > 0 ? fillImpl(buf, fill, 0, buf.length, encoding) : buf;
  }
  // No pooling or uninitialised memory here: "unsafe" buffers are zero-filled.
  static allocUnsafe(size) {
    validateNumber(size, 'size', 0, kMaxLength);
    return new Buffer(size);
  }
  static allocUnsafeSlow(size) {
    return Buffer.allocUnsafe(size);
  }
  static isBuffer(b) {
    return b instanceof Buffer;
  }
  static isEncoding(enc) {
    return typeof enc === 'string' && enc.length !== 0 && encodingName(enc) !== undefined;
  }
  static byteLength(string, encoding) {
    if (typeof string !== 'string') {
      if (ArrayBuffer.isView(string) || isAnyArrayBuffer(string)) return string.byteLength;
      throw errArgType('string', 'of type string or an instance of Buffer or ArrayBuffer', string);
    }
    if (string.length === 0) return 0;
    const name = encoding ? encodingName(encoding) : 'utf8';
    return codecs[name ?? 'utf8'].len(string); // unknown encodings count as utf8, like Node
  }
  static compare(buf1, buf2) {
    if (!isUint8Array(buf1)) throw errArgType('buf1', U8_ARRAY, buf1);
    if (!isUint8Array(buf2)) throw errArgType('buf2', U8_ARRAY, buf2);
    return buf1 === buf2 ? 0 : compareBytes(buf1, 0, buf1.length, buf2, 0, buf2.length);
  }
  static concat(list, length) {
    if (!Array.isArray(list)) throw errArgType('list', 'an instance of Array', list);
    if (list.length === 0) return new Buffer(0);
    if (length === undefined) {
      length = 0;
      for (const b of list) if (b.length) length += b.length;
    } else {
      validateOffset(length, 'length');
    }
    const out = new Buffer(length);
    let pos = 0;
    for (let i = 0; i < list.length; i++) {
      if (!isUint8Array(list[i])) throw errArgType(`list[${i}]`, U8_ARRAY, list[i]);
      pos += copyBytes(list[i], out, pos, 0, list[i].length);
    }
    return out;
  }

  toString(encoding, start, end) {
    const len = this.length;
    if (arguments.length === 0) return utf8Slice(this, 0, len);
    if (start <= 0) start = 0;
    else if (start >= len) return '';
    else start = Math.trunc(start) || 0;
    if (end === undefined || end > len) end = len;
    else end = Math.trunc(end) || 0;
    if (end <= start) return '';
    return encoding === undefined ? utf8Slice(this, start, end) : getCodec(encoding).slice(this, start, end);
  }
  toJSON() {
    return { type: 'Buffer', data: Array.from(this) };
  }
  equals(otherBuffer) {
    if (!isUint8Array(otherBuffer)) throw errArgType('otherBuffer', U8_ARRAY, otherBuffer);
    return this === otherBuffer || compareBytes(this, 0, this.length, otherBuffer, 0, otherBuffer.length) === 0;
  }
  compare(target, targetStart, targetEnd, sourceStart, sourceEnd) {
    if (!isUint8Array(target)) throw errArgType('target', U8_ARRAY, target);
    if (arguments.length === 1) return compareBytes(this, 0, this.length, target, 0, target.length);
    if (targetStart === undefined) targetStart = 0;
    else validateOffset(targetStart, 'targetStart');
    if (targetEnd === undefined) targetEnd = target.length;
    else validateOffset(targetEnd, 'targetEnd', 0, target.length);
    if (sourceStart === undefined) sourceStart = 0;
    else validateOffset(sourceStart, 'sourceStart');
    if (sourceEnd === undefined) sourceEnd = this.length;
    else validateOffset(sourceEnd, 'sourceEnd', 0, this.length);
    if (sourceStart >= sourceEnd) return targetStart >= targetEnd ? 0 : -1;
    if (targetStart >= targetEnd) return 1;
    return compareBytes(this, sourceStart, sourceEnd, target, targetStart, targetEnd);
  }
  copy(target, targetStart, sourceStart, sourceEnd) {
    if (!isUint8Array(target)) throw errArgType('target', U8_ARRAY, target);
    targetStart = targetStart === undefined ? 0 : toInteger(targetStart, 0);
    if (targetStart < 0) throw errRange('targetStart', '>= 0', targetStart);
    sourceStart = sourceStart === undefined ? 0 : toInteger(sourceStart, 0);
    if (sourceStart < 0 || sourceStart > this.length) {
      throw errRange('sourceStart', `>= 0 && <= ${this.length}`, sourceStart);
    }
    sourceEnd = sourceEnd === undefined ? this.length : toInteger(sourceEnd, 0);
    if (sourceEnd < 0) throw errRange('sourceEnd', '>= 0', sourceEnd);
    if (targetStart >= target.length || sourceStart >= sourceEnd) return 0;
    return copyBytes(this, target, targetStart, sourceStart, sourceEnd);
  }
  // Both return views on the same memory (Node's slice is not a copy).
  subarray(start, end) {
    const len = this.length;
    start = adjustOffset(start, len);
    end = end === undefined ? len : adjustOffset(end, len);
    return new Buffer(this.buffer, this.byteOffset + start, end > start ? end - start : 0);
  }
  slice(start, end) {
    return this.subarray(start, end);
  }
  write(string, offset, length, encoding) {
    if (typeof string !== 'string') throw errArgType('argument', 'of type string', string);
    if (offset === undefined) return utf8Write(this, string, 0, this.length);
    if (length === undefined && typeof offset === 'string') {
      encoding = offset;
      length = this.length;
      offset = 0;
    } else {
      validateOffset(offset, 'offset', 0, this.length);
      const remaining = this.length - offset;
      if (length === undefined) length = remaining;
      else if (typeof length === 'string') { encoding = length; length = remaining; }
      else {
        validateOffset(length, 'length', 0, this.length);
        if (length > remaining) length = remaining;
      }
    }
    return (encoding ? getCodec(encoding) : codecs.utf8).write(this, string, offset, length);
  }
  fill(value, offset, end, encoding) {
    return fillImpl(this, value, offset, end, encoding);
  }
  indexOf(value, byteOffset, encoding) {
    return indexOfImpl(this, value, byteOffset, encoding, true);
  }
  lastIndexOf(value, byteOffset, encoding) {
    return indexOfImpl(this, value, byteOffset, encoding, false);
  }
  includes(value, byteOffset, encoding) {
    return this.indexOf(value, byteOffset, encoding) !== -1;
  }

  readUIntLE(offset, byteLength) { return readVar(this, offset, byteLength, true, false); }
  readUIntBE(offset, byteLength) { return readVar(this, offset, byteLength, false, false); }
  readIntLE(offset, byteLength) { return readVar(this, offset, byteLength, true, true); }
  readIntBE(offset, byteLength) { return readVar(this, offset, byteLength, false, true); }
  writeUIntLE(value, offset, byteLength) { return writeVar(this, value, offset, byteLength, true, false); }
  writeUIntBE(value, offset, byteLength) { return writeVar(this, value, offset, byteLength, false, false); }
  writeIntLE(value, offset, byteLength) { return writeVar(this, value, offset, byteLength, true, true); }
  writeIntBE(value, offset, byteLength) { return writeVar(this, value, offset, byteLength, false, true); }

  readBigUInt64LE(offset = 0) { return readBig(this, offset, true, false); }
  readBigUInt64BE(offset = 0) { return readBig(this, offset, false, false); }
  readBigInt64LE(offset = 0) { return readBig(this, offset, true, true); }
  readBigInt64BE(offset = 0) { return readBig(this, offset, false, true); }
  writeBigUInt64LE(value, offset = 0) { return writeBig(this, value, offset, true, false); }
  writeBigUInt64BE(value, offset = 0) { return writeBig(this, value, offset, false, false); }
  writeBigInt64LE(value, offset = 0) { return writeBig(this, value, offset, true, true); }
  writeBigInt64BE(value, offset = 0) { return writeBig(this, value, offset, false, true); }

  readFloatLE(offset = 0) { return readFloat(this, offset, f32, f32b, true); }
  readFloatBE(offset = 0) { return readFloat(this, offset, f32, f32b, false); }
  readDoubleLE(offset = 0) { return readFloat(this, offset, f64, f64b, true); }
  readDoubleBE(offset = 0) { return readFloat(this, offset, f64, f64b, false); }
  writeFloatLE(value, offset = 0) { return writeFloat(this, value, offset, f32, f32b, true); }
  writeFloatBE(value, offset = 0) { return writeFloat(this, value, offset, f32, f32b, false); }
  writeDoubleLE(value, offset = 0) { return writeFloat(this, value, offset, f64, f64b, true); }
  writeDoubleBE(value, offset = 0) { return writeFloat(this, value, offset, f64, f64b, false); }

  swap16() { return swap(this, 2); }
  swap32() { return swap(this, 4); }
  swap64() { return swap(this, 8); }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    const max = Math.min(INSPECT_MAX_BYTES, this.length);
    let str = hexSlice(this, 0, max).replace(/(.{2})/g, '$1 ').trim();
    const remaining = this.length - INSPECT_MAX_BYTES;
    if (remaining > 0) str += ` ... ${remaining} more byte${remaining > 1 ? 's' : ''}`;
    return `<${this.constructor.name} ${str}>`;
  }
}
Buffer.prototype.toLocaleString = Buffer.prototype.toString;
Buffer.prototype.inspect = Buffer.prototype[Symbol.for('nodejs.util.inspect.custom')];

function readVar(buf, offset, byteLength, le, signed) {
  if (offset === undefined) throw errArgType('offset', 'of type number', offset);
  checkByteLength(byteLength);
  checkBounds(buf, offset, byteLength);
  return readIntAt(buf, offset, byteLength, le, signed);
}
function writeVar(buf, value, offset, byteLength, le, signed) {
  checkByteLength(byteLength);
  if (byteLength === 1 && typeof offset !== 'number') checkBounds(buf, offset, 1); // Node checks this first
  value = +value;
  const bits = byteLength * 8;
  checkValue(value, signed ? -(2 ** (bits - 1)) : 0, signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1, byteLength);
  checkBounds(buf, offset, byteLength);
  return writeIntAt(buf, value, offset, byteLength, le);
}
function readBig(buf, offset, le, signed) {
  checkBounds(buf, offset, 8);
  const hi = readIntAt(buf, le ? offset + 4 : offset, 4, le, false);
  const lo = readIntAt(buf, le ? offset : offset + 4, 4, le, false);
  const v = (BigInt(hi) << 32n) + BigInt(lo);
  return signed ? BigInt.asIntN(64, v) : v;
}
function writeBig(buf, value, offset, le, signed) {
  checkValue(value, signed ? -(2n ** 63n) : 0n, signed ? 2n ** 63n - 1n : 2n ** 64n - 1n, 8);
  checkBounds(buf, offset, 8);
  const lo = Number(value & 0xffffffffn), hi = Number((value >> 32n) & 0xffffffffn); // throws for non-BigInt, as in Node
  writeIntAt(buf, lo, le ? offset : offset + 4, 4, le);
  writeIntAt(buf, hi, le ? offset + 4 : offset, 4, le);
  return offset + 8;
}
function readFloat(buf, offset, arr, bytes, le) {
  const n = bytes.length;
  checkBounds(buf, offset, n);
  for (let i = 0; i < n; i++) bytes[le === hostLE ? i : n - 1 - i] = buf[offset + i];
  return arr[0];
}
function writeFloat(buf, value, offset, arr, bytes, le) {
  const n = bytes.length;
  value = +value;
  checkBounds(buf, offset, n);
  arr[0] = value;
  for (let i = 0; i < n; i++) buf[offset + i] = bytes[le === hostLE ? i : n - 1 - i];
  return offset + n;
}
function swap(buf, size) {
  if (buf.length % size !== 0) {
    throw nodeError(RangeError, 'ERR_INVALID_BUFFER_SIZE', `Buffer size must be a multiple of ${size * 8}-bits`);
  }
  for (let i = 0; i < buf.length; i += size) {
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = buf[a];
      buf[a] = buf[b];
      buf[b] = t;
    }
  }
  return buf;
}

// Fixed-size integer accessors, generated: read/write{U,}Int{8,16,32}{LE,BE}.
for (const size of [1, 2, 4]) {
  for (const signed of [false, true]) {
    for (const le of size === 1 ? [true] : [true, false]) {
      const name = `${signed ? 'Int' : 'UInt'}${size * 8}${size === 1 ? '' : le ? 'LE' : 'BE'}`;
      const bits = size * 8;
      const min = signed ? -(2 ** (bits - 1)) : 0, max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
      Buffer.prototype[`read${name}`] = function (offset = 0) {
        checkBounds(this, offset, size);
        return readIntAt(this, offset, size, le, signed);
      };
      Buffer.prototype[`write${name}`] = function (value, offset = 0) {
        value = +value;
        if (size === 1 && typeof offset !== 'number') checkBounds(this, offset, size); // Node checks this first
        checkValue(value, min, max, size);
        checkBounds(this, offset, size);
        return writeIntAt(this, value, offset, size, le);
      };
    }
  }
}
// Node assigns Buffer's statics as plain functions, in this order: enumerable (safer-buffer
// copies them with a for-in, and without them express's body parsing yields `{}`) and
// constructible (`new Buffer.alloc(0)` works in Node). Class statics are neither.
const statics = ['from', 'copyBytesFrom', 'of', 'alloc', 'allocUnsafe', 'allocUnsafeSlow',
  'isBuffer', 'compare', 'isEncoding', 'concat', 'byteLength'];
const methods = statics.map((name) => Buffer[name]);
for (const name of [...statics, 'poolSize']) delete Buffer[name];
Buffer.poolSize = 8192;
for (const [i, name] of statics.entries()) {
  const method = methods[i];
  const plain = { [name]: function (...args) { return Reflect.apply(method, Buffer, args); } }[name];
  Object.defineProperty(plain, 'length', { value: method.length });
  Object.defineProperty(Buffer, name, { value: plain, writable: true, enumerable: true, configurable: true });
}
// Node's legacy encoding-specific helpers (latin1Slice, utf8Write, ...).
for (const [name, codec] of Object.entries({ ...codecs, ucs2: codecs.utf16le })) {
  if (name === 'utf16le') continue;
  Buffer.prototype[`${name}Slice`] = function (start = 0, end = this.length) {
    return codec.slice(this, Math.max(0, start), Math.min(this.length, end));
  };
  Buffer.prototype[`${name}Write`] = function (string, offset = 0, length = this.length - offset) {
    return codec.write(this, string, offset, Math.min(length, this.length - offset));
  };
}
// Node also spells every "UInt" method "Uint".
for (const key of Object.getOwnPropertyNames(Buffer.prototype)) {
  if (key.includes('UInt')) Buffer.prototype[key.replace('UInt', 'Uint')] = Buffer.prototype[key];
}
for (const key of Object.getOwnPropertyNames(Buffer.prototype)) {
  if (key === 'constructor') continue;
  Object.defineProperty(Buffer.prototype, key, { enumerable: false });
  const fn = Buffer.prototype[key];
  if (!fn.name) Object.defineProperty(fn, 'name', { value: key }); // the generated ones are anonymous
}

export function SlowBuffer(size) {
  return Buffer.allocUnsafeSlow(size);
}

// ---------------------------------------------------------------- helpers

export function btoa(input) {
  if (arguments.length === 0) throw errMissing('input');
  input = `${input}`;
  for (let i = 0; i < input.length; i++) {
    if (input.charCodeAt(i) > 0xff) throw domError('Invalid character', 'InvalidCharacterError');
  }
  return fromString(input, 'latin1').toString('base64');
}

// WHATWG forgiving-base64 decode.
export function atob(input) {
  if (arguments.length === 0) throw errMissing('input');
  let s = `${input}`.replace(/[\t\n\f\r ]+/g, '');
  if (s.length % 4 === 0) s = s.replace(/={1,2}$/, '');
  if (s.length % 4 === 1) throw domError('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
  if (/[^A-Za-z0-9+/]/.test(s)) throw domError('Invalid character', 'InvalidCharacterError');
  return fromString(s, 'base64').toString('latin1');
}

function inputBytes(input) {
  if (isTypedArray(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (isAnyArrayBuffer(input)) return new Uint8Array(input);
  throw errArgType('input', 'an instance of ArrayBuffer, Buffer, or TypedArray', input);
}
export function isAscii(input) {
  return inputBytes(input).every((b) => b < 0x80);
}
export function isUtf8(input) {
  const b = inputBytes(input);
  for (let i = 0; i < b.length;) {
    const c = b[i++];
    if (c < 0x80) continue;
    let need, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) { need = 2; if (c === 0xe0) lo = 0xa0; else if (c === 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; if (c === 0xf0) lo = 0x90; else if (c === 0xf4) hi = 0x8f; }
    else return false;
    for (; need > 0; need--, lo = 0x80, hi = 0xbf) {
      const n = b[i++];
      if (!(n >= lo && n <= hi)) return false;
    }
  }
  return true;
}

// Node's Blob and File are the web globals (this file stays free of imports).
export const Blob = globalThis.Blob;
export const File = globalThis.File;

// No `URL.createObjectURL` here, so no blob: URL names a Blob: Node answers undefined for an
// unknown one too.
export function resolveObjectURL(url) {
  void `${url}`;
  return undefined;
}

const TRANSCODINGS = ["ascii", "latin1", "binary", "ucs2", "ucs-2", "utf16le", "utf-16le", "utf8", "utf-8"];
/** Node's `buffer.transcode`: text re-encoded; a character the target cannot hold becomes `?`. */
export function transcode(source, fromEnc, toEnc) {
  if (!(source instanceof Uint8Array)) throw errArgType("source", "an instance of Buffer or Uint8Array", source);
  const from = String(fromEnc).toLowerCase(), to = String(toEnc).toLowerCase();
  if (!TRANSCODINGS.includes(from) || !TRANSCODINGS.includes(to)) {
    const error = new Error("Unable to transcode Buffer [U_ILLEGAL_ARGUMENT_ERROR]");
    error.code = "U_ILLEGAL_ARGUMENT_ERROR";
    throw error;
  }
  let text = Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString(from);
  const max = to === "ascii" ? 0x7f : to === "latin1" || to === "binary" ? 0xff : Infinity;
  if (max !== Infinity) text = [...text].map((ch) => (ch.codePointAt(0) > max ? "?" : ch)).join("");
  return Buffer.from(text, to);
}

export default {
  Buffer, SlowBuffer, constants, kMaxLength, kStringMaxLength, atob, btoa, isAscii, isUtf8,
  Blob, File, resolveObjectURL, transcode,
  // Settable like Node's require('buffer').INSPECT_MAX_BYTES.
  get INSPECT_MAX_BYTES() { return INSPECT_MAX_BYTES; },
  set INSPECT_MAX_BYTES(n) { INSPECT_MAX_BYTES = n; },
};
