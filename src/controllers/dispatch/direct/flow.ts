// The steps every `direct` fire shares, a single nudge (docs/decisions.md N20) and a validated
// batch (N28): resolve the nudged repository's forge and credentials, serialise the fires to one
// branch, observe the branch's pull request and its commits, check the base out deep enough for
// semantic commits, push the one commit with a lease and publish the pull request; every failure
// classified (failures.ts) and every message redacted with the forge's credentials.
import type { Credentials } from '../../../adapters/credentials/credentials.ts';
import type { ForgeResolver, ResolvedForge } from '../../../adapters/forges/resolver.ts';
import type { PullRequest } from '../../../adapters/forges/types.ts';
import type { KeyedMutex } from '../../../adapters/git/mutex.ts';
import type { BaseCheckout, FileText, GitIdentity, GitWorkspaces } from '../../../adapters/git/workspace.ts';
import { DEFAULT_BASE_BRANCH, gitSourceOf } from '../../../cluster/nudged-repository.ts';
import { semanticCommitsDetected } from '../../../domain/nudge/commit-subject.ts';
import type { SourcesRewrite } from '../../../domain/digest-rewrite/index.ts';
import type { BranchCommit } from '../../../domain/nudge/direct-decision.ts';
import type { NudgePullRequestText } from '../../../domain/nudge/pull-request-text.ts';
import type { RenovateSettings } from '../../../domain/nudge/renovate-settings.ts';
import { validatedCommitDate } from '../../../domain/nudge/validated-pull-request.ts';
import type { ClusterComponent } from '../../../schema/component.ts';
import type { ExecutorNotice, FireOutcome } from '../executor.ts';
import { classifyFireError, DIRECT_FAILURE_REASONS } from './failures.ts';
import { defaultGitAuthorOf, gitIdentityOf, type GitAuthorOf } from './identity.ts';
import { decoratePullRequest, DIRECT_NOTICE_REASONS, upsertNudgePullRequest } from './publish.ts';

export interface DirectExecutorOptions {
  readonly resolver: ForgeResolver;
  readonly workspaces: GitWorkspaces;
  /** The commit author for a repository's credentials (N17); default build-service's gitAuthor. */
  readonly gitAuthorOf?: GitAuthorOf;
}

/** Event details of a fire that wrote nothing. */
export const DIRECT_DETAILS = {
  noReferences: 'no references',
  upToDate: 'up to date',
} as const;

/** How many of the base's newest subjects decide semantic commits, as Renovate reads them. */
const SEMANTIC_COMMIT_HISTORY = 20;

/** Where a fire writes: the nudged repository's forge, the branch and its base. */
export interface DirectTarget {
  readonly forge: ResolvedForge;
  readonly nudged: string;
  readonly branch: string;
  readonly base: string;
  /** `Name <address>` nudger commits as on this forge, and the identity git takes. */
  readonly gitAuthor: string;
  readonly identity: GitIdentity;
  /** What the fire wants told; filled as it goes, kept when it fails. */
  readonly notices: ExecutorNotice[];
}

/**
 * Resolves the target of a fire and runs `write` on it, one fire per branch at a time in this
 * process (the dispatcher runs on the leader only, so a push and its body stamp cannot interleave
 * with another fire's). Failures come back classified and redacted; only programming errors reject.
 */
export async function fireOnTarget(
  options: DirectExecutorOptions,
  branches: KeyedMutex,
  request: { readonly namespace: string; readonly nudged: ClusterComponent },
  branchOf: (nudged: string) => string,
  write: (target: DirectTarget) => Promise<FireOutcome>,
  signal: AbortSignal | undefined,
): Promise<FireOutcome> {
  let credentials: Credentials | undefined;
  const notices: ExecutorNotice[] = [];
  try {
    signal?.throwIfAborted();
    const nudged = request.nudged.metadata?.name ?? '';
    const { url } = gitSourceOf(request.nudged);
    if (url === undefined) {
      return {
        result: {
          ok: false,
          reason: DIRECT_FAILURE_REASONS.repositoryNotFound,
          message: `Component ${nudged} names no spec.source.git.url`,
          permanent: true,
        },
      };
    }
    const forge = await options.resolver.resolve(url, request.namespace, signal);
    credentials = forge.provider.credentials;
    const branch = branchOf(nudged);
    const base = await baseBranch(options, request.nudged, forge);
    const gitAuthor = (options.gitAuthorOf ?? defaultGitAuthorOf)(forge);
    const target = { forge, nudged, branch, base, gitAuthor, identity: gitIdentityOf(gitAuthor), notices };
    const key = `${forge.provider.cloneUrl(forge.repo)}\n${branch}`;
    return redacted(await branches.run(key, () => write(target)), credentials);
  } catch (error) {
    return redacted({ result: classifyFireError(error, credentials), notices }, credentials);
  }
}

