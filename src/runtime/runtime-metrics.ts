// Prometheus metrics of the runtime, under controller-runtime's and client-go's names so existing
// dashboards and alerts work. One set per registry: controllers and informers sharing a registry
// share the metric objects and differ by label.
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { counter as sharedCounter, gauge as sharedGauge, histogram as sharedHistogram } from './metrics.ts';
import type { WorkQueueMetricsSink } from './workqueue.ts';

/** controller-runtime's reconcile_time_seconds buckets. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2,
  2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's workqueue buckets: 10 ns to 10 s, by decades. */
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

export interface QueueProbe {
  readonly name: string;
  inFlight(): { unfinishedSeconds: number; longestSeconds: number };
}

export class RuntimeMetrics {
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalReconcileErrors: Counter<'controller'>;
  readonly reconcilePanics: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name'>;
  readonly queueAdds: Counter<'name'>;
  readonly queueDuration: Histogram<'name'>;
  readonly workDuration: Histogram<'name'>;
  readonly queueRetries: Counter<'name'>;
  readonly unfinishedWork: Gauge<'name'>;
  readonly longestRunning: Gauge<'name'>;
  readonly watchRestarts: Counter<'resource' | 'reason'>;
  readonly relists: Counter<'resource' | 'reason'>;
  readonly lastEvent: Gauge<'resource'>;
  readonly watching: Gauge<'resource'>;
  readonly decodeFailures: Counter<'resource'>;
  readonly undecodableObjects: Gauge<'resource'>;
  readonly leader: Gauge<'name'>;
  readonly #queues = new Set<QueueProbe>();

  constructor(registry: Registry) {
    // Get-or-create, so controllers and informers sharing a registry share the metric objects.
    const counter = <L extends string>(name: string, help: string, labelNames: L[]): Counter<L> =>
      sharedCounter(registry, { name, help, labelNames });
    const gauge = <L extends string>(name: string, help: string, labelNames: L[], collect?: () => void): Gauge<L> =>
      sharedGauge(registry, { name, help, labelNames, ...(collect === undefined ? {} : { collect }) });
    const histogram = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      buckets: number[],
    ): Histogram<L> => sharedHistogram(registry, { name, help, labelNames, buckets });

    this.reconcileTotal = counter(
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
      ['controller', 'result'],
    );
    this.reconcileErrors = counter(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      ['controller'],
    );
    this.terminalReconcileErrors = counter(
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
      ['controller'],
    );
    this.reconcilePanics = counter(
      'controller_runtime_reconcile_panics_total',
      'Total number of reconciliation panics per controller',
      ['controller'],
    );
    this.reconcileTime = histogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      ['controller'],
      RECONCILE_BUCKETS,
    );
    this.maxConcurrentReconciles = gauge(
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      ['controller'],
    );
    this.activeWorkers = gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', [
      'controller',
    ]);
    this.queueDepth = gauge('workqueue_depth', 'Current depth of workqueue', ['name']);
    this.queueAdds = counter('workqueue_adds_total', 'Total number of adds handled by workqueue', ['name']);
    this.queueDuration = histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      ['name'],
      QUEUE_BUCKETS,
    );
    this.workDuration = histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes',
      ['name'],
      QUEUE_BUCKETS,
    );
    this.queueRetries = counter('workqueue_retries_total', 'Total number of retries handled by workqueue', ['name']);
    this.unfinishedWork = gauge(
      'workqueue_unfinished_work_seconds',
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
      ['name'],
      () => {
        this.#collectQueues();
      },
    );
    this.longestRunning = gauge(
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running',
      ['name'],
      () => {
        this.#collectQueues();
      },
    );
    this.watchRestarts = counter('nudger_informer_watch_restarts_total', 'Watch restarts per resource and reason', [
      'resource',
      'reason',
    ]);
    this.relists = counter(
      'nudger_informer_relists_total',
      'Full LISTs after the initial one, per resource and reason',
      ['resource', 'reason'],
    );
    this.lastEvent = gauge(
      'nudger_informer_last_event_timestamp_seconds',
      'Unix time of the last watch event or bookmark per resource',
      ['resource'],
    );
    this.watching = gauge('nudger_informer_watching', '1 while the watch of a resource is established', ['resource']);
    this.decodeFailures = counter(
      'nudger_informer_decode_failures_total',
      'Object versions an informer left out of its cache because they do not match their schema',
      ['resource'],
    );
    this.undecodableObjects = gauge(
      'nudger_informer_undecodable_objects',
      'Objects an informer holds out of its cache right now because they do not match their schema',
      ['resource'],
    );
    this.leader = gauge('nudger_leader_election_master_status', '1 while this replica holds the named lease', ['name']);
  }

  trackQueue(queue: QueueProbe): () => void {
    this.#queues.add(queue);
    return () => this.#queues.delete(queue);
  }

  queueSink(name: string): WorkQueueMetricsSink {
    return {
      added: () => {
        this.queueAdds.inc({ name });
      },
      depth: (depth) => {
        this.queueDepth.set({ name }, depth);
      },
      queued: (seconds) => {
        this.queueDuration.observe({ name }, seconds);
      },
      worked: (seconds) => {
        this.workDuration.observe({ name }, seconds);
      },
      retried: () => {
        this.queueRetries.inc({ name });
      },
    };
  }

  #collectQueues(): void {
    for (const queue of this.#queues) {
      const { unfinishedSeconds, longestSeconds } = queue.inFlight();
      this.unfinishedWork.set({ name: queue.name }, unfinishedSeconds);
      this.longestRunning.set({ name: queue.name }, longestSeconds);
    }
  }
}

const byRegistry = new WeakMap<Registry, RuntimeMetrics>();

/** The runtime's metrics on `registry`, created on first use. */
export function runtimeMetrics(registry: Registry): RuntimeMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    metrics = new RuntimeMetrics(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}
