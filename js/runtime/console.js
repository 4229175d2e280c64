// `console`: every line goes to the plugin's log tail (and `tracing`) through op_host_log.
import { ops, lazyModule } from "paseo:internal/core";

// node:util is loaded the first time something is logged.
let util = null;
const format = (...args) => (util ??= lazyModule("node:util")).format(...args);
const inspect = (...args) => (util ??= lazyModule("node:util")).inspect(...args);

const STDOUT = 0, STDERR = 1;
let indent = "";
const counts = new Map();
const timers = new Map();

function write(stream, args) {
  const text = format(...args);
  ops.op_host_log(stream, indent ? text.replace(/^/gm, indent) : text);
}

export const console = {
  log: (...a) => write(STDOUT, a),
  info: (...a) => write(STDOUT, a),
  debug: (...a) => write(STDOUT, a),
  warn: (...a) => write(STDERR, a),
  error: (...a) => write(STDERR, a),
  trace: (...a) => write(STDERR, [`Trace: ${format(...a)}\n${new Error().stack.split("\n").slice(2).join("\n")}`]),
  dir: (v, opts) => write(STDOUT, [inspect(v, opts)]),
  dirxml: (...a) => write(STDOUT, a),
  table: (v) => write(STDOUT, [v]),
  assert: (cond, ...a) => { if (!cond) write(STDERR, ["Assertion failed" + (a.length ? ":" : ""), ...a]); },
  count: (label = "default") => { const n = (counts.get(label) ?? 0) + 1; counts.set(label, n); write(STDOUT, [`${label}: ${n}`]); },
  countReset: (label = "default") => counts.delete(label),
  group: (...a) => { if (a.length) write(STDOUT, a); indent += "  "; },
  groupCollapsed: (...a) => { if (a.length) write(STDOUT, a); indent += "  "; },
  groupEnd: () => { indent = indent.slice(2); },
  time: (label = "default") => timers.set(label, performance.now()),
  timeLog: (label = "default", ...a) => write(STDOUT, [`${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`, ...a]),
  timeEnd: (label = "default") => { write(STDOUT, [`${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`]); timers.delete(label); },
};
