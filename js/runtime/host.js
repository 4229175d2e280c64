// The plugin side of the host: the `server` object handed to `contribute(server)`, hook
// registration (both API generations), and the one entry point through which the engine
// invokes plugin code (`invoke`), whose outcome always comes back through op_host_settle.
import { core, ops, lazyModule } from "paseo:internal/core";
import { TOOL } from "paseo:internal/tools";

// `context.paseo` (paseo.js) and settings (settings.js) are evaluated the first time a plugin
// reaches them (host_js.rs `is_lazy`): many plugins use neither.
let sdkModule = null;
const sdk = () => (sdkModule ??= lazyModule("paseo:internal/paseo"));
let paseoApi = null;
const paseo = () => (paseoApi ??= sdk().createPaseoApi());
// What the plugin provides (providers.js), evaluated on the first registration.
let providersModule = null;
const provided = () => (providersModule ??= lazyModule("paseo:internal/providers"));

const CATALOGUE = JSON.parse(ops.op_hook_catalogue());
const byName = new Map(CATALOGUE.map((h) => [h.name, h]));
const legacyNames = { on: new Map(), before: new Map() };
for (const h of CATALOGUE) if (h.legacy) legacyNames[h.legacy.method].set(h.legacy.name, h);

// The plugin this isolate serves, known from `load` on (the isolate may boot before it is chosen).
let info = null;
const registrations = []; // { hook, fn, via, as }
const rpcMethods = new Map();
const settingsIds = [];
const invocations = new Map(); // id -> Invocation
const agentTools = new Map(); // agentId -> Map(name -> tool definition), from agent.open.before
let cleanup = null;
let stopped = false;
let warnedDeprecated = false;

const message = (e) => (e instanceof Error ? e.message : typeof e === "string" ? e : String(e));

function reportRegistrations() {
  ops.op_host_registrations(JSON.stringify({
    hooks: registrations.map((r) => ({ hook: r.hook, via: r.via, as: r.as })),
    rpc: [...rpcMethods.keys()].sort(),
    settings: settingsIds,
    ...providersModule?.summary(),
  }));
}

function register(hook, fn, via, as) {
  if (typeof fn !== "function") {
    throw new TypeError(`server.${via}("${as}") requires a handler function`);
  }
  // Handlers form a set per hook: registering the same function twice counts once.
  const existing = registrations.find((r) => r.hook === hook.name && r.fn === fn);
  const entry = existing ?? { hook: hook.name, fn, via, as };
  if (!existing && !stopped) {
    registrations.push(entry);
    reportRegistrations();
  }
  // Removers are bound to their entry, so a stale remover never removes a newer registration.
  return () => {
    const i = registrations.indexOf(entry);
    if (i >= 0) {
      registrations.splice(i, 1);
      reportRegistrations();
    }
  };
}

// RPC methods: `server.handle` contracts and the auto-published settings methods.
function registerRpc(name, handler, contract = null) {
  if (!/^[a-z][a-z0-9._-]*$/.test(name)) throw new Error(`Invalid plugin RPC method: ${name}`);
  if (rpcMethods.has(name)) throw new Error(`Duplicate plugin RPC method: ${name}`);
  rpcMethods.set(name, { contract, handler });
  reportRegistrations();
}

async function runRpc(name, input) {
  const entry = rpcMethods.get(name);
  if (!entry) throw new Error(`Unknown RPC method: ${name}`);
  const { contract, handler } = entry;
  const parsed = contract?.input?.parseAsync ? await contract.input.parseAsync(input) : input;
  const result = await handler(parsed, { paseo: paseo() });
  const output = contract?.output?.parseAsync ? await contract.output.parseAsync(result) : result;
  return JSON.stringify(output === undefined ? null : output);
}

function warnDeprecated(method, name, hook) {
  if (warnedDeprecated) return;
  warnedDeprecated = true;
  ops.op_host_log(1, `[paseo] server.on and server.before are deprecated and will be removed after 2027-04-30; use server.addHook("${hook.name}") instead of server.${method}("${name}")`);
}

// `registerProvider`, `addForgeServerProvider`, `registerUsageSource`: checked and kept in
// providers.js, then reported.
function provides(member) {
  return (registration) => {
    if (stopped) return;
    provided()[member](registration);
    reportRegistrations();
  };
}

