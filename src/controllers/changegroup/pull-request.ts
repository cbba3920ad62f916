// The ChangeGroup pull request on the forge: what it looks like now (the state machine's
// observation) and the three writes the state machine asks for. Every write is idempotent and safe
// to repeat after a crash (D5): the commit is deterministic, a push is skipped when the branch
// already holds it, and an open PR is looked up by head branch before one is created.
import { createOrAdoptPullRequest } from '../../adapters/forges/create-or-adopt.ts';
import type { ResolvedForge } from '../../adapters/forges/resolver.ts';
import { isForgeError } from '../../adapters/forges/errors.ts';
import type { PullRequest } from '../../adapters/forges/types.ts';
import type { FileText, GitIdentity, GitWorkspaces } from '../../adapters/git/workspace.ts';
import { changeGroupBranch, CONDITION_MANUAL_CHANGES_DETECTED } from '../../domain/changegroup/model.ts';
import {
  checkboxesToRender,
  descriptionInput,
  pullRequestCommitDate,
  pullRequestCommitMessage,
  pullRequestTitle,
  type ChangeGroupDocument,
} from '../../domain/changegroup/pull-request-content.ts';
import type {
  EnsurePullRequestIntent,
  PullRequestBuild,
  PullRequestObservation,
  PullRequestPushResult,
} from '../../domain/changegroup/state.ts';
import { pathMatches, rewriteDigestSources, sourceFileMatchers } from '../../domain/digest-rewrite/index.ts';
import {
  parseDescription,
  updateDescription,
  type ChangeGroupLink,
  type ParsedDescription,
} from '../../domain/pr-description/index.ts';

/** The pull request as observed, plus what the writes need to keep human text and ticks. */
export interface ObservedPullRequest {
  readonly observation: PullRequestObservation;
  /** The open (or recorded) pull request, when there is one. */
  readonly pullRequest: PullRequest | undefined;
  readonly parsed: ParsedDescription | undefined;
}

/** A branch moved under nudger by someone else between observation and push: observe again. */
export class BranchMovedError extends Error {
  override readonly name = 'BranchMovedError';
  readonly branch: string;
  constructor(repo: string, branch: string) {
    super(`${repo}: branch ${branch} moved to a commit nudger did not make; re-reading the pull request`);
    this.branch = branch;
  }
}

export async function observePullRequest(
  forge: ResolvedForge,
  changeGroup: ChangeGroupDocument,
  bot: GitIdentity,
): Promise<ObservedPullRequest> {
  const { provider, repo } = forge;
  const recorded = changeGroup.status?.pullRequest;
  let pullRequest: PullRequest | undefined;
  if (recorded !== undefined) {
    try {
      pullRequest = await provider.getPullRequest(repo, recorded.number);
    } catch (error) {
      // A recorded PR the forge no longer knows (repository recreated, PR deleted by an admin) is
      // over as far as this ChangeGroup can tell; opening another would surprise everyone.
      if (isForgeError(error, 404))
        return { observation: { state: 'closed' }, pullRequest: undefined, parsed: undefined };
      throw error;
    }
  } else {
    const found = await provider.findPullRequestByHeadBranch(repo, changeGroupBranch(changeGroup.metadata.name));
    // Only an open PR is adopted unrecorded: a closed one belongs to an earlier namesake.
    pullRequest = found?.state === 'open' ? found : undefined;
  }
  if (pullRequest === undefined) return { observation: { state: 'none' }, pullRequest, parsed: undefined };
  if (pullRequest.state !== 'open')
    return { observation: { state: pullRequest.state }, pullRequest, parsed: undefined };

  const parsed = parseDescription(pullRequest.body);
  const commits = await provider.listCommits(repo, pullRequest.number);
  const foreignCommit = commits.some((c) => c.authorEmail.toLowerCase() !== bot.email.toLowerCase());
  const descriptionEdited = parsed.managed === undefined || parsed.humanTextEdited || parsed.tamperedManagedBlock;
  // Once detected, manual changes stay detected until the rebase box is ticked: nudger's own
  // description refresh re-fingerprints the human text, which must not count as consent.
  const alreadyDetected =
    changeGroup.status?.conditions?.some((c) => c.type === CONDITION_MANUAL_CHANGES_DETECTED && c.status === 'True') ===
    true;
  return {
    observation: {
      state: 'open',
      draft: pullRequest.draft,
      manualChanges: foreignCommit || descriptionEdited || alreadyDetected,
      rebaseRequested: parsed.checkboxes.rebase,
      buildNowRequested: parsed.buildNowRequested,
    },
    pullRequest,
    parsed,
  };
}

