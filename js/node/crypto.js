// node:crypto — randomness, hashes and HMACs (md5, sha1, the sha2 family), timingSafeEqual and
// webcrypto's subtle.digest. A Hash/Hmac holds a Rust resource with the running digest state
// (runtime/src/node/crypto.rs), so update() streams bytes through instead of buffering them here.
// Ciphers, signatures, keys and KDFs fail naming the member.
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
    else throw errArgType("key", "of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey", key);
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
// Nothing below is implemented, so the honest lists are empty.
export const getCiphers = () => [];
export const getCurves = () => [];
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

// ---------------------------------------------------------------- webcrypto

const SUBTLE_DIGESTS = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };

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
};
// Web APIs report failure through the promise, so these reject rather than throw.
for (const name of ["encrypt", "decrypt", "sign", "verify", "generateKey", "deriveKey", "deriveBits", "importKey", "exportKey", "wrapKey", "unwrapKey"]) {
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
export const createCipheriv = missing("createCipheriv");
export const createDecipheriv = missing("createDecipheriv");
export const createSign = missing("createSign");
export const createVerify = missing("createVerify");
export const sign = missing("sign");
export const verify = missing("verify");
export const createPrivateKey = missing("createPrivateKey");
export const createPublicKey = missing("createPublicKey");
export const createSecretKey = missing("createSecretKey");
export const generateKey = missing("generateKey");
export const generateKeySync = missing("generateKeySync");
export const generateKeyPair = missing("generateKeyPair");
export const generateKeyPairSync = missing("generateKeyPairSync");
export const createDiffieHellman = missing("createDiffieHellman");
export const createDiffieHellmanGroup = missing("createDiffieHellmanGroup");
export const getDiffieHellman = missing("getDiffieHellman");
export const createECDH = missing("createECDH");
export const diffieHellman = missing("diffieHellman");
export const pbkdf2 = missing("pbkdf2");
export const pbkdf2Sync = missing("pbkdf2Sync");
export const scrypt = missing("scrypt");
export const scryptSync = missing("scryptSync");
export const hkdf = missing("hkdf");
export const hkdfSync = missing("hkdfSync");
export const publicEncrypt = missing("publicEncrypt");
export const publicDecrypt = missing("publicDecrypt");
export const privateEncrypt = missing("privateEncrypt");
export const privateDecrypt = missing("privateDecrypt");
export const generatePrime = missing("generatePrime");
export const generatePrimeSync = missing("generatePrimeSync");
export const checkPrime = missing("checkPrime");
export const checkPrimeSync = missing("checkPrimeSync");
export const getCipherInfo = missing("getCipherInfo");
export const secureHeapUsed = missing("secureHeapUsed");
export const setEngine = missing("setEngine");
export const setFips = missing("setFips");
export const Cipher = missing("Cipher");
export const Cipheriv = missing("Cipheriv");
export const Decipher = missing("Decipher");
export const Decipheriv = missing("Decipheriv");
export const Sign = missing("Sign");
export const Verify = missing("Verify");
export const KeyObject = missing("KeyObject");
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
