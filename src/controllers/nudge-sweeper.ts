// docs/decisions.md D2: the sweeper cancels nudge PipelineRuns that reached the cluster uncancelled while
// the mutating webhook was unavailable, as long as they have not started (see `hasStarted`). It
// mirrors the webhook: same decision, same patch, same annotations. The patch carries a `test` of
// the resourceVersion the decision was made on, so a run Tekton picked up in the meantime is never
// cancelled on stale information; the rejected patch is simply retried against the fresher cache.
// It also deletes the Secret and ConfigMap integration-service left for a run nudger holds, once
// nothing can run that run's spec any more (docs/decisions.md N21).
import type { JsonPatchOperation, ObjectClient } from '../adapters/kubernetes/client.ts';
import { KubeApiError, isNotFound } from '../adapters/kubernetes/errors.ts';
import { CONFIG_MAPS, PIPELINE_RUNS, SECRETS } from '../adapters/kubernetes/resources.ts';
import {
  HOLD_REASON_ANNOTATION,
  PIPELINERUN_CANCELLED,
  REDISPATCHED_FROM_ANNOTATION,
  REDISPATCH_ANNOTATION,
  REDISPATCH_DEFERRED_ANNOTATION,
  RELEASED_TARGETS_ANNOTATION,
  cancelPatch,
  targetPairsOf,
} from '../domain/changegroup/hold-decision.ts';
import { changeGroupsHolding } from './changegroup/inputs.ts';
import {
  LEFTOVERS_DELETED_ANNOTATION,
  decideLeftovers,
  isIntegrationServiceNudge,
} from '../domain/changegroup/integration-service-leftovers.ts';
import { decideSweep, hasStarted } from '../domain/changegroup/sweep.ts';
import { decodePipelineRun } from '../domain/cluster-objects.ts';
import {
  isNudgePipelineRun,
  NUDGING_PIPELINE_ANNOTATION,
  nudgePipelineRunOf,
  pipelineRunView,
} from '../domain/nudge-pipelinerun.ts';
import type { EventRecorder } from '../runtime/events.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../runtime/reconciler.ts';
import type { Store } from '../runtime/store.ts';
import {
  isFinalOutcome,
  markRun,
  REDISPATCHED_TARGETS_ANNOTATION,
  RedispatchFailedError,
  redispatchName,
  type Redispatcher,
} from './redispatch.ts';
import type { ChangeGroupSource } from '../cluster/changegroups.ts';
import type { ClusterChangeGroup } from '../schema/changegroup.ts';
import type { PipelineRun } from '../schema/pipelinerun.ts';

export interface NudgeSweeperOptions {
  readonly client: ObjectClient;
  /** Nudge PipelineRuns (the manager's informer is label-filtered to them). */
  readonly pipelineRuns: Store<PipelineRun>;
  readonly changeGroups: ChangeGroupSource;
  /**
   * The ChangeGroups as cached, deleting ones included: whether one may still release a held run
   * of integration-service's. Without it, integration-service's Secrets and ConfigMaps are left.
   */
  readonly changeGroupObjects?: Store<ClusterChangeGroup>;
  readonly events?: Pick<EventRecorder, 'event'>;
  /**
   * The manager's executors (src/controllers/redispatch.ts): the targets a partial hold leaves
   * uncovered are fired from the run's build. Absent (`--nudge-dispatch=false`): they wait for
   * the ChangeGroup to release the whole run (docs/decisions.md N26).
   */
  readonly redispatcher?: Pick<Redispatcher, 'fire'>;
  /** Delay before retrying a patch the server rejected because the run changed; default 1 s. */
  readonly conflictRetryMs?: number;
}

