// `server.registerSettings(defineSettings(...))`: a host-scoped settings document with Paseo's
// semantics (read / update / subscribe, revisions, versions and migration, the auto-published
// settings.<id>.read|write|reset RPCs). Storage (atomic 0600 files, sha256 revisions) is in Rust.
import { ops } from "paseo:internal/core";

const CONFLICT = "Settings changed on another client. Reload before saving again.";
const message = (e) => (e instanceof Error ? e.message : String(e));
const invalid = (revision, error, code) => ({ status: "invalid", revision, error, code });

function deepFreeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

export function createSettings(definition, { registerRpc, log }) {
  const { id, version, schema, migrate } = definition;
  const listeners = new Set();
  let mutating = false;
  let queue = Promise.resolve();

  const parse = (values, revision, code) => {
    const result = schema.safeParse(values);
    return result.success ? { status: "ready", revision, values: result.data } : invalid(revision, result.error.message, code);
  };

  function notify() {
    for (const listener of [...listeners]) {
      try {
        const r = listener();
        r?.catch?.((e) => log(`Settings listener failed: ${message(e)}`));
      } catch (e) {
        log(`Settings listener failed: ${message(e)}`);
      }
    }
  }

  // Writes values if the stored revision is still `expected`; the new revision, or null.
  function commit(values, expected) {
    const revision = ops.op_settings_write(id, JSON.stringify({ version, values }), expected);
    if (revision !== null) notify();
    return revision;
  }

  function load() {
    const { raw, revision } = ops.op_settings_read(id);
    if (raw === null) return parse({}, revision, "stored_invalid"); // defaults apply
    let doc;
    try {
      doc = JSON.parse(raw);
    } catch (e) {
      return invalid(revision, `Stored settings are not valid JSON: ${message(e)}`, "stored_invalid");
    }
    if (!doc || typeof doc !== "object" || !Number.isSafeInteger(doc.version)) {
      return invalid(revision, "Stored settings have no version", "stored_invalid");
    }
    if (doc.version > version) return invalid(revision, "Settings were saved by a newer plugin version", "stored_invalid");
    if (doc.version === version) return parse(doc.values, revision, "stored_invalid");
    if (typeof migrate !== "function") return invalid(revision, `Settings version ${doc.version} requires a migration`, "migration_failed");
    let migrated;
    try {
      migrated = migrate(doc.values, doc.version);
    } catch (e) {
      return invalid(revision, `Settings migration failed: ${message(e)}`, "migration_failed");
    }
    const parsed = parse(migrated, revision, "migration_failed");
    if (parsed.status !== "ready") return parsed;
    const next = commit(parsed.values, revision);
    return next === null ? load() : { ...parsed, revision: next };
  }

  const reentrant = () => invalid(undefined, "A settings mutator cannot access the same document recursively.", "reentrant_access");

  function runUpdate(mutate) {
    const current = load();
    if (current.status !== "ready") return current;
    let outcome;
    mutating = true;
    try {
      outcome = mutate(deepFreeze(structuredClone(current.values)));
    } catch {
      return invalid(current.revision, "The settings update failed before any values were saved.", "mutator_threw");
    } finally {
      mutating = false;
    }
    if (outcome && typeof outcome.then === "function") {
      outcome.then(() => {}, () => {});
      return invalid(current.revision, "Settings mutators must return synchronously.", "thenable_returned");
    }
    if (outcome?.status === "unchanged") return { status: "unchanged", revision: current.revision, values: current.values, result: outcome.result };
    if (outcome?.status !== "commit") {
      return invalid(current.revision, 'A settings mutator must return { status: "unchanged" } or { status: "commit", values }', "next_invalid");
    }
    const next = schema.safeParse(outcome.values);
    if (!next.success) return invalid(current.revision, next.error.message, "next_invalid");
    const revision = commit(next.data, current.revision);
    // Someone else wrote in between: run the mutator again on what they wrote.
    return revision === null ? runUpdate(mutate) : { status: "saved", revision, values: next.data, result: outcome.result };
  }

  // Serialised: one read-modify-write at a time, in call order.
  const serial = (fn) => {
    const run = queue.then(fn);
    queue = run.then(() => {}, () => {});
    return run;
  };

  const document = {
    read: async () => (mutating ? reentrant() : load()),
    update: (mutate) => (mutating ? Promise.resolve(reentrant()) : serial(() => runUpdate(mutate))),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  registerRpc(`settings.${id}.read`, () => document.read());
  registerRpc(`settings.${id}.write`, ({ revision, values } = {}) =>
    serial(() => {
      const current = load();
      if (current.revision !== revision) return { status: "conflict", error: CONFLICT };
      const next = schema.safeParse(values);
      if (!next.success) return invalid(current.revision, next.error.message, "next_invalid");
      const saved = commit(next.data, revision);
      return saved === null ? { status: "conflict", error: CONFLICT } : { status: "saved", revision: saved, values: next.data };
    }));
  registerRpc(`settings.${id}.reset`, ({ revision } = {}) =>
    serial(() => {
      if (!ops.op_settings_delete(id, revision)) return { status: "conflict", error: CONFLICT };
      notify();
      return load();
    }));
  return document;
}
