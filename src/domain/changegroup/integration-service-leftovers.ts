// integration-service creates, for each nudge PipelineRun `renovate-pipeline-<12 hex>`, a Secret
// (the git token and registry password) and a ConfigMap (the Renovate configs) of the same name,
// before the run and with no owner references, and never deletes them. When nudger holds such a
// run (docs/decisions.md D2), nobody ever would: this decides when nudger deletes the pair itself
// (docs/decisions.md N21). Targets nudger hands back are fired from the build through its own
// executors, which never read the pair; only without executors is the whole run copied on its
// release (docs/decisions.md N26), and such a copy reads the same Secret and ConfigMap. So the pair
// goes once nothing can run that spec any more.
import type { ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import {
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  NUDGING_COMPONENT_ANNOTATION,
  NUDGING_PIPELINE_ANNOTATION,
  pipelineRunView,
} from '../nudge-pipelinerun.ts';
import {
  HELD_TARGETS_ANNOTATION,
  PIPELINERUN_CANCELLED,
  REDISPATCHED_FROM_ANNOTATION,
  RELEASED_TARGETS_ANNOTATION,
  targetPairsOf,
} from './hold-decision.ts';
import { isTerminalPhase } from './model.ts';
import { hasStarted } from './sweep.ts';

/** Set on the held run once its Secret and ConfigMap are gone: nothing more to do for it. */
export const LEFTOVERS_DELETED_ANNOTATION = 'nudger.konflux-ci.dev/integration-service-leftovers-deleted';

/**
 * integration-service's name for a nudge run: `renovate-pipeline-` and the first 12 hex digits of
 * sha256(build PipelineRun uid). build-service's are `renovate-pipeline-<unix time>-<5 random>`,
 * nudger's copies end in `-rd-<hash>` and its held-nudge records in `-held-<key>`: none match.
 */
const INTEGRATION_SERVICE_NUDGE_NAME = /^renovate-pipeline-[0-9a-f]{12}$/;

/** A nudge PipelineRun integration-service created: its name, the nudge label, and no owner. */
export function isIntegrationServiceNudge(run: PipelineRun): boolean {
  const metadata = run.metadata ?? {};
  const owners: unknown = (metadata as { readonly ownerReferences?: unknown }).ownerReferences;
  return (
    INTEGRATION_SERVICE_NUDGE_NAME.test(metadata.name ?? '') &&
    metadata.labels?.[NUDGE_TYPE_LABEL] === NUDGE_TYPE_VALUE &&
    !(Array.isArray(owners) && owners.length > 0)
  );
}

export type LeftoversDecision =
  /** Not a run of integration-service's that nudger holds, or its pair is already deleted. */
  | { readonly action: 'none' }
  /** Something may still run its spec; `reason` says what, for a debug log. */
  | { readonly action: 'wait'; readonly reason: string }
  /** Delete exactly these, in the run's namespace; NotFound is success. */
  | { readonly action: 'delete'; readonly namespace: string; readonly secret: string; readonly configMap: string };

/** What the decision reads besides the run, all from the run's namespace, as cached. */
export interface LeftoversContext {
  /** The namespace's nudge PipelineRuns: nudger's copies of the run among them. */
  readonly nudgeRuns: readonly PipelineRun[];
  /** The namespace's ChangeGroups, those being deleted included (a deletion releases). */
  readonly changeGroups: readonly ClusterChangeGroup[];
  /**
   * Whether a release copies the whole run (nudger runs no executor, docs/decisions.md N26): then
   * the pair waits while a ChangeGroup may still release it. Default false.
   */
  readonly releasesCopy?: boolean;
}

/** Stopped for good: Tekton finished it, or it was stopped before Tekton ever started it. */
function isFinished(run: PipelineRun): boolean {
  const view = pipelineRunView(run);
  const done = view.succeeded?.status === 'True' || view.succeeded?.status === 'False';
  return done || (view.specStatus === PIPELINERUN_CANCELLED && !hasStarted(run));
}

/**
 * Whether `changeGroup` can no longer release `run`: it is gone, or it has ended (terminal phases
 * are absorbing) with the run's build in its pull request, which it never hands back.
 */
function cannotRelease(run: PipelineRun, changeGroup: ClusterChangeGroup | undefined): boolean {
  if (changeGroup === undefined) return true;
  const status = changeGroup.status;
  if (status?.phase === undefined || !isTerminalPhase(status.phase)) return false;
  const annotations = run.metadata?.annotations ?? {};
  const component = annotations[NUDGING_COMPONENT_ANNOTATION];
  const entry = status.components?.find((c) => c.name === component);
  if (entry?.newBuild === undefined || entry.buildPipelineRun !== annotations[NUDGING_PIPELINE_ANNOTATION]) {
    return false;
  }
  return (status.pullRequest?.pushedBuilds ?? []).some((b) => b.name === component && b.digest === entry.newBuild);
}

export function decideLeftovers(run: PipelineRun, context: LeftoversContext): LeftoversDecision {
  const metadata = run.metadata ?? {};
  const annotations = metadata.annotations ?? {};
  const name = metadata.name ?? '';
  const namespace = metadata.namespace ?? '';
  if (!isIntegrationServiceNudge(run) || annotations[LEFTOVERS_DELETED_ANNOTATION] !== undefined) {
    return { action: 'none' };
  }
  // Held by nudger: cancelled with the hold annotations (a run someone else cancelled is theirs).
  const held = targetPairsOf(annotations[HELD_TARGETS_ANNOTATION]);
  if (run.spec?.status !== PIPELINERUN_CANCELLED || held.size === 0) return { action: 'none' };

  const released = targetPairsOf(annotations[RELEASED_TARGETS_ANNOTATION]);
  for (const pair of context.releasesCopy === true ? held : []) {
    if (released.has(pair)) continue;
    const changeGroup = pair.slice(pair.indexOf('=') + 1);
    const object = context.changeGroups.find(
      (cg) => cg.metadata?.name === changeGroup && cg.metadata.namespace === namespace,
    );
    if (!cannotRelease(run, object))
      return { action: 'wait', reason: `ChangeGroup ${changeGroup} may still release it` };
  }
  const running = context.nudgeRuns.find(
    (copy) =>
      copy.metadata?.namespace === namespace &&
      copy.metadata.annotations?.[REDISPATCHED_FROM_ANNOTATION] === name &&
      !isFinished(copy),
  );
  if (running !== undefined) {
    return { action: 'wait', reason: `its copy ${running.metadata?.name ?? ''} has not finished` };
  }
  return { action: 'delete', namespace, secret: name, configMap: name };
}
