// The `direct` executor's validated batches against the local forge with real git
// (docs/decisions.md D10, N28): one pull request with one commit for every component of a pass,
// updated in place by a later pass (keeping what it carried), a new one once merged or closed,
// nothing done twice for one batch, someone else's push left alone until the rebase box is ticked,
// and each component rewritten only where its own fileMatch looks.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import type { ForgeResolver } from '../../src/adapters/forges/resolver.ts';
import { nudgePullRequestText } from '../../src/domain/nudge/pull-request-text.ts';
import { NO_RENOVATE_SETTINGS } from '../../src/domain/nudge/renovate-settings.ts';
import { parseBatchStamp } from '../../src/domain/nudge/validated-pull-request.ts';
import { foreignPush, git, removeTempDirs } from '../adapters/git/helpers.ts';
import { LOCAL_AUTHOR, detailOf, localDirectRig, losingFirstCreate } from './dispatch-direct-harness.ts';
import {
  BATCH_FILES,
  DISTRIBUTED_A,
  ENV_FILE_MATCH,
  PASS_1,
  PASS_2,
  TITLE,
  VALIDATED_BRANCH,
  batchRequest,
  imageOf,
  linkOf,
} from './dispatch-direct-batch-fixture.ts';
import { IMAGE, LINK, OLD_DIGEST, digestOf, tickRebase } from './dispatch-direct-fixture.ts';

after(removeTempDirs);

const AUTHOR = LOCAL_AUTHOR;

function setup(prefix: string, resolver?: (forge: LocalForge) => ForgeResolver) {
  return localDirectRig(prefix, BATCH_FILES, VALIDATED_BRANCH, resolver);
}

const row = (component: string, old: string | undefined, digest: string, snapshot: string): string =>
  `| ${component} | ${old === undefined ? '' : `\`${old}\``} | \`${digest}\` | \`${snapshot}\` |`;
const built = (component: string, digest: string): string =>
  `- ${component}: image created from '${linkOf(component)}' by build \`${component}-on-push-${digest}\``;

/** The body of PASS_1 on the untouched base, up to the Configuration section. */
const BODY_1 = [
  'Images validated by passing Snapshots of component group `operators`',
  '',
  'This PR contains the following updates:',
  '',
  '| Component | Old digest | New digest | Snapshot |',
  '|---|---|---|---|',
  row('operand-a', OLD_DIGEST, digestOf('a'), 'operators-snap-1'),
  row('operand-b', OLD_DIGEST, digestOf('b'), 'operators-snap-1'),
  row('operand-c', OLD_DIGEST, digestOf('c'), 'operators-snap-1'),
  '',
  built('operand-a', 'a'),
  built('operand-b', 'b'),
  built('operand-c', 'c'),
  '',
  '---',
  '',
  '',
].join('\n');

/** A single nudge's body from its Configuration section on: the batch's is the same. */
const SINGLE_NUDGE_TAIL = ((body: string) => body.slice(body.indexOf('### Configuration')))(
  nudgePullRequestText({
    nudging: 'operand',
    nudged: 'bundle',
    simpleBranch: false,
    repository: IMAGE,
    newDigest: digestOf('a'),
    repoAtShaLink: LINK,
    gitAuthor: AUTHOR,
    settings: NO_RENOVATE_SETTINGS,
  }).body,
);

