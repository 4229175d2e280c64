// What a plugin provides the daemon: agent providers (`server.registerProvider`, provider
// protocol v1), forge providers (`server.addForgeServerProvider`) and usage sources
// (`server.registerUsageSource`). Registration checks and their messages are Paseo's; icons
// are checked in Rust (providers/icon.rs). The daemon's calls arrive as `provide` invocations
// (host.js `HANDLERS`); the events of a provider connection leave through op_host_stream, in
// the order the plugin emits them, and the host validates them against the protocol
// (runtime/src/providers/protocol.json).
// Evaluated the first time a plugin registers something it provides (host_js.rs `is_lazy`).
import { ops, lazyModule } from "paseo:internal/core";

const { FORGE_SERVICE_METHODS: FORGE_METHODS, OPTIONAL_FORGE_SERVICE_METHODS } = lazyModule("paseo:internal/forge");

const ID = /^[a-z][a-z0-9._-]*$/;
const message = (e) => (e instanceof Error ? e.message : typeof e === "string" ? e : String(e));
const log = (line) => ops.op_host_log(1, line);

const providers = new Map(); // id -> registration
const forges = new Map(); // id -> { contribution, disposed }
const usageSources = new Map(); // id -> registration
const connections = new Map(); // stream id -> { provider, connection, unsubscribe, closed }

const optionalText = (value) => (typeof value === "string" && value.length > 0 ? value : undefined);

export function registerProvider(provider) {
  const id = typeof provider?.id === "string" ? provider.id.trim() : "";
  if (!ID.test(id)) throw new Error(`Invalid plugin provider ID: ${provider?.id}`);
  if (typeof provider.label !== "string" || provider.label.trim().length === 0) {
    throw new Error(`Plugin provider ${id} requires a label`);
  }
  if (typeof provider.connect !== "function") throw new Error(`Plugin provider ${id} must implement connect()`);
  if (provider.getCatalogCacheKey !== undefined && typeof provider.getCatalogCacheKey !== "function") {
    throw new Error(`Invalid catalogue key callback for plugin provider ${id}`);
  }
  if (providers.has(id)) throw new Error(`Duplicate plugin provider ID: ${id}`);
  if (provider.icon !== undefined) ops.op_provide_icon(String(provider.icon));
  providers.set(id, provider);
}

export function registerUsageSource(source) {
  const id = typeof source?.id === "string" ? source.id.trim() : "";
  const optional = (name) => source[name] === undefined || typeof source[name] === "function";
  if (
    !ID.test(id) || typeof source.label !== "string" || !source.label.trim() || typeof source.fetch !== "function" ||
    typeof source.input?.parseAsync !== "function" || !optional("discover") || !optional("identify")
  ) {
    throw new Error(`Invalid usage source: ${source?.id}`);
  }
  if (usageSources.has(id)) throw new Error(`Duplicate usage source: ${id}`);
  if (source.icon !== undefined) ops.op_provide_icon(String(source.icon));
  usageSources.set(id, source);
}

// Forge providers: `{ definition, service, probeHost? }` (`defineForgeServerProvider`).
const FORGE_ID = /^[a-z0-9][a-z0-9._-]*$/;
const OPTIONAL_FORGE_METHODS = new Set(OPTIONAL_FORGE_SERVICE_METHODS);
const FORGE_TEXT = ["displayName", "changeRequestAbbrev", "changeRequestNoun", "changeRequestNumberPrefix", "issueNumberPrefix"];

export function addForgeServerProvider(contribution) {
  if (!contribution || typeof contribution !== "object") throw new Error("Plugin forge provider contribution must be an object");
  const raw = contribution.definition?.id ?? "";
  const id = String(raw).trim();
  if (!FORGE_ID.test(id)) throw new Error(`Invalid plugin forge provider id: ${raw}`);
  if (forges.has(id)) throw new Error(`Duplicate plugin forge provider id: ${id}`);
  const { service, definition } = contribution;
  if (!service || typeof service !== "object") throw new Error(`Plugin forge provider ${id} must provide a service`);
  for (const method of FORGE_METHODS) {
    if (!OPTIONAL_FORGE_METHODS.has(method) && typeof service[method] !== "function") {
      throw new Error(`Plugin forge provider ${id} must implement ${method}`);
    }
  }
  for (const field of FORGE_TEXT) {
    if (typeof definition[field] !== "string" || !definition[field].trim()) {
      throw new Error(`Plugin forge provider ${id} definition.${field} must be a non-empty string`);
    }
  }
  if (contribution.probeHost !== undefined && typeof contribution.probeHost !== "function") {
    throw new Error(`Plugin forge provider ${id} probeHost must be a function`);
  }
  forges.set(id, { contribution, disposed: false });
}