// `server` without the plugin's identity; `load` adds pluginId and dataDirectory.
const serverApi = {
  addHook(name, handler) {
    const hook = byName.get(name);
    if (!hook) {
      const renamed = legacyNames.on.get(name) ?? legacyNames.before.get(name);
      throw new Error(`Unknown hook: ${name}` + (renamed ? ` (server.addHook takes the new names: use "${renamed.name}")` : ""));
    }
    return register(hook, handler, "addHook", name);
  },
  on(name, handler) {
    const hook = legacyNames.on.get(name);
    if (!hook) throw new Error(`Unknown lifecycle event: ${name}`);
    warnDeprecated("on", name, hook);
    return register(hook, handler, "on", name);
  },
  before(name, handler) {
    const hook = legacyNames.before.get(name);
    if (!hook) throw new Error(`Unknown before hook: ${name}`);
    warnDeprecated("before", name, hook);
    return register(hook, handler, "before", name);
  },
  handle(contract, handler) {
    const name = typeof contract?.name === "string" ? contract.name.trim() : String(contract?.name);
    if (typeof handler !== "function") throw new Error(`Plugin RPC ${name} must provide a handler`);
    registerRpc(name, handler, contract);
  },
  registerSettings(definition) {
    const id = definition?.id;
    if (typeof id !== "string" || !/^[a-z][a-z0-9_-]*$/.test(id)) throw new Error("Invalid settings ID");
    if (definition.scope !== "host") throw new Error("Only host-scoped settings are supported");
    if (!Number.isSafeInteger(definition.version) || definition.version < 1) throw new Error("Invalid settings version");
    if (typeof definition.schema?.safeParse !== "function") throw new Error(`Settings ${id} must provide a zod schema`);
    if (settingsIds.includes(id)) throw new Error(`Duplicate settings: ${id}`);
    settingsIds.push(id);
    const { createSettings } = lazyModule("paseo:internal/settings");
    const document = createSettings(definition, { registerRpc, log: (line) => ops.op_host_log(1, line) });
    reportRegistrations();
    return document;
  },
  // Registrations that belong to the app's side of a plugin: Paseo's compiler strips them from
  // the server bundle, so a shared entry that calls them works there. Here they are accepted
  // and do nothing.
  ...Object.fromEntries(["addSurface", "addSidebarItem", "addWorkspacePanel", "addCommandCenterItem",
    "addClientSide", "addAttachmentSource", "addNotificationSource", "addTheme", "addTimelineTransformer",
    "addTimelineRenderer"].map((name) => [name, () => () => {}])),
  registerProvider: provides("registerProvider"),
  addForgeServerProvider: provides("addForgeServerProvider"),
  registerUsageSource: provides("registerUsageSource"),
  presence: () => sdk().sdkCall("presence"),
  secrets: Object.freeze({
    get: async (key) => ops.op_secrets_get(String(key)),
    has: async (key) => ops.op_secrets_get(String(key)) !== null,
    keys: async () => ops.op_secrets_keys(),
    set: async (key, value) => {
      if (typeof value !== "string") throw new TypeError("Plugin secret values must be strings");
      ops.op_secrets_set(String(key), value);
    },
    delete: async (key) => { ops.op_secrets_delete(String(key)); },
  }),
};

// Copies a payload so handlers never share objects with the host or each other. Tool
// definitions carry functions and zod schemas, so they are kept by reference.
function detach(value) {
  if (value === null || typeof value !== "object") return value;
  if (value[TOOL]) return value;
  if (Array.isArray(value)) return value.map(detach);
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    const out = {};
    for (const key of Object.keys(value)) out[key] = detach(value[key]);
    return out;
  }
  return structuredClone(value);
}

// The wire form sent to Rust: tool definitions become their metadata. Only `request.tools` can
// hold them, so everything else takes the plain (much faster) stringify.
const toolReplacer = (_key, v) => (v !== null && typeof v === "object" && v[TOOL] ? v[TOOL].metadata : v);
const toWire = (value) =>
  Array.isArray(value?.tools) && value.tools.some((t) => t?.[TOOL]) ? JSON.stringify(value, toolReplacer) : JSON.stringify(value);

// Validates one handler's result against the request it was given (op_hook_check, the host's
// rules) and returns the wire form of the request the next handler sees.
function checkWire(hook, previousWire, result) {
  return ops.op_hook_check(hook.name, previousWire, toWire(result));
}

// The live tool definitions of a result (the wire form holds only their metadata).
function liveTools(result) {
  return Array.isArray(result?.tools) ? result.tools.filter((t) => t?.[TOOL]) : [];
}

