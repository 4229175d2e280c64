// node:crypto — randomness, hashes and HMACs (md5, sha1, the sha2 family), timingSafeEqual,
// KeyObject (secret, RSA, EC P-256/P-384/P-521, Ed25519 keys from PEM, DER and JWK), sign and
// verify, AES-CBC/CTR/GCM and ChaCha20-Poly1305 ciphers, PBKDF2, HKDF, scrypt, key generation,
// RSA-OAEP, and webcrypto's subtle. A Hash/Hmac holds a Rust resource with the running digest
// state (runtime/src/node/crypto/mod.rs), so update() streams bytes through instead of buffering
// them here. What is left (Diffie-Hellman, X509Certificate, …) fails naming the member.
import { ops, core, unsupported } from "paseo:internal/core";
import { ioCallback } from "paseo:internal/timers";
import { DOMException } from "paseo:internal/web/events";
import { Buffer } from "node:buffer";

// ---------------------------------------------------------------- errors (Node's texts)

function describe(v) {
  if (v == null) return ` Received ${v}`;
  if (typeof v === "function") return ` Received function ${v.name}`;
  if (typeof v === "object") return v.constructor?.name ? ` Received an instance of ${v.constructor.name}` : ` Received ${String(v)}`;
  let s = typeof v === "bigint" ? `${v}n` : typeof v === "symbol" ? v.toString() : String(v);
  if (typeof v === "string") s = `'${s.length > 28 ? `${s.slice(0, 25)}...` : s}'`;
  return ` Received type ${typeof v} (${s})`;
}
function nodeError(Ctor, code, message) {
  const e = new Ctor(message);
  e.code = code;
  return e;
}
const errArgType = (name, expected, v) => nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be ${expected}.${describe(v)}`);
// Node writes big integers as 281_474_976_710_656.
const separated = (v) => (Number.isInteger(v) && Math.abs(v) > 2 ** 32 ? String(v).replace(/\B(?=(\d{3})+$)/g, "_") : String(v));
const errRange = (name, range, v) => nodeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "${name}" is out of range. It must be ${range}. Received ${separated(v)}`);
const errFinalized = () => nodeError(Error, "ERR_CRYPTO_HASH_FINALIZED", "Digest already called");
const DATA_TYPES = "of type string or an instance of Buffer, TypedArray, or DataView";

function validateString(v, name) {
  if (typeof v !== "string") throw errArgType(name, "of type string", v);
}
function validateFunction(v, name) {
  if (typeof v !== "function") throw errArgType(name, "of type function", v);
}

// ---------------------------------------------------------------- bytes in and out

const bytesOf = (v) => (v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));

// Like Node, an unknown input encoding for a string reads it as UTF-8.
function toBytes(data, encoding, name = "data") {
  if (typeof data === "string") return Buffer.from(data, Buffer.isEncoding(encoding) ? encoding : "utf8");
  if (ArrayBuffer.isView(data)) return bytesOf(data);
  throw errArgType(name, DATA_TYPES, data);
}

// Like Node, digest() with no (or an unknown) encoding returns a Buffer.
function output(bytes, encoding) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return typeof encoding === "string" && encoding !== "buffer" && Buffer.isEncoding(encoding) ? buf.toString(encoding) : buf;
}

// ---------------------------------------------------------------- Hash, Hmac

const kHandle = Symbol("kHandle");
const kFinalized = Symbol("kFinalized");
const kCopy = Symbol("kCopy");
// A Hash dropped without digest() would otherwise keep its resource until the plugin stops.
const registry = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((rid) => core.tryClose(rid)) : null;

function attach(self, rid) {
  Object.defineProperty(self, kHandle, { value: rid });
  Object.defineProperty(self, kFinalized, { value: false, writable: true });
  registry?.register(self, rid, self);
}
function finish(self, encoding) {
  self[kFinalized] = true;
  registry?.unregister(self);
  return output(ops.op_crypto_hash_digest(self[kHandle]), encoding);
}

// Hash and Hmac are not streams here (there is no node:stream); the stream methods say so.
const STREAM_METHODS = ["write", "end", "read", "pipe", "on", "once"];

export class Hash {
  constructor(algorithm, options) {
    if (algorithm === kCopy) {
      attach(this, options); // copy(): `options` is the new resource id
      return;
    }
    validateString(algorithm, "algorithm");
    attach(this, ops.op_crypto_hash_new(algorithm, false, new Uint8Array(0)));
  }
  copy() {
    if (this[kFinalized]) throw errFinalized();
    return new Hash(kCopy, ops.op_crypto_hash_copy(this[kHandle]));
  }
  update(data, inputEncoding) {
    if (this[kFinalized]) throw errFinalized();
    ops.op_crypto_hash_update(this[kHandle], toBytes(data, inputEncoding));
    return this;
  }
  digest(outputEncoding) {
    if (this[kFinalized]) throw errFinalized();
    return finish(this, outputEncoding);
  }
}

export class Hmac {
  constructor(hmac, key, options) {
    validateString(hmac, "hmac");
    let keyBytes;
    if (typeof key === "string") keyBytes = Buffer.from(key, Buffer.isEncoding(options?.encoding) ? options.encoding : "utf8");
    else if (key instanceof ArrayBuffer || ArrayBuffer.isView(key)) keyBytes = bytesOf(key);
    else if (key instanceof KeyObject || key instanceof CryptoKey) {
      const secret = key instanceof CryptoKey ? KeyObject.from(key) : key;
      if (secret.type !== "secret") {
        throw nodeError(TypeError, "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE", `Invalid key object type ${secret.type}, expected secret.`);
      }
      keyBytes = bytesOf(secret.export());
    } else throw errArgType("key", "of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey", key);
    try {
      attach(this, ops.op_crypto_hash_new(hmac, true, keyBytes));
    } catch (e) {
      if (e instanceof TypeError) e.code = "ERR_CRYPTO_INVALID_DIGEST";
      throw e;
    }
  }
  update(data, inputEncoding) {
    if (this[kFinalized]) throw errFinalized();
    ops.op_crypto_hash_update(this[kHandle], toBytes(data, inputEncoding));
    return this;
  }
  // Node's Hmac answers a second digest() with an empty result instead of throwing.
  digest(outputEncoding) {
    if (this[kFinalized]) return output(new Uint8Array(0), outputEncoding);
    return finish(this, outputEncoding);
  }
}

for (const Class of [Hash, Hmac]) {
  for (const name of STREAM_METHODS) Class.prototype[name] = unsupported(`node:crypto.${Class.name}.${name}`);
}

export function createHash(algorithm, options) {
  return new Hash(algorithm, options);
}

export function createHmac(hmac, key, options) {
  return new Hmac(hmac, key, options);
}

/** Node 21+ one-shot: `hash("sha1", "abc")` is hex unless another encoding (or "buffer") is named. */
export function hash(algorithm, data, outputEncoding = "hex") {
  validateString(algorithm, "algorithm");
  if (typeof data !== "string" && !ArrayBuffer.isView(data)) throw errArgType("input", DATA_TYPES, data);
  if (outputEncoding !== "hex") {
    validateString(outputEncoding, "outputEncoding");
    if (outputEncoding.toLowerCase() !== "buffer" && !Buffer.isEncoding(outputEncoding)) {
      throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'outputEncoding' is invalid. Received '${outputEncoding}'`);
    }
  }
  let bytes;
  try {
    bytes = ops.op_crypto_digest(algorithm, toBytes(data));
  } catch {
    throw new Error(`Digest method ${algorithm} is not supported`); // hash()'s own wording in Node
  }
  return output(bytes, outputEncoding.toLowerCase() === "buffer" ? undefined : outputEncoding);
}

const HASHES = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256"];
export const getHashes = () => HASHES.slice();
export const getCurves = () => ["prime256v1", "secp384r1", "secp521r1"];
export const getFips = () => 0;

// ---------------------------------------------------------------- comparison

export function timingSafeEqual(buf1, buf2) {
  for (const [name, v] of [["buf1", buf1], ["buf2", buf2]]) {
    // Node's message here (thrown from C++) names no received value.
    if (!(v instanceof ArrayBuffer) && !ArrayBuffer.isView(v)) {
      throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be an instance of ArrayBuffer, Buffer, TypedArray, or DataView.`);
    }
  }
  const a = bytesOf(buf1), b = bytesOf(buf2);
  if (a.byteLength !== b.byteLength) throw nodeError(RangeError, "ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH", "Input buffers must have the same byte length");
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

// ---------------------------------------------------------------- randomness

const fill = (bytes) => (bytes.byteLength && ops.op_crypto_fill_random(bytes), bytes);
const MAX_SIZE = 2 ** 31 - 1;

function validateSize(size) {
  if (typeof size !== "number") throw errArgType("size", "of type number", size);
  if (Number.isNaN(size) || size < 0 || size > MAX_SIZE) throw errRange("size", `>= 0 && <= ${MAX_SIZE}`, size);
}

// Node runs the callback forms on its thread pool; here the work is done at once and the
// callback is answered as an I/O callback would be, so it is still asynchronous to the caller.
const later = ioCallback;

export function randomBytes(size, callback) {
  validateSize(size);
  if (callback !== undefined) validateFunction(callback, "callback");
  const buf = fill(Buffer.alloc(Math.floor(size)));
  if (callback === undefined) return buf;
  later(callback, null, buf);
}

export function randomFillSync(buf, offset = 0, size) {
  if (!(buf instanceof ArrayBuffer) && !ArrayBuffer.isView(buf)) throw errArgType("buf", "an instance of ArrayBuffer or ArrayBufferView", buf);
  const element = buf.BYTES_PER_ELEMENT ?? 1;
  const bytes = bytesOf(buf);
  if (typeof offset !== "number") throw errArgType("offset", "of type number", offset);
  const start = offset * element;
  if (Number.isNaN(start) || start < 0 || start > bytes.byteLength) throw errRange("offset", `>= 0 && <= ${bytes.byteLength}`, offset);
  let count = bytes.byteLength - start;
  if (size !== undefined) {
    if (typeof size !== "number") throw errArgType("size", "of type number", size);
    if (Number.isNaN(size) || size < 0 || size * element + start > bytes.byteLength) throw errRange("size", `>= 0 && <= ${count / element}`, size);
    count = size * element;
  }
  fill(bytes.subarray(start, start + count));
  return buf;
}

export function randomFill(buf, offset, size, callback) {
  if (typeof offset === "function") [callback, offset, size] = [offset, 0, undefined];
  else if (typeof size === "function") [callback, size] = [size, undefined];
  validateFunction(callback, "callback");
  randomFillSync(buf, offset, size);
  later(callback, null, buf);
}