// A forge error as the daemon gets it: the fields of Paseo's forge errors that have the
// right type (`serializeForgeError`).
function forgeError(error) {
  const out = { message: error && typeof error === "object" && typeof error.message === "string" ? error.message : String(error) };
  if (!error || typeof error !== "object") return out;
  const text = (key) => { if (typeof error[key] === "string") out[key] = error[key]; };
  text("name");
  if (["missing-cli", "auth-failure", "command-error"].includes(error.kind)) out.kind = error.kind;
  text("stderr");
  if (Array.isArray(error.args) && error.args.every((a) => typeof a === "string")) out.args = [...error.args];
  text("cwd");
  if (typeof error.exitCode === "number" || error.exitCode === null) out.exitCode = error.exitCode;
  text("brand");
  text("binary");
  return out;
}

async function invokeForge({ provider: id, method, input }) {
  const forge = forges.get(id);
  if (!forge) throw new Error(`Unknown forge provider: ${id}`);
  const { service, probeHost } = forge.contribution;
  try {
    if (method === "probeHost") {
      if (typeof probeHost !== "function") throw new Error(`Forge provider ${id} has no host probe`);
      return { output: await probeHost(input) };
    }
    if (!FORGE_METHODS.includes(method) || typeof service[method] !== "function") {
      throw new Error(`Forge provider ${id} does not implement ${method}`);
    }
    if (method === "dispose") {
      forge.disposed = true;
      await service.dispose();
      return { output: null };
    }
    const output = await service[method](input);
    return { output: output === undefined ? null : output };
  } catch (e) {
    return { error: forgeError(e) };
  }
}

/** What the host lists, as engine `Registrations` fields. */
export function summary() {
  const entry = (id, r, details = {}) => {
    const out = { id, label: optionalText(r.label), description: optionalText(r.description), icon: optionalText(r.icon) };
    if (Object.keys(details).length) out.details = details;
    return out;
  };
  return {
    providers: [...providers].map(([id, p]) =>
      entry(id, p, {
        ...(typeof p.getCatalogCacheKey === "function" ? { catalogCacheKey: true } : {}),
        ...(typeof p.checkAvailability === "function" ? { availability: true } : {}),
      })),
    forgeProviders: [...forges].map(([id, { contribution: { definition, service, probeHost } }]) =>
      entry(id, { label: definition.displayName }, {
        definition: JSON.parse(JSON.stringify({ ...definition, id })),
        methods: FORGE_METHODS.filter((m) => typeof service[m] === "function"),
        authProbeCanThrow: service.authProbeCanThrow === true,
        supportsCrossRepoCheckoutWithoutRefs: service.supportsCrossRepoCheckoutWithoutRefs === true,
        hasProbeHost: typeof probeHost === "function",
      })),
    usageSources: [...usageSources].map(([id, s]) =>
      entry(id, s, {
        ...(typeof s.discover === "function" ? { discover: true } : {}),
        ...(typeof s.identify === "function" ? { identify: true } : {}),
      })),
  };
}

function provider(id) {
  const p = providers.get(id);
  if (!p) throw new Error(`Unknown plugin provider: ${id}`);
  return p;
}

function openConnection(stream) {
  const entry = connections.get(stream);
  if (!entry || entry.closed) throw new Error("Provider connection is closed");
  return entry;
}

// One event of a connection, to the host. An event that is not JSON fails the connection (the
// host reads why); events after the host closed the stream are dropped.
function emit(entry, stream, event) {
  if (entry.closed) return;
  let json;
  try {
    json = JSON.stringify(event);
  } catch (e) {
    json = undefined;
    event = e;
  }
  if (typeof json !== "string") {
    const why = event instanceof Error ? message(event) : `a ${typeof event}`;
    json = JSON.stringify({ type: "stream.failed", error: { message: `Plugin provider ${entry.provider} sent an event that is not JSON: ${why}` } });
  }
  if (!ops.op_host_stream(stream, json)) entry.closed = true;
}

async function closeEntry(stream) {
  const entry = connections.get(stream);
  if (!entry) return;
  connections.delete(stream);
  entry.closed = true;
  try {
    entry.unsubscribe();
  } catch (e) {
    log(`[paseo] Plugin provider ${entry.provider} onEvent unsubscribe failed: ${message(e)}`);
  }
  await entry.connection.close();
}

