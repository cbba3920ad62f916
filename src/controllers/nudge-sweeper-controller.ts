// The nudge sweeper as a module (src/runtime/controller-module.ts): leader only. It alone needs
// nudge PipelineRuns besides the ChangeGroup controller, so they are cached on the leader only (D2).
import { StoreChangeGroupSource } from '../cluster/changegroups.ts';
import {
  CHANGE_GROUPS_KIND,
  COMPONENTS_KIND,
  NUDGE_CONFIGS_KIND,
  NUDGE_RUNS_SELECTOR,
  PIPELINE_RUNS_KIND,
  RELEASE_PLAN_ADMISSIONS_KIND,
} from '../cluster/watched-kinds.ts';
import type { ControllerModule } from '../runtime/controller-module.ts';
import { Controller } from '../runtime/controller.ts';
import { NudgeSweepReconciler, notStartedNudgeRunsFor, nudgeRunAndOriginal } from './nudge-sweeper.ts';
import { managerRedispatcher } from './redispatch.ts';
import type { ControllerSettings } from './settings.ts';

export const nudgeSweeperController: ControllerModule<ControllerSettings> = {
  name: 'nudge-sweeper',
  group: 'konflux',
  leaderOnly: true,
  setUp({ client, informers, events, registry, logger, cacheSyncTimeoutMs, settings }) {
    const nudgeRuns = informers.informer(PIPELINE_RUNS_KIND, NUDGE_RUNS_SELECTOR);
    const changeGroups = informers.informer(CHANGE_GROUPS_KIND);
    // The uncovered targets of a partial hold are fired through the dispatcher's executors
    // (src/controllers/redispatch.ts), which read Components, NudgeConfigs and (run by the
    // ChangeGroup controller, empty without release-service) ReleasePlanAdmissions.
    const components = settings.dispatch?.enabled === true ? informers.informer(COMPONENTS_KIND) : undefined;
    const nudgeConfigs = settings.dispatch?.enabled === true ? informers.informer(NUDGE_CONFIGS_KIND) : undefined;
    const redispatcher =
      components === undefined || nudgeConfigs === undefined
        ? undefined
        : managerRedispatcher(client, settings, {
            components: components.store,
            nudgeConfigs: nudgeConfigs.store,
            releasePlanAdmissions: informers.informer(RELEASE_PLAN_ADMISSIONS_KIND, { runByCaller: true }).store,
            events,
          });
    const controller = new Controller({
      reconciler: new NudgeSweepReconciler({
        client,
        pipelineRuns: nudgeRuns.store,
        changeGroups: new StoreChangeGroupSource(changeGroups.store),
        changeGroupObjects: changeGroups.store,
        events,
        ...(redispatcher === undefined ? {} : { redispatcher }),
      }),
      registry,
      logger,
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
      onCacheSyncTimeout: 'keepWaiting',
    });
    controller.watch(nudgeRuns, { map: nudgeRunAndOriginal });
    controller.watch(changeGroups, { map: notStartedNudgeRunsFor(nudgeRuns.store) });
    // Watched for their sync only: a fire read from an empty cache would skip its target for good.
    if (components !== undefined) controller.watch(components, { map: () => [] });
    if (nudgeConfigs !== undefined) controller.watch(nudgeConfigs, { map: () => [] });
    // A cluster without Tekton's CRD never syncs this cache: the sweeper is a backstop, so that
    // must not take the other controllers down with it. The informer keeps retrying and logging,
    // and the sweeper keeps waiting for it (onCacheSyncTimeout, docs/decisions.md N51).
    return (signal) => controller.start(signal);
  },
};
