// The validated-nudge decision for one (gating group, target) pair (ADR 67 "Validated Mode",
// docs/decisions.md D10, N27), pure. From the group's passing push Snapshots, the pair's record
// (src/domain/nudge/validated-record.ts) and what the caches say about builds and ChangeGroups,
// it says what to do next: nothing, hold some entries for a ChangeGroup (D2), or fire one batch.
// Like the build dispatcher (dispatch.ts), the record is the only memory and every effect is
// preceded by a record write that says it is under way, so a crash between any two steps is
// finished by deciding again from what is then observed, and a batch is fired again only with
// the same content and so the same key, which the executors honour.
import { compareStrings } from '../compare.ts';
import type { BatchEntryRecord, NudgedDigest, PendingBatchRecord, ValidatedRecord } from './validated-record.ts';
import { isNewerSnapshot, type PassingSnapshot } from './validated-snapshot.ts';
import { validatedBatchKey } from './validated-text.ts';
import { stateAfterFailure, type DispatchPolicy } from './dispatch-policy.ts';
import type { FireResult } from './dispatch.ts';
import { reasonToken } from './dispatch-marker.ts';

/** The build a validated digest was matched to (docs/decisions.md D3: digests from verified builds). */
export interface DigestBuild {
  readonly name: string;
  readonly uid?: string;
  /** ms since the epoch. */
  readonly createdAt: number;
}

export type DigestVerification =
  { readonly ok: true; readonly build: DigestBuild } | { readonly ok: false; readonly reason: string };

export interface ValidatedPairInput {
  readonly group: string;
  readonly target: string;
  /** The components whose validated entry gated by `group` points at `target`. */
  readonly froms: readonly string[];
  /** The group's passing push Snapshots (readSnapshot), any order. */
  readonly snapshots: readonly PassingSnapshot[];
  readonly record: ValidatedRecord;
  readonly namespace: string;
  /** The succeeded push build of `component` that produced `image` (`repo@sha256:…`), D3-verified. */
  readonly verify: (component: string, image: string) => DigestVerification;
  /** D2: the active ChangeGroup that holds nudges of `component` into the target, if any. */
  readonly holder: (component: string) => string | undefined;
  /** Whether the ChangeGroup holding `component`'s digest has let go of it (N19). */
  readonly released: (component: string, held: NonNullable<NudgedDigest['heldBy']>) => boolean;
  readonly now: number;
  /** A `firing` batch younger than this is another worker's fire in progress. */
  readonly fireLeaseMs: number;
  readonly policy: DispatchPolicy;
}

/** Something to tell on the NudgeConfig, once per `fact`. */
export interface ValidatedNotice {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  readonly fact: readonly string[];
}

export type BatchEntry = BatchEntryRecord & { readonly component: string };

export type ValidatedStep =
  | { readonly kind: 'idle'; readonly wakeAt?: number; readonly record?: ValidatedRecord }
  /** Write `record` (its batch says `holding`), create a held-nudge record per entry, then afterHold. */
  | {
      readonly kind: 'hold';
      readonly record: ValidatedRecord;
      readonly changeGroup: string;
      readonly entries: readonly BatchEntry[];
    }
  /** Write `record` (its batch says `firing`), fire, then afterFire with the result. */
  | {
      readonly kind: 'fire';
      readonly record: ValidatedRecord;
      readonly key: string;
      readonly attempt: number;
      readonly entries: readonly BatchEntry[];
    };

export interface ValidatedDecision {
  readonly step: ValidatedStep;
  readonly notices: readonly ValidatedNotice[];
}

export const VALIDATED_REASONS = {
  fired: 'ValidatedNudgeFired',
  held: 'ValidatedNudgeHeld',
  failed: 'ValidatedNudgeFailed',
  unverified: 'ValidatedDigestUnverified',
  unreadable: 'ValidatedRecordUnreadable',
  tooLarge: 'ValidatedRecordTooLarge',
} as const;

/** `newest` is newer than what `previous` was made from: by Snapshot, then by build. */
function isNewerThanNudged(snapshot: PassingSnapshot, build: DigestBuild, previous: NudgedDigest): boolean {
  const previousSnapshot = { name: previous.snapshot, startTime: previous.startTime };
  return isNewerSnapshot(snapshot, previousSnapshot) && build.createdAt >= previous.buildCreatedAt;
}

