// `node:punycode`: RFC 3492 Punycode and the IDNA label mapping, as the punycode.js that Node 20
// bundles (reporting version "2.1.0") behaves: its errors, its handling of e-mail addresses, its
// labels mapped last to first. Node can warn that the module is deprecated (DEP0040, under
// --pending-deprecation); nothing is logged here.

const MAX_INT = 0x7fffffff;
const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 0x80;
const DELIMITER = "-";

const ERRORS = {
  overflow: "Overflow: input needs wider integers to process",
  "not-basic": "Illegal input >= 0x80 (not a basic code point)",
  "invalid-input": "Invalid input",
};
function fail(kind) {
  throw new RangeError(ERRORS[kind]);
}

/** The code points of a string; a lone surrogate is kept as it is. */
function ucs2decode(string) {
  const points = [];
  for (let i = 0; i < string.length; i++) {
    const unit = string.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < string.length) {
      const next = string.charCodeAt(i + 1);
      if ((next & 0xfc00) === 0xdc00) {
        points.push(((unit & 0x3ff) << 10) + (next & 0x3ff) + 0x10000);
        i++;
        continue;
      }
    }
    points.push(unit);
  }
  return points;
}

const ucs2encode = (points) => String.fromCodePoint(...points);

// A character's digit value: a–z (either case) 0–25, 0–9 26–35; BASE when it is none.
function digitOf(code) {
  if (code >= 0x30 && code <= 0x39) return code - 0x30 + 26;
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  if (code >= 0x61 && code <= 0x7a) return code - 0x61;
  return BASE;
}

// A digit's character: a–z for 0–25, 0–9 for 26–35.
const charOf = (digit) => String.fromCharCode(digit < 26 ? digit + 0x61 : digit + 22);

// The threshold of position `k` under `bias` (RFC 3492 section 6.1).
const threshold = (k, bias) => (k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias);

// RFC 3492 section 6.1, bias adaptation.
function adapt(delta, points, first) {
  delta = first ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / points);
  let k = 0;
  while (delta > ((BASE - T_MIN) * T_MAX) >> 1) {
    delta = Math.floor(delta / (BASE - T_MIN));
    k += BASE;
  }
  return Math.floor(k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW));
}

/** Punycode (ASCII) to the string of Unicode code points it stands for. */
export function decode(input) {
  const output = [];
  const end = input.length;
  const basic = Math.max(input.lastIndexOf(DELIMITER), 0);
  for (let j = 0; j < basic; j++) {
    if (input.charCodeAt(j) >= 0x80) fail("not-basic");
    output.push(input.charCodeAt(j));
  }
  let n = INITIAL_N;
  let bias = INITIAL_BIAS;
  let i = 0;
  for (let at = basic > 0 ? basic + 1 : 0; at < end;) {
    const before = i;
    // One generalized variable-length integer: the next insertion's position and code point.
    for (let weight = 1, k = BASE; ; k += BASE) {
      if (at >= end) fail("invalid-input");
      const digit = digitOf(input.charCodeAt(at++));
      if (digit >= BASE) fail("invalid-input");
      if (digit > Math.floor((MAX_INT - i) / weight)) fail("overflow");
      i += digit * weight;
      const t = threshold(k, bias);
      if (digit < t) break;
      if (weight > Math.floor(MAX_INT / (BASE - t))) fail("overflow");
      weight *= BASE - t;
    }
    const length = output.length + 1;
    bias = adapt(i - before, length, before === 0);
    if (Math.floor(i / length) > MAX_INT - n) fail("overflow");
    n += Math.floor(i / length);
    i %= length;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}

/** A string of Unicode code points to Punycode (ASCII). */
export function encode(input) {
  const points = ucs2decode(input);
  const output = [];
  for (const point of points) {
    if (point < 0x80) output.push(String.fromCharCode(point));
  }
  const basicCount = output.length;
  let handled = basicCount;
  if (basicCount) output.push(DELIMITER);
  let n = INITIAL_N;
  let bias = INITIAL_BIAS;
  let delta = 0;
  while (handled < points.length) {
    // The smallest code point not handled yet.
    let m = MAX_INT;
    for (const point of points) {
      if (point >= n && point < m) m = point;
    }
    if (m - n > Math.floor((MAX_INT - delta) / (handled + 1))) fail("overflow");
    delta += (m - n) * (handled + 1);
    n = m;
    for (const point of points) {
      if (point < n && ++delta > MAX_INT) fail("overflow");
      if (point !== n) continue;
      // delta as a generalized variable-length integer.
      let q = delta;
      for (let k = BASE; ; k += BASE) {
        const t = threshold(k, bias);
        if (q < t) break;
        output.push(charOf(t + ((q - t) % (BASE - t))));
        q = Math.floor((q - t) / (BASE - t));
      }
      output.push(charOf(q));
      bias = adapt(delta, handled + 1, handled === basicCount);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return output.join("");
}

// The label separators of IDNA2003: full stop, ideographic, fullwidth and halfwidth full stops.
const SEPARATORS = /[\x2E\u3002\uFF0E\uFF61]/g;

// Maps each label of a domain (or of the part of an e-mail address after its "@"; the local part is
// kept, and as in punycode.js anything after a second "@" is dropped). The last label is mapped
// first, so that its error is the one thrown.
function mapDomain(input, fn) {
  const parts = input.split("@");
  let prefix = "";
  if (parts.length > 1) {
    prefix = `${parts[0]}@`;
    input = parts[1];
  }
  const labels = input.replace(SEPARATORS, ".").split(".");
  const mapped = [];
  for (let i = labels.length - 1; i >= 0; i--) mapped[i] = fn(labels[i]);
  return prefix + mapped.join(".");
}

/** A domain name (or e-mail address) with its Punycode labels ("xn--…") decoded. */
export function toUnicode(input) {
  return mapDomain(input, (label) => (/^xn--/.test(label) ? decode(label.slice(4).toLowerCase()) : label));
}

/** A domain name (or e-mail address) with its non-ASCII labels encoded as "xn--…". */
export function toASCII(input) {
  return mapDomain(input, (label) => (/[^\0-\x7F]/.test(label) ? `xn--${encode(label)}` : label));
}

export const version = "2.1.0";
export const ucs2 = { decode: ucs2decode, encode: ucs2encode };

export default { version, ucs2, decode, encode, toASCII, toUnicode };