// 48 random bits, rejection-sampled to stay uniform (Node's algorithm and limits).
const RAND_MAX = 0xffff_ffff_ffff;
export function randomInt(min, max, callback) {
  const minNotSpecified = max === undefined || typeof max === "function";
  if (minNotSpecified) [callback, max, min] = [max, min, 0];
  if (callback !== undefined) validateFunction(callback, "callback");
  if (!Number.isSafeInteger(min)) throw errArgType("min", "a safe integer", min);
  if (!Number.isSafeInteger(max)) throw errArgType("max", "a safe integer", max);
  if (max <= min) throw errRange("max", `greater than the value of "min" (${min})`, max);
  const range = max - min;
  if (!(range <= RAND_MAX)) throw errRange(`max${minNotSpecified ? "" : " - min"}`, `<= ${RAND_MAX}`, range);
  const limit = RAND_MAX - (RAND_MAX % range);
  const b = new Uint8Array(6);
  let x;
  do {
    fill(b);
    x = b[0] * 2 ** 40 + b[1] * 2 ** 32 + ((b[2] << 24) >>> 0) + (b[3] << 16) + (b[4] << 8) + b[5];
  } while (x >= limit);
  const n = min + (x % range);
  if (callback === undefined) return n;
  later(callback, undefined, n); // Node passes undefined, not null, here
}

const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
export function getRandomValues(array) {
  if (!INTEGER_ARRAYS.some((T) => array instanceof T)) throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
  if (array.byteLength > 65536) {
    throw new DOMException(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, "QuotaExceededError");
  }
  fill(bytesOf(array));
  return array;
}

export function randomUUID() {
  const b = fill(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---------------------------------------------------------------- DER, PEM and key formats
// Keys are parsed and written here (PEM, PKCS#1, SEC1, PKCS#8, SPKI, JWK), laid out as OpenSSL
// writes them so exports equal Node's byte for byte; the ops (runtime/src/node/crypto/keys.rs)
// check private keys, derive public halves, sign, verify and generate.

const osslUnsupported = () => nodeError(Error, "ERR_OSSL_UNSUPPORTED", "error:1E08010C:DECODER routines::unsupported");
const errInvalidKeyObjectType = (got, expected) => nodeError(TypeError, "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE", `Invalid key object type ${got}, expected ${expected}.`);
const errArgValue = (name, v, reason = "is invalid") => nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The ${name.includes(".") ? "property" : "argument"} '${name}' ${reason}. Received ${typeof v === "string" ? `'${v}'` : String(v)}`);
const errIncompatible = (encoding, what) => nodeError(Error, "ERR_CRYPTO_INCOMPATIBLE_KEY_OPTIONS", `The selected key encoding ${encoding} ${what}.`);

function derRead(bytes, pos = 0) {
  if (pos + 2 > bytes.length) throw osslUnsupported();
  const tag = bytes[pos];
  let len = bytes[pos + 1], p = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > bytes.length) throw osslUnsupported();
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + bytes[p++];
  }
  if (p + len > bytes.length) throw osslUnsupported();
  return { tag, body: bytes.subarray(p, p + len), end: p + len };
}
/** The elements of a SEQUENCE (or any constructed value). */
function derChildren(body) {
  const out = [];
  for (let p = 0; p < body.length; ) {
    const el = derRead(body, p);
    out.push(el);
    p = el.end;
  }
  return out;
}
function derSeq(bytes, tag = 0x30) {
  const el = derRead(bytes);
  if (el.tag !== tag || el.end !== bytes.length) throw osslUnsupported();
  return derChildren(el.body);
}
function der(tag, ...parts) {
  const len = parts.reduce((n, p) => n + p.length, 0);
  const head = len < 128 ? [tag, len] : len < 256 ? [tag, 0x81, len] : len < 65536 ? [tag, 0x82, len >> 8, len & 255] : [tag, 0x83, len >> 16, (len >> 8) & 255, len & 255];
  const out = new Uint8Array(head.length + len);
  out.set(head);
  let p = head.length;
  for (const part of parts) {
    out.set(part, p);
    p += part.length;
  }
  return out;
}
const strip0 = (b) => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};
const derUint = (b) => {
  b = strip0(b);
  return b[0] & 0x80 ? der(0x02, Uint8Array.of(0), b) : der(0x02, b);
};
const hexOf = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const fromHex = (h) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
const b64url = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64url");
const unb64url = (s) => new Uint8Array(Buffer.from(s, "base64url"));
const leftPad = (b, n) => {
  b = strip0(b);
  if (b.length >= n) return b.subarray(b.length - n);
  const out = new Uint8Array(n);
  out.set(b, n - b.length);
  return out;
};

const OID_RSA = "2a864886f70d010101", OID_EC = "2a8648ce3d0201", OID_ED25519 = "2b6570";
const CURVES = {
  "P-256": { oid: "2a8648ce3d030107", name: "prime256v1", size: 32 },
  "P-384": { oid: "2b81040022", name: "secp384r1", size: 48 },
  "P-521": { oid: "2b81040023", name: "secp521r1", size: 66 },
};
const CURVE_ALIASES = { "P-256": "P-256", prime256v1: "P-256", secp256r1: "P-256", "P-384": "P-384", secp384r1: "P-384", "P-521": "P-521", secp521r1: "P-521" };
const curveByOid = (hex) => Object.keys(CURVES).find((c) => CURVES[c].oid === hex);
const NULL = Uint8Array.of(5, 0);
const oid = (hex) => der(0x06, fromHex(hex));
const algId = (kind, curve) => (kind === "rsa" ? der(0x30, oid(OID_RSA), NULL) : kind === "ec" ? der(0x30, oid(OID_EC), oid(CURVES[curve].oid)) : der(0x30, oid(OID_ED25519)));
const INT0 = Uint8Array.of(2, 1, 0), INT1 = Uint8Array.of(2, 1, 1);

/** A key's parts: { kind, curve?, rsa?: [n, e, d, p, q, dp, dq, qi] (public: [n, e]), d?, pub? }. */
function fromRsaPrivate(bytes) {
  const f = derSeq(bytes);
  if (f.length < 9 || f.some((x, i) => i < 9 && x.tag !== 0x02)) throw osslUnsupported();
  return { kind: "rsa", rsa: f.slice(1, 9).map((x) => strip0(x.body).slice()) };
}
function fromRsaPublic(bytes) {
  const f = derSeq(bytes);
  if (f.length !== 2 || f[0].tag !== 2 || f[1].tag !== 2) throw osslUnsupported();
  return { kind: "rsa", rsa: [strip0(f[0].body).slice(), strip0(f[1].body).slice()] };
}
function fromSec1(bytes, curve) {
  const f = derSeq(bytes);
  if (f.length < 2 || f[1].tag !== 0x04) throw osslUnsupported();
  let pub;
  for (const x of f.slice(2)) {
    if (x.tag === 0xa0) curve = curveByOid(derRead(x.body).body.length ? hexOf(derRead(x.body).body) : "") ?? curve;
    if (x.tag === 0xa1) pub = derRead(x.body).body.subarray(1).slice();
  }
  if (!CURVES[curve]) throw osslUnsupported();
  return { kind: "ec", curve, d: leftPad(f[1].body, CURVES[curve].size), pub };
}
function fromPkcs8(bytes) {
  const f = derSeq(bytes);
  if (f.length < 3 || f[1].tag !== 0x30 || f[2].tag !== 0x04) throw osslUnsupported();
  const alg = derChildren(f[1].body);
  const id = hexOf(alg[0].body);
  if (id === OID_RSA) return fromRsaPrivate(f[2].body);
  if (id === OID_EC) return fromSec1(f[2].body, curveByOid(hexOf(alg[1]?.body ?? new Uint8Array())));
  if (id === OID_ED25519) return { kind: "ed25519", d: derRead(f[2].body).body.slice() };
  throw osslUnsupported();
}
function fromSpki(bytes) {
  const f = derSeq(bytes);
  if (f.length !== 2 || f[0].tag !== 0x30 || f[1].tag !== 0x03) throw osslUnsupported();
  const alg = derChildren(f[0].body);
  const id = hexOf(alg[0].body), bits = f[1].body.subarray(1);
  if (id === OID_RSA) return fromRsaPublic(bits);
  if (id === OID_EC) {
    const curve = curveByOid(hexOf(alg[1]?.body ?? new Uint8Array()));
    if (!curve || bits[0] !== 4 || bits.length !== 1 + 2 * CURVES[curve].size) throw osslUnsupported();
    return { kind: "ec", curve, pub: bits.slice() };
  }
  if (id === OID_ED25519 && bits.length === 32) return { kind: "ed25519", pub: bits.slice() };
  throw osslUnsupported();
}

const rsaPublicDer = (k) => der(0x30, derUint(k.rsa[0]), derUint(k.rsa[1]));
const sec1Of = (k, withParams) =>
  der(0x30, INT1, der(0x04, k.d), ...(withParams ? [der(0xa0, oid(CURVES[k.curve].oid))] : []), der(0xa1, der(0x03, Uint8Array.of(0), k.pub)));
function pkcs8Of(k) {
  if (k.kind === "rsa") return der(0x30, INT0, algId("rsa"), der(0x04, der(0x30, INT0, ...k.rsa.map(derUint))));
  if (k.kind === "ec") return der(0x30, INT0, algId("ec", k.curve), der(0x04, sec1Of(k, false)));
  return der(0x30, INT0, algId("ed25519"), der(0x04, der(0x04, k.d)));
}
function spkiOf(k) {
  const bits = k.kind === "rsa" ? rsaPublicDer(k) : k.pub;
  return der(0x30, algId(k.kind, k.curve), der(0x03, Uint8Array.of(0), bits));
}
/** What the ops take as a public key. */
const rawPublic = (k) => (k.kind === "rsa" ? rsaPublicDer(k) : k.pub);

/** Checks a parsed private key in Rust and completes its public half. */
function completePrivate(k) {
  let pub;
  try {
    pub = ops.op_crypto_key_public_of(k.kind, k.curve ?? "", pkcs8Of({ ...k, pub: k.pub ?? new Uint8Array(0) }));
  } catch {
    throw osslUnsupported();
  }
  if (k.kind !== "rsa") {
    if (k.pub && hexOf(k.pub) !== hexOf(pub)) throw osslUnsupported();
    k.pub = pub;
  }
  return k;
}

function pemDecode(text) {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return null;
  if (/Proc-Type:\s*4,ENCRYPTED/.test(m[2]) || m[1] === "ENCRYPTED PRIVATE KEY") return { label: m[1], encrypted: true };
  return { label: m[1], der: new Uint8Array(Buffer.from(m[2].replace(/[^A-Za-z0-9+/=]/g, ""), "base64")) };
}
function pemEncode(label, bytes) {
  const b64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g).join("\n")}\n-----END ${label}-----\n`;
}

function fromJwk(jwk, wantPrivate) {
  if (jwk === null || typeof jwk !== "object") throw errArgType("key.key", "of type object", jwk);
  const str = (name) => {
    if (typeof jwk[name] !== "string") throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "key.${name}" property must be of type string.${describe(jwk[name])}`);
    return unb64url(jwk[name]);
  };
  const isPrivate = wantPrivate || jwk.d !== undefined;
  if (jwk.kty === "RSA") {
    const k = { kind: "rsa", rsa: [str("n"), str("e")] };
    if (isPrivate) k.rsa.push(...["d", "p", "q", "dp", "dq", "qi"].map(str));
    return { k, isPrivate };
  }
  if (jwk.kty === "EC") {
    const curve = CURVE_ALIASES[jwk.crv];
    if (!CURVES[curve]) throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'key.crv' must be one of: 'P-256', 'secp256k1', 'P-384', 'P-521'. Received ${JSON.stringify(jwk.crv)?.replace(/"/g, "'")}`);
    const n = CURVES[curve].size;
    const k = { kind: "ec", curve, pub: new Uint8Array([4, ...leftPad(str("x"), n), ...leftPad(str("y"), n)]) };
    if (isPrivate) k.d = leftPad(str("d"), n);
    return { k, isPrivate };
  }
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") {
    const k = { kind: "ed25519", pub: str("x") };
    if (isPrivate) k.d = str("d");
    return { k, isPrivate };
  }
  if (jwk.kty === "OKP") throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'key.crv' must be one of: 'Ed25519', 'Ed448', 'X25519', 'X448'. Received '${jwk.crv}'`);
  throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'key.kty' must be one of: 'RSA', 'EC', 'OKP'. Received ${jwk.kty === undefined ? "undefined" : `'${jwk.kty}'`}`);
}
function toJwk(k, isPrivate) {
  if (k.kind === "rsa") {
    const names = ["n", "e", "d", "p", "q", "dp", "dq", "qi"];
    const jwk = { kty: "RSA" };
    k.rsa.slice(0, isPrivate ? 8 : 2).forEach((v, i) => (jwk[names[i]] = b64url(strip0(v))));
    return jwk;
  }
  if (k.kind === "ec") {
    const n = CURVES[k.curve].size;
    const jwk = { kty: "EC", x: b64url(k.pub.subarray(1, 1 + n)), y: b64url(k.pub.subarray(1 + n)), crv: k.curve };
    if (isPrivate) jwk.d = b64url(k.d);
    return jwk;
  }
  return isPrivate ? { crv: "Ed25519", d: b64url(k.d), x: b64url(k.pub), kty: "OKP" } : { crv: "Ed25519", x: b64url(k.pub), kty: "OKP" };
}

