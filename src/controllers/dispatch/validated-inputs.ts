// What the validated-nudge reconciler reads from its caches, without I/O (docs/decisions.md D10,
// N27): the namespace's (gating group, target) pairs from the one graph derivation, the group's
// passing Snapshots, each pair's record, and the D3 and D2 answers the decision asks for.
import type { ChangeGroupSource } from '../../cluster/changegroups.ts';
import { namespaceNudgeGraph } from '../../cluster/nudge-graph.ts';
import { nudgingComponentFacts } from '../../cluster/nudged-repository.ts';
import { decideNudgeHold } from '../../domain/changegroup/hold-decision.ts';
import type { VerifiedBuild } from '../../domain/changegroup/verify-build.ts';
import { compareStrings } from '../../domain/compare.ts';
import type { NamespaceGraph } from '../../domain/graph.ts';
import { buildPipelineRunOf, pipelineRunView } from '../../domain/nudge-pipelinerun.ts';
import { isDispatcherHeldRecord, releasedHolds } from '../../domain/nudge/dispatch-release.ts';
import { verifyDispatchBuild } from '../../domain/nudge/dispatch-verify.ts';
import type { DigestVerification } from '../../domain/nudge/validated-decision.ts';
import {
  emptyValidatedRecord,
  parseValidatedRecord,
  validatedRecordName,
  VALIDATED_RECORD_KEY,
  type RecordReading,
} from '../../domain/nudge/validated-record.ts';
import { readSnapshot, type PassingSnapshot } from '../../domain/nudge/validated-snapshot.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { ClusterConfigMap } from '../../schema/config-map.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ClusterSnapshot } from '../../schema/snapshot.ts';

export interface ValidatedCaches {
  readonly builds: Store<PipelineRun>;
  readonly components: Store<ClusterComponent>;
  readonly changeGroups: ChangeGroupSource;
  readonly snapshots: Store<ClusterSnapshot>;
  readonly records: Store<ClusterConfigMap>;
  /** Where the held-nudge records are; a ChangeGroup lets go of a hold there (N19). */
  readonly nudgeRuns?: Store<PipelineRun>;
}

/** One (gating group, target) pair of the namespace's validated entries. */
export interface ValidatedPair {
  readonly group: string;
  readonly target: string;
  readonly froms: readonly string[];
}

/** The validated entries of `graph`, by (group, target), in name order. */
export function validatedPairs(graph: NamespaceGraph): ValidatedPair[] {
  const pairs = new Map<string, { group: string; target: string; froms: Set<string> }>();
  for (const edge of graph.edges) {
    if (edge.mode !== 'validated' || edge.gatingGroup === undefined || edge.gatingGroup === '') continue;
    const id = `${edge.gatingGroup}\u0000${edge.to}`;
    const pair = pairs.get(id) ?? { group: edge.gatingGroup, target: edge.to, froms: new Set<string>() };
    pair.froms.add(edge.from);
    pairs.set(id, pair);
  }
  return [...pairs.values()]
    .map(({ group, target, froms }) => ({ group, target, froms: [...froms].sort(compareStrings) }))
    .sort((a, b) => compareStrings(a.group, b.group) || compareStrings(a.target, b.target));
}

/** The namespace's graph, from the one derivation the build dispatcher and the webhooks use. */
export function namespaceGraphOf(
  components: Store<ClusterComponent>,
  namespace: string,
  nudgeConfig: Parameters<typeof namespaceNudgeGraph>[1]['nudgeConfig'],
): NamespaceGraph {
  return namespaceNudgeGraph(namespace, { components: components.list(namespace), nudgeConfig });
}

/** The namespace's passing push Snapshots, by group. */
export function passingSnapshotsByGroup(
  snapshots: Store<ClusterSnapshot>,
  namespace: string,
): Map<string, PassingSnapshot[]> {
  const byGroup = new Map<string, PassingSnapshot[]>();
  for (const snapshot of snapshots.list(namespace)) {
    const reading = readSnapshot(snapshot);
    if (reading.kind !== 'passing') continue;
    const list = byGroup.get(reading.snapshot.group) ?? [];
    list.push(reading.snapshot);
    byGroup.set(reading.snapshot.group, list);
  }
  return byGroup;
}

/** The pair's record ConfigMap as cached, if there is one. */
export function recordObjectOf(
  records: Store<ClusterConfigMap>,
  namespace: string,
  pair: Pick<ValidatedPair, 'group' | 'target'>,
): ClusterConfigMap | undefined {
  return records.get(namespace, validatedRecordName(pair.group, pair.target));
}

