// What every ForgeProvider must do the same way, whichever forge is behind it: the semantics the
// ChangeGroup controller relies on (types.ts). Each provider's test file calls runForgeContract
// with a setup that gives it a fresh repository, a way to push nudger's commit, and the human
// actions (merge, close) that only the forge's own UI can do.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { isForgeError } from '../../../src/adapters/forges/errors.ts';
import type { RepositoryRef } from '../../../src/adapters/forges/repository-url.ts';
import type { ForgeProvider, PullRequest } from '../../../src/adapters/forges/types.ts';

export const CONTRACT_AUTHOR = { name: 'nudger[bot]', email: 'nudger@example.com' };
export const CONTRACT_MESSAGE = 'Update bundle digests';

export interface ForgeContractFixture {
  readonly provider: ForgeProvider;
  /** A repository whose `main` exists and has nothing else. */
  readonly repo: RepositoryRef;
  /**
   * Pushes one commit on `main` (author CONTRACT_AUTHOR, message CONTRACT_MESSAGE) that sets a
   * file to `text`, to `branch` with a lease on `expected`; returns the commit sha.
   */
  pushBranch(branch: string, text: string, expected: string | undefined): Promise<string>;
  /** A human presses merge on the forge. */
  merge(number: number): Promise<void>;
  /** A human closes the PR without merging. */
  close(number: number): Promise<void>;
  /** What the forge itself records for a PR beyond the ForgeProvider view (its UI would show it). */
  inspect(
    number: number,
  ): Promise<{ labels: readonly string[]; autoMerge: string | null; comments?: readonly string[] }>;
  /** Checks made after every test (e.g. no contract violations), then cleanup. */
  teardown(): Promise<void>;
}

const BRANCH = 'konflux/change-groups/contract';