// ---------------------------------------------------------------- KeyObject

const kKey = Symbol("kKey");
const kKeyType = Symbol("kKeyType");
const kConstruct = Symbol("kConstruct");
const ASYM_NAMES = { rsa: "rsa", ec: "ec", ed25519: "ed25519" };

// What util.types.isKeyObject / isCryptoKey recognise: objects these constructors made.
const keyObjects = new WeakSet(), cryptoKeys = new WeakSet();
for (const [name, set] of [["isKeyObject", keyObjects], ["isCryptoKey", cryptoKeys]]) {
  Object.defineProperty(globalThis, Symbol.for(`paseo.${name}`), { value: (v) => set.has(v) });
}

export class KeyObject {
  constructor(type, handle) {
    if (handle !== kConstruct) throw errArgValue("type", type);
    keyObjects.add(this);
    Object.defineProperty(this, kKeyType, { value: type });
  }
  static from(key) {
    if (!(key instanceof CryptoKey)) throw errArgType("key", "an instance of CryptoKey", key);
    return key[kKey];
  }
  get type() {
    return this[kKeyType];
  }
  equals(other) {
    if (!(other instanceof KeyObject)) throw errArgType("otherKeyObject", "an instance of KeyObject", other);
    if (other.type !== this.type) return false;
    if (this.type === "secret") return timingSafeEqualBytes(this[kKey], other[kKey]);
    const a = this[kKey], b = other[kKey];
    return a.kind === b.kind && hexOf(spkiOf(a)) === hexOf(spkiOf(b)) && (this.type === "public" || timingSafeEqualBytes(pkcs8Of(a), pkcs8Of(b)));
  }
  // Key material is never shown: util.inspect and JSON see only the type.
  toJSON() {
    return {};
  }
}
Object.defineProperty(KeyObject.prototype, Symbol.toStringTag, { value: "KeyObject", configurable: true });

function timingSafeEqualBytes(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

class SecretKeyObject extends KeyObject {
  constructor(bytes) {
    super("secret", kConstruct);
    Object.defineProperty(this, kKey, { value: bytes });
  }
  get symmetricKeySize() {
    return this[kKey].length;
  }
  export(options) {
    if (options !== undefined && (options === null || typeof options !== "object")) throw errArgType("options", "of type object", options);
    const format = options?.format;
    if (format === "jwk") return { kty: "oct", k: b64url(this[kKey]) };
    if (format !== undefined && format !== "buffer") throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.format' must be one of: undefined, 'buffer', 'jwk'. Received '${format}'`);
    return Buffer.from(this[kKey]);
  }
}

class AsymmetricKeyObject extends KeyObject {
  constructor(type, k) {
    super(type, kConstruct);
    Object.defineProperty(this, kKey, { value: k });
  }
  get asymmetricKeyType() {
    return ASYM_NAMES[this[kKey].kind];
  }
  get asymmetricKeyDetails() {
    const k = this[kKey];
    if (k.kind === "rsa") {
      const n = k.rsa[0];
      return { modulusLength: n.length * 8 - Math.clz32(n[0]) + 24, publicExponent: BigInt(`0x${hexOf(k.rsa[1]) || "0"}`) };
    }
    if (k.kind === "ec") return { namedCurve: CURVES[k.curve].name };
    return {};
  }
}

function exportAsymmetric(self, options, isPrivate) {
  if (options === null || typeof options !== "object") throw errArgType("options", "of type object", options);
  const k = self[kKey];
  const { format = "pem", type } = options;
  if (format === "jwk") return toJwk(k, isPrivate);
  if (format !== "pem" && format !== "der") throw errArgValue("options.format", format);
  if (isPrivate && (options.cipher !== undefined || options.passphrase !== undefined)) {
    throw new Error("node:crypto.KeyObject.export with a cipher (encrypted private keys) is not supported by the Paseo plugin host yet");
  }
  let bytes, label;
  if (type === "pkcs1") {
    if (k.kind !== "rsa") throw errIncompatible("pkcs1", "can only be used for RSA keys");
    bytes = isPrivate ? derSeqOf([INT0, ...k.rsa.map(derUint)]) : rsaPublicDer(k);
    label = isPrivate ? "RSA PRIVATE KEY" : "RSA PUBLIC KEY";
  } else if (type === "pkcs8" && isPrivate) {
    [bytes, label] = [pkcs8Of(k), "PRIVATE KEY"];
  } else if (type === "sec1" && isPrivate) {
    if (k.kind !== "ec") throw errIncompatible("sec1", "can only be used for EC keys");
    [bytes, label] = [sec1Of(k, true), "EC PRIVATE KEY"];
  } else if (type === "spki" && !isPrivate) {
    [bytes, label] = [spkiOf(k), "PUBLIC KEY"];
  } else {
    throw errArgValue("options.type", type);
  }
  return format === "pem" ? pemEncode(label, bytes) : Buffer.from(bytes);
}
const derSeqOf = (parts) => der(0x30, ...parts);

class PublicKeyObject extends AsymmetricKeyObject {
  constructor(k) {
    super("public", k);
  }
  export(options) {
    return exportAsymmetric(this, options, false);
  }
}
class PrivateKeyObject extends AsymmetricKeyObject {
  constructor(k) {
    super("private", k);
  }
  export(options) {
    return exportAsymmetric(this, options, true);
  }
}
const publicPart = (k) => ({ kind: k.kind, curve: k.curve, rsa: k.rsa?.slice(0, 2), pub: k.pub });

const KEY_DATA = "of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView";

export function createSecretKey(key, encoding) {
  let bytes;
  if (typeof key === "string") bytes = Buffer.from(key, Buffer.isEncoding(encoding) ? encoding : "utf8");
  else if (key instanceof ArrayBuffer || ArrayBuffer.isView(key)) bytes = bytesOf(key);
  else throw errArgType("key", "an instance of ArrayBuffer, Buffer, TypedArray, or DataView", key);
  return new SecretKeyObject(new Uint8Array(bytes)); // a copy: later writes to `key` do not change it
}

/** Parses what createPrivateKey / createPublicKey take; `want` is "private" or "public". */
function parseKey(input, want) {
  let data = input, format, type, encoding;
  if (input !== null && typeof input === "object" && !ArrayBuffer.isView(input) && !(input instanceof ArrayBuffer) && !(input instanceof KeyObject) && !(input instanceof CryptoKey)) {
    ({ key: data, format = "pem", type, encoding } = input);
    if (input.passphrase !== undefined && format !== "jwk") {
      const text = typeof data === "string" ? data : ArrayBuffer.isView(data) ? Buffer.from(bytesOf(data)).toString("latin1") : "";
      if (pemDecode(text)?.encrypted) throw new Error("node:crypto encrypted private keys (passphrase) are not supported by the Paseo plugin host yet");
    }
    if (format === "jwk") {
      const { k, isPrivate } = fromJwk(data, want === "private");
      if (isPrivate) completePrivate(k);
      return { k, isPrivate };
    }
    if (format !== "pem" && format !== "der") throw errArgValue("key.format", format);
  } else {
    format = "pem";
  }
  if (want === "public" && (data instanceof KeyObject || data instanceof CryptoKey)) {
    const key = data instanceof CryptoKey ? data[kKey] : data;
    if (key.type === "secret") throw errInvalidKeyObjectType("secret", "private");
    return { k: key[kKey], isPrivate: key.type === "private" };
  }
  let bytes;
  if (typeof data === "string") bytes = format === "der" ? Buffer.from(data, Buffer.isEncoding(encoding) ? encoding : "utf8") : data;
  else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) bytes = bytesOf(data);
  else throw errArgType("key", want === "public" ? `${KEY_DATA.replace("or DataView", "DataView, KeyObject, or CryptoKey")}` : KEY_DATA, data);
  if (format === "pem") {
    const pem = pemDecode(typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("latin1"));
    if (!pem) throw osslUnsupported();
    if (pem.encrypted) throw new Error("node:crypto encrypted private keys (passphrase) are not supported by the Paseo plugin host yet");
    const parsers = {
      "PRIVATE KEY": [fromPkcs8, true],
      "RSA PRIVATE KEY": [fromRsaPrivate, true],
      "EC PRIVATE KEY": [fromSec1, true],
      "PUBLIC KEY": [fromSpki, false],
      "RSA PUBLIC KEY": [fromRsaPublic, false],
    };
    const entry = parsers[pem.label];
    if (!entry || (want === "private" && !entry[1])) throw osslUnsupported();
    const k = entry[0](pem.der);
    if (entry[1]) completePrivate(k);
    return { k, isPrivate: entry[1] };
  }
  // DER: the type says which structure (Node's defaults: pkcs8/spki).
  const tryParse = (fn, isPrivate) => {
    const k = fn(bytes);
    if (isPrivate) completePrivate(k);
    return { k, isPrivate };
  };
  if (want === "private" || type === "pkcs8" || type === "sec1") {
    if (type === "pkcs1") return tryParse(fromRsaPrivate, true);
    if (type === "sec1") return tryParse(fromSec1, true);
    if (type === "pkcs8" || want === "private") return tryParse(fromPkcs8, true);
  }
  if (type === "pkcs1") return tryParse(fromRsaPublic, false);
  return tryParse(fromSpki, false);
}