// Request hooks settle with the final request's wire form, or "" when no handler changed it.
// Each handler's result is validated before the next handler sees it; the last change is left
// to the host, which validates the outcome against the request it sent whatever happened here
// (the same rules, so a chain already validated step by step passes them again). The common
// case, one handler, thus crosses into Rust once.
async function runRequestHook(hook, request, handlers, context, invocation) {
  let wire = null; // the request's validated wire form; null while it is still the host's
  let tools = null; // live tool definitions of the latest change
  for (let i = 0; i < handlers.length; i++) {
    invocation.throwIfAborted();
    const last = i === handlers.length - 1;
    // `request` was parsed for this call; only the last handler may keep it, since nothing
    // reads it afterwards.
    const result = await handlers[i]({ request: last ? request : detach(request) }, context);
    if (result === undefined) continue;
    if (typeof result === "function" || typeof result === "symbol") {
      throw new Error(`invalid request: expected an object or undefined, got ${typeof result}`);
    }
    tools = liveTools(result);
    if (last && wire === null) {
      wire = toWire(result);
    } else {
      wire = checkWire(hook, wire ?? toWire(request), result);
      if (!last) request = JSON.parse(wire);
    }
  }
  // Tools this plugin attached to the agent stay here; their metadata goes to the host. A
  // request that attaches nothing (the catalogue's `session.attachNothingWhen`) keeps none.
  if (hook.session && Array.isArray(request.tools) && attaches(hook.session, request)) {
    if (tools?.length) agentTools.set(request.agentId, new Map(tools.map((t) => [t[TOOL].metadata.name, t])));
    else agentTools.delete(request.agentId);
  }
  return wire ?? "";
}

/** Whether a session hook's request attaches its per-plugin fields (catalogue `session`). */
function attaches(session, request) {
  const { field, equals } = session.attachNothingWhen;
  return request[field] !== equals;
}

function handlersOf(hook) {
  const handlers = [];
  for (const r of registrations) if (r.hook === hook.name) handlers.push(r.fn);
  return handlers;
}

// Event hooks (notifications, and the waiting `worktree.create.after`).
async function runEventHook(hook, input, invocation) {
  const context = invocation.context();
  const handlers = handlersOf(hook);
  for (let i = 0; i < handlers.length; i++) {
    // Each handler gets its own copy, except the last, which can have the parsed payload.
    const event = i === handlers.length - 1 ? input : detach(input);
    if (hook.waiting) {
      invocation.throwIfAborted();
      await handlers[i](event, context);
    } else {
      if (invocation.aborted) break;
      try {
        await handlers[i](event, context);
      } catch (e) {
        ops.op_host_log(1, `Lifecycle hook ${hook.name} failed: ${message(e)}`);
      }
    }
  }
  return "null";
}

// Why a value is not JSON, or null when it is.
function notJson(value, path = "structuredContent", seen = new Set()) {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : `${path} is ${value}`;
  if (typeof value !== "object") return `${path} is ${typeof value === "undefined" ? "undefined" : `a ${typeof value}`}`;
  if (seen.has(value)) return `${path} is circular`;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return `${path} is a ${value.constructor?.name ?? "non-plain object"}`;
  seen.add(value);
  for (const [key, v] of Object.entries(value)) {
    const why = notJson(v, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, seen);
    if (why) return why;
  }
  seen.delete(value);
  return null;
}

async function runTool({ agentId, name, input, agent }, invocation) {
  const definition = agentTools.get(agentId)?.get(name);
  if (!definition) return { isError: true, text: `Tool ${name} is not attached to agent ${agentId}` };
  try {
    const parsed = await definition.input.safeParseAsync(input);
    if (!parsed.success) return { isError: true, text: `Invalid input for tool ${name}: ${parsed.error.message}` };
    const result = (await definition.execute(parsed.data, invocation.toolContext(agent))) ?? {};
    if (typeof result !== "object") return { isError: true, text: `Tool ${name} must return an object, got ${typeof result}` };
    const out = {};
    if (result.text !== undefined) out.text = String(result.text);
    if (result.structuredContent !== undefined) {
      const why = notJson(result.structuredContent);
      if (why) return { isError: true, text: `Tool ${name} returned structuredContent that is not JSON: ${why}` };
      out.structuredContent = result.structuredContent;
    }
    if (result.isError) out.isError = true;
    return out;
  } catch (e) {
    return { isError: true, text: message(e) };
  }
}

// An inspected plugin's console lines reach the debugger's console too: each method calls V8's
// own console (which the inspector hears) and then ours, through the engine's `callConsole`, so
// the debugger shows the plugin's frame as the caller (the way deno_core's `wrapConsole` and
// Node's inspector wrap theirs; `Deno` is hidden by now, so not through `wrapConsole` itself).
function toDebuggerConsole(ours) {
  const engine = core.v8Console;
  if (!engine || !core.callConsole) return;
  for (const key of Object.keys(engine)) {
    if (!Object.hasOwn(ours, key)) continue;
    const wrapped = core.callConsole.bind(ours, engine[key], ours[key]);
    Object.defineProperty(wrapped, "name", { value: key });
    ours[key] = wrapped;
  }
}

