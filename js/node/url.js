// `node:url`: WHATWG URL, Node's file URL helpers, and Node's legacy URL API (Url, parse,
// format, resolve, resolveObject, domainToASCII, domainToUnicode, urlToHttpOptions).
// The legacy API is written for this engine and tested against Node 20 by
// js/node/test/check-url.mjs; it reproduces Node's observable results, quirks included,
// because npm packages depend on them (e.g. `path` being set, null parts never printed).
import { URL, URLSearchParams } from "paseo:internal/web/url";
import { resolve as resolvePath } from "node:path";
import { parse as parseQs, stringify as stringifyQs } from "node:querystring";

export { URL, URLSearchParams };

// ------------------------------------------------------------------ errors

function codeError(Base, code, message) {
  const err = new Base(message);
  err.code = code;
  return err;
}

// Node's "Received ..." wording in argument errors.
function received(value) {
  if (value == null) return String(value);
  if (typeof value === "function") return `function ${value.name}`;
  if (typeof value === "object") {
    if (value.constructor?.name) return `an instance of ${value.constructor.name}`;
    return Object.keys(value).length ? "[Object: null prototype]" : "[Object: null prototype] {}";
  }
  if (typeof value === "string") {
    const s = value.length > 28 ? `${value.slice(0, 25)}...` : value;
    return `type string (${s.includes("'") ? JSON.stringify(s) : `'${s}'`})`;
  }
  const shown = Object.is(value, -0) ? "-0" : typeof value === "bigint" ? `${value}n` : String(value);
  return `type ${typeof value} (${shown})`;
}

const argTypeError = (name, expected, value) =>
  codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be ${expected}. Received ${received(value)}`);

function invalidUrl(input) {
  const err = codeError(TypeError, "ERR_INVALID_URL", "Invalid URL");
  err.input = input;
  return err;
}

// Node warns (once per process) when a ':' that is not a port is cut out of a host.
let warnedBadPort = false;
function warnInvalidUrl(url) {
  if (warnedBadPort) return;
  warnedBadPort = true;
  globalThis.process?.emitWarning?.(`The URL ${url} is invalid. Future versions of Node.js will throw an error.`,
    "DeprecationWarning", "DEP0170");
}

// ------------------------------------------------------------------ file URLs

export function fileURLToPath(url) {
  const u = typeof url === "string" ? new URL(url) : url;
  if (u.protocol !== "file:") {
    const err = new TypeError("The URL must be of scheme file");
    err.code = "ERR_INVALID_URL_SCHEME";
    throw err;
  }
  if (u.hostname !== "") {
    const err = new TypeError(`File URL host must be "localhost" or empty on linux`);
    err.code = "ERR_INVALID_FILE_URL_HOST";
    throw err;
  }
  if (/%2f/i.test(u.pathname)) {
    const err = new TypeError("File URL path must not include encoded / characters");
    err.code = "ERR_INVALID_FILE_URL_PATH";
    throw err;
  }
  return decodeURIComponent(u.pathname);
}

export function pathToFileURL(path) {
  let p = resolvePath(path);
  if (path.endsWith("/") && !p.endsWith("/")) p += "/";
  const encoded = p.replace(/%/g, "%25").replace(/\\/g, "%5C").replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/\t/g, "%09").replace(/#/g, "%23").replace(/\?/g, "%3F");
  return new URL(`file://${encoded}`);
}

// ------------------------------------------------------------------ punycode (RFC 3492)

const BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, INITIAL_BIAS = 72, INITIAL_N = 128;
const MAX_INT = 0x7fffffff; // the RFC's overflow limit; inputs past it are rejected, not wrapped

function adapt(delta, numPoints, firstTime) {
  delta = firstTime ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / numPoints);
  let k = 0;
  for (; delta > ((BASE - TMIN) * TMAX) >> 1; k += BASE) delta = Math.floor(delta / (BASE - TMIN));
  return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + SKEW));
}

const threshold = (k, bias) => (k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias);
const digitChar = (d) => String.fromCharCode(d < 26 ? 97 + d : 22 + d); // a-z then 0-9

function digitValue(code) {
  if (code >= 48 && code <= 57) return code - 22;
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 97;
  return BASE;
}

