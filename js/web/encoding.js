// WHATWG Encoding: TextEncoder, TextDecoder (utf-8, utf-16le/be, windows-1252),
// plus atob/btoa. Pure JS, no imports; codecs are duplicated from node/buffer.js
// on purpose so each module stands alone.

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

// Encodes str as UTF-8 into dst (lone surrogates become U+FFFD) without
// splitting a character; returns [UTF-16 units read, bytes written].
function utf8Encode(str, dst) {
  const end = dst.length;
  let p = 0, i = 0;
  for (; i < str.length; i++) {
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
      c = 0xfffd;
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
  return [i, p];
}

// Decoders: (bytes, fatal, stream) -> [string, index of undecoded tail].
// With stream set, an incomplete sequence at the end is left for the next
// call; otherwise it becomes U+FFFD. `fatal` turns any U+FFFD into null.
function utf8Decode(b, fatal, stream) {
  const out = [], end = b.length;
  let i = 0;
  while (i < end) {
    const start = i, c = b[i++];
    if (c < 0x80) { out.push(c); continue; }
    let need = 0, cp = 0xfffd, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) { need = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; cp = c & 0xf; if (c === 0xe0) lo = 0xa0; else if (c === 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; cp = c & 7; if (c === 0xf0) lo = 0x90; else if (c === 0xf4) hi = 0x8f; }
    for (; need > 0; need--) {
      if (i >= end && stream) return [fromCodes(out), start];
      const n = b[i];
      if (i >= end || n < lo || n > hi) { cp = 0xfffd; break; } // the bad byte is re-read as a lead
      cp = (cp << 6) | (n & 0x3f);
      i++;
      lo = 0x80; hi = 0xbf;
    }
    if (cp === 0xfffd && fatal) return null;
    if (cp > 0xffff) { cp -= 0x10000; out.push(0xd800 | (cp >> 10), 0xdc00 | (cp & 0x3ff)); }
    else out.push(cp);
  }
  return [fromCodes(out), end];
}

function utf16Decode(b, fatal, stream, le) {
  const out = [], n = b.length;
  const unit = (i) => (le ? b[i] | (b[i + 1] << 8) : (b[i] << 8) | b[i + 1]);
  let i = 0;
  while (i + 1 < n) {
    const cu = unit(i);
    if (cu < 0xd800 || cu > 0xdfff) { out.push(cu); i += 2; continue; }
    if (cu <= 0xdbff && i + 3 < n) {
      const next = unit(i + 2);
      if (next >= 0xdc00 && next <= 0xdfff) { out.push(cu, next); i += 4; continue; }
    } else if (cu <= 0xdbff) {
      break; // lead surrogate at the end: wait for more, or flush below
    }
    if (fatal) return null;
    out.push(0xfffd); // unpaired surrogate; a following unit is decoded afresh
    i += 2;
  }
  if (i < n && stream) return [fromCodes(out), i];
  if (i < n) {
    // A dangling byte and/or lead surrogate is a single error at end of stream.
    if (fatal) return null;
    out.push(0xfffd);
  }
  return [fromCodes(out), n];
}

// index-windows-1252.txt for 0x80..0x9F; every other byte maps to itself.
const CP1252 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];
const cp1252Decode = (b) => [fromCodes(Array.from(b, (x) => (x >= 0x80 && x < 0xa0 ? CP1252[x - 0x80] : x))), b.length];

const ENCODINGS = {
  'utf-8': ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'],
  'utf-16le': ['csunicode', 'iso-10646-ucs-2', 'ucs-2', 'unicode', 'unicodefeff', 'utf-16', 'utf-16le'],
  'utf-16be': ['unicodefffe', 'utf-16be'],
  'windows-1252': ['ansi_x3.4-1968', 'ascii', 'cp1252', 'cp819', 'csisolatin1', 'ibm819', 'iso-8859-1', 'iso-ir-100',
    'iso8859-1', 'iso88591', 'iso_8859-1', 'iso_8859-1:1987', 'l1', 'latin1', 'us-ascii', 'windows-1252', 'x-cp1252'],
};
const LABELS = new Map();
for (const [name, labels] of Object.entries(ENCODINGS)) for (const l of labels) LABELS.set(l, name);
const DECODERS = {
  'utf-8': utf8Decode,
  'utf-16le': (b, fatal, stream) => utf16Decode(b, fatal, stream, true),
  'utf-16be': (b, fatal, stream) => utf16Decode(b, fatal, stream, false),
  'windows-1252': cp1252Decode,
};

function typeError(code, msg) {
  const e = new TypeError(msg);
  e.code = code; // Node's error codes, for callers that check them
  return e;
}
const taTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

function toBytes(input) {
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && input instanceof SharedArrayBuffer)) {
    return new Uint8Array(input);
  }
  throw typeError('ERR_INVALID_ARG_TYPE',
    'The "input" argument must be an instance of ArrayBuffer, SharedArrayBuffer, or ArrayBufferView.');
}

