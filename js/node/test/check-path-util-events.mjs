// Compares js/node/{path,util,events}.js with Node's built-in modules.
// Run: node js/node/test/check-path-util-events.mjs
import assert from "node:assert/strict";
import * as realPathNS from "node:path";
import realPath from "node:path";
import realUtil from "node:util";
import RealEE, * as realEventsNS from "node:events";

// js/ has no package.json declaring "type": "module", so Node warns when it
// re-parses these files as ESM; drop just that warning, then load them.
process.removeAllListeners("warning");
process.on("warning", (w) => {
  if (w.code !== "MODULE_TYPELESS_PACKAGE_JSON") console.error(`${w.name}: ${w.message}`);
});
const myPathNS = await import("../path.js");
const myUtilNS = await import("../util.js");
const myEventsNS = await import("../events.js");
const { default: myPath } = myPathNS;
const { default: myUtil } = myUtilNS;
const { default: MyEE } = myEventsNS;

let passed = 0;
let failed = 0;
const MAX_REPORTED = 60;

function fail(label, err) {
  failed++;
  if (failed <= MAX_REPORTED) console.log(`FAIL ${label}\n  ${String(err?.message ?? err).split("\n").join("\n  ")}`);
}

function check(label, fn) {
  try {
    fn();
    passed++;
  } catch (err) {
    fail(label, err);
  }
}

async function checkAsync(label, fn) {
  try {
    await fn();
    passed++;
  } catch (err) {
    fail(label, err);
  }
}

// Result or thrown error, in a comparable shape.
function outcome(fn) {
  try {
    return { ok: fn() };
  } catch (e) {
    return { err: { name: e?.name, code: e?.code, message: e?.message } };
  }
}

async function outcomeAsync(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { err: { name: e?.name, code: e?.code, message: e?.message } };
  }
}

function same(label, mine, theirs) {
  check(label, () => assert.deepStrictEqual(outcome(mine), outcome(theirs)));
}

const show = (v) => {
  try {
    return realUtil.inspect(v, { depth: 1, breakLength: Infinity });
  } catch {
    return String(v);
  }
};

// ---------------------------------------------------------------------------
// path

const segments = [
  "", ".", "..", "/", "//", "///", "a", "a/", "/a", "/a/", "a/b", "a//b", "./a", "../a", "a/..", "a/../..",
  "/..", "/../a", ".a", "a.", "a.b", "a.b.c", ".a.b", "..a", "a..", "...", "a/.b", "a/b.", "/a/b.c/",
  "file.txt", "dir/file.tar.gz", "/a/./b/../c//d/", "//a", "~", "a b", "ü.js", "/foo/bar", "/foo/bar/baz",
  "/foo/baz", "foo/bar/", "./", "../", "../..", "/x/y/../../..", ".../x", "a/./b/.", "a\\b",
];

// Deterministic PRNG so failures are reproducible.
let seed = 12345;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const randomPath = () => {
  const parts = ["a", "b", ".", "..", "/", "x.y", ".z", "c."];
  let s = "";
  for (let i = rand(7); i >= 0; i--) s += parts[rand(parts.length)];
  return s;
};
const randomPaths = Array.from({ length: 1500 }, randomPath);

const unary = ["basename", "dirname", "extname", "normalize", "isAbsolute", "parse", "resolve", "toNamespacedPath"];
for (const p of [...segments, ...randomPaths]) {
  for (const fn of unary) same(`path.${fn}(${show(p)})`, () => myPath[fn](p), () => realPath[fn](p));
  same(`path.format(parse(${show(p)}))`, () => myPath.format(realPath.parse(p)), () => realPath.format(realPath.parse(p)));
}
for (const p of segments) {
  for (const ext of ["", ".txt", "txt", ".gz", "a", "b", ".", "..", "file.txt", "/", "a/", ".b", "b.c"]) {
    same(`path.basename(${show(p)}, ${show(ext)})`, () => myPath.basename(p, ext), () => realPath.basename(p, ext));
  }
  for (const q of segments) {
    same(`path.join(${show(p)}, ${show(q)})`, () => myPath.join(p, q), () => realPath.join(p, q));
    same(`path.resolve(${show(p)}, ${show(q)})`, () => myPath.resolve(p, q), () => realPath.resolve(p, q));
    same(`path.relative(${show(p)}, ${show(q)})`, () => myPath.relative(p, q), () => realPath.relative(p, q));
  }
}
for (let i = 0; i < 1500; i++) {
  const args = Array.from({ length: rand(5) }, randomPath);
  same(`path.join(${show(args)})`, () => myPath.join(...args), () => realPath.join(...args));
  same(`path.resolve(${show(args)})`, () => myPath.resolve(...args), () => realPath.resolve(...args));
  const [a, b] = [randomPath(), randomPath()];
  same(`path.relative(${show(a)}, ${show(b)})`, () => myPath.relative(a, b), () => realPath.relative(a, b));
  const abs = [`/${a}`, `/${b}`];
  same(`path.relative(${show(abs)})`, () => myPath.relative(...abs), () => realPath.relative(...abs));
  const ext = [".y", "y", "b", ".z", "."][rand(5)];
  same(`path.basename(${show(a)}, ${show(ext)})`, () => myPath.basename(a, ext), () => realPath.basename(a, ext));
}

const formatObjects = [
  {}, { root: "/" }, { dir: "/a" }, { base: "b.c" }, { name: "n" }, { ext: ".e" }, { ext: "e" },
  { name: "n", ext: "e" }, { name: "n", ext: ".e" }, { root: "/", base: "x" }, { root: "/", dir: "/", base: "x" },
  { root: "/r/", dir: "/d", base: "b", name: "ignored", ext: ".ignored" }, { dir: "d", name: "n", ext: ".e" },
  { root: "/", name: "n" }, { dir: "", root: "", base: "" }, { dir: "a/", base: "b" }, { root: "x", dir: "x", base: "y" },
];
for (const o of formatObjects) same(`path.format(${show(o)})`, () => myPath.format(o), () => realPath.format(o));

