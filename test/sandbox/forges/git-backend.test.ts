// The emulators' git smart HTTP (src/sandbox/forges/github-emulator/git-backend.ts, shared by the
// GitHub and GitLab emulators): a fetch whose request git sends gzipped must be served. git
// compresses an upload-pack request once its "have" lines pass about a kilobyte, i.e. when the
// client already holds a few dozen commits the server has too: a human's or nudger's cache that
// fetched a branch many times, or holds work the server never saw. A real server inflates it; the emulator did not tell
// `git http-backend` the encoding, so such a fetch hung up.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startGitHubEmulator, type GitHubEmulator } from '../../../src/sandbox/forges/github-emulator/emulator.ts';
import { startGitLabEmulator, type GitLabEmulator } from '../../../src/sandbox/forges/gitlab-emulator/emulator.ts';

const TOKEN = 'emulator-git-backend-test-0123456789';
const COMMITS = 60;

let github: GitHubEmulator;
let gitlab: GitLabEmulator;
let work: string;

const run = promisify(execFile);

/** git in this process's event loop's favour: the emulators serve from the same process. */
const git = async (args: readonly string[]): Promise<string> =>
  (
    await run('git', args, {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: work,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'A Human',
        GIT_AUTHOR_EMAIL: 'human@example.com',
        GIT_COMMITTER_NAME: 'A Human',
        GIT_COMMITTER_EMAIL: 'human@example.com',
      },
    })
  ).stdout.trim();

/** `main` of the repository at `gitDir` given COMMITS commits, one at a time. */
async function manyCommits(gitDir: string): Promise<void> {
  let head = await git(['--git-dir', gitDir, 'rev-parse', 'refs/heads/main']);
  const tree = await git(['--git-dir', gitDir, 'rev-parse', `${head}^{tree}`]);
  for (let i = 0; i < COMMITS; i += 1) {
    head = await git(['--git-dir', gitDir, 'commit-tree', tree, '-p', head, '-m', `change ${String(i)}`]);
  }
  await git(['--git-dir', gitDir, 'update-ref', 'refs/heads/main', head]);
}

/**
 * Clones over smart HTTP, commits COMMITS times locally (never pushed), adds one commit on the
 * server, fetches again: the server knows none of the local commits, so git sends more and more of
 * them as "have" lines, soon in a gzipped request.
 */
async function fetchAfterLocalWork(url: string, gitDir: string, name: string): Promise<string> {
  const auth = `Authorization: Basic ${Buffer.from(`oauth2:${TOKEN}`).toString('base64')}`;
  const clone = join(work, name);
  await git(['-c', `http.extraHeader=${auth}`, 'clone', '--quiet', '--bare', url, clone]);
  await manyCommits(clone);
  const head = await git(['--git-dir', gitDir, 'rev-parse', 'refs/heads/main']);
  const next = await git(['--git-dir', gitDir, 'commit-tree', `${head}^{tree}`, '-p', head, '-m', 'one more']);
  await git(['--git-dir', gitDir, 'update-ref', 'refs/heads/main', next]);
  await git(['-c', `http.extraHeader=${auth}`, '--git-dir', clone, 'fetch', '--quiet', url, 'main']);
  return (await git(['--git-dir', clone, 'rev-parse', 'FETCH_HEAD'])) === next ? next : '';
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'nudger-git-backend-test-'));
  github = await startGitHubEmulator({ token: TOKEN });
  gitlab = await startGitLabEmulator({ token: TOKEN });
  await github.createRepository('acme', 'operand', { 'README.md': 'operand\n' });
  await gitlab.createRepository('acme', 'operand', { 'README.md': 'operand\n' });
});

after(async () => {
  await github.close();
  await gitlab.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the emulators’ git smart HTTP', () => {
  for (const [forge, emulator] of [
    ['GitHub', () => github],
    ['GitLab', () => gitlab],
  ] as const) {
    it(`${forge}: serves a fetch whose request git gzipped (a client holding many commits the server lacks)`, async () => {
      const gitDir = join(emulator().projectRoot, 'acme', 'operand.git');
      const fetched = await fetchAfterLocalWork(`${emulator().gitBaseUrl}/acme/operand.git`, gitDir, forge);
      assert.notEqual(fetched, '', 'the fetch brought the new commit');
      assert.deepEqual(emulator().contractViolations, []);
    });
  }
});
