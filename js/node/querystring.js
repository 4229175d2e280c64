// node:querystring: Node's legacy query string parser and formatter (null-prototype results,
// repeated keys become arrays, '+' means space, malformed escapes are kept as they are).
import { Buffer } from "node:buffer";

const HEX = "0123456789ABCDEF";
const hexTable = Array.from({ length: 256 }, (_, i) => `%${HEX[i >> 4]}${HEX[i & 15]}`);
// Characters escape() leaves alone (same set as encodeURIComponent).
const noEscape = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()") noEscape[c.charCodeAt(0)] = 1;

function uriError() {
  const err = new URIError("URI malformed");
  err.code = "ERR_INVALID_URI";
  return err;
}

function encodeStr(str) {
  let out = "";
  let lastPos = 0;
  for (let i = 0; i < str.length; i++) {
    let c = str.charCodeAt(i);
    if (c < 0x80) {
      if (noEscape[c]) continue;
      out += str.slice(lastPos, i) + hexTable[c];
    } else if (c < 0x800) {
      out += str.slice(lastPos, i) + hexTable[0xc0 | (c >> 6)] + hexTable[0x80 | (c & 0x3f)];
    } else if (c < 0xd800 || c >= 0xe000) {
      out += str.slice(lastPos, i) + hexTable[0xe0 | (c >> 12)] + hexTable[0x80 | ((c >> 6) & 0x3f)] + hexTable[0x80 | (c & 0x3f)];
    } else {
      // A surrogate pair; a lone surrogate cannot be encoded.
      const next = i + 1 < str.length ? str.charCodeAt(i + 1) : 0;
      if (c >= 0xdc00 || next < 0xdc00 || next > 0xdfff) throw uriError();
      const out2 = str.slice(lastPos, i);
      c = 0x10000 + (((c & 0x3ff) << 10) | (next & 0x3ff));
      i++;
      out += out2 + hexTable[0xf0 | (c >> 18)] + hexTable[0x80 | ((c >> 12) & 0x3f)] +
        hexTable[0x80 | ((c >> 6) & 0x3f)] + hexTable[0x80 | (c & 0x3f)];
    }
    lastPos = i + 1;
  }
  return lastPos === 0 ? str : lastPos < str.length ? out + str.slice(lastPos) : out;
}

export function escape(str) {
  if (typeof str !== "string") str = typeof str === "object" ? String(str) : `${str}`;
  return encodeStr(str);
}

const hexValue = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);

/** Decodes %XX escapes (and '+' when decodeSpaces) into bytes; malformed escapes stay literal. */
export function unescapeBuffer(s, decodeSpaces) {
  const out = Buffer.allocUnsafe(s.length);
  let index = 0, outIndex = 0;
  for (; index < s.length; index++) {
    const c = s.charCodeAt(index);
    if (c === 43 /* + */ && decodeSpaces) {
      out[outIndex++] = 32;
      continue;
    }
    if (c === 37 /* % */ && index + 2 < s.length) {
      const hi = hexValue(s.charCodeAt(index + 1)), lo = hexValue(s.charCodeAt(index + 2));
      if (hi >= 0 && lo >= 0) {
        out[outIndex++] = hi * 16 + lo;
        index += 2;
        continue;
      }
    }
    out[outIndex++] = c;
  }
  return out.subarray(0, outIndex);
}

export function unescape(s, decodeSpaces) {
  try {
    return decodeURIComponent(s);
  } catch {
    return unescapeBuffer(s, decodeSpaces).toString();
  }
}

function decodeStr(s, decoder) {
  try {
    return decoder(s);
  } catch {
    return unescape(s, true);
  }
}

export function parse(qs, sep, eq, options) {
  const obj = { __proto__: null };
  if (typeof qs !== "string" || qs.length === 0) return obj;
  sep = sep ? String(sep) : "&";
  eq = eq ? String(eq) : "=";
  let pairs = 1000;
  if (typeof options?.maxKeys === "number") pairs = options.maxKeys > 0 ? options.maxKeys : -1;
  const decode = typeof options?.decodeURIComponent === "function" ? options.decodeURIComponent : unescape;
  // With the default decoder only text that has an escape or '+' is decoded.
  const needsDecode = decode === unescape ? (s) => /%[0-9a-fA-F]{2}|\+/.test(s) : () => true;
  const pieces = qs.split(sep);
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (piece === "") {
      // Empty text between separators counts against maxKeys, like Node.
      if (i < pieces.length - 1 && --pairs === 0) return obj;
      continue;
    }
    const at = piece.indexOf(eq);
    let key = at === -1 ? piece : piece.slice(0, at);
    let value = at === -1 ? "" : piece.slice(at + eq.length);
    if (key.length && needsDecode(key)) key = decodeStr(key.replace(/\+/g, "%20"), decode);
    if (value.length && needsDecode(value)) value = decodeStr(value.replace(/\+/g, "%20"), decode);
    const current = obj[key];
    if (current === undefined) obj[key] = value;
    else if (Array.isArray(current)) current.push(value);
    else obj[key] = [current, value];
    if (--pairs === 0) return obj;
  }
  return obj;
}

function stringifyPrimitive(v) {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return `${v}`;
  if (typeof v === "bigint") return `${v}`;
  if (typeof v === "boolean") return v ? "true" : "false";
  return "";
}

function encodeStringified(v, encode) {
  if (typeof v === "string") return v.length ? encode(v) : "";
  if (typeof v === "number" && Number.isFinite(v)) return Math.abs(v) < 1e21 ? `${v}` : encode(`${v}`);
  if (typeof v === "bigint") return `${v}`;
  if (typeof v === "boolean") return v ? "true" : "false";
  return "";
}

export function stringify(obj, sep, eq, options) {
  sep ||= "&";
  eq ||= "=";
  const encode = typeof options?.encodeURIComponent === "function" ? options.encodeURIComponent : escape;
  const convert = encode === escape ? encodeStringified : (v, enc) => enc(stringifyPrimitive(v));
  if (obj === null || typeof obj !== "object") return "";
  let fields = "";
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const ks = convert(k, encode) + eq;
    if (Array.isArray(v)) {
      if (v.length === 0) continue;
      if (fields) fields += sep;
      fields += v.map((item) => ks + convert(item, encode)).join(sep);
    } else {
      if (fields) fields += sep;
      fields += ks + convert(v, encode);
    }
  }
  return fields;
}

export { parse as decode, stringify as encode };
export default { unescapeBuffer, unescape, escape, stringify, encode: stringify, parse, decode: parse };
