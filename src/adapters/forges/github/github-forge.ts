// The ForgeProvider for GitHub (github.com and GitHub Enterprise Server): pull requests over REST,
// the draft switches over GraphQL (REST has no way to change `draft` after creation). git never
// goes through here: it pushes to cloneUrl() with `credentials` via src/adapters/git.
import type { Credentials } from '../../credentials/credentials.ts';
import { ForgeError } from '../errors.ts';
import type { RepositoryRef } from '../repository-url.ts';
import type {
  AutoMergeMethod,
  CreatePullRequestInput,
  ForgeProvider,
  PullRequest,
  PullRequestCommit,
  PullRequestUpdate,
} from '../types.ts';
import { createGitHubClients, type GitHubClients, type GitHubRetryOptions } from './client.ts';
import { endpointOf, FORGE, malformedResponse, toForgeError, type FailureContext } from './errors.ts';
import {
  parseAutoMergeMutation,
  parseCommitList,
  parseLabelList,
  parseRepositoryMergeSettings,
  parseDraftMutation,
  parsePullRequest,
  parsePullRequestList,
  ResponseShapeError,
  toPullRequest,
  type PullRequestResponse,
} from './responses.ts';
import { compareStrings } from '../../../domain/compare.ts';

export interface GitHubForgeOptions {
  /** REST root: default https://api.github.com; GHES (and the emulator) `<base>/api/v3`. */
  readonly apiUrl?: string;
  /** Default derived from apiUrl: `…/graphql`, or `<base>/api/graphql` for `<base>/api/v3`. */
  readonly graphqlUrl?: string;
  /** Where git clones: default `https://<repo.host>`. */
  readonly gitBaseUrl?: string;
  readonly credentials: Credentials;
  readonly userAgent?: string;
  readonly request?: { readonly timeoutMs?: number };
  readonly retry?: GitHubRetryOptions;
}

const MARK_READY = `mutation MarkPullRequestReadyForReview($pullRequestId: ID!) {
  markPullRequestReadyForReview(input: { pullRequestId: $pullRequestId }) { pullRequest { isDraft } }
}`;
const CONVERT_TO_DRAFT = `mutation ConvertPullRequestToDraft($pullRequestId: ID!) {
  convertPullRequestToDraft(input: { pullRequestId: $pullRequestId }) { pullRequest { isDraft } }
}`;
const REPOSITORY_MERGE_SETTINGS = `query RepositoryMergeSettings($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) { autoMergeAllowed rebaseMergeAllowed squashMergeAllowed mergeCommitAllowed }
}`;
const ENABLE_AUTO_MERGE = `mutation EnablePullRequestAutoMerge($pullRequestId: ID!, $mergeMethod: PullRequestMergeMethod) {
  enablePullRequestAutoMerge(input: { pullRequestId: $pullRequestId, mergeMethod: $mergeMethod }) {
    pullRequest { autoMergeRequest { mergeMethod } }
  }
}`;
const PAGE_SIZE = 100;

export class GitHubForge implements ForgeProvider {
  readonly kind = FORGE;
  readonly credentials: Credentials;
  readonly #clients: GitHubClients;
  readonly #gitBaseUrl: string | undefined;

  constructor(options: GitHubForgeOptions) {
    this.credentials = options.credentials;
    this.#gitBaseUrl = options.gitBaseUrl?.replace(/\/+$/, '');
    this.#clients = createGitHubClients(options);
  }

  cloneUrl(repo: RepositoryRef): string {
    return `${this.#gitBaseUrl ?? `https://${repo.host}`}/${repo.owner}/${repo.name}.git`;
  }

