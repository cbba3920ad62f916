// A forge made of bare git repositories on disk (`<root>/<owner>/<name>.git`) with pull-request
// records beside them, for the sandbox and for people trying nudger without a hosted forge. It
// behaves like GitHub where the controller can tell: 422 for a second open PR on one head, 404 for
// an unknown PR, live head shas, merge = fast-forward or a merge commit on the base. Every PR
// change and every push is also appended to the repository's event log (event-log.ts), which the
// sandbox's Pipelines-as-Code stand-in reads the way PaC receives webhooks.
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitCommandError } from '../../git/errors.ts';
import { buildCommit, localGitRun, type FileText, type GitIdentity, type GitRun } from '../../git/plumbing.ts';
import { ForgeError } from '../errors.ts';
import { parseRepositoryUrl, type RepositoryRef } from '../repository-url.ts';
import type {
  AutoMergeMethod,
  CreatePullRequestInput,
  ForgeProvider,
  PullRequest,
  PullRequestCommit,
  PullRequestUpdate,
} from '../types.ts';
import {
  appendForgeEvent,
  installPostReceiveHook,
  readForgeEventLog,
  type ForgeEventBatch,
  type PullRequestAction,
} from './event-log.ts';
import { PullRequestStore, type PullRequestRecord } from './pr-store.ts';

export interface LocalForgeOptions {
  readonly root: string;
  /** Who seeds repositories and makes merge commits. */
  readonly identity?: GitIdentity;
}

const DEFAULT_IDENTITY: GitIdentity = { name: 'Local Forge', email: 'forge@nudger.invalid' };
const OWNER_OR_NAME = /^[A-Za-z0-9_.-]+$/;
const COMMIT_SEPARATOR = '\x1e';
const FIELD_SEPARATOR = '\x1f';

export class LocalForge implements ForgeProvider {
  readonly kind = 'local';
  readonly credentials = undefined;
  readonly root: string;
  readonly #identity: GitIdentity;

  constructor(options: LocalForgeOptions) {
    this.root = resolve(options.root);
    this.#identity = options.identity ?? DEFAULT_IDENTITY;
  }

