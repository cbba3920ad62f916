// The ForgeProvider for GitLab (gitlab.com and self-managed) through @gitbeaker/rest
// (docs/decisions.md D12, N32). Merge requests stand for pull requests: the MR's `iid` is the
// number, `source_branch` the head. GitLab has no draft field on create or update, so draft is the
// `Draft: ` title prefix: added on create, kept on every retitle while the MR is a draft, removed
// to mark it ready. git never goes through here: it pushes to cloneUrl() with `credentials`, whose
// user name is `oauth2` unless the SCM Secret names one (GitLab accepts any name with a token).
import { Gitlab } from '@gitbeaker/rest';
import { Credentials } from '../../credentials/credentials.ts';
import { draftTitle, readyTitle } from '../../../domain/pr-description/draft-title.ts';
import { compareStrings } from '../../../domain/compare.ts';
import { ForgeError } from '../errors.ts';
import { endpointOf } from '../github/errors.ts';
import { ResponseShapeError } from '../github/responses.ts';
import type { RepositoryRef } from '../repository-url.ts';
import type {
  AutoMergeMethod,
  CreatePullRequestInput,
  ForgeProvider,
  PullRequest,
  PullRequestCommit,
  PullRequestUpdate,
} from '../types.ts';
import { FORGE, malformedResponse, toForgeError, type FailureContext } from './errors.ts';
import {
  isDraftMergeRequest,
  parseCommitList,
  parseMergeRequest,
  parseMergeRequestList,
  toPullRequest,
  type MergeRequestResponse,
} from './responses.ts';

export const GITLAB_API_PATH = '/api/v4';
/** The user name GitLab documents for a token over git HTTPS (`oauth2:<token>`). */
export const GITLAB_GIT_USERNAME = 'oauth2';
/** Credentials' default user name, GitHub's: replaced by GITLAB_GIT_USERNAME. */
const GITHUB_GIT_USERNAME = 'x-access-token';
const DEFAULT_TIMEOUT_MS = 30_000;
const PAGE_SIZE = 100;

export interface GitLabForgeOptions {
  /** REST root including `/api/v4`: default `https://<repo.host>/api/v4`. */
  readonly apiUrl: string;
  /** Where git clones: default `https://<repo.host>`. */
  readonly gitBaseUrl?: string;
  readonly credentials: Credentials;
  readonly request?: { readonly timeoutMs?: number };
}

type GitlabClient = InstanceType<typeof Gitlab<false>>;

export class GitLabForge implements ForgeProvider {
  readonly kind = FORGE;
  readonly credentials: Credentials;
  readonly #api: GitlabClient;
  readonly #apiUrl: string;
  readonly #gitBaseUrl: string | undefined;

  constructor(options: GitLabForgeOptions) {
    const given = options.credentials;
    this.credentials =
      given.username === GITHUB_GIT_USERNAME
        ? new Credentials({ token: given.revealToken(), username: GITLAB_GIT_USERNAME })
        : given;
    this.#apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.#gitBaseUrl = options.gitBaseUrl?.replace(/\/+$/, '');
    const credentials = this.credentials;
    // gitbeaker appends `/api/v4` to its host itself. The token is a function, read at send time,
    // so the client object holds no copy of it.
    this.#api = new Gitlab({
      host: this.#apiUrl.endsWith(GITLAB_API_PATH) ? this.#apiUrl.slice(0, -GITLAB_API_PATH.length) : this.#apiUrl,
      token: () => Promise.resolve(credentials.revealToken()),
      queryTimeout: options.request?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  }

  cloneUrl(repo: RepositoryRef): string {
    return `${this.#gitBaseUrl ?? `https://${repo.host}`}/${repo.owner}/${repo.name}.git`;
  }