function digestOf(image: string): string {
  return image.slice(image.lastIndexOf('@') + 1);
}

/** The group's passing Snapshots, newest first (isNewerSnapshot's order). */
function newestFirst(snapshots: readonly PassingSnapshot[]): PassingSnapshot[] {
  return [...snapshots].sort((a, b) => (isNewerSnapshot(a, b) ? -1 : isNewerSnapshot(b, a) ? 1 : 0));
}

interface Due {
  readonly entries: BatchEntry[];
  readonly notices: ValidatedNotice[];
}

/**
 * The entries whose digest changed since their last validated nudge (D10 coalescing: the newest
 * passing Snapshot per component that validates something new for it; a digest equal to or older
 * than the one nudged never again), and the held ones their ChangeGroup let go of, which are
 * fired whatever D2 says now (N19).
 */
function dueEntries(input: ValidatedPairInput): Due {
  const entries: BatchEntry[] = [];
  const notices: ValidatedNotice[] = [];
  const snapshots = newestFirst(input.snapshots);
  for (const component of [...new Set(input.froms)].sort(compareStrings)) {
    const previous = input.record.nudged.get(component);
    const releasedHold =
      previous?.heldBy !== undefined && input.released(component, previous.heldBy) ? previous : undefined;
    let fresh: BatchEntry | undefined;
    // Newest first, back to the Snapshot last nudged from. One carrying the digest last nudged, or
    // a verified build older than it, validates nothing new and is passed over: a Snapshot whose
    // build started later but that was made from an older Global Candidate List (before this
    // component's newer pass updated it) would otherwise hide that newer pass until the group's
    // next one, and drop a retry batch holding it without a word (D10: a pass fires its digest).
    // The first other Snapshot decides, as the newest one did: due if verified, told if not.
    for (const snapshot of snapshots) {
      const image = snapshot.images.get(component);
      if (image === undefined || digestOf(image) === previous?.digest) continue;
      const previousSnapshot = previous && { name: previous.snapshot, startTime: previous.startTime };
      if (previousSnapshot !== undefined && !isNewerSnapshot(snapshot, previousSnapshot)) break;
      const verification = input.verify(component, image);
      if (!verification.ok) {
        notices.push({
          type: 'Warning',
          reason: VALIDATED_REASONS.unverified,
          message: `Snapshot ${snapshot.name} of ${input.group} validated ${component} at ${digestOf(image)}, but no succeeded, verified push build of ${component} produced it (${verification.reason}): it is not nudged into ${input.target}`,
          fact: ['validated-unverified', input.namespace, snapshot.name, component, verification.reason],
        });
        break;
      }
      if (previous !== undefined && !isNewerThanNudged(snapshot, verification.build, previous)) continue;
      fresh = {
        component,
        digest: digestOf(image),
        snapshot: snapshot.name,
        startTime: snapshot.startTime,
        build: verification.build.name,
        ...(verification.build.uid === undefined ? {} : { buildUid: verification.build.uid }),
        buildCreatedAt: verification.build.createdAt,
      };
      break;
    }
    if (releasedHold?.heldBy !== undefined) {
      const { build, buildUid } = releasedHold.heldBy;
      entries.push({
        ...(fresh ?? {
          component,
          digest: releasedHold.digest,
          snapshot: releasedHold.snapshot,
          startTime: releasedHold.startTime,
          build,
          ...(buildUid === undefined ? {} : { buildUid }),
          buildCreatedAt: releasedHold.buildCreatedAt,
        }),
        released: true,
      });
    } else if (fresh !== undefined) entries.push(fresh);
  }
  return { entries, notices };
}

function keyOf(input: ValidatedPairInput, entries: readonly BatchEntry[]): string {
  return validatedBatchKey(
    input.namespace,
    input.group,
    input.target,
    entries.map(({ component, digest }) => ({ component, digest })),
  );
}

function entriesOf(batch: PendingBatchRecord): BatchEntry[] {
  return Object.entries(batch.entries)
    .map(([component, entry]) => ({ ...entry, component }))
    .sort((a, b) => compareStrings(a.component, b.component));
}

function recordEntries(entries: readonly BatchEntry[]): Record<string, BatchEntryRecord> {
  const out: Record<string, BatchEntryRecord> = {};
  for (const { component, ...entry } of entries) out[component] = entry;
  return out;
}

