// The controllers the manager runs, in start order. Each module declares its reconciler, its
// watches and whether it needs leadership (src/runtime/controller-module.ts); adding a controller
// is one line here.
import { changeGroupController } from '../controllers/changegroup/controller.ts';
import { dispatchController } from '../controllers/dispatch/controller.ts';
import { korifiBuildController } from '../controllers/korifi/build-workload-controller.ts';
import { stackUpdateControllerModule } from '../controllers/korifi/stack-update-controller.ts';
import { nudgeSweeperController } from '../controllers/nudge-sweeper-controller.ts';
import type { ControllerSettings } from '../controllers/settings.ts';
import { staleReferenceController } from '../controllers/stale-references-controller.ts';
import type { ControllerModule } from '../runtime/controller-module.ts';

export const CONTROLLERS: readonly ControllerModule<ControllerSettings>[] = [
  staleReferenceController,
  nudgeSweeperController,
  changeGroupController,
  dispatchController,
  stackUpdateControllerModule,
  korifiBuildController,
];