const badValues = [undefined, null, 1, -0, 1.5, true, 10n, Symbol("s"), {}, [], () => {}, function named() {},
  Object.create(null), new Map(), "x".repeat(40), NaN];
for (const bad of badValues) {
  for (const fn of ["basename", "dirname", "extname", "normalize", "isAbsolute", "parse"]) {
    same(`path.${fn}(${show(bad)})`, () => myPath[fn](bad), () => realPath[fn](bad));
  }
  same(`path.join('a', ${show(bad)})`, () => myPath.join("a", bad), () => realPath.join("a", bad));
  same(`path.resolve(${show(bad)})`, () => myPath.resolve(bad), () => realPath.resolve(bad));
  same(`path.resolve(${show(bad)}, '/a')`, () => myPath.resolve(bad, "/a"), () => realPath.resolve(bad, "/a"));
  same(`path.resolve('a', ${show(bad)})`, () => myPath.resolve("a", bad), () => realPath.resolve("a", bad));
  same(`path.relative(${show(bad)}, 'a')`, () => myPath.relative(bad, "a"), () => realPath.relative(bad, "a"));
  same(`path.relative('a', ${show(bad)})`, () => myPath.relative("a", bad), () => realPath.relative("a", bad));
  same(`path.basename('a', ${show(bad)})`, () => myPath.basename("a", bad), () => realPath.basename("a", bad));
  same(`path.format(${show(bad)})`, () => myPath.format(bad), () => realPath.format(bad));
  same(`path.toNamespacedPath(${show(bad)})`, () => myPath.toNamespacedPath(bad), () => realPath.toNamespacedPath(bad));
}

check("path constants and aliases", () => {
  assert.equal(myPath.sep, realPath.sep);
  assert.equal(myPath.delimiter, realPath.delimiter);
  assert.equal(myPath.posix, myPath);
  assert.equal(myPath.win32, myPath);
  assert.equal(myPathNS.default, myPath);
  assert.equal(myPathNS.posix, myPath);
  assert.equal(myPath._makeLong("x"), "x");
  for (const key of Object.keys(realPath.posix)) {
    if (key === "matchesGlob" && !(key in myPath)) continue;
    assert.equal(typeof myPath[key], typeof realPath.posix[key], key);
    if (typeof myPath[key] === "function") assert.equal(myPathNS[key] ?? myPath[key], myPath[key], key);
  }
  for (const key of Object.keys(realPathNS)) {
    if (key !== "default" && key !== "_makeLong") assert.ok(key in myPathNS, `named export ${key}`);
  }
});
check("path.matchesGlob throws", () => {
  assert.throws(() => myPath.matchesGlob("a", "*"), { message: "node:path.matchesGlob is not supported by the Paseo plugin host" });
});

// ---------------------------------------------------------------------------
// util.inspect / util.format

class Foo {
  constructor() {
    this.a = 1;
  }
}
class Bar extends Foo {}
class Tagged {
  get [Symbol.toStringTag]() {
    return "TagX";
  }
}
class MyError extends Error {}
class NamedError extends Error {
  constructor(m) {
    super(m);
    this.name = "NamedError";
  }
}
function makeArgs() {
  return arguments;
}
const circular = { name: "c" };
circular.self = circular;
const mutualA = { id: "a" };
const mutualB = { id: "b", a: mutualA };
mutualA.b = mutualB;
const circArr = [1];
circArr.push(circArr);
const circMap = new Map();
circMap.set("me", circMap);
const sparse = [1, , 3];
sparse[10] = 4;
const arrWithProps = [1, 2];
arrWithProps.foo = "bar";
arrWithProps[Symbol("s")] = 1;
const errWithCode = new Error("with code");
errWithCode.code = "E_CODE";
errWithCode.extra = { a: 1 };
const errNoStack = new Error("no stack");
errNoStack.stack = "";
const errCause = new Error("outer", { cause: new Error("inner") });
const errCausePrimitive = new Error("outer2", { cause: "just a string" });
const typeErr = new TypeError("bad type");
const rangeErrRenamed = new RangeError("renamed");
rangeErrRenamed.name = "CustomRange";
const fnWithProps = function withProps() {};
fnWithProps.x = 1;
const nullProto = Object.assign(Object.create(null), { a: 1, b: "two" });
const getters = {
  get g() {
    return 42;
  },
  set s(v) {},
  get gs() {
    return { deep: true };
  },
  set gs(v) {},
};
const nested = { l1: { l2: { l3: { l4: { l5: "deep" } } } } };
const customString = { [realUtil.inspect.custom]: () => "CUSTOM!" };
const customObj = { [realUtil.inspect.custom]: () => ({ replaced: [1, 2] }) };
const customArgs = {
  [realUtil.inspect.custom](depth, options, inspect) {
    return `depth=${depth} compact=${options.compact} hasInspect=${typeof inspect}`;
  },
};
const customMultiLine = { inner: { [realUtil.inspect.custom]: () => "line1\nline2" } };
const regexWithProps = /abc/gi;
regexWithProps.extra = 1;
const dateWithProps = new Date(0);
dateWithProps.extra = true;
const longObj = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, i * 1000]));

