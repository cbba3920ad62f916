// What the `direct` executor does with the nudge pull request it finds (docs/decisions.md D9, N20),
// decided from what it observed and nothing else, so that a repeated fire decides the same:
//
// - a pull request (open, or the newest merged or closed one) that carries a newer build of the
//   same nudging component is left as it is: the late, older build is superseded (the target
//   already pins something newer, or a human merged or closed that newer one; writing the older
//   digest would undo it);
// - an open pull request whose branch holds a commit by another author or committer than nudger's
//   bot identity is left alone (Renovate's rule: someone else pushed to it) until its rebase box is
//   ticked; then the branch is rebuilt from the base and the human commits are dropped, as
//   Renovate does;
// - otherwise the branch is (re)built: one commit on the current base tip.
import { compareBuildStamps, parseBuildStamp, type NudgeBuildStamp } from './direct-build-stamp.ts';
import { rebaseRequested } from './pull-request-text.ts';
import { parseBatchStamp } from './validated-pull-request.ts';

/** A commit on the nudge branch beyond the base, as the forge lists it. */
export interface BranchCommit {
  readonly sha: string;
  readonly authorEmail: string;
  /** Undefined or '' when the forge does not say; only the author is compared then. */
  readonly committerEmail?: string;
}

export interface OpenNudgePullRequest {
  readonly body: string;
  readonly commits: readonly BranchCommit[];
}

export type DirectNudgeDecision =
  | { readonly kind: 'superseded'; readonly by: NudgeBuildStamp }
  | { readonly kind: 'branch-edited'; readonly foreignCommits: readonly string[] }
  | { readonly kind: 'write'; readonly discardEdits: boolean };

/** Commits someone other than `botEmail` authored or committed (emails compared case-insensitively). */
export function foreignCommits(commits: readonly BranchCommit[], botEmail: string): string[] {
  const bot = botEmail.toLowerCase();
  const foreign = (email: string | undefined): boolean =>
    email !== undefined && email !== '' && email.toLowerCase() !== bot;
  return commits
    .filter((commit) => foreign(commit.authorEmail) || commit.authorEmail === '' || foreign(commit.committerEmail))
    .map((commit) => commit.sha);
}

export function decideDirectNudge(input: {
  readonly incoming: NudgeBuildStamp;
  /** The open pull request on the nudge branch, when there is one. */
  readonly open: OpenNudgePullRequest | undefined;
  /** Without an open one, the body of the newest merged or closed pull request on the branch. */
  readonly latestBody?: string;
  readonly botEmail: string;
}): DirectNudgeDecision {
  const body = input.open?.body ?? input.latestBody;
  const carried = body === undefined ? undefined : parseBuildStamp(body);
  if (carried !== undefined && compareBuildStamps(carried, input.incoming) > 0) {
    return { kind: 'superseded', by: carried };
  }
  return decideBranchEdits(input.open, input.botEmail);
}

/** Someone else's commits on the open pull request's branch stop the write until rebase is ticked. */
function decideBranchEdits(
  open: OpenNudgePullRequest | undefined,
  botEmail: string,
): Exclude<DirectNudgeDecision, { kind: 'superseded' }> {
  if (open === undefined) return { kind: 'write', discardEdits: false };
  const foreign = foreignCommits(open.commits, botEmail);
  if (foreign.length === 0) return { kind: 'write', discardEdits: false };
  if (rebaseRequested(open.body) === true) return { kind: 'write', discardEdits: true };
  return { kind: 'branch-edited', foreignCommits: foreign };
}

export type ValidatedBatchDecision =
  | Exclude<DirectNudgeDecision, { kind: 'superseded' }>
  /** The open pull request already carries this batch on nudger's own commits: nothing to write. */
  | { readonly kind: 'done' };

/**
 * A validated batch (docs/decisions.md N28): someone else's commits stop it as they stop a nudge;
 * an open pull request whose body carries this batch's key, on a branch of nudger's commits only
 * and with the rebase box unticked, is this batch already written (a fire repeated after a crash).
 * Otherwise the branch is (re)built, whatever batch it held: validation, not build order, decides
 * which digests go out, and the controller sends only newer ones.
 */
export function decideValidatedBatch(input: {
  readonly key: string;
  readonly open: OpenNudgePullRequest | undefined;
  readonly botEmail: string;
}): ValidatedBatchDecision {
  return decideKeyedWrite({ ...input, keyOf: (body) => parseBatchStamp(body)?.key });
}

/**
 * A write named by a content key whose body stamp `keyOf` reads (a validated batch, N28; a
 * pre-merge nudge, N34): someone else's commits stop it as they stop a nudge; an open pull request
 * stamped with this key, on nudger's commits only and with the rebase box unticked, is done.
 */
export function decideKeyedWrite(input: {
  readonly key: string;
  readonly open: OpenNudgePullRequest | undefined;
  readonly botEmail: string;
  readonly keyOf: (body: string) => string | undefined;
}): ValidatedBatchDecision {
  const edits = decideBranchEdits(input.open, input.botEmail);
  if (edits.kind !== 'write' || edits.discardEdits || input.open === undefined) return edits;
  const done =
    input.keyOf(input.open.body) === input.key &&
    input.open.commits.length > 0 &&
    rebaseRequested(input.open.body) !== true;
  return done ? { kind: 'done' } : edits;
}
