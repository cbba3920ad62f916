// One bare git repository per remote under a cache directory, reused across calls: the base branch
// is fetched shallow (`--depth=1`, deeper on request) into refs/nudger/base/<branch>, and each PR
// commit is built with plumbing in a throw-away index (plumbing.ts). Nothing is ever checked out, so a 5,000-file
// repository costs no working-tree writes, and two ChangeGroups on different bases of one
// repository never disturb each other's files (docs/decisions.md D5: the PR is one commit on the base,
// rebuilt from scratch each time).
import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import type { Credentials } from '../credentials/credentials.ts';
import { redactUserInfo } from '../credentials/credentials.ts';
import { authEnvironment, GIT_ENVIRONMENT_KEYS, gitEnvironment } from './environment.ts';
import { GitCommandError, LeaseRejectedError } from './errors.ts';
import { KeyedMutex } from './mutex.ts';
import {
  buildCommit,
  failOnNonZeroExit,
  type BuildCommitInput,
  summarizeGitOutput,
  type FileText,
  type GitEnv,
  type GitIdentity,
  type TreeBlob,
} from './plumbing.ts';

export type { FileText, GitIdentity } from './plumbing.ts';

export interface GitWorkspacesOptions {
  /** Where the per-repository bare repositories live; created if missing. */
  readonly cacheDir: string;
  /** Called with the arguments of every git command, for debug logs. Arguments never hold a token. */
  readonly trace?: (args: readonly string[]) => void;
  /** A git command silent for this long is killed. Default 120 s. */
  readonly timeoutMs?: number;
}

export interface CommitOnBaseInput {
  /** Files to add or replace, as full new texts. */
  readonly files: readonly FileText[];
  readonly message: string;
  readonly author: GitIdentity;
  /** Author and committer date; see BuildCommitInput.date. */
  readonly date?: string;
  /** The parent, a commit made on the base before (copyCommit); default the base tip. */
  readonly parent?: string;
}

/** Where a pull request's head is: its source branch, the commit built, or both (the commit wins). */
export interface PullRequestHeadRef {
  readonly branch?: string;
  readonly sha?: string;
}

export interface PullRequestHead {
  /** The head commit: `sha` when it was given and could be fetched, else the branch's tip. */
  readonly sha: string;
  /** The newest common commit of the head and the base tip: what the pull request changed is since it. */
  readonly mergeBase: string;
}

/** A path a diff found changed; `deleted` when the newer commit no longer has it. */
export interface ChangedPath {
  readonly path: string;
  readonly deleted: boolean;
}

export interface CopyCommitInput {
  /** The commit whose versions of `paths` are copied; a path it lacks is deleted. */
  readonly from: string;
  readonly paths: readonly string[];
  /** Default the base tip. */
  readonly parent?: string;
  readonly message: string;
  readonly author: GitIdentity;
  readonly date?: string;
}

export interface PrepareBaseOptions {
  /**
   * How many commits of the base's history to fetch (default 1, the tip only): more when the
   * caller reads recentSubjects.
   */
  readonly depth?: number;
}

const BASE_REF_PREFIX = 'refs/nudger/base/';
const HEAD_REF_PREFIX = 'refs/nudger/head/';
const MERGE_BASE_REF_PREFIX = 'refs/nudger/merge-base/';
const MAX_DEPTH = 1000;
/** How deep fetchPullRequestHead looks for the merge base, one step after the other. */
const MERGE_BASE_DEPTHS = [50, 250, MAX_DEPTH];
const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** Far above any manifest or Dockerfile; keeps a stray large blob from being read at all. */
const MAX_TEXT_BYTES = 5 * 1024 * 1024;

export class GitWorkspaces {
  readonly #options: GitWorkspacesOptions;
  readonly #mutex = new KeyedMutex();

  constructor(options: GitWorkspacesOptions) {
    this.#options = options;
  }