const inspectValues = {
  undefined: undefined, null: null, true: true, num: 42, negZero: -0, nan: NaN, inf: -Infinity, float: 1.25,
  big: 123n, sym: Symbol("desc"), symEmpty: Symbol(), str: "hello", strQuote: "it's", strBoth: `it's "q"`,
  strAll: "it's \"q\" `b`", strEsc: "tab\there\nnew\u0001\u007f\u009f\\", strUnicode: "héllo 🌍 \ud800 x \udc00",
  longStr: "x".repeat(200), longLines: "line one of text\nline two of text\nline three of text\n".repeat(4),
  emptyArr: [], emptyObj: {}, arr: [1, "two", [3, [4, [5, [6]]]]], nums: Array.from({ length: 30 }, (_, i) => i * 7),
  bigArr: Array.from({ length: 150 }, (_, i) => i), strs: ["apple", "banana", "cherry", "date", "elderberry", "fig", "grape", "h"],
  mixed: [1, "a", null, undefined, true, { x: 1 }, [2], 3n], sparse, arrWithProps, holes: new Array(5),
  obj: { a: 1, "b-c": 2, 3: "three", [Symbol("k")]: "sym", __proto__key: 1, "": "empty", "with space": 1 },
  nested, nullProto, foo: new Foo(), bar: new Bar(), tagged: new Tagged(), getters, longObj,
  objWithProtoKey: JSON.parse('{"__proto__": 1}'),
  map: new Map([["a", 1], [{ k: 1 }, [1, 2]], [NaN, new Set([1])]]), emptyMap: new Map(), set: new Set([1, "two", { three: 3 }]),
  emptySet: new Set(), bigSet: new Set(Array.from({ length: 120 }, (_, i) => i)),
  date: new Date(Date.UTC(2020, 1, 29, 12, 30, 45, 123)), invalidDate: new Date(NaN), dateWithProps,
  regex: /a+b?[c]\/d/gimsuy, regexWithProps,
  err: new Error("boom"), typeErr, myErr: new MyError("mine"), namedErr: new NamedError("named"), errWithCode, errNoStack,
  errCause, errCausePrimitive, rangeErrRenamed, errInObj: { e: new Error("inner obj") },
  fn: function named() {}, anon: (() => () => {})(), arrow: () => {}, asyncFn: async function af() {},
  genFn: function* gf() {}, asyncGen: async function* ag() {}, cls: Foo, subCls: Bar, anonCls: (() => class {})(),
  fnWithProps, builtinFn: Math.max, builtinCtor: Map,
  boxedNum: new Number(3), boxedStr: new String("abc"), boxedBool: new Boolean(false), boxedSym: Object(Symbol("bs")),
  boxedBig: Object(5n),
  u8: new Uint8Array([1, 2, 255]), f64: new Float64Array([1.5, -0, NaN]), emptyU8: new Uint8Array(0),
  i32: new Int32Array(40), bi64: new BigInt64Array([1n, -2n]), ab: new Uint8Array([1, 2, 3, 250]).buffer,
  dv: new DataView(new ArrayBuffer(4), 1, 2), buf: Buffer.from([1, 2, 3]),
  circular, mutualA, circArr, circMap, args: makeArgs(1, "a"), weakMap: new WeakMap(), weakSet: new WeakSet(),
  customString, customObj, customArgs, customMultiLine, genObj: (function* () {})(),
  objInArr: [{ a: { b: { c: { d: 1 } } } }], arrOfObjs: Array.from({ length: 8 }, (_, i) => ({ id: i, name: `n${i}` })),
  manyShort: Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i)),
  wideObj: { alpha: "a".repeat(30), beta: "b".repeat(30), gamma: "c".repeat(30), delta: "d".repeat(30), eps: 1 },
  globalMath: Math, json: JSON, objTag: { [Symbol.toStringTag]: "Own" }, classWithStatic: class S { static x = 1; },
};
// Known, documented differences (engine internals not observable from JS).
const skipInspect = new Set(["builtinFn"]);

