// What nudger's dispatcher did with each passing Snapshot of a scenario, for `--output json`
// (`nudges[]` with `mode: validated`), and when it is done with one. Read from the record nudger
// keeps per (gating group, target) (src/domain/nudge/validated-record.ts, docs/decisions.md D10):
// its `nudged` map says, per validated entry, the digest last nudged (or handed to a ChangeGroup)
// and the Snapshot it came from; a failed batch says why. The record keeps only the latest of
// each entry, so the sandbox reads it right after each `snapshot` step, when it tells exactly
// what that Snapshot moved. Pure: the caller reads the record ConfigMaps.
import { parseValidatedRecord, type ValidatedRecord } from '../../domain/nudge/validated-record.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import type { NudgeResult } from './result.ts';
import type { Scenario } from './schema.ts';

/** The validated entries of one gating group into one target: one record, one pull request. */
export interface ValidatedPair {
  readonly group: string;
  readonly target: string;
  /** The `from` of each entry, in scenario order. */
  readonly members: readonly string[];
}

/** Every (group, target) pair of the scenario's validated entries, in scenario order. */
export function validatedPairs(scenario: Scenario): ValidatedPair[] {
  const pairs = new Map<string, { group: string; target: string; members: string[] }>();
  for (const component of scenario.components) {
    for (const [target, group] of Object.entries(component.validated ?? {})) {
      const key = `${group} ${target}`;
      const pair = pairs.get(key) ?? { group, target, members: [] };
      pair.members.push(component.name);
      pairs.set(key, pair);
    }
  }
  return [...pairs.values()];
}

/** A Snapshot the sandbox made: its name and each member's image (`repo@sha256:…`). */
export interface PlayedSnapshot {
  readonly name: string;
  readonly group: string;
  readonly passed: boolean;
  readonly components: readonly { readonly name: string; readonly containerImage: string }[];
}

export class RecordReadError extends Error {
  override readonly name = 'RecordReadError';
  constructor(group: string, target: string, problem: string) {
    super(`the validated-nudge record of ComponentGroup ${group} into ${target}: ${problem}`);
  }
}

/** The record's text read for `pair`; undefined when there is none yet. An unreadable one throws. */
export function readRecord(pair: ValidatedPair, text: string | undefined): ValidatedRecord | undefined {
  if (text === undefined) return undefined;
  const reading = parseValidatedRecord(text, pair.group, pair.target);
  if (!reading.ok) throw new RecordReadError(pair.group, pair.target, reading.problem);
  return reading.record;
}

function digestOf(image: string): string {
  return image.slice(image.indexOf('@') + 1);
}

/** One validated entry a Snapshot should move: its image differs from the one last nudged. */
export interface DueEntry {
  readonly from: string;
  readonly digest: string;
}

/**
 * The entries of `pair` that a passing `snapshot` is expected to move, given the record as it was
 * before the Snapshot: a member it carries whose digest is not the one last nudged (D10: equal
 * digests are never nudged again; the sandbox's Snapshots carry each member's latest build).
 */
export function dueEntries(
  pair: ValidatedPair,
  snapshot: PlayedSnapshot,
  before: ValidatedRecord | undefined,
): DueEntry[] {
  if (!snapshot.passed || snapshot.group !== pair.group) return [];
  return pair.members.flatMap((from) => {
    const image = snapshot.components.find((c) => c.name === from)?.containerImage;
    if (image === undefined) return [];
    const digest = digestOf(image);
    return before?.nudged.get(from)?.digest === digest ? [] : [{ from, digest }];
  });
}

/** How the dispatcher ended one due entry of a Snapshot; undefined while it has not. */
export type EntryOutcome =
  | { readonly outcome: 'pullRequest' }
  | { readonly outcome: 'held'; readonly changeGroup: string }
  | { readonly outcome: 'failed'; readonly reason: string };

export function entryOutcome(
  entry: DueEntry,
  snapshot: string,
  record: ValidatedRecord | undefined,
): EntryOutcome | undefined {
  const nudged = record?.nudged.get(entry.from);
  if (nudged?.snapshot === snapshot && nudged.digest === entry.digest) {
    return nudged.heldBy === undefined
      ? { outcome: 'pullRequest' }
      : { outcome: 'held', changeGroup: nudged.heldBy.changeGroup };
  }
  const batch = record?.batch;
  const batched = batch?.entries[entry.from];
  if (batch?.state === 'failed' && batched?.snapshot === snapshot && batched.digest === entry.digest)
    return { outcome: 'failed', reason: batch.reason ?? 'failed' };
  return undefined;
}

/** The facts of one due entry once settled, kept until the result is written. */
export interface ValidatedNudgeFact {
  readonly pair: ValidatedPair;
  readonly snapshot: string;
  readonly entry: DueEntry;
  readonly outcome: EntryOutcome;
}

/** One `nudges[]` item (mode validated) from a settled fact. */
export function validatedNudgeResult(
  fact: ValidatedNudgeFact,
  build: string,
  executor: DispatchExecutor,
  pullRequest: string | null,
): NudgeResult {
  const { outcome } = fact;
  return {
    build,
    from: fact.entry.from,
    to: fact.pair.target,
    digest: fact.entry.digest,
    executor,
    mode: 'validated',
    event: 'push',
    snapshot: fact.snapshot,
    outcome: outcome.outcome,
    ...(outcome.outcome === 'failed' ? { reason: outcome.reason } : {}),
    pullRequest: outcome.outcome === 'pullRequest' ? pullRequest : null,
    heldBy: outcome.outcome === 'held' ? outcome.changeGroup : null,
  };
}