function withBatch(record: ValidatedRecord, batch: PendingBatchRecord | undefined): ValidatedRecord {
  const { batch: _previous, ...rest } = record;
  return batch === undefined ? rest : { ...rest, batch };
}

function fireStep(
  input: ValidatedPairInput,
  key: string,
  attempt: number,
  entries: readonly BatchEntry[],
): ValidatedStep {
  const batch: PendingBatchRecord = {
    key,
    state: 'firing',
    attempt,
    since: input.now,
    entries: recordEntries(entries),
  };
  return { kind: 'fire', record: withBatch(input.record, batch), key, attempt, entries };
}

/**
 * Due entries with no batch under way: the held ones first (their ChangeGroup collects them, D2),
 * then the rest in one batch. A released hold is never held again.
 */
function startStep(input: ValidatedPairInput, entries: readonly BatchEntry[]): ValidatedStep {
  const byHolder = new Map<string, BatchEntry[]>();
  for (const entry of entries) {
    const holder = entry.released === true ? undefined : input.holder(entry.component);
    if (holder !== undefined) byHolder.set(holder, [...(byHolder.get(holder) ?? []), entry]);
  }
  const [first] = [...byHolder.keys()].sort(compareStrings);
  if (first !== undefined) {
    const held = byHolder.get(first) ?? [];
    const batch: PendingBatchRecord = {
      key: keyOf(input, held),
      state: 'holding',
      attempt: 1,
      since: input.now,
      changeGroup: first,
      entries: recordEntries(held),
    };
    return { kind: 'hold', record: withBatch(input.record, batch), changeGroup: first, entries: held };
  }
  return fireStep(input, keyOf(input, entries), 1, entries);
}

export function decideValidated(input: ValidatedPairInput): ValidatedDecision {
  const { entries, notices } = dueEntries(input);
  const batch = input.record.batch;
  const key = entries.length === 0 ? undefined : keyOf(input, entries);
  if (batch === undefined) {
    return { step: entries.length === 0 ? { kind: 'idle' } : startStep(input, entries), notices };
  }
  switch (batch.state) {
    case 'holding':
      // Finish the hold that was under way (its held-nudge records are named, so made once).
      return {
        step: { kind: 'hold', record: input.record, changeGroup: batch.changeGroup ?? '', entries: entriesOf(batch) },
        notices,
      };
    case 'firing': {
      const leaseEnds = batch.since + input.fireLeaseMs;
      if (input.now < leaseEnds) return { step: { kind: 'idle', wakeAt: leaseEnds }, notices };
      // Interrupted: the same content again, with the same key, so an effect that happened is found.
      if (batch.attempt >= input.policy.maxAttempts) {
        return { step: { kind: 'idle', record: failedRecord(input, batch, 'interrupted') }, notices };
      }
      return { step: fireStep(input, batch.key, batch.attempt + 1, entriesOf(batch)), notices };
    }
    case 'retry':
    case 'failed': {
      if (key === undefined) return { step: { kind: 'idle', record: withBatch(input.record, undefined) }, notices };
      // Newer content replaces the batch that failed: the branch is the pair's, so its next push
      // carries everything due. The same content waits for its retry time, or, failed, for news.
      if (key !== batch.key) return { step: startStep(input, entries), notices };
      if (batch.state === 'failed') return { step: { kind: 'idle' }, notices };
      const notBefore = batch.notBefore ?? 0;
      if (input.now < notBefore) return { step: { kind: 'idle', wakeAt: notBefore }, notices };
      return { step: fireStep(input, batch.key, batch.attempt + 1, entriesOf(batch)), notices };
    }
  }
}

function failedRecord(input: ValidatedPairInput, batch: PendingBatchRecord, reason: string): ValidatedRecord {
  const { notBefore: _notBefore, ...rest } = batch;
  return withBatch(input.record, { ...rest, state: 'failed', since: input.now, reason: reasonToken(reason) });
}

function nudgedOf(entry: BatchEntry, heldBy?: NudgedDigest['heldBy']): NudgedDigest {
  return {
    digest: entry.digest,
    snapshot: entry.snapshot,
    startTime: entry.startTime,
    buildCreatedAt: entry.buildCreatedAt,
    ...(heldBy === undefined ? {} : { heldBy }),
  };
}

