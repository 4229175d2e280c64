// `node:child_process`: spawn/exec/execFile over async ops (the child and its pipes are
// resources in Rust), and the *Sync forms over one blocking op. Errors, events and return
// shapes follow Node's. `stdio: 'inherit'` copies output into the plugin's log (a plugin has
// no terminal). Missing: fork and IPC (`stdio: 'ipc'`), streams or fds in `stdio`.
import { ops, unsupported, lazyModule } from "paseo:internal/core";
import { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";
import process from "node:process";
import { ioCallback, nextTick, setImmediate } from "paseo:internal/timers";

const signals = {
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGIOT: 6, SIGBUS: 7, SIGFPE: 8,
  SIGKILL: 9, SIGUSR1: 10, SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGSTKFLT: 16,
  SIGCHLD: 17, SIGCONT: 18, SIGSTOP: 19, SIGTSTP: 20, SIGTTIN: 21, SIGTTOU: 22, SIGURG: 23, SIGXCPU: 24,
  SIGXFSZ: 25, SIGVTALRM: 26, SIGPROF: 27, SIGWINCH: 28, SIGIO: 29, SIGPOLL: 29, SIGPWR: 30, SIGSYS: 31,
};
const signalName = (n) => (n == null ? null : Object.keys(signals).find((k) => signals[k] === n) ?? null);

// Node's error shape (internal_errors.js has the same; importing it would evaluate node:util for
// every plugin that runs a child).
function codeError(Ctor, code, message) {
  const err = new Ctor(message);
  err.code = code;
  return err;
}
const MAX_BUFFER = 1024 * 1024;

function describe(v) {
  if (v == null) return String(v);
  if (typeof v === "function") return `function ${v.name}`;
  if (typeof v === "object") return v.constructor?.name ? `an instance of ${v.constructor.name}` : "an object";
  return `type ${typeof v} (${typeof v === "string" ? `'${v}'` : String(v)})`;
}
const invalidType = (name, what, v) => codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be ${what}. Received ${describe(v)}`);

function toSignal(sig) {
  if (typeof sig === "number" && (sig === 0 || Object.values(signals).includes(sig))) return sig;
  if (typeof sig === "string" && signals[sig.toUpperCase()] !== undefined) return signals[sig.toUpperCase()];
  throw codeError(TypeError, "ERR_UNKNOWN_SIGNAL", `Unknown signal: ${sig}`);
}

// Node's ErrnoException for spawn failures: `spawn <file> ENOENT` with errno, code, syscall, path, spawnargs.
function spawnError(code, errno, syscall, file, args) {
  const err = Object.assign(new Error(`${syscall} ${code}`), { errno, code, syscall });
  return file === undefined ? err : Object.assign(err, { path: file, spawnargs: args });
}
function abortError(reason) {
  const err = new Error("The operation was aborted", { cause: reason });
  err.name = "AbortError";
  err.code = "ABORT_ERR";
  return err;
}

// The stdio stream classes, made on first use: a plugin that only runs execSync or spawnSync
// does not evaluate node:stream.
let pipeClasses = null;
function pipes() {
  if (pipeClasses) return pipeClasses;
  const { Readable, Writable } = lazyModule("node:stream");
  // One end of a pipe to the child (its pipe resource, closed once), on either side.
  const PipeEnd = (Base) => class extends Base {
    #rid;
    constructor(rid, options) {
      super(options);
      this.#rid = rid;
    }
    get _pipe() { return this.#rid; }
    _closePipe() {
      if (this.#rid != null) ops.op_cp_close(this.#rid);
      this.#rid = null;
    }
    // As a socket's: 'close' comes from the handle's close callback, in a later phase of the
    // event loop (an immediate here), so that code continuing after 'end' still sees it.
    _destroy(error, cb) {
      this._closePipe();
      if (error) cb(error);
      else setImmediate(cb);
    }
    ref() { return this; }
    unref() { return this; }
  };
  // The readable side of a pipe (stdout/stderr): a node:stream Readable that reads while its
  // consumer keeps up.
  class ChildReadable extends PipeEnd(Readable) {
    #reading = false;
    constructor(rid) {
      super(rid);
      this.read(0); // start reading, as Node does, up to the high-water mark
    }
    _read() {
      if (this.#reading) return;
      this.#reading = true;
      (async () => {
        try {
          for (;;) {
            const bytes = this._pipe == null ? new Uint8Array(0) : await ops.op_cp_read(this._pipe);
            if (this.destroyed) return;
            if (bytes.length === 0) {
              this._closePipe();
              this.push(null);
              return;
            }
            if (!this.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) return;
          }
        } catch (e) {
          this.destroy(e);
        } finally {
          this.#reading = false;
        }
      })();
    }
  }

  // The writable side (stdin): writes go out in order; end() closes the pipe after them (EOF).
  class ChildWritable extends PipeEnd(Writable) {
    constructor(rid) {
      super(rid, { decodeStrings: false });
    }
    _write(chunk, encoding, cb) {
      if (this._pipe == null) return cb();
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk;
      ops.op_cp_write(this._pipe, bytes).then(() => cb(), (e) => {
        cb(e.message === "EPIPE" ? Object.assign(new Error("write EPIPE"), { errno: -32, code: "EPIPE", syscall: "write" }) : e);
      });
    }
    _final(cb) {
      this._closePipe();
      cb();
    }
  }
  pipeClasses = { ChildReadable, ChildWritable };
  return pipeClasses;
}

// Copies a stream into the plugin's log line by line ('inherit': a plugin has no terminal).
function forwardToLog(stream, target) {
  let partial = "";
  stream.setEncoding("utf8");
  stream.on("data", (text) => {
    const lines = (partial + text).split("\n");
    partial = lines.pop();
    for (const line of lines) target.write(`${line}\n`);
  });
  stream.on("end", () => partial && target.write(partial));
}

function normalizeStdio(stdio) {
  if (stdio != null && typeof stdio !== "string" && !Array.isArray(stdio)) throw invalidType("options.stdio", "of type string or an instance of Array", stdio);
  const list = Array.isArray(stdio) ? stdio : [stdio, stdio, stdio];
  for (const s of list.slice(3)) if (s != null && s !== "ignore") unsupported(`node:child_process stdio '${s}'`)();
  return [0, 1, 2].map((i) => {
    const s = list[i] ?? "pipe";
    if (s === "pipe" || s === "overlapped") return "pipe";
    if (s === "ignore") return "ignore";
    if (s === "inherit" || s === i || s === process[["stdin", "stdout", "stderr"][i]]) return "inherit";
    if (typeof s === "string" && s !== "ipc") throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'stdio' is invalid. Received '${s}'`);
    return unsupported(`node:child_process stdio ${typeof s === "string" ? `'${s}'` : typeof s}`)();
  });
}

