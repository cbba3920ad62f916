// The dispatcher as a module (src/runtime/controller-module.ts, docs/decisions.md N22): leader only.
// Its caches: push build PipelineRuns (PUSH_BUILD_RUNS_SELECTOR says why a label selector on the
// event type), Components, NudgeConfigs and ChangeGroups. Renovate ConfigMaps are read by name
// when a nudge fires (one GET per fire, as the ChangeGroup controller reads them): a cluster-wide
// ConfigMap informer would cache every ConfigMap of every tenant, and their keys, to save a GET
// per pull request.
import { StoreChangeGroupSource } from '../../cluster/changegroups.ts';
import {
  BUILD_RUNS_KIND,
  CHANGE_GROUPS_KIND,
  COMPONENTS_KIND,
  NUDGE_CONFIGS_KIND,
  NUDGE_RUNS_SELECTOR,
  PIPELINE_RUNS_KIND,
  PUSH_BUILD_RUNS_SELECTOR,
  RELEASE_PLAN_ADMISSIONS_KIND,
  COMPONENT_SNAPSHOTS_SELECTOR,
  CONFIG_MAPS_KIND,
  SNAPSHOTS_KIND,
  VALIDATED_RECORDS_SELECTOR,
} from '../../cluster/watched-kinds.ts';
import { isDispatcherHeldRecord } from '../../domain/nudge/dispatch-release.ts';
import { buildPipelineRunOf } from '../../domain/nudge-pipelinerun.ts';
import { readSnapshot } from '../../domain/nudge/validated-snapshot.ts';
import type { ClusterSnapshot } from '../../schema/snapshot.ts';
import { ValidatedReconciler, validatedKeyOf } from './validated-reconciler.ts';
import { writeValidatedNudgesStatus } from './validated-status-writer.ts';
import { validatedNudgesStatus } from '../../domain/nudge/validated-status.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import { dispatchPolicyProblem, type DispatchPolicy } from '../../domain/nudge/dispatch-policy.ts';
import { recordBuildKey } from '../../domain/nudge/dispatch-release.ts';
import type { ControllerModule } from '../../runtime/controller-module.ts';
import { CacheSyncTimeoutError, Controller, generationChanged } from '../../runtime/controller.ts';
import { OptionalKindCache } from '../../runtime/optional-kind.ts';
import { objectKeyOf, type ObjectKey } from '../../runtime/reconciler.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ControllerSettings } from '../settings.ts';
import type { NudgeExecutors } from './executor.ts';
import { managerExecutors } from './default-executors.ts';
import { EXECUTOR_ANNOTATION, unsettledBuildsOf } from './inputs.ts';
import { dispatchMetrics } from './metrics.ts';
import { NudgeRunFailureReconciler } from './nudge-run-failures.ts';
import { DispatchReconciler } from './reconciler.ts';
import { isRenovateExecutorRun } from '../../domain/nudge/nudge-run-failure.ts';

export interface DispatchControllerOptions {
  /** `--nudge-dispatch`: false leaves firing to integration-service (docs/decisions.md D9). */
  readonly enabled: boolean;
  /** `--nudge-executor`: the executor of namespaces whose NudgeConfig names none. */
  readonly defaultExecutor: DispatchExecutor;
  /**
   * The executors this manager runs; default both, over the ChangeGroup controller's forges
   * (default-executors.ts). A nudge whose executor is missing fails (executor-unavailable).
   */
  readonly executors?: NudgeExecutors;
  /** Attempts and waits (docs/decisions.md N18); tests shorten them. */
  readonly policy?: DispatchPolicy;
  /** How long one fire may take (and another replica's `firing` entry is left alone); default 5 min. */
  readonly fireTimeoutMs?: number;
  readonly workers?: number;
}

/**
 * A Component's, NudgeConfig's or ChangeGroup's change wakes the namespace's builds still in the
 * dispatcher's hands. Read when the event arrives: a NudgeConfig's deletion is already out of the
 * cache, so only the builds nudger touched are woken (to be closed), not every build there.
 */
function unsettledBuildsOfNamespace(
  builds: Store<PipelineRun>,
  nudgeConfigs: Store<ClusterNudgeConfig>,
): (object: KubeObject) => ObjectKey[] {
  return (object) => unsettledBuildsOf(builds, nudgeConfigs, object.metadata?.namespace ?? '');
}

/** A held-nudge record wakes the build it stands for; any other nudge PipelineRun wakes nothing. */
function buildOfRecord(run: PipelineRun): ObjectKey[] {
  const key = recordBuildKey(run);
  return key === undefined ? [] : [key];
}