/** Punycode of a label (without "xn--"); null when it would overflow. */
function punyEncode(label) {
  const points = Array.from(label, (c) => c.codePointAt(0));
  let out = points.filter((c) => c < 0x80).map((c) => String.fromCharCode(c)).join("");
  const basic = out.length;
  if (basic) out += "-";
  let n = INITIAL_N, delta = 0, bias = INITIAL_BIAS, handled = basic;
  while (handled < points.length) {
    let m = Infinity;
    for (const c of points) if (c >= n && c < m) m = c;
    if ((m - n) * (handled + 1) > MAX_INT - delta) return null;
    delta += (m - n) * (handled + 1);
    n = m;
    for (const c of points) {
      if (c < n && ++delta > MAX_INT) return null;
      if (c !== n) continue;
      let q = delta;
      for (let k = BASE; ; k += BASE) {
        const t = threshold(k, bias);
        if (q < t) break;
        out += digitChar(t + ((q - t) % (BASE - t)));
        q = Math.floor((q - t) / (BASE - t));
      }
      out += digitChar(q);
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return out;
}

/** The label a punycode string (without "xn--") stands for; null when it is malformed. */
function punyDecode(input) {
  const delim = input.lastIndexOf("-");
  const out = [];
  for (let j = 0; j < delim; j++) {
    const c = input.charCodeAt(j);
    if (c >= 0x80) return null;
    out.push(c);
  }
  let n = INITIAL_N, bias = INITIAL_BIAS, i = 0;
  for (let pos = delim > 0 ? delim + 1 : 0; pos < input.length;) {
    const oldi = i;
    for (let w = 1, k = BASE; ; k += BASE) {
      if (pos >= input.length) return null;
      const digit = digitValue(input.charCodeAt(pos++));
      if (digit >= BASE || digit * w > MAX_INT - i) return null;
      i += digit * w;
      const t = threshold(k, bias);
      if (digit < t) break;
      if (w * (BASE - t) > MAX_INT) return null;
      w *= BASE - t;
    }
    const len = out.length + 1;
    bias = adapt(i - oldi, len, oldi === 0);
    n += Math.floor(i / len);
    i %= len;
    if (n > 0x10ffff) return null;
    out.splice(i++, 0, n);
  }
  return out.map((c) => String.fromCodePoint(c)).join("");
}

// ------------------------------------------------------------------ IDNA

// An approximation of UTS #46 processing (non-transitional, no STD3 rules, as WHATWG URL
// uses it): NFKC plus lowercasing and a few case-folding fixes stand in for the mapping
// table, and the checks below reject what the table disallows in practice. Exact for
// real-world names; exotic code points may be judged differently from Node.
const IGNORED = /[\u00ad\u034f\u180b-\u180f\u200b\u2060\ufe00-\ufe0f\ufeff\u{e0100}-\u{e01ef}]/gu;
const IDEOGRAPHIC_DOTS = /[\u3002\uff0e\uff61]/g;
const IDEOGRAPHIC_DOT = /[\u3002\uff0e\uff61]/;
const BAD_CHAR = /[\u0080-\u009f\p{Cs}\p{Co}\p{Cn}\p{Cf}\p{Z}\ufffd\u115f\u1160\u17b4\u17b5\u3164\uffa0]/u;
const JOINER = /[\u200c\u200d]/g;
// Viramas (canonical combining class 9): the only place a joiner may follow.
const VIRAMA = /[\u094d\u09cd\u0a4d\u0acd\u0b4d\u0bcd\u0c4d\u0ccd\u0d3b\u0d3c\u0d4d\u0dca\u0e3a\u0eba\u0f84\u1039\u103a\u1714\u1715\u1734\u17d2\u1a60\u1b44\u1baa\u1bab\u1bf2\u1bf3\u2d7f\ua806\ua82c\ua8c4\ua953\ua9c0\uaaf6\uabed\u{10a3f}\u{11046}\u{11070}\u{1107f}\u{110b9}\u{11133}\u{11134}\u{111c0}\u{11235}\u{112ea}\u{1134d}\u{11442}\u{114c2}\u{115bf}\u{1163f}\u{116b6}\u{1172b}\u{11839}\u{1193d}\u{1193e}\u{119e0}\u{11a34}\u{11a47}\u{11a99}\u{11c3f}\u{11d44}\u{11d45}\u{11d97}]$/u;
// Bidi classes, approximated by block and category: right-to-left (R and AL), Arabic and
// European digits (AN, EN), non-spacing marks, left-to-right (L); the rest is neutral.
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const RTL_NEUTRAL = /[\u0609\u060a\u060c\u066a\u06de\u06e9]/;
const ARABIC_NUMBER = /[\u0600-\u0605\u0660-\u0669\u066b\u066c\u06dd\u0890\u0891\u08e2\u{10d30}-\u{10d39}\u{10e60}-\u{10e7e}]/u;
const EURO_NUMBER = /[0-9\u06f0-\u06f9]/;
const MARK = /[\p{Mn}\p{Me}]/u;
const LTR = /[\p{L}\p{Mc}\p{Nd}\p{Nl}]/u;
const CHEROKEE_SMALL = /[\u13f8-\u13fd\uab70-\uabbf]/g;
const isAscii = (s) => /^[\0-\x7f]*$/.test(s);

const foldCherokee = (c) => String.fromCharCode(c.charCodeAt(0) - (c >= "\uab70" ? 0xab70 - 0x13a0 : 8));

/** UTS #46 mapping of a non-ASCII domain; null when it holds a character UTS #46 forbids. */
function mapDomain(domain) {
  domain = domain.replace(IGNORED, "");
  // Compatibility characters that decompose to a dot (⒈, ․) are disallowed, not mapped.
  for (const c of domain) {
    if (c > "\x7f" && !IDEOGRAPHIC_DOT.test(c) && c.normalize("NFKC").includes(".")) return null;
  }
  // Case folding, where it differs from toLowerCase: ẞ becomes "ss", Σ is σ even at a word
  // end, Cherokee folds to capitals, and iota subscripts become ι.
  return domain.normalize("NFKC").replace(/\u1e9e/g, "ss").replace(/Σ/g, "σ").toLowerCase()
    .replace(CHEROKEE_SMALL, foldCherokee).normalize("NFD").replace(/\u0345/g, "\u03b9").normalize("NFC")
    .replace(IDEOGRAPHIC_DOTS, ".");
}

function bidiClass(c) {
  if (MARK.test(c)) return "NSM";
  if (ARABIC_NUMBER.test(c)) return "AN";
  if (EURO_NUMBER.test(c)) return "EN";
  if (RTL.test(c)) return RTL_NEUTRAL.test(c) ? "ON" : "R";
  return LTR.test(c) ? "L" : "ON";
}

// The Bidi rule (RFC 5893) as Node applies it, fitted to its results: only labels with
// right-to-left letters or Arabic digits are checked; one starting left-to-right may not
// have those between its first and last character; any other must hold no left-to-right
// character, end in R, AN or EN (marks aside) and not mix Arabic and European digits.
function bidiOk(label) {
  const classes = Array.from(label, bidiClass);
  if (!classes.some((c) => c === "R" || c === "AN")) return true;
  let last = classes.length - 1;
  while (last > 0 && classes[last] === "NSM") last--;
  if (classes[0] === "L") return classes.slice(1, last).every((c) => c !== "R" && c !== "AN");
  if (classes.includes("L") || !["R", "AN", "EN"].includes(classes[last])) return false;
  return !(classes.includes("AN") && classes.includes("EN"));
}

// Zero-width joiners are only allowed right after a virama.
const joinersOk = (label) => [...label.matchAll(JOINER)].every((m) => VIRAMA.test(label.slice(0, m.index)));

const validLabel = (label) =>
  !BAD_CHAR.test(label.replace(JOINER, "")) && !/^\p{M}/u.test(label) && joinersOk(label) && bidiOk(label);

function validPunycode(code) {
  const decoded = punyDecode(code);
  return Boolean(decoded) && !decoded.includes(".") && validLabel(decoded) && mapDomain(decoded) === decoded;
}

/** UTS #46 ToASCII of a whole domain; null when a label is invalid. */
function idnaToASCII(domain) {
  const mapped = isAscii(domain) ? domain.toLowerCase() : mapDomain(domain);
  if (mapped === null) return null;
  const labels = mapped.split(".");
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    if (label.startsWith("xn--")) {
      if (!isAscii(label) || !validPunycode(label.slice(4))) return null;
    } else if (!isAscii(label)) {
      const code = validLabel(label) ? punyEncode(label) : null;
      if (code === null) return null;
      labels[i] = `xn--${code}`;
    }
  }
  return labels.join(".");
}

// Decodes every xn-- label that decodes; the rest stay as they are (like Node's ToUnicode).
const idnaToUnicode = (domain) =>
  domain.split(".").map((l) => (l.startsWith("xn--") ? punyDecode(l.slice(4)) ?? l : l)).join(".");

// ------------------------------------------------------------------ WHATWG hosts

const FORBIDDEN_DOMAIN = /[\0-\x20#%/:<>?@[\\\]^|\x7f]/;

function percentDecode(s) {
  if (!s.includes("%")) return s;
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  return s.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) =>
    decoder.decode(Uint8Array.from(run.slice(1).split("%"), (h) => parseInt(h, 16))));
}

