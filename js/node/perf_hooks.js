// node:perf_hooks: the global `performance` (its clock, and User Timing with observers from
// js/web/performance.js). Histograms and the event-loop delay monitor are not available in the
// plugin host and fail naming the member.
import {
  PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver, PerformanceObserverEntryList,
  PerformanceResourceTiming,
} from "paseo:internal/web/performance";
const unsupported = (member) => {
  throw new Error(`node:perf_hooks.${member} is not supported by the Paseo plugin host yet`);
};

export const performance = globalThis.performance;
export const Performance = performance.constructor === Object ? function Performance() { unsupported("Performance"); } : performance.constructor;


export {
  PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver, PerformanceObserverEntryList,
  PerformanceResourceTiming,
};
export function monitorEventLoopDelay() { unsupported("monitorEventLoopDelay"); }
export function createHistogram() { unsupported("createHistogram"); }
export const constants = Object.freeze({
  NODE_PERFORMANCE_GC_MAJOR: 4, NODE_PERFORMANCE_GC_MINOR: 1, NODE_PERFORMANCE_GC_INCREMENTAL: 8,
  NODE_PERFORMANCE_GC_WEAKCB: 16, NODE_PERFORMANCE_GC_FLAGS_NO: 0, NODE_PERFORMANCE_GC_FLAGS_CONSTRUCT_RETAINED: 2,
  NODE_PERFORMANCE_GC_FLAGS_FORCED: 4, NODE_PERFORMANCE_GC_FLAGS_SYNCHRONOUS_PHANTOM_PROCESSING: 8,
  NODE_PERFORMANCE_GC_FLAGS_ALL_AVAILABLE_GARBAGE: 16, NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY: 32,
  NODE_PERFORMANCE_GC_FLAGS_SCHEDULE_IDLE: 64,
});

export default {
  Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver, PerformanceObserverEntryList,
  PerformanceResourceTiming, monitorEventLoopDelay, createHistogram, performance, constants,
};
