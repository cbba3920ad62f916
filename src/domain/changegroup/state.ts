// The ChangeGroup state machine (ADR 59, docs/decisions.md D3-D5), pure: from the ChangeGroup, what was
// observed (verified builds, the pull request) and the time, compute the next status and what the
// controller should do. It is level-based: the same inputs always give the same answer, builds may
// be offered again and again in any order, and intents are "make it so" requests that the executor
// carries out idempotently and then confirms with the record* functions below. Status only ever
// records what was confirmed, so a controller killed between an action and its status write
// recomputes the same intent, finds the action already done, and converges (D5).
import type { Condition } from '../../schema/common.ts';
import type {
  ChangeGroupComponentStatus,
  ChangeGroupSpec,
  ChangeGroupStatus,
  PullRequestStatus,
  PushedBuild,
} from '../../schema/changegroup.ts';
import { parseTimeout } from './duration.ts';
import { fingerprint } from './fingerprint.ts';
import {
  ALL_COMPONENTS_READY_REASONS,
  BUILDS_VERIFIED_REASONS,
  CONDITION_ALL_COMPONENTS_READY,
  CONDITION_BUILDS_VERIFIED,
  CONDITION_FORGE_AVAILABLE,
  CONDITION_MANUAL_CHANGES_DETECTED,
  DEFAULT_SKIP_CI_MODE,
  FORGE_AVAILABLE_REASONS,
  hasCollectedBuild,
  MANUAL_CHANGES_REASONS,
  isCollectingPhase,
  isTerminalPhase,
  type ChangeGroupPhase,
  type ForgeAvailableReason,
} from './model.ts';
import type { VerifiedBuild } from './verify-build.ts';
import { compareStrings } from '../compare.ts';
import { mergeCondition } from '../conditions.ts';

/** A build the controller verified (D3) from a nudge this ChangeGroup holds. */
export type CollectedBuild = Pick<
  VerifiedBuild,
  'component' | 'digest' | 'pullSpec' | 'pipelineRun' | 'createdAt' | 'nudgeFiles'
> & {
  /** The held nudge PipelineRun that offered this build: what a re-dispatch copies and marks. */
  readonly nudgePipelineRun?: string;
};

/** A held nudge whose build failed verification: reported, never used. */
export interface RejectedBuild {
  readonly component: string;
  /** The nudge PipelineRun. */
  readonly pipelineRun: string;
  readonly reason: string;
  readonly message: string;
}

/**
 * The pull request as the forge shows it now. It is this ChangeGroup's PR: the one numbered in
 * status.pullRequest if recorded, else an open PR whose head is the ChangeGroup branch. A closed
 * or merged PR only counts once recorded, so a stale PR of a deleted namesake cannot end a new one.
 */
export type PullRequestObservation =
  | { readonly state: 'none' }
  | {
      readonly state: 'open';
      readonly draft: boolean;
      /** Commits not made by nudger on the branch, or edits outside the managed description block. */
      readonly manualChanges: boolean;
      /** The "rebase: discard manual changes" box is ticked. */
      readonly rebaseRequested: boolean;
      /** The "build now" box is ticked, or (description mode) a human removed `[skip ci]`. */
      readonly buildNowRequested: boolean;
    }
  | { readonly state: 'merged' }
  | { readonly state: 'closed' };

export interface ChangeGroupReconcileInput {
  readonly changeGroup: {
    readonly metadata: { readonly name: string; readonly namespace: string; readonly generation?: number };
    readonly spec: ChangeGroupSpec;
    readonly status?: ChangeGroupStatus;
  };
  readonly now: Date;
  /** Every component with a nudge edge to spec.nudgedComponent; used when the spec lists none. */
  readonly graphNudgingComponents: readonly string[];
  /** Digest of each nudging Component's status.lastPromotedImage, where it has one. */
  readonly originalBuilds: Readonly<Record<string, string>>;
  /** Verified builds of held nudges; repeats, stale and out-of-order entries are all fine. */
  readonly builds: readonly CollectedBuild[];
  readonly rejectedBuilds?: readonly RejectedBuild[];
  readonly pullRequest: PullRequestObservation;
}

/** One digest the pull request's single commit writes. */
export interface PullRequestBuild {
  readonly name: string;
  readonly digest: string;
  readonly pullSpec: string;
}

