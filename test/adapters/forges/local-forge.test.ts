import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ForgeError, isForgeError } from '../../../src/adapters/forges/errors.ts';
import { ZERO_SHA, type LoggedForgeEvent } from '../../../src/adapters/forges/local/event-log.ts';
import { LocalForge, readForgeEvents } from '../../../src/adapters/forges/local/local-forge.ts';
import { parseRepositoryUrl } from '../../../src/adapters/forges/repository-url.ts';
import type { ForgeProvider } from '../../../src/adapters/forges/types.ts';
import { GitWorkspaces } from '../../../src/adapters/git/workspace.ts';
import { foreignPush, git, removeTempDirs, tempDir } from '../git/helpers.ts';

const BOT = { name: 'nudger[bot]', email: 'nudger@example.com' };
const BRANCH = 'konflux/change-groups/bundle-update';

async function setup(prefix: string) {
  const dir = tempDir(prefix);
  const forge = new LocalForge({ root: join(dir, 'forge') });
  const repo = await forge.createRepository('acme', 'bundle', {
    'manifests/csv.yaml': 'image: old\n',
    'README.md': 'hi\n',
  });
  const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
  const pushBranch = async (text: string, expected: string | undefined): Promise<string> => {
    const base = await workspaces.prepareBase(forge.cloneUrl(repo), 'main', forge.credentials);
    const sha = await base.commitOnBase({
      files: [{ path: 'manifests/csv.yaml', text }],
      message: `update [skip ci]`,
      author: BOT,
    });
    await base.pushWithLease(BRANCH, expected);
    return sha;
  };
  return { dir, forge, repo, pushBranch };
}