export function createPrivateKey(key) {
  if (key instanceof KeyObject || key instanceof CryptoKey) throw errArgType("key", KEY_DATA, key);
  const { k } = parseKey(key, "private");
  return new PrivateKeyObject(k);
}

export function createPublicKey(key) {
  if (typeof key !== "string" && !ArrayBuffer.isView(key) && !(key instanceof ArrayBuffer) && (key === null || typeof key !== "object")) {
    throw errArgType("key", "of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey", key);
  }
  const { k } = parseKey(key, "public");
  return new PublicKeyObject(publicPart(k));
}

// ---------------------------------------------------------------- sign, verify

function normHash(alg) {
  const lower = String(alg).toLowerCase();
  const name = lower.startsWith("rsa-") ? lower.slice(4) : lower;
  const map = { "sha-1": "sha1", "sha-224": "sha224", "sha-256": "sha256", "sha-384": "sha384", "sha-512": "sha512", "sha2-256": "sha256", "sha2-384": "sha384", "sha2-512": "sha512" };
  const n = map[name] ?? name;
  return HASHES.includes(n) ? n : null;
}
const HASH_SIZES = { md5: 16, sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64, "sha512-224": 28, "sha512-256": 32 };

/** The key and options of sign()/verify(): a KeyObject, CryptoKey, PEM/DER or `{ key, ... }`. */
function prepareAsymmetric(key, want) {
  let opts = {};
  if (key !== null && typeof key === "object" && !ArrayBuffer.isView(key) && !(key instanceof ArrayBuffer) && !(key instanceof KeyObject) && !(key instanceof CryptoKey)) {
    opts = key;
    if (key.key instanceof KeyObject || key.key instanceof CryptoKey) key = key.key;
  }
  let obj = key instanceof CryptoKey ? key[kKey] : key;
  if (obj instanceof KeyObject) {
    if (want === "private" && obj.type !== "private") throw errInvalidKeyObjectType(obj.type, "private");
    if (obj.type === "secret") throw errInvalidKeyObjectType("secret", "private or public");
    return { k: obj[kKey], isPrivate: obj.type === "private", opts };
  }
  if (typeof key !== "string" && !ArrayBuffer.isView(key) && !(key instanceof ArrayBuffer) && (key === null || typeof key !== "object")) {
    throw errArgType("key", "of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey", key);
  }
  const { k, isPrivate } = parseKey(key, want);
  return { k, isPrivate, opts };
}

function dsaEncodingOf(opts) {
  const enc = opts.dsaEncoding;
  if (enc === undefined || enc === "der") return "der";
  if (enc === "ieee-p1363") return enc;
  throw errArgValue("options.dsaEncoding", enc);
}
function paddingOf(opts) {
  const p = opts.padding;
  if (p === undefined) return 1;
  if (p !== 1 && p !== 6) throw new Error("error:1C8000A5:Provider routines::illegal or unsupported padding mode");
  return p;
}
function saltOf(opts, fallback) {
  const s = opts.saltLength;
  if (s === undefined) return fallback;
  if (!Number.isInteger(s)) throw errArgType("options.saltLength", "of type number", s);
  return s;
}

function derToP1363(sig, size) {
  const [r, s] = derSeq(sig);
  const out = new Uint8Array(size * 2);
  out.set(leftPad(r.body, size), 0);
  out.set(leftPad(s.body, size), size);
  return out;
}
function p1363ToDer(sig, size) {
  if (sig.length !== size * 2) return null;
  return der(0x30, derUint(sig.subarray(0, size)), derUint(sig.subarray(size)));
}

function signWith(algorithm, data, k, opts) {
  const hash = k.kind === "ed25519" ? "" : algorithm == null ? "sha256" : normHash(algorithm);
  if (hash === null) throw nodeError(TypeError, "ERR_CRYPTO_INVALID_DIGEST", `Invalid digest: ${algorithm}`);
  const padding = k.kind === "rsa" ? paddingOf(opts) : 0;
  let sig;
  try {
    sig = ops.op_crypto_sign(k.kind, k.curve ?? "", hash, pkcs8Of(k), padding, saltOf(opts, -2), data);
  } catch (e) {
    throw nodeError(Error, "ERR_CRYPTO_OPERATION_FAILED", `Signing failed: ${e.message}`);
  }
  if (k.kind === "ec" && dsaEncodingOf(opts) === "ieee-p1363") sig = derToP1363(sig, CURVES[k.curve].size);
  return Buffer.from(sig.buffer, sig.byteOffset, sig.byteLength);
}
function verifyWith(algorithm, data, k, opts, signature) {
  const hash = k.kind === "ed25519" ? "" : algorithm == null ? "sha256" : normHash(algorithm);
  if (hash === null) throw nodeError(TypeError, "ERR_CRYPTO_INVALID_DIGEST", `Invalid digest: ${algorithm}`);
  let sig = signature;
  if (k.kind === "ec" && dsaEncodingOf(opts) === "ieee-p1363") {
    sig = p1363ToDer(signature, CURVES[k.curve].size);
    if (!sig) return false;
  }
  const padding = k.kind === "rsa" ? paddingOf(opts) : 0;
  return ops.op_crypto_verify(k.kind, k.curve ?? "", hash, rawPublic(k), padding, saltOf(opts, -2), data, sig);
}

const VIEW_TYPES = "an instance of Buffer, TypedArray, or DataView";
function viewOf(v, name) {
  if (!ArrayBuffer.isView(v)) throw errArgType(name, VIEW_TYPES, v);
  return bytesOf(v);
}

const signData = (data) => (typeof data === "string" ? new Uint8Array(Buffer.from(data, "utf8")) : viewOf(data, "data"));

export function sign(algorithm, data, key, callback) {
  if (algorithm != null) validateString(algorithm, "algorithm");
  if (callback !== undefined) validateFunction(callback, "callback");
  const bytes = signData(data);
  const { k, opts } = prepareAsymmetric(key, "private");
  if (callback === undefined) return signWith(algorithm, bytes, k, opts);
  let result, error = null;
  try {
    result = signWith(algorithm, bytes, k, opts);
  } catch (e) {
    error = e;
  }
  later(callback, error, result);
}

export function verify(algorithm, data, key, signature, callback) {
  if (algorithm != null) validateString(algorithm, "algorithm");
  if (callback !== undefined) validateFunction(callback, "callback");
  const bytes = signData(data);
  const { k, opts } = prepareAsymmetric(key, "public");
  const sig = viewOf(signature, "signature");
  if (callback === undefined) return verifyWith(algorithm, bytes, k, opts, sig);
  let result, error = null;
  try {
    result = verifyWith(algorithm, bytes, k, opts, sig);
  } catch (e) {
    error = e;
  }
  later(callback, error, result);
}

const kChunks = Symbol("kChunks");
const kAlgorithm = Symbol("kAlgorithm");
function collect(self, data, encoding) {
  self[kChunks].push(new Uint8Array(toBytes(data, encoding)));
  return self;
}
const joined = (chunks) => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
};

// Sign and Verify keep the data until sign()/verify() (aws-lc-rs hashes and signs in one step).
class SignatureBase {
  constructor(algorithm) {
    validateString(algorithm, "algorithm");
    const hash = normHash(algorithm);
    if (!hash) throw nodeError(TypeError, "ERR_CRYPTO_INVALID_DIGEST", "Invalid digest");
    Object.defineProperty(this, kAlgorithm, { value: hash });
    Object.defineProperty(this, kChunks, { value: [], writable: true });
  }
  update(data, inputEncoding) {
    return collect(this, data, inputEncoding);
  }
}
export class Sign extends SignatureBase {
  sign(privateKey, outputEncoding) {
    const { k, opts } = prepareAsymmetric(privateKey, "private");
    const sig = signWith(this[kAlgorithm], joined(this[kChunks]), k, opts);
    return output(new Uint8Array(sig), outputEncoding);
  }
}
export class Verify extends SignatureBase {
  verify(object, signature, sigEncoding) {
    const { k, opts } = prepareAsymmetric(object, "public");
    const sig = typeof signature === "string" ? Buffer.from(signature, Buffer.isEncoding(sigEncoding) ? sigEncoding : "utf8") : viewOf(signature, "signature");
    return verifyWith(this[kAlgorithm], joined(this[kChunks]), k, opts, bytesOf(sig));
  }
}
for (const Class of [Sign, Verify]) {
  for (const name of STREAM_METHODS) Class.prototype[name] = unsupported(`node:crypto.${Class.name}.${name}`);
}
export const createSign = (algorithm, options) => new Sign(algorithm, options);
export const createVerify = (algorithm, options) => new Verify(algorithm, options);

// ---------------------------------------------------------------- ciphers

const CIPHERS = {
  "aes-128-cbc": { mode: "cbc", key: 16, iv: 16 }, "aes-192-cbc": { mode: "cbc", key: 24, iv: 16 }, "aes-256-cbc": { mode: "cbc", key: 32, iv: 16 },
  "aes-128-ctr": { mode: "ctr", key: 16, iv: 16 }, "aes-192-ctr": { mode: "ctr", key: 24, iv: 16 }, "aes-256-ctr": { mode: "ctr", key: 32, iv: 16 },
  "aes-128-gcm": { mode: "aead", key: 16, iv: 12 }, "aes-192-gcm": { mode: "aead", key: 24, iv: 12 }, "aes-256-gcm": { mode: "aead", key: 32, iv: 12 },
  "chacha20-poly1305": { mode: "aead", key: 32, iv: 12 },
};
const CIPHER_ALIASES = { aes128: "aes-128-cbc", aes192: "aes-192-cbc", aes256: "aes-256-cbc", "id-aes128-gcm": "aes-128-gcm", "id-aes192-gcm": "aes-192-gcm", "id-aes256-gcm": "aes-256-gcm" };
export const getCiphers = () => [...Object.keys(CIPHERS), ...Object.keys(CIPHER_ALIASES)].sort();

const kState = Symbol("kState");
const badDecrypt = () => nodeError(Error, "ERR_OSSL_BAD_DECRYPT", "error:1C800064:Provider routines::bad decrypt");
const authFailed = () => new Error("Unsupported state or unable to authenticate data");

function cipherKeyBytes(key) {
  if (key instanceof CryptoKey) key = key[kKey];
  if (key instanceof KeyObject) {
    if (key.type !== "secret") throw errInvalidKeyObjectType(key.type, "secret");
    return key[kKey];
  }
  if (typeof key === "string") return new Uint8Array(Buffer.from(key, "utf8"));
  if (key instanceof ArrayBuffer || ArrayBuffer.isView(key)) return new Uint8Array(bytesOf(key));
  throw errArgType("key", "of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey", key);
}

