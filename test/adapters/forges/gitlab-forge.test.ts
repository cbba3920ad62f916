// GitLab-specific behaviour of GitLabForge against the GitLab emulator (docs/decisions.md D12,
// N32), beyond the forge contract every provider passes (forge-contract.test.ts): the `Draft: `
// title prefix across retitles, merged and closed MRs, commits from others, tokens in failures,
// and the emulator's own contract checking, which must be able to fail.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { ForgeError, isForgeError } from '../../../src/adapters/forges/errors.ts';
import { GitLabForge } from '../../../src/adapters/forges/gitlab/index.ts';
import { parseRepositoryUrl, type RepositoryRef } from '../../../src/adapters/forges/repository-url.ts';
import { GitCommandError } from '../../../src/adapters/git/errors.ts';
import { GitWorkspaces, type GitIdentity } from '../../../src/adapters/git/workspace.ts';
import { startGitLabEmulator, type GitLabEmulator } from '../../../src/sandbox/forges/gitlab-emulator/emulator.ts';
import { removeTempDirs, tempDir } from '../git/helpers.ts';
import { closedPort } from './closed-port.ts';

const TOKEN = 'glpat-emulatorToken0123456789AB';
const WRONG_TOKEN = 'glpat-wrongToken9876543210zyxwv';
const BOT: GitIdentity = { name: 'nudger[bot]', email: 'nudger@example.com' };
const HUMAN: GitIdentity = { name: 'Human', email: 'human@example.com' };
const BRANCH = 'konflux/change-groups/bundle-update';

interface Fixture {
  emulator: GitLabEmulator;
  forge: GitLabForge;
  repo: RepositoryRef;
  push: (text: string, expected: string | undefined, author?: GitIdentity) => Promise<string>;
}

let fixture: Fixture;

async function setup(): Promise<Fixture> {
  const emulator = await startGitLabEmulator({ token: TOKEN });
  await emulator.createRepository('acme', 'bundle', { 'manifests/csv.yaml': 'image: old\n' });
  const forge = new GitLabForge({
    apiUrl: emulator.apiUrl,
    gitBaseUrl: emulator.gitBaseUrl,
    credentials: new Credentials({ token: TOKEN }),
  });
  const repo = parseRepositoryUrl('https://gitlab.example.com/acme/bundle');
  const workspaces = new GitWorkspaces({ cacheDir: join(tempDir('gitlab-forge'), 'cache') });
  const push = async (text: string, expected: string | undefined, author = BOT): Promise<string> => {
    // A human commit goes on top of the branch; nudger's own commit is rebuilt on the base.
    const base = await workspaces.prepareBase(
      forge.cloneUrl(repo),
      author === BOT ? 'main' : BRANCH,
      forge.credentials,
    );
    const sha = await base.commitOnBase({
      files: [{ path: 'manifests/csv.yaml', text }],
      message: `update by ${author.name}`,
      author,
    });
    await base.pushWithLease(BRANCH, expected);
    return sha;
  };
  return { emulator, forge, repo, push };
}

/** Opens an MR from BRANCH into main. */
const open = (title: string, draft: boolean, body = '') =>
  fixture.forge.createPullRequest({ repo: fixture.repo, base: 'main', head: BRANCH, title, body, draft });

const mr = (iid = 1) => fixture.emulator.mergeRequests('acme', 'bundle').find((m) => m.iid === iid);