export const HELD_EVENT_REASON = 'HeldByChangeGroup';
export const LEFTOVERS_DELETED_EVENT_REASON = 'IntegrationServiceLeftoversDeleted';
export const LEFTOVERS_FORBIDDEN_EVENT_REASON = 'IntegrationServiceLeftoversForbidden';
export const REDISPATCHED_EVENT_REASON = 'NudgeRedispatched';
export const REDISPATCH_DEFERRED_EVENT_REASON = 'NudgeRedispatchDeferred';
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
    if (sweep.action === 'skip') {
      await this.#redispatchUncovered(cached, signal);
      // Decided on the run as cached: a copy just made shows on it with the next watch event.
      return this.#deleteLeftovers(cached, signal);
    }

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
   * A run cancelled for some targets only: the others must still be nudged. A Renovate run cannot
   * be trimmed (a copy runs every config it mounts), so each is fired from the run's build through
   * the manager's executors, and the run is marked only after every fire ended (a crash in between
   * fires again with the same key, which opens nothing twice). The run must really be cancelled:
   * an annotation alone on a running nudge would otherwise double its targets' nudges.
   */
  async #redispatchUncovered(pipelineRun: PipelineRun, signal: AbortSignal): Promise<undefined> {
    const targets = pendingRedispatch(pipelineRun);
    if (targets.length === 0 || pipelineRun.spec?.status !== PIPELINERUN_CANCELLED) return undefined;
    const { client, events, redispatcher } = this.#options;
    const name = pipelineRun.metadata?.name ?? '';
    if (redispatcher === undefined) {
      // docs/decisions.md N26: no executor to fire them with, and a copy would bypass the hold.
      if (pipelineRun.metadata?.annotations?.[REDISPATCH_DEFERRED_ANNOTATION] !== undefined) return undefined;
      await markRun(client, pipelineRun, { key: REDISPATCH_DEFERRED_ANNOTATION, value: targets.join(' ') }, signal);
      events?.event(
        pipelineRun,
        'Warning',
        REDISPATCH_DEFERRED_EVENT_REASON,
        `the nudges of ${targets.join(', ')} wait for the ChangeGroup to release this whole run: nudger runs no executor (--nudge-dispatch=false) and a Renovate run cannot be trimmed`,
      );
      return undefined;
    }
    for (const target of targets) {
      const outcome = await redispatcher.fire(pipelineRun, target, signal);
      if (!isFinalOutcome(outcome)) {
        throw new RedispatchFailedError(name, target, outcome.kind === 'failed' ? outcome.reason : '', 'retried');
      }
    }
    await markRun(client, pipelineRun, { key: REDISPATCHED_TARGETS_ANNOTATION, value: targets.join(' ') }, signal);
    events?.event(
      pipelineRun,
      'Normal',
      REDISPATCHED_EVENT_REASON,
      `nudges of ${targets.join(', ')} fired from build ${pipelineRun.metadata?.annotations?.[NUDGING_PIPELINE_ANNOTATION] ?? ''} by nudger's executor`,
    );
    return undefined;
  }

  /**
   * The run (undefined once gone) and every copy nudger may have made of it, read from the API
   * server: copies are named from the run and their targets (redispatchName), so none is missed.
   */
  async #freshRunAndCopies(
    run: PipelineRun,
    signal: AbortSignal,
  ): Promise<{ readonly run: PipelineRun; readonly copies: readonly PipelineRun[] } | undefined> {
    const namespace = run.metadata?.namespace ?? '';
    const read = async (name: string): Promise<PipelineRun | undefined> => {
      try {
        const reading = decodePipelineRun(await this.#options.client.get(PIPELINE_RUNS, namespace, name, signal));
        return reading.ok ? reading.object : undefined;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    };
    const current = await read(run.metadata?.name ?? '');
    if (current === undefined) return undefined;
    const copies: PipelineRun[] = [];
    for (const name of copyNamesOf(current)) {
      const copy = await read(name);
      if (copy !== undefined) copies.push(copy);
    }
    return { run: current, copies };
  }

  /**
   * integration-service's Secret and ConfigMap of a run nudger holds, by their exact names, once
   * nothing can run its spec (decideLeftovers). NotFound is success. Recorded on the run, so that
   * the decision is not made again, and told in an Event; the names are not secret, and the data
   * is never read.
   */
  async #deleteLeftovers(run: PipelineRun, signal: AbortSignal): Promise<undefined> {
    const { client, pipelineRuns, changeGroupObjects, events } = this.#options;
    if (changeGroupObjects === undefined || !isIntegrationServiceNudge(run)) return undefined;
    const namespace = run.metadata?.namespace ?? '';
    const changeGroups = changeGroupObjects.list(namespace);
    const releasesCopy = this.#options.redispatcher === undefined;
    if (
      decideLeftovers(run, { nudgeRuns: pipelineRuns.list(namespace), changeGroups, releasesCopy }).action !== 'delete'
    ) {
      return undefined;
    }
    // Decided again on the run and its copies as the API server has them now. The caches of two
    // kinds do not keep each other's order: a ChangeGroup may be gone from its cache before the
    // release it made of this run on its way out (a copy, then the released pair) reached ours.
    const fresh = await this.#freshRunAndCopies(run, signal);
    if (fresh === undefined) return undefined;
    const decision = decideLeftovers(fresh.run, { nudgeRuns: fresh.copies, changeGroups, releasesCopy });
    if (decision.action !== 'delete') return undefined;
    for (const [ref, name] of [
      [SECRETS, decision.secret],
      [CONFIG_MAPS, decision.configMap],
    ] as const) {
      try {
        await client.delete(ref, decision.namespace, name, { signal });
      } catch (error) {
        if (isNotFound(error)) continue;
        // RBAC without the delete grant (docs/deploy.md): said on the run, not retried in a loop;
        // the run's next change tries again.
        if (error instanceof KubeApiError && error.statusCode === 403) {
          events?.event(
            run,
            'Warning',
            LEFTOVERS_FORBIDDEN_EVENT_REASON,
            `cannot delete the ${ref.kind} ${name} integration-service left for this held nudge (it holds its token): the manager may not delete ${ref.plural} here`,
          );
          return undefined;
        }
        throw error;
      }
    }
    const deleted = `Secret ${decision.secret}, ConfigMap ${decision.configMap}`;
    await client
      .patch(
        PIPELINE_RUNS,
        namespace,
        run.metadata?.name ?? '',
        'merge',
        { metadata: { annotations: { [LEFTOVERS_DELETED_ANNOTATION]: deleted } } },
        { signal, fieldManager: FIELD_MANAGER },
      )
      .catch((error: unknown) => {
        // The run is gone: nothing left to record it on, and nothing left to decide again.
        if (!isNotFound(error)) throw error;
      });
    events?.event(
      run,
      'Normal',
      LEFTOVERS_DELETED_EVENT_REASON,
      `deleted the ${deleted} integration-service created for this held nudge without owner references (they hold its token)`,
    );
    return undefined;
  }
}

