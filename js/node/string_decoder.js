// node:string_decoder: turns a series of byte chunks into strings without splitting a character
// across chunks. Incomplete trailing bytes are kept until the next write (or end()).
import { Buffer } from "node:buffer";
import { received } from "./internal_errors.js";

const ENCODINGS = {
  utf8: "utf8", "utf-8": "utf8", ucs2: "utf16le", "ucs-2": "utf16le", utf16le: "utf16le", "utf-16le": "utf16le",
  latin1: "latin1", binary: "latin1", base64: "base64", base64url: "base64url", hex: "hex", ascii: "ascii",
};

function normalizeEncoding(enc) {
  if (enc === undefined || enc === null || enc === "") return "utf8";
  const name = ENCODINGS[String(enc).toLowerCase()];
  if (name === undefined) {
    const err = new TypeError(`Unknown encoding: ${enc}`);
    err.code = "ERR_UNKNOWN_ENCODING";
    throw err;
  }
  return name;
}

// How many bytes at the end of `b` start a character that is not complete yet, and how many
// bytes that character needs in all: [held, total].
function incompleteTail(enc, b) {
  const len = b.length;
  if (enc === "utf8") {
    for (let j = len - 1; j >= 0 && j >= len - 3; j--) {
      const c = b[j];
      if ((c & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
      if (c < 0xc0 || c >= 0xf8) return [0, 0];
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return len - j < need ? [len - j, need] : [0, 0];
    }
    return [0, 0];
  }
  if (enc === "utf16le") {
    let held = len % 2;
    const unit = len - held >= 2 ? b[len - held - 2] | (b[len - held - 1] << 8) : 0;
    if (unit >= 0xd800 && unit <= 0xdbff) return [held + 2, 4]; // a high surrogate waits for its pair
    return held ? [1, 2] : [0, 0];
  }
  if (enc === "base64" || enc === "base64url") return len % 3 ? [len % 3, 3] : [0, 0];
  return [0, 0];
}

export class StringDecoder {
  #pending = Buffer.alloc(0);
  #total = 0;
  constructor(encoding) {
    this.encoding = normalizeEncoding(encoding);
  }
  write(buf) {
    if (typeof buf === "string") return buf;
    if (!ArrayBuffer.isView(buf)) {
      const err = new TypeError(`The "buf" argument must be an instance of Buffer, TypedArray, or DataView. Received ${received(buf)}`);
      err.code = "ERR_INVALID_ARG_TYPE";
      throw err;
    }
    let bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    let head = "";
    if (this.encoding === "utf16le" && this.#total === 2 && bytes.length) {
      // Node emits a code unit completed by this write as is, even a high surrogate.
      head = Buffer.from([this.#pending[0], bytes[0]]).toString("utf16le");
      bytes = bytes.subarray(1);
      this.#pending = Buffer.alloc(0);
    }
    if (this.#pending.length) bytes = Buffer.concat([this.#pending, bytes]);
    const [held, total] = incompleteTail(this.encoding, bytes);
    this.#pending = Buffer.from(bytes.subarray(bytes.length - held)); // a copy: the caller may reuse its buffer
    this.#total = total;
    return head + bytes.toString(this.encoding, 0, bytes.length - held);
  }
  end(buf) {
    let out = buf === undefined ? "" : this.write(buf);
    const rest = this.#pending;
    this.#pending = Buffer.alloc(0);
    this.#total = 0;
    if (!rest.length) return out;
    if (this.encoding === "utf8") return out + "\ufffd";
    // utf16le drops a lone odd byte but keeps a lone high surrogate, like Node.
    return out + rest.toString(this.encoding, 0, this.encoding === "utf16le" ? rest.length - (rest.length % 2) : rest.length);
  }
  text(buf, offset) {
    return this.write(buf.subarray(offset));
  }
  get lastNeed() { return this.#total - this.#pending.length; }
  get lastTotal() { return this.#total; }
  get lastChar() {
    const out = Buffer.alloc(4);
    this.#pending.copy(out);
    return out;
  }
}

export default { StringDecoder };