// Cipheriv/Decipheriv: CBC, CTR and GCM stream (update() returns what is ready, as Node's do;
// the state lives here and each op call is stateless). GCM's output is AES-CTR from the counter
// block after the IV's (IV ‖ 00000002), so update() returns it at once, as Node's does (jose
// uses update()'s result and drops final()'s); its tag is made, or checked, by aws-lc-rs over the
// whole message at final(), which is kept until then. ChaCha20-Poly1305 (no bare ChaCha20 in
// aws-lc-rs) keeps the whole message too and returns it from final().
class CipherBase {
  constructor(encrypt, cipher, key, iv, options) {
    validateString(cipher, "cipher");
    const name = CIPHER_ALIASES[cipher.toLowerCase()] ?? cipher.toLowerCase();
    const spec = CIPHERS[name];
    if (!spec) throw nodeError(Error, "ERR_CRYPTO_UNKNOWN_CIPHER", "Unknown cipher");
    const keyBytes = cipherKeyBytes(key);
    if (iv === null || iv === undefined) throw nodeError(TypeError, "ERR_CRYPTO_INVALID_IV", "Invalid initialization vector");
    const ivBytes = typeof iv === "string" ? new Uint8Array(Buffer.from(iv, "utf8")) : iv instanceof ArrayBuffer || ArrayBuffer.isView(iv) ? new Uint8Array(bytesOf(iv)) : null;
    if (!ivBytes) throw errArgType("iv", "of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView", iv);
    if (keyBytes.length !== spec.key) throw nodeError(RangeError, "ERR_CRYPTO_INVALID_KEYLEN", "Invalid key length");
    if (ivBytes.length !== spec.iv) {
      if (spec.mode === "aead" && ivBytes.length > 0) throw new Error(`node:crypto.createCipheriv(${name}) with a ${ivBytes.length}-byte IV is not supported by the Paseo plugin host yet (12 bytes are)`);
      throw nodeError(TypeError, "ERR_CRYPTO_INVALID_IV", "Invalid initialization vector");
    }
    let tagLength = 16;
    if (spec.mode === "aead" && options?.authTagLength !== undefined) {
      tagLength = options.authTagLength;
      if (!Number.isInteger(tagLength) || tagLength < 4 || tagLength > 16 || (name.includes("gcm") && tagLength < 12 && tagLength !== 4 && tagLength !== 8)) {
        throw nodeError(TypeError, "ERR_CRYPTO_INVALID_AUTH_TAG", `Invalid authentication tag length: ${tagLength}`);
      }
    }
    Object.defineProperty(this, kState, {
      value: { encrypt, name, spec, key: keyBytes, iv: ivBytes, pending: new Uint8Array(0), counterOffset: 0, padding: true, done: false, aad: new Uint8Array(0), chunks: [], tag: null, tagLength },
    });
    if (name.endsWith("-gcm")) this[kState].counter = joined([ivBytes, new Uint8Array([0, 0, 0, 2])]);
  }
  update(data, inputEncoding, outputEncoding) {
    const s = this[kState];
    if (s.done) throw nodeError(Error, "ERR_CRYPTO_INVALID_STATE", "Invalid state for operation update");
    const bytes = new Uint8Array(toBytes(data, inputEncoding));
    let out;
    if (s.spec.mode === "aead") {
      s.chunks.push(bytes);
      if (s.counter) {
        out = ops.op_crypto_aes_ctr(s.key, s.counter, s.counterOffset, bytes);
        advanceCounter(s, s.counter, bytes.length);
      } else {
        out = new Uint8Array(0);
      }
    } else if (s.spec.mode === "ctr") {
      out = ops.op_crypto_aes_ctr(s.key, s.iv, s.counterOffset, bytes);
      advanceCounter(s, s.iv, bytes.length);
    } else {
      const all = joined([s.pending, bytes]);
      // Decrypting with padding holds the last whole block back for final().
      let take = all.length - (all.length % 16);
      if (!s.encrypt && s.padding && take === all.length && take > 0) take -= 16;
      out = cbc(s, all.subarray(0, take));
      s.pending = all.slice(take);
    }
    return output(out, outputEncoding);
  }
  final(outputEncoding) {
    const s = this[kState];
    if (s.done) throw nodeError(Error, "ERR_CRYPTO_INVALID_STATE", "Invalid state for operation final");
    s.done = true;
    let out = new Uint8Array(0);
    if (s.spec.mode === "aead") {
      const data = joined(s.chunks);
      if (s.encrypt) {
        const sealed = ops.op_crypto_aead(s.name, true, s.key, s.iv, s.aad, data);
        if (!s.counter) out = sealed.subarray(0, sealed.length - 16);
        s.tag = sealed.slice(sealed.length - 16, sealed.length - 16 + s.tagLength);
      } else {
        if (!s.tag || s.tag.length !== 16) throw authFailed();
        let opened;
        try {
          opened = ops.op_crypto_aead(s.name, false, s.key, s.iv, s.aad, joined([data, s.tag]));
        } catch {
          throw authFailed();
        }
        if (!s.counter) out = opened;
      }
    } else if (s.spec.mode === "cbc") {
      if (s.encrypt) {
        if (s.padding) {
          const n = 16 - (s.pending.length % 16);
          out = cbc(s, joined([s.pending, new Uint8Array(n).fill(n)]));
        } else if (s.pending.length) {
          throw nodeError(Error, "ERR_OSSL_WRONG_FINAL_BLOCK_LENGTH", "error:1C80006B:Provider routines::wrong final block length");
        }
      } else if (s.padding) {
        if (s.pending.length !== 16) throw nodeError(Error, "ERR_OSSL_WRONG_FINAL_BLOCK_LENGTH", "error:1C80006B:Provider routines::wrong final block length");
        const block = cbc(s, s.pending);
        const n = block[15];
        if (n < 1 || n > 16 || block.subarray(16 - n).some((b) => b !== n)) throw badDecrypt();
        out = block.subarray(0, 16 - n);
      } else if (s.pending.length) {
        throw nodeError(Error, "ERR_OSSL_WRONG_FINAL_BLOCK_LENGTH", "error:1C80006B:Provider routines::wrong final block length");
      }
    }
    return output(out, outputEncoding);
  }
  setAutoPadding(autoPadding = true) {
    this[kState].padding = !!autoPadding;
    return this;
  }
  setAAD(buffer, options) {
    const s = this[kState];
    if (s.spec.mode !== "aead" || s.done) throw nodeError(Error, "ERR_CRYPTO_INVALID_STATE", "Invalid state for operation setAAD");
    s.aad = joined([s.aad, new Uint8Array(viewOf(buffer, "buffer"))]);
    return this;
  }
}
function cbc(s, blocks) {
  if (!blocks.length) return new Uint8Array(0);
  const out = ops.op_crypto_aes_cbc(s.encrypt, s.key, s.iv, blocks);
  s.iv = (s.encrypt ? out : blocks).slice(-16);
  return out;
}
function advanceCounter(s, iv, n) {
  let blocks = Math.floor((s.counterOffset + n) / 16);
  s.counterOffset = (s.counterOffset + n) % 16;
  for (let i = 15; i >= 0 && blocks > 0; i--) {
    const v = iv[i] + (blocks % 256);
    blocks = Math.floor(blocks / 256) + (v > 255 ? 1 : 0);
    iv[i] = v & 255;
  }
}

export class Cipheriv extends CipherBase {
  constructor(cipher, key, iv, options) {
    super(true, cipher, key, iv, options);
  }
  getAuthTag() {
    const s = this[kState];
    if (!s.tag) throw nodeError(Error, "ERR_CRYPTO_INVALID_STATE", "Invalid state for operation getAuthTag");
    return Buffer.from(s.tag);
  }
}
export class Decipheriv extends CipherBase {
  constructor(cipher, key, iv, options) {
    super(false, cipher, key, iv, options);
  }
  setAuthTag(tagbuf, encoding) {
    const s = this[kState];
    const tag = typeof tagbuf === "string" ? Buffer.from(tagbuf, Buffer.isEncoding(encoding) ? encoding : "utf8") : viewOf(tagbuf, "buffer");
    if (s.spec.mode !== "aead" || s.done || s.tag) throw nodeError(Error, "ERR_CRYPTO_INVALID_STATE", "Invalid state for operation setAuthTag");
    if (tag.length < 4 || tag.length > 16) throw nodeError(TypeError, "ERR_CRYPTO_INVALID_AUTH_TAG", `Invalid authentication tag length: ${tag.length}`);
    s.tag = new Uint8Array(tag);
    return this;
  }
}
for (const Class of [Cipheriv, Decipheriv]) {
  for (const name of STREAM_METHODS) Class.prototype[name] = unsupported(`node:crypto.${Class.name}.${name}`);
}
export const createCipheriv = (cipher, key, iv, options) => new Cipheriv(cipher, key, iv, options);
export const createDecipheriv = (cipher, key, iv, options) => new Decipheriv(cipher, key, iv, options);

// ---------------------------------------------------------------- key derivation

const BINARY_LIKE = "of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView";
function binaryLike(v, name) {
  if (typeof v === "string") return new Uint8Array(Buffer.from(v, "utf8"));
  if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return bytesOf(v);
  throw errArgType(name, BINARY_LIKE, v);
}
function validateInt(v, name, min, max) {
  if (typeof v !== "number") throw errArgType(name, "of type number", v);
  if (!Number.isInteger(v)) throw errRange(name, "an integer", v);
  if (v < min || v > max) throw errRange(name, `>= ${min} && <= ${max}`, v);
}
const INT32_MAX = 2 ** 31 - 1;
const invalidDigest = (d) => nodeError(TypeError, "ERR_CRYPTO_INVALID_DIGEST", `Invalid digest: ${d}`);
const asBuffer = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
/** Runs a promise-returning op and answers a Node callback. */
function toCallback(promise, callback, wrap = asBuffer) {
  promise.then((v) => callback(null, wrap(v)), (e) => callback(e));
}

function pbkdf2Args(password, salt, iterations, keylen, digest) {
  const pw = binaryLike(password, "password"), s = binaryLike(salt, "salt");
  validateInt(iterations, "iterations", 1, INT32_MAX);
  validateInt(keylen, "keylen", 0, INT32_MAX);
  validateString(digest, "digest");
  const hash = normHash(digest);
  if (!hash) throw invalidDigest(digest);
  return [hash, pw, s, iterations, keylen];
}
export function pbkdf2Sync(password, salt, iterations, keylen, digest) {
  return asBuffer(ops.op_crypto_pbkdf2(...pbkdf2Args(password, salt, iterations, keylen, digest)));
}
export function pbkdf2(password, salt, iterations, keylen, digest, callback) {
  if (typeof digest === "function") [callback, digest] = [digest, undefined];
  const args = pbkdf2Args(password, salt, iterations, keylen, digest);
  validateFunction(callback, "callback");
  toCallback(ops.op_crypto_pbkdf2_async(...args), callback);
}