function ipv4Number(s) {
  let radix = 10;
  if (/^0x/i.test(s)) {
    s = s.slice(2);
    radix = 16;
    if (s === "") return 0;
  } else if (s.length > 1 && s[0] === "0") {
    s = s.slice(1);
    radix = 8;
  }
  const digits = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  return digits.test(s) ? parseInt(s, radix) : null;
}

function ipv4Parts(host) {
  const parts = host.split(".");
  if (parts.length > 1 && parts.at(-1) === "") parts.pop();
  return parts;
}

const endsInNumber = (host) => {
  const last = ipv4Parts(host).at(-1);
  return /^[0-9]+$/.test(last) || (last !== "" && ipv4Number(last) !== null);
};

function ipv4Host(host) {
  const nums = ipv4Parts(host).map(ipv4Number);
  if (nums.length > 4 || nums.includes(null)) return null;
  const last = nums.pop();
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  const value = nums.reduce((sum, n, i) => sum + n * 256 ** (3 - i), last);
  return [3, 2, 1, 0].map((shift) => Math.floor(value / 256 ** shift) % 256).join(".");
}

// The host a special URL's hostname setter would store, as Node's domainToASCII computes
// it; null where the setter fails.
function hostToASCII(input) {
  input = input.replace(/[\t\n\r]/g, "");
  const end = input.search(/[/?#\\]/); // the setter stops at a path, query or fragment
  const host = end === -1 ? input : input.slice(0, end);
  if (host.startsWith("[")) {
    if (!/^\[[0-9a-f:.]*\]$/i.test(host)) return null;
    try {
      return new URL(`ws://${host}/`).hostname;
    } catch {
      return null;
    }
  }
  if (host === "" || host.includes(":")) return null;
  const ascii = idnaToASCII(percentDecode(host));
  if (!ascii || FORBIDDEN_DOMAIN.test(ascii)) return null;
  return endsInNumber(ascii) ? ipv4Host(ascii) : ascii;
}

function missingDomain() {
  return codeError(TypeError, "ERR_MISSING_ARGS", 'The "domain" argument must be specified');
}

export function domainToASCII(domain) {
  if (arguments.length < 1) throw missingDomain();
  return hostToASCII(`${domain}`) ?? "";
}

export function domainToUnicode(domain) {
  if (arguments.length < 1) throw missingDomain();
  const ascii = hostToASCII(`${domain}`);
  return ascii === null ? "" : idnaToUnicode(ascii);
}

// ------------------------------------------------------------------ legacy Url

// Protocols whose URLs always carry "//" (listed with and without the colon, as both are
// looked up), and the ones that never have a host nor get escaped.
const SLASHED = new Set(["http", "https", "ftp", "gopher", "file", "ws", "wss"].flatMap((p) => [p, `${p}:`]));
const HOSTLESS = new Set(["javascript", "javascript:"]);

const PROTOCOL = /^[a-z0-9.+-]+:/i;
const SIMPLE_PATH = /^(\/\/?(?!\/)[^?\s]*)(\?[^\s]*)?$/;
const AUTH_THEN_HOST = /^\/\/[^@/]+@[^@/]+/;
const PORT = /:[0-9]*$/;
const NON_HOST = new Set(' "%\';<>\\^`{|}');
const HOST_END = new Set("/?#");
const FORBIDDEN_HOST = /[\0\t\n\r #%/:<>?@[\\\]^|]/;
const FORBIDDEN_HOST_V6 = /[\0\t\n\r #%/<>?@\\^|]/;
const AUTO_ESCAPE = /[\t\n\r "'<>\\^`{|}]/g;
const MAX_HOSTNAME = 255;

const isWhitespace = (c) => c < 33 || c === 0xa0 || c === 0xfeff;
const bracketed = (h) => h.startsWith("[") && h.endsWith("]");
const escapeChar = (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;

export function Url() {
  this.protocol = null;
  this.slashes = null;
  this.auth = null;
  this.host = null;
  this.port = null;
  this.hostname = null;
  this.hash = null;
  this.search = null;
  this.query = null;
  this.pathname = null;
  this.path = null;
  this.href = null;
}

// Trims, and turns backslashes into slashes up to the first '?' or '#', as browsers do.
function preprocess(url) {
  let start = 0, end = url.length;
  while (start < end && isWhitespace(url.charCodeAt(start))) start++;
  while (end > start && isWhitespace(url.charCodeAt(end - 1))) end--;
  const text = url.slice(start, end);
  let split = text.search(/[?#]/);
  if (split === -1) split = text.length;
  const head = text.slice(0, split);
  return { rest: head.replace(/\\/g, "/") + text.slice(split), hasHash: text.includes("#"), hasAt: head.includes("@") };
}

function setQuery(self, search, parseQueryString) {
  self.search = search;
  self.query = parseQueryString ? parseQs(search.slice(1)) : search.slice(1);
}

// ToASCII as Node's parse applies it, which ends the host at a NUL (it goes through C).
function legacyToASCII(hostname) {
  const nul = hostname.indexOf("\0");
  return idnaToASCII(nul === -1 ? hostname : hostname.slice(0, nul)) ?? "";
}

// Takes auth and host off the front of `rest`; returns what follows the host.
function parseAuthority(self, rest, url) {
  // Tabs and newlines vanish from the authority part (up to the path, query or hash).
  const authorityEnd = rest.search(/[/?#]/);
  if (authorityEnd === -1) rest = rest.replace(/[\t\n\r]/g, "");
  else rest = rest.slice(0, authorityEnd).replace(/[\t\n\r]/g, "") + rest.slice(authorityEnd);
  let hostEnd = -1, atSign = -1, nonHost = -1;
  for (let i = 0; i < rest.length && hostEnd === -1; i++) {
    const c = rest[i];
    if (c === "@") {
      atSign = i;
      nonHost = -1; // what looked like a bad host char was part of the auth
    } else if (HOST_END.has(c)) {
      if (nonHost === -1) nonHost = i;
      hostEnd = i;
    } else if (NON_HOST.has(c) && nonHost === -1) {
      nonHost = i;
    }
  }
  let start = 0;
  if (atSign !== -1) {
    self.auth = decodeURIComponent(rest.slice(0, atSign));
    start = atSign + 1;
  }
  self.host = nonHost === -1 ? rest.slice(start) : rest.slice(start, nonHost);
  rest = nonHost === -1 ? "" : rest.slice(nonHost);
  self.parseHost();
  if (typeof self.hostname !== "string") self.hostname = "";

  const ipv6 = bracketed(self.hostname);
  const colon = ipv6 ? -1 : self.hostname.indexOf(":");
  if (colon !== -1) {
    // Not a port: the rest of the "host" becomes path.
    rest = `/${self.hostname.slice(colon)}${rest}`;
    self.hostname = self.hostname.slice(0, colon);
    warnInvalidUrl(url);
  }
  self.hostname = self.hostname.length > MAX_HOSTNAME ? "" : self.hostname.toLowerCase();
  if (self.hostname !== "") {
    if (ipv6) {
      if (FORBIDDEN_HOST_V6.test(self.hostname)) throw invalidUrl(url);
    } else {
      self.hostname = legacyToASCII(self.hostname);
      // Anything bad that survived to here came from IDNA mapping: refuse rather than guess.
      if (self.hostname === "" || FORBIDDEN_HOST.test(self.hostname)) throw invalidUrl(url);
    }
  }
  self.host = self.hostname + (self.port ? `:${self.port}` : "");
  if (ipv6) {
    self.hostname = self.hostname.slice(1, -1);
    if (rest[0] !== "/") rest = `/${rest}`;
  }
  return rest;
}

// Splits path, query and fragment out of what follows the host.
function parseTail(self, rest, parseQueryString, protocol) {
  const hashAt = rest.indexOf("#");
  if (hashAt !== -1) self.hash = rest.slice(hashAt);
  const beforeHash = hashAt === -1 ? rest : rest.slice(0, hashAt);
  const queryAt = beforeHash.indexOf("?");
  if (queryAt !== -1) {
    setQuery(self, beforeHash.slice(queryAt), parseQueryString);
  } else if (parseQueryString) {
    self.search = null;
    self.query = { __proto__: null };
  }
  const pathEnd = queryAt !== -1 ? queryAt : hashAt;
  if (pathEnd === -1) {
    if (rest.length) self.pathname = rest;
  } else if (pathEnd > 0) {
    self.pathname = rest.slice(0, pathEnd);
  }
  if (SLASHED.has(protocol) && self.hostname && !self.pathname) self.pathname = "/";
  if (self.pathname || self.search) self.path = (self.pathname || "") + (self.search || "");
  self.href = self.format();
}

Url.prototype.parse = function parse(url, parseQueryString, slashesDenoteHost) {
  if (typeof url !== "string") throw argTypeError("url", "of type string", url);
  const pre = preprocess(url);
  let rest = pre.rest;

  // Plain paths (the bulk of what servers parse) skip everything below.
  if (!slashesDenoteHost && !pre.hasHash && !pre.hasAt) {
    const simple = SIMPLE_PATH.exec(rest);
    if (simple) {
      this.path = rest;
      this.href = rest;
      this.pathname = simple[1];
      if (simple[2]) {
        setQuery(this, simple[2], parseQueryString);
      } else if (parseQueryString) {
        this.search = null;
        this.query = { __proto__: null };
      }
      return this;
    }
  }

  const proto = PROTOCOL.exec(rest)?.[0] ?? "";
  const lowerProto = proto.toLowerCase();
  if (proto) {
    this.protocol = lowerProto;
    rest = rest.slice(proto.length);
  }

  // "//" starts a host after a protocol, when asked to, or when an auth is obvious.
  let slashes = false;
  if (slashesDenoteHost || proto || AUTH_THEN_HOST.test(rest)) {
    slashes = rest.startsWith("//");
    if (slashes && !(proto && HOSTLESS.has(lowerProto))) {
      rest = rest.slice(2);
      this.slashes = true;
    }
  }

  // Node looks the protocol up as written here (so "HTTP:x" gets a host, "http:x" not).
  if (!HOSTLESS.has(lowerProto) && (slashes || (proto && !SLASHED.has(proto)))) {
    rest = parseAuthority(this, rest, url);
  }
  if (!HOSTLESS.has(lowerProto)) rest = rest.replace(AUTO_ESCAPE, escapeChar);
  parseTail(this, rest, parseQueryString, lowerProto);
  return this;
};

// Percent-encoded UTF-8 of one code point.
function utf8Escape(c) {
  const bytes = c < 0x80 ? [c]
    : c < 0x800 ? [0xc0 | (c >> 6), 0x80 | (c & 63)]
    : c < 0x10000 ? [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)]
    : [0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)];
  return bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
}

const AUTH_SAFE = /[A-Za-z0-9!'()*\-._~:]/;

// Escapes an auth for output. Like Node, a surrogate is paired with whatever code unit
// follows it (valid or not), only a trailing one is an error, and a value without a
// length passes through untouched (one with a length is read as a string).
function encodeAuth(auth) {
  if (!(auth.length > 0)) return auth;
  const text = String(auth);
  let out = "", last = 0;
  for (let i = 0; i < auth.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80 && AUTH_SAFE.test(String.fromCharCode(c))) continue;
    const at = i;
    if (c >= 0xd800 && c <= 0xdfff) {
      if (++i >= auth.length) throw codeError(URIError, "ERR_INVALID_URI", "URI malformed");
      c = 0x10000 + (((c & 0x3ff) << 10) | (text.charCodeAt(i) & 0x3ff));
    }
    out += text.slice(last, at) + utf8Escape(c);
    last = i + 1;
  }
  return last === 0 ? auth : out + text.slice(last);
}

// '#' and '?' inside a pathname would end it; escape them.
function escapePathname(pathname) {
  let out = "", last = 0;
  for (let i = 0; i < pathname.length; i++) {
    const c = pathname.charCodeAt(i);
    if (c !== 35 && c !== 63) continue;
    out += pathname.slice(last, i) + (c === 35 ? "%23" : "%3F");
    last = i + 1;
  }
  return last === 0 ? pathname : out + pathname.slice(last);
}

// The parts are used through string methods without converting them first, so a part of
// another type gives the result (or the TypeError) Node gives.
Url.prototype.format = function format() {
  let auth = this.auth || "";
  if (auth) auth = `${encodeAuth(auth)}@`;
  let protocol = this.protocol || "";
  let pathname = this.pathname || "";
  let hash = this.hash || "";
  let host = "";
  if (this.host) {
    host = auth + this.host;
  } else if (this.hostname) {
    const hostname = this.hostname;
    host = auth + (this.hostname.includes(":") && !bracketed(String(hostname)) ? `[${hostname}]` : hostname);
    if (this.port) host += `:${this.port}`;
  }
  const query = this.query !== null && typeof this.query === "object" ? stringifyQs(this.query) : "";
  let search = this.search || (query && `?${query}`) || "";
  if (protocol && protocol.charCodeAt(protocol.length - 1) !== 58 /* : */) protocol += ":";
  pathname = escapePathname(pathname);

  // Only slashed protocols get "//" on their own; others (mailto:, xmpp:) keep what they had.
  if (this.slashes || SLASHED.has(protocol)) {
    if (this.slashes || host) {
      if (pathname && pathname.charCodeAt(0) !== 47 /* / */) pathname = `/${pathname}`;
      host = `//${host}`;
    } else if (protocol === "file:") {
      host = "//";
    }
  }
  search = search.replace(/#/g, "%23");
  if (hash && hash.charCodeAt(0) !== 35 /* # */) hash = `#${hash}`;
  if (search && search.charCodeAt(0) !== 63 /* ? */) search = `?${search}`;
  return protocol + host + pathname + search + hash;
};

Url.prototype.resolve = function resolve(relative) {
  return this.resolveObject(parse(relative, false, true)).format();
};

function copyKeys(target, source, skip) {
  for (const key of Object.keys(source)) if (key !== skip) target[key] = source[key];
}

function finish(result) {
  result.href = result.format();
  return result;
}

const joinPath = (result) => (result.pathname || "") + (result.search || "");

// "//host/path": everything but the protocol comes from the relative URL.
function resolveNetworkPath(result, relative) {
  copyKeys(result, relative, "protocol");
  if (SLASHED.has(result.protocol) && result.hostname && !result.pathname) result.path = result.pathname = "/";
  return finish(result);
}

// A relative URL with a protocol of its own replaces the source almost entirely.
function resolveOtherProtocol(result, relative) {
  if (!SLASHED.has(relative.protocol)) {
    copyKeys(result, relative);
    return finish(result);
  }
  result.protocol = relative.protocol;
  if (!relative.host && !/^file:?$/.test(relative.protocol)) {
    // "http:host/path" without slashes: the first path segment is taken as the host.
    const segments = (relative.pathname || "").split("/");
    while (segments.length && !(relative.host = segments.shift()));
    if (!relative.host) relative.host = "";
    if (!relative.hostname) relative.hostname = "";
    if (segments[0] !== "") segments.unshift("");
    if (segments.length < 2) segments.unshift("");
    result.pathname = segments.join("/");
  } else {
    result.pathname = relative.pathname;
  }
  result.search = relative.search;
  result.query = relative.query;
  result.host = relative.host || "";
  result.auth = relative.auth;
  result.hostname = relative.hostname || relative.host;
  result.port = relative.port;
  if (result.pathname || result.search) result.path = joinPath(result);
  result.slashes = result.slashes || relative.slashes;
  return finish(result);
}

// For protocols without "//", an "auth@host" that ended up in the path is split back out.
function takeAuthFromHost(result) {
  const parts = result.host && result.host.indexOf("@") > 0 ? result.host.split("@") : null;
  if (parts) {
    result.auth = parts.shift();
    result.host = result.hostname = parts.shift();
  }
}

// Removes "." and ".." segments; returns how many ".." were left over.
function removeDots(segments) {
  let up = 0;
  for (let i = segments.length - 1; i >= 0; i--) {
    if (segments[i] === ".") {
      segments.splice(i, 1);
    } else if (segments[i] === "..") {
      segments.splice(i, 1);
      up++;
    } else if (up) {
      segments.splice(i, 1);
      up--;
    }
  }
  return up;
}

function resolvePathRef(result, relative) {
  const isSourceAbs = result.pathname && result.pathname.charAt(0) === "/";
  const isRelAbs = relative.host || (relative.pathname && relative.pathname.charAt(0) === "/");
  let mustEndAbs = isRelAbs || isSourceAbs || (result.host && relative.pathname);
  const removeAllDots = mustEndAbs;
  let srcPath = (result.pathname && result.pathname.split("/")) || [];
  const relPath = (relative.pathname && relative.pathname.split("/")) || [];
  const noLeadingSlashes = result.protocol && !SLASHED.has(result.protocol);

  if (noLeadingSlashes) {
    // Without "//" a host is just the first path segment, so work on it as one.
    result.hostname = "";
    result.port = null;
    if (result.host) {
      if (srcPath[0] === "") srcPath[0] = result.host;
      else srcPath.unshift(result.host);
    }
    result.host = "";
    if (relative.protocol) {
      relative.hostname = null;
      relative.port = null;
      if (relative.host) {
        if (relPath[0] === "") relPath[0] = relative.host;
        else relPath.unshift(relative.host);
      }
      relative.host = null;
    }
    mustEndAbs = mustEndAbs && (relPath[0] === "" || srcPath[0] === "");
  }

  if (isRelAbs) {
    if (relative.host || relative.host === "") {
      if (result.host !== relative.host) result.auth = null;
      result.host = relative.host;
      result.port = relative.port;
    }
    if (relative.hostname || relative.hostname === "") {
      if (result.hostname !== relative.hostname) result.auth = null;
      result.hostname = relative.hostname;
    }
    result.search = relative.search;
    result.query = relative.query;
    srcPath = relPath;
  } else if (relPath.length) {
    srcPath.pop(); // the last source segment is a file name, replaced by the relative path
    srcPath = srcPath.concat(relPath);
    result.search = relative.search;
    result.query = relative.query;
  } else if (relative.search !== null && relative.search !== undefined) {
    // Only a query: keep the source path.
    if (noLeadingSlashes) {
      result.hostname = result.host = srcPath.shift();
      takeAuthFromHost(result);
    }
    result.search = relative.search;
    result.query = relative.query;
    if (result.pathname !== null || result.search !== null) result.path = joinPath(result);
    return finish(result);
  }

  if (!srcPath.length) {
    result.pathname = null;
    result.path = result.search ? `/${result.search}` : null;
    return finish(result);
  }

  const last = srcPath.at(-1);
  const hasTrailingSlash = ((result.host || relative.host || srcPath.length > 1) && (last === "." || last === "..")) || last === "";
  let up = removeDots(srcPath);
  if (!mustEndAbs && !removeAllDots) while (up--) srcPath.unshift("..");
  if (mustEndAbs && srcPath[0] !== "" && (!srcPath[0] || srcPath[0].charAt(0) !== "/")) srcPath.unshift("");
  if (hasTrailingSlash && srcPath.join("/").slice(-1) !== "/") srcPath.push("");

  const isAbsolute = srcPath[0] === "" || (srcPath[0] && srcPath[0].charAt(0) === "/");
  if (noLeadingSlashes) {
    result.hostname = result.host = isAbsolute ? "" : srcPath.length ? srcPath.shift() : "";
    takeAuthFromHost(result);
  }
  mustEndAbs = mustEndAbs || (result.host && srcPath.length);
  if (mustEndAbs && !isAbsolute) srcPath.unshift("");

  if (srcPath.length > 0) {
    result.pathname = srcPath.join("/");
  } else {
    result.pathname = null;
    result.path = null;
  }
  if (result.pathname !== null || result.search !== null) result.path = joinPath(result);
  result.auth = relative.auth || result.auth;
  result.slashes = result.slashes || relative.slashes;
  return finish(result);
}

// Node mutates `relative` along the way (its host fields); callers can observe that.
Url.prototype.resolveObject = function resolveObject(relative) {
  if (typeof relative === "string") {
    const rel = new Url();
    rel.parse(relative, false, true);
    relative = rel;
  }
  const result = new Url();
  copyKeys(result, this);
  result.hash = relative.hash; // the fragment always comes from the relative URL
  if (relative.href === "") return finish(result);
  if (relative.slashes && !relative.protocol) return resolveNetworkPath(result, relative);
  if (relative.protocol && relative.protocol !== result.protocol) return resolveOtherProtocol(result, relative);
  return resolvePathRef(result, relative);
};

Url.prototype.parseHost = function parseHost() {
  let host = this.host;
  const port = PORT.exec(host)?.[0];
  if (port) {
    if (port !== ":") this.port = port.slice(1);
    host = host.slice(0, host.length - port.length);
  }
  if (host) this.hostname = host;
};

// ------------------------------------------------------------------ module functions

export function parse(url, parseQueryString, slashesDenoteHost) {
  if (url instanceof Url) return url;
  const result = new Url();
  result.parse(url, parseQueryString, slashesDenoteHost);
  return result;
}

export function resolve(source, relative) {
  return parse(source, false, true).resolve(relative);
}

export function resolveObject(source, relative) {
  if (!source) return relative;
  return parse(source, false, true).resolveObject(relative);
}

// url.format(URL, options): the WHATWG serialization with parts left out on request.
function formatWhatwg(url, options) {
  let fragment = true, unicode = false, search = true, auth = true;
  if (options) {
    if (typeof options !== "object" || Array.isArray(options)) throw argTypeError("options", "of type object", options);
    if (options.fragment != null) fragment = Boolean(options.fragment);
    if (options.unicode != null) unicode = Boolean(options.unicode);
    if (options.search != null) search = Boolean(options.search);
    if (options.auth != null) auth = Boolean(options.auth);
  }
  const copy = new URL(url.href);
  if (!fragment) copy.hash = "";
  if (!search) copy.search = "";
  if (!auth) {
    copy.username = "";
    copy.password = "";
  }
  const href = copy.href;
  const hostname = copy.hostname;
  if (!unicode || !hostname.includes("xn--")) return href;
  // The host follows "scheme://" and the userinfo, if any.
  const userinfo = copy.username || copy.password ? `${copy.username}${copy.password ? `:${copy.password}` : ""}@` : "";
  const at = copy.protocol.length + 2 + userinfo.length;
  if (href.slice(at, at + hostname.length) !== hostname) return href;
  return href.slice(0, at) + idnaToUnicode(hostname) + href.slice(at + hostname.length);
}

export function format(urlObject, options) {
  if (typeof urlObject === "string") {
    urlObject = parse(urlObject);
  } else if (typeof urlObject !== "object" || urlObject === null) {
    throw argTypeError("urlObject", "one of type object or string", urlObject);
  } else if (urlObject instanceof URL) {
    return formatWhatwg(urlObject, options);
  }
  return Url.prototype.format.call(urlObject);
}

// The options object http.request() takes, from a WHATWG URL (or anything shaped like one).
export function urlToHttpOptions(url) {
  const { hostname, pathname, port, username, password, search } = url;
  const options = {
    __proto__: null,
    ...url,
    protocol: url.protocol,
    hostname: hostname && hostname[0] === "[" ? hostname.slice(1, -1) : hostname,
    hash: url.hash,
    search,
    pathname,
    path: `${pathname || ""}${search || ""}`,
    href: url.href,
  };
  if (port !== "") options.port = Number(port);
  if (username || password) options.auth = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`;
  return options;
}

export default {
  Url,
  parse,
  resolve,
  resolveObject,
  format,
  URL,
  URLSearchParams,
  domainToASCII,
  domainToUnicode,
  pathToFileURL,
  fileURLToPath,
  urlToHttpOptions,
};