export function runForgeContract(name: string, setup: () => Promise<ForgeContractFixture>): void {
  describe(`ForgeProvider contract: ${name}`, () => {
    let fixture: ForgeContractFixture;
    let provider: ForgeProvider;
    let repo: RepositoryRef;
    const create = (draft = true, head = BRANCH, body = 'the table'): Promise<PullRequest> =>
      provider.createPullRequest({ repo, base: 'main', head, title: 'Update bundle', body, draft });

    beforeEach(async () => {
      fixture = await setup();
      provider = fixture.provider;
      repo = fixture.repo;
    });
    afterEach(async () => {
      await fixture.teardown();
    });

    it('finds nothing for a head that never had a PR', async () => {
      assert.equal(await provider.findPullRequestByHeadBranch(repo, BRANCH), undefined);
    });

    it('creates a draft PR that get and find return unchanged', async () => {
      const head = await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const created = await create();
      assert.ok(Number.isSafeInteger(created.number) && created.number > 0);
      assert.ok(created.url.length > 0);
      assert.deepEqual(
        { ...created, number: 0, url: '' },
        {
          number: 0,
          url: '',
          state: 'open',
          draft: true,
          title: 'Update bundle',
          body: 'the table',
          headBranch: BRANCH,
          headSha: head,
          baseBranch: 'main',
        },
      );
      assert.deepEqual(await provider.getPullRequest(repo, created.number), created);
      assert.deepEqual(await provider.findPullRequestByHeadBranch(repo, BRANCH), created);
      assert.equal(await provider.findPullRequestByHeadBranch(repo, `${BRANCH}-other`), undefined);
    });

    it('keeps an empty body empty', async () => {
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const created = await create(false, BRANCH, '');
      assert.equal(created.body, '');
      assert.equal((await provider.getPullRequest(repo, created.number)).body, '');
    });

    it('updates title and body independently and leaves the draft state alone', async () => {
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const { number } = await create();
      const body = await provider.updatePullRequest(repo, number, { body: 'new table' });
      assert.deepEqual([body.title, body.body, body.draft], ['Update bundle', 'new table', true]);
      const title = await provider.updatePullRequest(repo, number, { title: 'Renamed' });
      assert.deepEqual([title.title, title.body, title.draft], ['Renamed', 'new table', true]);
      assert.deepEqual(await provider.updatePullRequest(repo, number, {}), title);
    });

    it('retargets a PR at another existing base, and refuses one that does not exist with 422', async () => {
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      await fixture.pushBranch('release', 'release\n', undefined);
      const { number } = await create();
      const moved = await provider.updatePullRequest(repo, number, { base: 'release' });
      assert.deepEqual([moved.baseBranch, moved.title], ['release', 'Update bundle']);
      assert.equal((await provider.getPullRequest(repo, number)).baseBranch, 'release');
      await assert.rejects(provider.updatePullRequest(repo, number, { base: 'no-such-base' }), (error: unknown) =>
        isForgeError(error, 422),
      );
    });

    it('marks ready for review and back to draft', async () => {
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const { number } = await create();
      assert.equal((await provider.markReadyForReview(repo, number)).draft, false);
      assert.equal((await provider.getPullRequest(repo, number)).draft, false);
      assert.equal((await provider.markReadyForReview(repo, number)).draft, false, 'idempotent');
      if (provider.convertToDraft !== undefined) {
        assert.equal((await provider.convertToDraft(repo, number)).draft, true);
        assert.equal((await provider.getPullRequest(repo, number)).draft, true);
      }
    });

    it('reads the head live from the branch and lists the commits not on the base', async () => {
      const first = await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const { number } = await create();
      const second = await fixture.pushBranch(BRANCH, 'two\n', first);
      assert.equal((await provider.getPullRequest(repo, number)).headSha, second);
      assert.deepEqual(await provider.listCommits(repo, number), [
        {
          sha: second,
          message: CONTRACT_MESSAGE,
          authorName: CONTRACT_AUTHOR.name,
          authorEmail: CONTRACT_AUTHOR.email,
          committerEmail: CONTRACT_AUTHOR.email,
        },
      ]);
    });

    it('refuses a second open PR for one head, and a head that does not exist, with 422', async () => {
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      await create();
      await assert.rejects(
        create(),
        (error: unknown) => isForgeError(error, 422) && error.operation === 'createPullRequest',
      );
      await assert.rejects(create(true, 'no-such-branch'), (error: unknown) => isForgeError(error, 422));
    });

    it('adds labels, keeping those the PR has, each once', async (t) => {
      if (provider.addLabels === undefined) {
        t.skip('this forge has no labels');
        return;
      }
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const { number } = await create();
      assert.deepEqual(await provider.addLabels(repo, number, ['konflux-nudge', 'team-a']), [
        'konflux-nudge',
        'team-a',
      ]);
      assert.deepEqual(await provider.addLabels(repo, number, ['team-a', 'later']), [
        'konflux-nudge',
        'team-a',
        'later',
      ]);
      assert.deepEqual((await fixture.inspect(number)).labels, ['konflux-nudge', 'team-a', 'later']);
      // A labelled PR reads back as before (GitHub lists and gets it with its label objects).
      assert.equal((await provider.findPullRequestByHeadBranch(repo, BRANCH))?.number, number);
      assert.equal((await provider.getPullRequest(repo, number)).number, number);
      await assert.rejects(provider.addLabels(repo, 41, ['x']), (error: unknown) => isForgeError(error, 404));
    });

    it('records an auto-merge request with its merge method, repeatable', async (t) => {
      if (provider.enableAutoMerge === undefined) {
        t.skip('this forge has no auto-merge');
        return;
      }
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const { number } = await create(false);
      assert.equal((await fixture.inspect(number)).autoMerge, null);
      await provider.enableAutoMerge(repo, number);
      assert.notEqual((await fixture.inspect(number)).autoMerge, undefined, 'the repository’s own method');
      await provider.enableAutoMerge(repo, number, 'SQUASH');
      assert.equal((await fixture.inspect(number)).autoMerge, 'SQUASH');
      await provider.enableAutoMerge(repo, number, 'SQUASH');
      assert.equal((await fixture.inspect(number)).autoMerge, 'SQUASH', 'asking again is harmless');
      await assert.rejects(provider.enableAutoMerge(repo, 41), (error: unknown) => isForgeError(error, 404));
    });

    it('closes an open PR without merging, and leaves a merged or closed one as it is', async (t) => {
      if (provider.closePullRequest === undefined) {
        t.skip('this provider has no closePullRequest yet (optional in types.ts while providers are added)');
        return;
      }
      const head = await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const open = await create();
      const closed = await provider.closePullRequest(repo, open.number);
      assert.deepEqual([closed.number, closed.state, closed.headSha], [open.number, 'closed', head]);
      assert.equal((await provider.getPullRequest(repo, open.number)).state, 'closed');
      assert.equal((await provider.closePullRequest(repo, open.number)).state, 'closed', 'closing again is harmless');

      const merged = await create(false);
      await fixture.merge(merged.number);
      assert.equal((await provider.closePullRequest(repo, merged.number)).state, 'merged', 'merged stays merged');
      await assert.rejects(provider.closePullRequest(repo, 41), (error: unknown) => isForgeError(error, 404));
    });

    it('adds comments to a PR, in order', async (t) => {
      if (provider.addComment === undefined) {
        t.skip('this provider has no addComment yet (optional in types.ts while providers are added)');
        return;
      }
      await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const { number } = await create();
      await provider.addComment(repo, number, 'Closed: every triggering PR was closed.');
      await provider.addComment(repo, number, 'second');
      assert.deepEqual((await fixture.inspect(number)).comments, ['Closed: every triggering PR was closed.', 'second']);
      assert.equal((await provider.getPullRequest(repo, number)).state, 'open', 'a comment changes nothing else');
      await assert.rejects(provider.addComment(repo, 41, 'x'), (error: unknown) => isForgeError(error, 404));
    });

    it('answers 404 for a PR number that does not exist', async () => {
      const missing = (error: unknown) => isForgeError(error, 404);
      await assert.rejects(provider.getPullRequest(repo, 41), missing);
      await assert.rejects(provider.updatePullRequest(repo, 41, { body: 'x' }), missing);
      await assert.rejects(provider.markReadyForReview(repo, 41), missing);
      await assert.rejects(provider.listCommits(repo, 41), missing);
    });

    it('reports merged PRs as merged, prefers an open PR, else the most recent one', async () => {
      const first = await fixture.pushBranch(BRANCH, 'one\n', undefined);
      const one = await create(false);
      await fixture.merge(one.number);
      const merged = await provider.getPullRequest(repo, one.number);
      assert.deepEqual([merged.state, merged.headSha], ['merged', first]);
      // The commit the merge left on the base: a pre-merge nudge finds its push build by it (D11).
      assert.match(merged.mergeCommitSha ?? '', /^[0-9a-f]{40}$/, 'a merged PR names its merge commit');
      assert.equal((await provider.findPullRequestByHeadBranch(repo, BRANCH))?.state, 'merged');

      await fixture.pushBranch(BRANCH, 'two\n', first);
      const two = await create();
      assert.equal((await provider.findPullRequestByHeadBranch(repo, BRANCH))?.number, two.number, 'open wins');
      assert.equal(two.mergeCommitSha, undefined, 'an open PR has no merge commit');
      await fixture.close(two.number);
      const newest = await provider.findPullRequestByHeadBranch(repo, BRANCH);
      assert.deepEqual([newest?.number, newest?.state], [two.number, 'closed'], 'then the most recent');
      assert.equal((await provider.getPullRequest(repo, one.number)).state, 'merged', 'merged stays merged');
    });
  });
}