function hkdfArgs(digest, ikm, salt, info, keylen) {
  validateString(digest, "digest");
  const hash = normHash(digest);
  if (!hash) throw invalidDigest(digest);
  let key;
  if (ikm instanceof CryptoKey) ikm = ikm[kKey];
  if (ikm instanceof KeyObject) {
    if (ikm.type !== "secret") throw errInvalidKeyObjectType(ikm.type, "secret");
    key = ikm[kKey];
  } else if (typeof ikm === "string" || ikm instanceof ArrayBuffer || ArrayBuffer.isView(ikm)) {
    key = binaryLike(ikm, "ikm");
  } else {
    throw errArgType("ikm", "of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, or KeyObject", ikm);
  }
  const s = binaryLike(salt, "salt"), i = binaryLike(info, "info");
  validateInt(keylen, "length", 0, INT32_MAX);
  if (i.length > 1024) throw errRange("info", "must not contain more than 1024 bytes", i.length);
  if (keylen > 255 * HASH_SIZES[hash]) throw nodeError(RangeError, "ERR_CRYPTO_INVALID_KEYLEN", "Invalid key length");
  return [hash, key, s, i, keylen];
}
const toArrayBuffer = (u8) => (u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength ? u8.buffer : u8.slice().buffer);
export function hkdfSync(digest, ikm, salt, info, keylen) {
  return toArrayBuffer(ops.op_crypto_hkdf(...hkdfArgs(digest, ikm, salt, info, keylen)));
}
export function hkdf(digest, ikm, salt, info, keylen, callback) {
  const args = hkdfArgs(digest, ikm, salt, info, keylen);
  validateFunction(callback, "callback");
  let result, error = null;
  try {
    result = toArrayBuffer(ops.op_crypto_hkdf(...args));
  } catch (e) {
    error = e;
  }
  later(callback, error, result);
}

function scryptArgs(password, salt, keylen, options) {
  const pw = binaryLike(password, "password"), s = binaryLike(salt, "salt");
  validateInt(keylen, "keylen", 0, INT32_MAX);
  const o = options ?? {};
  const pick = (a, b, def) => {
    if (o[a] !== undefined && o[b] !== undefined) throw nodeError(TypeError, "ERR_INCOMPATIBLE_OPTION_PAIR", `Option "${a}" cannot be used in combination with option "${b}"`);
    return o[a] ?? o[b] ?? def;
  };
  const N = pick("N", "cost", 16384), r = pick("r", "blockSize", 8), p = pick("p", "parallelization", 1);
  const maxmem = o.maxmem ?? 32 * 1024 * 1024;
  const invalid = () => nodeError(RangeError, "ERR_CRYPTO_INVALID_SCRYPT_PARAMS", "Invalid scrypt params");
  for (const [name, v] of [["N", N], ["r", r], ["p", p]]) {
    if (!Number.isInteger(v) || v < 0) throw invalid();
    void name;
  }
  if (N < 2 || (N & (N - 1)) !== 0 || r < 1 || p < 1 || 128 * N * r > maxmem) throw invalid();
  return [pw, s, N, r, p, keylen];
}
export function scryptSync(password, salt, keylen, options) {
  return asBuffer(ops.op_crypto_scrypt(...scryptArgs(password, salt, keylen, options)));
}
export function scrypt(password, salt, keylen, options, callback) {
  if (typeof options === "function") [callback, options] = [options, undefined];
  const args = scryptArgs(password, salt, keylen, options);
  validateFunction(callback, "callback");
  toCallback(ops.op_crypto_scrypt_async(...args), callback);
}

// ---------------------------------------------------------------- key generation

function keyPairArgs(type, options) {
  validateString(type, "type");
  const o = options ?? {};
  if (type === "rsa") {
    validateInt(o.modulusLength, "options.modulusLength", 0, 2 ** 32 - 1);
    if (o.publicExponent !== undefined && o.publicExponent !== 65537) {
      throw new Error("node:crypto.generateKeyPair('rsa') with a publicExponent other than 65537 is not supported by the Paseo plugin host yet");
    }
    if (![2048, 3072, 4096, 8192].includes(o.modulusLength)) {
      throw new Error(`node:crypto.generateKeyPair('rsa') with modulusLength ${o.modulusLength} is not supported by the Paseo plugin host yet (2048, 3072, 4096 and 8192 are)`);
    }
    return ["rsa", "", o.modulusLength];
  }
  if (type === "ec") {
    validateString(o.namedCurve, "options.namedCurve");
    const curve = CURVE_ALIASES[o.namedCurve];
    if (!curve) throw nodeError(TypeError, "ERR_CRYPTO_INVALID_CURVE", "Invalid EC curve name");
    return ["ec", curve, 0];
  }
  if (type === "ed25519") return ["ed25519", "", 0];
  if (["rsa-pss", "dsa", "ed448", "x25519", "x448", "dh"].includes(type)) throw new Error(`node:crypto.generateKeyPair('${type}') is not supported by the Paseo plugin host yet`);
  throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'type' must be a supported key type. Received '${type}'`);
}
function encodePair(pkcs8, options) {
  const k = completePrivate(fromPkcs8(pkcs8));
  const privateKey = new PrivateKeyObject(k), publicKey = new PublicKeyObject(publicPart(k));
  const enc = (key, encoding) => (encoding === undefined ? key : encoding.format === "jwk" ? key.export(encoding) : key.export(encoding));
  return { publicKey: enc(publicKey, options?.publicKeyEncoding), privateKey: enc(privateKey, options?.privateKeyEncoding) };
}
export function generateKeyPairSync(type, options) {
  const args = keyPairArgs(type, options);
  return encodePair(ops.op_crypto_generate_key_pair(...args), options);
}
export function generateKeyPair(type, options, callback) {
  if (typeof options === "function") [callback, options] = [options, undefined];
  validateFunction(callback, "callback");
  const args = keyPairArgs(type, options);
  ops.op_crypto_generate_key_pair_async(...args).then(
    (pkcs8) => {
      let pair;
      try {
        pair = encodePair(pkcs8, options);
      } catch (e) {
        return callback(e);
      }
      callback(null, pair.publicKey, pair.privateKey);
    },
    (e) => callback(e),
  );
}
// `util.promisify(generateKeyPair)` resolves `{ publicKey, privateKey }`, as Node's does.
Object.defineProperty(generateKeyPair, Symbol.for("nodejs.util.promisify.custom"), {
  enumerable: false,
  value: (type, options) => new Promise((resolve, reject) => {
    generateKeyPair(type, options, (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey })));
  }),
});

function secretKeyArgs(type, options) {
  validateString(type, "type");
  if (options === null || typeof options !== "object") throw errArgType("options", "of type object", options);
  const { length } = options;
  if (type === "hmac") {
    validateInt(length, "options.length", 8, INT32_MAX);
    return Math.floor(length / 8);
  }
  if (type === "aes") {
    if (![128, 192, 256].includes(length)) throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.length' must be one of: 128, 192, 256. Received ${length}`);
    return length / 8;
  }
  throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'type' must be a supported key type. Received '${type}'`);
}
export function generateKeySync(type, options) {
  return new SecretKeyObject(fill(new Uint8Array(secretKeyArgs(type, options))));
}
export function generateKey(type, options, callback) {
  const n = secretKeyArgs(type, options);
  validateFunction(callback, "callback");
  later(callback, null, new SecretKeyObject(fill(new Uint8Array(n))));
}

// ---------------------------------------------------------------- RSA encryption

function rsaCipher(encrypt, key, buffer) {
  const { k, isPrivate, opts } = prepareAsymmetric(key, encrypt ? "public" : "private");
  if (k.kind !== "rsa") throw nodeError(Error, "ERR_OSSL_EVP_OPERATION_NOT_SUPPORTED_FOR_THIS_KEYTYPE", "error:03000096:digital envelope routines::operation not supported for this keytype");
  void isPrivate;
  const padding = opts.padding ?? 4;
  if (!encrypt && padding === 1) {
    throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", "RSA_PKCS1_PADDING is no longer supported for private decryption, this can be reverted with --security-revert=CVE-2023-46809");
  }
  if (padding !== 1 && padding !== 4) throw new Error(`node:crypto RSA padding ${padding} is not supported by the Paseo plugin host yet`);
  let hash = "sha1";
  if (opts.oaepHash !== undefined) {
    validateString(opts.oaepHash, "key.oaepHash");
    hash = normHash(opts.oaepHash);
    if (!hash) throw nodeError(TypeError, "ERR_OSSL_EVP_INVALID_DIGEST", "error:0300008E:digital envelope routines::invalid digest");
  }
  const label = opts.oaepLabel === undefined ? new Uint8Array(0) : viewOf(opts.oaepLabel, "key.oaepLabel");
  const data = typeof buffer === "string" ? new Uint8Array(Buffer.from(buffer, "utf8")) : viewOf(buffer, "buffer");
  try {
    return asBuffer(ops.op_crypto_rsa_cipher(encrypt, encrypt ? spkiOf(k) : pkcs8Of(k), padding, hash, label, data));
  } catch {
    if (encrypt) throw nodeError(Error, "ERR_OSSL_RSA_DATA_TOO_LARGE_FOR_KEY_SIZE", "error:0200006E:rsa routines::data too large for key size");
    throw nodeError(Error, "ERR_OSSL_RSA_OAEP_DECODING_ERROR", "error:02000079:rsa routines::oaep decoding error");
  }
}
export const publicEncrypt = (key, buffer) => rsaCipher(true, key, buffer);
export const privateDecrypt = (key, buffer) => rsaCipher(false, key, buffer);

// ---------------------------------------------------------------- CryptoKey (webcrypto)

const kAlgorithmInfo = Symbol("kAlgorithmInfo");
class CryptoKey {
  constructor(handle) {
    if (handle !== kConstruct) throw new TypeError("Illegal constructor");
    cryptoKeys.add(this);
  }
  get type() {
    return this[kKey].type;
  }
  get extractable() {
    return this[kAlgorithmInfo].extractable;
  }
  get algorithm() {
    return this[kAlgorithmInfo].algorithm;
  }
  get usages() {
    return this[kAlgorithmInfo].usages;
  }
}
Object.defineProperty(CryptoKey.prototype, Symbol.toStringTag, { value: "CryptoKey", configurable: true });
function makeCryptoKey(keyObject, algorithm, extractable, usages) {
  const key = new CryptoKey(kConstruct);
  Object.defineProperty(key, kKey, { value: keyObject });
  Object.defineProperty(key, kAlgorithmInfo, { value: { algorithm, extractable, usages } });
  return key;
}

// ---------------------------------------------------------------- webcrypto

const SUBTLE_DIGESTS = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };
const dom = (message, name) => new DOMException(message, name);
const ALG_NAMES = ["HMAC", "AES-GCM", "AES-CBC", "AES-CTR", "PBKDF2", "HKDF", "RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP", "ECDSA", "Ed25519"];
function normAlg(algorithm) {
  const a = typeof algorithm === "string" ? { name: algorithm } : algorithm;
  if (a === null || typeof a !== "object" || typeof a.name !== "string") throw dom("Unrecognized algorithm name", "NotSupportedError");
  const name = ALG_NAMES.find((n) => n.toUpperCase() === a.name.toUpperCase());
  if (!name) throw dom("Unrecognized algorithm name", "NotSupportedError");
  return { ...a, name };
}
function hashName(h) {
  const name = typeof h === "string" ? h : h?.name;
  const canon = typeof name === "string" ? Object.keys(SUBTLE_DIGESTS).find((k) => k === name.toUpperCase()) : undefined;
  if (!canon) throw dom("Unrecognized algorithm name", "NotSupportedError");
  return canon;
}
const bufferSource = (v, what = "data") => {
  if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return new Uint8Array(bytesOf(v));
  throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `Failed to execute '${what}' on 'SubtleCrypto': argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.`);
};
const abOf = (u8) => toArrayBuffer(new Uint8Array(u8));
function checkUsage(key, usage, alg) {
  if (!(key instanceof CryptoKey)) throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "key" argument must be an instance of CryptoKey.${describe(key)}`);
  if (alg && key.algorithm.name !== alg) throw dom("The requested operation is not valid for the provided key", "InvalidAccessError");
  if (!key.usages.includes(usage)) throw dom(`Unable to use this key to ${usage}`, "InvalidAccessError");
}
const RSA_ALGS = ["RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP"];
const PUBLIC_USAGES = { "RSASSA-PKCS1-v1_5": ["verify"], "RSA-PSS": ["verify"], ECDSA: ["verify"], Ed25519: ["verify"], "RSA-OAEP": ["encrypt", "wrapKey"] };
const PRIVATE_USAGES = { "RSASSA-PKCS1-v1_5": ["sign"], "RSA-PSS": ["sign"], ECDSA: ["sign"], Ed25519: ["sign"], "RSA-OAEP": ["decrypt", "unwrapKey"] };
const SECRET_USAGES = { HMAC: ["sign", "verify"], "AES-GCM": ["encrypt", "decrypt", "wrapKey", "unwrapKey"], "AES-CBC": ["encrypt", "decrypt", "wrapKey", "unwrapKey"], "AES-CTR": ["encrypt", "decrypt", "wrapKey", "unwrapKey"], PBKDF2: ["deriveBits", "deriveKey"], HKDF: ["deriveBits", "deriveKey"] };

