// node:sqlite — Node 22's synchronous SQLite API (`DatabaseSync`, `StatementSync`) on the
// engine's ops (runtime/src/node/sqlite.rs), evaluated on first use (import, require or
// `process.getBuiltinModule("node:sqlite")`, as in Node).
import { ops } from "paseo:internal/core";

const nodeError = (Base, code, message) => Object.assign(new Base(message), { code });
const kHandle = Symbol("kHandle");

// Values cross as JSON: a BLOB as { $b: hex }, an integer JS sees as a BigInt as { $i: digits }.
function encode(value, where) {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "number": case "string": return value;
    case "bigint": return { $i: value.toString() };
    case "boolean": return value ? 1 : 0;
  }
  if (ArrayBuffer.isView(value)) {
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    let hex = "";
    for (const b of bytes) hex += b.toString(16).padStart(2, "0");
    return { $b: hex };
  }
  throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `Provided value cannot be bound to SQLite parameter ${where}.`);
}

function decode(value) {
  if (value === null || typeof value !== "object") return value;
  if ("$i" in value) return BigInt(value.$i);
  const hex = value.$b;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function decodeRow(row) {
  if (row === null) return undefined;
  const out = { __proto__: null };
  for (const key of Object.keys(row)) out[key] = decode(row[key]);
  return out;
}

function params(args) {
  let named = {};
  let positional = args;
  const first = args[0];
  if (first !== null && typeof first === "object" && !ArrayBuffer.isView(first)) {
    named = Object.fromEntries(Object.entries(first).map(([k, v]) => [k, encode(v, k)]));
    positional = args.slice(1);
  }
  return JSON.stringify({ named, positional: positional.map((v, i) => encode(v, i + 1)) });
}

export class StatementSync {
  #db;
  #sql;
  #bigInts = false;
  #bareNames = true;
  constructor(key, db, sql) {
    if (key !== kHandle) throw nodeError(TypeError, "ERR_ILLEGAL_CONSTRUCTOR", "Illegal constructor");
    this.#db = db;
    this.#sql = sql;
  }
  #step(mode, args) {
    return JSON.parse(ops.op_sqlite_step(this.#db[kHandle](), this.#sql, params(args), mode, this.#bigInts, this.#bareNames));
  }
  run(...args) {
    const { changes, lastInsertRowid } = this.#step(0, args);
    return { changes, lastInsertRowid: decode(lastInsertRowid) };
  }
  get(...args) {
    return decodeRow(this.#step(1, args));
  }
  all(...args) {
    return this.#step(2, args).map(decodeRow);
  }
  *iterate(...args) {
    yield* this.all(...args);
  }
  setReadBigInts(enabled) {
    if (typeof enabled !== "boolean") throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "readBigInts" argument must be a boolean.');
    this.#bigInts = enabled;
  }
  setAllowBareNamedParameters(enabled) {
    if (typeof enabled !== "boolean") throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "allowBareNamedParameters" argument must be a boolean.');
    this.#bareNames = enabled;
  }
  get sourceSQL() {
    return this.#sql;
  }
}

export class DatabaseSync {
  #id = null;
  #path;
  #options;
  constructor(path, options = {}) {
    if (typeof path !== "string" && !(path instanceof URL) && !ArrayBuffer.isView(path)) {
      throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "path" argument must be a string, Uint8Array, or URL without null bytes.');
    }
    if (options === null || typeof options !== "object") {
      throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "options" argument must be an object.');
    }
    this.#path = path instanceof URL ? path.href : ArrayBuffer.isView(path) ? new TextDecoder().decode(path) : path;
    this.#options = {
      readOnly: options.readOnly ?? false,
      enableForeignKeyConstraints: options.enableForeignKeyConstraints ?? true,
      enableDoubleQuotedStringLiterals: options.enableDoubleQuotedStringLiterals ?? false,
    };
    // The statements' handle on the connection (not enumerable, not for plugins).
    Object.defineProperty(this, kHandle, { value: () => this.#open() });
    if (options.open ?? true) this.open();
  }
  #open() {
    if (this.#id === null) throw nodeError(Error, "ERR_INVALID_STATE", "database is not open");
    return this.#id;
  }
  open() {
    if (this.#id !== null) throw nodeError(Error, "ERR_INVALID_STATE", "database is already open");
    const o = this.#options;
    this.#id = ops.op_sqlite_open(this.#path, o.readOnly, o.enableForeignKeyConstraints, o.enableDoubleQuotedStringLiterals);
  }
  get isOpen() {
    return this.#id !== null;
  }
  close() {
    ops.op_sqlite_close(this.#open());
    this.#id = null;
  }
  exec(sql) {
    if (typeof sql !== "string") throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "sql" argument must be a string.');
    ops.op_sqlite_exec(this.#open(), sql);
  }
  prepare(sql) {
    if (typeof sql !== "string") throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "sql" argument must be a string.');
    ops.op_sqlite_prepare(this.#open(), sql);
    return new StatementSync(kHandle, this, sql);
  }
  [Symbol.dispose]() {
    if (this.#id !== null) this.close();
  }
}

export const constants = Object.freeze({
  SQLITE_CHANGESET_OMIT: 0,
  SQLITE_CHANGESET_REPLACE: 1,
  SQLITE_CHANGESET_ABORT: 2,
});

export default { DatabaseSync, StatementSync, constants };