const inspectOptionSets = [
  undefined, { depth: 0 }, { depth: Infinity }, { depth: null }, { compact: false }, { compact: true }, { compact: 1 },
  { breakLength: 40 }, { breakLength: Infinity }, { sorted: true }, { maxArrayLength: 3 }, { maxArrayLength: 0 },
  { maxStringLength: 5 }, { getters: true }, { numericSeparator: true }, { customInspect: false },
  { compact: false, breakLength: 80 },
];
for (const [name, value] of Object.entries(inspectValues)) {
  if (skipInspect.has(name)) continue;
  for (const opts of inspectOptionSets) {
    const args = opts === undefined ? [value] : [value, opts];
    same(`inspect(${name}, ${JSON.stringify(opts)})`, () => myUtil.inspect(...args), () => realUtil.inspect(...args));
  }
}
for (const name of ["obj", "arrWithProps", "err", "errWithCode", "nullProto", "foo", "u8", "fn", "cls", "map", "set", "circular"]) {
  const value = inspectValues[name];
  same(`inspect(${name}, {showHidden: true})`, () => myUtil.inspect(value, { showHidden: true }),
    () => realUtil.inspect(value, { showHidden: true }));
  same(`inspect(${name}, true, 0)`, () => myUtil.inspect(value, true, 0), () => realUtil.inspect(value, true, 0));
}
// Random nested structures stress the line-breaking/grouping logic.
const randomValue = (depth) => {
  const kind = rand(depth > 4 ? 6 : 11);
  switch (kind) {
    case 0: return rand(100000) - 500;
    case 1: return "s".repeat(rand(30));
    case 2: return [null, undefined, true, -0, 1.5, 12n][rand(6)];
    case 3: return `line ${rand(9)}\n`.repeat(rand(4) + 1) + "x".repeat(rand(20));
    case 4: return ["a", "bb", "ccc", "it's", "dddddddddddd"][rand(5)];
    case 5: return rand(1e9) / 7;
    case 6: case 7: return Array.from({ length: rand(depth < 2 ? 40 : 9) }, () => randomValue(depth + 1));
    case 8: return Object.fromEntries(Array.from({ length: rand(8) }, (_, i) => [["k", "key", "long_key_name", "x-y"][rand(4)] + i, randomValue(depth + 1)]));
    case 9: return new Map(Array.from({ length: rand(4) }, () => [randomValue(depth + 1), randomValue(depth + 1)]));
    default: return new Set(Array.from({ length: rand(5) }, () => randomValue(depth + 1)));
  }
};
for (let i = 0; i < 600; i++) {
  const value = randomValue(0);
  const opts = [undefined, { depth: 4 }, { breakLength: 60 }, { compact: 2, depth: Infinity }, { compact: false }][i % 5];
  const args = opts === undefined ? [value] : [value, opts];
  same(`inspect(random #${i}, ${JSON.stringify(opts)})`, () => myUtil.inspect(...args), () => realUtil.inspect(...args));
  same(`format('%s %o', random #${i})`, () => myUtil.format("%s %o %j", value, value, 1), () => realUtil.format("%s %o %j", value, value, 1));
}
check("inspect QuickJS-style stacks (frames only)", () => {
  const err = new TypeError("qjs");
  err.stack = "    at foo (main.js:3)\n    at <eval> (main.js:5)\n";
  assert.equal(myUtil.inspect(err), "TypeError: qjs\n    at foo (main.js:3)\n    at <eval> (main.js:5)");
  assert.equal(myUtil.inspect({ e: err }), "{\n  e: TypeError: qjs\n      at foo (main.js:3)\n      at <eval> (main.js:5)\n}");
  assert.equal(myUtil.inspect(Promise.resolve(1)), "Promise { <unknown> }");
});
check("inspect symbols and defaults", () => {
  assert.equal(myUtil.inspect.custom, realUtil.inspect.custom);
  assert.deepEqual(Object.keys(myUtil.inspect.defaultOptions), Object.keys(realUtil.inspect.defaultOptions));
  assert.deepEqual({ ...myUtil.inspect.defaultOptions }, { ...realUtil.inspect.defaultOptions });
});
check("inspect colors", () => {
  assert.equal(myUtil.inspect({ a: 1, s: "x", n: null, u: undefined }, { colors: true }),
    realUtil.inspect({ a: 1, s: "x", n: null, u: undefined }, { colors: true }));
});

const fmtObjects = [
  { a: 1 }, [1, [2, [3]]], new Date(0), new Foo(), { toString: () => "custom toString" }, Object.create(null),
  new Map([[1, 2]]), new Error("fmt"), null, undefined, 5, -0, 7n, Symbol("s"), "str", true, NaN, "42.5abc", "0x1f",
  { a: { b: { c: 1 } } }, circular, () => {}, class K {}, new (class WithToString { toString() { return "WTS"; } })(),
];
const patterns = ["%s", "%d", "%i", "%f", "%j", "%o", "%O", "%c", "%%", "%x", "a %s b", "%s:%s", "%", "%s%", "100%",
  "%d%%", "%%s", "%s %d %i %f %j", "no placeholders", "%O-%o", "%5d", "%s%s%s%s"];
for (const pattern of patterns) {
  for (const v of fmtObjects) {
    same(`format(${show(pattern)}, ${show(v)})`, () => myUtil.format(pattern, v), () => realUtil.format(pattern, v));
    same(`format(${show(pattern)}, ${show(v)}, 'extra', {x:1})`, () => myUtil.format(pattern, v, "extra", { x: 1 }),
      () => realUtil.format(pattern, v, "extra", { x: 1 }));
  }
  same(`format(${show(pattern)})`, () => myUtil.format(pattern), () => realUtil.format(pattern));
}
for (const v of fmtObjects) {
  same(`format(${show(v)}, 'b')`, () => myUtil.format(v, "b"), () => realUtil.format(v, "b"));
  same(`format(${show(v)})`, () => myUtil.format(v), () => realUtil.format(v));
}
same("format()", () => myUtil.format(), () => realUtil.format());
for (const opts of [{ compact: false }, { depth: 0 }, { breakLength: 10 }, {}, []]) {
  same(`formatWithOptions(${show(opts)})`, () => myUtil.formatWithOptions(opts, "%O %s", { a: [1, 2, { b: 3 }] }, nested, [1, 2]),
    () => realUtil.formatWithOptions(opts, "%O %s", { a: [1, 2, { b: 3 }] }, nested, [1, 2]));
}
for (const bad of [null, 1, "x", undefined]) {
  same(`formatWithOptions(${show(bad)})`, () => myUtil.formatWithOptions(bad, "x"), () => realUtil.formatWithOptions(bad, "x"));
}

// ---------------------------------------------------------------------------
// util.types and legacy predicates

const typeValues = [
  undefined, null, 1, "s", Symbol("t"), 1n, {}, [], new Date(), new Date(NaN), /x/, RegExp.prototype, new Map(), new Set(),
  new WeakMap(), new WeakSet(), Promise.resolve(1), { then() {} }, new Error("e"), new TypeError("t"), new MyError("m"),
  Object.create(Error.prototype), async () => {}, async function* () {}, function* () {}, () => {}, class {},
  new Uint8Array(2), new Uint8ClampedArray(1), new Uint16Array(1), new Uint32Array(1), new Int8Array(1), new Int16Array(1),
  new Int32Array(1), new Float32Array(1), new Float64Array(1), new BigInt64Array(1), new BigUint64Array(1),
  new ArrayBuffer(2), new SharedArrayBuffer(2), new DataView(new ArrayBuffer(1)), Buffer.alloc(1), new Number(1),
  new String("s"), new Boolean(true), Object(Symbol()), Object(1n), makeArgs(), new Map().entries(), new Set().values(),
  (function* () {})(), Object.create(null), Object.create(Date.prototype), Object.create(Map.prototype),
];
for (const key of Object.keys(realUtil.types)) {
  if (!(key in myUtil.types)) continue; // Reported below.
  typeValues.forEach((v, i) => {
    same(`types.${key}(#${i} ${show(v)})`, () => myUtil.types[key](v), () => realUtil.types[key](v));
  });
}
check("util.types coverage", () => {
  const missing = Object.keys(realUtil.types).filter((k) => !(k in myUtil.types));
  // isProxy needs the engine (it answers false here, under Node): tests/engine.rs checks it.
  assert.deepEqual(missing, ["isExternal"]);
});
for (const key of ["isArray", "isBoolean", "isBuffer", "isNull", "isNullOrUndefined", "isNumber", "isString", "isSymbol",
  "isUndefined", "isRegExp", "isObject", "isDate", "isError", "isFunction", "isPrimitive"]) {
  typeValues.forEach((v, i) => {
    same(`util.${key}(#${i})`, () => myUtil[key](v), () => realUtil[key](v));
  });
}

