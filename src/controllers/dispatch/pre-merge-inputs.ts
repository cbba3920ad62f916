// What the pre-merge reconciler reads from its caches, without I/O (docs/decisions.md D11, N35):
// whether the namespace opted in, its (PR group, target) pairs (from the group's verified
// pull-request builds and from the records already kept), the newest build of each triggering PR,
// and the push build of a merge commit.
import { compareStrings } from '../../domain/compare.ts';
import type { NamespaceGraph } from '../../domain/graph.ts';
import { buildPipelineRunOf } from '../../domain/nudge-pipelinerun.ts';
import { immediateTargets } from '../../domain/nudge/dispatch-targets.ts';
import {
  absorbedPushCommits,
  openTriggerComponents,
  type ObservedPullRequestBuild,
} from '../../domain/nudge/pre-merge-decision.ts';
import {
  emptyPreMergeRecord,
  parsePreMergeRecord,
  preMergeRecordName,
  PRE_MERGE_RECORD_KEY,
  PRE_MERGE_RECORD_LABEL_VALUE,
  type PinnedBuild,
  type PreMergeRecordReading,
} from '../../domain/nudge/pre-merge-record.ts';
import { pullRequestBuildIdentity, pushCommitOf } from '../../domain/nudge/pre-merge-text.ts';
import {
  RECORD_GROUP_ANNOTATION,
  RECORD_TARGET_ANNOTATION,
  VALIDATED_RECORD_LABEL,
} from '../../domain/nudge/validated-record.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { ClusterConfigMap } from '../../schema/config-map.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import { verifiedBuildRun, type VerifiedBuildRun } from './validated-inputs.ts';

/** On the NudgeConfig: `"true"` opts the namespace into pre-merge nudges (docs/decisions.md D11). */
export const PRE_MERGE_ANNOTATION = 'nudger.konflux-ci.dev/pre-merge';

export function preMergeEnabled(nudgeConfig: ClusterNudgeConfig | undefined): boolean {
  return nudgeConfig?.metadata?.annotations?.[PRE_MERGE_ANNOTATION]?.trim() === 'true';
}

/** One (PR group, target) pair and the newest build of each of its PRs now in the cache. */
export interface PreMergePair {
  readonly group: string;
  readonly target: string;
  readonly builds: readonly ObservedPullRequestBuild[];
}

/** A verified build with its PR (pull-request builds) or its commit (push builds). */
interface Indexed extends VerifiedBuildRun {
  readonly pinned: PinnedBuild;
}

function pinnedOf(found: VerifiedBuildRun): PinnedBuild {
  return { name: found.build.pipelineRun, digest: found.build.digest, createdAt: found.createdAt };
}

function verifiedRun(
  run: PipelineRun,
  components: Store<ClusterComponent>,
  event: 'push' | 'pull-request',
): Indexed | undefined {
  // verifyDispatchBuild checks the event too; asking first spares D3 for every other build.
  if (buildPipelineRunOf(run).eventType !== event) return undefined;
  const found = verifiedBuildRun(run, components, event);
  return found === undefined ? undefined : { ...found, pinned: pinnedOf(found) };
}

/**
 * The namespace's verified, succeeded pull-request builds by PR, the newest of each, and its
 * verified push builds by `<component>@<commit>`: computed once per reconcile.
 */
export class PreMergeBuilds {
  readonly #pullRequests = new Map<string, { identity: ReturnType<typeof pullRequestBuildIdentity>; found: Indexed }>();
  readonly #pushes = new Map<string, Indexed>();
  readonly #byName = new Map<string, Indexed>();

  constructor(
    pullRequestBuilds: Store<PipelineRun>,
    pushBuilds: Store<PipelineRun>,
    components: Store<ClusterComponent>,
    namespace: string,
  ) {
    for (const run of pullRequestBuilds.list(namespace)) {
      const identity = pullRequestBuildIdentity(run);
      if (identity === undefined) continue;
      const found = verifiedRun(run, components, 'pull-request');
      if (found === undefined) continue;
      this.#byName.set(found.build.pipelineRun, found);
      const key = `${identity.group}\u0000${identity.component}#${String(identity.number)}`;
      const known = this.#pullRequests.get(key);
      if (known === undefined || found.createdAt > known.found.createdAt)
        this.#pullRequests.set(key, { identity, found });
    }
    for (const run of pushBuilds.list(namespace)) {
      const commit = pushCommitOf(run);
      const found = commit === undefined ? undefined : verifiedRun(run, components, 'push');
      if (found === undefined || commit === undefined) continue;
      this.#byName.set(found.build.pipelineRun, found);
      const key = `${found.build.component}@${commit}`;
      const known = this.#pushes.get(key);
      if (known === undefined || found.createdAt > known.createdAt) this.#pushes.set(key, found);
    }
  }

  /** The newest build of each PR, with its group. */
  pullRequests(): { readonly group: string; readonly observed: ObservedPullRequestBuild }[] {
    return [...this.#pullRequests.values()].flatMap(({ identity, found }) =>
      identity === undefined
        ? []
        : [
            {
              group: identity.group,
              observed: {
                component: identity.component,
                number: identity.number,
                repoUrl: identity.repoUrl,
                build: found.pinned,
                sourceBranch: identity.sourceBranch,
                ...(identity.headSha === undefined ? {} : { headSha: identity.headSha }),
              },
            },
          ],
    );
  }