describe('GitLabForge against the GitLab emulator', () => {
  beforeEach(async () => {
    fixture = await setup();
  });
  afterEach(async () => {
    const violations = [...fixture.emulator.contractViolations];
    await fixture.emulator.close();
    assert.deepEqual(violations, [], 'every request and response follows GitLab’s official OpenAPI subset');
  });
  after(removeTempDirs);

  it('pushes with oauth2:<token> over smart HTTP and clones from the configured git base', () => {
    const { forge, repo, emulator } = fixture;
    assert.equal(forge.credentials.username, 'oauth2');
    assert.equal(forge.cloneUrl(repo), `${emulator.gitBaseUrl}/acme/bundle.git`);
    const named = new GitLabForge({
      apiUrl: 'https://gitlab.example.com/api/v4',
      credentials: new Credentials({ token: TOKEN, username: 'project_42_bot' }),
    });
    assert.equal(named.credentials.username, 'project_42_bot', 'a user name from the SCM Secret is kept');
    assert.equal(named.cloneUrl(repo), 'https://gitlab.example.com/acme/bundle.git');
  });

  it('keeps the Draft: prefix across retitles, removes every draft prefix on ready, and restores it', async () => {
    const { forge, repo, push } = fixture;
    await push('image: a\n', undefined);
    const created = await open('Update bundle', true, 'table');
    assert.deepEqual([created.title, created.draft], ['Update bundle', true]);
    assert.equal(mr()?.title, 'Draft: Update bundle');

    const retitled = await forge.updatePullRequest(repo, 1, { title: 'Update 3 component images' });
    assert.deepEqual([retitled.title, retitled.draft], ['Update 3 component images', true]);
    assert.equal(mr()?.title, 'Draft: Update 3 component images', 'the prefix is kept on a retitle');
    await forge.updatePullRequest(repo, 1, { body: 'new table' });
    assert.equal(mr()?.title, 'Draft: Update 3 component images', 'a body update leaves the title alone');

    // A human marks it draft their own way; the neutral title has no marker either way.
    await fixture.emulator.retitleMergeRequest('acme', 'bundle', 1, '[Draft] Draft: Update 3 component images');
    assert.deepEqual(
      [(await forge.getPullRequest(repo, 1)).title, (await forge.getPullRequest(repo, 1)).draft],
      ['Update 3 component images', true],
    );
    const ready = await forge.markReadyForReview(repo, 1);
    assert.deepEqual([ready.title, ready.draft], ['Update 3 component images', false]);
    assert.deepEqual([mr()?.title, mr()?.draft], ['Update 3 component images', false]);
    await forge.updatePullRequest(repo, 1, { title: 'Final' });
    assert.equal(mr()?.title, 'Final', 'a ready MR is retitled without a prefix');

    await forge.convertToDraft(repo, 1);
    assert.equal(mr()?.title, 'Draft: Final');
    await forge.markReadyForReview(repo, 1);
    assert.equal(mr()?.title, 'Final');
    const ready2 = await open('Draft: not a draft', false).catch((error: unknown) => error);
    assert.ok(isForgeError(ready2, 422), 'a second open MR of the branch is 422 (GitLab says 409)');
  });

  it('detects merged and closed MRs, and lists commits from others with their authors', async () => {
    const { forge, repo, push, emulator } = fixture;
    const bot = await push('image: a\n', undefined);
    await open('One', false);
    const human = await push('image: human\n', bot, HUMAN);
    const commits = await forge.listCommits(repo, 1);
    assert.deepEqual(
      commits.map((c) => [c.sha, c.authorEmail, c.committerEmail, c.message]),
      [
        [bot, BOT.email, BOT.email, `update by ${BOT.name}`],
        [human, HUMAN.email, HUMAN.email, `update by ${HUMAN.name}`],
      ],
      'oldest first (GitLab lists newest first)',
    );

    await emulator.mergeMergeRequest('acme', 'bundle', 1);
    const merged = await forge.getPullRequest(repo, 1);
    assert.deepEqual([merged.state, merged.headSha, merged.mergeCommitSha], ['merged', human, human]);
    assert.equal((await forge.listCommits(repo, 1)).length, 2, 'a merged MR still lists its commits');

    const again = await push('image: b\n', human);
    await open('Two', true);
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.number, 2, 'the open one wins');
    await emulator.closeMergeRequest('acme', 'bundle', 2);
    const closed = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.deepEqual([closed?.number, closed?.state, closed?.headSha], [2, 'closed', again]);
    assert.equal(closed?.mergeCommitSha, undefined);
    assert.equal((await forge.getPullRequest(repo, 1)).state, 'merged');
    const list = emulator.requests.find((r) => r.operationId === 'getApiV4ProjectsIdMergeRequests');
    assert.match(list?.path ?? '', /^\/api\/v4\/projects\/acme%2Fbundle\/merge_requests\?/);
    assert.match(list?.path ?? '', /source_branch=konflux%2Fchange-groups%2Fbundle-update/);
  });

  it('the emulator’s handle shows an open MR’s head as its branch is now, after a force-push', async () => {
    const first = await fixture.push('image: a\n', undefined);
    await open('Update', false);
    assert.equal(mr()?.sha, first);
    const second = await fixture.push('image: b\n', first);
    assert.notEqual(second, first);
    assert.equal((await fixture.forge.getPullRequest(fixture.repo, 1)).headSha, second);
    assert.equal(mr()?.sha, second, 'the human side sees what the API says');
  });

  it('serves a project in a nested group by its URL-encoded full path', async () => {
    const { emulator, forge } = fixture;
    await emulator.createRepository('acme/platform', 'bundle', { 'a.txt': 'a\n' });
    const nested = parseRepositoryUrl('https://gitlab.example.com/acme/platform/bundle');
    assert.equal(nested.owner, 'acme/platform');
    const workspaces = new GitWorkspaces({ cacheDir: join(tempDir('gitlab-nested'), 'cache') });
    const base = await workspaces.prepareBase(forge.cloneUrl(nested), 'main', forge.credentials);
    const sha = await base.commitOnBase({ files: [{ path: 'a.txt', text: 'b\n' }], message: 'b', author: BOT });
    await base.pushWithLease(BRANCH, undefined);
    await forge.createPullRequest({ repo: nested, base: 'main', head: BRANCH, title: 'B', body: '', draft: true });
    const found = await forge.findPullRequestByHeadBranch(nested, BRANCH);
    assert.deepEqual([found?.number, found?.headSha, found?.draft], [1, sha, true]);
    assert.ok(emulator.requests.some((r) => r.path.startsWith('/api/v4/projects/acme%2Fplatform%2Fbundle/')));
  });

  it('never shows the token: a wrong one over the API and git, and a proxy echoing it', async () => {
    const { emulator, repo } = fixture;
    const wrong = new GitLabForge({
      apiUrl: emulator.apiUrl,
      gitBaseUrl: emulator.gitBaseUrl,
      credentials: new Credentials({ token: WRONG_TOKEN }),
    });
    const failures: unknown[] = [];
    const collect = (work: Promise<unknown>) =>
      work.then(
        () => assert.fail('expected a failure'),
        (error: unknown) => failures.push(error),
      );
    await collect(wrong.getPullRequest(repo, 1));
    await collect(wrong.findPullRequestByHeadBranch(repo, BRANCH));
    emulator.failProject('acme', 'bundle', 500);
    await collect(fixture.forge.getPullRequest(repo, 1));
    await collect(fixture.forge.updatePullRequest(repo, 1, { title: 'x' }));
    emulator.failProject('acme', 'bundle', undefined);
    const port = await closedPort();
    await collect(
      new GitLabForge({
        apiUrl: `http://127.0.0.1:${String(port)}/api/v4`,
        credentials: new Credentials({ token: TOKEN }),
      }).getPullRequest(repo, 1),
    );
    const statuses = failures.map((error) =>
      error instanceof ForgeError ? (error.status ?? error.transport?.code) : error,
    );
    assert.deepEqual(statuses, [401, 401, 500, 500, 'ECONNREFUSED']);
    assert.match(String(failures[2]), /PRIVATE-TOKEN: \[redacted\]/, 'the echo is kept, the token is not');
    for (const error of failures) {
      assert.ok(error instanceof ForgeError);
      assert.equal(error.cause, undefined);
      for (const text of [
        error.message,
        String(error),
        JSON.stringify(error),
        inspect(error, { depth: 10 }),
        error.stack ?? '',
      ]) {
        assert.ok(!text.includes(WRONG_TOKEN) && !text.includes(TOKEN), text);
      }
    }
    const workspaces = new GitWorkspaces({ cacheDir: join(tempDir('gitlab-bad-token'), 'cache') });
    await assert.rejects(workspaces.prepareBase(wrong.cloneUrl(repo), 'main', wrong.credentials), (error: unknown) => {
      const text = `${String(error)} ${inspect(error)}`;
      return error instanceof GitCommandError && !text.includes(WRONG_TOKEN);
    });
    assert.ok(emulator.requests.some((request) => request.operationId === 'git' && request.status === 401));
  });
});

