// The emulator's git side: bare repositories under one project root, served over the real smart
// HTTP protocol by `git http-backend`, plus the few plumbing commands the emulator needs to answer
// API calls from live repository state (branch heads, PR commits, merges).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const FIELD = '\x1f';
const RECORD = '\x1e';
const FORGE_IDENTITY = { name: 'GitHub', email: 'noreply@github.com' };

export interface GitCommitInfo {
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
  readonly authorName: string;
  readonly authorEmail: string;
  readonly authorDate: string;
  readonly committerName: string;
  readonly committerEmail: string;
  readonly committerDate: string;
  readonly message: string;
}

export class BareRepository {
  readonly gitDir: string;

  constructor(gitDir: string) {
    this.gitDir = gitDir;
  }

  async git(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
    const { stdout } = await execFileAsync('git', ['--git-dir', this.gitDir, ...args], {
      env: { PATH: process.env.PATH ?? '', LC_ALL: 'C', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  }

  /** A new bare repository whose `branch` holds `files` in one commit. */
  static async create(
    gitDir: string,
    files: Readonly<Record<string, string>>,
    branch: string,
  ): Promise<BareRepository> {
    await mkdir(dirname(gitDir), { recursive: true });
    const repository = new BareRepository(gitDir);
    await execFileAsync('git', ['init', '--quiet', '--bare', `--initial-branch=${branch}`, gitDir]);
    const work = await mkdtemp(join(dirname(gitDir), '.seed-'));
    try {
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), text);
      }
      const withWorkTree = ['--work-tree', work];
      const index = { GIT_INDEX_FILE: join(work, '.git-index') };
      await repository.git([...withWorkTree, 'add', '--all', '.'], index);
      const tree = (await repository.git(['write-tree'], index)).trim();
      const commit = (await repository.git(['commit-tree', tree, '-m', 'Initial commit'], identityEnv())).trim();
      await repository.git(['update-ref', `refs/heads/${branch}`, commit, '']);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return repository;
  }

  async branchHead(branch: string): Promise<string | undefined> {
    try {
      return (await this.git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`])).trim();
    } catch {
      return undefined;
    }
  }

  /**
   * branchHead, read at once: for the emulators' synchronous human-side handles, which must show an
   * open PR's head as its branch is now (a push moves it without any API call the emulator sees).
   */
  branchHeadNow(branch: string): string | undefined {
    try {
      return execFileSync(
        'git',
        ['--git-dir', this.gitDir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`],
        {
          env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      ).trim();
    } catch {
      return undefined;
    }
  }

  /** Commits reachable from `head` and not from `exclude`, oldest first. */
  async commitsBetween(exclude: string | undefined, head: string): Promise<GitCommitInfo[]> {
    const format = ['%H', '%T', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join(FIELD) + RECORD;
    const range = exclude === undefined ? [head] : [head, `^${exclude}`];
    const output = await this.git(['log', '--reverse', `--format=${format}`, ...range, '--']);
    return output
      .split(RECORD)
      .map((chunk) => chunk.replace(/^\n/, ''))
      .filter((chunk) => chunk.length > 0)
      .map((chunk) => {
        const [sha = '', tree = '', parents = '', an = '', ae = '', ad = '', cn = '', ce = '', cd = '', message = ''] =
          chunk.split(FIELD);
        return {
          sha,
          tree,
          parents: parents.split(' ').filter((parent) => parent.length > 0),
          authorName: an,
          authorEmail: ae,
          authorDate: ad,
          committerName: cn,
          committerEmail: ce,
          committerDate: cd,
          message: message.replace(/\n$/, ''),
        };
      });
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.git(['merge-base', '--is-ancestor', ancestor, descendant]).then(
      () => true,
      () => false,
    );
  }

  /**
   * Merges `head` into `baseBranch` as the web UI's merge button does: fast-forward when the base
   * has not moved, else a merge commit. Returns the new base sha; throws on a conflict.
   */
  async merge(baseBranch: string, head: string, message: string): Promise<string> {
    const base = await this.branchHead(baseBranch);
    if (base === undefined) throw new Error(`base branch ${baseBranch} is gone`);
    let merged = head;
    if (!(await this.isAncestor(base, head))) {
      const tree = (await this.git(['merge-tree', '--write-tree', '--no-messages', base, head])).split('\n')[0] ?? '';
      merged = (await this.git(['commit-tree', tree, '-p', base, '-p', head, '-m', message], identityEnv())).trim();
    }
    await this.git(['update-ref', `refs/heads/${baseBranch}`, merged, base]);
    return merged;
  }
}

function identityEnv(): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: FORGE_IDENTITY.name,
    GIT_AUTHOR_EMAIL: FORGE_IDENTITY.email,
    GIT_COMMITTER_NAME: FORGE_IDENTITY.name,
    GIT_COMMITTER_EMAIL: FORGE_IDENTITY.email,
  };
}

/** Runs one smart-HTTP request through `git http-backend` (CGI) and relays its answer. */
export function serveGitHttp(projectRoot: string, request: IncomingMessage, response: ServerResponse, url: URL): void {
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '',
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      // git gzips a request body over 1 KiB (a fetch's long "have" list: a cache holding commits the
      // server lacks, or many shallow fetches); http-backend inflates it only when told, as a web
      // server's CGI environment tells it. Without this, such a fetch hung up.
      HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
      // http-backend refuses receive-pack to anonymous users; auth was checked before this point.
      REMOTE_USER: 'emulator-user',
      REMOTE_ADDR: '127.0.0.1',
    },
  });
  request.pipe(child.stdin);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.on('close', () => {
    const output = Buffer.concat(chunks);
    const end = output.indexOf('\r\n\r\n');
    const headerText = output.subarray(0, end < 0 ? 0 : end).toString('latin1');
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    response.writeHead(status, headers).end(output.subarray(end < 0 ? 0 : end + 4));
  });
}

/**
 * As serveGitHttp, but a push (receive-pack) runs through `inOrder`, one at a time with the API
 * calls and human actions: whoever watches the emulator sees a push and a pull request change in
 * the order they happened (the sandbox's Pipelines-as-Code stand-in, docs/decisions.md N37).
 * Fetches are served at once.
 */
export async function serveGitHttpInOrder(
  projectRoot: string,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  inOrder: (work: () => Promise<void>) => Promise<void>,
): Promise<void> {
  if (!url.pathname.endsWith('/git-receive-pack')) {
    serveGitHttp(projectRoot, request, response, url);
    return;
  }
  await inOrder(
    () =>
      new Promise<void>((resolve) => {
        response.on('close', () => {
          resolve();
        });
        serveGitHttp(projectRoot, request, response, url);
      }),
  );
}
