// `process` (global and `node:process`): the daemon's environment as the plugin inherits it.
import { core, ops, unsupported, builtin, lazyModule, evaluatedModules, BuiltinKind } from "paseo:internal/core";
import { nextTick as tick } from "paseo:internal/timers";

const info = ops.op_process_info();


function hrtime(previous) {
  const ns = BigInt(Math.round(ops.op_timer_now() * 1e6));
  const now = [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
  if (!previous) return now;
  let s = now[0] - previous[0], n = now[1] - previous[1];
  if (n < 0) { s -= 1; n += 1e9; }
  return [s, n];
}
hrtime.bigint = () => BigInt(Math.round(ops.op_timer_now() * 1e6));

// process.stdout / stderr as Paseo frames a plugin's output into log entries: one entry per
// "\n"-ended line ("\r\n" counts as "\n"), a line written in pieces is one entry, and what is
// left without a newline is written once when the plugin stops (js/runtime/host.js).
const pendingOutput = ["", ""];
function framedOutput(stream) {
  return {
    write(chunk, encoding, callback) {
      if (typeof encoding === "function") callback = encoding;
      const text = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
      const lines = (pendingOutput[stream] + text).split("\n");
      pendingOutput[stream] = lines.pop();
      for (const line of lines) ops.op_host_log(stream, line);
      if (typeof callback === "function") tick(callback);
      return true;
    },
    isTTY: false,
  };
}
Object.defineProperty(globalThis, Symbol.for("paseo.process.flushOutput"), {
  value() {
    for (const stream of [0, 1]) {
      if (pendingOutput[stream] !== "") ops.op_host_log(stream, pendingOutput[stream]);
      pendingOutput[stream] = "";
    }
  },
});

// `process` is an EventEmitter, as in Node, but node:events is evaluated on first use (most
// plugins never listen on process): until then its emitter methods are stand-ins that load
// node:events, whose evaluation turns `process` into an EventEmitter (prototype and state), and
// then run the real method.
const EMITTER_METHODS = [
  "on", "once", "off", "emit", "addListener", "removeListener", "removeAllListeners", "prependListener",
  "prependOnceListener", "listeners", "rawListeners", "listenerCount", "eventNames", "setMaxListeners", "getMaxListeners",
];
const process = {};
const becomeEmitter = Symbol.for("paseo.process.becomeEmitter");
Object.defineProperty(globalThis, becomeEmitter, {
  value(EventEmitter) {
    delete globalThis[becomeEmitter];
    for (const name of EMITTER_METHODS) delete process[name];
    Object.setPrototypeOf(process, EventEmitter.prototype);
    EventEmitter.call(process);
  },
  configurable: true,
});
for (const name of EMITTER_METHODS) {
  Object.defineProperty(process, name, {
    value: { [name](...args) { lazyModule("node:events"); return process[name](...args); } }[name],
    writable: true,
    configurable: true,
  });
}
Object.assign(process, {
  env: { ...info.env },
  argv: [info.execPath, "index.server.ts"],
  argv0: "paseo",
  execArgv: [],
  execPath: info.execPath,
  pid: info.pid,
  ppid: info.ppid,
  platform: "linux",
  arch: ({ x86_64: "x64", aarch64: "arm64" })[ops.op_os_info().arch] ?? ops.op_os_info().arch,
  version: "v20.0.0",
  versions: { node: "20.0.0", paseo: "0.14.0" },
  release: { name: "node" },
  title: "paseo",
  exitCode: undefined,
  cwd: () => ops.op_process_cwd(),
  chdir: unsupported("process.chdir"),
  nextTick: tick,
  hrtime,
  uptime: () => ops.op_timer_now() / 1000,
  // The heap figures are the plugin's own isolate's (js/node/v8.js's order).
  memoryUsage: Object.assign(() => {
    const [rss] = ops.op_process_memory();
    const heap = ops.op_host_heap_statistics();
    return { rss, heapTotal: heap[0], heapUsed: heap[4], external: heap[12], arrayBuffers: 0 };
  }, { rss: () => ops.op_process_memory()[0] }),
  cpuUsage: () => ({ user: 0, system: 0 }),
  emitWarning: (warning) => console.warn(`Warning: ${warning?.message ?? warning}`),
  getuid: () => ops.op_os_info().uid,
  geteuid: () => ops.op_os_info().uid,
  getgid: () => ops.op_os_info().gid,
  getegid: () => ops.op_os_info().gid,
  getgroups: () => [ops.op_os_info().gid],
  umask: () => 0o22,
  // Ends the plugin, as an exiting child process ends a plugin in Paseo (never the daemon):
  // the engine terminates the isolate, and nothing after this line runs.
  exit(code) {
    const status = code ?? process.exitCode ?? 0;
    ops.op_host_exit(Number.isInteger(Number(status)) ? Number(status) : 1);
    for (;;);
  },
  abort() {
    ops.op_host_exit(134);
    for (;;);
  },
  kill: unsupported("process.kill"),
  getBuiltinModule(id) {
    const name = String(id).replace(/^node:/, "");
    const face = builtin(name);
    if (face !== undefined) return face;
    if (core.ops.op_node_builtin_kind(name) === BuiltinKind.UNSUPPORTED) {
      throw new Error(`process.getBuiltinModule("${id}"): node:${name} is not supported by the Paseo plugin host yet`);
    }
    return undefined;
  },
  stdout: framedOutput(0),
  stderr: framedOutput(1),
  features: {},
  config: { variables: {} },
});

// Node lists the builtins it has evaluated as "NativeModule <name>" (and its bindings).
Object.defineProperty(process, "moduleLoadList", {
  get: () => evaluatedModules().filter((url) => url.startsWith("node:")).map((url) => `NativeModule ${url.slice(5)}`),
  enumerable: true,
  configurable: true,
});

// What belongs to the process the isolate runs in. On V8 this module is evaluated into the
// startup snapshot, which an earlier process may have made (runtime/src/engine/snapshot.rs): an
// isolate booted from it takes them again, through the bootstrap's `start`, before any plugin
// code runs.
export let { execPath, pid, ppid } = process;
Object.defineProperty(globalThis, Symbol.for("paseo.process.restart"), {
  value() {
    delete globalThis[Symbol.for("paseo.process.restart")];
    const now = ops.op_process_info();
    // The object stays: it is exported as `env` too.
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, now.env);
    process.execPath = process.argv[0] = execPath = now.execPath;
    process.pid = pid = now.pid;
    process.ppid = ppid = now.ppid;
  },
  configurable: true,
});

