// The stale-reference controller as a module (src/runtime/controller-module.ts): leader only; wakes
// on NudgeConfig spec changes and on Components appearing or disappearing.
import { COMPONENTS_KIND, NUDGE_CONFIGS_KIND } from '../cluster/watched-kinds.ts';
import type { ControllerModule } from '../runtime/controller-module.ts';
import { Controller, generationChanged } from '../runtime/controller.ts';
import type { ControllerSettings } from './settings.ts';
import { StaleReferenceReconciler, nudgeConfigOfComponent } from './stale-references.ts';

export const staleReferenceController: ControllerModule<ControllerSettings> = {
  name: 'stale-references',
  group: 'konflux',
  leaderOnly: true,
  setUp({ client, informers, events, registry, logger, cacheSyncTimeoutMs }) {
    const components = informers.informer(COMPONENTS_KIND);
    const nudgeConfigs = informers.informer(NUDGE_CONFIGS_KIND);
    const controller = new Controller({
      reconciler: new StaleReferenceReconciler({
        client,
        nudgeConfigs: nudgeConfigs.store,
        components: components.store,
        events,
      }),
      registry,
      logger,
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
    });
    controller.watch(nudgeConfigs, { updatePredicate: generationChanged });
    // A Component's edits never change which names exist; only its creation and deletion matter.
    controller.watch(components, { map: nudgeConfigOfComponent, updatePredicate: () => false });
    return (signal) => controller.start(signal);
  },
};