/** One of the renovate executor's runs wakes itself; any other nudge PipelineRun wakes nothing. */
function renovateExecutorRunKey(run: PipelineRun): ObjectKey[] {
  return isRenovateExecutorRun(run) ? [objectKeyOf(run)] : [];
}

function nudgeConfigChanged(previous: ClusterNudgeConfig, current: ClusterNudgeConfig): boolean {
  const executor = (config: ClusterNudgeConfig) => config.metadata?.annotations?.[EXECUTOR_ANNOTATION];
  return generationChanged(previous, current) || executor(previous) !== executor(current);
}

/** The D2 decision reads a ChangeGroup's spec and its phase (active or not). */
function changeGroupChanged(previous: ClusterChangeGroup, current: ClusterChangeGroup): boolean {
  return generationChanged(previous, current) || previous.status?.phase !== current.status?.phase;
}

/** A Snapshot matters when its verdict does: passing or not, and what a passing one carries. */
function snapshotVerdictChanged(previous: ClusterSnapshot, current: ClusterSnapshot): boolean {
  const verdict = (snapshot: ClusterSnapshot) => {
    const reading = readSnapshot(snapshot);
    return reading.kind === 'passing'
      ? `passing ${reading.snapshot.group} ${String(reading.snapshot.startTime)} ${[...reading.snapshot.images].join(' ')}`
      : reading.reason;
  };
  return verdict(previous) !== verdict(current);
}

/** A build matters to validated nudges once it succeeds: then its digest can be verified. */
function buildSucceededChanged(previous: PipelineRun, current: PipelineRun): boolean {
  return buildPipelineRunOf(previous).succeeded !== buildPipelineRunOf(current).succeeded;
}