/**
 * The nudged Component's `spec.source.git.revision`; without one, the repository's default
 * branch, which build-service's Renovate nudges (`baseBranches: [<revision or default branch>]`),
 * else `main` when the remote does not name one.
 */
async function baseBranch(
  options: DirectExecutorOptions,
  nudged: ClusterComponent,
  forge: ResolvedForge,
): Promise<string> {
  const revision = nudged.spec?.source?.git?.revision;
  if (revision !== undefined && revision !== '') return revision;
  const { provider, repo } = forge;
  const remote = await options.workspaces.remoteDefaultBranch(provider.cloneUrl(repo), provider.credentials);
  return remote ?? DEFAULT_BASE_BRANCH;
}

/** The branch's pull request (found by head branch) and, when it is open, its commits beyond the base. */
export async function observeBranch(target: DirectTarget): Promise<{
  readonly found: PullRequest | undefined;
  readonly open: PullRequest | undefined;
  readonly commits: readonly BranchCommit[];
}> {
  const { provider, repo } = target.forge;
  const found = await provider.findPullRequestByHeadBranch(repo, target.branch);
  const open = found?.state === 'open' ? found : undefined;
  const commits = open === undefined ? [] : await provider.listCommits(repo, open.number);
  return { found, open, commits };
}

/**
 * The base tip checked out, and whether Renovate's semanticCommits "auto" would write
 * conventional subjects. That only matters without a commitMessagePrefix (N17); Renovate reads the
 * newest 20 subjects (lib/util/git getCommitMessages), so only then is more history fetched.
 */
export async function checkoutBase(
  options: DirectExecutorOptions,
  target: DirectTarget,
  settings: RenovateSettings,
): Promise<{ readonly checkout: BaseCheckout; readonly semanticCommits: () => Promise<boolean> }> {
  const { provider, repo } = target.forge;
  const semanticAuto = settings.commitMessagePrefix === '';
  const checkout = await options.workspaces.prepareBase(provider.cloneUrl(repo), target.base, provider.credentials, {
    depth: semanticAuto ? SEMANTIC_COMMIT_HISTORY : 1,
  });
  const semanticCommits = async (): Promise<boolean> =>
    semanticAuto && semanticCommitsDetected(await checkout.recentSubjects(SEMANTIC_COMMIT_HISTORY));
  return { checkout, semanticCommits };
}

/**
 * ONE commit of `files` on the base tip (or on `parent`, a monorepo's synthetic commit, N36), dated
 * by the newest of its builds' creation times, so that the same content on the same base is the
 * same sha and a repeat after a crash pushes nothing (N28, N34).
 */
export function commitOfBuilds(
  target: DirectTarget,
  checkout: BaseCheckout,
  files: readonly FileText[],
  text: Pick<NudgePullRequestText, 'commit'>,
  createdAts: readonly (string | undefined)[],
  parent?: string,
): Promise<string> {
  const date = validatedCommitDate(createdAts);
  const { message } = text.commit;
  return checkout.commitOnBase({
    files,
    message,
    author: target.identity,
    ...(date === undefined ? {} : { date }),
    ...(parent === undefined ? {} : { parent }),
  });
}

/**
 * A rewrite of several builds that changes no file ends ok without a commit: `no references` when
 * no selected file names any of them by digest, else `up to date` (N20, N28, N34).
 */
export function unchangedOutcome(
  changes: Pick<SourcesRewrite, 'unreferenced'>,
  sources: number,
  notices: ExecutorNotice[],
): FireOutcome {
  const none = changes.unreferenced.length === sources;
  return { result: { ok: true, detail: none ? DIRECT_DETAILS.noReferences : DIRECT_DETAILS.upToDate }, notices };
}

/** What a rewrite did with one source: rewrote it, found it unreferenced, or found it pinned already. */
export function sourceChange(
  changes: Pick<SourcesRewrite, 'previousDigests' | 'unreferenced'>,
  name: string,
): 'updated' | 'unreferenced' | 'up-to-date' {
  if (changes.previousDigests.has(name)) return 'updated';
  return changes.unreferenced.includes(name) ? 'unreferenced' : 'up-to-date';
}

