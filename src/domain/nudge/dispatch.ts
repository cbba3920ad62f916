// The dispatcher's decision (ADR 67 "Nudging Flow", docs/decisions.md D9 and N18), pure: from one
// build PipelineRun as observed (its done-marker and finalizer included), its D3 verification, the
// namespace's NudgeConfig graph, Components and ChangeGroups, and the time, compute what the
// controller should do next. Level-based like the ChangeGroup state machine (../changegroup/state.ts):
// the marker on the build is the only memory, every effect is preceded by a marker write that says
// it is under way (write-ahead), and the controller may die between any two intents; deciding again
// from what is then observed finishes the job without doing anything twice. Exactly once per
// (build, target): a target whose marker entry is final is never touched again (but for a hold its
// ChangeGroup released, fired once; docs/decisions.md N19); a fire whose result was lost in a
// crash is retried with the same idempotency key, which the executors honour.
import type { ChangeGroupView } from '../changegroup/hold-decision.ts';
import { decideNudgeHold } from '../changegroup/hold-decision.ts';
import type { BuildVerification, VerifiedBuild } from '../changegroup/verify-build.ts';
import type { NamespaceGraph } from '../graph.ts';
import { buildPipelineRunOf } from '../nudge-pipelinerun.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import { dispatchKey, heldNudgeRecord, type BuildIdentity } from './dispatch-held-record.ts';
import { hasReleasedHold, isReleasedHold } from './dispatch-release.ts';
import {
  DISPATCH_EVENT_REASONS,
  DISPATCH_EXECUTORS,
  type DispatchExecutor,
  type DispatchIntent,
  type EventIntent,
  type FireIntent,
  type ReportIntent,
} from './dispatch-intents.ts';
import {
  BUILD_ENTRY,
  DISPATCH_FINALIZER,
  DISPATCH_MARKER_ANNOTATION,
  MAX_MARKER_ATTEMPTS,
  MAX_REASON_LENGTH,
  isSettled,
  parseMarker,
  reasonToken,
  withEntries,
  type DispatchMarker,
  type MarkerEntry,
  type MarkerProblem,
  type TargetState,
} from './dispatch-marker.ts';
import {
  INTERRUPTED,
  INTERRUPTED_TEXT,
  SKIP_REASONS,
  buildSkippedMessage,
  failedMessage,
  heldMessage,
  nudgedMessage,
  skippedMessage,
  tooManyTargetsMessage,
  type MessageContext,
} from './dispatch-messages.ts';
import {
  DEFAULT_DISPATCH_POLICY,
  dispatchPolicyProblem,
  stateAfterFailure,
  type DispatchPolicy,
} from './dispatch-policy.ts';
import { duplicateLegacyEdges, hasImmediateEntry, immediateTargets } from './dispatch-targets.ts';

export { SKIP_REASONS, INTERRUPTED } from './dispatch-messages.ts';

/** integration-service's done-marker: set, it fired this build's NudgeConfig nudges itself (D9). */
export const INTEGRATION_SERVICE_PROCESSED_ANNOTATION = 'test.appstudio.openshift.io/component-nudge-processed';

/**
 * The marker's share of the build's annotations (256 KiB in all, PaC's and build-service's
 * included). Planned against the longest each entry can become, so a plan that fits never outgrows
 * it: at least 460 targets, more than upstream admits in a whole NudgeConfig (360 entries).
 */
export const MARKER_MAX_LENGTH = 150_000;
/** `=` plus the longest state: `holding:` and a 253-character ChangeGroup name. */
const WORST_STATE_LENGTH =
  1 +
  Math.max(
    'holding:'.length + 253,
    `retry:${String(MAX_MARKER_ATTEMPTS)}:20250115T100000Z:`.length + MAX_REASON_LENGTH,
  );