/**
 * The names of the copies nudger may have made of `run`: the whole run (docs/decisions.md N26) and,
 * from before targets were fired through the executors, one per re-dispatch or release.
 */
function copyNamesOf(run: PipelineRun): string[] {
  const name = run.metadata?.name ?? '';
  const annotations = run.metadata?.annotations ?? {};
  const reading = nudgePipelineRunOf(run);
  const names: string[] = [redispatchName(name, reading.ok ? reading.nudge.nudgedComponents : [])];
  const handedBack = (annotations[REDISPATCHED_TARGETS_ANNOTATION] ?? '').split(/\s+/).filter((t) => t !== '');
  if (handedBack.length > 0) names.push(redispatchName(name, handedBack));
  for (const pair of targetPairsOf(annotations[RELEASED_TARGETS_ANNOTATION])) {
    names.push(redispatchName(name, [pair.slice(0, pair.indexOf('='))]));
  }
  return names;
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
 * nudge runs that have not started (the reconciler decides; this only narrows the wake-up). A
 * ChangeGroup that ends or goes away may no longer release the runs it holds: wake those too,
 * for their integration-service leftovers.
 */
export function notStartedNudgeRunsFor(
  pipelineRuns: Store<PipelineRun>,
): (changeGroup: ClusterChangeGroup) => readonly ObjectKey[] {
  return (changeGroup) => {
    const namespace = changeGroup.metadata?.namespace;
    if (namespace === undefined) return [];
    const name = changeGroup.metadata?.name ?? '';
    return pipelineRuns
      .list(namespace)
      .filter(
        (run) => isSweepCandidate(run) || (isIntegrationServiceNudge(run) && changeGroupsHolding(run).includes(name)),
      )
      .map((run) => ({ namespace, name: run.metadata?.name ?? '' }));
  };
}

/**
 * A nudge run wakes itself and, when it is nudger's copy of another run, that original: a copy
 * that finished may let the original's integration-service leftovers go.
 */
export function nudgeRunAndOriginal(run: PipelineRun): readonly ObjectKey[] {
  const namespace = run.metadata?.namespace ?? '';
  const self = { namespace, name: run.metadata?.name ?? '' };
  const original = run.metadata?.annotations?.[REDISPATCHED_FROM_ANNOTATION];
  return original === undefined || original === '' ? [self] : [self, { namespace, name: original }];
}