// ---------------------------------------------------------------------------
// util.isDeepStrictEqual

const deepPairs = [
  [1, 1], [1, "1"], [0, -0], [NaN, NaN], [null, undefined], [{}, {}], [{ a: 1 }, { a: 1 }], [{ a: 1 }, { a: 2 }],
  [{ a: 1 }, { a: 1, b: undefined }], [[1, 2], [1, 2]], [[1, 2], [2, 1]], [[1, , 3], [1, undefined, 3]],
  [[1, [2, { c: 3 }]], [1, [2, { c: 3 }]]], [new Date(1), new Date(1)], [new Date(1), new Date(2)], [/a/g, /a/g],
  [/a/g, /a/i], [new Map([[1, { a: 1 }]]), new Map([[1, { a: 1 }]])], [new Map([[1, 2]]), new Map([[1, 3]])],
  [new Set([1, 2]), new Set([2, 1])], [new Set([{ a: 1 }]), new Set([{ a: 1 }])], [new Set([{ a: 1 }]), new Set([{ a: 2 }])],
  [new Map([[{ k: 1 }, "v"]]), new Map([[{ k: 1 }, "v"]])], [new Foo(), { a: 1 }], [new Foo(), new Foo()],
  [Object.create(null), {}], [new Error("a"), new Error("a")], [new Error("a"), new Error("b")],
  [new Error("a"), new TypeError("a")], [new Uint8Array([1, 2]), new Uint8Array([1, 2])],
  [new Uint8Array([1, 2]), new Int8Array([1, 2])], [new Uint8Array([1]), new Uint8Array([2])],
  [new Float64Array([0]), new Float64Array([-0])], [new ArrayBuffer(2), new ArrayBuffer(2)], [new ArrayBuffer(2), new ArrayBuffer(3)],
  [new Number(1), new Number(1)], [new Number(1), new Number(2)], [new String("a"), new String("a")], [new Number(1), 1],
  [circular, circular], [mutualA, mutualA], [{ [Symbol.for("s")]: 1 }, { [Symbol.for("s")]: 1 }],
  [{ [Symbol.for("s")]: 1 }, { [Symbol.for("s")]: 2 }], [[1], { 0: 1, length: 1 }], [makeArgs(1), [1]],
  [new WeakMap(), new WeakMap()], ["a", new String("a")], [{ a: [1, { b: new Map([[1, new Set([2])]]) }] }, { a: [1, { b: new Map([[1, new Set([2])]]) }] }],
];
const circ1 = { x: 1 };
circ1.self = circ1;
const circ2 = { x: 1 };
circ2.self = circ2;
deepPairs.push([circ1, circ2]);
deepPairs.forEach(([a, b], i) => {
  same(`isDeepStrictEqual #${i} ${show(a)} ${show(b)}`, () => myUtil.isDeepStrictEqual(a, b), () => realUtil.isDeepStrictEqual(a, b));
});

// ---------------------------------------------------------------------------
// util: misc helpers

const vtStrings = ["\u001b[31mred\u001b[39m", "plain", "\u001b[1;2;3mbold", "\u001b]8;;http://x\u0007link\u001b]8;;\u0007",
  "\u009b32mx", "a\u001b[2Kb\u001b[1Ac", "\u001b[?25l", ""];
for (const s of vtStrings) same(`stripVTControlCharacters(${show(s)})`, () => myUtil.stripVTControlCharacters(s), () => realUtil.stripVTControlCharacters(s));
for (const bad of [1, null, {}]) {
  same(`stripVTControlCharacters(${show(bad)})`, () => myUtil.stripVTControlCharacters(bad), () => realUtil.stripVTControlCharacters(bad));
}
for (const s of ["abc", "\ud800", "a\udc00b", "\ud83d\ude00", "\ude00\ud83d", 12, null]) {
  same(`toUSVString(${show(s)})`, () => myUtil.toUSVString(s), () => realUtil.toUSVString(s));
}

check("inherits", () => {
  function Animal() {}
  Animal.prototype.speak = () => "…";
  function Dog() {}
  myUtil.inherits(Dog, Animal);
  assert.equal(Dog.super_, Animal);
  assert.ok(new Dog() instanceof Animal);
  assert.equal(new Dog().speak(), "…");
  assert.deepEqual(Object.getOwnPropertyDescriptor(Dog, "super_"), { value: Animal, writable: true, enumerable: false, configurable: true });
});
for (const [a, b] of [[undefined, function A() {}], [function A() {}, null], [function A() {}, {}], [function A() {}, () => {}]]) {
  same(`inherits(${show(a)}, ${show(b)})`, () => myUtil.inherits(a, b), () => realUtil.inherits(a, b));
}