/** Everything the decision reads, all observed: the caller does the I/O. */
export interface DispatchInput {
  /** The build PipelineRun as decoded from the cache: labels, annotations, finalizers, status. */
  readonly build: PipelineRun;
  /**
   * D3 of this build (verifyDispatchBuild). Required once the build has `Succeeded=True`, when
   * nothing may be fired without it; not read before.
   */
  readonly verification?: BuildVerification;
  /** The namespace has its NudgeConfig (`nudge-config`, either served version). */
  readonly hasNudgeConfig: boolean;
  /**
   * That NudgeConfig's `metadata.creationTimestamp`. A build nudger never touched that finished
   * before it was build-service's to nudge, and is left alone (docs/decisions.md N25).
   */
  readonly nudgeConfigCreatedAt?: string;
  /** The namespace's graph (src/cluster/nudge-graph.ts): NudgeConfig entries and build-nudges-ref. */
  readonly graph: NamespaceGraph;
  /** The namespace's executor: NudgeConfig annotation, else the manager's default. */
  readonly executor: DispatchExecutor;
  /** Names of the namespace's Components. */
  readonly components: ReadonlySet<string>;
  /** The namespace's ChangeGroups, for the D2 decision (the one the webhook and sweeper ask). */
  readonly changeGroups: readonly ChangeGroupView[];
  /**
   * A newer push build of the same component that succeeded and passed D3, if there is one: its
   * nudges carry a newer digest, so what this build has not fired yet is skipped (build-service
   * marks such older builds nudged too).
   */
  readonly supersededBy?: string;
  /**
   * This build's held targets whose ChangeGroup has released the held-nudge record, target ->
   * that ChangeGroup (releasedHolds in dispatch-release.ts, from the namespace's nudge
   * PipelineRuns). An entry `held:<that changegroup>` is then fired like a first attempt, without
   * asking D2 again, as a released copy of a nudge PipelineRun is never held again
   * (docs/decisions.md N19).
   */
  readonly releasedHolds?: ReadonlyMap<string, string>;
  /**
   * Pre-merge nudges (docs/decisions.md D11, N35) of this build's component: `absorbed`, the
   * targets whose pre-merge nudge PR pins this build (it built a merged trigger's merge commit), so
   * no separate post-merge nudge is opened for them; `waitUntil`, while a trigger of the component
   * is still open on record and may turn out to be what this build merged, the first decision on
   * the build waits until then (ms) for the pre-merge controller to ask the forge.
   */
  readonly preMerge?: { readonly absorbed: ReadonlySet<string>; readonly waitUntil?: number };
  /** Milliseconds since the epoch. */
  readonly now: number;
  readonly policy?: DispatchPolicy;
}

export interface DispatchDecision {
  readonly intents: readonly DispatchIntent[];
  /**
   * The marker cannot be read. Then nothing is fired and nothing written: the marker may record
   * fired targets, and reading it as empty would fire them again. The controller reports this
   * (an Event on the build, once per resourceVersion). See docs/decisions.md N18.
   */
  readonly problem?: MarkerProblem;
}

/** The caller broke the input contract (a programming error, not a cluster state). */
export class DispatchInputError extends Error {
  readonly field: string;
  constructor(build: string, field: string, reason: string) {
    super(`dispatch of build PipelineRun ${build}: ${field} ${reason}`);
    this.name = 'DispatchInputError';
    this.field = field;
  }
}

const ADD_FINALIZER = { kind: 'addFinalizer', finalizer: DISPATCH_FINALIZER } as const;
const REMOVE_FINALIZER = { kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER } as const;
const NOTHING: DispatchDecision = { intents: [] };

interface Context {
  readonly input: DispatchInput;
  readonly policy: DispatchPolicy;
  readonly build: BuildIdentity;
  readonly component: string;
  readonly marker: DispatchMarker | undefined;
  readonly hasFinalizer: boolean;
  readonly deleting: boolean;
  readonly verified: VerifiedBuild | undefined;
  readonly messages: MessageContext;
}

