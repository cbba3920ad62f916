// docs/decisions.md D2: the one answer to "should this nudge be held by a ChangeGroup?", asked by the
// mutating webhook at admission, by the sweeper for runs admitted while the webhook was down, and
// by nudger's own dispatcher before it fires a nudge. Pure, so all three agree by construction.
import { isCollectingPhase, type ChangeGroupPhase } from './model.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import { compareStrings } from '../compare.ts';
import { escapeJsonPointerToken, type JsonPatchOperation } from '../json-patch.ts';

/** A nudge about to happen: one source, one or more targets, in one namespace. */
export interface NudgeToHold {
  readonly namespace: string;
  readonly nudgingComponent: string;
  readonly nudgedComponents: readonly string[];
  /**
   * A copy nudger made to hand targets back to ordinary nudging. Never held again: the ChangeGroup
   * that let it go may still look active in a cache that trails its deletion or its last edit.
   */
  readonly redispatched?: boolean;
}

/** The fields of a ChangeGroup the decision reads. */
export interface ChangeGroupView {
  readonly name: string;
  readonly namespace: string;
  readonly nudgedComponent: string;
  /** `spec.nudgingComponents` names. Empty: every component nudging the target (ADR 59). */
  readonly nudgingComponents: readonly string[];
  /** Absent before the controller's first status write, which is `Initialized`. */
  readonly phase?: ChangeGroupPhase;
}

export interface HeldTarget {
  readonly changeGroup: string;
  readonly target: string;
}

export type HoldDecision =
  | { readonly action: 'leave' }
  | {
      readonly action: 'cancel';
      /** One entry per held target, sorted by target. */
      readonly coveredBy: readonly HeldTarget[];
      /** Targets no ChangeGroup holds: whoever cancels must nudge them some other way. */
      readonly uncovered: readonly string[];
      readonly annotations: Readonly<Record<string, string>>;
    };

/** Annotations nudger puts on a PipelineRun it cancels. Keys are nudger's, values plain text. */
export const HELD_BY_ANNOTATION = 'nudger.konflux-ci.dev/held-by-changegroup';
/** `target=changegroup` pairs, space-separated like build-service's nudged-components. */
export const HELD_TARGETS_ANNOTATION = 'nudger.konflux-ci.dev/held-targets';
export const HOLD_REASON_ANNOTATION = 'nudger.konflux-ci.dev/hold-reason';
/** Targets nudger must nudge itself because the run that would have done it is cancelled. */
export const REDISPATCH_ANNOTATION = 'nudger.konflux-ci.dev/redispatch-targets';
/**
 * On the original: the targets of a partial hold nudger has re-dispatched (space-separated), each
 * fired from the run's build (src/controllers/redispatch.ts); written after the fires ended.
 */
export const REDISPATCHED_TARGETS_ANNOTATION = 'nudger.konflux-ci.dev/redispatched-targets';
/**
 * On a partially held run, when nudger runs no executor: the uncovered targets that wait for the
 * ChangeGroup to release the whole run (docs/decisions.md N26). Told once.
 */
export const REDISPATCH_DEFERRED_ANNOTATION = 'nudger.konflux-ci.dev/redispatch-deferred';
/** On what nudger runs to hand a held run's targets back (an executor's run, a copy): that run. */
export const REDISPATCHED_FROM_ANNOTATION = 'nudger.konflux-ci.dev/redispatched-from';
/**
 * On the nudge PipelineRun of a validated batch (docs/decisions.md D10, N29): its gating group. The
 * validated controller asked D2 for every entry before it fired the batch, and a ChangeGroup could
 * only collect one build of the several the run carries, so such a run is never held either.
 */
export const VALIDATED_GATING_GROUP_ANNOTATION = 'nudger.konflux-ci.dev/gating-group';

/** Whether a nudge PipelineRun is one no ChangeGroup holds: a hand-back, or a validated batch. */
export function isNeverHeld(annotations: Readonly<Record<string, string>>): boolean {
  return (
    annotations[REDISPATCHED_FROM_ANNOTATION] !== undefined ||
    annotations[VALIDATED_GATING_GROUP_ANNOTATION] !== undefined
  );
}
/**
 * Set on a held nudge PipelineRun once nudger has handed its targets back to ordinary nudging
 * (space-separated `target=changegroup` pairs), so that the ChangeGroup stops offering it.
 */
export const RELEASED_TARGETS_ANNOTATION = 'nudger.konflux-ci.dev/released-targets';

/** The `target=changegroup` pairs of a held-targets or released-targets annotation. */
export function targetPairsOf(annotation: string | undefined): Set<string> {
  return new Set((annotation ?? '').split(/\s+/).filter((pair) => pair !== ''));
}

