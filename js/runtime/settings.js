// `server.registerSettings(defineSettings(...))`: a host-scoped settings document with Paseo's
// semantics (packages/server/src/server/plugins/settings/index.ts: read / update / subscribe,
// revisions, versions and migration, the auto-published settings.<id>.read|write|reset RPCs).
// Storage (atomic 0600 files, sha256 revisions, compare-and-swap writes) is in Rust.
import { ops } from "paseo:internal/core";

const CONFLICT = "Settings changed on another client. Reload before saving again.";
const OTHER_VERSION = "Reload or reset settings before saving a different schema version";
// Plugin programming errors get fixed messages (a mutator's own error may carry values).
const FIXED_MESSAGES = {
  mutator_threw: "The settings update failed before any values were saved.",
  thenable_returned: "Settings mutators must return synchronously.",
  reentrant_access: "A settings mutator cannot access the same document recursively.",
};

// Paseo's `message`: a zod error is its issues' messages, one a line.
function message(e) {
  if (e !== null && typeof e === "object" && Array.isArray(e.issues)) return e.issues.map((issue) => issue.message).join("\n");
  return e instanceof Error ? e.message : String(e);
}
const invalid = (revision, code, error = FIXED_MESSAGES[code] ?? code) => ({ status: "invalid", revision, error, code });
const conflict = () => ({ status: "conflict", error: CONFLICT });
const isThenable = (value) =>
  (typeof value === "object" || typeof value === "function") && value !== null && typeof Reflect.get(value, "then") === "function";

function deepFreeze(value) {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const nested of Object.values(value)) deepFreeze(nested);
    Object.freeze(value);
  }
  return value;
}

// Each subscriber gets its own copy: what it does to it reaches neither the store nor the caller.
function copyState(state) {
  return state.status === "invalid" ? { ...state } : { ...state, values: structuredClone(state.values) };
}

// The stored envelope `{ version, values }`; throws what is wrong with it.
function envelopeOf(raw) {
  let doc;
  try {
    doc = JSON.parse(raw);
  } catch (e) {
    throw new Error(`Stored settings are not valid JSON: ${message(e)}`);
  }
  if (!doc || typeof doc !== "object" || !Number.isSafeInteger(doc.version) || doc.version < 1) {
    throw new Error("Stored settings have no version");
  }
  return doc;
}