describe('direct executor: validated batches on the local forge', () => {
  it('puts every component of a pass into one pull request with one commit, each where its fileMatch looks', async () => {
    const { forge, repo, url, executor, dir, gitDir, show, commitsOnBranch } = await setup('batch-first');
    const request = batchRequest(url, PASS_1, { settings: { labels: ['team-a'] } });
    const outcome = await executor.fireBatch(request);
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    assert.deepEqual(outcome.notices, []);

    const pulls = await forge.listPullRequests(repo);
    assert.equal(pulls.length, 1);
    const pull = pulls[0];
    assert.ok(pull !== undefined);
    assert.equal(detailOf(outcome), pull.url);
    assert.deepEqual(
      [pull.headBranch, pull.baseBranch, pull.state, pull.draft],
      [VALIDATED_BRANCH, 'main', 'open', false],
    );
    assert.equal(pull.title, TITLE);
    const [body = '', stampLine] = pull.body.split('\n\n<!-- nudger-validated-batch ');
    assert.equal(body, `${BODY_1}${SINGLE_NUDGE_TAIL}`);
    assert.match(stampLine ?? '', /^key=[0-9a-f]{16} images=\S+ -->$/);
    const stamp = parseBatchStamp(pull.body);
    assert.equal(stamp?.key, request.key);
    assert.deepEqual(
      stamp.images.map((image) => [image.component, image.digest, image.snapshot, image.fileMatch]),
      [
        ['operand-a', digestOf('a'), 'operators-snap-1', request.entries[0]?.fileMatch],
        ['operand-b', digestOf('b'), 'operators-snap-1', request.entries[1]?.fileMatch],
        ['operand-c', digestOf('c'), 'operators-snap-1', ENV_FILE_MATCH],
      ],
    );
    assert.deepEqual((await forge.pullRequestExtras(repo, pull.number)).labels, ['konflux-nudge', 'team-a']);

    assert.equal(commitsOnBranch(), 1, 'one commit on the base');
    const commits = await forge.listCommits(repo, pull.number);
    assert.equal(
      commits[0]?.message,
      [
        TITLE,
        '',
        'Images validated by passing Snapshots of component group operators:',
        `- operand-a: ${digestOf('a')} (Snapshot operators-snap-1)`,
        `- operand-b: ${digestOf('b')} (Snapshot operators-snap-1)`,
        `- operand-c: ${digestOf('c')} (Snapshot operators-snap-1)`,
        '',
        `Signed-off-by: ${AUTHOR}`,
      ].join('\n'),
    );
    assert.equal(
      git(dir, '--git-dir', gitDir, 'log', '-1', '--format=%an <%ae>|%aI', VALIDATED_BRANCH).trim(),
      `${AUTHOR}|2026-01-01T10:05:00+00:00`,
      'dated by the newest build',
    );

    assert.equal(
      show(VALIDATED_BRANCH, 'manifests/csv.yaml'),
      [
        'spec:',
        `  a: ${imageOf('operand-a')}@${digestOf('a')}`,
        `  aRelated: ${DISTRIBUTED_A}:v1@${digestOf('a')}`,
        `  b: ${imageOf('operand-b')}@${digestOf('b')}`,
        `  c: ${imageOf('operand-c')}@${OLD_DIGEST}`,
        `  tagOnly: ${imageOf('operand-b')}:v1`,
        '',
      ].join('\n'),
      "operand-c's fileMatch does not select the CSV",
    );
    assert.equal(show(VALIDATED_BRANCH, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${digestOf('a')}\n`);
    assert.equal(
      show(VALIDATED_BRANCH, 'config/params.env'),
      `C_IMAGE=${imageOf('operand-c')}@${digestOf('c')}\nA_IMAGE=${imageOf('operand-a')}@${OLD_DIGEST}\n`,
      "operand-a's fileMatch does not select the env file",
    );
  });

  it('updates the open pull request in place on a later pass, keeping the images it carried', async () => {
    const { forge, repo, url, executor, show, pushes, commitsOnBranch } = await setup('batch-in-place');
    await executor.fireBatch(batchRequest(url, PASS_1));
    const first = await forge.findPullRequestByHeadBranch(repo, VALIDATED_BRANCH);
    const firstHead = await forge.branchHead(repo, VALIDATED_BRANCH);

    const request = batchRequest(url, PASS_2);
    const outcome = await executor.fireBatch(request);
    assert.equal(outcome.result.ok, true, detailOf(outcome));
    const pulls = await forge.listPullRequests(repo);
    assert.deepEqual(
      pulls.map((pull) => [pull.number, pull.state, pull.title]),
      [[first?.number, 'open', TITLE]],
      'the same pull request',
    );
    const body = pulls[0]?.body ?? '';
    assert.ok(body.includes(row('operand-a', OLD_DIGEST, digestOf('d'), 'operators-snap-2')), body);
    assert.ok(body.includes(row('operand-b', OLD_DIGEST, digestOf('b'), 'operators-snap-1')), 'carried');
    assert.ok(body.includes(row('operand-c', OLD_DIGEST, digestOf('c'), 'operators-snap-1')), 'carried');
    assert.ok(body.includes(built('operand-a', 'd')));
    assert.equal(parseBatchStamp(body)?.key, request.key);

    assert.notEqual(await forge.branchHead(repo, VALIDATED_BRANCH), firstHead, 'force-pushed');
    assert.equal(await pushes(), 2);
    assert.equal(commitsOnBranch(), 1, 'still one commit on the base');
    assert.equal(show(VALIDATED_BRANCH, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${digestOf('d')}\n`);
    assert.match(
      show(VALIDATED_BRANCH, 'manifests/csv.yaml'),
      new RegExp(`b: ${imageOf('operand-b')}@${digestOf('b')}`),
    );
    assert.match(
      show(VALIDATED_BRANCH, 'config/params.env'),
      new RegExp(`C_IMAGE=${imageOf('operand-c')}@${digestOf('c')}`),
    );
  });

  it('opens a new pull request for the next pass once the last one was merged, and once it was closed', async () => {
    const { forge, repo, url, executor, show } = await setup('batch-merged');
    await executor.fireBatch(batchRequest(url, PASS_1));
    const merged = await forge.findPullRequestByHeadBranch(repo, VALIDATED_BRANCH);
    await forge.merge(repo, merged?.number ?? 0);

    const second = await executor.fireBatch(batchRequest(url, PASS_2));
    assert.equal(second.result.ok, true, detailOf(second));
    let pulls = await forge.listPullRequests(repo);
    assert.deepEqual(
      pulls.map((pull) => pull.state),
      ['merged', 'open'],
    );
    const reopened = pulls[1];
    assert.ok(reopened !== undefined);
    assert.equal(detailOf(second), reopened.url);
    assert.ok(
      reopened.body.includes(row('operand-a', digestOf('a'), digestOf('d'), 'operators-snap-2')),
      reopened.body,
    );
    assert.ok(!reopened.body.includes('operand-b'), 'a merged pull request carries nothing forward');
    assert.deepEqual(
      parseBatchStamp(reopened.body)?.images.map((image) => image.component),
      ['operand-a'],
    );
    assert.equal(show(VALIDATED_BRANCH, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${digestOf('d')}\n`);

    await forge.close(repo, reopened.number);
    const third = await executor.fireBatch(
      batchRequest(url, [
        {
          ...PASS_2[0],
          component: 'operand-b',
          digest: 'e',
          snapshot: 'operators-snap-3',
          previousDigest: digestOf('b'),
        },
      ] as typeof PASS_2),
    );
    assert.equal(third.result.ok, true, detailOf(third));
    pulls = await forge.listPullRequests(repo);
    assert.deepEqual(
      pulls.map((pull) => pull.state),
      ['merged', 'closed', 'open'],
    );
    assert.ok(pulls[2]?.body.includes(row('operand-b', digestOf('b'), digestOf('e'), 'operators-snap-3')));
    assert.ok(!pulls[2]?.body.includes('operand-a-on-push'), 'a closed pull request carries nothing forward');
  });

  it('does nothing twice for one batch, even when the answer to the create was lost', async () => {
    const { forge, repo, url, executor, pushes, dir } = await setup('batch-repeat', losingFirstCreate);
    const request = batchRequest(url, PASS_1);
    const lost = await executor.fireBatch(request);
    assert.deepEqual(lost.result.ok ? undefined : [lost.result.reason, lost.result.permanent], [
      'forge-unavailable',
      undefined,
    ]);
    const again = await executor.fireBatch({ ...request, attempt: 2 });
    assert.equal(again.result.ok, true, detailOf(again));
    const pull = await forge.findPullRequestByHeadBranch(repo, VALIDATED_BRANCH);
    const head = await forge.branchHead(repo, VALIDATED_BRANCH);
    // Even on a base that moved since, which would make another commit (and another build).
    foreignPush(dir, url, 'main', 'README.md', 'bundle, moved\n');
    const third = await executor.fireBatch({ ...request, attempt: 3 });
    assert.equal(detailOf(third), pull?.url, 'done: the pull request it already wrote');
    assert.equal((await forge.listPullRequests(repo)).length, 1, 'one pull request');
    assert.equal(await pushes(), 1, 'the commit is pushed once');
    assert.equal(await forge.branchHead(repo, VALIDATED_BRANCH), head);
    assert.deepEqual(await forge.findPullRequestByHeadBranch(repo, VALIDATED_BRANCH), pull, 'body untouched');
  });

  it('leaves a branch someone else pushed to alone until the rebase box is ticked', async () => {
    const { forge, repo, url, executor, dir, show, commitsOnBranch } = await setup('batch-human');
    const request = batchRequest(url, PASS_1);
    await executor.fireBatch(request);
    const human = foreignPush(dir, url, VALIDATED_BRANCH, 'Dockerfile', 'FROM scratch\n');

    for (const refusedRequest of [request, batchRequest(url, PASS_2)]) {
      const refused = await executor.fireBatch(refusedRequest);
      assert.ok(!refused.result.ok, 'the same batch is not "done" on a branch with someone else’s commit');
      assert.deepEqual([refused.result.reason, refused.result.permanent], ['branch-edited', true]);
      assert.match(refused.result.message, new RegExp(human.slice(0, 12)));
      assert.deepEqual(
        refused.notices?.map((notice) => notice.reason),
        ['NudgeBranchEditedByHuman'],
      );
    }
    assert.equal(await forge.branchHead(repo, VALIDATED_BRANCH), human, 'the human commit stays');
    const pull = await forge.findPullRequestByHeadBranch(repo, VALIDATED_BRANCH);
    assert.ok(pull !== undefined);
    assert.equal(parseBatchStamp(pull.body)?.key, request.key, 'the pull request is not touched either');

    await forge.updatePullRequest(repo, pull.number, { body: tickRebase(pull.body) });
    const rebased = await executor.fireBatch(batchRequest(url, PASS_2));
    assert.equal(rebased.result.ok, true, detailOf(rebased));
    assert.equal(commitsOnBranch(), 1, 'the human commit is dropped');
    assert.equal(show(VALIDATED_BRANCH, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${digestOf('d')}\n`);
    const now = await forge.getPullRequest(repo, pull.number);
    assert.match(now.body, /- \[ \] <!-- rebase-check -->/, 'the box is unticked again');
    assert.ok(now.body.includes(row('operand-b', OLD_DIGEST, digestOf('b'), 'operators-snap-1')), 'still carried');
  });

  it('opens nothing when no selected file references the images, or they are already pinned', async () => {
    const { forge, repo, url, executor } = await setup('batch-nothing');
    const request = batchRequest(url, PASS_1);
    const unreferenced = await executor.fireBatch({
      ...request,
      entries: request.entries.map((entry) => ({ ...entry, fileMatch: ['docs/.*\\.txt'] })),
    });
    assert.deepEqual(unreferenced.result, { ok: true, detail: 'no references' });
    const pinned = await executor.fireBatch(batchRequest(url, [{ ...PASS_1[0], digest: '0' }] as typeof PASS_1));
    assert.deepEqual(pinned.result, { ok: true, detail: 'up to date' });
    assert.equal(await forge.branchHead(repo, VALIDATED_BRANCH), undefined);
    assert.deepEqual(await forge.listPullRequests(repo), []);
  });

  it('lists a component already pinned beside those it updates', async () => {
    const { forge, repo, url, executor } = await setup('batch-partly');
    const outcome = await executor.fireBatch(
      batchRequest(url, [{ ...PASS_1[0], digest: '0', previousDigest: digestOf('9') }, PASS_1[1]] as typeof PASS_1),
    );
    assert.equal(outcome.result.ok, true, detailOf(outcome));
    const body = (await forge.findPullRequestByHeadBranch(repo, VALIDATED_BRANCH))?.body ?? '';
    assert.ok(body.includes(row('operand-a', digestOf('9'), OLD_DIGEST, 'operators-snap-1')), body);
    assert.ok(body.includes('\n\nAlready pinned, not changed by this PR: operand-a\n\n'), body);
  });

  it('fails permanently, naming the field, for a gating group that is not a Kubernetes name', async () => {
    const { forge, repo, url, executor } = await setup('batch-bad-group');
    const outcome = await executor.fireBatch({ ...batchRequest(url, PASS_1), gatingGroup: 'Bad Group' });
    assert.ok(!outcome.result.ok);
    assert.deepEqual([outcome.result.reason, outcome.result.permanent], ['invalid-input', true]);
    assert.match(outcome.result.message, /gatingGroup/);
    assert.deepEqual(await forge.listPullRequests(repo), []);
  });
});
