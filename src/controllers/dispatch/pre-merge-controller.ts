// The pre-merge-nudges controller (docs/decisions.md D11, N35), declared with its own watches: one
// key per namespace (its NudgeConfig), woken by a pull-request build that ends, a push build that
// ends (a merge commit's build), its pair records and the NudgeConfig's entries and opt-in; and,
// since a forge tells nudger nothing, by its own poll while a triggering PR can still change.
import { BUILD_RUNS_KIND, PULL_REQUEST_BUILD_RUNS_SELECTOR } from '../../cluster/watched-kinds.ts';
import type { ControllerContext } from '../../runtime/controller-module.ts';
import { Controller } from '../../runtime/controller.ts';
import type { ControllerSettings } from '../settings.ts';
import { PreMergeReconciler, type PreMergeReconcilerOptions } from './pre-merge-reconciler.ts';
import { namespaceKeys, type DispatchInformers } from './validated-controller.ts';
import { buildSucceededChanged, generationChanged, nudgeConfigChanged } from './watch-predicates.ts';

export function preMergeNudgesController(
  setup: Omit<ControllerContext<ControllerSettings>, 'events' | 'settings'>,
  caches: DispatchInformers,
  options: Omit<PreMergeReconcilerOptions, 'pullRequestBuilds' | 'records' | 'builds' | 'components' | 'nudgeConfigs'>,
  workers: number,
): Controller {
  const { informers, registry, logger, cacheSyncTimeoutMs } = setup;
  // Pull-request builds, slimmed like push builds (src/cluster/build-runs.ts): only this controller reads them.
  const pullRequestBuilds = informers.informer(BUILD_RUNS_KIND, PULL_REQUEST_BUILD_RUNS_SELECTOR);
  const controller = new Controller({
    reconciler: new PreMergeReconciler({
      ...options,
      builds: caches.builds.store,
      pullRequestBuilds: pullRequestBuilds.store,
      records: caches.records.store,
      components: caches.components.store,
      nudgeConfigs: caches.nudgeConfigs.store,
    }),
    concurrency: workers,
    registry,
    logger,
    ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    onCacheSyncTimeout: 'keepWaiting',
  });
  const keys = namespaceKeys(caches.nudgeConfigs);
  controller.watch(pullRequestBuilds, { map: keys.withNudgeConfig, updatePredicate: buildSucceededChanged });
  controller.watch(caches.builds, { map: keys.withNudgeConfig, updatePredicate: buildSucceededChanged });
  controller.watch(caches.records, { map: keys.always });
  controller.watch(caches.nudgeConfigs, { map: keys.always, updatePredicate: nudgeConfigChanged });
  controller.watch(caches.components, { map: keys.withNudgeConfig, updatePredicate: generationChanged });
  if (caches.renovateConfigs !== undefined) controller.watch(caches.renovateConfigs, { map: () => [] });
  return controller;
}