/** The newest Snapshot among `entries`: what the record and the Event name as the pass used. */
export function newestSnapshotOf(entries: readonly BatchEntry[]): { snapshot: string; startTime: number } | undefined {
  let newest: BatchEntry | undefined;
  for (const entry of entries) {
    const candidate = { name: entry.snapshot, startTime: entry.startTime };
    if (newest === undefined || isNewerSnapshot(candidate, { name: newest.snapshot, startTime: newest.startTime })) {
      newest = entry;
    }
  }
  return newest === undefined ? undefined : { snapshot: newest.snapshot, startTime: newest.startTime };
}

function snapshotsText(entries: readonly BatchEntry[]): string {
  return [...new Set(entries.map((entry) => entry.snapshot))].sort(compareStrings).join(', ');
}

function componentsText(entries: readonly BatchEntry[]): string {
  return entries.map((entry) => `${entry.component}@${entry.digest.slice(0, 19)}`).join(', ');
}

export interface AfterStep {
  readonly record: ValidatedRecord;
  readonly notices: readonly ValidatedNotice[];
}

/** After the held-nudge records exist: the entries count as nudged, held by the ChangeGroup. */
export function afterHold(
  record: ValidatedRecord,
  holds: readonly { readonly entry: BatchEntry; readonly heldBy: NonNullable<NudgedDigest['heldBy']> }[],
): AfterStep {
  const nudged = new Map(record.nudged);
  for (const { entry, heldBy } of holds) nudged.set(entry.component, nudgedOf(entry, heldBy));
  const [first] = holds;
  const changeGroup = first?.heldBy.changeGroup ?? '';
  const entries = holds.map(({ entry }) => entry);
  return {
    record: { ...withBatch(record, undefined), nudged },
    notices: [
      {
        type: 'Normal',
        reason: VALIDATED_REASONS.held,
        message: `ChangeGroup ${changeGroup} collects the validated digests of ${componentsText(entries)} for ${record.target} (Snapshot ${snapshotsText(entries)} of ${record.group})`,
        fact: [
          'validated-held',
          record.group,
          record.target,
          changeGroup,
          ...entries.map((e) => `${e.component}@${e.digest}`),
        ],
      },
    ],
  };
}

/**
 * After a fire: the record the result leads to and what to tell. A success counts every entry
 * as nudged and names the Snapshots used; a failure is retried with backoff (the dispatcher's
 * policy, N18) or, permanent or out of attempts, waits for newer content.
 */
export function afterFire(
  record: ValidatedRecord,
  batch: { readonly key: string; readonly attempt: number; readonly entries: readonly BatchEntry[] },
  result: FireResult,
  now: number,
  policy: DispatchPolicy,
): AfterStep {
  const fact = ['validated-batch', record.group, record.target, batch.key];
  if (result.ok) {
    const nudged = new Map(record.nudged);
    for (const entry of batch.entries) nudged.set(entry.component, nudgedOf(entry));
    const newest = newestSnapshotOf(batch.entries);
    const { lastPass: _lastPass, ...rest } = withBatch(record, undefined);
    return {
      record: {
        ...rest,
        nudged,
        ...(newest === undefined ? {} : { lastPass: { ...newest, at: new Date(now).toISOString() } }),
      },
      notices: [
        {
          type: 'Normal',
          reason: VALIDATED_REASONS.fired,
          message: `Snapshot ${snapshotsText(batch.entries)} of ${record.group} passed: ${record.target} nudged with ${componentsText(batch.entries)} (${result.detail ?? 'done'})`,
          fact,
        },
      ],
    };
  }
  const state = stateAfterFailure(policy, batch.attempt, result.reason, now, result.permanent === true);
  const next: PendingBatchRecord = {
    key: batch.key,
    attempt: batch.attempt,
    since: now,
    entries: recordEntries(batch.entries),
    reason: reasonToken(result.reason),
    ...(state.kind === 'retry' ? { state: 'retry', notBefore: state.notBefore } : { state: 'failed' }),
  };
  return {
    record: withBatch(record, next),
    notices: [
      {
        type: 'Warning',
        reason: VALIDATED_REASONS.failed,
        message: `validated nudge of ${record.target} with ${componentsText(batch.entries)} (attempt ${String(batch.attempt)}) failed: ${result.reason}: ${result.message}${state.kind === 'retry' ? `; tried again after ${new Date(state.notBefore).toISOString()}` : '; not tried again until a newer pass'}`,
        fact: [...fact, String(batch.attempt)],
      },
    ],
  };
}