  async findPullRequestByHeadBranch(repo: RepositoryRef, branch: string): Promise<PullRequest | undefined> {
    const context = this.#context('findPullRequestByHeadBranch', repo);
    const items = await this.#call(context, () =>
      this.#clients.rest.paginate(this.#clients.rest.rest.pulls.list, {
        owner: repo.owner,
        repo: repo.name,
        head: `${repo.owner}:${branch}`,
        state: 'all',
        per_page: PAGE_SIZE,
      }),
    );
    // GitHub ignores a `head` filter it cannot parse and lists every PR: filter again here.
    const matching = this.#parse(context, () => parsePullRequestList(items)).filter((pull) => pull.head.ref === branch);
    const newestFirst = [...matching].sort((a, b) => compareStrings(b.created_at, a.created_at) || b.number - a.number);
    const chosen = newestFirst.find((pull) => pull.state === 'open') ?? newestFirst[0];
    return chosen === undefined ? undefined : toPullRequest(chosen);
  }

  async createPullRequest(input: CreatePullRequestInput): Promise<PullRequest> {
    const context = this.#context('createPullRequest', input.repo);
    const response = await this.#call(context, () =>
      this.#clients.rest.rest.pulls.create({
        owner: input.repo.owner,
        repo: input.repo.name,
        base: input.base,
        head: input.head,
        title: input.title,
        body: input.body,
        draft: input.draft,
      }),
    );
    return toPullRequest(this.#parse(context, () => parsePullRequest(response.data)));
  }

  async getPullRequest(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return toPullRequest(await this.#get(this.#context('getPullRequest', repo), repo, number));
  }

  async updatePullRequest(repo: RepositoryRef, number: number, update: PullRequestUpdate): Promise<PullRequest> {
    const context = this.#context('updatePullRequest', repo);
    if (update.title === undefined && update.body === undefined && update.base === undefined) {
      return toPullRequest(await this.#get(context, repo, number));
    }
    checkNumber(context, number);
    const response = await this.#call(context, () =>
      this.#clients.rest.rest.pulls.update({
        owner: repo.owner,
        repo: repo.name,
        pull_number: number,
        ...(update.title === undefined ? {} : { title: update.title }),
        ...(update.body === undefined ? {} : { body: update.body }),
        ...(update.base === undefined ? {} : { base: update.base }),
      }),
    );
    return toPullRequest(this.#parse(context, () => parsePullRequest(response.data)));
  }

  markReadyForReview(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return this.#setDraft(this.#context('markReadyForReview', repo), repo, number, false);
  }

  convertToDraft(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return this.#setDraft(this.#context('convertToDraft', repo), repo, number, true);
  }

  /** At most 250 commits: GitHub's own limit for this endpoint. */
  async listCommits(repo: RepositoryRef, number: number): Promise<PullRequestCommit[]> {
    const context = this.#context('listCommits', repo);
    checkNumber(context, number);
    const items = await this.#call(context, () =>
      this.#clients.rest.paginate(this.#clients.rest.rest.pulls.listCommits, {
        owner: repo.owner,
        repo: repo.name,
        pull_number: number,
        per_page: PAGE_SIZE,
      }),
    );
    return this.#parse(context, () => parseCommitList(items));
  }

  /** Pull requests are issues to GitHub's label API: POST /repos/{owner}/{repo}/issues/{number}/labels. */
  async addLabels(repo: RepositoryRef, number: number, labels: readonly string[]): Promise<readonly string[]> {
    const context = this.#context('addLabels', repo);
    checkNumber(context, number);
    const response = await this.#call(context, () =>
      this.#clients.rest.rest.issues.addLabels({
        owner: repo.owner,
        repo: repo.name,
        issue_number: number,
        labels: [...labels],
      }),
    );
    return this.#parse(context, () => parseLabelList(response.data));
  }

  /**
   * pulls.update with `state: closed`. GitHub refuses to change a merged PR's state, so a PR that
   * is not open is returned as it is, as the local forge does.
   */
  async closePullRequest(repo: RepositoryRef, number: number): Promise<PullRequest> {
    const context = this.#context('closePullRequest', repo);
    const current = await this.#get(context, repo, number);
    if (current.state !== 'open') return toPullRequest(current);
    const response = await this.#call(context, () =>
      this.#clients.rest.rest.pulls.update({
        owner: repo.owner,
        repo: repo.name,
        pull_number: number,
        state: 'closed',
      }),
    );
    return toPullRequest(this.#parse(context, () => parsePullRequest(response.data)));
  }

  /** A PR's conversation is its issue's: POST /repos/{owner}/{repo}/issues/{number}/comments. */
  async addComment(repo: RepositoryRef, number: number, body: string): Promise<void> {
    const context = this.#context('addComment', repo);
    checkNumber(context, number);
    await this.#call(context, () =>
      this.#clients.rest.rest.issues.createComment({ owner: repo.owner, repo: repo.name, issue_number: number, body }),
    );
  }

  /**
   * GraphQL enablePullRequestAutoMerge, with the PR's node id from REST. Without a `method`, as
   * Renovate does (lib/modules/platform/github: initRepo and tryPrAutomerge): the repository's
   * settings are read first; a repository that does not allow auto-merge is a 422 ForgeError
   * without asking, and the method is the first the repository allows of rebase, squash and merge.
   * GitHub's own refusals (a method the repository forbids, a PR already clean and mergeable)
   * come back as ForgeErrors like any other failure.
   */
  async enableAutoMerge(repo: RepositoryRef, number: number, method?: AutoMergeMethod): Promise<void> {
    const context = this.#context('enableAutoMerge', repo);
    const current = await this.#get(context, repo, number);
    let mergeMethod = method;
    if (mergeMethod === undefined) {
      const data = await this.#call(context, () =>
        this.#clients.graphql<unknown>(REPOSITORY_MERGE_SETTINGS, { owner: repo.owner, name: repo.name }),
      );
      const settings = this.#parse(context, () => parseRepositoryMergeSettings(data));
      if (!settings.autoMergeAllowed) {
        throw new ForgeError({
          forge: FORGE,
          operation: context.operation,
          repo: context.repo,
          status: 422,
          reason: 'auto-merge is not allowed in the repository settings',
        });
      }
      mergeMethod = settings.rebaseMergeAllowed
        ? 'REBASE'
        : settings.squashMergeAllowed
          ? 'SQUASH'
          : settings.mergeCommitAllowed
            ? 'MERGE'
            : undefined;
    }
    const data = await this.#call(context, () =>
      this.#clients.graphql<unknown>(ENABLE_AUTO_MERGE, {
        pullRequestId: current.node_id,
        ...(mergeMethod === undefined ? {} : { mergeMethod }),
      }),
    );
    if (!this.#parse(context, () => parseAutoMergeMutation(data))) {
      throw malformedResponse(context, 'auto-merge result', 'autoMergeRequest is null after enabling auto-merge');
    }
  }

  async #get(context: FailureContext, repo: RepositoryRef, number: number): Promise<PullRequestResponse> {
    checkNumber(context, number);
    const response = await this.#call(context, () =>
      this.#clients.rest.rest.pulls.get({ owner: repo.owner, repo: repo.name, pull_number: number }),
    );
    return this.#parse(context, () => parsePullRequest(response.data));
  }

  /**
   * The draft mutations need the PR's global node id, which REST gives. The answer is that REST
   * view with the draft flag the mutation reported, rather than a second read that might not yet
   * see the change.
   */
  async #setDraft(context: FailureContext, repo: RepositoryRef, number: number, draft: boolean): Promise<PullRequest> {
    const current = await this.#get(context, repo, number);
    if ((current.draft ?? false) === draft) return toPullRequest(current);
    const [mutation, field] = draft
      ? [CONVERT_TO_DRAFT, 'convertPullRequestToDraft']
      : [MARK_READY, 'markPullRequestReadyForReview'];
    const data = await this.#call(context, () =>
      this.#clients.graphql<unknown>(mutation, { pullRequestId: current.node_id }),
    );
    const isDraft = this.#parse(context, () => parseDraftMutation(field, data));
    return { ...toPullRequest(current), draft: isDraft };
  }

  async #call<T>(context: FailureContext, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toForgeError(error, context);
    }
  }

  #parse<T>(context: FailureContext, parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (error instanceof ResponseShapeError) throw malformedResponse(context, error.what, error.problem);
      throw error;
    }
  }

  #context(operation: string, repo: RepositoryRef): FailureContext {
    return {
      operation,
      repo: `${repo.owner}/${repo.name}`,
      credentials: this.credentials,
      endpoint: endpointOf(this.#clients.apiUrl),
    };
  }
}

/** A number GitHub could not have issued is a 404 without asking. */
function checkNumber(context: FailureContext, number: number): void {
  if (Number.isSafeInteger(number) && number > 0) return;
  throw new ForgeError({
    forge: FORGE,
    operation: context.operation,
    repo: context.repo,
    status: 404,
    reason: `no pull request #${String(number)}`,
  });
}
