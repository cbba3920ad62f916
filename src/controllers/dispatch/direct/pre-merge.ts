// A pre-merge nudge through the `direct` executor (docs/decisions.md D11, N34): the nudge PR of one
// PR group into one target, on preMergeBranch(<group>, <nudged>) so that it joins the triggering
// PRs' group, based on the nudged Component's revision. One fire:
//
// 1. observe the branch's pull request (found by head branch) and its commits;
// 2. every trigger closed (`request.close`): the open PR, if any, gets its block showing that, the
//    comment, and is closed; nothing is pushed; a merged or closed one stays as it is;
// 3. decide (decideKeyedWrite): someone else's commit stops it until the rebase box is ticked (N20);
//    a PR already stamped with this key is done (a fire repeated after a crash);
// 4. fetch the base tip; in a monorepo, first a synthetic commit per open triggering PR of the
//    nudged repository copying the files it changed that the nudged component builds from (N36);
//    then rewrite each trigger that pins an image (its build and distribution repositories, in the
//    files its own fileMatch selects) as ONE commit dated by the newest build: the same content on
//    the same base is the same sha. A trigger without an image is not rewritten, so its references
//    are the base's again. Files that start a nudging component's own push build are a nudge-loop
//    warning: a notice, and a comment once per PR;
// 5. force-push with a lease on the head it observed, update the open PR's managed block (human
//    text outside it kept) or open a new one, as a draft while `request.draft`, ready otherwise;
//    labels as for a single nudge, auto-merge only once it is ready.
//
// The base already holding everything (the nudge PR was merged, or an equivalent change landed)
// opens nothing, and an open PR that would be left with no change is closed with a comment saying so.
import type { PullRequest } from '../../../adapters/forges/types.ts';
import { compareStrings } from '../../../domain/compare.ts';
import { decideKeyedWrite } from '../../../domain/nudge/direct-decision.ts';
import { NudgeInputError } from '../../../domain/nudge/errors.ts';
import {
  parsePreMergeStamp,
  preMergeBlock,
  preMergePullRequestText,
  withPreMergeBlock,
  type PreMergeRow,
} from '../../../domain/nudge/pre-merge-pull-request.ts';
import { nudgeLabels } from '../../../domain/nudge/pull-request-text.ts';
import { quotedBuildLink } from '../build-link.ts';
import type { ExecutorNotice, FireOutcome, PreMergeNudgeRequest, PreMergeTrigger } from '../executor.ts';
import { preMergeChanges } from './changes.ts';
import { DIRECT_FAILURE_REASONS } from './failures.ts';
import { nudgeLoopsOf, syntheticCommits, toldNudgeLoops } from './monorepo.ts';
import {
  branchEdited,
  checkoutBase,
  commitOfBuilds,
  decoratedDraft,
  observeBranch,
  publishCommit,
  sourceChange,
  unchangedOutcome,
  type DirectExecutorOptions,
  type DirectTarget,
} from './flow.ts';

type Pinned = PreMergeTrigger & { readonly image: NonNullable<PreMergeTrigger['image']> };

/** The comment an open nudge PR is closed with when the base already holds all it would change. */
export const NOTHING_LEFT_COMMENT =
  'Closed by nudger: the base branch already pins every image this pre-merge nudge would change (or none of them is referenced by digest), so nothing is left to change.';

export async function firePreMergeNudge(
  options: DirectExecutorOptions,
  request: PreMergeNudgeRequest,
  target: DirectTarget,
  signal: AbortSignal | undefined,
): Promise<FireOutcome> {
  const { branch, notices } = target;
  if (request.triggers.length === 0) throw new NudgeInputError('triggers', 'is empty');
  const { found, open, commits } = await observeBranch(target);
  if (request.close !== undefined) {
    const rows = rowsOf(request, pinnedTriggers(request.triggers), notices);
    return closeNudge(target, request, open ?? found, request.close.comment, rows);
  }
  // A PR stamped with this key that was since merged or closed is this content already handled.
  if (open === undefined && found !== undefined && parsePreMergeStamp(found.body) === request.key) {
    return { result: { ok: true, detail: `${found.url} (${found.state})` }, notices };
  }
  const decision = decideKeyedWrite({
    key: request.key,
    open: open === undefined ? undefined : { body: open.body, commits },
    botEmail: target.identity.email,
    keyOf: parsePreMergeStamp,
  });
  if (decision.kind === 'branch-edited') return branchEdited(found?.url ?? branch, decision.foreignCommits, notices);
  // Draft state, labels and auto-merge are asked again: the crash may have come before them.
  if (decision.kind === 'done' && open !== undefined) {
    return decoratedDraft(target, open, nudgeLabels(request.settings), request.settings, request.draft);
  }

  signal?.throwIfAborted();
  const pinned = pinnedTriggers(request.triggers);
  const { checkout, semanticCommits } = await checkoutBase(options, target, request.settings);
  // A monorepo's triggering PRs first (N36): what they changed that the nudged component builds from.
  const synthetic = await syntheticCommits(checkout, target, request.triggers, createdAtOf);
  const changes = await preMergeChanges(
    checkout,
    pinned.map((trigger) => trigger.image),
    synthetic,
  );
  const rows = rowsOf(request, pinned, notices, (component) => sourceChange(changes, component));
  if (changes.files.length === 0) {
    if (open !== undefined) return closeNudge(target, request, open, NOTHING_LEFT_COMMENT, rows);
    return unchangedOutcome(changes, pinned.length, notices);
  }
  const text = preMergePullRequestText({
    nudged: target.nudged,
    group: request.group,
    key: request.key,
    rows,
    draft: request.draft,
    gitAuthor: target.gitAuthor,
    settings: request.settings,
    semanticCommits: await semanticCommits(),
  });
  const createdAts = pinned.map((trigger) => createdAtOf(trigger));
  const commit = await commitOfBuilds(target, checkout, changes.files, text, createdAts, synthetic);
  const loops = await nudgeLoopsOf(
    checkout,
    target,
    pinned.map((trigger) => ({ component: trigger.component, repoUrl: trigger.repoUrl })),
    changes.files.map((file) => file.path),
    synthetic,
  );
  const { body, comments } = toldNudgeLoops(
    target,
    loops,
    open?.body,
    withPreMergeBlock(open?.body, text.body, request.group),
  );

  signal?.throwIfAborted();
  return publishCommit(target, checkout, {
    commit,
    open,
    text,
    body,
    settings: request.settings,
    draft: request.draft,
    comments,
  });
}

