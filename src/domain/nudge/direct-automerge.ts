// How the `direct` executor honours the automerge keys of the Renovate ConfigMap (docs/decisions.md
// D9, N20). build-service hands Renovate `automerge`, `platformAutomerge`, `automergeType`,
// `automergeSchedule`, `ignoreTests` and `gitLabIgnoreApprovals`; Renovate, with its defaults
// (automergeType `pr`, platformAutomerge as given), enables the forge's own auto-merge on the pull
// request it opens (GitHub: GraphQL enablePullRequestAutoMerge) and merges nothing itself until a
// later run. A nudge has no later Renovate run, so whatever Renovate would do on one (merge a
// branch, comment, merge by schedule, merge without waiting for tests) nudger cannot do, and says
// so, naming the key, instead of dropping it in silence.
import type { RenovateSettings } from './renovate-settings.ts';

export interface UnsupportedSetting {
  readonly key: string;
  /** Why the forge or nudger cannot honour it, and what happens instead. */
  readonly why: string;
}

export interface AutomergePlan {
  /** Ask the forge for auto-merge on the pull request. */
  readonly enable: boolean;
  readonly unsupported: readonly UnsupportedSetting[];
}

export interface AutomergeForge {
  /** `github`, `local`, …: for the messages. */
  readonly kind: string;
  /** The provider implements enableAutoMerge. */
  readonly canAutoMerge: boolean;
}

const LEFT_OPEN = 'the pull request is left for a human to merge';

export function automergePlan(
  settings: Pick<
    RenovateSettings,
    'automerge' | 'platformAutomerge' | 'automergeType' | 'automergeSchedule' | 'ignoreTests' | 'gitLabIgnoreApprovals'
  >,
  forge: AutomergeForge,
): AutomergePlan {
  if (!settings.automerge) return { enable: false, unsupported: [] };
  const unsupported: UnsupportedSetting[] = [];
  const type = settings.automergeType === '' ? 'pr' : settings.automergeType;
  if (type !== 'pr') {
    const what =
      type === 'branch'
        ? 'Renovate merges the branch itself, without a pull request, on a later run'
        : 'Renovate merges by posting a comment on a later run';
    unsupported.push({ key: 'automergeType', why: `${type}: ${what}; nudger opens a pull request and ${LEFT_OPEN}` });
  } else if (!settings.platformAutomerge) {
    unsupported.push({
      key: 'platformAutomerge',
      why: `false: Renovate would merge the pull request itself on a later run, which a nudge never has; ${LEFT_OPEN}`,
    });
  } else if (!forge.canAutoMerge) {
    unsupported.push({ key: 'automerge', why: `the ${forge.kind} forge has no auto-merge to ask for; ${LEFT_OPEN}` });
  }
  if (settings.automergeSchedule.length > 0) {
    // Enabling auto-merge now would merge outside the schedule the user asked for.
    unsupported.push({
      key: 'automergeSchedule',
      why: `the forge's auto-merge merges as soon as the checks pass and knows no schedule; ${LEFT_OPEN}`,
    });
  }
  const enable = unsupported.length === 0;
  if (settings.ignoreTests) {
    unsupported.push({
      key: 'ignoreTests',
      why: enable
        ? "true: the forge's auto-merge still waits for the required checks"
        : 'true: nothing is merged without a human',
    });
  }
  if (settings.gitLabIgnoreApprovals && forge.kind !== 'gitlab') {
    unsupported.push({
      key: 'gitLabIgnoreApprovals',
      why: `true: only GitLab has approval rules; ignored on ${forge.kind}`,
    });
  }
  return { enable, unsupported };
}
