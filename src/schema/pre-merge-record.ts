// The record of one pre-merge nudge (docs/decisions.md D11, N35): a ConfigMap nudger owns per (PR
// group, target), whose `record` key holds this JSON. It keeps the triggering pull requests nudger
// has seen (so a pruned build or a closed PR is still known), their last known state, and what the
// nudge PR was last made from, so that a restart neither forgets a trigger nor fires twice.
import Type, { type Static } from 'typebox';

export const PRE_MERGE_RECORD_VERSION = 1;

const Digest = Type.String({ pattern: '^sha256:[0-9a-f]{64}$' });
const Name = Type.String({ minLength: 1, maxLength: 253 });
const Count = Type.Integer({ minimum: 0 });

/** A build whose digest the nudge PR pins for a trigger. */
export const PinnedBuild = Type.Object({ name: Name, digest: Digest, createdAt: Count });
export type PinnedBuild = Static<typeof PinnedBuild>;

export const TriggerRecord = Type.Object({
  component: Name,
  number: Type.Integer({ minimum: 1 }),
  /** The repository the PR is in (Pipelines-as-Code's `repo-url`). */
  repoUrl: Type.String({ minLength: 1, maxLength: 2048 }),
  /** The PR's web page, once the forge has told it. */
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  state: Type.Union([Type.Literal('open'), Type.Literal('merged'), Type.Literal('closed')]),
  /** The commit the merge made, once merged: its push build replaces the pull-request build. */
  mergeSha: Type.Optional(Type.String({ pattern: '^[0-9a-f]{7,64}$' })),
  /** The PR's source branch and the commit its newest pull-request build built (a monorepo's synthetic commit copies from it). */
  sourceBranch: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  headSha: Type.Optional(Type.String({ pattern: '^[0-9a-f]{7,64}$' })),
  pullRequestBuild: PinnedBuild,
  pushBuild: Type.Optional(PinnedBuild),
});
export type TriggerRecord = Static<typeof TriggerRecord>;

export const PreMergeRecordDocument = Type.Object({
  version: Type.Literal(PRE_MERGE_RECORD_VERSION),
  group: Name,
  target: Name,
  /** By `<component>#<number>`. */
  triggers: Type.Record(Type.String(), TriggerRecord),
  /** The content the nudge PR was last made from (its key), and where it is. */
  applied: Type.Optional(
    Type.Object({ key: Type.String({ pattern: '^[0-9a-f]{16}$' }), url: Type.Optional(Type.String()) }),
  ),
  /** The fire under way or failed (write-ahead; docs/decisions.md N18's attempts and backoff). */
  attempt: Type.Optional(
    Type.Object({
      key: Type.String({ pattern: '^[0-9a-f]{16}$' }),
      state: Type.Union([Type.Literal('firing'), Type.Literal('retry'), Type.Literal('failed')]),
      count: Count,
      since: Count,
      notBefore: Type.Optional(Count),
      reason: Type.Optional(Type.String({ maxLength: 63 })),
    }),
  ),
});
export type PreMergeRecordDocument = Static<typeof PreMergeRecordDocument>;