  /**
   * Fetches the tip of `baseBranch` (and `options.depth - 1` commits behind it) into the
   * repository's workspace, creating the
   * workspace on first use and fetching incrementally afterwards.
   */
  async prepareBase(
    repoUrl: string,
    baseBranch: string,
    credentials?: Credentials,
    options: PrepareBaseOptions = {},
  ): Promise<BaseCheckout> {
    const depth = options.depth ?? 1;
    if (!Number.isSafeInteger(depth) || depth < 1 || depth > MAX_DEPTH) {
      throw new GitCommandError(
        'fetch',
        redactUserInfo(repoUrl),
        `depth ${String(depth)} is not 1 to ${String(MAX_DEPTH)}`,
      );
    }
    const runner = this.#runner('fetch', repoUrl, credentials);
    const directory = runner.directory;
    return this.#mutex.run(directory, async () => {
      await ensureRepository(runner);
      const ref = `${BASE_REF_PREFIX}${baseBranch}`;
      const refspec = `+refs/heads/${baseBranch}:${ref}`;
      await runner.remote('fetch', [
        'fetch',
        '--quiet',
        `--depth=${String(depth)}`,
        '--no-tags',
        '--',
        repoUrl,
        refspec,
      ]);
      const baseSha = (await runner.run('rev-parse', ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
      return new BaseCheckout(runner, this.#mutex, baseBranch, baseSha);
    });
  }

  /**
   * The branch the remote's HEAD names (`git ls-remote --symref <url> HEAD`): the repository's
   * default branch, which build-service nudges when a Component names no revision. Undefined when
   * the remote does not say (an empty repository, a server without the symref capability).
   */
  async remoteDefaultBranch(repoUrl: string, credentials?: Credentials): Promise<string | undefined> {
    const runner = this.#runner('ls-remote', repoUrl, credentials);
    return this.#mutex.run(runner.directory, async () => {
      await ensureRepository(runner);
      const output = await runner.remote('ls-remote', ['ls-remote', '--symref', '--', repoUrl, 'HEAD']);
      for (const line of output.split('\n')) {
        const match = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
        if (match?.[1] !== undefined) return match[1];
      }
      return undefined;
    });
  }

  #runner(command: string, repoUrl: string, credentials: Credentials | undefined): GitRunner {
    if (/^https?:\/\/[^/]*@/i.test(repoUrl)) {
      throw new GitCommandError(
        command,
        redactUserInfo(repoUrl),
        'the URL must not embed credentials; pass Credentials',
      );
    }
    const directory = join(this.#options.cacheDir, `${workspaceKey(repoUrl)}.git`);
    return new GitRunner(directory, repoUrl, credentials, this.#options);
  }
}

/** The workspace's bare repository, created on first use. */
async function ensureRepository(runner: GitRunner): Promise<void> {
  if (await isDirectory(join(runner.directory, 'objects'))) return;
  await mkdir(runner.directory, { recursive: true });
  await runner.run('init', ['init', '--quiet', '--bare']);
}

/** The fetched tip of one base branch, and the operations that build and push a PR on it. */
export class BaseCheckout {
  readonly repoUrl: string;
  readonly baseBranch: string;
  readonly baseSha: string;
  /** The bare repository holding the objects. */
  readonly directory: string;
  readonly #runner: GitRunner;
  readonly #mutex: KeyedMutex;
  #lastCommit: string | undefined;

  constructor(runner: GitRunner, mutex: KeyedMutex, baseBranch: string, baseSha: string) {
    this.#runner = runner;
    this.#mutex = mutex;
    this.repoUrl = runner.repoUrl;
    this.directory = runner.directory;
    this.baseBranch = baseBranch;
    this.baseSha = baseSha;
  }