for (const bad of [undefined, null, 1, "fn", {}]) {
  same(`promisify(${show(bad)})`, () => myUtil.promisify(bad), () => realUtil.promisify(bad));
  same(`callbackify(${show(bad)})`, () => myUtil.callbackify(bad), () => realUtil.callbackify(bad));
}
check("promisify.custom", () => {
  assert.equal(myUtil.promisify.custom, realUtil.promisify.custom);
  const custom = () => Promise.resolve("custom");
  const fn = (cb) => cb(null, "no");
  fn[realUtil.promisify.custom] = custom;
  assert.equal(myUtil.promisify(fn), custom);
  const p = myUtil.promisify((cb) => cb(null, 1));
  assert.equal(myUtil.promisify(p), p);
  const bad = () => {};
  bad[realUtil.promisify.custom] = 1;
  assert.throws(() => myUtil.promisify(bad), { code: "ERR_INVALID_ARG_TYPE", message: realUtil.format("%s", outcome(() => realUtil.promisify(bad)).err.message) });
});

async function promisifyScenarios(util) {
  const log = [];
  function withProps(a, b, cb) {
    cb(null, a + b, "ignored");
  }
  withProps.extra = "prop";
  const p = util.promisify(withProps);
  log.push(p.name, p.length, p.extra, await p(1, 2));
  log.push(await outcomeAsync(() => util.promisify((cb) => cb(new Error("cb err")))()));
  log.push(await outcomeAsync(() => util.promisify(() => { throw new RangeError("sync"); })()));
  log.push(await outcomeAsync(() => util.promisify((cb) => cb(0, "falsy err is success"))()));
  const obj = { v: 7, m(cb) { cb(null, this.v); } };
  obj.pm = util.promisify(obj.m);
  log.push(await obj.pm());

  const asyncFn = async function doIt(a, b) {
    if (a === "fail") throw new Error("rejected");
    if (a === "null") throw null;
    return a + b;
  };
  const cbFn = util.callbackify(asyncFn);
  log.push(cbFn.name, cbFn.length);
  const run = (...args) => new Promise((resolve) => cbFn(...args, (err, val) => resolve([
    err && { name: err.name, message: err.message, code: err.code, reason: err.reason }, val])));
  log.push(await run(1, 2), await run("fail", 0), await run("null", 0));
  log.push(outcome(() => cbFn(1, 2, "not a function")));
  const ctx = { k: "ctx" };
  const cbThis = util.callbackify(async function () { return this.k; });
  log.push(await new Promise((resolve) => cbThis.call(ctx, function (err, v) { resolve([err, v, this === ctx]); })));
  return log;
}
await checkAsync("promisify/callbackify behaviour", async () => {
  assert.deepStrictEqual(await promisifyScenarios(myUtil), await promisifyScenarios(realUtil));
});

check("deprecate", () => {
  const warnings = [];
  const origWarn = console.warn;
  console.warn = (...args) => warnings.push(args.join(" "));
  try {
    function Old(x) {
      if (new.target) this.x = x;
      return x * 2;
    }
    const dep = myUtil.deprecate(Old, "Old() is deprecated", "DEP0999");
    assert.equal(dep(2), 4);
    assert.equal(dep(3), 6);
    assert.equal(new dep(5).x, 5);
    assert.ok(new dep(1) instanceof Old);
    const dep2 = myUtil.deprecate(() => 1, "again", "DEP0999");
    dep2();
    const dep3 = myUtil.deprecate(() => 1, "no code");
    dep3();
    dep3();
    assert.deepEqual(warnings, ["[DEP0999] DeprecationWarning: Old() is deprecated", "DeprecationWarning: no code"]);
  } finally {
    console.warn = origWarn;
  }
});

check("debuglog / parseArgs / encoders", () => {
  const log = myUtil.debuglog("test");
  assert.equal(typeof log, "function");
  assert.equal(log("x %s", 1), undefined);
  assert.equal(log.enabled, false);
  assert.equal(myUtil.debug, myUtil.debuglog);
  assert.throws(() => myUtil.parseArgs({}), /not supported/);
  assert.equal(myUtil.TextEncoder, globalThis.TextEncoder);
  assert.equal(myUtil.TextDecoder, globalThis.TextDecoder);
});

check("util exports", () => {
  for (const key of Object.keys(myUtil)) {
    assert.equal(typeof myUtil[key], typeof realUtil[key], key);
    assert.equal(myUtilNS[key], myUtil[key], `named export ${key}`);
  }
  assert.equal(myUtilNS.default, myUtil);
});

// ---------------------------------------------------------------------------
// events: run identical scenarios against both implementations and compare logs.

