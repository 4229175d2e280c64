// Compares js/node/{stream,stream_promises,string_decoder,assert,querystring}.js with Node's
// built-in modules: every scenario in tests/fixtures/node-stream-assert/server/scenarios.js runs
// against both and must log the same events and values. Node's logs are also checked against
// tests/fixtures/node-stream-assert/scenarios.expected.json, which the engine test compares with.
// Run: node js/node/test/check-stream-assert.mjs [--update]   (--update rewrites that file)
import { readFileSync, writeFileSync } from "node:fs";
import * as stream from "node:stream";
import * as promises from "node:stream/promises";
import * as decoder from "node:string_decoder";
import assert from "node:assert";
import * as qs from "node:querystring";
import * as util from "node:util";
import * as events from "node:events";

// js/ has no package.json declaring "type": "module"; drop just that warning.
process.removeAllListeners("warning");
process.on("warning", (w) => {
  if (w.code !== "MODULE_TYPELESS_PACKAGE_JSON" && w.code !== "DEP0094") console.error(`${w.name}: ${w.message}`);
});
const fixture = new URL("../../../tests/fixtures/node-stream-assert/", import.meta.url);
const { scenarios, runScenario } = await import(new URL("server/scenarios.js", fixture));
const mine = {
  stream: await import("../stream.js"),
  promises: await import("../stream_promises.js"),
  decoder: await import("../string_decoder.js"),
  assert: (await import("../assert.js")).default,
  qs: await import("../querystring.js"),
  util,
  events,
};
const real = { stream, promises, decoder, assert, qs, util, events };

let passed = 0;
let failed = 0;
function fail(label, message) {
  failed++;
  console.log(`FAIL ${label}\n  ${message.split("\n").join("\n  ")}`);
}

const recorded = {};
for (const [label, scenario] of scenarios) {
  const expected = await runScenario(real, scenario);
  const actual = await runScenario(mine, scenario);
  recorded[label] = expected;
  if (expected === actual) passed++;
  else fail(label, `node: ${expected}\nours: ${actual}`);
}

// A few module-level checks that are not event logs.
const strictNs = await import("../assert_strict.js"); // its node:assert is Node's here
for (const [label, ok] of [
  ["assert/strict exports the same names as Node", Object.keys(strictNs).sort().join() === Object.keys(await import("node:assert/strict")).sort().join()],
  ["node:stream exports the same names as Node", Object.keys(mine.stream).sort().join() === Object.keys(stream).sort().join()],
  ["querystring exports the same names as Node", Object.keys(mine.qs).sort().join() === Object.keys(qs).sort().join()],
  ["assert exports the same names as Node", Object.keys(mine.assert).sort().join() === Object.keys(assert).sort().join()],
]) {
  if (ok) passed++;
  else fail(label, "mismatch");
}

const file = new URL("scenarios.expected.json", fixture);
const text = `${JSON.stringify(recorded, null, 1)}\n`;
if (process.argv.includes("--update")) {
  writeFileSync(file, text);
  passed++;
} else if (readFileSync(file, "utf8") === text) {
  passed++;
} else {
  fail("scenarios.expected.json matches Node", "rerun with --update");
}

console.log(`${passed} passed, ${failed} failed`);
if (failed) process.exit(1);
