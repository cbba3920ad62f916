// The record of validated nudges of one (gating group, target) pair (docs/decisions.md D10, N27): a
// ConfigMap nudger owns, one per pair, whose `record` key holds this JSON. It is the dispatcher's
// only memory of what each validated entry last nudged, so it survives restarts and replicas. Kept
// compact (a digest tuple per component) so that 5,000 entries into one target still fit a
// ConfigMap: about 150 bytes a component.
import Type, { type Static } from 'typebox';

export const VALIDATED_RECORD_VERSION = 1;

const Digest = Type.String({ pattern: '^sha256:[0-9a-f]{64}$' });
const Name = Type.String({ minLength: 1, maxLength: 253 });
const Count = Type.Integer({ minimum: 0 });

/**
 * `[digest, snapshot, snapshotStartTime, buildCreatedAt]`, optionally followed by
 * `heldBy, build, buildUid` when a ChangeGroup holds it (D2): the digest nudged (or handed to the
 * ChangeGroup), the Snapshot that validated it, that Snapshot's `pipelinerunstarttime`, and the
 * creation time (ms) of the build that made it.
 */
export const NudgedTuple = Type.Union([
  Type.Tuple([Digest, Name, Count, Count]),
  Type.Tuple([Digest, Name, Count, Count, Name, Name, Type.String()]),
]);
export type NudgedTuple = Static<typeof NudgedTuple>;

export const BatchEntryRecord = Type.Object({
  digest: Digest,
  snapshot: Name,
  startTime: Count,
  build: Name,
  buildUid: Type.Optional(Type.String()),
  buildCreatedAt: Count,
  /** Fired because its ChangeGroup let go of it (N19): never held again. */
  released: Type.Optional(Type.Boolean()),
});
export type BatchEntryRecord = Static<typeof BatchEntryRecord>;

export const PendingBatchRecord = Type.Object({
  key: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  state: Type.Union([Type.Literal('firing'), Type.Literal('retry'), Type.Literal('failed'), Type.Literal('holding')]),
  /** Attempts started so far (firing: this one included). */
  attempt: Count,
  /** ms: when the state was entered. */
  since: Count,
  notBefore: Type.Optional(Count),
  reason: Type.Optional(Type.String({ maxLength: 63 })),
  changeGroup: Type.Optional(Name),
  entries: Type.Record(Type.String(), BatchEntryRecord),
});
export type PendingBatchRecord = Static<typeof PendingBatchRecord>;

export const ValidatedRecordDocument = Type.Object({
  version: Type.Literal(VALIDATED_RECORD_VERSION),
  group: Name,
  target: Name,
  nudged: Type.Record(Type.String(), NudgedTuple),
  batch: Type.Optional(PendingBatchRecord),
  /** The last passing Snapshot a nudge of this pair was made from, and when (RFC 3339). */
  lastPass: Type.Optional(Type.Object({ snapshot: Name, startTime: Count, at: Type.String() })),
});
export type ValidatedRecordDocument = Static<typeof ValidatedRecordDocument>;