export interface PullRequestWriterOptions {
  readonly forge: ResolvedForge;
  readonly workspaces: GitWorkspaces;
  readonly bot: GitIdentity;
  readonly link: ChangeGroupLink;
  /** The nudged Component's `spec.source.git.revision`. */
  readonly baseBranch: string;
  /**
   * The fileMatch regexes for one build's digest (D6): the Renovate ConfigMap in force, else that
   * build's `build-nudge-files` annotation, else the default. Each digest is rewritten only in
   * the files its own fileMatch selects, as its own nudge would have done.
   */
  readonly fileMatchOf: (build: PullRequestBuild) => readonly string[];
  /**
   * D6: the names a nudging component is released under (ReleasePlanAdmissions), rewritten like
   * its build repository. None when not given.
   */
  readonly distributionRepositoriesOf?: (component: string) => readonly string[];
}

export interface PushOutcome extends PullRequestPushResult {
  /** Whether git actually pushed (false: the branch already held this exact commit). */
  readonly pushed: boolean;
  /**
   * Nudging components none of whose repositories (built or distribution) the nudged repository
   * references by digest, in the files their fileMatch selects.
   */
  readonly unreferenced: readonly string[];
}

/** The description to write: the managed block re-rendered from `changeGroup`, human text kept. */
function describe(
  changeGroup: ChangeGroupDocument,
  observed: ObservedPullRequest,
  options: { link: ChangeGroupLink; final: boolean; rebaseHonoured: boolean },
): string {
  const phase = changeGroup.status?.phase ?? 'Initialized';
  const current = observed.parsed?.checkboxes ?? { buildNow: false, rebase: false };
  const input = descriptionInput(changeGroup, {
    link: options.link,
    final: options.final,
    checkboxes: checkboxesToRender(current, phase, options.rebaseHonoured),
  });
  return updateDescription(observed.pullRequest?.body, input);
}

export async function ensurePullRequest(
  changeGroup: ChangeGroupDocument,
  intent: EnsurePullRequestIntent,
  observed: ObservedPullRequest,
  options: PullRequestWriterOptions,
): Promise<PushOutcome> {
  const { provider, repo } = options.forge;
  const branch = changeGroupBranch(changeGroup.metadata.name);
  const checkout = await options.workspaces.prepareBase(
    provider.cloneUrl(repo),
    options.baseBranch,
    provider.credentials,
  );
  const rewrite = await rewriteForBuilds(
    checkout,
    intent.builds,
    options.fileMatchOf,
    options.distributionRepositoriesOf ?? (() => []),
  );
  const message = pullRequestCommitMessage(changeGroup, intent.builds, intent.final);
  const commit = await checkout.commitOnBase({
    files: rewrite.changes,
    message: message.message,
    author: options.bot,
    date: pullRequestCommitDate(changeGroup.status, intent.builds),
  });

  const remoteHead = await checkout.remoteBranchHead(branch);
  let pushed = false;
  if (remoteHead !== commit) {
    const known = new Set(
      [changeGroup.status?.pullRequest?.lastPushedCommit, observed.pullRequest?.headSha].filter(
        (sha): sha is string => sha !== undefined,
      ),
    );
    // With an open PR, overwrite only what the observation vetted; without one, the branch is
    // nudger's alone (a push made just before a crash, or a namesake's leftover).
    const vetted =
      remoteHead === undefined ||
      observed.pullRequest === undefined ||
      intent.discardManualChanges ||
      known.has(remoteHead);
    if (!vetted) throw new BranchMovedError(`${repo.owner}/${repo.name}`, branch);
    await checkout.pushWithLease(branch, remoteHead, commit);
    pushed = true;
  }

  const body = describe(changeGroup, observed, {
    link: options.link,
    final: intent.final,
    rebaseHonoured: intent.discardManualChanges,
  });
  const pullRequest = await upsertPullRequest(changeGroup, observed, branch, options, body, intent.draft);
  return {
    number: pullRequest.number,
    url: pullRequest.url,
    headBranch: branch,
    baseBranch: options.baseBranch,
    baseCommit: checkout.baseSha,
    commit,
    draft: pullRequest.draft,
    pushed,
    unreferenced: rewrite.unreferenced,
  };
}

