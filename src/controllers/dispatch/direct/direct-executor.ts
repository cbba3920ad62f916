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
// so two builds of one component cannot interleave their push and their body stamp. A validated
// batch (N28) and a pre-merge nudge (N34) take the same steps with their own decision and text
// (batch.ts, pre-merge.ts); the shared steps are in flow.ts.
import { KeyedMutex } from '../../../adapters/git/mutex.ts';
import { withBuildStamp, type NudgeBuildStamp } from '../../../domain/nudge/direct-build-stamp.ts';
import { decideDirectNudge } from '../../../domain/nudge/direct-decision.ts';
import { nudgeBranch, nudgePullRequestText } from '../../../domain/nudge/pull-request-text.ts';
import { validatedBatchBranch } from '../../../domain/nudge/validated-pull-request.ts';
import { quotedBuildLink } from '../build-link.ts';
import { preMergeNudgeBranch } from '../../../domain/nudge/pre-merge-pull-request.ts';
import type { BatchNudgeRequest, FireOutcome, NudgeExecutor, NudgeRequest, PreMergeNudgeRequest } from '../executor.ts';
import { fireValidatedBatch } from './batch.ts';
import { firePreMergeNudge } from './pre-merge.ts';
import { nudgeChanges, nudgedRepositories } from './changes.ts';
import { nudgeLoopsOf, toldNudgeLoops } from './monorepo.ts';
import { gitSourceOf } from '../../../cluster/nudged-repository.ts';
import {
  branchEdited,
  checkoutBase,
  DIRECT_DETAILS,
  fireOnTarget,
  observeBranch,
  publishCommit,
  type DirectExecutorOptions,
  type DirectTarget,
} from './flow.ts';

export { DIRECT_DETAILS, type DirectExecutorOptions } from './flow.ts';

export class DirectNudgeExecutor implements NudgeExecutor {
  readonly kind = 'direct';
  readonly #options: DirectExecutorOptions;
  readonly #branches = new KeyedMutex();

  constructor(options: DirectExecutorOptions) {
    this.#options = options;
  }

  /** A validated batch (docs/decisions.md N28): one pull request, one commit, on validatedBranch. */
  fireBatch(request: BatchNudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    return fireOnTarget(
      this.#options,
      this.#branches,
      request,
      (nudged) => validatedBatchBranch(nudged, request.gatingGroup),
      (target) => fireValidatedBatch(this.#options, request, target, signal),
      signal,
    );
  }

  /** A pre-merge nudge (docs/decisions.md D11, N34): one PR per (PR group, target) on preMergeBranch. */
  firePreMerge(request: PreMergeNudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    return fireOnTarget(
      this.#options,
      this.#branches,
      request,
      (nudged) => preMergeNudgeBranch(request.group, nudged),
      (target) => firePreMergeNudge(this.#options, request, target, signal),
      signal,
    );
  }

  fire(request: NudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    return fireOnTarget(
      this.#options,
      this.#branches,
      request,
      (nudged) => nudgeBranch(nudged, request.build.component, request.simpleBranch),
      (target) => this.#fire(request, target, signal),
      signal,
    );
  }

  async #fire(request: NudgeRequest, target: DirectTarget, signal: AbortSignal | undefined): Promise<FireOutcome> {
    const { branch, notices } = target;
    // The build's creation time orders builds and dates the commit (so that a repeat makes the same
    // sha); the cached PipelineRun has it when the verified build does not.
    const createdAt = request.build.createdAt ?? request.buildRun.metadata?.creationTimestamp ?? undefined;
    const stamp: NudgeBuildStamp = {
      createdAt,
      pipelineRun: request.build.pipelineRun,
      digest: request.build.digest,
    };

    const { found, open, commits } = await observeBranch(target);
    const decision = decideDirectNudge({
      incoming: stamp,
      open: open === undefined ? undefined : { body: open.body, commits },
      ...(found === undefined ? {} : { latestBody: found.body }),
      botEmail: target.identity.email,
    });
    const where = found?.url ?? branch;
    if (decision.kind === 'branch-edited') return branchEdited(where, decision.foreignCommits, notices);
    if (decision.kind === 'superseded') {
      // A late older build ends ok: the target already pins a newer digest of the same component,
      // which is what the nudge was for, so retrying or calling it failed would only mislead (N20).
      const by = `${decision.by.pipelineRun}${decision.by.createdAt === undefined ? '' : ` (${decision.by.createdAt})`}`;
      return { result: { ok: true, detail: `superseded: ${where} already carries newer build ${by}` }, notices };
    }

    signal?.throwIfAborted();
    const { checkout, semanticCommits } = await checkoutBase(this.#options, target, request.settings);
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
      gitAuthor: target.gitAuthor,
      settings: request.settings,
      semanticCommits: await semanticCommits(),
    });
    const commit = await checkout.commitOnBase({
      files: changes.files,
      message: text.commit.message,
      author: target.identity,
      ...(createdAt === undefined ? {} : { date: createdAt }),
    });

    // In a monorepo the nudge may start the nudging component's own push build again (N36).
    const nudging = [{ component: request.build.component, repoUrl: gitSourceOf(request.nudging).url }];
    const loops = await nudgeLoopsOf(
      checkout,
      target,
      nudging,
      changes.files.map((file) => file.path),
    );
    const { body, comments } = toldNudgeLoops(target, loops, open?.body, withBuildStamp(text.body, stamp));

    signal?.throwIfAborted();
    return publishCommit(target, checkout, { commit, open, text, body, settings: request.settings, comments });
  }
}