/**
 * The commit on the branch and the pull request brought to `text` (body as given), with its labels
 * and auto-merge: the fire's ok outcome, its detail the pull request's URL.
 */
export async function publishCommit(
  target: DirectTarget,
  checkout: BaseCheckout,
  publish: {
    readonly commit: string;
    /** The open pull request whose commits were vetted, if any. */
    readonly open: PullRequest | undefined;
    readonly text: Pick<NudgePullRequestText, 'title' | 'labels'>;
    readonly body: string;
    readonly settings: RenovateSettings;
    /** A pre-merge nudge's draft state (N34), kept or switched; undefined for nudges that are never drafts. */
    readonly draft?: boolean;
    /** Comments made once the pull request is up to date (a nudge-loop warning, N36). */
    readonly comments?: readonly string[];
  },
): Promise<FireOutcome> {
  const { branch, base, forge } = target;
  const { commit, open, text, settings, draft } = publish;
  const remoteHead = await checkout.remoteBranchHead(branch);
  if (remoteHead !== commit) {
    // With an open pull request, overwrite only the head whose commits were just vetted; without
    // one the branch is nudger's alone (a push made just before a crash, a closed PR's leftover).
    await checkout.pushWithLease(branch, open?.headSha ?? remoteHead, commit);
  }
  const pullRequest = await upsertNudgePullRequest(forge, open, {
    base,
    head: branch,
    title: text.title,
    body: publish.body,
    labels: text.labels,
    ...(draft === undefined ? {} : { draft }),
  });
  // After the body that stamps them: a crash in between loses a comment rather than repeating it.
  for (const comment of publish.comments ?? [])
    await forge.provider.addComment?.(forge.repo, pullRequest.number, comment);
  if (draft === undefined) return decorated(target, pullRequest, text.labels, settings);
  return decoratedDraft(target, pullRequest, text.labels, settings, draft);
}

/**
 * A pre-merge nudge PR (N34) brought to its draft state, then labelled; auto-merge is asked for
 * only once it is ready, since a draft cannot be auto-merged (GitHub refuses it) and merging
 * before every triggering PR has merged is what the draft prevents.
 */
export async function decoratedDraft(
  target: DirectTarget,
  pullRequest: PullRequest,
  labels: readonly string[],
  settings: RenovateSettings,
  draft: boolean,
): Promise<FireOutcome> {
  const { provider, repo } = target.forge;
  let current = pullRequest;
  if (!draft && current.draft) current = await provider.markReadyForReview(repo, current.number);
  if (draft && !current.draft && provider.convertToDraft !== undefined) {
    current = await provider.convertToDraft(repo, current.number);
  }
  return decorated(target, current, labels, draft ? { ...settings, automerge: false } : settings);
}

/** Labels and auto-merge on the pull request (both repeatable), then ok with its URL. */
export async function decorated(
  target: DirectTarget,
  pullRequest: PullRequest,
  labels: readonly string[],
  settings: RenovateSettings,
): Promise<FireOutcome> {
  const { notices } = target;
  notices.push(...(await decoratePullRequest(target.forge, pullRequest, labels, settings)));
  return { result: { ok: true, detail: pullRequest.url }, notices };
}

/**
 * A branch someone else pushed to ends failed, permanently, with `branch-edited`: retrying cannot
 * help until a human ticks the rebase box, and the next nudge of the branch asks again (N20).
 */
export function branchEdited(where: string, foreignCommits: readonly string[], notices: ExecutorNotice[]): FireOutcome {
  const message = `${where}: the nudge branch has ${String(foreignCommits.length)} commit(s) by someone else (${foreignCommits.map((sha) => sha.slice(0, 12)).join(', ')}); it is left alone until its rebase box is ticked`;
  return {
    result: { ok: false, reason: DIRECT_FAILURE_REASONS.branchEdited, message, permanent: true },
    notices: [...notices, { type: 'Normal', reason: DIRECT_NOTICE_REASONS.branchEdited, message }],
  };
}

function redacted(outcome: FireOutcome, credentials: Credentials | undefined): FireOutcome {
  if (credentials === undefined) return outcome;
  const result = outcome.result.ok
    ? outcome.result
    : { ...outcome.result, message: credentials.redact(outcome.result.message) };
  const notices = outcome.notices?.map((notice) => ({ ...notice, message: credentials.redact(notice.message) }));
  return { result, ...(notices === undefined ? {} : { notices }) };
}
