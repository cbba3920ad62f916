// The pre-merge decision for one (PR group, target) pair (ADR 29 "PR Groups", docs/decisions.md D11,
// N35), pure. From the group's succeeded pull-request builds of components that nudge the target,
// what the forge says of each triggering PR, the push builds of merge commits and the pair's record,
// it says what the nudge PR must carry (each open trigger's pull-request build, each merged one's
// push build once built, nothing for a closed one), whether it is a draft or to be closed, and
// whether that differs from what the PR was last made from. The record is written before the
// executor is called; the content's key tells a repeat from news.
import { compareStrings } from '../compare.ts';
import type { FireResult } from './dispatch.ts';
import { reasonToken } from './dispatch-marker.ts';
import { stateAfterFailure, type DispatchPolicy } from './dispatch-policy.ts';
import { triggerKey, type PinnedBuild, type PreMergeRecord, type TriggerRecord } from './pre-merge-record.ts';
import { preMergeKey } from './pre-merge-text.ts';

/** A verified, succeeded pull-request build of the group (the newest of its PR). */
export interface ObservedPullRequestBuild {
  readonly component: string;
  readonly number: number;
  readonly repoUrl: string;
  readonly build: PinnedBuild;
  /** The PR's source branch, and the commit this build built (Pipelines-as-Code's `sha`). */
  readonly sourceBranch?: string;
  readonly headSha?: string;
}

/** The PR's head as the newest build saw it. */
function headOf(observed: ObservedPullRequestBuild): Pick<TriggerRecord, 'sourceBranch' | 'headSha'> {
  return {
    ...(observed.sourceBranch === undefined ? {} : { sourceBranch: observed.sourceBranch }),
    ...(observed.headSha === undefined ? {} : { headSha: observed.headSha }),
  };
}

/** What the forge says of a triggering PR now. */
export interface ForgeReading {
  readonly state: 'open' | 'merged' | 'closed';
  readonly url: string;
  /** The commit the merge made on the base, once merged. */
  readonly mergeSha?: string;
}

export interface PreMergeInput {
  readonly namespace: string;
  readonly group: string;
  readonly target: string;
  readonly record: PreMergeRecord;
  readonly builds: readonly ObservedPullRequestBuild[];
  /** By trigger key; a trigger missing here could not be asked now and keeps its recorded state. */
  readonly forge: ReadonlyMap<string, ForgeReading>;
  /** The verified, succeeded push build of `component` at commit `sha`, if the cache holds one. */
  readonly pushBuild: (component: string, sha: string) => PinnedBuild | undefined;
  readonly now: number;
  /** A `firing` attempt younger than this is another worker's fire in progress. */
  readonly fireLeaseMs: number;
  /** How often the forge is asked again while a trigger may still change. */
  readonly pollMs: number;
  readonly policy: DispatchPolicy;
}

/** One trigger's share of the nudge PR. */
export interface PreMergePart {
  readonly trigger: TriggerRecord;
  /** What the PR pins for it; none once closed unmerged. */
  readonly pin?: { readonly event: 'pull-request' | 'push'; readonly build: PinnedBuild };
}

export interface PreMergeContent {
  readonly key: string;
  /** Sorted by component, then PR number. */
  readonly parts: readonly PreMergePart[];
  readonly draft: boolean;
  /** Every trigger closed unmerged: the nudge PR is closed. */
  readonly close: boolean;
}

export type PreMergeStep =
  | { readonly kind: 'idle'; readonly wakeAt?: number }
  | { readonly kind: 'fire'; readonly attempt: number; readonly content: PreMergeContent };

export interface PreMergeDecision {
  /** The record to write (first, when the step fires); the input's when nothing changed. */
  readonly record: PreMergeRecord;
  readonly step: PreMergeStep;
}

function newer(a: PinnedBuild, b: PinnedBuild): boolean {
  return a.createdAt !== b.createdAt ? a.createdAt > b.createdAt : compareStrings(a.name, b.name) > 0;
}

/** The triggers as now observed: the recorded ones, new PRs of the group, forge states, push builds. */
function observedTriggers(input: PreMergeInput): Record<string, TriggerRecord> {
  const triggers: Record<string, TriggerRecord> = { ...input.record.triggers };
  for (const observed of input.builds) {
    const key = triggerKey(observed.component, observed.number);
    const known = triggers[key];
    if (known === undefined) {
      triggers[key] = {
        component: observed.component,
        number: observed.number,
        repoUrl: observed.repoUrl,
        state: 'open',
        ...headOf(observed),
        pullRequestBuild: observed.build,
      };
    } else if (newer(observed.build, known.pullRequestBuild)) {
      // A new push to the PR: its newer build's digest replaces the older one.
      triggers[key] = { ...known, ...headOf(observed), pullRequestBuild: observed.build };
    }
  }
  for (const [key, trigger] of Object.entries(triggers)) {
    const reading = input.forge.get(key);
    let next = trigger;
    if (reading !== undefined) {
      const { mergeSha: _mergeSha, ...rest } = next;
      next = {
        ...rest,
        state: reading.state,
        url: reading.url,
        ...(reading.state === 'merged' && reading.mergeSha !== undefined ? { mergeSha: reading.mergeSha } : {}),
      };
    }
    if (next.state === 'merged' && next.mergeSha !== undefined) {
      const pushed = input.pushBuild(next.component, next.mergeSha);
      if (pushed !== undefined) next = { ...next, pushBuild: pushed };
    }
    triggers[key] = next;
  }
  return triggers;
}