/**
 * The triggers whose image goes into the commit: one per component, the newest build (then the
 * higher PR number) when two PRs of one component are in the group, since one repository can
 * take only one digest.
 */
function pinnedTriggers(triggers: readonly PreMergeTrigger[]): Pinned[] {
  const byComponent = new Map<string, Pinned>();
  for (const trigger of triggers) {
    if (trigger.image === undefined) continue;
    const candidate = trigger as Pinned;
    const current = byComponent.get(trigger.component);
    if (current === undefined || newer(candidate, current)) byComponent.set(trigger.component, candidate);
  }
  return [...byComponent.values()].sort((a, b) => compareStrings(a.component, b.component));
}

function newer(a: Pinned, b: Pinned): boolean {
  const [timeA, timeB] = [Date.parse(createdAtOf(a) ?? ''), Date.parse(createdAtOf(b) ?? '')];
  if (timeA !== timeB && !Number.isNaN(timeA) && !Number.isNaN(timeB)) return timeA > timeB;
  return a.number > b.number;
}

/** The build's creation time dates the commit; the cached PipelineRun has it when the verified build does not. */
function createdAtOf(trigger: PreMergeTrigger): string | undefined {
  return trigger.image?.build.createdAt ?? trigger.image?.buildRun.metadata?.creationTimestamp ?? undefined;
}

/** The block's rows: every trigger, its pin and what the commit did with it. */
function rowsOf(
  request: PreMergeNudgeRequest,
  pinned: readonly Pinned[],
  notices: ExecutorNotice[],
  changeOf?: (component: string) => PreMergeRow['change'],
): PreMergeRow[] {
  return request.triggers.map((trigger) => {
    const row = { component: trigger.component, number: trigger.number, url: trigger.url, state: trigger.state };
    if (trigger.image === undefined) return row;
    const pin = {
      digest: trigger.image.build.digest,
      event: trigger.image.event,
      pipelineRun: trigger.image.build.pipelineRun,
      repoAtShaLink: quotedBuildLink(trigger.image, notices),
    };
    const chosen = pinned.some((p) => p.component === trigger.component && p.number === trigger.number);
    const change = chosen ? changeOf?.(trigger.component) : 'superseded';
    return { ...row, pin, ...(change === undefined ? {} : { change }) };
  });
}

/**
 * The open PR, its block brought up to date, commented on and closed; nothing pushed. A comment
 * made just before a crash may be made again by the repeat (the close is what the repeat checks),
 * which is better than a PR closed without saying why.
 */
async function closeNudge(
  target: DirectTarget,
  request: PreMergeNudgeRequest,
  pullRequest: PullRequest | undefined,
  comment: string,
  rows: readonly PreMergeRow[],
): Promise<FireOutcome> {
  const { notices } = target;
  const { provider, repo } = target.forge;
  if (pullRequest?.state !== 'open') {
    const detail = pullRequest === undefined ? 'no pull request to close' : `${pullRequest.url} (${pullRequest.state})`;
    return { result: { ok: true, detail }, notices };
  }
  if (provider.closePullRequest === undefined) {
    const message = `${pullRequest.url}: the ${provider.kind} forge provider cannot close pull requests`;
    return { result: { ok: false, reason: DIRECT_FAILURE_REASONS.forgeRejected, message, permanent: true }, notices };
  }
  const block = preMergeBlock({
    nudged: target.nudged,
    group: request.group,
    key: request.key,
    rows,
    draft: request.draft,
    settings: request.settings,
  });
  const body = withPreMergeBlock(pullRequest.body, block, request.group);
  if (body !== pullRequest.body) await provider.updatePullRequest(repo, pullRequest.number, { body });
  await provider.addComment?.(repo, pullRequest.number, comment);
  const closed = await provider.closePullRequest(repo, pullRequest.number);
  return { result: { ok: true, detail: `${closed.url} (closed)` }, notices };
}