  /**
   * The text of every file of the base (or of `commit`, one this workspace holds) whose path
   * `filter` accepts, in path order. Binary files
   * (a NUL byte, or not UTF-8), symlinks, submodules and files over 5 MiB are skipped.
   */
  async readFiles(filter: (path: string) => boolean, commit: string = this.baseSha): Promise<FileText[]> {
    const listing = await this.#runner.run('ls-tree', ['ls-tree', '-r', '-z', '-l', '--full-tree', commit]);
    const wanted: { path: string; sha: string }[] = [];
    for (const entry of listing.split('\0')) {
      const tab = entry.indexOf('\t');
      if (tab < 0) continue;
      const [mode, type, sha, size] = entry.slice(0, tab).split(/\s+/);
      const path = entry.slice(tab + 1);
      if (type !== 'blob' || (mode !== '100644' && mode !== '100755') || sha === undefined) continue;
      if (Number(size) > MAX_TEXT_BYTES || !filter(path)) continue;
      wanted.push({ path, sha });
    }
    if (wanted.length === 0) return [];
    const blobs = parseCatFileBatch(await this.#runner.catFileBatch(wanted.map((file) => file.sha)));
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const files: FileText[] = [];
    for (const [index, file] of wanted.entries()) {
      const bytes = blobs[index];
      // git's own binary heuristic: a NUL in the first 8,000 bytes.
      if (bytes === undefined || bytes.subarray(0, 8000).includes(0)) continue;
      try {
        files.push({ path: file.path, text: decoder.decode(bytes) });
      } catch {
        // Not UTF-8: not a manifest nudger could rewrite.
      }
    }
    return files;
  }

  /**
   * The subjects of the newest `count` commits of the base, newest first: as many as the fetched
   * history holds (prepareBase's depth), first parents and merges alike, as `git log` lists them.
   */
  async recentSubjects(count: number): Promise<string[]> {
    const output = await this.#runner.run('log', [
      'log',
      `--max-count=${String(count)}`,
      '--format=%s',
      this.baseSha,
      '--',
    ]);
    return output.split('\n').filter((line) => line !== '');
  }

  /**
   * One commit whose parent is the base tip and whose tree is the base tree with `files` replaced
   * or added. Returns its sha, which pushWithLease pushes by default.
   */
  async commitOnBase(input: CommitOnBaseInput): Promise<string> {
    return this.#commit(input, { files: input.files });
  }

  /** A commit on `input.parent` (default the base tip), remembered for pushWithLease. */
  async #commit(
    input: Pick<CommitOnBaseInput, 'parent' | 'message' | 'author' | 'date'>,
    tree: Pick<BuildCommitInput, 'files' | 'blobs' | 'removals'>,
  ): Promise<string> {
    const commit = await buildCommit((command, args, env, stdin) => this.#runner.run(command, args, env, stdin), {
      ...tree,
      parent: input.parent ?? this.baseSha,
      message: input.message,
      author: input.author,
      ...(input.date === undefined ? {} : { date: input.date }),
      scratchRoot: join(this.directory, 'nudger-tmp'),
    });
    this.#lastCommit = commit;
    return commit;
  }

  /**
   * Fetches a pull request's head (its branch into refs/nudger/head/<branch>, or the commit itself
   * when the branch is gone or was not named, as for a fork) and enough history of it and of the
   * base to find their merge base: 50 commits deep, then 250, then 1000. Throws GitCommandError
   * when the head cannot be fetched or no merge base is within 1000 commits.
   */
  async fetchPullRequestHead(head: PullRequestHeadRef): Promise<PullRequestHead> {
    const shown = this.#runner.shownUrl;
    if (head.sha !== undefined && !FULL_SHA.test(head.sha)) {
      throw new GitCommandError('fetch', shown, `head sha ${JSON.stringify(head.sha)} is not a full object name`);
    }
    if (head.branch !== undefined) await this.#checkBranchName(head.branch);
    if (head.branch === undefined && head.sha === undefined) {
      throw new GitCommandError('fetch', shown, 'the pull request head names neither a branch nor a commit');
    }
    return this.#mutex.run(this.directory, async () => {
      for (const depth of MERGE_BASE_DEPTHS) {
        const sha = await this.#fetchHead(head, depth);
        const mergeBase = await this.#mergeBase(sha);
        if (mergeBase !== undefined) return { sha, mergeBase };
      }
      throw new GitCommandError(
        'merge-base',
        shown,
        `the pull request head and ${this.baseBranch} have no common commit within ${String(MAX_DEPTH)} commits`,
      );
    });
  }

  async #checkBranchName(branch: string): Promise<void> {
    try {
      await this.#runner.run('check-ref-format', ['check-ref-format', `refs/heads/${branch}`]);
    } catch {
      throw new GitCommandError('fetch', this.#runner.shownUrl, `${JSON.stringify(branch)} is not a branch name`);
    }
  }

  /**
   * The base and the head fetched `depth` commits deep; the head's commit. Two fetches: git skips
   * a fetch whose every wanted commit is already here, so a commit named by sha beside the base
   * would keep the base from deepening.
   */
  async #fetchHead(head: PullRequestHeadRef, depth: number): Promise<string> {
    const fetch = (refspec: string) =>
      this.#runner.remote('fetch', [
        'fetch',
        '--quiet',
        `--depth=${String(depth)}`,
        '--no-tags',
        '--',
        this.repoUrl,
        refspec,
      ]);
    await fetch(`+refs/heads/${this.baseBranch}:${MERGE_BASE_REF_PREFIX}${this.baseBranch}`);
    let tip: string | undefined;
    if (head.branch !== undefined) {
      const ref = `${HEAD_REF_PREFIX}${head.branch}`;
      try {
        await fetch(`+refs/heads/${head.branch}:${ref}`);
        tip = (await this.#runner.run('rev-parse', ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
        if (head.sha === undefined || head.sha === tip || (await this.#hasCommit(head.sha))) return head.sha ?? tip;
      } catch (error) {
        // A branch that is gone (a fork's, a deleted one) may still be reachable by its commit.
        if (head.sha === undefined) throw error;
      }
    }
    const sha = head.sha ?? '';
    try {
      await fetch(sha);
    } catch (error) {
      // A commit force-pushed away and no longer served: the branch as it is now is the PR's head.
      if (tip === undefined) throw error;
      return tip;
    }
    return sha;
  }

  async #hasCommit(sha: string): Promise<boolean> {
    return this.#runner.run('cat-file', ['cat-file', '-e', `${sha}^{commit}`]).then(
      () => true,
      () => false,
    );
  }

  async #mergeBase(sha: string): Promise<string | undefined> {
    try {
      const output = await this.#runner.run('merge-base', ['merge-base', this.baseSha, sha]);
      return output.trim() === '' ? undefined : output.trim();
    } catch {
      return undefined; // exit code 1: none within the history fetched so far
    }
  }

  /** The paths that differ between two commits this workspace holds, in path order; renames as delete and add. */
  async changedPaths(from: string, to: string): Promise<ChangedPath[]> {
    const output = await this.#runner.run('diff', [
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--name-status',
      from,
      to,
      '--',
    ]);
    const fields = output.split('\0');
    const changed: ChangedPath[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [status = '', path = ''] = [fields[i], fields[i + 1]];
      if (path !== '') changed.push({ path, deleted: status.startsWith('D') });
    }
    return changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * One commit on `parent` (default the base tip) whose tree has `paths` as `from` has them, byte
   * for byte with their modes, and without those `from` lacks. Returns its sha.
   */
  async copyCommit(input: CopyCommitInput): Promise<string> {
    // The whole tree, filtered here: ls-tree reads path arguments as patterns, not as names.
    const wanted = new Set(input.paths);
    const blobs: TreeBlob[] = [];
    const present = new Set<string>();
    const listing = await this.#runner.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', input.from]);
    for (const entry of listing.split('\0')) {
      const tab = entry.indexOf('\t');
      if (tab < 0 || !wanted.has(entry.slice(tab + 1))) continue;
      const [mode, type, sha] = entry.slice(0, tab).split(/\s+/);
      const path = entry.slice(tab + 1);
      if (mode === undefined || sha === undefined || (type !== 'blob' && type !== 'commit')) continue;
      blobs.push({ path, mode, sha });
      present.add(path);
    }
    return this.#commit(input, { files: [], blobs, removals: input.paths.filter((path) => !present.has(path)) });
  }

  /**
   * `git push --force-with-lease=refs/heads/<branch>:<expected>` of `commit` (default: the last
   * commitOnBase). `expectedRemoteSha` undefined means the branch must not exist yet. Throws
   * LeaseRejectedError when the remote branch is anywhere else.
   */
  async pushWithLease(branch: string, expectedRemoteSha: string | undefined, commit = this.#lastCommit): Promise<void> {
    const shown = this.#runner.shownUrl;
    if (commit === undefined) throw new GitCommandError('push', shown, 'nothing to push: no commit made yet');
    if (expectedRemoteSha !== undefined && !FULL_SHA.test(expectedRemoteSha)) {
      throw new GitCommandError(
        'push',
        shown,
        `expected sha ${JSON.stringify(expectedRemoteSha)} is not a full object name`,
      );
    }
    const ref = `refs/heads/${branch}`;
    const lease = `--force-with-lease=${ref}:${expectedRemoteSha ?? ''}`;
    const args = ['push', '--porcelain', '--no-verify', lease, '--', this.repoUrl, `${commit}:${ref}`];
    await this.#mutex.run(this.directory, async () => {
      try {
        await this.#runner.remote('push', args);
      } catch (error) {
        // `!  <src>:<dst>  [rejected] (stale info)` is how git reports a lease that did not hold.
        if (error instanceof GitCommandError && /stale info|\[rejected\]/.test(error.details)) {
          throw new LeaseRejectedError(shown, branch, expectedRemoteSha);
        }
        throw error;
      }
    });
  }

  /** The sha `refs/heads/<branch>` has on the remote now, or undefined if there is no such branch. */
  async remoteBranchHead(branch: string): Promise<string | undefined> {
    const ref = `refs/heads/${branch}`;
    const output = await this.#runner.remote('ls-remote', ['ls-remote', '--', this.repoUrl, ref]);
    for (const line of output.split('\n')) {
      const [sha, name] = line.split('\t');
      if (name === ref && sha !== undefined) return sha;
    }
    return undefined;
  }
}

