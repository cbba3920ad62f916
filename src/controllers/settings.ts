// The manager's settings as controllers read them: each controller module takes its own section.
import type { ChangeGroupControllerOptions } from './changegroup/controller.ts';

export interface ControllerSettings {
  /** The ChangeGroup controller's forges, git cache and pull request settings. */
  readonly changeGroups?: ChangeGroupControllerOptions;
}
