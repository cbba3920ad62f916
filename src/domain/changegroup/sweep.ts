// docs/decisions.md D2, second line of defence: a nudge PipelineRun admitted while the mutating webhook was
// unavailable (`failurePolicy: Ignore`) is cancelled after the fact, but only while Tekton has not
// touched it. Once a run has started, cancelling it would kill a Renovate run half-way through,
// which is worse than the duplicate pull request the hold was meant to avoid.
import { nudgePipelineRunOf } from '../nudge-pipelinerun.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import { decideNudgeHold, isNeverHeld, type ChangeGroupView, type HoldDecision } from './hold-decision.ts';
import { isRecord } from '../records.ts';

export type SweepSkipReason = 'not-a-nudge' | 'already-stopped' | 'started' | 'not-held';

export type SweepDecision =
  | { readonly action: 'skip'; readonly reason: SweepSkipReason }
  | { readonly action: 'cancel'; readonly decision: Extract<HoldDecision, { action: 'cancel' }> };

/** Tekton's value for a run that waits for someone to start it: not started, so still holdable. */
export const PIPELINERUN_PENDING = 'PipelineRunPending';

function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/**
 * Strict "not started": `status` is absent, or every one of its fields is empty (null, `''`, `[]`,
 * `{}`). Any content at all (`startTime`, `completionTime`, `conditions`, `childReferences`,
 * v1beta1 `taskRuns`/`runs`, a resolved `pipelineSpec`, even just `observedGeneration`) counts as
 * started, because each is written only once a Tekton controller has picked the run up. Erring
 * towards "started" leaves a duplicate nudge at worst; erring the other way cancels live work.
 */
export function hasStarted(pipelineRun: PipelineRun): boolean {
  const status = pipelineRun.status;
  if (status === undefined) return false;
  return Object.values(status).some((value) => !isEmptyValue(value));
}

/** What the sweeper does with one (decoded) PipelineRun, given its namespace's ChangeGroups. */
export function decideSweep(pipelineRun: PipelineRun, changeGroups: readonly ChangeGroupView[]): SweepDecision {
  const reading = nudgePipelineRunOf(pipelineRun);
  if (!reading.ok) return { action: 'skip', reason: 'not-a-nudge' };
  const { nudge } = reading;
  // Cancelled, CancelledRunFinally, StoppedRunFinally: someone already stopped it, nudger or not.
  // Pending is the one value that is not a stop, and the webhook would have cancelled it too.
  const specStatus = nudge.pipelineRun.specStatus;
  if (specStatus !== '' && specStatus !== PIPELINERUN_PENDING) return { action: 'skip', reason: 'already-stopped' };
  if (hasStarted(pipelineRun)) return { action: 'skip', reason: 'started' };
  const decision = decideNudgeHold(
    {
      namespace: nudge.namespace,
      nudgingComponent: nudge.nudgingComponent,
      nudgedComponents: nudge.nudgedComponents,
      redispatched: isNeverHeld(nudge.pipelineRun.annotations),
    },
    changeGroups,
  );
  return decision.action === 'leave' ? { action: 'skip', reason: 'not-held' } : { action: 'cancel', decision };
}