/**
 * The changed files of the single commit: each build's digest in the files its own fileMatch
 * selects (N10), every file read once.
 */
async function rewriteForBuilds(
  checkout: { readFiles(filter: (path: string) => boolean): Promise<FileText[]> },
  builds: readonly PullRequestBuild[],
  fileMatchOf: (build: PullRequestBuild) => readonly string[],
  distributionRepositoriesOf: (component: string) => readonly string[],
): Promise<{ changes: readonly FileText[]; unreferenced: readonly string[] }> {
  const sources = builds.map((build) => ({
    ...build,
    distributionRepositories: distributionRepositoriesOf(build.name),
    fileMatch: fileMatchOf(build),
  }));
  const matchers = sourceFileMatchers(sources);
  const rewrite = rewriteDigestSources(await checkout.readFiles((path) => pathMatches(path, matchers)), sources);
  return { changes: rewrite.files, unreferenced: rewrite.unreferenced };
}

async function upsertPullRequest(
  changeGroup: ChangeGroupDocument,
  observed: ObservedPullRequest,
  branch: string,
  options: PullRequestWriterOptions,
  body: string,
  draft: boolean,
): Promise<PullRequest> {
  const { provider, repo } = options.forge;
  const existing = observed.pullRequest?.state === 'open' ? observed.pullRequest : undefined;
  if (existing !== undefined) {
    return existing.body === body ? existing : provider.updatePullRequest(repo, existing.number, { body });
  }
  const title = pullRequestTitle(changeGroup);
  // Another PR with this head may have appeared since the observation (a previous attempt whose
  // response was lost): it is adopted rather than failing, so there is never a second one.
  const { pullRequest, adopted } = await createOrAdoptPullRequest(provider, {
    repo,
    base: options.baseBranch,
    head: branch,
    title,
    body,
    draft,
  });
  return !adopted || pullRequest.body === body
    ? pullRequest
    : provider.updatePullRequest(repo, pullRequest.number, { body });
}

export async function markReadyForReview(
  forge: ResolvedForge,
  observed: ObservedPullRequest,
): Promise<PullRequest | undefined> {
  const pullRequest = observed.pullRequest;
  if (pullRequest?.state !== 'open' || !pullRequest.draft) return pullRequest;
  return forge.provider.markReadyForReview(forge.repo, pullRequest.number);
}

export async function refreshDescription(
  changeGroup: ChangeGroupDocument,
  observed: ObservedPullRequest,
  options: { forge: ResolvedForge; link: ChangeGroupLink },
): Promise<PullRequest | undefined> {
  const pullRequest = observed.pullRequest;
  if (pullRequest?.state !== 'open') return pullRequest;
  const final = changeGroup.status?.pullRequest?.final ?? false;
  const body = describe(changeGroup, observed, { link: options.link, final, rebaseHonoured: false });
  if (body === pullRequest.body) return pullRequest;
  return options.forge.provider.updatePullRequest(options.forge.repo, pullRequest.number, { body });
}
