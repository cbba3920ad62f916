// Prometheus metrics. Names follow controller-runtime where one exists, so dashboards and alerts
// written for Go operators work unchanged.
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Metric,
} from 'prom-client';

export type { Registry } from 'prom-client';

/** A fresh registry with the default Node process metrics (CPU, memory, event loop lag, GC). */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Latency buckets in seconds: Prometheus' defaults (what controller-runtime uses) plus two below
 * 5 ms, since a healthy webhook answers in about a millisecond.
 */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class MetricTypeConflictError extends Error {
  readonly metric: string;
  constructor(metric: string) {
    super(`metric ${metric} is already registered with a different type`);
    this.name = 'MetricTypeConflictError';
    this.metric = metric;
  }
}

// Several components (two webhook servers in a test, a restarted controller) may ask for the same
// metric on one registry; prom-client throws on double registration, so reuse the first one.
function existing<M extends Metric>(registry: Registry, name: string, type: abstract new (...args: never[]) => M) {
  const found = registry.getSingleMetric(name);
  if (found === undefined) return undefined;
  if (!(found instanceof type)) throw new MetricTypeConflictError(name);
  return found;
}

export function counter<L extends string>(
  registry: Registry,
  config: Omit<CounterConfiguration<L>, 'registers'>,
): Counter<L> {
  return existing<Counter<L>>(registry, config.name, Counter) ?? new Counter({ ...config, registers: [registry] });
}

export function gauge<L extends string>(
  registry: Registry,
  config: Omit<GaugeConfiguration<L>, 'registers'>,
): Gauge<L> {
  return existing<Gauge<L>>(registry, config.name, Gauge) ?? new Gauge({ ...config, registers: [registry] });
}

export function histogram<L extends string>(
  registry: Registry,
  config: Omit<HistogramConfiguration<L>, 'registers'>,
): Histogram<L> {
  return (
    existing<Histogram<L>>(registry, config.name, Histogram) ?? new Histogram({ ...config, registers: [registry] })
  );
}