function checkUsages(usages, allowed) {
  if (!Array.isArray(usages)) throw errArgType("keyUsages", "an instance of Array", usages);
  for (const u of usages) if (!allowed.includes(u)) throw dom("Unsupported key usage for this key", "SyntaxError");
}

function asymmetricAlgorithm(alg, k) {
  if (RSA_ALGS.includes(alg.name)) {
    if (k.kind !== "rsa") throw dom("Invalid key type", "DataError");
    const details = { modulusLength: k.rsa[0].length * 8 - Math.clz32(k.rsa[0][0]) + 24, publicExponent: new Uint8Array(k.rsa[1]) };
    return { name: alg.name, ...details, hash: { name: hashName(alg.hash) } };
  }
  if (alg.name === "ECDSA") {
    if (k.kind !== "ec") throw dom("Invalid key type", "DataError");
    if (alg.namedCurve !== k.curve) throw dom("Named curve mismatch", "DataError");
    return { name: "ECDSA", namedCurve: k.curve };
  }
  if (k.kind !== "ed25519") throw dom("Invalid key type", "DataError");
  return { name: "Ed25519" };
}

function importSecret(format, keyData, alg, extractable, usages, generated = false) {
  let bytes;
  if (format === "raw") bytes = bufferSource(keyData, "importKey");
  else if (format === "jwk") {
    if (keyData?.kty !== "oct") throw dom("Invalid JWK \"kty\" Parameter", "DataError");
    bytes = unb64url(keyData.k ?? "");
  } else throw dom(`Unable to import ${alg.name} key with format ${format}`, "NotSupportedError");
  checkUsages(usages, SECRET_USAGES[alg.name]);
  let algorithm;
  // Node orders the HMAC algorithm's members differently for imported and generated keys.
  if (alg.name === "HMAC" && generated) algorithm = { name: "HMAC", length: alg.length ?? bytes.length * 8, hash: { name: hashName(alg.hash) } };
  else if (alg.name === "HMAC") algorithm = { name: "HMAC", hash: { name: hashName(alg.hash) }, length: alg.length ?? bytes.length * 8 };
  else if (alg.name.startsWith("AES")) {
    if (![16, 24, 32].includes(bytes.length)) throw dom("Invalid key length", "DataError");
    algorithm = { name: alg.name, length: bytes.length * 8 };
  } else {
    if (extractable) throw dom(`${alg.name} keys are not extractable`, "SyntaxError");
    algorithm = { name: alg.name };
  }
  return makeCryptoKey(new SecretKeyObject(bytes), algorithm, extractable, usages);
}

function importAsymmetric(format, keyData, alg, extractable, usages) {
  let k, isPrivate;
  try {
    if (format === "spki") [k, isPrivate] = [fromSpki(bufferSource(keyData, "importKey")), false];
    else if (format === "pkcs8") [k, isPrivate] = [completePrivate(fromPkcs8(bufferSource(keyData, "importKey"))), true];
    else if (format === "jwk") {
      ({ k, isPrivate } = fromJwk(keyData, false));
      if (isPrivate) completePrivate(k);
    } else if (format === "raw" && (alg.name === "ECDSA" || alg.name === "Ed25519")) {
      const pub = bufferSource(keyData, "importKey");
      k = alg.name === "ECDSA" ? { kind: "ec", curve: alg.namedCurve, pub } : { kind: "ed25519", pub };
      isPrivate = false;
    } else throw dom(`Unable to import ${alg.name} key with format ${format}`, "NotSupportedError");
  } catch (e) {
    if (e instanceof DOMException) throw e;
    throw dom("Invalid keyData", "DataError");
  }
  checkUsages(usages, (isPrivate ? PRIVATE_USAGES : PUBLIC_USAGES)[alg.name]);
  const algorithm = asymmetricAlgorithm(alg, k);
  const obj = isPrivate ? new PrivateKeyObject(k) : new PublicKeyObject(publicPart(k));
  return makeCryptoKey(obj, algorithm, isPrivate ? extractable : true, usages);
}

const JWK_ALG = {
  HMAC: (a) => `HS${a.hash.name.slice(4)}`, "RSASSA-PKCS1-v1_5": (a) => `RS${a.hash.name.slice(4)}`, "RSA-PSS": (a) => `PS${a.hash.name.slice(4)}`,
  "RSA-OAEP": (a) => (a.hash.name === "SHA-1" ? "RSA-OAEP" : `RSA-OAEP-${a.hash.name.slice(4)}`),
  "AES-GCM": (a) => `A${a.length}GCM`, "AES-CBC": (a) => `A${a.length}CBC`, "AES-CTR": (a) => `A${a.length}CTR`,
};

