// What the ChangeGroup controller needs from a forge, and nothing more. One implementation per
// platform lives in a subfolder (local/, github/, later gitlab/); git itself goes through
// src/adapters/git, which pushes to cloneUrl() with the provider's credentials.
import type { Credentials } from '../credentials/credentials.ts';
import type { RepositoryRef } from './repository-url.ts';

export type { Credentials } from '../credentials/credentials.ts';
export type { RepositoryRef } from './repository-url.ts';

/** GitHub's vocabulary; GitLab's `opened`/`locked` map to `open`, its `merged` to `merged`. */
export type PullRequestState = 'open' | 'closed' | 'merged';

export interface PullRequest {
  readonly number: number;
  /** The web page a human opens; recorded in ChangeGroup `status.pullRequestURL`. */
  readonly url: string;
  readonly state: PullRequestState;
  readonly draft: boolean;
  /**
   * The title without any forge-specific draft marker: GitLab encodes draft as a `Draft:` title
   * prefix, which its provider strips here and re-adds on update while the PR is a draft.
   */
  readonly title: string;
  readonly body: string;
  readonly headBranch: string;
  /** The branch head as the forge sees it now (at merge time once merged). */
  readonly headSha: string;
  readonly baseBranch: string;
  /**
   * Once merged, the commit the merge left at the base's tip (GitHub's `merge_commit_sha`, GitLab's
   * `merge_commit_sha` or `squash_commit_sha`): the commit the base's push build builds, which is
   * how a pre-merge nudge finds its trigger's push build (docs/decisions.md D11).
   */
  readonly mergeCommitSha?: string;
}

export interface CreatePullRequestInput {
  readonly repo: RepositoryRef;
  readonly base: string;
  readonly head: string;
  /** Without a draft marker; see PullRequest.title. */
  readonly title: string;
  readonly body: string;
  readonly draft: boolean;
}

export interface PullRequestUpdate {
  /** Without a draft marker; the draft state is kept as it is. */
  readonly title?: string;
  readonly body?: string;
  /** Retarget the PR at another base branch (GitHub: `base` of pulls.update); it must exist. */
  readonly base?: string;
}

/** A commit on the PR branch; the controller compares authors with its bot identity. */
export interface PullRequestCommit {
  readonly sha: string;
  readonly message: string;
  readonly authorName: string;
  readonly authorEmail: string;
  /**
   * Who committed it, where the forge says: Renovate (and the nudge executor) count a commit by
   * another author or another committer as someone else's push (docs/decisions.md N17).
   */
  readonly committerEmail?: string;
}

/** GitHub's PullRequestMergeMethod: how an auto-merged PR is merged. */
export type AutoMergeMethod = 'MERGE' | 'SQUASH' | 'REBASE';

export interface ForgeProvider {
  /** `local`, `github`, `gitlab`: for messages and metrics. */
  readonly kind: string;
  /**
   * What git authenticates with when pushing to cloneUrl(); undefined when the transport needs
   * none (the local forge). Never printed: see Credentials.
   */
  readonly credentials: Credentials | undefined;

  /** Where git fetches and pushes: https for hosted forges even when the Component names ssh. */
  cloneUrl(repo: RepositoryRef): string;

  /**
   * The PR whose head is `branch`: the open one if there is one, else the most recent in any
   * state, else undefined. Called before every create (docs/decisions.md D5: never open two).
   */
  findPullRequestByHeadBranch(repo: RepositoryRef, branch: string): Promise<PullRequest | undefined>;

  /** Throws ForgeError 422 when an open PR already has this head, as GitHub does. */
  createPullRequest(input: CreatePullRequestInput): Promise<PullRequest>;

  /** Throws ForgeError 404 when there is no such PR. */
  getPullRequest(repo: RepositoryRef, number: number): Promise<PullRequest>;

  updatePullRequest(repo: RepositoryRef, number: number, update: PullRequestUpdate): Promise<PullRequest>;

  /** Draft → ready (GitHub: GraphQL markPullRequestReadyForReview; GitLab: drop the title prefix). */
  markReadyForReview(repo: RepositoryRef, number: number): Promise<PullRequest>;

  /** Ready → draft, where the forge allows it. */
  convertToDraft?(repo: RepositoryRef, number: number): Promise<PullRequest>;

  /** Commits on the PR branch that are not on its base, oldest first. */
  listCommits(repo: RepositoryRef, number: number): Promise<PullRequestCommit[]>;

  /**
   * Adds labels to the PR, keeping those it has (GitHub: POST /issues/{number}/labels); returns
   * every label it carries afterwards. Adding a label it already has changes nothing.
   */
  addLabels?(repo: RepositoryRef, number: number, labels: readonly string[]): Promise<readonly string[]>;

  /**
   * Asks the forge to merge the PR once its requirements pass (GitHub: GraphQL
   * enablePullRequestAutoMerge). `method` undefined: the repository's preferred method as Renovate
   * picks it (GitHub: rebase, squash, merge, the first allowed; a repository that does not allow
   * auto-merge is a ForgeError 422). Asking again is harmless.
   */
  enableAutoMerge?(repo: RepositoryRef, number: number, method?: AutoMergeMethod): Promise<void>;

  /**
   * Closes an open PR without merging (GitHub: pulls.update with state closed); a PR already
   * closed or merged is returned as it is. Optional while providers are added (D12).
   */
  closePullRequest?(repo: RepositoryRef, number: number): Promise<PullRequest>;

  /** Adds a comment to the PR's conversation (GitHub: issues.createComment). Optional as above. */
  addComment?(repo: RepositoryRef, number: number, body: string): Promise<void>;
}
