// The forge side of a `direct` nudge once its commit is on the branch (docs/decisions.md D5, D9,
// N20): the pull request with Renovate's title and body (found by head branch before one is
// created, never two), its labels, and the forge's auto-merge where the settings ask for it. Every
// step is safe to repeat: an unchanged title and body are not written again, adding a label the
// pull request has changes nothing, and asking for auto-merge twice is harmless.
import { createOrAdoptPullRequest } from '../../../adapters/forges/create-or-adopt.ts';
import { ForgeError } from '../../../adapters/forges/errors.ts';
import type { ResolvedForge } from '../../../adapters/forges/resolver.ts';
import type { PullRequest } from '../../../adapters/forges/types.ts';
import { automergePlan } from '../../../domain/nudge/direct-automerge.ts';
import type { RenovateSettings } from '../../../domain/nudge/renovate-settings.ts';
import { BUILD_LINK_IGNORED } from '../build-link.ts';
import type { ExecutorNotice } from '../executor.ts';

export const DIRECT_NOTICE_REASONS = {
  settingUnsupported: 'NudgeSettingUnsupported',
  autoMergeFailed: 'NudgeAutoMergeFailed',
  branchEdited: 'NudgeBranchEditedByHuman',
  buildLinkIgnored: BUILD_LINK_IGNORED,
} as const;

export interface PullRequestContent {
  readonly base: string;
  readonly head: string;
  readonly title: string;
  readonly body: string;
  readonly labels: readonly string[];
  /** Opened as a draft (a pre-merge nudge, N34); default ready. */
  readonly draft?: boolean;
}

/** The open pull request `open` (observed) brought to `content`, or a new one. */
export async function upsertNudgePullRequest(
  forge: ResolvedForge,
  open: PullRequest | undefined,
  content: PullRequestContent,
): Promise<PullRequest> {
  const { provider, repo } = forge;
  let pullRequest = open;
  if (pullRequest === undefined) {
    const created = await createOrAdoptPullRequest(provider, {
      repo,
      base: content.base,
      head: content.head,
      title: content.title,
      body: content.body,
      draft: content.draft ?? false,
    });
    pullRequest = created.pullRequest;
  }
  const retarget = pullRequest.baseBranch !== content.base;
  if (pullRequest.title === content.title && pullRequest.body === content.body && !retarget) return pullRequest;
  // A Component whose revision changed moves its nudge PR to the new base, as Renovate's updatePr
  // does with a changed target branch.
  return provider.updatePullRequest(repo, pullRequest.number, {
    title: content.title,
    body: content.body,
    ...(retarget ? { base: content.base } : {}),
  });
}

function settingNotice(settings: RenovateSettings, key: string, why: string): ExecutorNotice {
  const source = settings.configMap === undefined ? 'Renovate setting' : `ConfigMap ${settings.configMap} key`;
  // Told once per fact: the setting stays unsupported on every nudge until someone changes it.
  return {
    type: 'Warning',
    reason: DIRECT_NOTICE_REASONS.settingUnsupported,
    message: `${source} ${key}: ${why}`,
    once: true,
  };
}

/** Labels and auto-merge on the open pull request; what could not be honoured comes back as notices. */
export async function decoratePullRequest(
  forge: ResolvedForge,
  pullRequest: PullRequest,
  labels: readonly string[],
  settings: RenovateSettings,
): Promise<ExecutorNotice[]> {
  const { provider, repo } = forge;
  const notices: ExecutorNotice[] = [];
  if (provider.addLabels === undefined) {
    notices.push(
      settingNotice(settings, 'labels', `the ${provider.kind} forge has no labels; ${labels.join(', ')} not set`),
    );
  } else {
    await provider.addLabels(repo, pullRequest.number, labels);
  }
  const plan = automergePlan(settings, { kind: provider.kind, canAutoMerge: provider.enableAutoMerge !== undefined });
  for (const { key, why } of plan.unsupported) notices.push(settingNotice(settings, key, why));
  if (plan.enable && provider.enableAutoMerge !== undefined) {
    try {
      // Renovate leaves the merge method to the repository's settings; GitHub's default is MERGE.
      await provider.enableAutoMerge(repo, pullRequest.number);
    } catch (error) {
      // Renovate logs a refused auto-merge (the repository does not allow it, the PR is already
      // mergeable) and keeps the pull request; so does nudger, and says so.
      if (!(error instanceof ForgeError)) throw error;
      notices.push({
        type: 'Warning',
        reason: DIRECT_NOTICE_REASONS.autoMergeFailed,
        message: `auto-merge of ${pullRequest.url} was refused: ${error.message}`,
      });
    }
  }
  return notices;
}
