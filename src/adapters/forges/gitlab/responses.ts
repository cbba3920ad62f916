// The fields of GitLab's merge-request answers that the provider reads, checked at the boundary,
// and their mapping to the forge-neutral types. GitLab sends `null` for unset fields while its
// OpenAPI description marks none nullable, so every optional field here takes both (docs/decisions.md
// N32). Drafts are GitLab's title prefix (D12): the neutral title is the one without it.
import Type, { type Static, type TSchema } from 'typebox';
import { isDraftTitle, readyTitle } from '../../../domain/pr-description/draft-title.ts';
import { checkShape, ResponseShapeError } from '../github/responses.ts';
import type { PullRequest, PullRequestCommit, PullRequestState } from '../types.ts';

const Maybe = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const MergeRequestResponse = Type.Object({
  iid: Type.Integer({ minimum: 1 }),
  web_url: Type.String({ minLength: 1 }),
  state: Type.String({ minLength: 1 }),
  title: Type.String(),
  description: Maybe(Type.String()),
  draft: Maybe(Type.Boolean()),
  created_at: Type.String(),
  source_branch: Type.String(),
  target_branch: Type.String(),
  sha: Maybe(Type.String()),
  merge_commit_sha: Maybe(Type.String()),
  squash_commit_sha: Maybe(Type.String()),
  labels: Maybe(Type.Array(Type.String())),
});
export type MergeRequestResponse = Static<typeof MergeRequestResponse>;

const CommitResponse = Type.Object({
  id: Type.String({ minLength: 1 }),
  message: Type.String(),
  author_name: Maybe(Type.String()),
  author_email: Maybe(Type.String()),
  committer_email: Maybe(Type.String()),
});

export function parseMergeRequest(value: unknown): MergeRequestResponse {
  return checkShape('gitlab merge-request', MergeRequestResponse, 'merge request', value);
}

export function parseMergeRequestList(value: unknown): MergeRequestResponse[] {
  if (!Array.isArray(value)) throw new ResponseShapeError('merge request list', 'the response must be an array');
  return value.map((item, index) =>
    checkShape('gitlab merge-request', MergeRequestResponse, 'merge request list', item, `[${String(index)}]`),
  );
}

/** GitLab lists an MR's commits newest first; the forge-neutral order is oldest first. */
export function parseCommitList(value: unknown): PullRequestCommit[] {
  if (!Array.isArray(value)) throw new ResponseShapeError('commit list', 'the response must be an array');
  return value
    .map((item, index) => {
      const commit = checkShape('gitlab commit', CommitResponse, 'commit list', item, `[${String(index)}]`);
      return {
        sha: commit.id,
        message: commit.message.replace(/\n$/, ''),
        authorName: commit.author_name ?? '',
        authorEmail: commit.author_email ?? '',
        ...(typeof commit.committer_email === 'string' ? { committerEmail: commit.committer_email } : {}),
      };
    })
    .reverse();
}

/** `opened` and `locked` (a merge in progress) are open; `merged` and `closed` as they are. */
function stateOf(state: string): PullRequestState {
  if (state === 'merged') return 'merged';
  if (state === 'closed') return 'closed';
  return 'open';
}

export function isDraftMergeRequest(response: MergeRequestResponse): boolean {
  return response.draft ?? isDraftTitle(response.title, 'gitlab');
}

export function toPullRequest(response: MergeRequestResponse): PullRequest {
  const state = stateOf(response.state);
  // A squash merge leaves the squash commit at the base's tip (with a merge commit after it, if any).
  const mergeCommitSha = state === 'merged' ? (response.merge_commit_sha ?? response.squash_commit_sha) : undefined;
  return {
    number: response.iid,
    url: response.web_url,
    state,
    draft: isDraftMergeRequest(response),
    title: readyTitle(response.title, 'gitlab'),
    body: response.description ?? '',
    headBranch: response.source_branch,
    headSha: response.sha ?? '',
    baseBranch: response.target_branch,
    ...(typeof mergeCommitSha === 'string' ? { mergeCommitSha } : {}),
  };
}
