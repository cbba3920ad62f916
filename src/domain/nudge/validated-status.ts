// What a NudgeConfig's status says about its validated nudges (issue 11, docs/decisions.md D10):
// per gating group, how many entries it gates, which of them wait on its next passing Snapshot, and
// the last pass a nudge was made from. Derived from the namespace graph, the dispatcher's records
// (src/domain/nudge/validated-record.ts) and the newest build of each source; nothing here is
// remembered, so the status is always what those say now. Bounded whatever the spec holds (up to
// 5,000 entries, each with a group of its own): at most MAX_STATUS_GATING_GROUPS groups and
// MAX_WAITING_ENTRIES_LISTED waiting entries are listed, and the counts tell the rest.
import {
  MAX_STATUS_GATING_GROUPS,
  MAX_WAITING_ENTRIES_LISTED,
  MAX_WAITING_ENTRIES_PER_GROUP,
  type ValidatedGroupStatus,
  type ValidatedNudgesStatus,
} from '../../schema/nudgeconfig.ts';
import { compareStrings } from '../compare.ts';
import type { NamespaceGraph } from '../graph.ts';
import type { ValidatedRecord } from './validated-record.ts';

export type { ValidatedGroupStatus, ValidatedNudgesStatus } from '../../schema/nudgeconfig.ts';

export interface ValidatedStatusInputs {
  /** The namespace's graph: its `validated` edges that name a gating group are the entries. */
  readonly graph: NamespaceGraph;
  /** The readable record of (gating group, target); undefined when there is none yet. */
  readonly record: (group: string, target: string) => ValidatedRecord | undefined;
  /**
   * The creation time (ms) of the newest succeeded, verified push build of `component`, as the
   * records' `buildCreatedAt`; undefined when it has none.
   */
  readonly newestBuildCreatedAt: (component: string) => number | undefined;
}

type LastPass = NonNullable<ValidatedRecord['lastPass']>;

interface GroupSummary {
  readonly gatingGroup: string;
  entries: number;
  /** target -> the sources gated by this group into it. */
  readonly targets: Map<string, string[]>;
  readonly waiting: string[];
  lastPass?: LastPass;
}

/** `<from> -> <to>`, as a waiting entry is listed. */
export function waitingEntryText(from: string, to: string): string {
  return `${from} -> ${to}`;
}

/**
 * `status.validatedNudges` of the namespace, or undefined when it has no validated entry with a
 * gating group (the field is then left out). Deterministic: the same inputs give the same value,
 * in the same order, so `sameValidatedNudgesStatus` can skip a write that would change nothing.
 */
export function validatedNudgesStatus(inputs: ValidatedStatusInputs): ValidatedNudgesStatus | undefined {
  const groups = collectGroups(inputs.graph);
  if (groups.size === 0) return undefined;
  const newest = memoized(inputs.newestBuildCreatedAt);
  let entries = 0;
  let waiting = 0;
  for (const group of groups.values()) {
    summarize(group, inputs.record, newest);
    entries += group.entries;
    waiting += group.waiting.length;
  }
  const listed = chooseListed([...groups.values()]);
  const perGroup = Math.max(
    1,
    Math.min(MAX_WAITING_ENTRIES_PER_GROUP, Math.floor(MAX_WAITING_ENTRIES_LISTED / listed.length)),
  );
  return {
    entries,
    waiting,
    gatingGroups: groups.size,
    groups: listed.map((group) => groupStatus(group, perGroup)),
  };
}

