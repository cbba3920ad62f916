// The manager's settings as controllers read them: each controller module takes its own section.
import type { ChangeGroupControllerOptions } from './changegroup/controller.ts';
import type { DispatchControllerOptions } from './dispatch/controller.ts';

export interface ControllerSettings {
  /** The ChangeGroup controller's forges, git cache and pull request settings. */
  readonly changeGroups?: ChangeGroupControllerOptions;
  /** The dispatcher (docs/decisions.md D9): absent or not enabled, it does not run. */
  readonly dispatch?: DispatchControllerOptions;
}