/** What one decision changes; turned into intents, in a fixed order, by act(). */
interface Pass {
  /** Marker entries to write first, by name (a later change of the same name replaces it). */
  readonly changes: Map<string, TargetState>;
  /** Events and reports, told after that write. */
  readonly notices: (EventIntent | ReportIntent)[];
  readonly holds: { readonly target: string; readonly changeGroup: string }[];
  /**
   * Targets to fire or hold now, with the attempt it would be. `released`: a hold its ChangeGroup
   * gave back, fired without asking D2 again.
   */
  readonly due: { readonly target: string; readonly attempt: number; readonly released?: true }[];
}

function newPass(): Pass {
  return { changes: new Map(), notices: [], holds: [], due: [] };
}

function componentEvent(
  ctx: Context,
  type: EventIntent['type'],
  reason: EventIntent['reason'],
  message: string,
): EventIntent {
  return { kind: 'event', regarding: { kind: 'Component', name: ctx.component }, type, reason, message };
}

function buildEvent(ctx: Context, reason: EventIntent['reason'], message: string): EventIntent {
  return { kind: 'event', regarding: { kind: 'PipelineRun', name: ctx.build.name }, type: 'Warning', reason, message };
}

export function decideDispatch(input: DispatchInput): DispatchDecision {
  const run = buildPipelineRunOf(input.build);
  const view = run.pipelineRun;
  const where = `${view.namespace}/${view.name}`;
  const policy = input.policy ?? DEFAULT_DISPATCH_POLICY;
  const policyProblem = dispatchPolicyProblem(policy);
  if (policyProblem !== undefined) throw new DispatchInputError(where, 'policy', policyProblem);
  if (!DISPATCH_EXECUTORS.includes(input.executor)) {
    throw new DispatchInputError(where, 'executor', `must be one of ${DISPATCH_EXECUTORS.join(', ')}`);
  }
  const metadata = input.build.metadata ?? {};
  const hasFinalizer = (metadata.finalizers ?? []).includes(DISPATCH_FINALIZER);
  const deleting = metadata.deletionTimestamp !== undefined;
  const release: DispatchDecision = hasFinalizer ? { intents: [REMOVE_FINALIZER] } : NOTHING;

  const text = view.annotations[DISPATCH_MARKER_ANNOTATION];
  const reading = text === undefined ? undefined : parseMarker(text);
  if (reading?.ok === false) {
    // Held back while the build stays, so a human can repair the marker; never blocks a deletion.
    return { intents: deleting && hasFinalizer ? [REMOVE_FINALIZER] : [], problem: reading.problem };
  }
  const marker = reading?.marker;
  // Not a component's push build: not nudged from, by anyone.
  if (run.component === undefined || run.eventType !== 'push') return release;
  if (marker !== undefined && isDone(marker, input.releasedHolds)) return release;

  const verified = input.verification?.ok === true ? input.verification : undefined;
  if (verified !== undefined && verified.pipelineRun !== view.name) {
    throw new DispatchInputError(where, 'verification', `is of another build (${verified.pipelineRun})`);
  }
  const build: BuildIdentity = {
    namespace: view.namespace,
    name: view.name,
    ...(view.uid === undefined ? {} : { uid: view.uid }),
  };
  const ctx: Context = {
    input,
    policy,
    build,
    component: run.component,
    marker,
    hasFinalizer,
    deleting,
    verified,
    messages: {
      build: view.name,
      component: run.component,
      ...(input.supersededBy === undefined ? {} : { supersededBy: input.supersededBy }),
    },
  };
  // Namespaces without a NudgeConfig are build-service's; a build begun under one is finished.
  if (!input.hasNudgeConfig) {
    return marker === undefined && !hasFinalizer ? NOTHING : close(ctx, SKIP_REASONS.nudgeConfigRemoved);
  }
  const targets = immediateTargets(input.graph, ctx.component);
  const untouched = marker === undefined && !hasFinalizer;

  if (run.succeeded !== 'True' && run.succeeded !== 'False') {
    if (deleting) return untouched ? NOTHING : close(ctx, SKIP_REASONS.deletedUnfinished);
    // build-service's rule: the finalizer goes on while the build runs, so pruning the finished
    // run before nudger has seen it cannot lose a nudge.
    const wanted = targets.length > 0 || marker !== undefined;
    return !hasFinalizer && wanted ? { intents: [ADD_FINALIZER] } : NOTHING;
  }
  if (run.succeeded === 'False') {
    return untouched && targets.length === 0 ? NOTHING : close(ctx, SKIP_REASONS.notSucceeded);
  }
  const verification = input.verification;
  if (verification === undefined) {
    throw new DispatchInputError(where, 'verification', 'is required once the build has Succeeded=True');
  }
  if (!verification.ok) {
    if (untouched && targets.length === 0) return NOTHING;
    return close(ctx, verification.reason, buildEvent(ctx, DISPATCH_EVENT_REASONS.buildRejected, verification.message));
  }
  if (marker !== undefined) return advance(ctx, marker);
  if (untouched && finishedBefore(input.build, input.nudgeConfigCreatedAt)) return NOTHING;
  if (targets.length > 0) {
    // Recorded on the build, not told: in a namespace integration-service nudges, that is every
    // build, and an Event each time said nothing the marker does not (docs/decisions.md N49).
    if (view.annotations[INTEGRATION_SERVICE_PROCESSED_ANNOTATION] !== undefined) {
      return close(ctx, SKIP_REASONS.integrationService);
    }
    if (input.supersededBy !== undefined) {
      const reason = SKIP_REASONS.superseded;
      return close(
        ctx,
        reason,
        componentEvent(ctx, 'Normal', DISPATCH_EVENT_REASONS.skipped, buildSkippedMessage(ctx.messages, reason)),
      );
    }
  }
  // No marker yet (a marker is advanced above): nothing is planned while the wait lasts, and the
  // finalizer keeps the build from being pruned meanwhile.
  const waitUntil = input.preMerge?.waitUntil;
  if (targets.length > 0 && waitUntil !== undefined && waitUntil > input.now) {
    const retry = { kind: 'scheduleRetry', afterMs: waitUntil - input.now } as const;
    return { intents: hasFinalizer ? [retry] : [ADD_FINALIZER, retry] };
  }
  return plan(ctx, targets);
}