export const subtle = {
  async digest(algorithm, data) {
    if (!(data instanceof ArrayBuffer) && !ArrayBuffer.isView(data)) {
      throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", "Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.");
    }
    const name = typeof algorithm === "string" ? algorithm : algorithm?.name;
    const alg = typeof name === "string" ? SUBTLE_DIGESTS[name.toUpperCase()] : undefined;
    if (!alg) throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
    const out = ops.op_crypto_digest(alg, bytesOf(data));
    return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out.buffer : out.slice().buffer;
  },
  async importKey(format, keyData, algorithm, extractable, keyUsages) {
    const alg = normAlg(algorithm);
    if (SECRET_USAGES[alg.name]) return importSecret(format, keyData, alg, !!extractable, [...keyUsages]);
    return importAsymmetric(format, keyData, alg, !!extractable, [...keyUsages]);
  },
  async exportKey(format, key) {
    if (!(key instanceof CryptoKey)) throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "key" argument must be an instance of CryptoKey.${describe(key)}`);
    if (!key.extractable) throw dom("key is not extractable", "InvalidAccessException"); // sic: Node 20's name
    const obj = key[kKey];
    if (format === "jwk") {
      const jwk = obj.type === "secret" ? { kty: "oct", k: b64url(obj[kKey]) } : toJwk(obj[kKey], obj.type === "private");
      const alg = JWK_ALG[key.algorithm.name]?.(key.algorithm);
      return { key_ops: [...key.usages], ext: true, ...jwk, ...(alg ? { alg } : {}) };
    }
    if (format === "raw") {
      if (obj.type === "secret") return abOf(obj[kKey]);
      if (obj.type === "public" && obj[kKey].kind !== "rsa") return abOf(obj[kKey].pub);
    }
    if (format === "spki" && obj.type === "public") return abOf(spkiOf(obj[kKey]));
    if (format === "pkcs8" && obj.type === "private") return abOf(pkcs8Of(obj[kKey]));
    throw dom(`Unable to export a raw ${key.algorithm.name} ${obj.type} key`, "InvalidAccessError");
  },
  async sign(algorithm, key, data) {
    const alg = normAlg(algorithm);
    checkUsage(key, "sign", alg.name);
    return abOf(subtleSign(alg, key, bufferSource(data, "sign")));
  },
  async verify(algorithm, key, signature, data) {
    const alg = normAlg(algorithm);
    checkUsage(key, "verify", alg.name);
    const sig = bufferSource(signature, "verify"), bytes = bufferSource(data, "verify");
    if (alg.name === "HMAC") return timingSafeEqualBytes(subtleSign(alg, key, bytes), sig);
    const k = key[kKey][kKey];
    const hash = alg.name === "Ed25519" ? "" : SUBTLE_DIGESTS[hashName(alg.name === "ECDSA" ? alg.hash : key.algorithm.hash)];
    if (alg.name === "ECDSA") {
      const d = p1363ToDer(sig, CURVES[k.curve].size);
      return d ? ops.op_crypto_verify("ec", k.curve, hash, rawPublic(k), 0, 0, bytes, d) : false;
    }
    const padding = alg.name === "RSA-PSS" ? 6 : 1;
    return ops.op_crypto_verify(k.kind, "", hash, rawPublic(k), padding, alg.saltLength ?? -1, bytes, sig);
  },
  async encrypt(algorithm, key, data) {
    const alg = normAlg(algorithm);
    checkUsage(key, "encrypt", alg.name);
    return abOf(subtleCipher(true, alg, key, bufferSource(data, "encrypt")));
  },
  async decrypt(algorithm, key, data) {
    const alg = normAlg(algorithm);
    checkUsage(key, "decrypt", alg.name);
    return abOf(subtleCipher(false, alg, key, bufferSource(data, "decrypt")));
  },
  async deriveBits(algorithm, baseKey, length) {
    const alg = normAlg(algorithm);
    checkUsage(baseKey, "deriveBits", alg.name);
    return abOf(deriveBitsOf(alg, baseKey, length));
  },
  async deriveKey(algorithm, baseKey, derivedKeyAlgorithm, extractable, keyUsages) {
    const alg = normAlg(algorithm);
    checkUsage(baseKey, "deriveKey", alg.name);
    const target = normAlg(derivedKeyAlgorithm);
    const length = target.length ?? (target.name === "HMAC" ? { "SHA-1": 512, "SHA-256": 512, "SHA-384": 1024, "SHA-512": 1024 }[hashName(target.hash)] : undefined);
    if (!length) throw dom("length must be specified", "OperationError");
    return importSecret("raw", deriveBitsOf(alg, baseKey, length), target, !!extractable, [...keyUsages]);
  },
  async generateKey(algorithm, extractable, keyUsages) {
    const alg = normAlg(algorithm);
    if (SECRET_USAGES[alg.name]) {
      const bits = alg.name === "HMAC" ? alg.length ?? { "SHA-1": 512, "SHA-256": 512, "SHA-384": 1024, "SHA-512": 1024 }[hashName(alg.hash)] : alg.length;
      if (alg.name !== "HMAC" && ![128, 192, 256].includes(bits)) throw dom("AES key length must be 128, 192, or 256 bits", "OperationError");
      return importSecret("raw", fill(new Uint8Array(bits / 8)), alg, !!extractable, [...keyUsages], true);
    }
    let args;
    if (RSA_ALGS.includes(alg.name)) {
      const e = alg.publicExponent ? hexOf(strip0(bytesOf(alg.publicExponent))) : "010001";
      if (e !== "010001") throw dom("node:crypto.subtle.generateKey with a publicExponent other than 65537 is not supported by the Paseo plugin host yet", "NotSupportedError");
      if (![2048, 3072, 4096, 8192].includes(alg.modulusLength)) throw dom(`modulusLength ${alg.modulusLength} is not supported by the Paseo plugin host yet`, "NotSupportedError");
      args = ["rsa", "", alg.modulusLength];
    } else if (alg.name === "ECDSA") {
      if (!CURVES[alg.namedCurve]) throw dom("Unrecognized namedCurve", "NotSupportedError");
      args = ["ec", alg.namedCurve, 0];
    } else args = ["ed25519", "", 0];
    const usages = [...keyUsages];
    const pkcs8 = await ops.op_crypto_generate_key_pair_async(...args);
    const k = completePrivate(fromPkcs8(pkcs8));
    const algorithmInfo = asymmetricAlgorithm(alg, k);
    const pub = usages.filter((u) => PUBLIC_USAGES[alg.name].includes(u));
    const priv = usages.filter((u) => PRIVATE_USAGES[alg.name].includes(u));
    checkUsages(usages, [...PUBLIC_USAGES[alg.name], ...PRIVATE_USAGES[alg.name]]);
    return {
      publicKey: makeCryptoKey(new PublicKeyObject(publicPart(k)), algorithmInfo, true, pub),
      privateKey: makeCryptoKey(new PrivateKeyObject(k), algorithmInfo, !!extractable, priv),
    };
  },
};

function subtleSign(alg, key, data) {
  const obj = key[kKey];
  if (alg.name === "HMAC") return new Uint8Array(createHmac(SUBTLE_DIGESTS[key.algorithm.hash.name], obj[kKey]).update(data).digest());
  const k = obj[kKey];
  if (alg.name === "Ed25519") return ops.op_crypto_sign("ed25519", "", "", pkcs8Of(k), 0, 0, data);
  if (alg.name === "ECDSA") {
    const hash = SUBTLE_DIGESTS[hashName(alg.hash)];
    try {
      return derToP1363(ops.op_crypto_sign("ec", k.curve, hash, pkcs8Of(k), 0, 0, data), CURVES[k.curve].size);
    } catch (e) {
      throw dom(e.message, "OperationError");
    }
  }
  const hash = SUBTLE_DIGESTS[key.algorithm.hash.name];
  return ops.op_crypto_sign("rsa", "", hash, pkcs8Of(k), alg.name === "RSA-PSS" ? 6 : 1, alg.saltLength ?? -1, data);
}

function subtleCipher(encrypt, alg, key, data) {
  const obj = key[kKey];
  if (alg.name === "RSA-OAEP") {
    const k = obj[kKey];
    const label = alg.label === undefined ? new Uint8Array(0) : bufferSource(alg.label);
    try {
      return ops.op_crypto_rsa_cipher(encrypt, encrypt ? spkiOf(k) : pkcs8Of(k), 4, SUBTLE_DIGESTS[key.algorithm.hash.name], label, data);
    } catch {
      throw dom("The operation failed for an operation-specific reason", "OperationError");
    }
  }
  const secret = obj[kKey];
  const bits = secret.length * 8;
  if (alg.name === "AES-GCM") {
    const iv = bufferSource(alg.iv);
    const tagLength = alg.tagLength ?? 128;
    if (tagLength !== 128) throw dom(`AES-GCM with tagLength ${tagLength} is not supported by the Paseo plugin host yet`, "NotSupportedError");
    if (iv.length !== 12) throw dom("AES-GCM with an IV of other than 12 bytes is not supported by the Paseo plugin host yet", "NotSupportedError");
    const aad = alg.additionalData === undefined ? new Uint8Array(0) : bufferSource(alg.additionalData);
    try {
      return ops.op_crypto_aead(`aes-${bits}-gcm`, encrypt, secret, iv, aad, data);
    } catch {
      throw dom("The operation failed for an operation-specific reason", "OperationError");
    }
  }
  if (alg.name === "AES-CBC") {
    const iv = bufferSource(alg.iv);
    if (iv.length !== 16) throw dom("algorithm.iv must contain exactly 16 bytes", "OperationError");
    const c = createCipherLike(encrypt, `aes-${bits}-cbc`, secret, iv);
    try {
      return joined([new Uint8Array(c.update(data)), new Uint8Array(c.final())]);
    } catch {
      throw dom("The operation failed for an operation-specific reason", "OperationError");
    }
  }
  // AES-CTR: the whole 16-byte counter block counts (as OpenSSL does; `length` is not applied).
  const counter = bufferSource(alg.counter);
  if (counter.length !== 16) throw dom("algorithm.counter must contain exactly 16 bytes", "OperationError");
  return ops.op_crypto_aes_ctr(secret, counter, 0, data);
}
const createCipherLike = (encrypt, name, key, iv) => (encrypt ? new Cipheriv(name, key, iv) : new Decipheriv(name, key, iv));

function deriveBitsOf(alg, baseKey, length) {
  if (typeof length !== "number" || length % 8 !== 0) throw dom("length must be a multiple of 8", "OperationError");
  const secret = baseKey[kKey][kKey];
  const hash = SUBTLE_DIGESTS[hashName(alg.hash)];
  if (alg.name === "PBKDF2") {
    if (!(alg.iterations > 0)) throw dom("iterations cannot be zero", "OperationError");
    return ops.op_crypto_pbkdf2(hash, secret, bufferSource(alg.salt), alg.iterations, length / 8);
  }
  if (length / 8 > 255 * HASH_SIZES[hash]) throw dom("The operation failed for an operation-specific reason", "OperationError");
  return ops.op_crypto_hkdf(hash, secret, bufferSource(alg.salt), bufferSource(alg.info), length / 8);
}

for (const name of ["wrapKey", "unwrapKey"]) {
  const fail = unsupported(`node:crypto.subtle.${name}`);
  subtle[name] = async () => fail();
}

export const webcrypto = { subtle, getRandomValues, randomUUID };

// ---------------------------------------------------------------- constants and the rest

export const constants = Object.freeze({
  OPENSSL_VERSION_NUMBER: 0,
  RSA_PKCS1_PADDING: 1, RSA_NO_PADDING: 3, RSA_PKCS1_OAEP_PADDING: 4, RSA_X931_PADDING: 5, RSA_PKCS1_PSS_PADDING: 6,
  RSA_PSS_SALTLEN_DIGEST: -1, RSA_PSS_SALTLEN_MAX_SIGN: -2, RSA_PSS_SALTLEN_AUTO: -2,
  POINT_CONVERSION_COMPRESSED: 2, POINT_CONVERSION_UNCOMPRESSED: 4, POINT_CONVERSION_HYBRID: 6,
  defaultCoreCipherList: "", defaultCipherList: "",
});

const missing = (name) => unsupported(`node:crypto.${name}`);
export const createDiffieHellman = missing("createDiffieHellman");
export const createDiffieHellmanGroup = missing("createDiffieHellmanGroup");
export const getDiffieHellman = missing("getDiffieHellman");
export const createECDH = missing("createECDH");
export const diffieHellman = missing("diffieHellman");
export const publicDecrypt = missing("publicDecrypt");
export const privateEncrypt = missing("privateEncrypt");
export const generatePrime = missing("generatePrime");
export const generatePrimeSync = missing("generatePrimeSync");
export const checkPrime = missing("checkPrime");
export const checkPrimeSync = missing("checkPrimeSync");
export const getCipherInfo = missing("getCipherInfo");
export const secureHeapUsed = missing("secureHeapUsed");
export const setEngine = missing("setEngine");
export const setFips = missing("setFips");
export const Cipher = missing("Cipher");
export const Decipher = missing("Decipher");
export const X509Certificate = missing("X509Certificate");
export const Certificate = missing("Certificate");
export const DiffieHellman = missing("DiffieHellman");
export const DiffieHellmanGroup = missing("DiffieHellmanGroup");
export const ECDH = missing("ECDH");
// Node's old aliases of randomBytes.
export const pseudoRandomBytes = randomBytes, prng = randomBytes, rng = randomBytes;

export default {
  randomUUID, randomBytes, pseudoRandomBytes, prng, rng, randomFill, randomFillSync, randomInt, getRandomValues,
  createHash, createHmac, hash, Hash, Hmac, getHashes, getCiphers, getCurves, getFips, timingSafeEqual,
  webcrypto, subtle, constants,
  createCipheriv, createDecipheriv, createSign, createVerify, sign, verify,
  createPrivateKey, createPublicKey, createSecretKey, generateKey, generateKeySync, generateKeyPair, generateKeyPairSync,
  createDiffieHellman, createDiffieHellmanGroup, getDiffieHellman, createECDH, diffieHellman,
  pbkdf2, pbkdf2Sync, scrypt, scryptSync, hkdf, hkdfSync,
  publicEncrypt, publicDecrypt, privateEncrypt, privateDecrypt,
  generatePrime, generatePrimeSync, checkPrime, checkPrimeSync, getCipherInfo, secureHeapUsed, setEngine, setFips,
  Cipher, Cipheriv, Decipher, Decipheriv, Sign, Verify, KeyObject, X509Certificate, Certificate, DiffieHellman, DiffieHellmanGroup, ECDH,
};
