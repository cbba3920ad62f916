// docs/decisions.md D2: the sweeper cancels nudge PipelineRuns that reached the cluster uncancelled while
// the mutating webhook was unavailable, as long as they have not started (see `hasStarted`). It
// mirrors the webhook: same decision, same patch, same annotations. The patch carries a `test` of
// the resourceVersion the decision was made on, so a run Tekton picked up in the meantime is never
// cancelled on stale information; the rejected patch is simply retried against the fresher cache.
import type { JsonPatchOperation, ObjectClient } from '../adapters/kubernetes/client.ts';
import { KubeApiError, isNotFound } from '../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../adapters/kubernetes/resources.ts';
import {
  HOLD_REASON_ANNOTATION,
  PIPELINERUN_CANCELLED,
  REDISPATCH_ANNOTATION,
  cancelPatch,
} from '../domain/changegroup/hold-decision.ts';
import { decideSweep, hasStarted } from '../domain/changegroup/sweep.ts';
import { decodePipelineRun } from '../domain/cluster-objects.ts';
import { isNudgePipelineRun, pipelineRunView } from '../domain/nudge-pipelinerun.ts';
import type { EventRecorder } from '../runtime/events.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../runtime/reconciler.ts';
import type { Store } from '../runtime/store.ts';
import { REDISPATCHED_TARGETS_ANNOTATION, redispatchNudge } from './redispatch.ts';
import type { ChangeGroupSource } from '../cluster/changegroups.ts';
import type { ClusterChangeGroup } from '../schema/changegroup.ts';
import type { PipelineRun } from '../schema/pipelinerun.ts';

export interface NudgeSweeperOptions {
  readonly client: ObjectClient;
  /** Nudge PipelineRuns (the manager's informer is label-filtered to them). */
  readonly pipelineRuns: Store<PipelineRun>;
  readonly changeGroups: ChangeGroupSource;
  readonly events?: Pick<EventRecorder, 'event'>;
  /** Delay before retrying a patch the server rejected because the run changed; default 1 s. */
  readonly conflictRetryMs?: number;
}

export const HELD_EVENT_REASON = 'HeldByChangeGroup';
const FIELD_MANAGER = 'nudger-nudge-sweeper';
const DEFAULT_CONFLICT_RETRY_MS = 1000;

/** 409: a precondition failed; 422: the `test` op failed because the resourceVersion moved. */
function isStale(error: unknown): boolean {
  return error instanceof KubeApiError && (error.statusCode === 409 || error.statusCode === 422);
}

export class NudgeSweepReconciler implements Reconciler {
  readonly name = 'nudge-sweeper';
  readonly #options: NudgeSweeperOptions;

  constructor(options: NudgeSweeperOptions) {
    this.#options = options;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { client, pipelineRuns, changeGroups, events } = this.#options;
    const cached = pipelineRuns.get(key.namespace, key.name);
    if (cached === undefined) return undefined; // deleted
    const resourceVersion = cached.metadata?.resourceVersion;
    if (resourceVersion === undefined || resourceVersion === '') return undefined; // nothing to guard with
    const sweep = decideSweep(cached, changeGroups.inNamespace(key.namespace));
    if (sweep.action === 'skip') return this.#redispatchUncovered(cached, signal);

    const patch: JsonPatchOperation[] = [
      { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
      ...cancelPatch(cached, sweep.decision),
    ];
    let response: unknown;
    try {
      response = await client.patch(PIPELINE_RUNS, key.namespace, key.name, 'json', patch, {
        signal,
        fieldManager: FIELD_MANAGER,
      });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (isStale(error)) return { requeueAfterMs: this.#options.conflictRetryMs ?? DEFAULT_CONFLICT_RETRY_MS };
      throw error;
    }
    // The API server's answer, read like any object from it; the watch will bring the same.
    const cancelled = decodePipelineRun(response);
    if (!cancelled.ok) return undefined;
    const message = sweep.decision.annotations[HOLD_REASON_ANNOTATION] ?? 'held by a ChangeGroup';
    events?.event(cancelled.object, 'Normal', HELD_EVENT_REASON, message);
    return this.#redispatchUncovered(cancelled.object, signal);
  }

  /**
   * A run cancelled for some targets only: the others must still be nudged, so a copy for them is
   * created (once; see redispatch.ts). The run must really be cancelled: an annotation alone on a
   * running nudge would otherwise double its targets' nudges.
   */
  async #redispatchUncovered(pipelineRun: PipelineRun, signal: AbortSignal): Promise<undefined> {
    const targets = pendingRedispatch(pipelineRun);
    if (targets.length === 0 || pipelineRun.spec?.status !== PIPELINERUN_CANCELLED) return undefined;
    const copy = await redispatchNudge(
      this.#options.client,
      pipelineRun,
      targets,
      { key: REDISPATCHED_TARGETS_ANNOTATION, value: targets.join(' ') },
      signal,
    );
    this.#options.events?.event(
      pipelineRun,
      'Normal',
      'NudgeRedispatched',
      `nudges of ${targets.join(', ')} re-dispatched as ${copy}`,
    );
    return undefined;
  }
}

/** Targets the cancelling webhook (or sweep) left to nudger, not yet re-dispatched. */
export function pendingRedispatch(pipelineRun: PipelineRun): string[] {
  const annotations = pipelineRun.metadata?.annotations ?? {};
  if (annotations[REDISPATCHED_TARGETS_ANNOTATION] !== undefined) return [];
  return (annotations[REDISPATCH_ANNOTATION] ?? '').split(/\s+/).filter((t) => t !== '');
}

/** Whether a cached PipelineRun is a nudge the sweeper might still cancel. */
function isSweepCandidate(run: PipelineRun): boolean {
  const view = pipelineRunView(run);
  return isNudgePipelineRun(view) && view.specStatus !== PIPELINERUN_CANCELLED && !hasStarted(run);
}

/**
 * A ChangeGroup created or changed may now hold runs that were left alone: wake the namespace's
 * nudge runs that have not started (the reconciler decides; this only narrows the wake-up).
 */
export function notStartedNudgeRunsFor(
  pipelineRuns: Store<PipelineRun>,
): (changeGroup: ClusterChangeGroup) => readonly ObjectKey[] {
  return (changeGroup) => {
    const namespace = changeGroup.metadata?.namespace;
    if (namespace === undefined) return [];
    return pipelineRuns
      .list(namespace)
      .filter(isSweepCandidate)
      .map((run) => ({ namespace, name: run.metadata?.name ?? '' }));
  };
}
