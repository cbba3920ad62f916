// The manager's settings as controllers read them: each controller module takes its own section.
import type { ChangeGroupControllerOptions } from './changegroup/controller.ts';
import type { DispatchControllerOptions } from './dispatch/controller.ts';
import type { KorifiControllerSettings } from './korifi/settings.ts';

export interface ControllerSettings {
  /** The ChangeGroup controller's forges, git cache and pull request settings. */
  readonly changeGroups?: ChangeGroupControllerOptions;
  /** The dispatcher (docs/decisions.md D9): absent or not enabled, it does not run. */
  readonly dispatch?: DispatchControllerOptions;
  /** The korifi group's settings (docs/decisions.md N39); required when that group runs. */
  readonly korifi?: KorifiControllerSettings;
}