/**
 * When the build finished (Tekton's `completionTime`, else when its Succeeded condition last
 * changed), strictly before `instant`; false when either is unknown or unreadable, so a build is
 * never left alone on a guess. Both have second precision: a build finished in the NudgeConfig's
 * own second is nudged.
 */
export function finishedBefore(build: PipelineRun, instant: string | undefined): boolean {
  if (instant === undefined) return false;
  const status = build.status;
  const finished =
    status?.completionTime ?? status?.conditions?.find((c) => c.type === 'Succeeded')?.lastTransitionTime;
  if (finished === undefined) return false;
  const finishedMs = Date.parse(finished);
  const instantMs = Date.parse(instant);
  return Number.isFinite(finishedMs) && Number.isFinite(instantMs) && finishedMs < instantMs;
}

/** Nothing left to do: every entry final, and no hold released since (docs/decisions.md N19). */
function isDone(marker: DispatchMarker, released: ReadonlyMap<string, string> | undefined): boolean {
  return isSettled(marker) && !hasReleasedHold(marker, released);
}

/**
 * After a write that leaves `marker`, may the same write take the finalizer off? Yes when every
 * entry is final and none is `held` (docs/decisions.md N49): then no later decision can fire
 * from the build, whatever the caches say about released holds, and the next decision would only
 * remove the finalizer (decideDispatch's release). A `held` entry may be released into a fire
 * (N19), which needs the build kept, so it is left to that decision.
 */
export function releasesFinalizer(marker: DispatchMarker): boolean {
  return isSettled(marker) && marker.entries.every(({ state }) => state.kind !== 'held');
}

/** The worst-case length of a marker naming `targets`. */
export function plannedMarkerLength(targets: readonly string[]): number {
  return targets.reduce((sum, target) => sum + 1 + target.length + WORST_STATE_LENGTH, 'v1'.length);
}