function partOf(trigger: TriggerRecord): PreMergePart {
  switch (trigger.state) {
    case 'closed':
      return { trigger };
    case 'merged':
      return trigger.pushBuild === undefined
        ? { trigger, pin: { event: 'pull-request', build: trigger.pullRequestBuild } }
        : { trigger, pin: { event: 'push', build: trigger.pushBuild } };
    case 'open':
      return { trigger, pin: { event: 'pull-request', build: trigger.pullRequestBuild } };
  }
}

export function preMergeContent(
  namespace: string,
  group: string,
  target: string,
  triggers: Readonly<Record<string, TriggerRecord>>,
): PreMergeContent | undefined {
  const parts = Object.values(triggers)
    .sort((a, b) => compareStrings(a.component, b.component) || a.number - b.number)
    .map(partOf);
  if (parts.length === 0) return undefined;
  const draft = parts.some((part) => part.trigger.state === 'open' || part.pin?.event === 'pull-request');
  const close = parts.every((part) => part.trigger.state === 'closed');
  const key = preMergeKey(
    namespace,
    group,
    target,
    parts.map(({ trigger, pin }) => ({
      component: trigger.component,
      number: trigger.number,
      state: trigger.state,
      ...(pin === undefined ? {} : { digest: pin.build.digest }),
    })),
    draft,
    close,
  );
  return { key, parts, draft, close };
}

/** Whether a trigger can still change on the forge: then the forge is asked again later. */
function unsettled(trigger: TriggerRecord): boolean {
  return trigger.state === 'open' || (trigger.state === 'merged' && trigger.pushBuild === undefined);
}

export function decidePreMerge(input: PreMergeInput): PreMergeDecision {
  const triggers = observedTriggers(input);
  const record: PreMergeRecord = { ...input.record, triggers };
  const content = preMergeContent(input.namespace, input.group, input.target, triggers);
  const poll = Object.values(triggers).some(unsettled) ? input.now + input.pollMs : undefined;
  const idle = (wakeAt?: number): PreMergeDecision => {
    const at = wakeAt === undefined ? poll : poll === undefined ? wakeAt : Math.min(wakeAt, poll);
    return { record, step: at === undefined ? { kind: 'idle' } : { kind: 'idle', wakeAt: at } };
  };
  const attempt = record.attempt;
  if (content === undefined) return idle();
  // The applied key tells what the PR holds only while no attempt came after it: an attempt that
  // failed or was interrupted may have reached the forge all the same (N18), and content can come
  // back to the applied key (a trigger closed, then reopened). The PR then holds the attempt's
  // content, so it is made again from this one.
  if (record.applied?.key === content.key && attempt === undefined) return idle();
  if (attempt?.state === 'firing') {
    const leaseEnds = attempt.since + input.fireLeaseMs;
    if (input.now < leaseEnds) return idle(leaseEnds);
  }
  if (attempt?.key === content.key) {
    if (attempt.state === 'failed') return idle();
    if (attempt.state === 'retry' && input.now < (attempt.notBefore ?? 0)) return idle(attempt.notBefore);
  }
  // The same content after a failure or an interrupted attempt counts on; new content starts over.
  const count = attempt?.key === content.key ? attempt.count + 1 : 1;
  if (count > input.policy.maxAttempts) {
    return {
      record: {
        ...record,
        attempt: { key: content.key, state: 'failed', count: count - 1, since: input.now, reason: 'interrupted' },
      },
      // Still asked again while a trigger may change, as after any failure: a merge or a close is
      // new content, which starts over.
      step: idle().step,
    };
  }
  return {
    record: { ...record, attempt: { key: content.key, state: 'firing', count, since: input.now } },
    step: { kind: 'fire', attempt: count, content },
  };
}

/** The record after the fire of `content` ended with `result`. */
export function afterPreMergeFire(
  record: PreMergeRecord,
  content: PreMergeContent,
  attempt: number,
  result: FireResult,
  now: number,
  policy: DispatchPolicy,
): PreMergeRecord {
  const { attempt: _attempt, ...rest } = record;
  if (result.ok) {
    return { ...rest, applied: { key: content.key, ...(result.detail === undefined ? {} : { url: result.detail }) } };
  }
  const next = stateAfterFailure(policy, attempt, result.reason, now, result.permanent === true);
  return {
    ...rest,
    attempt: {
      key: content.key,
      state: next.kind,
      count: attempt,
      since: now,
      reason: reasonToken(result.reason),
      ...(next.kind === 'retry' ? { notBefore: next.notBefore } : {}),
    },
  };
}

/**
 * Push builds a pre-merge nudge carries: a post-merge nudge of (their build, the target) would be a
 * second PR for the same change (D11: the merge's push digest replaces the pull-request build's in
 * the same PR). Keyed `<component>@<merge sha>`.
 */
export function absorbedPushCommits(record: PreMergeRecord): Set<string> {
  const absorbed = new Set<string>();
  for (const trigger of Object.values(record.triggers)) {
    if (trigger.state === 'merged' && trigger.mergeSha !== undefined) {
      absorbed.add(`${trigger.component}@${trigger.mergeSha}`);
    }
  }
  return absorbed;
}

/** Components with a trigger the forge may yet report merged: their push builds wait a little. */
export function openTriggerComponents(record: PreMergeRecord): Set<string> {
  return new Set(
    Object.values(record.triggers)
      .filter((trigger) => trigger.state === 'open')
      .map((trigger) => trigger.component),
  );
}
