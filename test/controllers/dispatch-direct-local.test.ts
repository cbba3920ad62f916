// The `direct` executor against the local forge with real git (docs/decisions.md D9, N20): what a
// user sees on the first nudge, a newer build, a late older build, a human commit until the rebase
// box is ticked, a moved base, automerge settings, and a fire repeated after a crash.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import type { ForgeResolver } from '../../src/adapters/forges/resolver.ts';
import { withBuildStamp } from '../../src/domain/nudge/direct-build-stamp.ts';
import { nudgePullRequestText } from '../../src/domain/nudge/pull-request-text.ts';
import { NO_RENOVATE_SETTINGS } from '../../src/domain/nudge/renovate-settings.ts';
import { foreignPush, git, removeTempDirs } from '../adapters/git/helpers.ts';
import { LOCAL_AUTHOR, detailOf, localDirectRig, losingFirstCreate } from './dispatch-direct-harness.ts';
import {
  BRANCH,
  BUILD_1,
  BUILD_2,
  BUILD_3,
  BUNDLE_FILES,
  DISTRIBUTED,
  IMAGE,
  LINK,
  OLD_DIGEST,
  digestOf,
  nudgeRequest,
  tickRebase,
} from './dispatch-direct-fixture.ts';

after(removeTempDirs);

const AUTHOR = LOCAL_AUTHOR;

function setup(prefix: string, resolver?: (forge: LocalForge) => ForgeResolver) {
  return localDirectRig(prefix, BUNDLE_FILES, BRANCH, resolver);
}

/**
 * Renovate's body for the first build (its exact text is held by the pull-request-text tests) and
 * the stamp of the build it carries.
 */
const EXPECTED_BODY_1 = withBuildStamp(
  nudgePullRequestText({
    nudging: 'operand',
    nudged: 'bundle',
    simpleBranch: false,
    repository: IMAGE,
    currentDigest: OLD_DIGEST,
    newDigest: digestOf('a'),
    repoAtShaLink: LINK,
    gitAuthor: AUTHOR,
    settings: { ...NO_RENOVATE_SETTINGS, labels: ['team-a'] },
  }).body,
  { createdAt: BUILD_1.createdAt, pipelineRun: BUILD_1.pipelineRun, digest: digestOf('a') },
);