export function createSettings(definition, { registerRpc, log }) {
  const { id, version, schema, migrate } = definition;
  const listeners = new Set();
  // The update whose mutator is running (mutators are synchronous), to catch reentry.
  let active = null;
  let queue = Promise.resolve();

  async function parseValues(values) {
    const result = typeof schema.safeParseAsync === "function" ? await schema.safeParseAsync(values) : schema.safeParse(values);
    if (!result.success) throw result.error;
    return result.data;
  }

  function notify(state) {
    for (const listener of [...listeners]) {
      try {
        Promise.resolve(listener(copyState(state))).catch((e) => log(`Settings listener failed: ${message(e)}`));
      } catch (e) {
        log(`Settings listener failed: ${message(e)}`);
      }
    }
  }

  // Writes values if the stored revision is still `expected`; the committed state, or null.
  // Paseo persists without comparing (one owner per installation); here the write is a
  // compare-and-swap, so a document someone else wrote in between is never overwritten.
  function commit(values, expected) {
    const revision = ops.op_settings_write(id, JSON.stringify({ version, values }), expected);
    if (revision === null) return null;
    const state = { status: "ready", values, revision };
    notify(state);
    return state;
  }

  // The stored document under this definition: `{ status: "ready", revision, values, migrated }`
  // or invalid. Nothing is written here.
  async function load() {
    const { raw, revision } = ops.op_settings_read(id);
    let code = "stored_invalid";
    try {
      const envelope = raw === null ? null : envelopeOf(raw);
      let values = envelope?.values ?? {};
      const migrated = envelope !== null && envelope.version !== version;
      if (migrated) {
        if (envelope.version > version) throw new Error("Settings were saved by a newer plugin version");
        if (typeof migrate !== "function") throw new Error(`Settings version ${envelope.version} requires a migration`);
        code = "migration_failed";
        values = await migrate(values, envelope.version);
      }
      return { status: "ready", revision, values: await parseValues(values), migrated };
    } catch (e) {
      // The migration's (or the schema's) own message, as Paseo reports it.
      return invalid(revision, code, message(e));
    }
  }

  // The current document; a migrated one is written back once (Paseo's read does the same).
  async function current() {
    const loaded = await load();
    if (loaded.status !== "ready") return loaded;
    const { migrated, ...state } = loaded;
    if (!migrated) return { ...state, migrated };
    const saved = commit(state.values, state.revision);
    return saved === null ? current() : { ...saved, migrated };
  }

  async function read() {
    const { migrated, ...state } = await current();
    return state;
  }

  async function runUpdate(mutate) {
    const loaded = await current();
    if (loaded.status !== "ready") return loaded;
    const { revision, values, migrated } = loaded;
    const mutation = { reentryDetected: false };
    active = mutation;
    let decision;
    try {
      decision = mutate(deepFreeze(structuredClone(values)));
    } catch {
      return invalid(revision, "mutator_threw");
    } finally {
      active = null;
    }
    // The mutator read or updated this document: nothing it decided is committed.
    if (mutation.reentryDetected) return invalid(revision, "reentrant_access");
    if (isThenable(decision)) {
      decision.then(() => {}, () => {});
      return invalid(revision, "thenable_returned");
    }
    if (decision?.status === "unchanged") {
      // The migration landed (current() rewrote the document): Paseo reports that as saved.
      if (migrated) return { status: "saved", values, revision, result: decision.result };
      return { status: "unchanged", values, revision, result: decision.result };
    }
    if (decision?.status !== "commit") {
      return invalid(revision, "next_invalid", 'A settings mutator must return { status: "unchanged" } or { status: "commit", values }');
    }
    let next;
    try {
      next = await parseValues(decision.values);
    } catch (e) {
      return invalid(revision, "next_invalid", message(e));
    }
    const saved = commit(next, revision);
    // Someone else wrote in between: run the mutator again on what they wrote.
    return saved === null ? runUpdate(mutate) : { ...saved, status: "saved", result: decision.result };
  }

  // Serialised: one storage operation at a time, in call order.
  const serial = (fn) => {
    const run = queue.then(fn);
    queue = run.then(() => {}, () => {});
    return run;
  };

  // A read or update of this document from inside its own update's mutator.
  const reentry = () => {
    if (!active) return false;
    active.reentryDetected = true;
    return true;
  };

  const document = {
    read: () => (reentry() ? Promise.resolve(invalid("unknown", "reentrant_access")) : serial(read)),
    update: (mutate) => (reentry() ? Promise.resolve(invalid("unknown", "reentrant_access")) : serial(() => runUpdate(mutate))),
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };

  // The RPCs answer what Paseo's contracts (settingsRpc) let through: no `code` on the wire.
  registerRpc(`settings.${id}.read`, () =>
    serial(read).then((state) =>
      state.status === "ready"
        ? { status: "ready", revision: state.revision, values: state.values }
        : { status: "invalid", revision: state.revision, error: state.error }));
  registerRpc(`settings.${id}.write`, ({ revision, values } = {}) =>
    serial(async () => {
      const stored = ops.op_settings_read(id);
      if (stored.revision !== revision) return conflict();
      let next;
      try {
        // A client's revision of a document another schema version wrote (an older plugin
        // holding a newer plugin's document, or the reverse) is refused: saving over it would
        // lose the values that version keeps.
        if (stored.raw !== null && envelopeOf(stored.raw).version !== version) throw new Error(OTHER_VERSION);
        next = await parseValues(values);
      } catch (e) {
        return { status: "invalid", error: message(e) };
      }
      const saved = commit(next, revision);
      return saved === null ? conflict() : { status: "saved", revision: saved.revision, values: next };
    }));
  registerRpc(`settings.${id}.reset`, ({ revision } = {}) =>
    serial(async () => {
      if (!ops.op_settings_delete(id, revision)) return conflict();
      const state = await read();
      notify(state);
      return state;
    }));
  return document;
}