/** The first decision on a verified build: every target gets an entry in one write. */
function plan(ctx: Context, targets: readonly string[]): DispatchDecision {
  if (plannedMarkerLength(targets) > MARKER_MAX_LENGTH) {
    const message = tooManyTargetsMessage(ctx.messages, targets.length, MARKER_MAX_LENGTH);
    return close(ctx, SKIP_REASONS.tooManyTargets, buildEvent(ctx, DISPATCH_EVENT_REASONS.tooManyTargets, message));
  }
  const pass = newPass();
  for (const target of targets) {
    if (target === ctx.component) skip(ctx, pass, target, SKIP_REASONS.selfNudge);
    else if (!ctx.input.components.has(target)) skip(ctx, pass, target, SKIP_REASONS.targetNotFound);
    else if (ctx.input.preMerge?.absorbed.has(target) === true) skip(ctx, pass, target, SKIP_REASONS.preMerge);
    else pass.due.push({ target, attempt: 1 });
  }
  const nudged = pass.due.map((d) => d.target);
  for (const duplicate of duplicateLegacyEdges(ctx.input.graph, ctx.component, nudged)) {
    pass.notices.push({ kind: 'report', finding: 'duplicate-build-nudges-ref', ...duplicate });
  }
  return act(ctx, pass);
}

function skip(ctx: Context, pass: Pass, target: string, reason: string): void {
  pass.changes.set(target, { kind: 'skipped', reason });
  const message = skippedMessage(ctx.messages, target, reason);
  pass.notices.push(componentEvent(ctx, 'Normal', DISPATCH_EVENT_REASONS.skipped, message));
}

/** Nothing more is fired from this build: what is pending is skipped for `reason`. */
function close(ctx: Context, reason: string, notice?: EventIntent): DispatchDecision {
  if (ctx.marker !== undefined) return advance(ctx, ctx.marker, { reason, notice });
  const pass = newPass();
  pass.changes.set(BUILD_ENTRY, { kind: 'skipped', reason });
  if (notice !== undefined) pass.notices.push(notice);
  return act(ctx, pass);
}

function failureEvent(
  ctx: Context,
  target: string,
  attempt: number,
  next: Extract<TargetState, { kind: 'retry' | 'failed' }>,
  message: string,
): EventIntent {
  return componentEvent(
    ctx,
    'Warning',
    DISPATCH_EVENT_REASONS.nudgeFailed,
    failedMessage(ctx.messages, {
      target,
      attempt,
      maxAttempts: ctx.policy.maxAttempts,
      reason: next.reason,
      message,
      notBefore: next.kind === 'retry' ? next.notBefore : undefined,
    }),
  );
}

/** Why a pending target must not be fired any more, or undefined. */
function invalidation(ctx: Context, target: string): string | undefined {
  if (!hasImmediateEntry(ctx.input.graph, ctx.component, target)) return SKIP_REASONS.entryRemoved;
  if (!ctx.input.components.has(target)) return SKIP_REASONS.targetNotFound;
  if (ctx.input.supersededBy !== undefined) return SKIP_REASONS.superseded;
  return undefined;
}

interface Closing {
  readonly reason: string;
  readonly notice: EventIntent | undefined;
}

/** Later decisions: finish holds, account for interrupted attempts, retry what is due. */
function advance(ctx: Context, marker: DispatchMarker, closing?: Closing): DispatchDecision {
  const pass = newPass();
  for (const { name, state } of marker.entries) advanceEntry(ctx, pass, name, state, closing);
  if (closing?.notice !== undefined && (pass.changes.size > 0 || pass.holds.length > 0)) {
    pass.notices.unshift(closing.notice);
  }
  return act(ctx, pass);
}

