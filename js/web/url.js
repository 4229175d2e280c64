// WHATWG URL parsed in Rust by the `url` crate (op_url_parse); URLSearchParams in JS.
// Bootstrap evaluates this module while `Deno` is still visible.
const { ops } = globalThis.Deno.core;

function parse(input, base) {
  const parts = ops.op_url_parse(String(input), base === undefined ? undefined : String(base));
  if (parts === null) {
    const err = new TypeError(`Invalid URL: ${input}`);
    err.code = "ERR_INVALID_URL";
    err.input = String(input);
    throw err;
  }
  return parts;
}

export class URLSearchParams {
  #list = [];
  #url = null;
  constructor(init = "") {
    if (typeof init === "object" && init !== null) {
      if (init instanceof URLSearchParams) this.#list = init.#list.map(([k, v]) => [k, v]);
      else if (Symbol.iterator in init) for (const [k, v] of init) this.#list.push([String(k), String(v)]);
      else for (const k of Object.keys(init)) this.#list.push([k, String(init[k])]);
    } else {
      this.#parse(String(init));
    }
  }
  #parse(text) {
    this.#list = [];
    for (const pair of text.replace(/^\?/, "").split("&")) {
      if (!pair) continue;
      const i = pair.indexOf("=");
      const dec = (s) => { try { return decodeURIComponent(s.replace(/\+/g, " ")); } catch { return s; } };
      this.#list.push(i < 0 ? [dec(pair), ""] : [dec(pair.slice(0, i)), dec(pair.slice(i + 1))]);
    }
  }
  static _attach(params, url, search) { params.#url = url; params.#parse(search); }
  #update() { if (this.#url) this.#url._setSearchFromParams(this.toString()); }
  get size() { return this.#list.length; }
  append(k, v) { this.#list.push([String(k), String(v)]); this.#update(); }
  delete(k, v) { this.#list = this.#list.filter(([a, b]) => !(a === String(k) && (v === undefined || b === String(v)))); this.#update(); }
  get(k) { return this.#list.find(([a]) => a === String(k))?.[1] ?? null; }
  getAll(k) { return this.#list.filter(([a]) => a === String(k)).map(([, b]) => b); }
  has(k, v) { return this.#list.some(([a, b]) => a === String(k) && (v === undefined || b === String(v))); }
  set(k, v) {
    const i = this.#list.findIndex(([a]) => a === String(k));
    if (i < 0) this.#list.push([String(k), String(v)]);
    else { this.#list[i][1] = String(v); this.#list = this.#list.filter(([a], j) => j <= i || a !== String(k)); }
    this.#update();
  }
  sort() { this.#list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)); this.#update(); }
  forEach(fn, thisArg) { for (const [k, v] of this.#list) fn.call(thisArg, v, k, this); }
  keys() { return this.#list.map(([k]) => k)[Symbol.iterator](); }
  values() { return this.#list.map(([, v]) => v)[Symbol.iterator](); }
  entries() { return this.#list.map(([k, v]) => [k, v])[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  toString() {
    const enc = (s) => encodeURIComponent(s).replace(/%20/g, "+").replace(/[!'()~]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
    return this.#list.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&");
  }
  get [Symbol.toStringTag]() { return "URLSearchParams"; }
}

export class URL {
  #parts;
  #params = new URLSearchParams();
  constructor(input, base) {
    this.#parts = parse(input, base);
    URLSearchParams._attach(this.#params, this, this.#parts.search);
  }
  static canParse(input, base) { try { parse(input, base); return true; } catch { return false; } }
  static parse(input, base) { try { return new URL(input, base); } catch { return null; } }
  #set(field, value) {
    const parts = field === "href" ? parse(value) : ops.op_url_set(this.#parts.href, field, String(value));
    if (parts === null) return; // the URL standard ignores invalid setter input
    this.#parts = parts;
    if (field === "search" || field === "href") URLSearchParams._attach(this.#params, this, parts.search);
  }
  _setSearchFromParams(query) { this.#parts = ops.op_url_set(this.#parts.href, "search", query) ?? this.#parts; }
  get href() { return this.#parts.href; } set href(v) { this.#set("href", v); }
  get origin() { return this.#parts.origin; }
  get protocol() { return this.#parts.protocol; } set protocol(v) { this.#set("protocol", v); }
  get username() { return this.#parts.username; } set username(v) { this.#set("username", v); }
  get password() { return this.#parts.password; } set password(v) { this.#set("password", v); }
  get host() { return this.#parts.host; } set host(v) { this.#set("host", v); }
  get hostname() { return this.#parts.hostname; } set hostname(v) { this.#set("hostname", v); }
  get port() { return this.#parts.port; } set port(v) { this.#set("port", v); }
  get pathname() { return this.#parts.pathname; } set pathname(v) { this.#set("pathname", v); }
  get search() { return this.#parts.search; } set search(v) { this.#set("search", v); }
  get hash() { return this.#parts.hash; } set hash(v) { this.#set("hash", v); }
  get searchParams() { return this.#params; }
  toString() { return this.#parts.href; }
  toJSON() { return this.#parts.href; }
  get [Symbol.toStringTag]() { return "URL"; }
}
