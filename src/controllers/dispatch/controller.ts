// The dispatcher as a module (src/runtime/controller-module.ts, docs/decisions.md N22): leader only.
// Its caches: push build PipelineRuns (PUSH_BUILD_RUNS_SELECTOR says why a label selector on the
// event type), Components, NudgeConfigs and ChangeGroups. Of the Renovate ConfigMaps, only the
// namespace-wide ones are cached, by a field selector on their one name (at most one per
// namespace; docs/decisions.md N49): they saved a GET per nudge. A per-Component ConfigMap is read
// by name when a nudge fires: caching those would take a ConfigMap informer over every ConfigMap
// of every tenant, and their keys.
import { StoreChangeGroupSource } from '../../cluster/changegroups.ts';
import {
  BUILD_RUNS_KIND,
  CHANGE_GROUPS_KIND,
  COMPONENTS_KIND,
  CONFIG_MAPS_KIND,
  NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR,
  NUDGE_CONFIGS_KIND,
  NUDGE_RECORDS_SELECTOR,
  NUDGE_RUNS_SELECTOR,
  PIPELINE_RUNS_KIND,
  PUSH_BUILD_RUNS_SELECTOR,
  RELEASE_PLAN_ADMISSIONS_KIND,
} from '../../cluster/watched-kinds.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import { dispatchPolicyProblem, type DispatchPolicy } from '../../domain/nudge/dispatch-policy.ts';
import { recordBuildKey } from '../../domain/nudge/dispatch-release.ts';
import { isRenovateExecutorRun } from '../../domain/nudge/nudge-run-failure.ts';
import type { ControllerModule } from '../../runtime/controller-module.ts';
import { Controller } from '../../runtime/controller.ts';
import { objectKeyOf, type ObjectKey } from '../../runtime/reconciler.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ControllerSettings } from '../settings.ts';
import { managerExecutors, managerForgeResolver } from './default-executors.ts';
import type { NudgeExecutors } from './executor.ts';
import { unsettledBuildsOf } from './inputs.ts';
import { dispatchMetrics } from './metrics.ts';
import { NudgeRunFailureReconciler } from './nudge-run-failures.ts';
import { preMergeNudgesController } from './pre-merge-controller.ts';
import { isPreMergeRecord } from './pre-merge-inputs.ts';
import { ForgeTriggerReader } from './pre-merge-triggers.ts';
import { DispatchReconciler } from './reconciler.ts';
import { validatedNudgesController } from './validated-controller.ts';
import { changeGroupChanged, generationChanged, nudgeConfigChanged } from './watch-predicates.ts';

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
  /** How often a triggering PR's forge is asked again while it can change (D11); default 60 s. */
  readonly preMergePollMs?: number;
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

export const dispatchController: ControllerModule<ControllerSettings> = {
  name: 'dispatch',
  group: 'konflux',
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
    // The validated and pre-merge records (one ConfigMap per pair); the build dispatcher reads
    // the pre-merge ones too (which push builds a pre-merge nudge pins, N35).
    const records = informers.informer(CONFIG_MAPS_KIND, NUDGE_RECORDS_SELECTOR);
    // The Renovate settings every fire reads (N49): each namespace's one namespace-wide ConfigMap.
    const renovateConfigs = informers.informer(CONFIG_MAPS_KIND, NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR);
    // What both dispatch reconcilers (builds, validated pairs) read and fire with.
    const shared = {
      client,
      builds: builds.store,
      components: components.store,
      nudgeConfigs: nudgeConfigs.store,
      changeGroups: new StoreChangeGroupSource(changeGroups.store),
      nudgeRuns: nudgeRuns.store,
      records: records.store,
      releasePlanAdmissions: releasePlanAdmissions.store,
      renovateConfigs: renovateConfigs.store,
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
      onCacheSyncTimeout: 'keepWaiting',
    });
    controller.watch(builds);
    controller.watch(nudgeRuns, { map: buildOfRecord });
    // Read on each fire, never a reason to decide again: watched so that fires wait for its sync.
    controller.watch(renovateConfigs, { map: () => [] });
    // Graph and D2 changes reach builds not yet settled only (a settled build is never fired
    // from again), and only spec changes, phases and the executor annotation count: a
    // Component's status moves on every build.
    const wake = unsettledBuildsOfNamespace(builds.store, nudgeConfigs.store);
    controller.watch(nudgeConfigs, { map: wake, updatePredicate: nudgeConfigChanged });
    controller.watch(components, { map: wake, updatePredicate: generationChanged });
    controller.watch(changeGroups, { map: wake, updatePredicate: changeGroupChanged });
    // A pre-merge record that learns of a merge decides the push build waiting on it (N35).
    controller.watch(records, { map: (object) => (isPreMergeRecord(object) ? wake(object) : []) });
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
      onCacheSyncTimeout: 'keepWaiting',
    });
    runFailures.watch(nudgeRuns, { map: renovateExecutorRunKey });
    // The namespace-keyed controllers, each declaring its own watches: validated nudges
    // (docs/decisions.md D10, N27) and pre-merge nudges (D11, N35). Their records share one cache.
    const caches = {
      builds,
      components,
      nudgeConfigs,
      changeGroups,
      nudgeRuns,
      records,
      renovateConfigs,
    };
    const context = {
      client,
      informers,
      registry,
      logger,
      ...(namespace === undefined ? {} : { namespace }),
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    };
    const validated = validatedNudgesController(context, caches, shared, options.workers ?? 4);
    const preMerge = preMergeNudgesController(
      context,
      caches,
      {
        client,
        releasePlanAdmissions: shared.releasePlanAdmissions,
        renovateConfigs: shared.renovateConfigs,
        executors: shared.executors,
        triggers: new ForgeTriggerReader(managerForgeResolver(client, settings)),
        ...(options.policy === undefined ? {} : { policy: options.policy }),
        ...(options.fireTimeoutMs === undefined ? {} : { fireTimeoutMs: options.fireTimeoutMs }),
        ...(options.preMergePollMs === undefined ? {} : { pollMs: options.preMergePollMs }),
        metrics,
        logger,
      },
      options.workers ?? 4,
    );
    // A cluster without Tekton's CRD never syncs these caches, and a big one may sync them late:
    // each controller keeps waiting for its caches (onCacheSyncTimeout, docs/decisions.md N51),
    // so the others stay up and nudging starts once the lists arrive.
    return async (signal) => {
      await Promise.all([
        controller.start(signal),
        runFailures.start(signal),
        validated.run(signal),
        preMerge.start(signal),
      ]);
    };
  },
};