describe('the GitLab emulator holds clients to the official subset', () => {
  it('reports an undocumented operation, an undocumented parameter and a body of the wrong shape', async () => {
    const emulator = await startGitLabEmulator({ token: TOKEN });
    try {
      await emulator.createRepository('acme', 'bundle', { 'a.txt': 'a\n' });
      const headers = { 'private-token': TOKEN, 'content-type': 'application/json' };
      const api = emulator.apiUrl;
      const statuses = [
        // Not in the subset at all (GitLab has it, but nudger never needs it).
        (await fetch(`${api}/projects/acme%2Fbundle/merge_requests/1/approve`, { method: 'POST', headers })).status,
        (await fetch(`${api}/projects/acme%2Fbundle/merge_requests?head=x`, { headers })).status,
        (
          await fetch(`${api}/projects/acme%2Fbundle/merge_requests`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              source_branch: 'main',
              target_branch: 'main',
              title: 'x',
              draft: 'yes',
              labels: 'a',
            }),
          })
        ).status,
      ];
      assert.deepEqual(statuses, [404, 400, 400]);
      const violations = emulator.contractViolations.join('\n');
      assert.match(
        violations,
        /POST \/api\/v4\/projects\/acme%2Fbundle\/merge_requests\/1\/approve: no such operation/,
      );
      assert.match(violations, /query parameter "head" is not documented/);
      assert.match(violations, /postApiV4ProjectsIdMergeRequests request body: \/labels must be array/);
    } finally {
      await emulator.close();
    }
  });
});
