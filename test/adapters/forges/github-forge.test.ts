import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { ForgeError, isForgeError } from '../../../src/adapters/forges/errors.ts';
import { GitHubForge } from '../../../src/adapters/forges/github/index.ts';
import { parseRepositoryUrl, type RepositoryRef } from '../../../src/adapters/forges/repository-url.ts';
import { GitCommandError } from '../../../src/adapters/git/errors.ts';
import { GitWorkspaces, type GitIdentity } from '../../../src/adapters/git/workspace.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../../src/sandbox/forges/github-emulator/emulator.ts';
import { removeTempDirs, tempDir } from '../git/helpers.ts';

const TOKEN = 'ghs_emulatorToken0123456789abcdefABCDEF';
const WRONG_TOKEN = 'ghs_wrongToken9876543210zyxwvuZYXWVU';
const BOT: GitIdentity = { name: 'nudger[bot]', email: 'nudger@example.com' };
const HUMAN: GitIdentity = { name: 'Human', email: 'human@example.com' };
const BRANCH = 'konflux/change-groups/bundle-update';

interface Fixture {
  emulator: GitHubEmulator;
  forge: GitHubForge;
  /** As a Component names it: github.com, while git and the API go to the emulator. */
  repo: RepositoryRef;
  push: (text: string, expected: string | undefined, author?: GitIdentity, branch?: string) => Promise<string>;
}

let fixture: Fixture;

async function setup(): Promise<Fixture> {
  const emulator = await startGitHubEmulator({ token: TOKEN });
  await emulator.createRepository('acme', 'bundle', { 'manifests/csv.yaml': 'image: old\n', 'README.md': 'hi\n' });
  const credentials = new Credentials({ token: TOKEN });
  const forge = new GitHubForge({ apiUrl: emulator.apiUrl, gitBaseUrl: emulator.gitBaseUrl, credentials });
  const repo = parseRepositoryUrl('https://github.com/acme/bundle');
  const workspaces = new GitWorkspaces({ cacheDir: join(tempDir('github-forge'), 'cache') });
  const push = async (text: string, expected: string | undefined, author = BOT, branch = BRANCH): Promise<string> => {
    // A human commit goes on top of the branch; nudger's own commit is rebuilt on the base.
    const from = author === BOT ? 'main' : branch;
    const base = await workspaces.prepareBase(forge.cloneUrl(repo), from, credentials);
    const sha = await base.commitOnBase({
      files: [{ path: 'manifests/csv.yaml', text }],
      message: `update by ${author.name}`,
      author,
    });
    await base.pushWithLease(branch, expected);
    return sha;
  };
  return { emulator, forge, repo, push };
}

function createDraft(title = 'Update bundle', body = 'table') {
  return fixture.forge.createPullRequest({ repo: fixture.repo, base: 'main', head: BRANCH, title, body, draft: true });
}