export interface EnsurePullRequestIntent {
  readonly kind: 'ensurePullRequest';
  /** Exactly these digests on top of the base, nothing else (removed components fall back to base). */
  readonly builds: readonly PullRequestBuild[];
  /** The last push: no `[skip ci]` in the commit (or the description, in description mode). */
  readonly final: boolean;
  /** Open the PR as a draft; a final PR is opened ready for review. */
  readonly draft: boolean;
  /** The rebase box was ticked: overwrite the branch even though a human changed it. */
  readonly discardManualChanges: boolean;
  readonly skipCi: NonNullable<ChangeGroupSpec['skipCi']>;
  /** The description to render corresponds to this; store it with recordPullRequestPush. */
  readonly descriptionFingerprint: string;
}

export type ChangeGroupIntent =
  /** ADR 59: an empty spec list is filled with every component nudging the target. */
  | { readonly kind: 'fillNudgingComponents'; readonly names: readonly string[] }
  | EnsurePullRequestIntent
  /**
   * Leave draft. Emitted just before a final push, while the head still carries `[skip ci]`, so
   * that the ready-for-review event builds nothing and the final push is the one build.
   */
  | { readonly kind: 'markReadyForReview' }
  /** Refresh the managed block only (pushes paused by manual changes, or the timeout notice). */
  | { readonly kind: 'updateDescription'; readonly descriptionFingerprint: string }
  /**
   * A nudge this ChangeGroup held but can no longer use (its component was removed from the spec,
   * or the build arrived after the ChangeGroup stopped collecting): nudge it the ordinary way, then
   * mark the nudge PipelineRun so it is not offered again.
   */
  | { readonly kind: 'redispatchNudge'; readonly component: string; readonly pipelineRun: string };

export interface ChangeGroupReconcileResult {
  readonly status: ChangeGroupStatus;
  readonly intents: readonly ChangeGroupIntent[];
}

/** Kubernetes timestamps: RFC 3339, whole seconds, `Z`. */
export function toKubernetesTime(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function byName<T extends { readonly name: string }>(a: T, b: T): number {
  return compareStrings(a.name, b.name);
}

function timeOf(text: string | undefined): number {
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/** Build order: creation time, then PipelineRun name so that equal times still order totally. */
function compareBuilds(
  a: { readonly time?: string; readonly run?: string },
  b: { readonly time?: string; readonly run?: string },
): number {
  const dt = timeOf(a.time) - timeOf(b.time);
  if (dt !== 0 && !Number.isNaN(dt)) return dt;
  const ra = a.run ?? '';
  const rb = b.run ?? '';
  return compareStrings(ra, rb);
}

/** True when `build` is newer than what `entry` holds (or `entry` holds nothing yet). */
function isNewer(build: CollectedBuild, entry: ChangeGroupComponentStatus | undefined): boolean {
  if (entry?.newBuild === undefined) return true;
  return (
    compareBuilds(
      { time: build.createdAt, run: build.pipelineRun },
      { time: entry.newBuildTime, run: entry.buildPipelineRun },
    ) > 0
  );
}

/** The nudging components in force: the spec's, else the graph's (never the target itself). */
export function resolveNudgingComponents(spec: ChangeGroupSpec, graph: readonly string[]): string[] {
  const listed = (spec.nudgingComponents ?? []).map((c) => c.name);
  const names = listed.length > 0 ? listed : graph;
  return [...new Set(names)].filter((n) => n !== spec.nudgedComponent).sort();
}

function updateComponents(
  previous: readonly ChangeGroupComponentStatus[],
  names: readonly string[],
  originalBuilds: Readonly<Record<string, string>>,
  builds: readonly CollectedBuild[],
  collecting: boolean,
  now: string,
): ChangeGroupComponentStatus[] {
  const byComponent = new Map(previous.map((c) => [c.name, c]));
  return names.map((name) => {
    const original = originalBuilds[name];
    let entry: ChangeGroupComponentStatus = byComponent.get(name) ?? {
      name,
      state: 'Waiting',
      ...(original === undefined ? {} : { originalBuild: original }),
    };
    if (!collecting) return entry;
    for (const build of builds) {
      if (build.component !== name || !isNewer(build, entry)) continue;
      entry = {
        ...entry,
        state: 'Ready',
        newBuild: build.digest,
        newBuildPullSpec: build.pullSpec,
        ...(build.createdAt === undefined ? {} : { newBuildTime: build.createdAt }),
        lastUpdateTime: now,
        buildPipelineRun: build.pipelineRun,
      };
    }
    return entry;
  });
}

/** Builds this ChangeGroup holds but will not use. Each nudge PipelineRun once, in name order. */
function buildsToRedispatch(
  builds: readonly CollectedBuild[],
  components: readonly ChangeGroupComponentStatus[],
  collecting: boolean,
): ChangeGroupIntent[] {
  const entries = new Map(components.map((c) => [c.name, c]));
  const seen = new Set<string>();
  const out: { kind: 'redispatchNudge'; component: string; pipelineRun: string }[] = [];
  for (const build of builds) {
    const entry = entries.get(build.component);
    const unused = entry === undefined || (!collecting && isNewer(build, entry));
    const nudge = build.nudgePipelineRun ?? build.pipelineRun;
    const key = `${build.component}/${nudge}`;
    if (!unused || seen.has(key)) continue;
    seen.add(key);
    out.push({ kind: 'redispatchNudge', component: build.component, pipelineRun: nudge });
  }
  return out.sort((a, b) => compareStrings(a.pipelineRun, b.pipelineRun));
}

const MAX_NAMES_IN_MESSAGE = 10;

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMES_IN_MESSAGE).join(', ');
  const more = names.length - MAX_NAMES_IN_MESSAGE;
  return more > 0 ? `${shown} and ${String(more)} more` : shown;
}