function eventScenarios(EE) {
  const out = {};
  const err = (fn) => outcome(fn).err;

  {
    const e = new EE();
    const log = [];
    e.on("x", (...a) => log.push(["first", ...a]));
    e.on("x", function (...a) { log.push(["second", this === e, ...a]); });
    log.push(e.emit("x", 1, 2), e.emit("y"), e.emit("x"));
    out.basic = log;
  }
  {
    const e = new EE();
    const log = [];
    const f = (v) => log.push(["once", v]);
    e.once("o", f);
    log.push(e.listeners("o")[0] === f, e.rawListeners("o")[0] === f, e.rawListeners("o")[0].listener === f);
    log.push(e.listenerCount("o"), e.listenerCount("o", f), e.listenerCount("o", () => {}));
    e.emit("o", 1);
    e.emit("o", 2);
    log.push(e.listenerCount("o"));
    e.once("o", f);
    e.removeListener("o", f);
    log.push(e.listenerCount("o"), e.emit("o", 3));
    const raw = (() => { e.once("p", f); return e.rawListeners("p")[0]; })();
    raw(9);
    raw(10);
    log.push(e.listenerCount("p"));
    out.once = log;
  }
  {
    const e = new EE();
    const log = [];
    e.on("p", () => log.push("on1"));
    e.prependListener("p", () => log.push("prepended"));
    e.prependOnceListener("p", () => log.push("prependedOnce"));
    e.on("p", () => log.push("on2"));
    e.emit("p");
    e.emit("p");
    out.prepend = log;
  }
  {
    const e = new EE();
    const log = [];
    const b = () => log.push("b");
    e.on("r", () => { log.push("a"); e.removeListener("r", b); e.on("r", () => log.push("late")); });
    e.on("r", b);
    e.emit("r");
    e.emit("r");
    log.push(e.listenerCount("r"));
    out.mutateDuringEmit = log;
  }
  {
    const e = new EE();
    const log = [];
    e.on("newListener", (type, l) => log.push(["new", String(type), l.name, e.listenerCount(type)]));
    e.on("removeListener", (type, l) => log.push(["removed", String(type), l.name]));
    function one() {}
    function two() {}
    e.on("z", one);
    e.once("z", two);
    e.on(Symbol.for("sym"), one);
    log.push(e.eventNames().map(String));
    e.off("z", two);
    e.removeListener("z", one);
    e.removeListener("missing", one);
    e.on("q", one);
    e.on("q", two);
    e.on("w", one);
    e.removeAllListeners("q");
    log.push(e.eventNames().map(String));
    e.removeAllListeners();
    log.push(e.eventNames().map(String), e._eventsCount);
    out.newRemove = log;
  }
  {
    const e = new EE();
    e.on("a", () => {});
    e.on("a", () => {});
    e.on("b", () => {});
    e.removeAllListeners("a");
    const names1 = e.eventNames();
    e.removeAllListeners("nothing");
    e.removeAllListeners();
    out.removeAllFast = [names1, e.eventNames(), e.listenerCount("b"), e.emit("b")];
  }
  {
    const e = new EE();
    const boom = new Error("boom");
    const log = [];
    log.push(outcome(() => e.emit("error", boom)).err);
    try {
      e.emit("error", boom);
    } catch (thrown) {
      log.push(thrown === boom);
    }
    for (const v of ["str", 42, undefined, null, { a: 1 }, [1, "x"]]) {
      try {
        e.emit("error", v);
      } catch (thrown) {
        log.push([thrown.name, thrown.code, thrown.message, thrown.context === v]);
      }
    }
    try {
      e.emit("error");
    } catch (thrown) {
      log.push([thrown.code, thrown.message]);
    }
    const seen = [];
    e.on(EE.errorMonitor, (er) => seen.push(["monitor", er.message]));
    log.push(outcome(() => e.emit("error", boom)).err, seen.length);
    e.on("error", (er) => seen.push(["handled", er.message]));
    log.push(e.emit("error", boom), seen);
    out.errors = log;
  }
  {
    const e = new EE();
    const log = [e.getMaxListeners(), EE.defaultMaxListeners];
    log.push(e.setMaxListeners(3) === e, e.getMaxListeners());
    for (const bad of [-1, NaN, "5", null]) log.push(err(() => e.setMaxListeners(bad)));
    log.push(err(() => { EE.defaultMaxListeners = -1; }), err(() => { EE.defaultMaxListeners = "x"; }));
    const prevDefault = EE.defaultMaxListeners;
    EE.defaultMaxListeners = 4;
    log.push(new EE().getMaxListeners());
    EE.defaultMaxListeners = prevDefault;
    for (const bad of [1, null, "f", {}]) log.push(err(() => e.on("x", bad)), err(() => e.once("x", bad)), err(() => e.off("x", bad)));
    out.limits = log;
  }
  {
    // Memory-leak warning goes through process.emitWarning.
    const warnings = [];
    const orig = process.emitWarning;
    process.emitWarning = (w) => warnings.push([w.name, w.message, w.count, String(w.type)]);
    try {
      const e = new EE();
      e.setMaxListeners(1);
      e.on("leak", () => {});
      e.on("leak", () => {});
      e.on("leak", () => {});
      e.setMaxListeners(0);
      e.on("ok", () => {});
      e.on("ok", () => {});
    } finally {
      process.emitWarning = orig;
    }
    out.leak = warnings;
  }
  {
    function Legacy() {
      EE.call(this);
      this.legacy = true;
    }
    Object.setPrototypeOf(Legacy.prototype, EE.prototype);
    const l = new Legacy();
    let got;
    l.on("hi", (v) => { got = v; });
    l.emit("hi", "there");
    class Modern extends EE {}
    const m = new Modern();
    out.subclass = [got, l instanceof EE, m instanceof EE, Object.keys(l), Object.keys(m), m.emit("nothing"),
      EE.listenerCount(l, "hi"), EE.listenerCount({ _events: { x: [1, 2] } }, "x")];
  }
  {
    const e = new EE();
    const f = () => {};
    e.on("g", f);
    out.statics = [EE.EventEmitter === EE, typeof EE.once, EE.errorMonitor.toString(), EE.captureRejectionSymbol,
      EE.usingDomains, EE.getEventListeners(e, "g")[0] === f, EE.getMaxListeners(e), EE.captureRejections,
      Object.keys(new EE()), new EE()._maxListeners, typeof EE.init];
    const e2 = new EE();
    EE.setMaxListeners(7, e2);
    out.statics.push(e2.getMaxListeners(), err(() => EE.setMaxListeners(-2)));
  }
  return out;
}

check("events scenarios", () => {
  const mine = eventScenarios(MyEE);
  const theirs = eventScenarios(RealEE);
  for (const key of Object.keys(theirs)) assert.deepStrictEqual(mine[key], theirs[key], key);
});