// Node's normalizeSpawnArguments: argument shuffling, shell, env pairs, stdio modes.
function normalizeSpawn(file, args, options) {
  if (typeof file !== "string") throw invalidType("file", "of type string", file);
  if (file.length === 0) throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", "The argument 'file' cannot be empty. Received ''");
  if (Array.isArray(args)) args = [...args];
  else if (args == null) args = [];
  else if (typeof args !== "object") throw invalidType("args", "an instance of Array", args);
  else [options, args] = [args, []];
  if (options != null && typeof options !== "object") throw invalidType("options", "of type object", options);
  options = { ...options };
  args = args.map(String);
  if (options.shell) {
    const command = [file, ...args].join(" ");
    file = typeof options.shell === "string" ? options.shell : "/bin/sh";
    args = ["-c", command];
  }
  if (options.cwd instanceof URL) options.cwd = decodeURIComponent(options.cwd.pathname);
  const env = Object.entries(options.env ?? process.env).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]);
  const modes = normalizeStdio(options.stdio);
  const spec = {
    file, args, env,
    argv0: options.argv0 ?? null,
    cwd: options.cwd == null ? null : String(options.cwd),
    // 'inherit' is piped and copied into the plugin's log.
    stdio: modes.map((m, i) => (m === "inherit" ? (i === 0 ? "ignore" : "pipe") : m)),
    detached: !!options.detached,
    uid: options.uid ?? null,
    gid: options.gid ?? null,
  };
  return { file, args, options, modes, spec, spawnargs: [options.argv0 ?? file, ...args] };
}

export class ChildProcess extends EventEmitter {
  #exited = false; #open = 0; #closed = false; #readers = [];
  constructor() {
    super();
    Object.assign(this, {
      pid: undefined, exitCode: null, signalCode: null, killed: false, connected: false,
      spawnfile: undefined, spawnargs: [], stdin: null, stdout: null, stderr: null, stdio: [null, null, null],
    });
  }

