// The nudge sweeper as a module (src/runtime/controller-module.ts): leader only. It alone needs
// nudge PipelineRuns besides the ChangeGroup controller, so they are cached on the leader only (D2).
import { CHANGE_GROUPS, PIPELINE_RUNS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { StoreChangeGroupSource } from '../cluster/changegroups.ts';
import { NUDGE_TYPE_LABEL, NUDGE_TYPE_VALUE } from '../domain/nudge-pipelinerun.ts';
import type { ControllerModule } from '../runtime/controller-module.ts';
import { CacheSyncTimeoutError, Controller } from '../runtime/controller.ts';
import { NudgeSweepReconciler, notStartedNudgeRunsFor } from './nudge-sweeper.ts';
import type { ControllerSettings } from './settings.ts';

/** The nudge PipelineRuns (label-selected), shared by the sweeper and the ChangeGroup controller. */
export const NUDGE_RUNS_SELECTOR = { labelSelector: `${NUDGE_TYPE_LABEL}=${NUDGE_TYPE_VALUE}` };

export const nudgeSweeperController: ControllerModule<ControllerSettings> = {
  name: 'nudge-sweeper',
  leaderOnly: true,
  setUp({ client, informers, events, registry, logger, cacheSyncTimeoutMs }) {
    const nudgeRuns = informers.informer<KubeObject>(PIPELINE_RUNS, NUDGE_RUNS_SELECTOR);
    const changeGroups = informers.informer<KubeObject>(CHANGE_GROUPS);
    const controller = new Controller({
      reconciler: new NudgeSweepReconciler({
        client,
        pipelineRuns: nudgeRuns.store,
        changeGroups: new StoreChangeGroupSource(changeGroups.store),
        events,
      }),
      registry,
      logger,
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    });
    controller.watch(nudgeRuns);
    controller.watch(changeGroups, { map: notStartedNudgeRunsFor(nudgeRuns.store) });
    // A cluster without Tekton's CRD never syncs this cache: the sweeper is a backstop, so that
    // must not take the other controllers down with it. The informer keeps retrying and logging.
    return (signal) =>
      controller.start(signal).catch((error: unknown) => {
        if (!(error instanceof CacheSyncTimeoutError)) throw error;
        logger.error({ err: error }, 'nudge sweeper not running: the PipelineRun cache did not sync');
      });
  },
};