function advanceEntry(ctx: Context, pass: Pass, name: string, state: TargetState, closing: Closing | undefined): void {
  const { policy, input } = ctx;
  switch (state.kind) {
    case 'holding':
      // Completed whatever the D2 decision says now: the record may already exist.
      pass.holds.push({ target: name, changeGroup: state.changeGroup });
      return;
    case 'firing': {
      // Started and never recorded: nudger died or lost its lease during the attempt. It counts
      // as a failure, so a fire that kills the process cannot be retried forever.
      const next =
        closing === undefined
          ? stateAfterFailure(policy, state.attempt, INTERRUPTED, input.now)
          : ({ kind: 'failed', reason: INTERRUPTED } as const);
      pass.notices.push(failureEvent(ctx, name, state.attempt, next, INTERRUPTED_TEXT));
      if (closing !== undefined) {
        skip(ctx, pass, name, closing.reason);
        return;
      }
      pass.changes.set(name, next);
      if (next.kind === 'retry') advanceEntry(ctx, pass, name, next, closing);
      return;
    }
    case 'retry': {
      const reason = closing?.reason ?? invalidation(ctx, name);
      if (reason !== undefined) skip(ctx, pass, name, reason);
      else if (state.failures >= policy.maxAttempts) {
        // The policy was lowered since: this target has had its attempts.
        const next = { kind: 'failed', reason: state.reason } as const;
        pass.changes.set(name, next);
        pass.notices.push(failureEvent(ctx, name, state.failures, next, 'no attempts left under the current policy'));
      } else if (state.notBefore <= input.now) pass.due.push({ target: name, attempt: state.failures + 1 });
      return;
    }
    case 'held': {
      // Final, unless its ChangeGroup released the record: then the target is nudged after all,
      // once; the `firing` written before the fire keeps this from happening twice.
      if (!isReleasedHold(name, state, input.releasedHolds)) return;
      const reason = closing?.reason ?? invalidation(ctx, name);
      if (reason !== undefined) skip(ctx, pass, name, reason);
      else pass.due.push({ target: name, attempt: 1, released: true });
      return;
    }
    default:
      return; // final
  }
}

/** The pass as intents: finalizer, one marker write, notices, holds, fires, then release or wait. */
function act(ctx: Context, pass: Pass): DispatchDecision {
  const fires = decideDue(ctx, pass);
  const changes = [...pass.changes].map(([name, state]): MarkerEntry => ({ name, state }));
  const written = withEntries(ctx.marker, changes);
  const heldEntries = pass.holds.map(({ target, changeGroup }): MarkerEntry => ({
    name: target,
    state: { kind: 'held', changeGroup },
  }));
  const after = withEntries(written, heldEntries);

  const intents: DispatchIntent[] = [];
  const released = ctx.input.releasedHolds;
  const addFinalizer = !ctx.hasFinalizer && !ctx.deleting && !isDone(written, released);
  if (addFinalizer) intents.push(ADD_FINALIZER);
  if (changes.length > 0 || ctx.marker === undefined) {
    intents.push({ kind: 'recordOutcomes', entries: written.entries.filter((e) => pass.changes.has(e.name)) });
  }
  intents.push(...pass.notices);
  for (const [index, { target, changeGroup }] of pass.holds.entries()) {
    const record = heldNudgeRecord(ctx.build, ctx.component, target, changeGroup, ctx.verified?.imageUrl);
    intents.push({ kind: 'hold', target, changeGroup, record });
    intents.push({ kind: 'recordOutcomes', entries: heldEntries.slice(index, index + 1) });
    const message = heldMessage(ctx.messages, target, changeGroup, record.name);
    intents.push(componentEvent(ctx, 'Normal', DISPATCH_EVENT_REASONS.held, message));
  }
  intents.push(...fires);
  if (fires.length === 0 && (ctx.hasFinalizer || addFinalizer) && isDone(after, released)) {
    intents.push(REMOVE_FINALIZER);
  }
  const waits = after.entries.flatMap(({ state }) => (state.kind === 'retry' ? [state.notBefore] : []));
  if (waits.length > 0)
    intents.push({ kind: 'scheduleRetry', afterMs: Math.max(0, Math.min(...waits) - ctx.input.now) });
  return { intents };
}