describe('GitHubForge against the GitHub emulator', () => {
  beforeEach(async () => {
    fixture = await setup();
  });
  afterEach(async () => {
    assert.deepEqual(
      fixture.emulator.contractViolations,
      [],
      'every request and response follows the OpenAPI description',
    );
    await fixture.emulator.close();
  });
  after(removeTempDirs);

  it('clones from the configured git base, never with the token in the URL', () => {
    const url = fixture.forge.cloneUrl(fixture.repo);
    assert.equal(url, `${fixture.emulator.gitBaseUrl}/acme/bundle.git`);
    assert.ok(!url.includes(TOKEN));
    const hosted = new GitHubForge({ credentials: new Credentials({ token: TOKEN }) });
    assert.equal(hosted.cloneUrl(fixture.repo), 'https://github.com/acme/bundle.git');
  });

  it('creates a draft PR, finds, gets and updates it, and switches draft over GraphQL', async () => {
    const { forge, repo, emulator, push } = fixture;
    assert.equal(await forge.findPullRequestByHeadBranch(repo, BRANCH), undefined);
    const first = await push('image: a\n', undefined);

    const created = await createDraft();
    assert.deepEqual(created, {
      number: 1,
      url: `${emulator.gitBaseUrl}/acme/bundle/pull/1`,
      state: 'open',
      draft: true,
      title: 'Update bundle',
      body: 'table',
      headBranch: BRANCH,
      headSha: first,
      baseBranch: 'main',
    });
    assert.deepEqual(await forge.findPullRequestByHeadBranch(repo, BRANCH), created);
    assert.deepEqual(await forge.getPullRequest(repo, 1), created);
    assert.equal(emulator.pullRequests('acme', 'bundle')[0]?.author, 'nudger-bot');

    const second = await push('image: b\n', first);
    const updated = await forge.updatePullRequest(repo, 1, { body: 'new table' });
    assert.deepEqual(
      { title: updated.title, body: updated.body, draft: updated.draft, headSha: updated.headSha },
      { title: 'Update bundle', body: 'new table', draft: true, headSha: second },
    );
    assert.equal((await forge.updatePullRequest(repo, 1, { title: 'Renamed' })).body, 'new table');

    const ready = await forge.markReadyForReview(repo, 1);
    assert.equal(ready.draft, false);
    assert.equal(emulator.pullRequests('acme', 'bundle')[0]?.draft, false);
    assert.equal((await forge.markReadyForReview(repo, 1)).draft, false, 'ready twice is a no-op');
    assert.equal((await forge.convertToDraft(repo, 1)).draft, true);
    assert.equal((await forge.getPullRequest(repo, 1)).draft, true);

    const operations = emulator.requests.map((request) => request.operationId);
    assert.ok(operations.includes('graphql:markPullRequestReadyForReview'));
    assert.ok(operations.includes('graphql:convertPullRequestToDraft'));
    assert.ok(operations.includes('pulls/create') && operations.includes('pulls/update'));
    const list = emulator.requests.find((request) => request.operationId === 'pulls/list');
    assert.match(list?.path ?? '', /head=acme%3Akonflux%2Fchange-groups%2Fbundle-update/);
    assert.match(list?.path ?? '', /state=all/);
  });

  it('the emulator’s handle shows an open PR’s head as its branch is now, after a force-push', async () => {
    const first = await fixture.push('image: a\n', undefined);
    await createDraft();
    assert.equal(fixture.emulator.pullRequests('acme', 'bundle')[0]?.headSha, first);
    const second = await fixture.push('image: b\n', first);
    assert.notEqual(second, first);
    assert.equal((await fixture.forge.getPullRequest(fixture.repo, 1)).headSha, second);
    assert.equal(fixture.emulator.pullRequests('acme', 'bundle')[0]?.headSha, second, 'as the API says');
  });

  it('lists the PR commits pushed over authenticated smart HTTP, oldest first', async () => {
    const { forge, repo, push, emulator } = fixture;
    const bot = await push('image: a\n', undefined);
    await createDraft();
    const human = await push('image: human\n', bot, HUMAN);
    assert.deepEqual(await forge.listCommits(repo, 1), [
      {
        sha: bot,
        message: `update by ${BOT.name}`,
        authorName: BOT.name,
        authorEmail: BOT.email,
        committerEmail: BOT.email,
      },
      {
        sha: human,
        message: `update by ${HUMAN.name}`,
        authorName: HUMAN.name,
        authorEmail: HUMAN.email,
        committerEmail: HUMAN.email,
      },
    ]);
    assert.equal((await forge.getPullRequest(repo, 1)).headSha, human);
    const git = emulator.requests.filter((request) => request.operationId === 'git');
    assert.ok(
      git.some((request) => request.path.includes('git-receive-pack')),
      'pushed over HTTP',
    );
    assert.ok(git.every((request) => request.status === 200));
  });

  it('enables auto-merge with the merge method Renovate picks from the repository settings', async () => {
    const { emulator, forge } = fixture;
    const cases = [
      ['rebase-first', {}, 'REBASE'],
      ['squash-only', { rebaseMergeAllowed: false, mergeCommitAllowed: false }, 'SQUASH'],
      ['merge-only', { rebaseMergeAllowed: false, squashMergeAllowed: false }, 'MERGE'],
    ] as const;
    for (const [name, settings, method] of cases) {
      await emulator.createRepository('acme', name, { 'a.txt': 'a\n' }, 'main', {
        autoMergeAllowed: true,
        ...settings,
      });
      const repo = parseRepositoryUrl(`https://github.com/acme/${name}`);
      const workspaces = new GitWorkspaces({ cacheDir: join(tempDir('github-automerge'), 'cache') });
      const base = await workspaces.prepareBase(forge.cloneUrl(repo), 'main', forge.credentials);
      await base.commitOnBase({ files: [{ path: 'a.txt', text: 'b\n' }], message: 'update', author: BOT });
      await base.pushWithLease(BRANCH, undefined);
      const pull = await forge.createPullRequest({
        repo,
        base: 'main',
        head: BRANCH,
        title: 't',
        body: 'b',
        draft: false,
      });
      await forge.enableAutoMerge(repo, pull.number);
      assert.equal(emulator.pullRequests('acme', name)[0]?.autoMerge?.method, method, name);
    }
  });

  it('refuses auto-merge where the repository does not allow it, without asking GitHub to enable it', async () => {
    const { emulator, forge, repo, push } = fixture;
    await push('image: a\n', undefined);
    const { number } = await forge.createPullRequest({
      repo,
      base: 'main',
      head: BRANCH,
      title: 't',
      body: 'b',
      draft: false,
    });
    await assert.rejects(forge.enableAutoMerge(repo, number), (error: unknown) => {
      assert.ok(isForgeError(error, 422));
      assert.match(error.message, /auto-merge is not allowed in the repository settings/);
      return true;
    });
    assert.ok(!emulator.requests.some((request) => request.operationId === 'graphql:enablePullRequestAutoMerge'));
    await assert.rejects(forge.enableAutoMerge(repo, number, 'SQUASH'), (error: unknown) => isForgeError(error));
  });

  it('refuses a second open PR for one head with 422', async () => {
    await fixture.push('image: a\n', undefined);
    await createDraft();
    await assert.rejects(
      createDraft(),
      (error: unknown) =>
        isForgeError(error, 422) &&
        error.message ===
          `github createPullRequest acme/bundle: Validation Failed: A pull request already exists for acme:${BRANCH}. (422)`,
    );
    await assert.rejects(
      fixture.forge.createPullRequest({
        repo: fixture.repo,
        base: 'main',
        head: 'absent',
        title: 't',
        body: '',
        draft: false,
      }),
      (error: unknown) => isForgeError(error, 422) && error.reason === 'Validation Failed: head invalid',
    );
  });

  it('answers 404 for an unknown PR or repository', async () => {
    const { forge, repo } = fixture;
    const notFound = (operation: string) => (error: unknown) =>
      isForgeError(error, 404) && error.operation === operation && error.repo === 'acme/bundle';
    await assert.rejects(forge.getPullRequest(repo, 7), notFound('getPullRequest'));
    await assert.rejects(forge.updatePullRequest(repo, 7, { body: 'x' }), notFound('updatePullRequest'));
    await assert.rejects(forge.listCommits(repo, 7), notFound('listCommits'));
    await assert.rejects(forge.markReadyForReview(repo, 7), notFound('markReadyForReview'));
    await assert.rejects(forge.getPullRequest(repo, 0), notFound('getPullRequest'));
    const missing = parseRepositoryUrl('https://github.com/acme/nope');
    await assert.rejects(forge.getPullRequest(missing, 1), (error: unknown) => isForgeError(error, 404));
  });

  it('reports a PR merged by a human as merged, still found by its head; an open one wins', async () => {
    const { forge, repo, emulator, push } = fixture;
    const head = await push('image: a\n', undefined);
    await createDraft();
    await emulator.mergePullRequest('acme', 'bundle', 1);
    assert.equal(await emulator.branchHead('acme', 'bundle', 'main'), head, 'fast-forward');
    const merged = await forge.getPullRequest(repo, 1);
    assert.deepEqual({ state: merged.state, headSha: merged.headSha }, { state: 'merged', headSha: head });
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.number, 1);
    assert.deepEqual(
      (await forge.listCommits(repo, 1)).map((commit) => commit.sha),
      [head],
      'a merged PR keeps its commits',
    );

    const next = await push('image: b\n', head);
    assert.equal((await createDraft()).number, 2);
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.number, 2, 'the open one wins');
    await emulator.closePullRequest('acme', 'bundle', 2);
    const newest = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.deepEqual(
      { number: newest?.number, state: newest?.state, headSha: newest?.headSha },
      {
        number: 2,
        state: 'closed',
        headSha: next,
      },
    );
  });

  it('retries a rate-limited request after retry-after, at most three times', async () => {
    const { emulator, repo, push } = fixture;
    await push('image: a\n', undefined);
    await createDraft();
    const waits: number[] = [];
    const forge = new GitHubForge({
      apiUrl: emulator.apiUrl,
      credentials: new Credentials({ token: TOKEN }),
      retry: { sleep: (ms) => Promise.resolve(void waits.push(ms)) },
    });
    emulator.rateLimitNext(2, 7);
    assert.equal((await forge.getPullRequest(repo, 1)).number, 1);
    assert.deepEqual(waits, [7000, 7000]);

    emulator.rateLimitNext(4, 1, 403);
    await assert.rejects(forge.getPullRequest(repo, 1), (error: unknown) => isForgeError(error, 403));
    assert.deepEqual(waits, [7000, 7000, 1000, 1000, 1000]);

    emulator.rateLimitNext(1, 3600);
    await assert.rejects(
      forge.getPullRequest(repo, 1),
      (error: unknown) => isForgeError(error, 429) && error.reason.includes('secondary rate limit'),
    );
    assert.equal(waits.length, 5, 'a wait longer than maxDelayMs is not attempted');
    const limited = emulator.requests.filter((request) => request.status === 429 || request.status === 403);
    assert.equal(limited.length, 2 + 4 + 1);
  });

  it('fails with 401 on a bad token and never shows either token', async () => {
    const { emulator, repo } = fixture;
    const forge = new GitHubForge({
      apiUrl: emulator.apiUrl,
      gitBaseUrl: emulator.gitBaseUrl,
      credentials: new Credentials({ token: WRONG_TOKEN }),
    });
    const failures: unknown[] = [];
    for (const attempt of [
      () => forge.getPullRequest(repo, 1),
      () => forge.findPullRequestByHeadBranch(repo, BRANCH),
      () => forge.markReadyForReview(repo, 1),
    ]) {
      await attempt().then(
        () => assert.fail('expected a failure'),
        (error: unknown) => failures.push(error),
      );
    }
    for (const error of failures) {
      assert.ok(error instanceof ForgeError && error.status === 401, String(error));
      assert.equal(error.reason, 'Bad credentials');
      assert.equal(error.cause, undefined);
      const renderings = [
        error.message,
        String(error),
        JSON.stringify(error),
        inspect(error, { depth: 10 }),
        error.stack ?? '',
      ];
      for (const text of renderings) {
        assert.ok(!text.includes(WRONG_TOKEN) && !text.includes(TOKEN), text);
        assert.ok(!/authorization/i.test(text), text);
      }
    }
    // git refuses the same token over smart HTTP, and says so without it.
    const workspaces = new GitWorkspaces({ cacheDir: join(tempDir('github-bad-token'), 'cache') });
    await assert.rejects(workspaces.prepareBase(forge.cloneUrl(repo), 'main', forge.credentials), (error: unknown) => {
      const text = `${String(error)} ${inspect(error)}`;
      return error instanceof GitCommandError && !text.includes(WRONG_TOKEN);
    });
    assert.ok(emulator.requests.some((request) => request.operationId === 'git' && request.status === 401));
  });
});

describe('GitHubForge against a misbehaving server', () => {
  it('names the missing field of a malformed answer (502) and gives up on silence', async () => {
    let answer: 'malformed' | 'silent' = 'malformed';
    const server = createServer((_request, response) => {
      if (answer === 'silent') return; // never answers; the client's timeout must end the call
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: 1, title: 't' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const forge = new GitHubForge({
      apiUrl: `http://127.0.0.1:${String(port)}/api/v3`,
      credentials: new Credentials({ token: TOKEN }),
      request: { timeoutMs: 200 },
    });
    const repo = parseRepositoryUrl('https://github.com/acme/bundle');
    try {
      await assert.rejects(
        forge.getPullRequest(repo, 1),
        (error: unknown) =>
          isForgeError(error, 502) && error.reason === 'unexpected pull request from GitHub: node_id is missing',
      );
      answer = 'silent';
      await assert.rejects(
        forge.getPullRequest(repo, 1),
        (error: unknown) =>
          isForgeError(error) &&
          error.status === undefined &&
          error.reason.includes('did not answer: no answer within 200 ms'),
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    }
  });
});