/** The value Tekton v1 and v1beta1 both accept to cancel a run, including at creation. */
export const PIPELINERUN_CANCELLED = 'Cancelled';

/**
 * Does this ChangeGroup hold nudges from `source`? Only while collecting (Initialized, Waiting;
 * see COLLECTING_PHASES for why Ready does not). An empty list means every component nudging the
 * target: the nudge PipelineRun is itself evidence of that edge, and the controller has simply not
 * written the resolved list yet.
 */
export function holdsSource(changeGroup: ChangeGroupView, source: string): boolean {
  const phase = changeGroup.phase ?? 'Initialized';
  if (!isCollectingPhase(phase)) return false;
  return changeGroup.nudgingComponents.length === 0 || changeGroup.nudgingComponents.includes(source);
}

export function decideNudgeHold(nudge: NudgeToHold, changeGroups: readonly ChangeGroupView[]): HoldDecision {
  if (nudge.redispatched === true) return { action: 'leave' };
  // Name order makes the choice deterministic should two ChangeGroups ever claim the same pair
  // (the validating webhook forbids it, but it cannot forbid a race between two creates).
  const candidates = changeGroups
    .filter((cg) => cg.namespace === nudge.namespace && cg.nudgedComponent !== nudge.nudgingComponent)
    .filter((cg) => holdsSource(cg, nudge.nudgingComponent))
    .sort((a, b) => compareStrings(a.name, b.name));
  const targets = [...new Set(nudge.nudgedComponents)].sort();
  const coveredBy: HeldTarget[] = [];
  const uncovered: string[] = [];
  for (const target of targets) {
    const holder = candidates.find((cg) => cg.nudgedComponent === target);
    if (holder === undefined) uncovered.push(target);
    else coveredBy.push({ changeGroup: holder.name, target });
  }
  if (coveredBy.length === 0) return { action: 'leave' };
  return { action: 'cancel', coveredBy, uncovered, annotations: holdAnnotations(nudge, coveredBy, uncovered) };
}

/**
 * The annotations that record a hold: what the webhook and the sweeper write on a cancelled nudge
 * PipelineRun, and what nudger's dispatcher writes on the held-nudge record it creates instead of
 * firing (src/domain/nudge/dispatch-held-record.ts). The ChangeGroup controller reads these.
 */
export function holdAnnotations(
  nudge: NudgeToHold,
  coveredBy: readonly HeldTarget[],
  uncovered: readonly string[],
): Record<string, string> {
  const names = [...new Set(coveredBy.map((c) => c.changeGroup))];
  const targets = coveredBy.map((c) => c.target).join(', ');
  const reason =
    `cancelled by ChangeGroup ${names.join(', ')}: the nudge of ${targets} from ${nudge.nudgingComponent} ` +
    'is collected into the ChangeGroup pull request' +
    (uncovered.length === 0 ? '' : `; nudger re-dispatches ${uncovered.join(', ')}`);
  return {
    [HELD_BY_ANNOTATION]: names.join(','),
    [HELD_TARGETS_ANNOTATION]: coveredBy.map((c) => `${c.target}=${c.changeGroup}`).join(' '),
    [HOLD_REASON_ANNOTATION]: reason,
    ...(uncovered.length === 0 ? {} : { [REDISPATCH_ANNOTATION]: uncovered.join(' ') }),
  };
}

export type { JsonPatchOperation } from '../json-patch.ts';
export { escapeJsonPointerToken } from '../json-patch.ts';

/**
 * The RFC 6902 patch that applies `decision` to the (decoded) PipelineRun as admitted: `spec.status:
 * Cancelled` plus the annotations, creating `spec` or `metadata.annotations` if absent. Empty for
 * `leave`, so a webhook can always return it.
 */
export function cancelPatch(pipelineRun: PipelineRun, decision: HoldDecision): JsonPatchOperation[] {
  if (decision.action === 'leave') return [];
  const ops: JsonPatchOperation[] = [];
  const { spec, metadata } = pipelineRun;
  if (spec === undefined) ops.push({ op: 'add', path: '/spec', value: { status: PIPELINERUN_CANCELLED } });
  else ops.push({ op: 'status' in spec ? 'replace' : 'add', path: '/spec/status', value: PIPELINERUN_CANCELLED });
  if (metadata === undefined) {
    ops.push({ op: 'add', path: '/metadata', value: { annotations: { ...decision.annotations } } });
  } else if (metadata.annotations === undefined) {
    ops.push({ op: 'add', path: '/metadata/annotations', value: { ...decision.annotations } });
  } else {
    // `add` on an existing member replaces it (RFC 6902 4.1), so one op serves both cases.
    for (const [key, value] of Object.entries(decision.annotations)) {
      ops.push({ op: 'add', path: `/metadata/annotations/${escapeJsonPointerToken(key)}`, value });
    }
  }
  return ops;
}