  /** `file:///<root>/<owner>/<name>.git`: what a Component's `spec.source.git.url` holds. */
  repositoryUrl(owner: string, name: string): string {
    return pathToFileURL(this.#gitDir(owner, name)).href;
  }

  repository(owner: string, name: string): RepositoryRef {
    return parseRepositoryUrl(this.repositoryUrl(owner, name));
  }

  /** A new bare repository whose `main` holds `files` in one initial commit. */
  async createRepository(owner: string, name: string, files: Readonly<Record<string, string>>): Promise<RepositoryRef> {
    const repo = this.repository(owner, name);
    const gitDir = this.#gitDir(owner, name);
    if (await exists(gitDir)) throw this.#error('createRepository', repo, 422, 'repository already exists');
    await mkdir(gitDir, { recursive: true });
    const run = localGitRun(gitDir);
    await run('init', ['init', '--quiet', '--bare', '--initial-branch=main']);
    await installPostReceiveHook(gitDir, this.eventLogPath(repo));
    const commit = await buildCommit(run, {
      parent: undefined,
      files: Object.entries(files).map(([path, text]): FileText => ({ path, text })),
      message: 'Initial commit',
      author: this.#identity,
      scratchRoot: join(gitDir, 'nudger-tmp'),
    });
    await run('update-ref', ['update-ref', 'refs/heads/main', commit, '']);
    return repo;
  }

  /** The bare repository of `repo` (existing or not). */
  gitDirectory(repo: RepositoryRef): string {
    return this.#gitDir(repo.owner, repo.name);
  }

  /** `<root>/<owner>/<name>.events.jsonl`: see event-log.ts. */
  eventLogPath(repo: RepositoryRef): string {
    return join(this.root, repo.owner, `${repo.name}.events.jsonl`);
  }

  cloneUrl(repo: RepositoryRef): string {
    return this.repositoryUrl(repo.owner, repo.name);
  }

  /** The sha of `branch` now, or undefined. */
  async branchHead(repo: RepositoryRef, branch: string): Promise<string | undefined> {
    return this.#branchHead(await this.#open('branchHead', repo), branch);
  }

  /** Every pull request of the repository, oldest first (the sandbox's view; not ForgeProvider). */
  async listPullRequests(repo: RepositoryRef): Promise<PullRequest[]> {
    const run = await this.#open('listPullRequests', repo);
    return Promise.all((await this.#store(repo).list()).map((record) => this.#view(run, repo, record)));
  }

  async findPullRequestByHeadBranch(repo: RepositoryRef, branch: string): Promise<PullRequest | undefined> {
    const run = await this.#open('findPullRequestByHeadBranch', repo);
    const matching = (await this.#store(repo).list()).filter((record) => record.headBranch === branch);
    const chosen = matching.find((record) => record.state === 'open') ?? matching.at(-1);
    return chosen === undefined ? undefined : this.#view(run, repo, chosen);
  }

  async createPullRequest(input: CreatePullRequestInput): Promise<PullRequest> {
    const { repo } = input;
    const run = await this.#open('createPullRequest', repo);
    const store = this.#store(repo);
    const headSha = await this.#branchHead(run, input.head);
    if (headSha === undefined)
      throw this.#error('createPullRequest', repo, 422, `head branch ${input.head} does not exist`);
    if ((await this.#branchHead(run, input.base)) === undefined) {
      throw this.#error('createPullRequest', repo, 422, `base branch ${input.base} does not exist`);
    }
    const record = await store.withLock(async () => {
      const open = (await store.list()).find(
        (existing) => existing.headBranch === input.head && existing.state === 'open',
      );
      if (open !== undefined) {
        throw this.#error(
          'createPullRequest',
          repo,
          422,
          `a pull request already exists for ${input.head} (#${String(open.number)})`,
        );
      }
      const now = new Date().toISOString();
      const created: PullRequestRecord = {
        number: await store.nextNumber(),
        title: input.title,
        body: input.body,
        draft: input.draft,
        state: 'open',
        headBranch: input.head,
        baseBranch: input.base,
        headSha,
        createdAt: now,
        updatedAt: now,
      };
      await store.write(created);
      await this.#event(repo, 'opened', created);
      return created;
    });
    return this.#view(run, repo, record);
  }

  async getPullRequest(repo: RepositoryRef, number: number): Promise<PullRequest> {
    const run = await this.#open('getPullRequest', repo);
    return this.#view(run, repo, await this.#read('getPullRequest', repo, number));
  }

  async updatePullRequest(repo: RepositoryRef, number: number, update: PullRequestUpdate): Promise<PullRequest> {
    if (update.base !== undefined && (await this.branchHead(repo, update.base)) === undefined) {
      throw this.#error('updatePullRequest', repo, 422, `base branch ${update.base} does not exist`);
    }
    return this.#change('updatePullRequest', repo, number, (record) => {
      const next = {
        ...record,
        title: update.title ?? record.title,
        body: update.body ?? record.body,
        baseBranch: update.base ?? record.baseBranch,
      };
      // GitHub sends `edited` only when the title, the body or the base actually changed.
      const changed = next.title !== record.title || next.body !== record.body || next.baseBranch !== record.baseBranch;
      return { record: next, event: changed ? 'edited' : undefined };
    });
  }

  async markReadyForReview(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return this.#change('markReadyForReview', repo, number, (record) => ({
      record: { ...record, draft: false },
      event: record.draft ? 'ready_for_review' : undefined,
    }));
  }

  async convertToDraft(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return this.#change('convertToDraft', repo, number, (record) => ({
      record: { ...record, draft: true },
      event: record.draft ? undefined : 'converted_to_draft',
    }));
  }

  async listCommits(repo: RepositoryRef, number: number): Promise<PullRequestCommit[]> {
    const run = await this.#open('listCommits', repo);
    const record = await this.#read('listCommits', repo, number);
    const head =
      record.state === 'open' ? ((await this.#branchHead(run, record.headBranch)) ?? record.headSha) : record.headSha;
    const base = await this.#branchHead(run, record.baseBranch);
    const range = base === undefined ? [head] : [head, `^${base}`];
    const fields = ['%H', '%an', '%ae', '%ce', '%B'].join(FIELD_SEPARATOR);
    const format = `--format=${fields}${COMMIT_SEPARATOR}`;
    const output = await run('log', ['log', '--reverse', format, ...range, '--']);
    return output
      .split(COMMIT_SEPARATOR)
      .map((chunk) => chunk.replace(/^\n/, ''))
      .filter((chunk) => chunk.length > 0)
      .map((chunk) => {
        const [sha = '', authorName = '', authorEmail = '', committerEmail = '', message = ''] =
          chunk.split(FIELD_SEPARATOR);
        return { sha, authorName, authorEmail, committerEmail, message: message.replace(/\n$/, '') };
      });
  }

  /** Labels are kept on the PR record, each once, in the order first added. */
  async addLabels(repo: RepositoryRef, number: number, labels: readonly string[]): Promise<readonly string[]> {
    let result: readonly string[] = [];
    await this.#change('addLabels', repo, number, (record) => {
      result = [...new Set([...(record.labels ?? []), ...labels])];
      return { record: { ...record, labels: result }, event: undefined };
    });
    return result;
  }

  /**
   * Records the request on the PR (pullRequestExtras shows it); the local forge merges nothing by
   * itself: whoever plays the forge's merge queue (the sandbox) reads the record.
   */
  async enableAutoMerge(repo: RepositoryRef, number: number, method?: AutoMergeMethod): Promise<void> {
    await this.#change('enableAutoMerge', repo, number, (record) => {
      if (record.state !== 'open') {
        throw this.#error('enableAutoMerge', repo, 422, `pull request #${String(number)} is ${record.state}`);
      }
      const autoMerge = { method: method ?? null, enabledAt: new Date().toISOString() };
      return { record: { ...record, autoMerge }, event: undefined };
    });
  }

  /** Comments are kept on the PR record, in the order added; the event log has no comment events. */
  async addComment(repo: RepositoryRef, number: number, body: string): Promise<void> {
    await this.#change('addComment', repo, number, (record) => {
      const comments = [...(record.comments ?? []), { body, createdAt: new Date().toISOString() }];
      return { record: { ...record, comments }, event: undefined };
    });
  }

  /** The ForgeProvider's close: the same as a human closing it here (close). */
  closePullRequest(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return this.close(repo, number);
  }

  /** What the PR carries beside the ForgeProvider view: its labels, any auto-merge request, its comments. */
  async pullRequestExtras(
    repo: RepositoryRef,
    number: number,
  ): Promise<Pick<PullRequestRecord, 'labels' | 'autoMerge'> & { comments?: readonly string[] }> {
    await this.#open('pullRequestExtras', repo);
    const record = await this.#read('pullRequestExtras', repo, number);
    return {
      labels: record.labels ?? [],
      ...(record.autoMerge === undefined ? {} : { autoMerge: record.autoMerge }),
      ...(record.comments === undefined ? {} : { comments: record.comments.map((comment) => comment.body) }),
    };
  }

  /**
   * Merges the PR into its base: a fast-forward when the base has not moved, else a merge commit
   * made from `git merge-tree --write-tree`. A conflict is ForgeError 405, as on GitHub.
   */
  async merge(repo: RepositoryRef, number: number): Promise<PullRequest> {
    const run = await this.#open('merge', repo);
    const store = this.#store(repo);
    const record = await store.withLock(async () => {
      const current = await this.#read('merge', repo, number);
      if (current.state !== 'open')
        throw this.#error('merge', repo, 405, `pull request #${String(number)} is ${current.state}`);
      const head = await this.#branchHead(run, current.headBranch);
      const base = await this.#branchHead(run, current.baseBranch);
      if (head === undefined || base === undefined)
        throw this.#error('merge', repo, 422, 'head or base branch is gone');
      const fastForward = await run('merge-base', ['merge-base', '--is-ancestor', base, head]).then(
        () => true,
        () => false,
      );
      let merged = head;
      if (!fastForward) {
        let tree: string;
        try {
          // Exits 1 (a failure for GitRun) when the merge has conflicts.
          tree =
            (await run('merge-tree', ['merge-tree', '--write-tree', '--no-messages', base, head])).split('\n')[0] ?? '';
        } catch (error) {
          if (error instanceof GitCommandError) throw this.#error('merge', repo, 405, 'merge conflict');
          throw error;
        }
        const message = `Merge pull request #${String(number)} from ${current.headBranch}`;
        merged = (
          await run('commit-tree', ['commit-tree', tree, '-p', base, '-p', head, '-m', message], {
            GIT_AUTHOR_NAME: this.#identity.name,
            GIT_AUTHOR_EMAIL: this.#identity.email,
            GIT_COMMITTER_NAME: this.#identity.name,
            GIT_COMMITTER_EMAIL: this.#identity.email,
          })
        ).trim();
      }
      // With the old value: a push to the base in between fails the merge instead of being lost.
      await run('update-ref', ['update-ref', `refs/heads/${current.baseBranch}`, merged, base]);
      const next: PullRequestRecord = {
        ...current,
        state: 'merged',
        headSha: head,
        mergeCommitSha: merged,
        updatedAt: new Date().toISOString(),
      };
      await store.write(next);
      // update-ref runs no hook: the base moved, so the push GitHub would deliver is logged here.
      await appendForgeEvent(this.eventLogPath(repo), {
        type: 'push',
        ref: `refs/heads/${current.baseBranch}`,
        before: base,
        after: merged,
        at: next.updatedAt,
      });
      await this.#event(repo, 'merged', next);
      return next;
    });
    return this.#view(run, repo, record);
  }

  async close(repo: RepositoryRef, number: number): Promise<PullRequest> {
    const run = await this.#open('close', repo);
    const head = async (record: PullRequestRecord): Promise<string> =>
      (await this.#branchHead(run, record.headBranch)) ?? record.headSha;
    const store = this.#store(repo);
    const record = await store.withLock(async () => {
      const current = await this.#read('close', repo, number);
      if (current.state !== 'open') return current;
      const next: PullRequestRecord = {
        ...current,
        state: 'closed',
        headSha: await head(current),
        updatedAt: new Date().toISOString(),
      };
      await store.write(next);
      await this.#event(repo, 'closed', next);
      return next;
    });
    return this.#view(run, repo, record);
  }

  async #change(
    operation: string,
    repo: RepositoryRef,
    number: number,
    apply: (record: PullRequestRecord) => { record: PullRequestRecord; event: PullRequestAction | undefined },
  ): Promise<PullRequest> {
    const run = await this.#open(operation, repo);
    const store = this.#store(repo);
    const record = await store.withLock(async () => {
      const applied = apply(await this.#read(operation, repo, number));
      const next = { ...applied.record, updatedAt: new Date().toISOString() };
      await store.write(next);
      if (applied.event !== undefined) {
        const live = next.state === 'open' ? await this.#branchHead(run, next.headBranch) : undefined;
        const headSha = live ?? next.headSha;
        await this.#event(repo, applied.event, { ...next, headSha });
      }
      return next;
    });
    return this.#view(run, repo, record);
  }

  async #read(operation: string, repo: RepositoryRef, number: number): Promise<PullRequestRecord> {
    const record = Number.isSafeInteger(number) && number > 0 ? await this.#store(repo).read(number) : undefined;
    if (record === undefined) throw this.#error(operation, repo, 404, `no pull request #${String(number)}`);
    return record;
  }

  async #view(run: GitRun, repo: RepositoryRef, record: PullRequestRecord): Promise<PullRequest> {
    const live = record.state === 'open' ? await this.#branchHead(run, record.headBranch) : undefined;
    return {
      number: record.number,
      url: pathToFileURL(join(this.#store(repo).directory, `${String(record.number)}.json`)).href,
      state: record.state,
      draft: record.draft,
      title: record.title,
      body: record.body,
      headBranch: record.headBranch,
      headSha: live ?? record.headSha,
      baseBranch: record.baseBranch,
      ...(record.state === 'merged' && record.mergeCommitSha !== undefined
        ? { mergeCommitSha: record.mergeCommitSha }
        : {}),
    };
  }

  async #branchHead(run: GitRun, branch: string): Promise<string | undefined> {
    try {
      return (await run('rev-parse', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`])).trim();
    } catch {
      return undefined; // exit 1: no such branch
    }
  }

  /** The repository's git runner, after checking it is one of this forge's repositories. */
  async #open(operation: string, repo: RepositoryRef): Promise<GitRun> {
    if (
      !OWNER_OR_NAME.test(repo.owner) ||
      !OWNER_OR_NAME.test(repo.name) ||
      repo.owner === '..' ||
      repo.name === '..'
    ) {
      throw this.#error(operation, repo, 404, 'not a local forge repository name');
    }
    const gitDir = this.#gitDir(repo.owner, repo.name);
    if (!(await exists(gitDir))) throw this.#error(operation, repo, 404, `no repository at ${gitDir}`);
    return localGitRun(gitDir);
  }

  /** Called under the PR lock, after the record is written: the log follows the state's order. */
  async #event(repo: RepositoryRef, type: PullRequestAction, record: PullRequestRecord): Promise<void> {
    await appendForgeEvent(this.eventLogPath(repo), {
      type,
      number: record.number,
      headBranch: record.headBranch,
      baseBranch: record.baseBranch,
      headSha: record.headSha,
      draft: record.draft,
      at: record.updatedAt,
    });
  }

  #store(repo: RepositoryRef): PullRequestStore {
    return new PullRequestStore(join(this.root, repo.owner, `${repo.name}.prs`));
  }

  #gitDir(owner: string, name: string): string {
    return join(this.root, owner, `${name}.git`);
  }

  #error(operation: string, repo: RepositoryRef, status: number, reason: string): ForgeError {
    return new ForgeError({ forge: this.kind, operation, repo: `${repo.owner}/${repo.name}`, status, reason });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The events of `repo` from byte `fromOffset` on (0 for all, then each batch's `nextOffset`):
 * what a webhook receiver of this forge would have been sent, in order.
 */
export async function readForgeEvents(
  forge: LocalForge,
  repo: RepositoryRef,
  fromOffset: number,
): Promise<ForgeEventBatch> {
  return readForgeEventLog(forge.eventLogPath(repo), fromOffset);
}
