// Reading and writing the pre-merge record of one (PR group, target) pair
// (src/schema/pre-merge-record.ts, docs/decisions.md N35). A record nudger cannot read is a typed
// problem, never an empty record: an empty one would forget the triggers a restart must keep.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { compareStrings } from '../compare.ts';
import { objectDecoder } from '../schema-validation.ts';
import {
  PRE_MERGE_RECORD_VERSION,
  PreMergeRecordDocument,
  type PinnedBuild,
  type TriggerRecord,
} from '../../schema/pre-merge-record.ts';

export type { PinnedBuild, TriggerRecord } from '../../schema/pre-merge-record.ts';

export const PRE_MERGE_RECORD_KEY = 'record';
/** The value of the record label (VALIDATED_RECORD_LABEL) on pre-merge records. */
export const PRE_MERGE_RECORD_LABEL_VALUE = 'pre-merge-nudges';

export type PreMergeRecord = Omit<PreMergeRecordDocument, 'version'>;

export function emptyPreMergeRecord(group: string, target: string): PreMergeRecord {
  return { group, target, triggers: {} };
}

/** `nudger-pre-merge-<16 hex>`: one name per (group, target), whatever their length. */
export function preMergeRecordName(group: string, target: string): string {
  return `nudger-pre-merge-${fingerprint(['pre-merge-record', group, target])}`;
}

/** `<component>#<number>`: a trigger's key in the record. */
export function triggerKey(component: string, number: number): string {
  return `${component}#${String(number)}`;
}

const decodeDocument = objectDecoder(PreMergeRecordDocument);

export type PreMergeRecordReading =
  { readonly ok: true; readonly record: PreMergeRecord } | { readonly ok: false; readonly problem: string };

export function parsePreMergeRecord(text: string | undefined, group: string, target: string): PreMergeRecordReading {
  if (text === undefined) return { ok: false, problem: `data.${PRE_MERGE_RECORD_KEY} is missing` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `data.${PRE_MERGE_RECORD_KEY} is not JSON` };
  }
  const decoded = decodeDocument(value);
  if (!decoded.ok) {
    const first = decoded.problems[0];
    return {
      ok: false,
      problem: `data.${PRE_MERGE_RECORD_KEY}: ${first === undefined ? 'unreadable' : first.message}`,
    };
  }
  const { version: _version, ...record } = decoded.object;
  if (record.group !== group || record.target !== target) {
    return { ok: false, problem: `data.${PRE_MERGE_RECORD_KEY} is the record of another group or target` };
  }
  for (const [key, trigger] of Object.entries(record.triggers)) {
    if (key !== triggerKey(trigger.component, trigger.number)) {
      return {
        ok: false,
        problem: `data.${PRE_MERGE_RECORD_KEY}: trigger ${JSON.stringify(key.slice(0, 64))} names another PR`,
      };
    }
  }
  return { ok: true, record };
}

const pinnedBuild = (build: PinnedBuild): PinnedBuild => ({
  name: build.name,
  digest: build.digest,
  createdAt: build.createdAt,
});

/**
 * A trigger with its fields in the schema's order. Sorting the map's keys is not enough: decidePreMerge
 * rebuilds a trigger field by field (a merge commit re-read after its push build moves to the end),
 * and an equal record written as other bytes would be written again on every reconcile.
 */
function canonicalTrigger(trigger: TriggerRecord): TriggerRecord {
  return {
    component: trigger.component,
    number: trigger.number,
    repoUrl: trigger.repoUrl,
    ...(trigger.url === undefined ? {} : { url: trigger.url }),
    state: trigger.state,
    ...(trigger.mergeSha === undefined ? {} : { mergeSha: trigger.mergeSha }),
    ...(trigger.sourceBranch === undefined ? {} : { sourceBranch: trigger.sourceBranch }),
    ...(trigger.headSha === undefined ? {} : { headSha: trigger.headSha }),
    pullRequestBuild: pinnedBuild(trigger.pullRequestBuild),
    ...(trigger.pushBuild === undefined ? {} : { pushBuild: pinnedBuild(trigger.pushBuild) }),
  };
}

/** The record's text, keys and fields in a fixed order, so an unchanged record serialises to the same bytes. */
export function serializePreMergeRecord(record: PreMergeRecord): string {
  const triggers: Record<string, TriggerRecord> = {};
  for (const key of Object.keys(record.triggers).sort(compareStrings)) {
    const trigger = record.triggers[key];
    if (trigger !== undefined) triggers[key] = canonicalTrigger(trigger);
  }
  const { applied, attempt } = record;
  return JSON.stringify({
    version: PRE_MERGE_RECORD_VERSION,
    group: record.group,
    target: record.target,
    triggers,
    ...(applied === undefined
      ? {}
      : { applied: { key: applied.key, ...(applied.url === undefined ? {} : { url: applied.url }) } }),
    ...(attempt === undefined
      ? {}
      : {
          attempt: {
            key: attempt.key,
            state: attempt.state,
            count: attempt.count,
            since: attempt.since,
            ...(attempt.notBefore === undefined ? {} : { notBefore: attempt.notBefore }),
            ...(attempt.reason === undefined ? {} : { reason: attempt.reason }),
          },
        }),
  });
}