  // Node's low-level form: { file, args (argv0 first), cwd, envPairs, stdio, detached }.
  spawn(options) {
    const env = options.envPairs ? Object.fromEntries(options.envPairs.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)])) : options.env;
    const n = normalizeSpawn(options.file, (options.args ?? [options.file]).slice(1), { ...options, env, argv0: options.args?.[0], shell: false });
    this._start(n);
  }

  _start({ file, args, spec, modes, spawnargs }) {
    this.spawnfile = file;
    this.spawnargs = spawnargs;
    const r = ops.op_cp_spawn(spec);
    if (r.error && !["EACCES", "EAGAIN", "EMFILE", "ENFILE", "ENOENT"].includes(r.error)) {
      throw spawnError(r.error, r.errno, "spawn", undefined, undefined);
    }
    this.stdio = modes.map((mode, i) => {
      if (i === 0) return mode === "pipe" ? (this.stdin = new (pipes().ChildWritable)(r.stdin ?? null)) : null;
      if (mode === "ignore") return null;
      const stream = new (pipes().ChildReadable)(r[i === 1 ? "stdout" : "stderr"] ?? null);
      this.#readers.push(stream);
      this.#open += 1;
      stream.once("close", () => { this.#open -= 1; this.#maybeClose(); });
      if (mode !== "inherit") return stream;
      forwardToLog(stream, i === 1 ? process.stdout : process.stderr);
      return null;
    });
    [, this.stdout, this.stderr] = this.stdio;
    // As Node's: 'spawn', or the error of a spawn that failed, comes as a tick; 'exit' as the
    // I/O callback of the child's end; 'close' with the last of 'exit' and the pipes' ends.
    if (r.error) {
      nextTick(() => {
        this.exitCode = r.errno;
        this.#onExit();
        try { this.emit("error", spawnError(r.error, r.errno, `spawn ${file}`, file, args)); } finally { this.#flush(); }
      });
      return;
    }
    this.pid = r.pid;
    nextTick(() => this.emit("spawn"));
    ops.op_cp_wait(r.rid).then(([code, signal]) => ioCallback(() => {
      if (signal != null) this.signalCode = signalName(signal);
      else this.exitCode = code;
      this.#onExit();
      try { this.emit("exit", this.exitCode, this.signalCode); } finally { this.#flush(); }
    }), (e) => ioCallback(() => this.emit("error", e)));
  }

  #onExit() {
    this.#exited = true;
    this.stdin?.destroy();
  }
  // Streams nobody consumes are drained so that 'close' can follow 'exit' (as Node does).
  #flush() {
    for (const s of this.#readers) if (s.readable && s.readableFlowing === null && !s._readableState.readableListening) s.resume();
    this.#maybeClose();
  }
  #maybeClose() {
    if (this.#exited && this.#open === 0 && !this.#closed) {
      this.#closed = true;
      this.emit("close", this.exitCode, this.signalCode);
    }
  }

  kill(sig) {
    const signal = sig === 0 ? 0 : toSignal(sig === undefined ? "SIGTERM" : sig);
    if (this.pid === undefined || this.#exited) return false;
    const err = ops.op_cp_kill(this.pid, signal);
    if (err === 0) {
      this.killed = true;
      return true;
    }
    if (err === -3) return false; // ESRCH: already gone
    const code = { [-1]: "EPERM", [-22]: "EINVAL" }[err] ?? "EIO";
    const e = Object.assign(new Error(`kill ${code}`), { errno: err, code, syscall: "kill" });
    if (code === "EINVAL") throw e;
    this.emit("error", e);
    return false;
  }
  ref() {}
  unref() {}
  disconnect() { unsupported("node:child_process.ChildProcess.disconnect")(); }
  send() { unsupported("node:child_process.ChildProcess.send")(); }
}

export function spawn(file, args, options) {
  const n = normalizeSpawn(file, args, options);
  const { options: o } = n;
  const killSignal = o.killSignal === undefined ? "SIGTERM" : o.killSignal;
  toSignal(killSignal);
  if (o.timeout != null && !(Number.isInteger(o.timeout) && o.timeout >= 0)) {
    throw codeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "timeout" is out of range. It must be an unsigned integer. Received ${o.timeout}`);
  }
  const child = new ChildProcess();
  child._start(n);
  if (o.timeout > 0) {
    let timer = setTimeout(() => {
      timer = null;
      try { child.kill(killSignal); } catch (err) { child.emit("error", err); }
    }, o.timeout);
    child.once("exit", () => timer && clearTimeout(timer));
  }
  if (o.signal) {
    const onAbort = () => {
      try {
        if (child.kill(killSignal)) child.emit("error", abortError(o.signal.reason));
      } catch (err) { child.emit("error", err); }
    };
    if (o.signal.aborted) nextTick(onAbort);
    else {
      o.signal.addEventListener("abort", onAbort, { once: true });
      child.once("exit", () => o.signal.removeEventListener("abort", onAbort));
    }
  }
  return child;
}

// Node's execFile: collects output up to maxBuffer and calls back (error, stdout, stderr).
export function execFile(file, args, options, callback) {
  if (Array.isArray(args)) args = [...args];
  else if (args != null && typeof args === "object") [callback, options, args] = [options, args, null];
  else if (typeof args === "function") [callback, options, args] = [args, null, null];
  if (args == null) args = [];
  if (typeof options === "function") [callback, options] = [options, null];
  else if (options != null && typeof options !== "object") throw invalidType("options", "of type object", options);
  if (callback != null && typeof callback !== "function") throw invalidType("callback", "of type function", callback);
  options = { encoding: "utf8", timeout: 0, maxBuffer: MAX_BUFFER, killSignal: "SIGTERM", cwd: null, env: null, shell: false, ...options };
  const encoding = options.encoding !== "buffer" && Buffer.isEncoding(options.encoding) ? options.encoding : null;
  // What the plugin's heap has room for bounds maxBuffer too: a quarter of it (two streams,
  // each held as chunks and then joined), so that output past it fails here instead of
  // exhausting the heap (runtime/src/engine/budget.rs).
  let { maxBuffer } = options, clamped = "";
  const [fits, room] = ops.op_host_heap_room(4);
  if (!(maxBuffer <= fits)) [maxBuffer, clamped] = [fits, ` (maxBuffer was clamped to ${fits} bytes, ${room})`];
  const child = spawn(file, args, {
    cwd: options.cwd, env: options.env, gid: options.gid, uid: options.uid, shell: options.shell,
    signal: options.signal, argv0: options.argv0, killSignal: options.killSignal,
  });
  const out = { stdout: [], stderr: [] }, lengths = { stdout: 0, stderr: 0 };
  let ex = null, exited = false, killed = false, timer = null;

  function exithandler(code, signal) {
    if (exited) return;
    exited = true;
    if (timer) clearTimeout(timer);
    if (!callback) return;
    const join = (list) => (encoding ? list.join("") : Buffer.concat(list));
    const stdout = join(out.stdout), stderr = join(out.stderr);
    if (!ex && code === 0 && signal === null) return callback(null, stdout, stderr);
    let cmd = file;
    if (args.length) cmd += ` ${args.join(" ")}`;
    if (!ex) {
      ex = new Error(`Command failed: ${cmd}\n${stderr}`);
      Object.assign(ex, { code, killed: child.killed || killed, signal });
    }
    ex.cmd = cmd;
    callback(ex, stdout, stderr);
  }
  // Signals before closing the pipes (Node closes first): a child that dies of SIGPIPE first
  // would let a shell run the rest of its command line.
  function kill() {
    killed = true;
    try { child.kill(options.killSignal); } catch (e) { ex = e; exithandler(); }
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  if (options.timeout > 0) timer = setTimeout(() => { timer = null; kill(); }, options.timeout);
  for (const name of ["stdout", "stderr"]) {
    const stream = child[name];
    if (!stream) continue;
    if (encoding) stream.setEncoding(encoding);
    stream.on("data", (chunk) => {
      const length = encoding ? Buffer.byteLength(chunk, encoding) : chunk.length;
      lengths[name] += length;
      if (lengths[name] > maxBuffer) {
        out[name].push(chunk.slice(0, maxBuffer - (lengths[name] - length)));
        ex = codeError(RangeError, "ERR_CHILD_PROCESS_STDIO_MAXBUFFER", `${name} maxBuffer length exceeded${clamped}`);
        kill();
      } else out[name].push(chunk);
    });
  }
  child.addListener("close", exithandler);
  child.addListener("error", (e) => {
    ex = e;
    child.stdout?.destroy();
    child.stderr?.destroy();
    exithandler();
  });
  return child;
}

export function exec(command, options, callback) {
  if (typeof options === "function") [callback, options] = [options, undefined];
  options = { ...options };
  options.shell = typeof options.shell === "string" ? options.shell : true;
  return execFile(command, options, callback);
}

// What `util.promisify` uses: resolves { stdout, stderr }, rejects with the error carrying them.
const promisified = (orig) => (...args) => {
  let resolve, reject;
  const promise = new Promise((res, rej) => ((resolve = res), (reject = rej)));
  promise.child = orig(...args, (err, stdout, stderr) => {
    if (err !== null) reject(Object.assign(err, { stdout, stderr }));
    else resolve({ stdout, stderr });
  });
  return promise;
};
const customPromisify = Symbol.for("nodejs.util.promisify.custom");
Object.defineProperty(exec, customPromisify, { enumerable: false, value: promisified(exec) });
Object.defineProperty(execFile, customPromisify, { enumerable: false, value: promisified(execFile) });

export function spawnSync(file, args, options) {
  const n = normalizeSpawn(file, args, options);
  const o = n.options;
  const killSignal = toSignal(o.killSignal === undefined ? "SIGTERM" : o.killSignal);
  const maxBuffer = o.maxBuffer ?? MAX_BUFFER;
  let input = new Uint8Array(0);
  if (o.input != null) {
    if (typeof o.input === "string") input = Buffer.from(o.input, "utf8");
    else if (ArrayBuffer.isView(o.input)) input = new Uint8Array(o.input.buffer, o.input.byteOffset, o.input.byteLength);
    else throw invalidType("options.stdio[0]", "of type string or an instance of Buffer, TypedArray, or DataView", o.input);
  }
  const r = ops.op_cp_spawn_sync(n.spec, input, o.timeout > 0 ? o.timeout : 0, killSignal, maxBuffer);
  const error = r.error ? spawnError(r.error, r.errno, `spawnSync ${n.file}`, n.file, n.args) : undefined;
  // maxBuffer lowered to fit the plugin's heap (runtime/src/node/child_process.rs) says so.
  if (r.clamped) error.message += ` (${r.clamped})`;
  if (r.error && r.pid === 0) {
    return { error, status: null, signal: null, output: null, pid: 0, stdout: null, stderr: null };
  }
  const encoding = o.encoding && o.encoding !== "buffer" ? o.encoding : null;
  const output = [null, r.stdout, r.stderr].map((b, i) => {
    if (b == null) return null;
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    if (n.modes[i] !== "inherit") return encoding ? buf.toString(encoding) : buf;
    // 'inherit' goes to the plugin's log; Node reports null for it.
    if (buf.length) (i === 1 ? process.stdout : process.stderr).write(buf.toString());
    return null;
  });
  const result = { status: r.status ?? null, signal: signalName(r.signal), output, pid: r.pid, stdout: output[1], stderr: output[2] };
  return error ? { error, ...result } : result;
}

function checkExecSyncError(ret, args, cmd) {
  if (ret.error) return Object.assign(ret.error, ret);
  if (ret.status === 0) return undefined;
  let msg = `Command failed: ${cmd || args.join(" ")}`;
  if (ret.stderr && ret.stderr.length > 0) msg += `\n${ret.stderr.toString()}`;
  return Object.assign(new Error(msg), ret);
}

export function execSync(command, options) {
  const opts = { ...options, shell: typeof options?.shell === "string" ? options.shell : true };
  // Like Node, stderr also goes to the parent's stderr (here: the plugin's log) unless stdio is set.
  const inheritStderr = !opts.stdio;
  const ret = spawnSync(command, [], opts);
  if (inheritStderr && ret.stderr?.length) process.stderr.write(ret.stderr.toString());
  const err = checkExecSyncError(ret, undefined, command);
  if (err) throw err;
  return ret.stdout;
}

export function execFileSync(file, args, options) {
  if (args != null && typeof args === "object" && !Array.isArray(args)) [options, args] = [args, []];
  args = args ?? [];
  const inheritStderr = !options?.stdio;
  const ret = spawnSync(file, args, { ...options, shell: options?.shell ?? false });
  if (inheritStderr && ret.stderr?.length) process.stderr.write(ret.stderr.toString());
  const err = checkExecSyncError(ret, [options?.argv0 || file, ...args]);
  if (err) throw err;
  return ret.stdout;
}

export const fork = unsupported("node:child_process.fork");

export default { ChildProcess, spawn, spawnSync, exec, execSync, execFile, execFileSync, fork };