async function asyncEventScenarios(EE) {
  const log = [];
  const e = new EE();
  setTimeout(() => e.emit("ready", 1, "two"), 1);
  log.push(await EE.once(e, "ready"));
  log.push(e.listenerCount("ready"), e.listenerCount("error"));
  setTimeout(() => e.emit("error", new Error("failed")), 1);
  log.push(await outcomeAsync(() => EE.once(e, "ready")));
  log.push(e.listenerCount("ready"), e.listenerCount("error"));
  setTimeout(() => e.emit("error", new Error("as value")), 1);
  log.push((await EE.once(e, "error"))[0].message);

  const ac = new AbortController();
  const pending = outcomeAsync(() => EE.once(e, "never", { signal: ac.signal }));
  ac.abort();
  log.push(await pending, e.listenerCount("never"), e.listenerCount("error"));
  log.push(await outcomeAsync(() => EE.once(e, "never", { signal: ac.signal })));
  log.push(await outcomeAsync(() => EE.once(e, "x", { signal: 1 })));
  for (const options of [null, 5]) {
    setTimeout(() => e.emit("x", options), 1);
    log.push(await outcomeAsync(() => EE.once(e, "x", options)));
  }
  log.push(await outcomeAsync(() => EE.once({}, "x")));

  const target = new EventTarget();
  setTimeout(() => target.dispatchEvent(new Event("ping")), 1);
  const [event] = await EE.once(target, "ping");
  log.push(event.type);
  return log;
}
await checkAsync("events.once", async () => {
  assert.deepStrictEqual(await asyncEventScenarios(MyEE), await asyncEventScenarios(RealEE));
});

check("events exports", () => {
  assert.equal(myEventsNS.default, MyEE);
  assert.equal(myEventsNS.EventEmitter, MyEE);
  assert.equal(myEventsNS.once, MyEE.once);
  assert.equal(myEventsNS.errorMonitor, MyEE.errorMonitor);
  assert.equal(myEventsNS.captureRejectionSymbol, realEventsNS.captureRejectionSymbol);
  assert.equal(myEventsNS.defaultMaxListeners, 10);
  for (const key of Object.getOwnPropertyNames(RealEE)) {
    if (["on", "EventEmitterAsyncResource", "kMaxEventTargetListeners", "kMaxEventTargetListenersWarned"].includes(key)) continue;
    assert.equal(typeof MyEE[key], typeof RealEE[key], key);
  }
  for (const key of Object.getOwnPropertyNames(RealEE.prototype)) {
    assert.equal(typeof MyEE.prototype[key], typeof RealEE.prototype[key], `prototype.${key}`);
  }
});

await checkAsync("events.addAbortListener", async () => {
  const ac = new AbortController();
  const calls = [];
  const d = MyEE.addAbortListener(ac.signal, () => calls.push("a"));
  const d2 = MyEE.addAbortListener(ac.signal, () => calls.push("b"));
  d2[Symbol.dispose ?? Symbol.for("nodejs.dispose")]();
  ac.abort();
  assert.deepEqual(calls, ["a"]);
  MyEE.addAbortListener(ac.signal, () => calls.push("late"));
  await new Promise((r) => setTimeout(r, 1));
  assert.deepEqual(calls, ["a", "late"]);
  assert.equal(typeof d, "object");
});

// events.on: the async iterator of an emitter's events (queued, error, abort, close), and
// setMaxListeners on an AbortSignal; the same script under both modules.
async function onScenario(M) {
  const EE = M.default;
  const out = [];
  const e = new EE();
  setTimeout(() => { e.emit("x", 1, 2); e.emit("x", 3); e.emit("end"); }, 1);
  for await (const args of M.on(e, "x", { close: ["end"] })) out.push(args);
  const e2 = new EE();
  setTimeout(() => { e2.emit("x", 1); e2.emit("error", new Error("boom")); }, 1);
  out.push(await outcomeAsync(async () => { for await (const a of M.on(e2, "x")) out.push(a); }));
  const ac = new AbortController();
  const e3 = new EE();
  setTimeout(() => ac.abort(), 1);
  out.push(await outcomeAsync(async () => { for await (const a of M.on(e3, "x", { signal: ac.signal })) out.push(a); }));
  out.push(outcome(() => M.setMaxListeners(5, ac.signal)), outcome(() => M.setMaxListeners(5, {})));
  const e4 = new EE();
  const it = M.on(e4, "y");
  e4.emit("y", "a");
  e4.emit("y", "b");
  out.push((await it.next()).value, (await it.next()).value, e4.listenerCount("y"));
  out.push(await it.return(), e4.listenerCount("y"), e4.listenerCount("error"), typeof EE.on);
  out.push(outcome(() => M.on(e4, "y", { signal: AbortSignal.abort() })));
  return JSON.parse(JSON.stringify(out));
}
await checkAsync("events.on", async () => {
  assert.deepEqual(await onScenario(myEventsNS), await onScenario(realEventsNS));
});

// util.aborted: settles when the signal aborts, at once when it has; Node's argument errors.
async function abortedScenario(U) {
  const out = [];
  const ac = new AbortController();
  const p = U.aborted(ac.signal, {});
  let settled = false;
  p.then(() => { settled = true; });
  await new Promise((r) => setTimeout(r, 1));
  out.push(settled);
  ac.abort();
  out.push(await p, await U.aborted(AbortSignal.abort(), {}), await outcomeAsync(() => U.aborted(ac.signal, () => {})));
  out.push(await outcomeAsync(() => U.aborted({}, {})), await outcomeAsync(() => U.aborted(ac.signal, null)));
  out.push(await outcomeAsync(() => U.aborted(ac.signal, 1)));
  return JSON.parse(JSON.stringify(out, (k, v) => (v === undefined ? "undefined" : v)));
}
await checkAsync("util.aborted", async () => {
  assert.deepEqual(await abortedScenario(myUtil), await abortedScenario(realUtil));
});

console.log(`${passed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
