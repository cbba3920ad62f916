// The validated-nudges controller (docs/decisions.md D10, N27), declared with its own watches: one
// key per namespace (its NudgeConfig), woken by a Snapshot whose verdict changes, the pair records,
// a released hold, a build that ends, and the graph and D2 changes the build dispatcher is woken by.
// It starts once Snapshots can be listed (N22): without integration-service it waits, told once.
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { COMPONENT_SNAPSHOTS_SELECTOR, SNAPSHOTS_KIND } from '../../cluster/watched-kinds.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { isDispatcherHeldRecord } from '../../domain/nudge/dispatch-release.ts';
import { readSnapshot } from '../../domain/nudge/validated-snapshot.ts';
import { validatedNudgesStatus } from '../../domain/nudge/validated-status.ts';
import type { ControllerContext } from '../../runtime/controller-module.ts';
import { Controller } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { OptionalKindCache } from '../../runtime/optional-kind.ts';
import type { ObjectKey } from '../../runtime/reconciler.ts';
import type { ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { ClusterConfigMap } from '../../schema/config-map.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ClusterSnapshot } from '../../schema/snapshot.ts';
import type { ControllerSettings } from '../settings.ts';
import { ValidatedReconciler, validatedKeyOf, type ValidatedReconcilerOptions } from './validated-reconciler.ts';
import { writeValidatedNudgesStatus } from './validated-status-writer.ts';
import {
  buildSucceededChanged,
  changeGroupChanged,
  generationChanged,
  nudgeConfigChanged,
} from './watch-predicates.ts';

/** The dispatcher's caches both namespace-keyed controllers (validated, pre-merge) watch. */
export interface DispatchInformers {
  readonly builds: Informer<PipelineRun>;
  readonly components: Informer<ClusterComponent>;
  readonly nudgeConfigs: Informer<ClusterNudgeConfig>;
  readonly changeGroups: Informer<ClusterChangeGroup>;
  readonly nudgeRuns: Informer<PipelineRun>;
  readonly records: Informer<ClusterConfigMap>;
  /** The namespace-wide Renovate ConfigMaps (N49): watched for their sync only. */
  readonly renovateConfigs?: Informer<ClusterConfigMap>;
}

/** Maps an object to its namespace's key, when the namespace has a NudgeConfig. */
export function namespaceKeys(nudgeConfigs: Informer<ClusterNudgeConfig>): {
  readonly always: (object: KubeObject) => ObjectKey[];
  readonly withNudgeConfig: (object: KubeObject) => ObjectKey[];
} {
  const always = (object: KubeObject): ObjectKey[] => [validatedKeyOf(object.metadata?.namespace ?? '')];
  const withNudgeConfig = (object: KubeObject): ObjectKey[] =>
    nudgeConfigs.store.get(object.metadata?.namespace ?? '', NUDGE_CONFIG_NAME) === undefined ? [] : always(object);
  return { always, withNudgeConfig };
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

export function validatedNudgesController(
  setup: Omit<ControllerContext<ControllerSettings>, 'events' | 'settings'>,
  caches: DispatchInformers,
  options: Omit<ValidatedReconcilerOptions, 'snapshots' | 'records' | 'afterNamespace'>,
  workers: number,
): { readonly run: (signal: AbortSignal) => Promise<void>; readonly controller: Controller } {
  const { client, informers, registry, logger, namespace, cacheSyncTimeoutMs } = setup;
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
  const controller = new Controller({
    reconciler: new ValidatedReconciler({
      ...options,
      snapshots: snapshots.store,
      records: caches.records.store,
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
    concurrency: workers,
    registry,
    logger,
    ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    onCacheSyncTimeout: 'keepWaiting',
  });
  const keys = namespaceKeys(caches.nudgeConfigs);
  controller.watch(snapshots.informer, { map: keys.withNudgeConfig, updatePredicate: snapshotVerdictChanged });
  controller.watch(caches.records, { map: keys.always });
  controller.watch(caches.nudgeConfigs, { map: keys.always, updatePredicate: nudgeConfigChanged });
  controller.watch(caches.components, { map: keys.withNudgeConfig, updatePredicate: generationChanged });
  controller.watch(caches.changeGroups, { map: keys.withNudgeConfig, updatePredicate: changeGroupChanged });
  controller.watch(caches.nudgeRuns, {
    map: (run) => (isDispatcherHeldRecord(run) ? keys.withNudgeConfig(run) : []),
  });
  controller.watch(caches.builds, { map: keys.withNudgeConfig, updatePredicate: buildSucceededChanged });
  if (caches.renovateConfigs !== undefined) controller.watch(caches.renovateConfigs, { map: () => [] });
  return {
    controller,
    run: async (signal) => {
      await Promise.all([
        snapshots.run(signal),
        (async () => {
          if (await snapshots.whenListable(signal)) await controller.start(signal);
        })(),
      ]);
    },
  };
}