/** Each distinct (group, from, to) once, whatever declared it twice. */
function collectGroups(graph: NamespaceGraph): Map<string, GroupSummary> {
  const groups = new Map<string, GroupSummary>();
  const seen = new Set<string>();
  for (const edge of graph.edges) {
    const { gatingGroup } = edge;
    // Without a gating group a validated entry never fires (v1beta2 allows it; D10), so no group
    // waits for it.
    if (edge.mode !== 'validated' || gatingGroup === undefined || gatingGroup === '') continue;
    const key = `${gatingGroup}\u0000${edge.from}\u0000${edge.to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let group = groups.get(gatingGroup);
    if (group === undefined) {
      group = { gatingGroup, entries: 0, targets: new Map(), waiting: [] };
      groups.set(gatingGroup, group);
    }
    group.entries += 1;
    const froms = group.targets.get(edge.to);
    if (froms === undefined) group.targets.set(edge.to, [edge.from]);
    else froms.push(edge.from);
  }
  return groups;
}

/** Reads each (group, target) record once: its waiting entries and its last pass. */
function summarize(
  group: GroupSummary,
  recordOf: ValidatedStatusInputs['record'],
  newest: (component: string) => number | undefined,
): void {
  for (const [target, froms] of group.targets) {
    const record = recordOf(group.gatingGroup, target);
    for (const from of froms) {
      if (isWaiting(newest(from), record, from)) group.waiting.push(waitingEntryText(from, target));
    }
    const pass = record?.lastPass;
    if (pass !== undefined && (group.lastPass === undefined || isNewerPass(pass, group.lastPass))) {
      group.lastPass = pass;
    }
  }
  group.waiting.sort(compareStrings);
}

/**
 * An entry waits on its group's next pass when its source has a build newer than the one it last
 * nudged (or handed to a ChangeGroup), or it never nudged and has a build at all. A build already
 * in the batch under way is not waiting on a pass: a pass chose it.
 */
function isWaiting(newestBuild: number | undefined, record: ValidatedRecord | undefined, from: string): boolean {
  if (newestBuild === undefined) return false;
  const nudged = record?.nudged.get(from)?.buildCreatedAt;
  const batched = record?.batch?.entries[from]?.buildCreatedAt;
  const covered = Math.max(nudged ?? -1, batched ?? -1);
  return newestBuild > covered;
}

/** The later Snapshot (D10 orders them by start time), then the later use, then the name. */
function isNewerPass(a: LastPass, b: LastPass): boolean {
  if (a.startTime !== b.startTime) return a.startTime > b.startTime;
  if (a.at !== b.at) return a.at > b.at;
  return a.snapshot > b.snapshot;
}

/** Every group when they fit; else those with the most waiting entries (then by name). Sorted by name. */
function chooseListed(groups: GroupSummary[]): GroupSummary[] {
  const byName = (a: GroupSummary, b: GroupSummary): number => compareStrings(a.gatingGroup, b.gatingGroup);
  if (groups.length <= MAX_STATUS_GATING_GROUPS) return groups.sort(byName);
  return groups
    .sort((a, b) => b.waiting.length - a.waiting.length || byName(a, b))
    .slice(0, MAX_STATUS_GATING_GROUPS)
    .sort(byName);
}

// What the API server's `format: date-time` accepts; a record's `at` that is not one is left out
// rather than have the whole status write refused.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function groupStatus(group: GroupSummary, perGroup: number): ValidatedGroupStatus {
  const sample = group.waiting.slice(0, perGroup);
  const pass = group.lastPass;
  return {
    gatingGroup: group.gatingGroup,
    entries: group.entries,
    targets: group.targets.size,
    waiting: group.waiting.length,
    ...(sample.length === 0 ? {} : { waitingEntries: sample }),
    ...(pass === undefined ? {} : { lastPassingSnapshot: { name: pass.snapshot, startTime: pass.startTime } }),
    ...(pass === undefined || !RFC3339.test(pass.at) ? {} : { lastNudgeTime: pass.at }),
  };
}

function memoized(read: (component: string) => number | undefined): (component: string) => number | undefined {
  const known = new Map<string, number | undefined>();
  return (component) => {
    if (known.has(component)) return known.get(component);
    const value = read(component);
    known.set(component, value);
    return value;
  };
}

/** Whether two `status.validatedNudges` say the same, field by field (the API server may reorder keys). */
export function sameValidatedNudgesStatus(
  a: ValidatedNudgesStatus | undefined,
  b: ValidatedNudgesStatus | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.entries === b.entries &&
    a.waiting === b.waiting &&
    a.gatingGroups === b.gatingGroups &&
    a.groups.length === b.groups.length &&
    a.groups.every((group, index) => {
      const other = b.groups[index];
      return other !== undefined && sameGroup(group, other);
    })
  );
}

function sameGroup(a: ValidatedGroupStatus, b: ValidatedGroupStatus): boolean {
  return (
    a.gatingGroup === b.gatingGroup &&
    a.entries === b.entries &&
    a.targets === b.targets &&
    a.waiting === b.waiting &&
    sameList(a.waitingEntries ?? [], b.waitingEntries ?? []) &&
    a.lastPassingSnapshot?.name === b.lastPassingSnapshot?.name &&
    a.lastPassingSnapshot?.startTime === b.lastPassingSnapshot?.startTime &&
    a.lastNudgeTime === b.lastNudgeTime
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