export class TextEncoder {
  get encoding() {
    return 'utf-8';
  }
  encode(input = '') {
    const str = `${input}`;
    const dst = new Uint8Array(utf8Length(str));
    utf8Encode(str, dst);
    return dst;
  }
  encodeInto(source, destination) {
    if (taTag.call(destination) !== 'Uint8Array') {
      throw typeError('ERR_INVALID_ARG_TYPE', 'The "dest" argument must be an instance of Uint8Array.');
    }
    const [read, written] = utf8Encode(`${source}`, destination);
    return { read, written };
  }
  get [Symbol.toStringTag]() {
    return 'TextEncoder';
  }
}

export class TextDecoder {
  #encoding;
  #fatal;
  #ignoreBOM;
  #pending = new Uint8Array(0); // undecoded tail of the previous streaming call
  #streaming = false; // the previous call had {stream: true}
  #bomSeen = false;

  constructor(label = 'utf-8', options = {}) {
    const name = LABELS.get(`${label}`.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase());
    if (name === undefined) {
      const e = new RangeError(`The "${label}" encoding is not supported`);
      e.code = 'ERR_ENCODING_NOT_SUPPORTED';
      throw e;
    }
    if (options !== undefined && options !== null && typeof options !== 'object') {
      throw typeError('ERR_INVALID_ARG_TYPE', 'The "options" argument must be of type object.');
    }
    this.#encoding = name;
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
  }
  get encoding() {
    return this.#encoding;
  }
  get fatal() {
    return this.#fatal;
  }
  get ignoreBOM() {
    return this.#ignoreBOM;
  }

  decode(input, options = {}) {
    let bytes = input === undefined ? new Uint8Array(0) : toBytes(input);
    if (!this.#streaming) {
      // A call without {stream: true} ended the previous stream: start afresh.
      this.#pending = new Uint8Array(0);
      this.#bomSeen = false;
    }
    const stream = Boolean(options?.stream);
    this.#streaming = stream;
    if (this.#pending.length) {
      const joined = new Uint8Array(this.#pending.length + bytes.length);
      joined.set(this.#pending);
      joined.set(bytes, this.#pending.length);
      bytes = joined;
    }
    const result = DECODERS[this.#encoding](bytes, this.#fatal, stream);
    if (result === null) {
      this.#streaming = false;
      throw typeError('ERR_ENCODING_INVALID_ENCODED_DATA', `The encoded data was not valid for encoding ${this.#encoding}`);
    }
    let [out, used] = result;
    this.#pending = bytes.slice(used);
    // Strip one leading BOM per stream (windows-1252 has none to strip).
    if (!this.#bomSeen && out.length && this.#encoding !== 'windows-1252') {
      this.#bomSeen = true;
      if (!this.#ignoreBOM && out.charCodeAt(0) === 0xfeff) out = out.slice(1);
    }
    return out;
  }
  get [Symbol.toStringTag]() {
    return 'TextDecoder';
  }
}

function invalidCharacter(msg) {
  // Web platforms throw a DOMException; prefer the global one when present.
  if (typeof globalThis.DOMException === 'function') return new globalThis.DOMException(msg, 'InvalidCharacterError');
  const e = new Error(msg);
  e.name = 'InvalidCharacterError';
  e.code = 5; // legacy INVALID_CHARACTER_ERR
  return e;
}
function requireArg(args) {
  if (args.length === 0) throw typeError('ERR_MISSING_ARGS', 'The "input" argument must be specified');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function btoa(input) {
  requireArg(arguments);
  const s = `${input}`;
  let out = '';
  for (let i = 0; i < s.length; i += 3) {
    const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2); // NaN past the end
    if (a > 0xff || b > 0xff || c > 0xff) throw invalidCharacter('Invalid character');
    const x = (a << 16) | ((b | 0) << 8) | (c | 0);
    out += B64[x >> 18] + B64[(x >> 12) & 63] + (i + 1 < s.length ? B64[(x >> 6) & 63] : '=') + (i + 2 < s.length ? B64[x & 63] : '=');
  }
  return out;
}

// WHATWG forgiving-base64 decode.
export function atob(input) {
  requireArg(arguments);
  let s = `${input}`.replace(/[\t\n\f\r ]+/g, '');
  if (s.length % 4 === 0) s = s.replace(/={1,2}$/, '');
  if (s.length % 4 === 1) throw invalidCharacter('The string to be decoded is not correctly encoded.');
  if (/[^A-Za-z0-9+/]/.test(s)) throw invalidCharacter('Invalid character');
  const codes = [];
  let acc = 0, bits = 0;
  for (let i = 0; i < s.length; i++) {
    acc = ((acc << 6) | B64.indexOf(s[i])) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      codes.push((acc >> bits) & 0xff);
    }
  }
  return fromCodes(codes);
}