async function load(entryUrl) {
  info = JSON.parse(ops.op_host_plugin_info());
  if (info.debugged) toDebuggerConsole(globalThis.console);
  if (info.restricted) globalThis[Symbol.for("paseo.process.syncEnv")]?.();
  const server = { ...serverApi };
  Object.defineProperty(server, "paseo", { get: paseo, enumerable: true });
  Object.assign(server, { pluginId: info.id, dataDirectory: info.dataDirectory ?? undefined });
  Object.freeze(server);
  const ns = await import(entryUrl);
  const contribute = ns.default;
  if (typeof contribute !== "function") throw new Error("Plugin server bundle must default export a function");
  const result = contribute(server);
  if (typeof result !== "function") {
    result?.then?.(() => {}, () => {});
    throw new Error("Plugin contribution must return a cleanup function");
  }
  cleanup = result;
  reportRegistrations();
  return "null";
}

async function stop() {
  stopped = true;
  for (const invocation of invocations.values()) invocation.abort(new Error(`Plugin stopped: ${info?.id}`));
  registrations.length = 0;
  reportRegistrations();
  sdkModule?.closeSubscriptions();
  if (cleanup) {
    try {
      await cleanup();
    } catch (e) {
      ops.op_host_log(1, `Plugin cleanup failed: ${message(e)}`);
    }
  }
  // As Paseo's host: provider connections close (and forge providers are disposed) after the
  // plugin's cleanup.
  await providersModule?.closeAll();
  reportRegistrations();
  // Output written without a final newline is one last entry, as Paseo flushes it.
  globalThis[Symbol.for("paseo.process.flushOutput")]?.();
  return "null";
}

/**
 * One call into the plugin. Its `AbortSignal` is made on first use: most handlers never look
 * at it, and an AbortController costs more than the rest of a small hook call.
 */
class Invocation {
  aborted = false;
  reason = undefined;
  #controller = null;
  get signal() {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }
  abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
  }
  throwIfAborted() {
    if (this.aborted) throw this.reason;
  }
  /** The second argument of hook handlers, `{ paseo, signal }`: the signal made when read. */
  context() {
    const invocation = this;
    return { get paseo() { return paseo(); }, get signal() { return invocation.signal; } };
  }
  /** The second argument of a tool's `execute`. */
  toolContext(agent) {
    const invocation = this;
    return { agent, get paseo() { return paseo(); }, get signal() { return invocation.signal; } };
  }
}

function settle(id, ok, payload) {
  invocations.delete(id);
  ops.op_host_settle(id, ok, payload);
}

// What each kind of invocation runs: (name, input, invocation) => a promise of the JSON result.
// The engine's table of kinds (engine/mod.rs `InvocationKind`) must be exactly this one; the
// host checks that once, at boot.
const HANDLERS = {
  __proto__: null,
  load: (entry) => load(entry),
  hook: (name, input, invocation) => {
    const hook = byName.get(name);
    return hook.returnsRequest
      ? runRequestHook(hook, input.request, handlersOf(hook), invocation.context(), invocation)
      : runEventHook(hook, input, invocation);
  },
  rpc: (method, input) => runRpc(method, input),
  event: (topic, payload) => sdk().deliver(topic, payload).then(() => "null"),
  tool: (_, input, invocation) => runTool(input, invocation).then((r) => JSON.stringify(r)),
  release: (agentId) => Promise.resolve(agentTools.delete(agentId)).then(() => "null"),
  provide: (call, input, invocation) => (providersModule ? providersModule.run(call, input, invocation) : Promise.reject(new Error(`Plugin ${info?.id} provides nothing`))),
  stop: () => stop(),
};
{
  const engine = ops.op_host_invocation_kinds();
  const host = Object.keys(HANDLERS);
  if (engine.length !== host.length || engine.some((k) => !(k in HANDLERS))) {
    throw new Error(`The engine sends invocations of kinds ${engine.join(", ")}, host.js handles ${host.join(", ")}`);
  }
}

/** Starts invocation `id`; its outcome is reported through op_host_settle. */
function invoke(id, kind, name, input) {
  const invocation = new Invocation();
  invocations.set(id, invocation);
  let work;
  try {
    work = HANDLERS[kind](name, input, invocation);
  } catch (e) {
    work = Promise.reject(e);
  }
  work.then((payload) => settle(id, true, payload), (e) => settle(id, false, message(e)));
}

/** Aborts the signal of an invocation the engine gave up on (deadline passed). */
function abort(id, reason) {
  invocations.get(id)?.abort(new Error(reason));
  invocations.delete(id);
}

/** Runs what the engine queued: invocations to start and signals to abort. */
function pump() {
  // [id, kind, name, input] to invoke, [id, null, reason] to abort; inputs parsed here too.
  for (const [id, kind, name, input] of JSON.parse(ops.op_host_commands())) {
    if (kind === null) abort(id, name);
    else invoke(id, kind, name, input);
  }
}

Object.defineProperty(globalThis, Symbol.for("paseo.host"), { value: Object.freeze({ pump }) });