  async findPullRequestByHeadBranch(repo: RepositoryRef, branch: string): Promise<PullRequest | undefined> {
    const context = this.#context('findPullRequestByHeadBranch', repo);
    const items = await this.#request(
      context,
      () =>
        this.#api.MergeRequests.all({
          projectId: projectId(repo),
          // No `state`: GitLab's default is every state (opened, closed, locked, merged).
          sourceBranch: branch,
          perPage: PAGE_SIZE,
        }),
      parseMergeRequestList,
    );
    const matching = items.filter((mr) => mr.source_branch === branch);
    const newestFirst = [...matching].sort((a, b) => compareStrings(b.created_at, a.created_at) || b.iid - a.iid);
    const chosen = newestFirst.find((mr) => toPullRequest(mr).state === 'open') ?? newestFirst[0];
    return chosen === undefined ? undefined : toPullRequest(chosen);
  }

  /** GitLab answers 409 for a second open MR of one source branch: 422 here, as the interface says. */
  async createPullRequest(input: CreatePullRequestInput): Promise<PullRequest> {
    const context = this.#context('createPullRequest', input.repo);
    const title = input.draft ? draftTitle(input.title, 'gitlab') : readyTitle(input.title, 'gitlab');
    const created = await this.#request(
      context,
      () =>
        this.#api.MergeRequests.create(projectId(input.repo), input.head, input.base, title, {
          description: input.body,
        }),
      parseMergeRequest,
      conflictAsInvalid,
    );
    return toPullRequest(created);
  }

  async getPullRequest(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return toPullRequest(await this.#get(this.#context('getPullRequest', repo), repo, number));
  }

  /** A new title keeps the `Draft: ` prefix while the MR is a draft, so the MR stays one. */
  async updatePullRequest(repo: RepositoryRef, number: number, update: PullRequestUpdate): Promise<PullRequest> {
    const context = this.#context('updatePullRequest', repo);
    const current = await this.#get(context, repo, number);
    if (update.title === undefined && update.body === undefined && update.base === undefined) {
      return toPullRequest(current);
    }
    const draft = isDraftMergeRequest(current);
    return this.#edit(context, repo, number, {
      ...(update.title === undefined
        ? {}
        : { title: draft ? draftTitle(update.title, 'gitlab') : readyTitle(update.title, 'gitlab') }),
      ...(update.body === undefined ? {} : { description: update.body }),
      ...(update.base === undefined ? {} : { targetBranch: update.base }),
    });
  }

  /** Drops every draft prefix from the title (GitLab: `Draft:`, `[Draft]`, `(Draft)`). */
  markReadyForReview = (repo: RepositoryRef, number: number): Promise<PullRequest> =>
    this.#setDraft('markReadyForReview', repo, number, false);

  /** Puts `Draft: ` before the title. */
  convertToDraft = (repo: RepositoryRef, number: number): Promise<PullRequest> =>
    this.#setDraft('convertToDraft', repo, number, true);

  async listCommits(repo: RepositoryRef, number: number): Promise<PullRequestCommit[]> {
    const context = this.#context('listCommits', repo);
    checkNumber(context, number);
    return this.#request(
      context,
      () => this.#api.MergeRequests.allCommits(projectId(repo), number, { perPage: PAGE_SIZE }),
      parseCommitList,
    );
  }

  /** PUT `add_labels`: GitLab keeps the labels the MR has and answers with all of them. */
  async addLabels(repo: RepositoryRef, number: number, labels: readonly string[]): Promise<readonly string[]> {
    const context = this.#context('addLabels', repo);
    checkNumber(context, number);
    // GitLab's description types add_labels as an array of strings (gitbeaker's type says a
    // comma-separated string; it sends either as given).
    const addLabels = [...labels] as unknown as string;
    const edited = await this.#request(
      context,
      () => this.#api.MergeRequests.edit(projectId(repo), number, { addLabels }),
      parseMergeRequest,
    );
    return edited.labels ?? [];
  }

  /** PUT `state_event: close`; an MR already closed or merged is returned as it is. */
  async closePullRequest(repo: RepositoryRef, number: number): Promise<PullRequest> {
    const context = this.#context('closePullRequest', repo);
    const current = await this.#get(context, repo, number);
    if (toPullRequest(current).state !== 'open') return toPullRequest(current);
    return this.#edit(context, repo, number, { stateEvent: 'close' });
  }

  /** A note on the MR: POST `.../merge_requests/{iid}/notes`. */
  async addComment(repo: RepositoryRef, number: number, body: string): Promise<void> {
    const context = this.#context('addComment', repo);
    checkNumber(context, number);
    await this.#request(context, () => this.#api.MergeRequestNotes.create(projectId(repo), number, body), ignore);
  }

  /**
   * PUT `.../merge` with `auto_merge` (GitLab's "merge when pipeline succeeds"; its older
   * `merge_when_pipeline_succeeds` is deprecated). GitLab sets the merge method per project, not per
   * MR: only SQUASH changes the request (`squash: true`); MERGE and REBASE follow the project.
   * GitLab merges at once an MR that is mergeable and has no pipeline to wait for (N32).
   */
  async enableAutoMerge(repo: RepositoryRef, number: number, method?: AutoMergeMethod): Promise<void> {
    const context = this.#context('enableAutoMerge', repo);
    const current = await this.#get(context, repo, number);
    await this.#request(
      context,
      () =>
        this.#api.MergeRequests.merge(projectId(repo), number, {
          autoMerge: true,
          ...(current.sha === undefined || current.sha === null ? {} : { sha: current.sha }),
          ...(method === 'SQUASH' ? { squash: true } : {}),
        }),
      ignore,
    );
  }

  async #get(context: FailureContext, repo: RepositoryRef, number: number): Promise<MergeRequestResponse> {
    checkNumber(context, number);
    return this.#request(context, () => this.#api.MergeRequests.show(projectId(repo), number), parseMergeRequest);
  }

  async #edit(
    context: FailureContext,
    repo: RepositoryRef,
    number: number,
    options: { title?: string; description?: string; targetBranch?: string; stateEvent?: 'close' },
  ): Promise<PullRequest> {
    const edited = await this.#request(
      context,
      () => this.#api.MergeRequests.edit(projectId(repo), number, options),
      parseMergeRequest,
      conflictAsInvalid,
    );
    return toPullRequest(edited);
  }

  async #setDraft(operation: string, repo: RepositoryRef, number: number, draft: boolean): Promise<PullRequest> {
    const context = this.#context(operation, repo);
    const current = await this.#get(context, repo, number);
    if (isDraftMergeRequest(current) === draft) return toPullRequest(current);
    const title = draft ? draftTitle(current.title, 'gitlab') : readyTitle(current.title, 'gitlab');
    return this.#edit(context, repo, number, { title });
  }

  /**
   * One API call and the reading of its answer: gitbeaker's failures become ForgeErrors
   * (`adjust` may change their status), an answer without the fields read a 502 ForgeError.
   */
  async #request<T>(
    context: FailureContext,
    work: () => Promise<unknown>,
    parse: (answer: unknown) => T,
    adjust: (error: ForgeError) => ForgeError = (error) => error,
  ): Promise<T> {
    let answer: unknown;
    try {
      answer = await work();
    } catch (error) {
      throw adjust(toForgeError(error, context));
    }
    try {
      return parse(answer);
    } catch (error) {
      throw error instanceof ResponseShapeError ? malformedResponse(context, error.what, error.problem) : error;
    }
  }

  #context(operation: string, repo: RepositoryRef): FailureContext {
    const endpoint = endpointOf(this.#apiUrl);
    return { operation, repo: projectId(repo), credentials: this.credentials, endpoint };
  }
}

/** For answers nothing is read from. */
function ignore(): void {
  return undefined;
}

/** The project's URL-encoded full path, which GitLab takes wherever it takes a project id. */
function projectId(repo: RepositoryRef): string {
  return `${repo.owner}/${repo.name}`;
}

/**
 * GitLab refuses a branch it cannot use for an MR (another open MR from it, a missing branch) with
 * 409 or 422; the interface promises GitHub's 422 for both.
 */
function conflictAsInvalid(error: ForgeError): ForgeError {
  if (error.status !== 409) return error;
  return new ForgeError({
    forge: FORGE,
    operation: error.operation,
    repo: error.repo,
    status: 422,
    reason: error.reason,
  });
}

/** A number GitLab could not have issued is a 404 without asking. */
function checkNumber(context: FailureContext, number: number): void {
  if (Number.isSafeInteger(number) && number > 0) return;
  throw new ForgeError({
    forge: FORGE,
    operation: context.operation,
    repo: context.repo,
    status: 404,
    reason: `no merge request !${String(number)}`,
  });
}
