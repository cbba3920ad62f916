// A validated batch through the `direct` executor (docs/decisions.md D10, N28): every validated
// entry of one gating group that points at one target, as ONE commit in ONE pull request on
// validatedBranch(<nudged>, <group>), so that the target builds once. One fire:
//
// 1. observe the branch's pull request (found by head branch) and its commits;
// 2. decide (decideValidatedBatch): someone else's commit stops it until the rebase box is ticked
//    (N20); an open pull request that already carries this batch's key on nudger's own commits is
//    done (a fire repeated after a crash: no second commit, no second pull request);
// 3. fetch the base tip and rewrite the references of every entry, and of every image the open
//    pull request carries that the batch does not bring again (its stamp lists them), each in the
//    files its own fileMatch selects (N10), building ONE commit dated by the newest build (the same
//    batch on the same base is the same sha);
// 4. force-push with a lease on the head it observed, then update the open pull request in place
//    or open a new one (merged or closed: the next pass opens a new one), its labels and auto-merge
//    as for a single nudge.
import { decideValidatedBatch } from '../../../domain/nudge/direct-decision.ts';
import { NudgeInputError } from '../../../domain/nudge/errors.ts';
import { nudgeLabels } from '../../../domain/nudge/pull-request-text.ts';
import { compareStrings } from '../../../domain/compare.ts';
import {
  parseBatchStamp,
  validatedPullRequestText,
  type ValidatedImage,
} from '../../../domain/nudge/validated-pull-request.ts';
import { quotedBuildLink } from '../build-link.ts';
import type { BatchEntry, BatchNudgeRequest, ExecutorNotice, FireOutcome } from '../executor.ts';
import { batchChanges } from './changes.ts';
import { nudgeLoopsOf, toldNudgeLoops } from './monorepo.ts';
import { gitSourceOf } from '../../../cluster/nudged-repository.ts';
import {
  branchEdited,
  checkoutBase,
  commitOfBuilds,
  decorated,
  observeBranch,
  publishCommit,
  sourceChange,
  unchangedOutcome,
  type DirectExecutorOptions,
  type DirectTarget,
} from './flow.ts';

export async function fireValidatedBatch(
  options: DirectExecutorOptions,
  request: BatchNudgeRequest,
  target: DirectTarget,
  signal: AbortSignal | undefined,
): Promise<FireOutcome> {
  const { branch, notices } = target;
  if (request.entries.length === 0) throw new NudgeInputError('entries', 'is empty');
  const { found, open, commits } = await observeBranch(target);
  const decision = decideValidatedBatch({
    key: request.key,
    open: open === undefined ? undefined : { body: open.body, commits },
    botEmail: target.identity.email,
  });
  if (decision.kind === 'branch-edited') return branchEdited(found?.url ?? branch, decision.foreignCommits, notices);
  // Labels and auto-merge are asked again: the crash may have come before them.
  if (decision.kind === 'done' && open !== undefined) {
    return decorated(target, open, nudgeLabels(request.settings), request.settings);
  }

  signal?.throwIfAborted();
  const images = carriedImages(request, open?.body, notices);
  const { checkout, semanticCommits } = await checkoutBase(options, target, request.settings);
  const changes = await batchChanges(checkout, images);
  if (changes.files.length === 0) return unchangedOutcome(changes, images.length, notices);
  const previous = new Map(request.entries.map((entry) => [entry.build.component, entry.previousDigest]));
  const text = validatedPullRequestText({
    nudged: target.nudged,
    gatingGroup: request.gatingGroup,
    batchKey: request.key,
    rows: images.map((image) => {
      const oldDigest = changes.previousDigests.get(image.component) ?? previous.get(image.component);
      return {
        ...image,
        ...(oldDigest === undefined ? {} : { oldDigest }),
        change: sourceChange(changes, image.component),
      };
    }),
    gitAuthor: target.gitAuthor,
    settings: request.settings,
    semanticCommits: await semanticCommits(),
  });
  const createdAts = images.map((image) => image.createdAt);
  const commit = await commitOfBuilds(target, checkout, changes.files, text, createdAts);

  // In a monorepo the batch may start a nudging component's own push build again (N36).
  const nudging = request.entries.map((entry) => ({
    component: entry.build.component,
    repoUrl: gitSourceOf(entry.nudging).url,
  }));
  const loops = await nudgeLoopsOf(
    checkout,
    target,
    nudging,
    changes.files.map((file) => file.path),
  );
  const { body, comments } = toldNudgeLoops(target, loops, open?.body, text.body);

  signal?.throwIfAborted();
  return publishCommit(target, checkout, { commit, open, text, body, settings: request.settings, comments });
}

/**
 * The images the pull request is to carry: the batch's entries, and those the open pull request
 * carries (its stamp) for components the batch does not bring again, whose digest did not change
 * since: a pass updates the pull request in place and never drops an image it carried. A merged
 * or closed pull request carries nothing forward (its images are on the base, or were refused).
 */
function carriedImages(
  request: BatchNudgeRequest,
  openBody: string | undefined,
  notices: ExecutorNotice[],
): ValidatedImage[] {
  const fresh = request.entries.map((entry) => imageOf(entry, notices));
  const components = new Set(fresh.map((image) => image.component));
  const carried = openBody === undefined ? [] : (parseBatchStamp(openBody)?.images ?? []);
  return [...fresh, ...carried.filter((image) => !components.has(image.component))].sort((a, b) =>
    compareStrings(a.component, b.component),
  );
}

function imageOf(entry: BatchEntry, notices: ExecutorNotice[]): ValidatedImage {
  // The build's creation time dates the commit; the cached PipelineRun has it when the verified
  // build does not.
  const createdAt = entry.build.createdAt ?? entry.buildRun.metadata?.creationTimestamp ?? undefined;
  return {
    component: entry.build.component,
    digest: entry.build.digest,
    pullSpec: entry.build.pullSpec,
    snapshot: entry.snapshot,
    pipelineRun: entry.build.pipelineRun,
    ...(createdAt === undefined ? {} : { createdAt }),
    repoAtShaLink: quotedBuildLink(entry, notices),
    distributionRepositories: entry.distributionRepositories,
    fileMatch: entry.fileMatch,
  };
}