  /** The verified push build of `component` at `commit` (as Pipelines-as-Code recorded it). */
  push(component: string, commit: string): PinnedBuild | undefined {
    return this.#pushes.get(`${component}@${commit.toLowerCase()}`)?.pinned;
  }

  /** A verified build (either event) by name, for the executor's request. */
  named(name: string): VerifiedBuildRun | undefined {
    return this.#byName.get(name);
  }
}

/**
 * The pairs to decide: each PR group's builds times the immediate targets of their component (a
 * target the component does not nudge is no business of this group's), and every pair a record
 * already exists for (its builds may be gone, its PRs not).
 */
export function preMergePairs(
  graph: NamespaceGraph,
  builds: PreMergeBuilds,
  records: readonly ClusterConfigMap[],
): PreMergePair[] {
  const pairs = new Map<string, { group: string; target: string; builds: ObservedPullRequestBuild[] }>();
  const pairOf = (group: string, target: string) => {
    const id = `${group}\u0000${target}`;
    let pair = pairs.get(id);
    if (pair === undefined) {
      pair = { group, target, builds: [] };
      pairs.set(id, pair);
    }
    return pair;
  };
  for (const { group, observed } of builds.pullRequests()) {
    for (const target of immediateTargets(graph, observed.component)) {
      if (target !== observed.component) pairOf(group, target).builds.push(observed);
    }
  }
  for (const record of records) {
    if (!isPreMergeRecord(record)) continue;
    const group = record.metadata?.annotations?.[RECORD_GROUP_ANNOTATION];
    const target = record.metadata?.annotations?.[RECORD_TARGET_ANNOTATION];
    if (group !== undefined && target !== undefined) pairOf(group, target);
  }
  return [...pairs.values()].sort((a, b) => compareStrings(a.group, b.group) || compareStrings(a.target, b.target));
}

/** A record ConfigMap of pre-merge nudges (not of validated ones). */
export function isPreMergeRecord(object: {
  readonly metadata?: { readonly labels?: Readonly<Record<string, string>> };
}): boolean {
  return object.metadata?.labels?.[VALIDATED_RECORD_LABEL] === PRE_MERGE_RECORD_LABEL_VALUE;
}

export function preMergeRecordObject(
  records: Store<ClusterConfigMap>,
  namespace: string,
  pair: Pick<PreMergePair, 'group' | 'target'>,
): ClusterConfigMap | undefined {
  return records.get(namespace, preMergeRecordName(pair.group, pair.target));
}

export function readPreMergeRecord(
  object: ClusterConfigMap | undefined,
  pair: Pick<PreMergePair, 'group' | 'target'>,
): PreMergeRecordReading {
  if (object === undefined) return { ok: true, record: emptyPreMergeRecord(pair.group, pair.target) };
  return parsePreMergeRecord(object.data?.[PRE_MERGE_RECORD_KEY], pair.group, pair.target);
}

/**
 * A cached record's reading, once per object: the build dispatcher asks on every decision of a push
 * build, and the cache hands out a new object only when the record changes.
 */
const readings = new WeakMap<ClusterConfigMap, PreMergeRecordReading>();

function cachedReading(object: ClusterConfigMap): PreMergeRecordReading {
  let reading = readings.get(object);
  if (reading === undefined) {
    const annotations = object.metadata?.annotations ?? {};
    reading = parsePreMergeRecord(
      object.data?.[PRE_MERGE_RECORD_KEY],
      annotations[RECORD_GROUP_ANNOTATION] ?? '',
      annotations[RECORD_TARGET_ANNOTATION] ?? '',
    );
    readings.set(object, reading);
  }
  return reading;
}

/**
 * How long a push build waits for the pre-merge controller to learn whether it built a merged
 * trigger (docs/decisions.md N35): two of its polls and a margin. Past it, the build is nudged as
 * any push build, since a trigger still open is not what this build merged.
 */
export const PRE_MERGE_PUSH_WAIT_MS = 150_000;

/**
 * What the pre-merge records of `build`'s namespace say about it (decideDispatch's `preMerge`):
 * the targets whose pre-merge nudge PR pins it (it built a merged trigger's merge commit), and,
 * while a trigger of its component is still open on record, until when its first decision waits.
 */
export function preMergeOfBuild(
  records: Store<ClusterConfigMap> | undefined,
  nudgeConfig: ClusterNudgeConfig | undefined,
  build: PipelineRun,
): { readonly absorbed: ReadonlySet<string>; readonly waitUntil?: number } | undefined {
  if (records === undefined || !preMergeEnabled(nudgeConfig)) return undefined;
  const view = buildPipelineRunOf(build);
  const component = view.component;
  const commit = pushCommitOf(build);
  if (component === undefined) return undefined;
  const absorbed = new Set<string>();
  let waits = false;
  for (const object of records.list(view.pipelineRun.namespace)) {
    if (!isPreMergeRecord(object)) continue;
    const target = object.metadata?.annotations?.[RECORD_TARGET_ANNOTATION] ?? '';
    const reading = cachedReading(object);
    if (!reading.ok) continue;
    if (commit !== undefined && absorbedPushCommits(reading.record).has(`${component}@${commit}`)) absorbed.add(target);
    else if (openTriggerComponents(reading.record).has(component)) waits = true;
  }
  const finished = Date.parse(build.status?.completionTime ?? view.pipelineRun.creationTimestamp ?? '');
  const waitUntil = waits && Number.isFinite(finished) ? finished + PRE_MERGE_PUSH_WAIT_MS : undefined;
  return { absorbed, ...(waitUntil === undefined ? {} : { waitUntil }) };
}
