// The renovate executor's nudge PipelineRuns that fail are told (docs/decisions.md N24, D9): the
// decision is src/domain/nudge/nudge-run-failure.ts, this carries it out. Level-triggered and
// without memory of its own: the Event is named after the run (once-events.ts) and created if
// absent, so a restart or a second replica finds it told; the metric is counted by whoever created
// it. Then the run is annotated as told, so that once the Event has expired (--event-ttl) the
// still failed run is not told again. A crash between the Event and the annotation is repaired by
// the next reconcile: the Event exists (not told, not counted again), the annotation is written.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isNotFound } from '../../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { DISPATCH_EVENT_REASONS } from '../../domain/nudge/dispatch-intents.ts';
import { FAILURE_REPORTED_ANNOTATION, nudgeRunFailure } from '../../domain/nudge/nudge-run-failure.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../../runtime/reconciler.ts';
import type { Store } from '../../runtime/store.ts';
import { COMPONENT_API_VERSION, COMPONENT_KIND, type ClusterComponent } from '../../schema/component.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { DispatchMetrics } from './metrics.ts';
import { OnceEvents } from './once-events.ts';

export interface NudgeRunFailureReconcilerOptions {
  readonly client: ObjectClient;
  /** The label-selected nudge PipelineRuns (NUDGE_RUNS_SELECTOR). */
  readonly nudgeRuns: Store<PipelineRun>;
  readonly components: Store<ClusterComponent>;
  readonly metrics?: Pick<DispatchMetrics, 'nudgeRunsFailed'>;
  /** Milliseconds since the epoch. */
  readonly now?: () => number;
}

const FIELD_MANAGER = 'nudger-dispatch';
const EVENT_COMPONENT = 'nudger-dispatch';

export class NudgeRunFailureReconciler implements Reconciler {
  readonly name = 'nudge-run-failures';
  readonly #o: NudgeRunFailureReconcilerOptions;
  readonly #once: OnceEvents;
  readonly #now: () => number;

  constructor(options: NudgeRunFailureReconcilerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#once = new OnceEvents(options.client, EVENT_COMPONENT, this.#now);
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const run = this.#o.nudgeRuns.get(key.namespace, key.name);
    if (run === undefined) return undefined;
    const failure = nudgeRunFailure(run);
    if (failure === undefined) return undefined;
    // The Event is the effect here, not a notice beside one: an API failure is retried (rejects).
    const told = await this.#once.tell(this.#component(failure.namespace, failure.component), failure.fact, {
      type: 'Warning',
      reason: DISPATCH_EVENT_REASONS.nudgeFailed,
      message: failure.message,
    });
    if (told) this.#o.metrics?.nudgeRunsFailed.inc({ reason: failure.metricReason });
    await this.#markTold(key, signal);
    return undefined;
  }

  /** The Component from the cache, else a reference the API server accepts. */
  #component(namespace: string, name: string): KubeObject {
    return (
      this.#o.components.get(namespace, name) ?? {
        apiVersion: COMPONENT_API_VERSION,
        kind: COMPONENT_KIND,
        metadata: { namespace, name },
      }
    );
  }

  /** Adds the annotation, whatever the run's resourceVersion: writing it twice changes nothing. */
  async #markTold(key: ObjectKey, signal: AbortSignal): Promise<void> {
    const time = new Date(this.#now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const patch = { metadata: { annotations: { [FAILURE_REPORTED_ANNOTATION]: time } } };
    try {
      await this.#o.client.patch(PIPELINE_RUNS, key.namespace, key.name, 'merge', patch, {
        fieldManager: FIELD_MANAGER,
        signal,
      });
    } catch (error) {
      // A run deleted meanwhile needs no annotation.
      if (!isNotFound(error)) throw error;
    }
  }
}
