// Commits built without a working tree: blobs hashed from scratch files, a throw-away index seeded
// from the parent's tree, then write-tree and commit-tree. Shared by the PR workspace and the
// local forge (which seeds and merges bare repositories the same way).
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { GIT_ENVIRONMENT_KEYS, gitEnvironment, type GitEnvironmentKey } from './environment.ts';
import { GitCommandError, InvalidChangeError } from './errors.ts';

export interface FileText {
  /** Repository-relative, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

/** The bot identity commits are made with; the controller recognises its own commits by it. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** A blob of the repository at a path, with its mode (`100644`, `100755`, `120000`). */
export interface TreeBlob {
  readonly path: string;
  readonly mode: string;
  readonly sha: string;
}

export type GitEnv = Partial<Record<GitEnvironmentKey, string>>;

/** Runs one git command in a fixed repository, `input` on its stdin; throws GitCommandError. */
export type GitRun = (command: string, args: readonly string[], env?: GitEnv, input?: string) => Promise<string>;

/**
 * simple-git's `errors` option: every non-zero exit is a failure. By default simple-git only fails
 * when git also wrote to stderr, which `merge-base --is-ancestor` and `rev-parse --quiet` do not.
 */
export function failOnNonZeroExit(
  error: Buffer | Error | undefined,
  result: { readonly exitCode: number; readonly stdOut: Buffer[]; readonly stdErr: Buffer[] },
): Buffer | Error | undefined {
  if (error !== undefined || result.exitCode === 0) return error;
  const output = Buffer.concat([...result.stdErr, ...result.stdOut]);
  return output.length > 0 ? output : Buffer.from(`exit code ${String(result.exitCode)}`);
}

/** A GitRun for a repository on this machine, where no credentials are involved. */
export function localGitRun(directory: string): GitRun {
  return async (command, args, env = {}, input?: string) => {
    const config = {
      baseDir: directory,
      allowEnvironment: [...GIT_ENVIRONMENT_KEYS],
      errors: failOnNonZeroExit,
      ...(input === undefined ? {} : { input: () => input }),
    };
    const git = simpleGit(config).env(gitEnvironment(env));
    try {
      return await git.raw([...args]);
    } catch (error) {
      const details = error instanceof Error ? error.message : String(error);
      throw new GitCommandError(command, directory, summarizeGitOutput(details), details);
    }
  };
}

export interface BuildCommitInput {
  /** The single parent; undefined makes a root commit from `files` alone. */
  readonly parent: string | undefined;
  readonly files: readonly FileText[];
  /** Blobs already in the repository, put in place as they are (any content, their own mode). */
  readonly blobs?: readonly TreeBlob[];
  /** Paths removed from the parent's tree (a path that is not there is ignored). */
  readonly removals?: readonly string[];
  readonly message: string;
  readonly author: GitIdentity;
  /**
   * Author and committer date (ISO 8601). Given, the same inputs always make the same commit sha,
   * which is how the ChangeGroup controller recognises a push it made before a crash (D5).
   */
  readonly date?: string;
  /** A directory this call may create and remove (inside the repository's git dir). */
  readonly scratchRoot: string;
}

const CHUNK = 500;

/** Creates the commit and returns its sha; no ref is moved. */
export async function buildCommit(run: GitRun, input: BuildCommitInput): Promise<string> {
  for (const file of input.files) assertRepositoryPath(file.path);
  for (const blob of input.blobs ?? []) assertRepositoryPath(blob.path);
  for (const path of input.removals ?? []) assertRepositoryPath(path);
  const scratch = join(input.scratchRoot, randomBytes(8).toString('hex'));
  await mkdir(scratch, { recursive: true });
  try {
    const blobs: string[] = [];
    for (let start = 0; start < input.files.length; start += CHUNK) {
      const chunk = input.files.slice(start, start + CHUNK);
      const paths = await Promise.all(
        chunk.map(async (file, index) => {
          const path = join(scratch, String(start + index));
          await writeFile(path, file.text, 'utf8');
          return path;
        }),
      );
      const hashed = await run('hash-object', ['hash-object', '-w', '--no-filters', '--', ...paths]);
      blobs.push(...hashed.split('\n').filter((line) => line.length > 0));
    }
    const modes =
      input.parent === undefined ? new Map<string, string>() : await treeModes(run, input.parent, input.files);
    const index: GitEnv = { GIT_INDEX_FILE: join(scratch, 'index') };
    await run('read-tree', input.parent === undefined ? ['read-tree', '--empty'] : ['read-tree', input.parent], index);
    for (let start = 0; start < input.files.length; start += CHUNK) {
      const cacheinfo = input.files.slice(start, start + CHUNK).flatMap((file, offset) => {
        // An executable keeps its bit; anything else (new file, symlink replaced by text) is 100644.
        const mode = modes.get(file.path) === '100755' ? '100755' : '100644';
        return ['--cacheinfo', `${mode},${blobs[start + offset] ?? ''},${file.path}`];
      });
      await run('update-index', ['update-index', '--add', '--replace', ...cacheinfo], index);
    }
    const existing = input.blobs ?? [];
    for (let start = 0; start < existing.length; start += CHUNK) {
      const cacheinfo = existing
        .slice(start, start + CHUNK)
        .flatMap((blob) => ['--cacheinfo', `${blob.mode},${blob.sha},${blob.path}`]);
      await run('update-index', ['update-index', '--add', '--replace', ...cacheinfo], index);
    }
    const removals = input.removals ?? [];
    for (let start = 0; start < removals.length; start += CHUNK) {
      const paths = removals.slice(start, start + CHUNK);
      // A bare repository's update-index removes only through --index-info (mode 0 removes the path).
      const lines = paths.map((path) => `0 ${'0'.repeat(40)}\t${path}\n`).join('');
      await run('update-index', ['update-index', '--index-info'], index, lines);
    }
    const tree = (await run('write-tree', ['write-tree'], index)).trim();
    const parents = input.parent === undefined ? [] : ['-p', input.parent];
    const identity: GitEnv = {
      GIT_AUTHOR_NAME: input.author.name,
      GIT_AUTHOR_EMAIL: input.author.email,
      GIT_COMMITTER_NAME: input.author.name,
      GIT_COMMITTER_EMAIL: input.author.email,
      ...(input.date === undefined ? {} : { GIT_AUTHOR_DATE: input.date, GIT_COMMITTER_DATE: input.date }),
    };
    return (await run('commit-tree', ['commit-tree', tree, ...parents, '-m', input.message], identity)).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function treeModes(run: GitRun, commit: string, files: readonly FileText[]): Promise<Map<string, string>> {
  const modes = new Map<string, string>();
  for (let start = 0; start < files.length; start += CHUNK) {
    const paths = files.slice(start, start + CHUNK).map((file) => file.path);
    const listing = await run('ls-tree', ['ls-tree', '-z', '--full-tree', commit, '--', ...paths]);
    for (const entry of listing.split('\0')) {
      const tab = entry.indexOf('\t');
      const mode = entry.slice(0, tab).split(' ')[0];
      if (tab >= 0 && mode !== undefined) modes.set(entry.slice(tab + 1), mode);
    }
  }
  return modes;
}

function assertRepositoryPath(path: string): void {
  if (path.length === 0) throw new InvalidChangeError(path, 'the path is empty');
  if (path.startsWith('/') || path.includes('\\'))
    throw new InvalidChangeError(path, 'the path must be relative and use /');
  if (path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..' || segment === '.git')) {
    throw new InvalidChangeError(path, 'the path has an empty, ".", ".." or ".git" segment');
  }
  // A NUL or newline would corrupt the `-z` and line-based git output parsed here and in readFiles.
  if (path.includes('\0') || path.includes('\n')) throw new InvalidChangeError(path, 'the path has a NUL or newline');
}

/** git's most telling line: the first `fatal:`/`error:` line, else the first non-empty one. */
export function summarizeGitOutput(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const telling = lines.find((line) => /^(fatal|error|remote: error):/i.test(line)) ?? lines[0] ?? 'failed';
  return telling.replace(/^(fatal|error): /i, '');
}
