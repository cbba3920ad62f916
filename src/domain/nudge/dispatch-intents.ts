// What the dispatcher asks the controller to do (docs/decisions.md N18). The controller carries out
// the intents of one decision in order and stops at the first that fails; a crash anywhere leaves a
// prefix done, and the next decision, made from what is then observed, carries on from there.
import type { VerifiedBuild } from '../changegroup/verify-build.ts';
import type { HeldNudgeRecord } from './dispatch-held-record.ts';
import type { DISPATCH_FINALIZER, MarkerEntry } from './dispatch-marker.ts';

export const DISPATCH_EXECUTORS = ['direct', 'renovate'] as const;
export type DispatchExecutor = (typeof DISPATCH_EXECUTORS)[number];

/** Before any effect, unless the build is already being deleted (no finalizer can be added then). */
export interface AddFinalizerIntent {
  readonly kind: 'addFinalizer';
  readonly finalizer: typeof DISPATCH_FINALIZER;
}

/**
 * Put these entries into the marker (withEntries: same name replaced) and write the whole
 * annotation (serializeMarker). Empty entries on a build without a marker write `v1`: done,
 * nothing to nudge. Write it as a compare-and-swap on the resourceVersion the decision read (or the
 * one the controller's previous write returned), so a second replica's stale decision cannot land.
 */
export interface RecordOutcomesIntent {
  readonly kind: 'recordOutcomes';
  readonly entries: readonly MarkerEntry[];
}

/**
 * Create the held-nudge record (a PipelineRun: these labels and annotations, `spec.status:
 * Cancelled`). AlreadyExists means done. Always followed by the recordOutcomes that makes it final.
 */
export interface HoldIntent {
  readonly kind: 'hold';
  readonly target: string;
  readonly changeGroup: string;
  readonly record: HeldNudgeRecord;
}

/**
 * Nudge `target` with `build`'s digest, then call settleFire with the result and carry out what it
 * returns. Must be idempotent by `key`: after a crash between the effect and its record the same
 * intent comes again (docs/decisions.md N18).
 */
export interface FireIntent {
  readonly kind: 'fire';
  readonly target: string;
  readonly executor: DispatchExecutor;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** dispatchKey(build, target): stable across attempts, restarts and replicas. */
  readonly key: string;
  readonly build: VerifiedBuild;
}

export const DISPATCH_EVENT_REASONS = {
  /** build-service's reason, on the nudging Component. */
  nudged: 'ComponentNudged',
  /** build-service's reason, on the nudging Component: every failed attempt, and the last. */
  nudgeFailed: 'ComponentNudgeFailed',
  /** As the sweeper names a hold (src/controllers/nudge-sweeper.ts). */
  held: 'HeldByChangeGroup',
  skipped: 'NudgeSkipped',
  /** On the build PipelineRun: it failed D3 verification. */
  buildRejected: 'NudgeBuildRejected',
  /** On the build PipelineRun: its targets do not fit in the marker. */
  tooManyTargets: 'TooManyNudgeTargets',
} as const;
export type DispatchEventReason = (typeof DISPATCH_EVENT_REASONS)[keyof typeof DISPATCH_EVENT_REASONS];

/** An Event to record after the marker write before it; lost, never repeated, if the controller dies. */
export interface EventIntent {
  readonly kind: 'event';
  readonly regarding: { readonly kind: 'Component' | 'PipelineRun'; readonly name: string };
  readonly type: 'Normal' | 'Warning';
  readonly reason: DispatchEventReason;
  readonly message: string;
}

/**
 * An edge nudged from the NudgeConfig that a Component's build-nudges-ref still declares too, so
 * build-service nudges it as well (docs/decisions.md D9). Emitted with the build's first marker
 * write; the controller reports it once per edge (an Event on the NudgeConfig).
 */
export interface ReportIntent {
  readonly kind: 'report';
  readonly finding: 'duplicate-build-nudges-ref';
  readonly from: string;
  readonly to: string;
  readonly declaredAt: string;
}

/** After the write that made every entry final. */
export interface RemoveFinalizerIntent {
  readonly kind: 'removeFinalizer';
  readonly finalizer: typeof DISPATCH_FINALIZER;
}

/** Decide again after this long: a retry falls due. Not an effect; the controller requeues. */
export interface ScheduleRetryIntent {
  readonly kind: 'scheduleRetry';
  readonly afterMs: number;
}

export type DispatchIntent =
  | AddFinalizerIntent
  | RecordOutcomesIntent
  | HoldIntent
  | FireIntent
  | EventIntent
  | ReportIntent
  | RemoveFinalizerIntent
  | ScheduleRetryIntent;

/** The intents that change the cluster or a repository; the rest only tell. */
export const EFFECT_INTENT_KINDS: ReadonlySet<DispatchIntent['kind']> = new Set([
  'addFinalizer',
  'recordOutcomes',
  'hold',
  'fire',
  'removeFinalizer',
]);

export function isEffect(intent: DispatchIntent): boolean {
  return EFFECT_INTENT_KINDS.has(intent.kind);
}
