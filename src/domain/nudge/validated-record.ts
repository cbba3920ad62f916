// Reading and writing the validated-nudge record of one (gating group, target) pair
// (src/schema/validated-record.ts, docs/decisions.md N27). A record nudger cannot read is a typed
// problem, never an empty record: an empty record would nudge every digest again.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { objectDecoder } from '../schema-validation.ts';
import {
  VALIDATED_RECORD_VERSION,
  ValidatedRecordDocument,
  type BatchEntryRecord,
  type NudgedTuple,
  type PendingBatchRecord,
} from '../../schema/validated-record.ts';

export type { BatchEntryRecord, PendingBatchRecord } from '../../schema/validated-record.ts';

/** The ConfigMap key holding the record's JSON. */
export const VALIDATED_RECORD_KEY = 'record';
/** On every record ConfigMap: what the dispatcher's cache selects. */
export const VALIDATED_RECORD_LABEL = 'nudger.konflux-ci.dev/record';
export const VALIDATED_RECORD_LABEL_VALUE = 'validated-nudges';
export const RECORD_GROUP_ANNOTATION = 'nudger.konflux-ci.dev/gating-group';
export const RECORD_TARGET_ANNOTATION = 'nudger.konflux-ci.dev/nudged-component';

/** What one validated entry last nudged (or handed to a ChangeGroup). */
export interface NudgedDigest {
  readonly digest: string;
  readonly snapshot: string;
  readonly startTime: number;
  readonly buildCreatedAt: number;
  /** A ChangeGroup holds it (D2): the build it stands for, to see the ChangeGroup let go (N19). */
  readonly heldBy?: { readonly changeGroup: string; readonly build: string; readonly buildUid?: string };
}

export interface ValidatedRecord {
  readonly group: string;
  readonly target: string;
  readonly nudged: ReadonlyMap<string, NudgedDigest>;
  readonly batch?: PendingBatchRecord;
  readonly lastPass?: { readonly snapshot: string; readonly startTime: number; readonly at: string };
}

/**
 * The most a record's text may take: a ConfigMap holds 1 MiB in all (data, keys and metadata), and
 * the rest of the object needs a little. About 150 bytes a nudged component and 200 a component
 * in a batch under way put the limit near 2,500 components in one (gating group, target) pair whose
 * batch carries them all at once (docs/decisions.md N27).
 */
export const MAX_RECORD_TEXT_BYTES = 1_000_000;

/** The bytes `record` takes once serialised. */
export function validatedRecordBytes(record: ValidatedRecord): number {
  return new TextEncoder().encode(serializeValidatedRecord(record)).length;
}

export function emptyValidatedRecord(group: string, target: string): ValidatedRecord {
  return { group, target, nudged: new Map() };
}

/** `nudger-validated-<16 hex>`: one name per (group, target), whatever their length. */
export function validatedRecordName(group: string, target: string): string {
  return `nudger-validated-${fingerprint(['validated-record', group, target])}`;
}

const decodeDocument = objectDecoder(ValidatedRecordDocument);

export type RecordReading =
  { readonly ok: true; readonly record: ValidatedRecord } | { readonly ok: false; readonly problem: string };

/** Parses a record's text for (group, target); a record of another pair is a problem too. */
export function parseValidatedRecord(text: string | undefined, group: string, target: string): RecordReading {
  if (text === undefined) return { ok: false, problem: `data.${VALIDATED_RECORD_KEY} is missing` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `data.${VALIDATED_RECORD_KEY} is not JSON` };
  }
  const decoded = decodeDocument(value);
  if (!decoded.ok) {
    const first = decoded.problems[0];
    return {
      ok: false,
      problem: `data.${VALIDATED_RECORD_KEY}: ${first === undefined ? 'unreadable' : first.message}`,
    };
  }
  const document = decoded.object;
  if (document.group !== group || document.target !== target) {
    return { ok: false, problem: `data.${VALIDATED_RECORD_KEY} is the record of another group or target` };
  }
  const nudged = new Map<string, NudgedDigest>();
  for (const [component, tuple] of Object.entries(document.nudged)) nudged.set(component, nudgedOf(tuple));
  return {
    ok: true,
    record: {
      group,
      target,
      nudged,
      ...(document.batch === undefined ? {} : { batch: document.batch }),
      ...(document.lastPass === undefined ? {} : { lastPass: document.lastPass }),
    },
  };
}

function nudgedOf(tuple: NudgedTuple): NudgedDigest {
  const [digest, snapshot, startTime, buildCreatedAt] = tuple;
  if (tuple.length === 4) return { digest, snapshot, startTime, buildCreatedAt };
  const [, , , , changeGroup, build, buildUid] = tuple;
  return {
    digest,
    snapshot,
    startTime,
    buildCreatedAt,
    heldBy: { changeGroup, build, ...(buildUid === '' ? {} : { buildUid }) },
  };
}

function tupleOf(nudged: NudgedDigest): NudgedTuple {
  const base = [nudged.digest, nudged.snapshot, nudged.startTime, nudged.buildCreatedAt] as const;
  if (nudged.heldBy === undefined) return [...base];
  return [...base, nudged.heldBy.changeGroup, nudged.heldBy.build, nudged.heldBy.buildUid ?? ''];
}

/** The record's text: keys in a fixed order, so an unchanged record serialises to the same bytes. */
export function serializeValidatedRecord(record: ValidatedRecord): string {
  const nudged: Record<string, NudgedTuple> = {};
  for (const component of [...record.nudged.keys()].sort()) {
    const entry = record.nudged.get(component);
    if (entry !== undefined) nudged[component] = tupleOf(entry);
  }
  return JSON.stringify({
    version: VALIDATED_RECORD_VERSION,
    group: record.group,
    target: record.target,
    nudged,
    ...(record.batch === undefined ? {} : { batch: sortedBatch(record.batch) }),
    ...(record.lastPass === undefined ? {} : { lastPass: record.lastPass }),
  });
}

function sortedBatch(batch: PendingBatchRecord): PendingBatchRecord {
  const entries: Record<string, BatchEntryRecord> = {};
  for (const component of Object.keys(batch.entries).sort()) {
    const entry = batch.entries[component];
    if (entry !== undefined) entries[component] = entry;
  }
  return { ...batch, entries };
}
