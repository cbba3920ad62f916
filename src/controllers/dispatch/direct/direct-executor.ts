// The `direct` executor (docs/decisions.md D9, N17, N20): nudger opens or updates the nudge pull
// request itself, as build-service's Renovate would shape it. One fire:
//
// 1. resolve the nudged repository's forge and credentials;
// 2. observe the nudge branch's pull request (found by head branch) and its commits;
// 3. decide (src/domain/nudge/direct-decision.ts): a newer build already there supersedes this
//    one; someone else's commit on the branch stops it until the rebase box is ticked;
// 4. fetch the base tip, rewrite the references the fileMatch selects, and build ONE commit on it
//    (deterministic: its date is the build's creation time, so the same build on the same base is
//    the same sha, and a fire repeated after a crash finds the branch already holding it);
// 5. force-push with a lease on the head it observed (a moved base is thereby rebased), then
//    update or open the pull request, add its labels and ask for auto-merge.
//
// Fires to one branch run one at a time in this process (the dispatcher runs on the leader only),
// so two builds of one component cannot interleave their push and their body stamp.
import type { Credentials } from '../../../adapters/credentials/credentials.ts';
import type { ForgeResolver, ResolvedForge } from '../../../adapters/forges/resolver.ts';
import { KeyedMutex } from '../../../adapters/git/mutex.ts';
import type { GitWorkspaces } from '../../../adapters/git/workspace.ts';
import { DEFAULT_BASE_BRANCH, gitSourceOf } from '../../../cluster/nudged-repository.ts';
import { withBuildStamp, type NudgeBuildStamp } from '../../../domain/nudge/direct-build-stamp.ts';
import { decideDirectNudge, type DirectNudgeDecision } from '../../../domain/nudge/direct-decision.ts';
import { semanticCommitsDetected } from '../../../domain/nudge/commit-subject.ts';
import { nudgeBranch, nudgePullRequestText } from '../../../domain/nudge/pull-request-text.ts';
import { quotedBuildLink } from '../build-link.ts';
import type { BatchNudgeRequest, ExecutorNotice, FireOutcome, NudgeExecutor, NudgeRequest } from '../executor.ts';
import { nudgeChanges, nudgedRepositories } from './changes.ts';
import { classifyFireError, DIRECT_FAILURE_REASONS } from './failures.ts';
import { gitIdentityOf, defaultGitAuthorOf, type GitAuthorOf } from './identity.ts';
import { decoratePullRequest, DIRECT_NOTICE_REASONS, upsertNudgePullRequest } from './publish.ts';

export interface DirectExecutorOptions {
  readonly resolver: ForgeResolver;
  readonly workspaces: GitWorkspaces;
  /** The commit author for a repository's credentials (N17); default build-service's gitAuthor. */
  readonly gitAuthorOf?: GitAuthorOf;
}

/** How many of the base's newest subjects decide semantic commits, as Renovate reads them. */
const SEMANTIC_COMMIT_HISTORY = 20;

/** Event details of a fire that wrote nothing. */
export const DIRECT_DETAILS = {
  noReferences: 'no references',
  upToDate: 'up to date',
} as const;

export class DirectNudgeExecutor implements NudgeExecutor {
  readonly kind = 'direct';
  readonly #options: DirectExecutorOptions;
  readonly #branches = new KeyedMutex();

  constructor(options: DirectExecutorOptions) {
    this.#options = options;
  }

  // Replaced by the batch implementation in this session's next commits (issue 11).
  fireBatch(request: BatchNudgeRequest): Promise<FireOutcome> {
    return Promise.resolve({
      result: { ok: false, reason: 'batch-unsupported', message: `validated batch ${request.key}: not yet supported` },
    });
  }