describe('direct executor on the local forge', () => {
  it('opens the pull request build-service’s Renovate would: branch, one commit, title, body, labels', async () => {
    const { forge, repo, url, executor, gitDir, dir, show } = await setup('direct-first');
    const outcome = await executor.fire(nudgeRequest(url, BUILD_1, { settings: { labels: ['team-a'] } }));
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    assert.deepEqual(outcome.notices, []);

    const pull = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.ok(pull !== undefined);
    assert.equal(detailOf(outcome), pull.url);
    assert.deepEqual([pull.state, pull.draft, pull.baseBranch], ['open', false, 'main']);
    assert.equal(pull.title, 'Update operand to aaaaaaa');
    assert.equal(pull.body, EXPECTED_BODY_1);
    assert.ok(pull.body.startsWith(`Image created from '${LINK}'\n\nThis PR contains the following updates:`));
    assert.ok(pull.body.includes(`| ${IMAGE} | digest | \`0000000\` -> \`aaaaaaa\` |`));
    assert.ok(
      pull.body.endsWith(
        'This is Konflux nudging PR, not Mintmaker.\n\n' +
          `<!-- nudger-build createdAt=2026-01-01T10:00:00Z pipelineRun=operand-on-push-1 digest=${digestOf('a')} -->`,
      ),
    );
    assert.deepEqual((await forge.pullRequestExtras(repo, pull.number)).labels, ['konflux-nudge', 'team-a']);

    const commits = await forge.listCommits(repo, pull.number);
    assert.equal(commits.length, 1, 'one commit on the base');
    assert.equal(
      commits[0]?.message,
      `Update operand to aaaaaaa\n\nImage created from '${LINK}'\n\nSigned-off-by: ${AUTHOR}`,
    );
    assert.equal(
      git(dir, '--git-dir', gitDir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%aI', BRANCH).trim(),
      `${AUTHOR}|${AUTHOR}|2026-01-01T10:00:00+00:00`,
    );
    assert.equal(git(dir, '--git-dir', gitDir, 'rev-parse', `${BRANCH}^`).trim(), await forge.branchHead(repo, 'main'));

    const csv = show(BRANCH, 'manifests/csv.yaml');
    assert.match(csv, new RegExp(`image: ${IMAGE}@${digestOf('a')}`));
    assert.match(csv, new RegExp(`related: ${DISTRIBUTED}:v1@${digestOf('a')}`), 'distribution repository');
    assert.match(csv, new RegExp(`lookalike: quay.io/acme/operand-extra@${OLD_DIGEST}`), 'anchored');
    assert.match(csv, new RegExp(`tagOnly: ${IMAGE}:v1\n`), 'tag-only untouched');
    assert.equal(show(BRANCH, 'Dockerfile'), `FROM ${IMAGE}@${digestOf('a')}\n`);
    assert.equal(show(BRANCH, 'docs/notes.md'), BUNDLE_FILES['docs/notes.md'], 'outside the fileMatch');
  });

  it('writes semantic commits when most recent subjects of the base are conventional, unless a prefix is set', async () => {
    const { forge, repo, url, executor, dir } = await setup('direct-semantic');
    const clone = join(dir, 'clone');
    git(dir, 'clone', '--quiet', url, clone);
    for (const subject of ['feat: a', 'fix(csv): b', 'chore: c']) {
      git(clone, 'commit', '--quiet', '--allow-empty', '-m', subject);
    }
    git(clone, 'push', '--quiet', 'origin', 'main');
    await executor.fire(nudgeRequest(url, BUILD_1));
    assert.equal(
      (await forge.findPullRequestByHeadBranch(repo, BRANCH))?.title,
      'chore(deps): update operand to aaaaaaa',
    );

    await executor.fire(nudgeRequest(url, BUILD_2, { settings: { commitMessagePrefix: '[nudge]' } }));
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.title, '[nudge] Update operand to bbbbbbb');
  });

  it('uses the simple branch when the nudging component asks for it', async () => {
    const { forge, repo, url, executor } = await setup('direct-simple');
    await executor.fire(nudgeRequest(url, BUILD_1, { simpleBranch: true }));
    const pull = await forge.findPullRequestByHeadBranch(repo, 'konflux/component-updates/component-update-operand');
    assert.equal(pull?.state, 'open');
  });

  it("opens against the repository's default branch when the Component names no revision", async () => {
    const { forge, repo, url, executor, dir, gitDir } = await setup('direct-default-branch');
    git(dir, '--git-dir', gitDir, 'branch', 'trunk', 'main');
    git(dir, '--git-dir', gitDir, 'symbolic-ref', 'HEAD', 'refs/heads/trunk');
    const request = nudgeRequest(url, BUILD_1);
    const outcome = await executor.fire({
      ...request,
      nudged: { ...request.nudged, spec: { source: { git: { url } } } },
    });
    assert.equal(outcome.result.ok, true);
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.baseBranch, 'trunk');
  });

  it('moves the pull request to the new base when the Component’s revision changes', async () => {
    const { forge, repo, url, executor, dir, gitDir } = await setup('direct-retarget');
    await executor.fire(nudgeRequest(url, BUILD_1));
    git(dir, '--git-dir', gitDir, 'branch', 'release-2', 'main');
    const request = nudgeRequest(url, BUILD_2);
    const outcome = await executor.fire({
      ...request,
      nudged: { ...request.nudged, spec: { source: { git: { url, revision: 'release-2' } } } },
    });
    assert.equal(outcome.result.ok, true);
    const pulls = await forge.listPullRequests(repo);
    assert.deepEqual(
      pulls.map((pull) => [pull.state, pull.baseBranch, pull.title]),
      [['open', 'release-2', 'Update operand to bbbbbbb']],
    );
  });

  it('puts a newer build into the same pull request as one commit, and ignores a late older one', async () => {
    const { forge, repo, url, executor, show } = await setup('direct-newer');
    await executor.fire(nudgeRequest(url, BUILD_1));
    const first = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    const outcome = await executor.fire(nudgeRequest(url, BUILD_2));
    assert.equal(outcome.result.ok, true);
    const second = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.ok(second !== undefined);
    assert.equal(second.number, first?.number, 'same pull request');
    assert.equal(second.title, 'Update operand to bbbbbbb');
    assert.match(second.body, /`0000000` -> `bbbbbbb`/);
    assert.match(second.body, /pipelineRun=operand-on-push-2 /);
    assert.equal((await forge.listCommits(repo, second.number)).length, 1);
    assert.equal(show(BRANCH, 'Dockerfile'), `FROM ${IMAGE}@${digestOf('b')}\n`);
    assert.equal((await forge.listPullRequests(repo)).length, 1);

    const late = await executor.fire(nudgeRequest(url, BUILD_1));
    assert.match(detailOf(late), /^superseded: .* already carries newer build operand-on-push-2/);
    const after = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.deepEqual(after, second, 'nothing changed');
  });

  it('never undoes a merged newer build with a late older one; a newer one opens a new pull request', async () => {
    const { forge, repo, url, executor, show } = await setup('direct-merged');
    await executor.fire(nudgeRequest(url, BUILD_2));
    const merged = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    await forge.merge(repo, merged?.number ?? 0);
    const late = await executor.fire(nudgeRequest(url, BUILD_1));
    assert.match(detailOf(late), /^superseded: .* already carries newer build operand-on-push-2/);
    assert.equal((await forge.listPullRequests(repo)).length, 1, 'no pull request back to the older digest');
    assert.equal(show('main', 'Dockerfile'), `FROM ${IMAGE}@${digestOf('b')}\n`);

    await executor.fire(nudgeRequest(url, BUILD_3));
    const pulls = await forge.listPullRequests(repo);
    assert.deepEqual(
      pulls.map((pull) => [pull.state, pull.title]),
      [
        ['merged', 'Update operand to bbbbbbb'],
        ['open', 'Update operand to ccccccc'],
      ],
    );
    assert.match(pulls[1]?.body ?? '', /`bbbbbbb` -> `ccccccc`/);
  });

  it('ends on the newest build whatever order the builds arrive in, as one commit in one pull request', async () => {
    const builds = ['1', '2', '3', '4', '5'].map((n, i) => ({
      digest: n,
      pipelineRun: `operand-on-push-${n}`,
      createdAt: `2026-01-01T1${String(i)}:00:00Z`,
    }));
    for (const order of [
      [4, 0, 3, 1, 2],
      [1, 3, 0, 4, 2],
      [0, 1, 2, 3, 4],
    ]) {
      const { forge, repo, url, executor, show } = await setup(`direct-order-${order.join('')}`);
      for (const index of order) {
        const outcome = await executor.fire(nudgeRequest(url, builds[index] ?? BUILD_1));
        assert.equal(outcome.result.ok, true, `${order.join(',')}: ${detailOf(outcome)}`);
      }
      const pulls = await forge.listPullRequests(repo);
      assert.deepEqual(
        pulls.map((pull) => [pull.state, pull.title]),
        [['open', 'Update operand to 5555555']],
        order.join(','),
      );
      assert.equal((await forge.listCommits(repo, pulls[0]?.number ?? 0)).length, 1);
      assert.equal(show(BRANCH, 'Dockerfile'), `FROM ${IMAGE}@${digestOf('5')}\n`);
    }
  });

  it('serialises fires to one branch: builds fired at once all succeed and the newest wins', async () => {
    const { forge, repo, url, executor } = await setup('direct-concurrent');
    const outcomes = await Promise.all(
      [BUILD_2, BUILD_3, BUILD_1].map((build) => executor.fire(nudgeRequest(url, build))),
    );
    assert.deepEqual(
      outcomes.map((outcome) => outcome.result.ok),
      [true, true, true],
      outcomes.map(detailOf).join('; '),
    );
    const pulls = await forge.listPullRequests(repo);
    assert.deepEqual(
      pulls.map((pull) => [pull.state, pull.title]),
      [['open', 'Update operand to ccccccc']],
    );
  });

  it('orders builds created in the same second by PipelineRun name', async () => {
    const { forge, repo, url, executor } = await setup('direct-tie');
    const sameSecond = { ...BUILD_1, digest: 'd', pipelineRun: 'operand-on-push-1b' };
    await executor.fire(nudgeRequest(url, sameSecond));
    const outcome = await executor.fire(nudgeRequest(url, BUILD_1));
    assert.match(detailOf(outcome), /^superseded/);
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.title, 'Update operand to ddddddd');
  });

  it('leaves a branch someone else pushed to alone until the rebase box is ticked', async () => {
    const { forge, repo, url, executor, dir, show } = await setup('direct-human');
    await executor.fire(nudgeRequest(url, BUILD_1));
    const human = foreignPush(dir, url, BRANCH, 'Dockerfile', 'FROM scratch\n');

    const refused = await executor.fire(nudgeRequest(url, BUILD_2));
    assert.equal(refused.result.ok, false);
    assert.ok(!refused.result.ok);
    assert.equal(refused.result.reason, 'branch-edited');
    assert.equal(refused.result.permanent, true);
    assert.match(refused.result.message, new RegExp(human.slice(0, 12)));
    assert.deepEqual(
      refused.notices?.map((notice) => notice.reason),
      ['NudgeBranchEditedByHuman'],
    );
    assert.equal(await forge.branchHead(repo, BRANCH), human, 'the human commit stays');
    const pull = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.ok(pull !== undefined);
    assert.equal(pull.title, 'Update operand to aaaaaaa', 'the pull request is not touched either');

    await forge.updatePullRequest(repo, pull.number, { body: tickRebase(pull.body) });
    const rebased = await executor.fire(nudgeRequest(url, BUILD_2));
    assert.equal(rebased.result.ok, true);
    const commits = await forge.listCommits(repo, pull.number);
    assert.equal(commits.length, 1, 'the human commit is dropped');
    assert.equal(show(BRANCH, 'Dockerfile'), `FROM ${IMAGE}@${digestOf('b')}\n`);
    const now = await forge.getPullRequest(repo, pull.number);
    assert.match(now.body, /- \[ \] <!-- rebase-check -->/, 'the box is unticked again');
  });

  it('rebases onto a base that moved', async () => {
    const { forge, repo, url, executor, dir, show, gitDir } = await setup('direct-rebase');
    await executor.fire(nudgeRequest(url, BUILD_1));
    const moved = foreignPush(dir, url, 'main', 'README.md', 'bundle, moved\n');
    const outcome = await executor.fire(nudgeRequest(url, BUILD_2));
    assert.equal(outcome.result.ok, true);
    assert.equal(git(dir, '--git-dir', gitDir, 'rev-parse', `${BRANCH}^`).trim(), moved, 'parent is the new tip');
    assert.equal(show(BRANCH, 'README.md'), 'bundle, moved\n');
    const pull = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.equal((await forge.listCommits(repo, pull?.number ?? 0)).length, 1);
  });

  it('does nothing twice when a fire is repeated, even after a crash between push and pull request', async () => {
    // The forge opens the pull request but its answer is lost, once (a crash, a dropped connection).
    const { forge, repo, url, executor, pushes } = await setup('direct-crash', losingFirstCreate);
    const request = nudgeRequest(url, BUILD_1);
    const failed = await executor.fire(request);
    assert.deepEqual(failed.result.ok ? undefined : [failed.result.reason, failed.result.permanent], [
      'forge-unavailable',
      undefined,
    ]);
    assert.equal(await pushes(), 1);
    const again = await executor.fire({ ...request, attempt: 2 });
    assert.equal(again.result.ok, true);
    const third = await executor.fire({ ...request, attempt: 3 });
    assert.equal(third.result.ok, true);
    assert.equal((await forge.listPullRequests(repo)).length, 1, 'one pull request');
    assert.equal(await pushes(), 1, 'the commit is pushed once');
  });

  it('quotes no repository link that could break the text, and says so', async () => {
    const { forge, repo, url, executor } = await setup('direct-bad-link');
    const request = nudgeRequest(url, BUILD_1);
    const outcome = await executor.fire({
      ...request,
      buildRun: {
        ...request.buildRun,
        metadata: {
          ...request.buildRun.metadata,
          annotations: { 'build.appstudio.openshift.io/repo': "https://x.io/a'b" },
        },
      },
    });
    assert.equal(outcome.result.ok, true);
    assert.deepEqual(
      outcome.notices?.map((notice) => notice.reason),
      ['NudgeBuildLinkIgnored'],
    );
    assert.match((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.body ?? '', /^Image created from ''\n/);
  });

  it('dates the commit by the build PipelineRun when the verified build carries no time', async () => {
    const { forge, repo, url, executor, pushes } = await setup('direct-no-time');
    const request = nudgeRequest(url, BUILD_1);
    const { createdAt: _dropped, ...build } = request.build;
    const untimed = { ...request, build };
    assert.equal((await executor.fire(untimed)).result.ok, true);
    assert.equal((await executor.fire(untimed)).result.ok, true);
    assert.equal(await pushes(), 1, 'the same commit: not pushed again');
    assert.match(
      (await forge.findPullRequestByHeadBranch(repo, BRANCH))?.body ?? '',
      /createdAt=2026-01-01T10:00:00Z /,
    );
  });

  it('opens no pull request when no selected file references the image', async () => {
    const { forge, repo, url, executor } = await setup('direct-none');
    const request = nudgeRequest(url, BUILD_1);
    const outcome = await executor.fire({ ...request, fileMatch: ['docs/.*\\.txt'] });
    assert.deepEqual(outcome.result, { ok: true, detail: 'no references' });
    assert.equal(await forge.branchHead(repo, BRANCH), undefined);
  });

  it('enables auto-merge when automerge and platformAutomerge ask for it, and names what it cannot honour', async () => {
    const { forge, repo, url, executor } = await setup('direct-automerge');
    const enabled = await executor.fire(
      nudgeRequest(url, BUILD_1, { settings: { configMap: 'cm', automerge: true, platformAutomerge: true } }),
    );
    assert.deepEqual(enabled.notices, []);
    const pull = await forge.findPullRequestByHeadBranch(repo, BRANCH);
    assert.equal((await forge.pullRequestExtras(repo, pull?.number ?? 0)).autoMerge?.method, null);
    assert.match(pull?.body ?? '', /🚦 \*\*Automerge\*\*: Enabled\./);

    const { forge: other, repo: otherRepo, url: otherUrl, executor: otherExecutor } = await setup('direct-schedule');
    const scheduled = await otherExecutor.fire(
      nudgeRequest(otherUrl, BUILD_1, {
        settings: { configMap: 'cm', automerge: true, platformAutomerge: true, automergeSchedule: ['after 10pm'] },
      }),
    );
    assert.deepEqual(
      scheduled.notices?.map((notice) => [notice.reason, notice.message.split(':')[0]]),
      [['NudgeSettingUnsupported', 'ConfigMap cm key automergeSchedule']],
    );
    const otherPull = await other.findPullRequestByHeadBranch(otherRepo, BRANCH);
    assert.equal((await other.pullRequestExtras(otherRepo, otherPull?.number ?? 0)).autoMerge, undefined);
  });

  it('fails permanently for a repository that does not exist, and names it', async () => {
    const { forge, executor } = await setup('direct-missing');
    const outcome = await executor.fire(nudgeRequest(forge.repositoryUrl('acme', 'gone'), BUILD_3));
    assert.ok(!outcome.result.ok);
    assert.deepEqual([outcome.result.reason, outcome.result.permanent], ['repository-not-found', true]);
    assert.match(outcome.result.message, /acme\/gone/);
  });
});
