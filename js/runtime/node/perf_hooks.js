// node:perf_hooks for fwbench: the platform's `performance` and its entry
// classes. monitorEventLoopDelay, createHistogram and PerformanceObserver
// need the engine's event-loop instrumentation, which fwbench does not
// have, so they throw.
import { unavailableFunction, unavailableClass } from './_internal.js';

const { performance, PerformanceEntry, PerformanceMark, PerformanceMeasure } = globalThis;
const PerformanceObserver = unavailableClass('perf_hooks', 'PerformanceObserver');
const monitorEventLoopDelay = unavailableFunction('perf_hooks', 'monitorEventLoopDelay');
const createHistogram = unavailableFunction('perf_hooks', 'createHistogram');
const constants = {
  NODE_PERFORMANCE_GC_MAJOR: 4,
  NODE_PERFORMANCE_GC_MINOR: 1,
  NODE_PERFORMANCE_GC_INCREMENTAL: 8,
  NODE_PERFORMANCE_GC_WEAKCB: 16,
};

const perfHooks = {
  performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver,
  monitorEventLoopDelay, createHistogram, constants,
};
export default perfHooks;
export {
  performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver,
  monitorEventLoopDelay, createHistogram, constants,
};