/**
 * The D2 decision for every target due its first attempt, asked at once and exactly as the webhook
 * asks it: a held target becomes `holding` (and a hold), any other `firing` (and a fire). Asked
 * once per (build, target): a later attempt is not asked again, because an attempt that failed or
 * was interrupted may still have reached the forge, and a target must never be both fired and held
 * (docs/decisions.md N18).
 */
function decideDue(ctx: Context, pass: Pass): FireIntent[] {
  const verified = ctx.verified;
  if (pass.due.length === 0 || verified === undefined) return [];
  const first = pass.due.filter((d) => d.attempt === 1 && d.released !== true).map((d) => d.target);
  const decision = decideNudgeHold(
    { namespace: ctx.build.namespace, nudgingComponent: ctx.component, nudgedComponents: first },
    ctx.input.changeGroups,
  );
  const heldBy = new Map(decision.action === 'cancel' ? decision.coveredBy.map((c) => [c.target, c.changeGroup]) : []);
  const startedAt = Math.floor(ctx.input.now / 1000) * 1000;
  const fires: FireIntent[] = [];
  for (const { target, attempt } of pass.due) {
    const changeGroup = heldBy.get(target);
    if (changeGroup !== undefined) {
      pass.changes.set(target, { kind: 'holding', changeGroup });
      pass.holds.push({ target, changeGroup });
      continue;
    }
    pass.changes.set(target, { kind: 'firing', attempt, startedAt });
    fires.push({
      kind: 'fire',
      target,
      executor: ctx.input.executor,
      attempt,
      key: dispatchKey(ctx.build, target),
      build: verified,
    });
  }
  return fires;
}

/** What an executor reports for one fire intent. */
export type FireResult =
  | {
      readonly ok: true;
      /** Where it went, for the Event: the pull request URL, or the nudge PipelineRun's name. */
      readonly detail?: string;
    }
  | {
      readonly ok: false;
      /** A classification, written to the marker as a token (reasonToken), e.g. `forge-unavailable`. */
      readonly reason: string;
      /** For the Event: already free of secrets (redacted error text). */
      readonly message: string;
      /** Retrying cannot help (no credentials, repository gone): end now with `failed`. */
      readonly permanent?: boolean;
    };

/**
 * After a fire: the marker entry that records its result and the Event build-service would give
 * (ComponentNudged, or ComponentNudgeFailed with the attempt count). The controller carries these
 * out, then decides again, which removes the finalizer once every target is final.
 */
export function settleFire(
  fire: FireIntent,
  result: FireResult,
  now: number,
  policy: DispatchPolicy = DEFAULT_DISPATCH_POLICY,
): DispatchIntent[] {
  const messages: MessageContext = { build: fire.build.pipelineRun, component: fire.build.component };
  const event = (type: EventIntent['type'], reason: EventIntent['reason'], message: string): EventIntent => ({
    kind: 'event',
    regarding: { kind: 'Component', name: fire.build.component },
    type,
    reason,
    message,
  });
  if (result.ok) {
    return [
      { kind: 'recordOutcomes', entries: [{ name: fire.target, state: { kind: 'pullRequest' } }] },
      event(
        'Normal',
        DISPATCH_EVENT_REASONS.nudged,
        nudgedMessage(messages, fire.target, fire.build.pullSpec, fire.executor, result.detail),
      ),
    ];
  }
  const reason = reasonToken(result.reason);
  const next = stateAfterFailure(policy, fire.attempt, reason, now, result.permanent === true);
  const facts = {
    target: fire.target,
    attempt: fire.attempt,
    maxAttempts: policy.maxAttempts,
    reason,
    message: result.message,
    notBefore: next.kind === 'retry' ? next.notBefore : undefined,
  };
  return [
    { kind: 'recordOutcomes', entries: [{ name: fire.target, state: next }] },
    event('Warning', DISPATCH_EVENT_REASONS.nudgeFailed, failedMessage(messages, facts)),
  ];
}