  async fire(request: NudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
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
      const forge = await this.#options.resolver.resolve(url, request.namespace, signal);
      credentials = forge.provider.credentials;
      const branch = nudgeBranch(nudged, request.build.component, request.simpleBranch);
      const base = await this.#baseBranch(request, forge);
      const key = `${forge.provider.cloneUrl(forge.repo)}\n${branch}`;
      const outcome = await this.#branches.run(key, () =>
        this.#fire(request, forge, { nudged, branch, base, notices }, signal),
      );
      return redacted(outcome, credentials);
    } catch (error) {
      return redacted({ result: classifyFireError(error, credentials), notices }, credentials);
    }
  }

  /**
   * The nudged Component's `spec.source.git.revision`; without one, the repository's default
   * branch, which build-service's Renovate nudges (`baseBranches: [<revision or default branch>]`),
   * else `main` when the remote does not name one.
   */
  async #baseBranch(request: NudgeRequest, forge: ResolvedForge): Promise<string> {
    const revision = request.nudged.spec?.source?.git?.revision;
    if (revision !== undefined && revision !== '') return revision;
    const { provider, repo } = forge;
    const remote = await this.#options.workspaces.remoteDefaultBranch(provider.cloneUrl(repo), provider.credentials);
    return remote ?? DEFAULT_BASE_BRANCH;
  }

  async #fire(
    request: NudgeRequest,
    forge: ResolvedForge,
    target: { nudged: string; branch: string; base: string; notices: ExecutorNotice[] },
    signal: AbortSignal | undefined,
  ): Promise<FireOutcome> {
    const { provider, repo } = forge;
    const { branch, base, notices } = target;
    const gitAuthor = (this.#options.gitAuthorOf ?? defaultGitAuthorOf)(forge);
    const identity = gitIdentityOf(gitAuthor);
    // The build's creation time orders builds and dates the commit (so that a repeat makes the same
    // sha); the cached PipelineRun has it when the verified build does not.
    const createdAt = request.build.createdAt ?? request.buildRun.metadata?.creationTimestamp ?? undefined;
    const stamp: NudgeBuildStamp = {
      createdAt,
      pipelineRun: request.build.pipelineRun,
      digest: request.build.digest,
    };

    const found = await provider.findPullRequestByHeadBranch(repo, branch);
    const open = found?.state === 'open' ? found : undefined;
    const commits = open === undefined ? [] : await provider.listCommits(repo, open.number);
    const decision = decideDirectNudge({
      incoming: stamp,
      open: open === undefined ? undefined : { body: open.body, commits },
      ...(found === undefined ? {} : { latestBody: found.body }),
      botEmail: identity.email,
    });
    if (decision.kind !== 'write') return stopped(decision, found?.url ?? branch, notices);

    signal?.throwIfAborted();
    // Renovate's semanticCommits "auto" only matters without a commitMessagePrefix (N17); it reads
    // the newest 20 subjects (lib/util/git getCommitMessages), so only then is more history fetched.
    const semanticAuto = request.settings.commitMessagePrefix === '';
    const checkout = await this.#options.workspaces.prepareBase(provider.cloneUrl(repo), base, provider.credentials, {
      depth: semanticAuto ? SEMANTIC_COMMIT_HISTORY : 1,
    });
    const changes = await nudgeChanges(checkout, request);
    if (changes.files.length === 0) {
      const detail = changes.referenced ? DIRECT_DETAILS.upToDate : DIRECT_DETAILS.noReferences;
      return { result: { ok: true, detail }, notices };
    }
    const text = nudgePullRequestText({
      nudging: request.build.component,
      nudged: target.nudged,
      simpleBranch: request.simpleBranch,
      repository: nudgedRepositories(request)[0] ?? request.build.pullSpec,
      ...(changes.currentDigest === undefined ? {} : { currentDigest: changes.currentDigest }),
      newDigest: request.build.digest,
      repoAtShaLink: quotedBuildLink(request, notices),
      gitAuthor,
      settings: request.settings,
      semanticCommits: semanticAuto && semanticCommitsDetected(await checkout.recentSubjects(SEMANTIC_COMMIT_HISTORY)),
    });
    const commit = await checkout.commitOnBase({
      files: changes.files,
      message: text.commit.message,
      author: identity,
      ...(createdAt === undefined ? {} : { date: createdAt }),
    });

    signal?.throwIfAborted();
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
      body: withBuildStamp(text.body, stamp),
      labels: text.labels,
    });
    notices.push(...(await decoratePullRequest(forge, pullRequest, text.labels, request.settings)));
    return { result: { ok: true, detail: pullRequest.url }, notices };
  }
}

/**
 * A fire that leaves the pull request as it is. A late older build ends ok: the target already
 * pins a newer digest of the same component, which is what the nudge was for, so retrying or
 * calling it failed would only mislead (docs/decisions.md N20). A branch someone else pushed to
 * ends failed, permanently, with `branch-edited`: retrying cannot help until a human ticks the
 * rebase box, and the next build's nudge asks again.
 */
function stopped(
  decision: Exclude<DirectNudgeDecision, { kind: 'write' }>,
  where: string,
  notices: ExecutorNotice[],
): FireOutcome {
  if (decision.kind === 'superseded') {
    const by = `${decision.by.pipelineRun}${decision.by.createdAt === undefined ? '' : ` (${decision.by.createdAt})`}`;
    return { result: { ok: true, detail: `superseded: ${where} already carries newer build ${by}` }, notices };
  }
  const message = `${where}: the nudge branch has ${String(decision.foreignCommits.length)} commit(s) by someone else (${decision.foreignCommits.map((sha) => sha.slice(0, 12)).join(', ')}); it is left alone until its rebase box is ticked`;
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