function plural(n: number, word: string): string {
  return `${String(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** metav1 SetStatusCondition (mergeCondition), kept in type order so the status reads the same every time. */
function setCondition(
  conditions: readonly Condition[],
  next: Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>,
  now: string,
  generation: number | undefined,
): Condition[] {
  return mergeCondition(conditions, next, now, generation).sort((a, b) => compareStrings(a.type, b.type));
}

function readinessCondition(
  phase: ChangeGroupPhase,
  components: readonly ChangeGroupComponentStatus[],
  nudgedComponent: string,
): Omit<Condition, 'lastTransitionTime' | 'observedGeneration'> {
  const type = CONDITION_ALL_COMPONENTS_READY;
  const waiting = components.filter((c) => !hasCollectedBuild(c.state)).map((c) => c.name);
  const notReferenced = components.filter((c) => c.state === 'NotReferenced').map((c) => c.name);
  if (components.length === 0) {
    return {
      type,
      status: 'False',
      reason: ALL_COMPONENTS_READY_REASONS.noNudgingComponents,
      message: `No component nudges ${nudgedComponent}`,
    };
  }
  if (waiting.length === 0 && notReferenced.length > 0) {
    return {
      type,
      status: 'True',
      reason: ALL_COMPONENTS_READY_REASONS.readyNotReferenced,
      message: `All ${plural(components.length, 'component')} have a build; the repository of ${nudgedComponent} references no digest of ${listNames(notReferenced)}`,
    };
  }
  if (waiting.length === 0) {
    return {
      type,
      status: 'True',
      reason: ALL_COMPONENTS_READY_REASONS.ready,
      message: `All ${plural(components.length, 'component')} are ready`,
    };
  }
  if (phase === 'Failed') {
    return {
      type,
      status: 'False',
      reason: ALL_COMPONENTS_READY_REASONS.timedOut,
      message: `Timed out waiting for ${plural(waiting.length, 'component')}: ${listNames(waiting)}`,
    };
  }
  if (phase === 'Ready') {
    return {
      type,
      status: 'False',
      reason: ALL_COMPONENTS_READY_REASONS.releasedEarly,
      message: `Build requested with ${String(components.length - waiting.length)} of ${String(components.length)} components ready; not included: ${listNames(waiting)}`,
    };
  }
  return {
    type,
    status: 'False',
    reason: ALL_COMPONENTS_READY_REASONS.waiting,
    message: `Waiting for ${plural(waiting.length, 'component')}: ${listNames(waiting)}`,
  };
}

function sameBuilds(pushed: readonly PushedBuild[], wanted: readonly PullRequestBuild[]): boolean {
  if (pushed.length !== wanted.length) return false;
  const sorted = [...pushed].sort(byName);
  return wanted.every((w, i) => sorted[i]?.name === w.name && sorted[i].digest === w.digest);
}

/** What the managed block of the description shows; its fingerprint says whether it is stale. */
function descriptionFingerprint(
  phase: ChangeGroupPhase,
  skipCi: string,
  components: readonly ChangeGroupComponentStatus[],
  manualChanges: boolean,
): string {
  return fingerprint({
    phase,
    skipCi,
    manualChanges,
    components: components.map((c) => [c.name, c.state, c.originalBuild ?? '', c.newBuild ?? '']),
  });
}

function nextPhase(
  previous: ChangeGroupPhase,
  input: ChangeGroupReconcileInput,
  components: readonly ChangeGroupComponentStatus[],
): ChangeGroupPhase {
  const pr = input.pullRequest;
  const recorded = input.changeGroup.status?.pullRequest !== undefined;
  if (pr.state === 'merged' && recorded) return 'Completed';
  if (pr.state === 'closed' && recorded) return 'Cancelled';
  if (!isCollectingPhase(previous)) return previous;
  if (timedOut(input)) return 'Failed';
  const anyReady = components.some((c) => hasCollectedBuild(c.state));
  if (components.length > 0 && components.every((c) => hasCollectedBuild(c.state))) return 'Ready';
  if (pr.state === 'open' && pr.buildNowRequested && anyReady) return 'Ready';
  if (anyReady || pr.state === 'open') return 'Waiting';
  return previous;
}

function endsNow(input: ChangeGroupReconcileInput): boolean {
  const pr = input.pullRequest;
  const recorded = input.changeGroup.status?.pullRequest !== undefined;
  return ((pr.state === 'merged' || pr.state === 'closed') && recorded) || timedOut(input);
}

/**
 * The timeout only runs while collecting: it bounds the wait for components. Once Ready, the PR is
 * an ordinary PR in human hands, and failing it under them would help no one.
 */
function timedOut(input: ChangeGroupReconcileInput): boolean {
  const { spec, status } = input.changeGroup;
  if (spec.timeout === undefined || status?.startTime === undefined) return false;
  const parsed = parseTimeout(spec.timeout);
  if (!parsed.ok) return false;
  return input.now.getTime() >= timeOf(status.startTime) + parsed.milliseconds;
}

export function reconcileChangeGroup(input: ChangeGroupReconcileInput): ChangeGroupReconcileResult {
  const { metadata, spec } = input.changeGroup;
  const previous: ChangeGroupStatus = input.changeGroup.status ?? {};
  const previousPhase = previous.phase ?? 'Initialized';
  const now = toKubernetesTime(input.now);
  const skipCi = spec.skipCi ?? DEFAULT_SKIP_CI_MODE;
  const pr = input.pullRequest;

  if (isTerminalPhase(previousPhase)) return reconcileTerminal(input, previous, previousPhase, skipCi);

  const intents: ChangeGroupIntent[] = [];
  const names = resolveNudgingComponents(spec, input.graphNudgingComponents);
  if ((spec.nudgingComponents ?? []).length === 0 && names.length > 0) {
    intents.push({ kind: 'fillNudgingComponents', names });
  }
  // A build arriving in the same pass as the merge, the close or the timeout can no longer reach
  // the PR: it is left out of status and handed back (redispatchNudge) rather than silently lost.
  const collecting = isCollectingPhase(previousPhase) && !endsNow(input);
  const components = updateComponents(
    previous.components ?? [],
    names,
    input.originalBuilds,
    input.builds,
    collecting,
    now,
  );
  const phase = nextPhase(previousPhase, input, components);
  const ready = components.filter((c) => c.state === 'Ready');
  const manualChanges = pr.state === 'open' && pr.manualChanges && !pr.rebaseRequested;

  let conditions = setCondition(
    previous.conditions ?? [],
    readinessCondition(phase, components, spec.nudgedComponent),
    now,
    metadata.generation,
  );
  if (pr.state === 'open') {
    conditions = setCondition(
      conditions,
      manualChanges
        ? {
            type: CONDITION_MANUAL_CHANGES_DETECTED,
            status: 'True',
            reason: MANUAL_CHANGES_REASONS.detected,
            message:
              'The pull request was changed by someone other than nudger; automated pushes stop until the rebase box is ticked',
          }
        : {
            type: CONDITION_MANUAL_CHANGES_DETECTED,
            status: 'False',
            reason: MANUAL_CHANGES_REASONS.none,
            message: 'The pull request holds only what nudger pushed',
          },
      now,
      metadata.generation,
    );
  }
  const rejected = [...(input.rejectedBuilds ?? [])].sort((a, b) => compareStrings(a.pipelineRun, b.pipelineRun));
  conditions = setCondition(
    conditions,
    rejected.length === 0
      ? {
          type: CONDITION_BUILDS_VERIFIED,
          status: 'True',
          reason: BUILDS_VERIFIED_REASONS.verified,
          message: 'Every held nudge has a verified build',
        }
      : {
          type: CONDITION_BUILDS_VERIFIED,
          status: 'False',
          reason: BUILDS_VERIFIED_REASONS.rejected,
          message: rejected
            .slice(0, MAX_NAMES_IN_MESSAGE)
            .map((r) => `${r.pipelineRun} (${r.component}): ${r.reason}`)
            .join('; '),
        },
    now,
    metadata.generation,
  );

  const status: ChangeGroupStatus = {
    ...previous,
    phase,
    ...(metadata.generation === undefined ? {} : { observedGeneration: metadata.generation }),
    summary: `${String(ready.length)}/${String(components.length)}`,
    startTime: previous.startTime ?? now,
    ...(phase === 'Ready' ? { readyTime: previous.readyTime ?? now } : {}),
    ...(isTerminalPhase(phase) ? { completionTime: previous.completionTime ?? now } : {}),
    components,
    conditions,
  };

  intents.push(...pullRequestIntents(status, phase, pr, skipCi, manualChanges));
  intents.push(...buildsToRedispatch(input.builds, components, collecting && isCollectingPhase(phase)));
  return { status, intents };
}

function pullRequestIntents(
  status: ChangeGroupStatus,
  phase: ChangeGroupPhase,
  pr: PullRequestObservation,
  skipCi: EnsurePullRequestIntent['skipCi'],
  manualChanges: boolean,
): ChangeGroupIntent[] {
  if (pr.state === 'merged' || pr.state === 'closed' || phase === 'Completed' || phase === 'Cancelled') return [];
  const components = status.components ?? [];
  const fingerprintNow = descriptionFingerprint(phase, skipCi, components, manualChanges);
  const recorded = status.pullRequest;
  const describe: ChangeGroupIntent[] =
    pr.state === 'open' && recorded?.descriptionFingerprint !== fingerprintNow
      ? [{ kind: 'updateDescription', descriptionFingerprint: fingerprintNow }]
      : [];
  if (phase === 'Failed' || manualChanges) return describe;

  const builds: PullRequestBuild[] = components
    .filter((c) => hasCollectedBuild(c.state) && c.newBuild !== undefined)
    .map((c) => ({ name: c.name, digest: c.newBuild ?? '', pullSpec: c.newBuildPullSpec ?? '' }))
    .sort(byName);
  if (builds.length === 0) return describe;
  const final = phase === 'Ready';
  const rebase = pr.state === 'open' && pr.rebaseRequested;
  const upToDate =
    pr.state === 'open' && !rebase && recorded?.final === final && sameBuilds(recorded.pushedBuilds, builds);
  if (upToDate) return describe;
  const intents: ChangeGroupIntent[] = [];
  if (final && pr.state === 'open' && pr.draft) intents.push({ kind: 'markReadyForReview' });
  intents.push({
    kind: 'ensurePullRequest',
    builds,
    final,
    draft: !final,
    discardManualChanges: rebase,
    skipCi,
    descriptionFingerprint: fingerprintNow,
  });
  return intents;
}

/**
 * Terminal phases are absorbing: status is left as it is. What remains is telling the PR a
 * timeout happened, and giving back nudges held but never used.
 */
function reconcileTerminal(
  input: ChangeGroupReconcileInput,
  previous: ChangeGroupStatus,
  phase: ChangeGroupPhase,
  skipCi: EnsurePullRequestIntent['skipCi'],
): ChangeGroupReconcileResult {
  const pr = input.pullRequest;
  const intents: ChangeGroupIntent[] = [];
  if (phase === 'Failed' && pr.state === 'open') {
    const manualChanges = pr.manualChanges && !pr.rebaseRequested;
    const fp = descriptionFingerprint(phase, skipCi, previous.components ?? [], manualChanges);
    if (previous.pullRequest?.descriptionFingerprint !== fp) {
      intents.push({ kind: 'updateDescription', descriptionFingerprint: fp });
    }
  }
  intents.push(...buildsToRedispatch(input.builds, previous.components ?? [], false));
  return { status: previous, intents };
}

/** What the executor reports after carrying out an ensurePullRequest intent. */
export interface PullRequestPushResult {
  readonly number: number;
  readonly url: string;
  readonly headBranch: string;
  readonly baseBranch: string;
  readonly baseCommit: string;
  /** The branch head after the push (or the existing head, when it already matched). */
  readonly commit: string;
  readonly draft: boolean;
}

export function recordPullRequestPush(
  status: ChangeGroupStatus,
  intent: EnsurePullRequestIntent,
  result: PullRequestPushResult & {
    /** Components of this push none of whose repositories any file references by digest. */
    readonly unreferenced?: readonly string[];
  },
): ChangeGroupStatus {
  // Only the digest pushed is judged: a newer build collected meanwhile is judged by its own push.
  const unreferenced = new Set(result.unreferenced ?? []);
  const pushed = new Map(intent.builds.map((b) => [b.name, b.digest]));
  const components = (status.components ?? []).map((c): ChangeGroupComponentStatus => {
    if (!hasCollectedBuild(c.state) || c.newBuild === undefined || pushed.get(c.name) !== c.newBuild) return c;
    const state = unreferenced.has(c.name) ? 'NotReferenced' : 'Ready';
    return state === c.state ? c : { ...c, state };
  });
  const pullRequest: PullRequestStatus = {
    number: result.number,
    url: result.url,
    headBranch: result.headBranch,
    baseBranch: result.baseBranch,
    baseCommit: result.baseCommit,
    lastPushedCommit: result.commit,
    draft: result.draft,
    final: intent.final,
    pushedBuilds: intent.builds.map((b) => ({ name: b.name, digest: b.digest })),
    descriptionFingerprint: intent.descriptionFingerprint,
  };
  return {
    ...status,
    ...(status.components === undefined ? {} : { components }),
    pullRequestURL: result.url,
    pullRequest,
  };
}

export function recordReadyForReview(status: ChangeGroupStatus): ChangeGroupStatus {
  if (status.pullRequest === undefined) return status;
  return { ...status, pullRequest: { ...status.pullRequest, draft: false } };
}

export function recordDescriptionUpdate(status: ChangeGroupStatus, descriptionFingerprint: string): ChangeGroupStatus {
  if (status.pullRequest === undefined) return status;
  return { ...status, pullRequest: { ...status.pullRequest, descriptionFingerprint } };
}

/** What the last attempt to use the forge found; the controller classifies its errors into this. */
export type ForgeAvailability =
  | { readonly ok: true; readonly host: string }
  | {
      readonly ok: false;
      readonly host: string;
      readonly reason: Exclude<ForgeAvailableReason, 'ForgeAvailable'>;
      /** Already free of secrets: built from redacted error text. */
      readonly message: string;
    };

/**
 * Records the ForgeAvailable condition alone. Kept apart from reconcileChangeGroup because a
 * forge that cannot be observed stops the reconcile before the state machine runs, and the
 * condition must still be written then.
 */
export function recordForgeAvailability(
  status: ChangeGroupStatus,
  availability: ForgeAvailability,
  now: Date,
  generation: number | undefined,
): ChangeGroupStatus {
  const condition = availability.ok
    ? {
        type: CONDITION_FORGE_AVAILABLE,
        status: 'True' as const,
        reason: FORGE_AVAILABLE_REASONS.available,
        message: `${availability.host} answered with the namespace's credentials`,
      }
    : {
        type: CONDITION_FORGE_AVAILABLE,
        status: 'False' as const,
        reason: availability.reason,
        message: `${availability.host}: ${availability.message}`,
      };
  return {
    ...status,
    conditions: setCondition(status.conditions ?? [], condition, toKubernetesTime(now), generation),
  };
}
