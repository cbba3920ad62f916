// What the dispatcher reads from its caches, without I/O (docs/decisions.md D9, N18): the decision's
// input for one build, the executor a namespace chose, the newer build that supersedes one, and
// which builds a change of a namespace's NudgeConfig, Components or ChangeGroups must wake.
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import type { ChangeGroupSource } from '../../cluster/changegroups.ts';
import { namespaceNudgeGraph } from '../../cluster/nudge-graph.ts';
import { nudgingComponentFacts } from '../../cluster/nudged-repository.ts';
import { compareStrings } from '../../domain/compare.ts';
import { buildPipelineRunOf, pipelineRunView } from '../../domain/nudge-pipelinerun.ts';
import { isDispatcherHeldRecord, releasedHolds } from '../../domain/nudge/dispatch-release.ts';
import { DISPATCH_EXECUTORS, type DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import {
  DISPATCH_FINALIZER,
  DISPATCH_MARKER_ANNOTATION,
  isSettled,
  parseMarker,
} from '../../domain/nudge/dispatch-marker.ts';
import type { DispatchPolicy } from '../../domain/nudge/dispatch-policy.ts';
import { verifyDispatchBuild } from '../../domain/nudge/dispatch-verify.ts';
import type { DispatchInput } from '../../domain/nudge/dispatch.ts';
import type { ObjectKey } from '../../runtime/reconciler.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ClusterConfigMap } from '../../schema/config-map.ts';
import { preMergeOfBuild } from './pre-merge-inputs.ts';

/** On the NudgeConfig: which executor fires this namespace's nudges (docs/decisions.md D9). */
export const EXECUTOR_ANNOTATION = 'nudger.konflux-ci.dev/executor';

export interface ExecutorChoice {
  readonly executor: DispatchExecutor;
  /** The annotation's value when it names no executor; the default is used and this is reported. */
  readonly unknown?: string;
}

function isExecutor(value: string): value is DispatchExecutor {
  return (DISPATCH_EXECUTORS as readonly string[]).includes(value);
}

/**
 * The NudgeConfig's annotation, else the manager's default. A value that names no executor falls
 * back to the default and is reported: failing every nudge of the namespace for a typo would lose
 * them, and the Warning says which executor fires instead.
 */
export function executorChoice(
  nudgeConfig: ClusterNudgeConfig | undefined,
  fallback: DispatchExecutor,
): ExecutorChoice {
  const value = nudgeConfig?.metadata?.annotations?.[EXECUTOR_ANNOTATION]?.trim();
  if (value === undefined || value === '') return { executor: fallback };
  return isExecutor(value) ? { executor: value } : { executor: fallback, unknown: value };
}

export interface DispatchCaches {
  readonly builds: Store<PipelineRun>;
  readonly components: Store<ClusterComponent>;
  readonly nudgeConfigs: Store<ClusterNudgeConfig>;
  readonly changeGroups: ChangeGroupSource;
  /**
   * Nudge PipelineRuns (label-selected), where the held-nudge records are: a ChangeGroup releases
   * a hold by annotating its record (docs/decisions.md N19). Absent: no hold is ever released.
   */
  readonly nudgeRuns?: Store<PipelineRun>;
  /** The dispatcher's records; the pre-merge ones say which push builds a pre-merge nudge pins (N35). */
  readonly records?: Store<ClusterConfigMap>;
}

/**
 * The name of a newer push build of the same component that succeeded and passes D3, if the cache
 * holds one: its nudges carry a newer digest. Newer is a later creationTimestamp (the order
 * rebuilds of one component are made in), then a greater name for builds of the same second.
 */
export function supersedingBuild(
  builds: Store<PipelineRun>,
  build: PipelineRun,
  component: ClusterComponent | undefined,
): string | undefined {
  const run = buildPipelineRunOf(build);
  const { namespace, name, creationTimestamp } = run.pipelineRun;
  if (run.component === undefined || creationTimestamp === undefined) return undefined;
  const facts = nudgingComponentFacts(component);
  let newest: { readonly name: string; readonly createdAt: string } | undefined;
  for (const other of builds.list(namespace)) {
    const candidate = buildPipelineRunOf(other);
    const view = candidate.pipelineRun;
    if (view.name === name || candidate.component !== run.component || candidate.succeeded !== 'True') continue;
    const createdAt = view.creationTimestamp;
    if (createdAt === undefined || !isLater(createdAt, view.name, creationTimestamp, name)) continue;
    if (newest !== undefined && !isLater(createdAt, view.name, newest.createdAt, newest.name)) continue;
    if (verifyDispatchBuild(other, facts).ok) newest = { name: view.name, createdAt };
  }
  return newest?.name;
}

function isLater(createdAt: string, name: string, thanCreatedAt: string, thanName: string): boolean {
  const a = Date.parse(createdAt);
  const b = Date.parse(thanCreatedAt);
  if (a !== b) return a > b;
  return compareStrings(name, thanName) > 0;
}

/** Everything decideDispatch reads about `build`, from the caches. */
export function dispatchInputOf(
  caches: DispatchCaches,
  build: PipelineRun,
  executor: DispatchExecutor,
  now: number,
  policy: DispatchPolicy | undefined,
): DispatchInput {
  const namespace = build.metadata?.namespace ?? '';
  const componentName = buildPipelineRunOf(build).component;
  const nudging = componentName === undefined ? undefined : caches.components.get(namespace, componentName);
  const components = caches.components.list(namespace);
  const nudgeConfig = caches.nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME);
  const supersededBy = supersedingBuild(caches.builds, build, nudging);
  const preMerge = preMergeOfBuild(caches.records, nudgeConfig, build);
  const view = pipelineRunView(build);
  const records = (caches.nudgeRuns?.list(namespace) ?? []).filter(isDispatcherHeldRecord);
  const released = releasedHolds(
    { namespace, name: view.name, ...(view.uid === undefined ? {} : { uid: view.uid }) },
    records,
  );
  return {
    build,
    verification: verifyDispatchBuild(build, nudgingComponentFacts(nudging)),
    hasNudgeConfig: nudgeConfig !== undefined,
    ...(typeof nudgeConfig?.metadata?.creationTimestamp === 'string'
      ? { nudgeConfigCreatedAt: nudgeConfig.metadata.creationTimestamp }
      : {}),
    // The one graph derivation (src/cluster/nudge-graph.ts): NudgeConfig entries and build-nudges-ref.
    graph: namespaceNudgeGraph(namespace, { components, nudgeConfig }),
    executor,
    components: new Set(components.map((c) => c.metadata?.name ?? '').filter((n) => n !== '')),
    changeGroups: caches.changeGroups.inNamespace(namespace),
    ...(supersededBy === undefined ? {} : { supersededBy }),
    ...(released.size === 0 ? {} : { releasedHolds: released }),
    ...(preMerge === undefined ? {} : { preMerge }),
    now,
    ...(policy === undefined ? {} : { policy }),
  };
}