export const dispatchController: ControllerModule<ControllerSettings> = {
  name: 'dispatch',
  leaderOnly: true,
  setUp({ client, informers, events, registry, logger, namespace, cacheSyncTimeoutMs, settings }) {
    const options = settings.dispatch;
    // Off unless the manager was given the section (the CLI always gives it; `--nudge-dispatch`
    // defaults to true): then no cache of build PipelineRuns is even started.
    if (options?.enabled !== true) return () => Promise.resolve();
    const problem = options.policy === undefined ? undefined : dispatchPolicyProblem(options.policy);
    if (problem !== undefined) throw new Error(`dispatch policy: ${problem}`);
    const builds = informers.informer(BUILD_RUNS_KIND, PUSH_BUILD_RUNS_SELECTOR);
    const components = informers.informer(COMPONENTS_KIND);
    const nudgeConfigs = informers.informer(NUDGE_CONFIGS_KIND);
    const changeGroups = informers.informer(CHANGE_GROUPS_KIND);
    // Held-nudge records: their release by a ChangeGroup fires the target (docs/decisions.md N19).
    // The same label-selected informer the ChangeGroup controller and the sweeper read.
    const nudgeRuns = informers.informer(PIPELINE_RUNS_KIND, NUDGE_RUNS_SELECTOR);
    // D6 distribution repositories: the ChangeGroup controller's ReleasePlanAdmissionCache probes
    // and runs this shared informer in the same leadership term; read here, never run twice. Empty
    // while release-service is absent: then only build repositories are rewritten, as there.
    const releasePlanAdmissions = informers.informer(RELEASE_PLAN_ADMISSIONS_KIND, { runByCaller: true });
    const metrics = dispatchMetrics(registry);
    // What both dispatch reconcilers (builds, validated pairs) read and fire with.
    const shared = {
      client,
      builds: builds.store,
      components: components.store,
      nudgeConfigs: nudgeConfigs.store,
      changeGroups: new StoreChangeGroupSource(changeGroups.store),
      nudgeRuns: nudgeRuns.store,
      releasePlanAdmissions: releasePlanAdmissions.store,
      // The instances the ChangeGroup controller and the sweeper re-dispatch held targets with.
      executors: managerExecutors(client, settings) ?? {},
      defaultExecutor: options.defaultExecutor,
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      ...(options.fireTimeoutMs === undefined ? {} : { fireTimeoutMs: options.fireTimeoutMs }),
      metrics,
      logger,
    };
    const controller = new Controller({
      reconciler: new DispatchReconciler({ ...shared, events }),
      concurrency: options.workers ?? 4,
      registry,
      logger,
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    });
    controller.watch(builds);
    controller.watch(nudgeRuns, { map: buildOfRecord });
    // Graph and D2 changes reach builds not yet settled only (a settled build is never fired
    // from again), and only spec changes, phases and the executor annotation count: a
    // Component's status moves on every build.
    const wake = unsettledBuildsOfNamespace(builds.store, nudgeConfigs.store);
    controller.watch(nudgeConfigs, { map: wake, updatePredicate: nudgeConfigChanged });
    controller.watch(components, { map: wake, updatePredicate: generationChanged });
    controller.watch(changeGroups, { map: wake, updatePredicate: changeGroupChanged });
    // The renovate executor's runs that end Succeeded=False are told once (docs/decisions.md N24):
    // keys of their own, on the same nudge PipelineRun cache, never mixed with the builds' keys.
    const runFailures = new Controller({
      reconciler: new NudgeRunFailureReconciler({
        client,
        nudgeRuns: nudgeRuns.store,
        components: components.store,
        metrics,
      }),
      registry,
      logger,
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    });
    runFailures.watch(nudgeRuns, { map: renovateExecutorRunKey });
    // Validated nudges (docs/decisions.md D10, N27): one key per namespace (its NudgeConfig), woken
    // by a Snapshot whose verdict changes, the pair records, a released hold, a build that
    // succeeds, and the graph and D2 changes the build dispatcher is woken by.
    // Optional (N22): without integration-service's CRD, or a grant to list Snapshots, the
    // validated controller waits for them, told once, instead of timing out its cache sync.
    const snapshots = new OptionalKindCache({
      kind: SNAPSHOTS_KIND,
      request: COMPONENT_SNAPSHOTS_SELECTOR,
      client,
      informers,
      logger,
      ...(namespace === undefined ? {} : { namespace }),
      unavailableMessage:
        'Snapshots cannot be listed; validated nudges wait for integration-service (D10), immediate nudges fire as before. Checking again every few minutes.',
      availableMessage: 'Snapshots can be listed now; validated nudges start',
    });
    const records = informers.informer(CONFIG_MAPS_KIND, VALIDATED_RECORDS_SELECTOR);
    const validated = new Controller({
      reconciler: new ValidatedReconciler({
        ...shared,
        snapshots: snapshots.store,
        records: records.store,
        // The NudgeConfig's status.validatedNudges, from what the reconcile saw (waiting entries,
        // last pass per group); written only when it changes.
        afterNamespace: async ({ nudgeConfig, graph, records, newestBuildCreatedAt }, signal) => {
          const status = validatedNudgesStatus({
            graph,
            record: (group, target) => records.get(`${group}\u0000${target}`),
            newestBuildCreatedAt,
          });
          await writeValidatedNudgesStatus(client, nudgeConfig, status, signal);
        },
      }),
      concurrency: options.workers ?? 4,
      registry,
      logger,
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    });
    const namespaceKey = (object: KubeObject): ObjectKey[] => [validatedKeyOf(object.metadata?.namespace ?? '')];
    const withNudgeConfig = (object: KubeObject): ObjectKey[] =>
      nudgeConfigs.store.get(object.metadata?.namespace ?? '', NUDGE_CONFIG_NAME) === undefined
        ? []
        : namespaceKey(object);
    validated.watch(snapshots.informer, { map: withNudgeConfig, updatePredicate: snapshotVerdictChanged });
    validated.watch(records, { map: namespaceKey });
    validated.watch(nudgeConfigs, { map: namespaceKey, updatePredicate: nudgeConfigChanged });
    validated.watch(components, { map: withNudgeConfig, updatePredicate: generationChanged });
    validated.watch(changeGroups, { map: withNudgeConfig, updatePredicate: changeGroupChanged });
    validated.watch(nudgeRuns, { map: (run) => (isDispatcherHeldRecord(run) ? withNudgeConfig(run) : []) });
    validated.watch(builds, { map: withNudgeConfig, updatePredicate: buildSucceededChanged });
    // A cluster without Tekton's CRD never syncs these caches; the other controllers stay up.
    const run = (started: Controller, signal: AbortSignal) =>
      started.start(signal).catch((error: unknown) => {
        if (!(error instanceof CacheSyncTimeoutError)) throw error;
        logger.error({ err: error, controller: started.name }, `${started.name} not running: a cache did not sync`);
      });
    const runValidated = async (signal: AbortSignal) => {
      if (await snapshots.whenListable(signal)) await run(validated, signal);
    };
    return async (signal) => {
      await Promise.all([
        run(controller, signal),
        run(runFailures, signal),
        snapshots.run(signal),
        runValidated(signal),
      ]);
    };
  },
};