/** git in one workspace: local commands without credentials, remote ones with them. */
class GitRunner {
  readonly directory: string;
  readonly repoUrl: string;
  readonly shownUrl: string;
  readonly #credentials: Credentials | undefined;
  readonly #options: GitWorkspacesOptions;

  constructor(directory: string, repoUrl: string, credentials: Credentials | undefined, options: GitWorkspacesOptions) {
    this.directory = directory;
    this.repoUrl = repoUrl;
    this.shownUrl = redactUserInfo(repoUrl);
    this.#credentials = credentials;
    this.#options = options;
  }

  run(command: string, args: readonly string[], env: GitEnv = {}, input?: string): Promise<string> {
    return this.#exec(command, args, env, false, input);
  }

  /** A command that talks to the remote, authenticated with the credentials if any. */
  remote(command: string, args: readonly string[]): Promise<string> {
    return this.#exec(command, args, authEnvironment(this.repoUrl, this.#credentials), true);
  }

  /** `git cat-file --batch` of `shas`, as raw bytes: blob sizes are byte counts. */
  async catFileBatch(shas: readonly string[]): Promise<Buffer> {
    const input = `${shas.join('\n')}\n`;
    const git = simpleGit({ ...this.#config(false), input: () => input }).env(gitEnvironment());
    this.#options.trace?.(['cat-file', '--batch']);
    try {
      const output: unknown = await git.binaryCatFile(['--batch']);
      if (!Buffer.isBuffer(output)) throw new Error('cat-file returned no bytes');
      return output;
    } catch (error) {
      throw this.#failure('cat-file', error);
    }
  }

  async #exec(command: string, args: readonly string[], env: GitEnv, remote: boolean, input?: string): Promise<string> {
    const config = { ...this.#config(remote), ...(input === undefined ? {} : { input: () => input }) };
    const git = simpleGit(config).env(gitEnvironment(env));
    this.#options.trace?.(args);
    try {
      return await git.raw([...args]);
    } catch (error) {
      throw this.#failure(command, error);
    }
  }

  #config(remote: boolean): {
    baseDir: string;
    allowEnvironment: string[];
    timeout: { block: number };
    unsafe: { allowUnsafeConfigEnvCount: boolean };
    errors: typeof failOnNonZeroExit;
  } {
    return {
      baseDir: this.directory,
      errors: failOnNonZeroExit,
      allowEnvironment: [...GIT_ENVIRONMENT_KEYS],
      timeout: { block: this.#options.timeoutMs ?? 120_000 },
      // The one relaxed guard, for remote commands only: the GIT_CONFIG_* entries are built by
      // environment.ts and carry nothing but the auth header.
      unsafe: { allowUnsafeConfigEnvCount: remote },
    };
  }

  #failure(command: string, error: unknown): GitCommandError {
    const raw = error instanceof Error ? error.message : String(error);
    const details = this.#credentials === undefined ? raw : this.#credentials.redact(raw);
    return new GitCommandError(command, this.shownUrl, summarizeGitOutput(details), details);
  }
}

function parseCatFileBatch(output: Buffer): (Buffer | undefined)[] {
  const blobs: (Buffer | undefined)[] = [];
  let offset = 0;
  while (offset < output.length) {
    const newline = output.indexOf(0x0a, offset);
    if (newline < 0) break;
    const header = output.subarray(offset, newline).toString('latin1').split(' ');
    offset = newline + 1;
    if (header.length < 3) {
      blobs.push(undefined); // `<sha> missing`
      continue;
    }
    const size = Number(header[2]);
    blobs.push(output.subarray(offset, offset + size));
    offset += size + 1; // each content is followed by a newline
  }
  return blobs;
}

function workspaceKey(repoUrl: string): string {
  return createHash('sha256').update(repoUrl).digest('hex').slice(0, 24);
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}