async function usage(id, kind, input) {
  const source = usageSources.get(id);
  if (!source) throw new Error(`Unknown usage source: ${id}`);
  if (typeof source[kind] !== "function") throw new Error(`Usage source ${id} does not implement ${kind}()`);
  // `discover` takes a scope, which the daemon made; `fetch` and `identify` take an account's
  // input, which the source's own schema parses first.
  if (kind === "discover") return source.discover(input ?? { kind: "global" });
  const parsed = source.input.safeParseAsync ? await source.input.safeParseAsync(input) : { success: true, data: await source.input.parseAsync(input) };
  if (!parsed.success) throw new Error(`Invalid input for usage source ${id}: ${parsed.error.message}`);
  return source[kind](parsed.data);
}

// The daemon's calls, by name: (input, invocation) => a promise of a JSON value.
const CALLS = {
  __proto__: null,
  // The daemon checks the version and capabilities the connection selected.
  async "provider.connect"({ provider: id, stream, request }, invocation) {
    const connection = await provider(id).connect({ versions: [...request.versions], capabilities: [...request.capabilities] });
    if (invocation.aborted) {
      // The daemon gave up waiting (connect's limit): nobody will read or close this one.
      await connection?.close?.();
      throw invocation.reason;
    }
    for (const method of ["send", "onEvent", "close"]) {
      if (typeof connection?.[method] !== "function") throw new Error(`Plugin provider ${id} connection must implement ${method}()`);
    }
    const { version } = connection;
    const capabilities = connection.capabilities;
    if (!Array.isArray(capabilities) || capabilities.some((c) => typeof c !== "string")) {
      await connection.close().catch(() => {});
      throw new Error(`Plugin provider ${id} connection capabilities must be an array of strings`);
    }
    const entry = { provider: id, connection, unsubscribe: () => {}, closed: false };
    connections.set(stream, entry);
    const unsubscribe = connection.onEvent((event) => emit(entry, stream, event));
    if (typeof unsubscribe === "function") entry.unsubscribe = unsubscribe;
    return { version, capabilities: [...capabilities] };
  },
  async "provider.send"({ stream, input }) {
    await openConnection(stream).connection.send(input);
    return null;
  },
  async "provider.close"({ stream }) {
    await closeEntry(stream);
    return null;
  },
  async "provider.catalogKey"({ provider: id, options }) {
    const p = provider(id);
    if (typeof p.getCatalogCacheKey !== "function") return null;
    const key = await p.getCatalogCacheKey(options);
    if (key !== undefined && typeof key !== "string") throw new Error(`Plugin provider ${id} getCatalogCacheKey() must return a string or undefined`);
    return key ?? null;
  },
  async "provider.availability"({ provider: id, options }) {
    const p = provider(id);
    if (typeof p.checkAvailability !== "function") return null;
    return (await p.checkAvailability(options)) ?? null;
  },
  "forge.invoke": (input) => invokeForge(input),
  "usage.fetch": ({ source, input }) => usage(source, "fetch", input),
  "usage.discover": ({ source, input }) => usage(source, "discover", input),
  "usage.identify": ({ source, input }) => usage(source, "identify", input),
};

/** Runs one `provide` invocation; resolves with its JSON result. */
export async function run(call, input, invocation) {
  const fn = CALLS[call];
  if (!fn) throw new Error(`Unknown provide call: ${call}`);
  const result = await fn(input ?? {}, invocation);
  return JSON.stringify(result === undefined ? null : result);
}

/**
 * Stop: every open connection closes once (errors are logged), and forge providers are
 * disposed; registrations are dropped so nothing reaches the plugin any more.
 */
export async function closeAll() {
  for (const stream of [...connections.keys()]) {
    const id = connections.get(stream)?.provider;
    try {
      await closeEntry(stream);
    } catch (e) {
      log(`[paseo] Plugin provider ${id} connection close failed: ${message(e)}`);
    }
  }
  for (const [id, forge] of forges) {
    if (forge.disposed || typeof forge.contribution.service.dispose !== "function") continue;
    forge.disposed = true;
    try {
      await forge.contribution.service.dispose();
    } catch (e) {
      log(`[paseo] Forge provider ${id} dispose failed: ${message(e)}`);
    }
  }
  providers.clear();
  forges.clear();
  usageSources.clear();
}