describe('LocalForge', () => {
  after(removeTempDirs);

  it('seeds a repository whose file:// URL parses back to it', async () => {
    const { forge, repo } = await setup('forge-seed');
    assert.equal(repo.url, forge.repositoryUrl('acme', 'bundle'));
    assert.ok(repo.url.startsWith('file:///') && repo.url.endsWith('/acme/bundle.git'));
    assert.deepEqual(parseRepositoryUrl(repo.url), repo);
    const gitDir = new URL(repo.url).pathname;
    assert.equal(git(gitDir, 'show', 'main:manifests/csv.yaml'), 'image: old\n');
    await assert.rejects(forge.createRepository('acme', 'bundle', {}), (error: unknown) => isForgeError(error, 422));
  });

  it('creates, finds, updates and readies a draft pull request', async () => {
    const { forge, repo, pushBranch } = await setup('forge-pr');
    const provider: ForgeProvider = forge;
    assert.equal(await provider.findPullRequestByHeadBranch(repo, BRANCH), undefined);
    const first = await pushBranch('image: a\n', undefined);

    const created = await provider.createPullRequest({
      repo,
      base: 'main',
      head: BRANCH,
      title: 'Update bundle',
      body: 'table',
      draft: true,
    });
    assert.deepEqual(
      { ...created, url: undefined },
      {
        number: 1,
        url: undefined,
        state: 'open',
        draft: true,
        title: 'Update bundle',
        body: 'table',
        headBranch: BRANCH,
        headSha: first,
        baseBranch: 'main',
      },
    );
    assert.equal((JSON.parse(readFileSync(new URL(created.url), 'utf8')) as { number: unknown }).number, 1);
    assert.deepEqual(await provider.findPullRequestByHeadBranch(repo, BRANCH), created);

    const second = await pushBranch('image: b\n', first);
    const updated = await provider.updatePullRequest(repo, 1, { body: 'new table' });
    assert.equal(updated.body, 'new table');
    assert.equal(updated.title, 'Update bundle');
    assert.equal(updated.headSha, second, 'the head is read live from the branch');

    const ready = await provider.markReadyForReview(repo, 1);
    assert.equal(ready.draft, false);
    assert.equal((await provider.convertToDraft?.(repo, 1))?.draft, true);

    const commits = await provider.listCommits(repo, 1);
    assert.deepEqual(commits, [
      {
        sha: second,
        message: 'update [skip ci]',
        authorName: BOT.name,
        authorEmail: BOT.email,
        committerEmail: BOT.email,
      },
    ]);
  });

  it('lists a human commit pushed on the branch', async () => {
    const { dir, forge, repo, pushBranch } = await setup('forge-human');
    await pushBranch('image: a\n', undefined);
    await forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: true });
    const human = foreignPush(dir, repo.url, BRANCH, 'notes.txt', 'mine\n');
    const commits = await forge.listCommits(repo, 1);
    assert.equal(commits.length, 2);
    assert.deepEqual(commits[1], {
      sha: human,
      message: 'human change',
      authorName: 'Human',
      authorEmail: 'human@example.com',
      committerEmail: 'human@example.com',
    });
  });

  it('merges by fast-forward and reports merged; a merged PR is still found by its head', async () => {
    const { forge, repo, pushBranch } = await setup('forge-merge');
    const head = await pushBranch('image: a\n', undefined);
    await forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: false });
    const merged = await forge.merge(repo, 1);
    assert.equal(merged.state, 'merged');
    assert.equal(await forge.branchHead(repo, 'main'), head);
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.state, 'merged');
    await assert.rejects(forge.merge(repo, 1), (error: unknown) => isForgeError(error, 405));
  });

  it('merges with a merge commit when the base has moved', async () => {
    const { dir, forge, repo, pushBranch } = await setup('forge-merge-commit');
    const head = await pushBranch('image: a\n', undefined);
    await forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: false });
    const moved = foreignPush(dir, repo.url, 'main', 'README.md', 'changed\n');
    await forge.merge(repo, 1);
    const gitDir = new URL(repo.url).pathname;
    assert.equal(git(gitDir, 'rev-parse', 'main^1', 'main^2').trim(), `${moved}\n${head}`);
    assert.equal(git(gitDir, 'show', 'main:manifests/csv.yaml'), 'image: a\n');
    assert.equal(git(gitDir, 'show', 'main:README.md'), 'changed\n');
  });

  it('refuses to merge a conflicting pull request and leaves it open', async () => {
    const { dir, forge, repo, pushBranch } = await setup('forge-conflict');
    await pushBranch('image: a\n', undefined);
    await forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: false });
    const humanMain = foreignPush(dir, repo.url, 'main', 'manifests/csv.yaml', 'image: human\n');
    await assert.rejects(
      forge.merge(repo, 1),
      (error: unknown) =>
        error instanceof ForgeError && error.status === 405 && error.message.includes('merge conflict'),
    );
    assert.equal((await forge.getPullRequest(repo, 1)).state, 'open');
    assert.equal(await forge.branchHead(repo, 'main'), humanMain);
  });

  it('closes a pull request; a new one may then be opened on the same head', async () => {
    const { forge, repo, pushBranch } = await setup('forge-close');
    await pushBranch('image: a\n', undefined);
    await forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: true });
    assert.equal((await forge.close(repo, 1)).state, 'closed');
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.state, 'closed');
    const reopened = await forge.createPullRequest({
      repo,
      base: 'main',
      head: BRANCH,
      title: 't',
      body: 'b',
      draft: true,
    });
    assert.equal(reopened.number, 2);
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.number, 2, 'the open one wins');
  });

  it('opens exactly one pull request when two callers create the same head at once', async () => {
    const { dir, repo, pushBranch } = await setup('forge-race');
    await pushBranch('image: a\n', undefined);
    // Two forge objects on one root: no shared in-process state, only the lock file.
    const one = new LocalForge({ root: join(dir, 'forge') });
    const two = new LocalForge({ root: join(dir, 'forge') });
    const results = await Promise.allSettled(
      [one, two, one, two].map((forge) =>
        forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: true }),
      ),
    );
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    const rejected = results.filter((result) => result.status === 'rejected');
    assert.equal(fulfilled.length, 1);
    assert.equal(rejected.length, 3);
    for (const result of rejected) assert.ok(isForgeError(result.reason, 422), String(result.reason));
    assert.equal((await one.findPullRequestByHeadBranch(repo, BRANCH))?.number, 1);
    await assert.rejects(one.getPullRequest(repo, 2), (error: unknown) => isForgeError(error, 404));
  });

  it('hands out distinct numbers to concurrent creates on different heads', async () => {
    const { dir, forge, repo } = await setup('forge-numbers');
    const gitDir = new URL(repo.url).pathname;
    const heads = Array.from({ length: 6 }, (_, index) => `head-${String(index)}`);
    for (const head of heads) git(gitDir, 'branch', head, 'main');
    const forges = [forge, new LocalForge({ root: join(dir, 'forge') })];
    const created = await Promise.all(
      heads.map((head, index) =>
        (forges[index % 2] ?? forge).createPullRequest({
          repo,
          base: 'main',
          head,
          title: head,
          body: '',
          draft: true,
        }),
      ),
    );
    assert.deepEqual(
      created.map((pr) => pr.number).sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6],
    );
    for (const pr of created) assert.equal((await forge.getPullRequest(repo, pr.number)).headBranch, pr.title);
  });

  it('refuses unknown repositories, PRs and branches with ForgeError naming the repository', async () => {
    const { forge, repo } = await setup('forge-errors');
    const missing = forge.repository('acme', 'nope');
    await assert.rejects(
      forge.getPullRequest(missing, 1),
      (error: unknown) =>
        isForgeError(error, 404) && error.message.startsWith('local getPullRequest acme/nope: no repository at'),
    );
    await assert.rejects(
      forge.getPullRequest(repo, 7),
      (error: unknown) =>
        isForgeError(error, 404) && error.message === 'local getPullRequest acme/bundle: no pull request #7 (404)',
    );
    await assert.rejects(
      forge.createPullRequest({ repo, base: 'main', head: 'absent', title: 't', body: 'b', draft: true }),
      (error: unknown) => isForgeError(error, 422) && error.message.includes('head branch absent does not exist'),
    );
  });

  describe('event log', () => {
    // The order and the fields that matter; `at` and `offset` vary from run to run.
    const summary = (events: readonly LoggedForgeEvent[]): string[] =>
      events.map((event) =>
        event.type === 'push'
          ? `push ${event.ref} ${event.before === ZERO_SHA ? 'new' : event.before.slice(0, 7)}..${event.after.slice(0, 7)}`
          : `${event.type} #${String(event.number)} ${event.headSha.slice(0, 7)} draft=${String(event.draft)}`,
      );
    const short = (sha: string): string => sha.slice(0, 7);

    it('logs pushes (through the post-receive hook) and PR changes in order, only real changes', async () => {
      const { forge, repo, pushBranch } = await setup('forge-events');
      const first = await pushBranch('image: a\n', undefined);
      await forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: true });
      const second = await pushBranch('image: b\n', first);
      await forge.updatePullRequest(repo, 1, { body: 'b' }); // unchanged: no event
      await forge.updatePullRequest(repo, 1, { body: 'new body' });
      await forge.markReadyForReview(repo, 1);
      await forge.markReadyForReview(repo, 1); // already ready: no event
      await forge.convertToDraft(repo, 1);
      await forge.markReadyForReview(repo, 1);
      const mainBefore = (await forge.branchHead(repo, 'main')) ?? '';
      await forge.merge(repo, 1);
      await forge.close(repo, 1); // already merged: no event

      const { events, nextOffset } = await readForgeEvents(forge, repo, 0);
      assert.deepEqual(summary(events), [
        `push refs/heads/${BRANCH} new..${short(first)}`,
        `opened #1 ${short(first)} draft=true`,
        `push refs/heads/${BRANCH} ${short(first)}..${short(second)}`,
        `edited #1 ${short(second)} draft=true`,
        `ready_for_review #1 ${short(second)} draft=false`,
        `converted_to_draft #1 ${short(second)} draft=true`,
        `ready_for_review #1 ${short(second)} draft=false`,
        `push refs/heads/main ${short(mainBefore)}..${short(second)}`,
        `merged #1 ${short(second)} draft=false`,
      ]);
      assert.equal(nextOffset, readFileSync(forge.eventLogPath(repo)).length);
      // Reading on from an offset yields the rest, and nothing once caught up.
      const third = events[3]!;
      assert.deepEqual((await readForgeEvents(forge, repo, third.offset)).events, events.slice(3));
      assert.deepEqual(await readForgeEvents(forge, repo, nextOffset), { events: [], nextOffset });
    });

    it('logs a close, and nothing for a repository with no activity', async () => {
      const { forge, repo, pushBranch } = await setup('forge-events-close');
      assert.deepEqual(await readForgeEvents(forge, repo, 0), { events: [], nextOffset: 0 });
      const head = await pushBranch('image: a\n', undefined);
      await forge.createPullRequest({ repo, base: 'main', head: BRANCH, title: 't', body: 'b', draft: false });
      await forge.close(repo, 1);
      const { events } = await readForgeEvents(forge, repo, 0);
      assert.deepEqual(summary(events).slice(1), [
        `opened #1 ${short(head)} draft=false`,
        `closed #1 ${short(head)} draft=false`,
      ]);
    });

    it('records every one of many rapid pushes, from several pushers at once, as one whole line each', async () => {
      const { dir, forge, repo } = await setup('forge-events-many');
      const pushers = 4;
      const perPusher = 10;
      // Each pusher has its own workspace cache and branch: concurrent receive-packs on one repository.
      await Promise.all(
        Array.from({ length: pushers }, async (_, p) => {
          const workspaces = new GitWorkspaces({ cacheDir: join(dir, `cache-${String(p)}`) });
          let expected: string | undefined;
          for (let i = 0; i < perPusher; i += 1) {
            const base = await workspaces.prepareBase(forge.cloneUrl(repo), 'main');
            await base.commitOnBase({
              files: [{ path: `f-${String(p)}.txt`, text: `${String(i)}\n` }],
              message: `push ${String(i)}`,
              author: BOT,
            });
            const branch = `pusher-${String(p)}`;
            await base.pushWithLease(branch, expected);
            expected = await forge.branchHead(repo, branch);
          }
        }),
      );
      const { events } = await readForgeEvents(forge, repo, 0);
      assert.equal(events.length, pushers * perPusher);
      for (let p = 0; p < pushers; p += 1) {
        const mine = events.filter((event) => event.type === 'push' && event.ref === `refs/heads/pusher-${String(p)}`);
        assert.equal(mine.length, perPusher);
        // Each push starts where the previous one of the same branch ended: none lost or reordered.
        for (let i = 1; i < mine.length; i += 1) {
          const [previous, current] = [mine[i - 1], mine[i]];
          assert.ok(previous?.type === 'push' && current?.type === 'push');
          assert.equal(current.before, previous.after);
        }
      }
    });

    it('resumes mid-log without losing events appended between reads', async () => {
      const { forge, repo, pushBranch } = await setup('forge-events-resume');
      let offset = 0;
      const seen: LoggedForgeEvent[] = [];
      let expected: string | undefined;
      for (let i = 0; i < 5; i += 1) {
        expected = await pushBranch(`image: ${String(i)}\n`, expected);
        const batch = await readForgeEvents(forge, repo, offset);
        seen.push(...batch.events);
        offset = batch.nextOffset;
      }
      assert.deepEqual(seen, (await readForgeEvents(forge, repo, 0)).events);
      assert.equal(seen.length, 5);
    });
  });
});
