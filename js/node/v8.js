// `node:v8`: the heap statistics of the plugin's own isolate (its cap as `heap_size_limit`),
// `serialize`/`deserialize` in Node's bytes (js/node/internal/v8_wire.js), and the members whose
// Node behaviour outside a snapshot build or a coverage run is to do nothing. Heap snapshots,
// the Serializer classes, promise hooks and the GC profiler name themselves when called.
import { ops } from "paseo:internal/core";
import * as wire from "paseo:internal/node/internal/v8_wire";
import { invalidArgType, nodeError } from "paseo:internal/node/internal_errors";

const missing = (name) => function () {
  throw new Error(`v8.${name} is not supported by the Paseo plugin host yet`);
};

const HEAP_FIELDS = [
  "total_heap_size", "total_heap_size_executable", "total_physical_size", "total_available_size",
  "used_heap_size", "heap_size_limit", "malloced_memory", "peak_malloced_memory",
  "number_of_native_contexts", "number_of_detached_contexts", "total_global_handles_size",
  "used_global_handles_size", "external_memory",
];

export function getHeapStatistics() {
  const values = ops.op_host_heap_statistics();
  const stats = {};
  HEAP_FIELDS.forEach((name, i) => {
    stats[name] = values[i];
    if (name === "peak_malloced_memory") stats.does_zap_garbage = 0;
  });
  return stats;
}

export const serialize = (value) => wire.serialize(value);

export function deserialize(buffer) {
  if (!ArrayBuffer.isView(buffer)) throw nodeError(TypeError, "ERR_INVALID_ARG_TYPE", "buffer must be a TypedArray or a DataView");
  return wire.deserialize(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
}

// A 32-bit tag that changes with the engine, as V8's changes with its version and flags.
export function cachedDataVersionTag() {
  let hash = 0x811c9dc5;
  for (const ch of `${globalThis.Deno?.core?.v8Version?.() ?? "paseo"}`) {
    hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  }
  return hash;
}

// Node hands the flags to V8 for the whole process; a plugin's isolate is configured by the host,
// so they change nothing here.
export function setFlagsFromString(flags) {
  if (typeof flags !== "string") throw invalidArgType("flags", ["string"], flags);
}

// Without NODE_V8_COVERAGE, Node's takeCoverage and stopCoverage do nothing either.
export function takeCoverage() {}
export function stopCoverage() {}

const notBuildingSnapshot = () => {
  throw nodeError(Error, "ERR_NOT_BUILDING_SNAPSHOT", "Operation cannot be invoked when not building startup snapshot");
};
export const startupSnapshot = {
  addSerializeCallback: notBuildingSnapshot,
  addDeserializeCallback: notBuildingSnapshot,
  setDeserializeMainFunction: notBuildingSnapshot,
  isBuildingSnapshot: () => 0,
};

export const getHeapSnapshot = missing("getHeapSnapshot");
export const writeHeapSnapshot = missing("writeHeapSnapshot");
export const getHeapSpaceStatistics = missing("getHeapSpaceStatistics");
export const getHeapCodeStatistics = missing("getHeapCodeStatistics");
export const setHeapSnapshotNearHeapLimit = missing("setHeapSnapshotNearHeapLimit");
export const queryObjects = missing("queryObjects");
export const Serializer = missing("Serializer");
export const Deserializer = missing("Deserializer");
export const DefaultSerializer = missing("DefaultSerializer");
export const DefaultDeserializer = missing("DefaultDeserializer");
export const GCProfiler = missing("GCProfiler");
export const promiseHooks = {
  onInit: missing("promiseHooks.onInit"),
  onSettled: missing("promiseHooks.onSettled"),
  onBefore: missing("promiseHooks.onBefore"),
  onAfter: missing("promiseHooks.onAfter"),
  createHook: missing("promiseHooks.createHook"),
};

export default {
  cachedDataVersionTag, getHeapSnapshot, getHeapStatistics, getHeapSpaceStatistics,
  getHeapCodeStatistics, setFlagsFromString, Serializer, Deserializer, DefaultSerializer,
  DefaultDeserializer, deserialize, takeCoverage, stopCoverage, serialize, writeHeapSnapshot,
  promiseHooks, queryObjects, startupSnapshot, setHeapSnapshotNearHeapLimit, GCProfiler,
};