// A plugin with a policy sees only the variables it was granted: the environment taken at boot,
// before the isolate knew its plugin, is taken again through the policy (js/runtime/host.js).
Object.defineProperty(globalThis, Symbol.for("paseo.process.syncEnv"), {
  value() {
    const env = ops.op_process_info().env;
    for (const name of Object.keys(process.env)) delete process.env[name];
    if (!ops.op_permission_auditing()) {
      Object.assign(process.env, env);
      return;
    }
    // Audit mode: every variable is there, and each one read is recorded for the policy.
    for (const [name, initial] of Object.entries(env)) {
      let value = initial;
      Object.defineProperty(process.env, name, {
        get() {
          ops.op_permission_note_env(name);
          return value;
        },
        set(v) {
          value = String(v);
        },
        enumerable: true,
        configurable: true,
      });
    }
  },
});
// Node's `process.permission` exists when a permission model runs: here, when the owner gave
// the plugin a policy.
const permission = Object.freeze({
  has: (scope, reference) => ops.op_permission_has(String(scope), reference == null ? null : String(reference)) ?? true,
});
Object.defineProperty(process, "permission", {
  get: () => (ops.op_permission_has("fs", null) === null ? undefined : permission),
  enumerable: false,
  configurable: true,
});

export default process;
// `Object.prototype.toString.call(process)` is "[object process]" in Node; axios picks its
// HTTP adapter by it.
Object.defineProperty(process, Symbol.toStringTag, { value: "process", writable: true, configurable: false, enumerable: false });

// Node's `node:process` has a named export for every key of `process` (its 79, in Node 20):
// each is here too, `undefined` where this host has no such member, so that a named import
// links as it does in Node (and in Paseo's bundle, where a missing one is `undefined`).
export const {
  version, versions, arch, platform, release, _rawDebug, moduleLoadList, binding, _linkedBinding, _events,
  _eventsCount, _maxListeners, domain, _exiting, exitCode, config, dlopen, uptime, _getActiveRequests,
  _getActiveHandles, getActiveResourcesInfo, reallyExit, _kill, loadEnvFile, cpuUsage, resourceUsage,
  memoryUsage, constrainedMemory, availableMemory, kill, exit, openStdin, getuid, geteuid, getgid, getegid,
  getgroups, allowedNodeEnvironmentFlags, assert, features, _fatalException, setUncaughtExceptionCaptureCallback,
  hasUncaughtExceptionCaptureCallback, emitWarning, nextTick, _tickCallback, sourceMapsEnabled,
  setSourceMapsEnabled, getBuiltinModule, _debugProcess, _debugEnd, _startProfilerIdleNotifier,
  _stopProfilerIdleNotifier, stdout, stdin, stderr, abort, umask, chdir, cwd, initgroups, setgroups, setegid,
  seteuid, setgid, setuid, env, title, argv, execArgv, debugPort, argv0, _eval, _preload_modules, report,
} = process;
export { hrtime };