/** The record a ConfigMap holds; no ConfigMap is an empty record, an unreadable one a problem. */
export function readRecord(
  object: ClusterConfigMap | undefined,
  pair: Pick<ValidatedPair, 'group' | 'target'>,
): RecordReading {
  if (object === undefined) return { ok: true, record: emptyValidatedRecord(pair.group, pair.target) };
  return parseValidatedRecord(object.data?.[VALIDATED_RECORD_KEY], pair.group, pair.target);
}

export interface VerifiedBuildRun {
  readonly run: PipelineRun;
  readonly build: VerifiedBuild;
  readonly createdAt: number;
}

/**
 * `run` when it is a succeeded `event` build that passes D3 for its Component, with what it
 * produced and when it was created (0 when unknown); undefined otherwise.
 */
export function verifiedBuildRun(
  run: PipelineRun,
  components: Store<ClusterComponent>,
  event: 'push' | 'pull-request' = 'push',
): VerifiedBuildRun | undefined {
  const view = buildPipelineRunOf(run);
  if (view.component === undefined || view.succeeded !== 'True') return undefined;
  const facts = nudgingComponentFacts(components.get(view.pipelineRun.namespace, view.component));
  const verification = verifyDispatchBuild(run, facts, event);
  if (!verification.ok) return undefined;
  const { ok: _ok, ...build } = verification;
  const createdAt = Date.parse(view.pipelineRun.creationTimestamp ?? '');
  return { run, build, createdAt: Number.isNaN(createdAt) ? 0 : createdAt };
}

/**
 * The namespace's succeeded push builds that pass D3, by component, computed once per reconcile:
 * a validated digest is nudged only if one of them produced it.
 */
export class VerifiedBuilds {
  readonly #byComponent = new Map<string, VerifiedBuildRun[]>();

  constructor(builds: Store<PipelineRun>, components: Store<ClusterComponent>, namespace: string) {
    for (const run of builds.list(namespace)) {
      const found = verifiedBuildRun(run, components);
      if (found === undefined) continue;
      const list = this.#byComponent.get(found.build.component) ?? [];
      list.push(found);
      this.#byComponent.set(found.build.component, list);
    }
  }

  /** The newest build of `component` whose pull spec is `image` (`repo@sha256:…`). */
  find(component: string, image: string): VerifiedBuildRun | undefined {
    let found: VerifiedBuildRun | undefined;
    for (const candidate of this.#byComponent.get(component) ?? []) {
      if (candidate.build.pullSpec !== image) continue;
      if (found === undefined || candidate.createdAt > found.createdAt) found = candidate;
    }
    return found;
  }

  /** By name, as a batch entry recorded it. */
  named(component: string, name: string): VerifiedBuildRun | undefined {
    return this.#byComponent.get(component)?.find((candidate) => candidate.build.pipelineRun === name);
  }

  /** The newest verified build's creation time per component (the status's "waiting"). */
  newestCreatedAt(component: string): number | undefined {
    let newest: number | undefined;
    for (const candidate of this.#byComponent.get(component) ?? []) {
      newest = Math.max(newest ?? candidate.createdAt, candidate.createdAt);
    }
    return newest;
  }

  verify(component: string, image: string): DigestVerification {
    const found = this.find(component, image);
    if (found === undefined) return { ok: false, reason: 'no-matching-build' };
    const uid = pipelineRunView(found.run).uid;
    return {
      ok: true,
      build: { name: found.build.pipelineRun, ...(uid === undefined ? {} : { uid }), createdAt: found.createdAt },
    };
  }
}

/** D2 for one validated entry: the ChangeGroup holding `component`'s nudges of `target`, if any. */
export function holderOf(
  changeGroups: ChangeGroupSource,
  namespace: string,
  target: string,
): (component: string) => string | undefined {
  const views = changeGroups.inNamespace(namespace);
  return (component) => {
    const decision = decideNudgeHold({ namespace, nudgingComponent: component, nudgedComponents: [target] }, views);
    return decision.action === 'cancel' ? decision.coveredBy[0]?.changeGroup : undefined;
  };
}

/** Whether the ChangeGroup that holds a validated digest of `target` has let go of it (N19). */
export function releasedOf(
  nudgeRuns: Store<PipelineRun> | undefined,
  namespace: string,
  target: string,
): (component: string, held: { changeGroup: string; build: string; buildUid?: string }) => boolean {
  const records = (nudgeRuns?.list(namespace) ?? []).filter(isDispatcherHeldRecord);
  return (_component, held) => {
    const build = { namespace, name: held.build, ...(held.buildUid === undefined ? {} : { uid: held.buildUid }) };
    return releasedHolds(build, records).get(target) === held.changeGroup;
  };
}