/**
 * A build the dispatcher may still act on: it holds the finalizer, or its marker is unreadable or
 * not settled, or (in a namespace with a NudgeConfig) it has no marker yet. A settled build
 * without the finalizer is done for good; in a namespace without a NudgeConfig, a build nudger
 * never touched is build-service's and stays so.
 */
export function isUnsettled(build: PipelineRun, namespaceHasNudgeConfig = true): boolean {
  const metadata = build.metadata ?? {};
  if ((metadata.finalizers ?? []).includes(DISPATCH_FINALIZER)) return true;
  const text = metadata.annotations?.[DISPATCH_MARKER_ANNOTATION];
  if (text === undefined) return namespaceHasNudgeConfig;
  const reading = parseMarker(text);
  return !reading.ok || !isSettled(reading.marker);
}

/** The keys of a namespace's unsettled builds: what a NudgeConfig, Component or ChangeGroup change wakes. */
export function unsettledBuildsOf(
  builds: Store<PipelineRun>,
  nudgeConfigs: Store<ClusterNudgeConfig>,
  namespace: string,
): ObjectKey[] {
  const hasNudgeConfig = nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME) !== undefined;
  return builds
    .list(namespace)
    .filter((build) => isUnsettled(build, hasNudgeConfig))
    .map((build) => ({ namespace, name: build.metadata?.name ?? '' }));
}
