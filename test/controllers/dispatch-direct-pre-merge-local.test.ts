// The `direct` executor's pre-merge nudges against the local forge with real git (docs/decisions.md
// D11, N34): one draft PR per (PR group, target) on `<group>@<target>`, its managed block listing
// every triggering PR; newer builds replace digests, more triggers pile in, merged-and-built
// triggers swap in their push digests and the PR leaves draft, a closed trigger's references go
// back to the base's, and with every trigger closed the PR is closed with a comment. Human text
// outside the block and human commits are respected; a repeat of the same key changes nothing.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { parsePreMergeStamp, PRE_MERGE_BLOCK_BEGIN } from '../../src/domain/nudge/pre-merge-pull-request.ts';
import { foreignPush, git, removeTempDirs } from '../adapters/git/helpers.ts';
import { BATCH_FILES, DISTRIBUTED_A, imageOf } from './dispatch-direct-batch-fixture.ts';
import { OLD_DIGEST, digestOf, tickRebase } from './dispatch-direct-fixture.ts';
import { detailOf, localDirectRig } from './dispatch-direct-harness.ts';
import * as f from './dispatch-direct-pre-merge-fixture.ts';

after(removeTempDirs);

async function setup(prefix: string) {
  const rig = await localDirectRig(prefix, BATCH_FILES, f.PRE_MERGE_BRANCH);
  const fire = (triggers: readonly f.Trigger[], attempt = 1) =>
    rig.executor.firePreMerge(f.preMergeRequest(rig.url, triggers, { settings: { labels: ['team-a'] }, attempt }));
  const pulls = () => rig.forge.listPullRequests(rig.repo);
  const only = async () => {
    const all = await pulls();
    assert.equal(all.length, 1, 'one pull request');
    const [pull] = all;
    assert.ok(pull !== undefined);
    return pull;
  };
  const csv = (): string => rig.show(f.PRE_MERGE_BRANCH, 'manifests/csv.yaml');
  return { ...rig, fire, pulls, only, csv };
}

const pinnedLine = (key: string, component: string, digest: string): string =>
  `  ${key}: ${imageOf(component)}@${digest}`;

describe('direct executor: pre-merge nudges on the local forge', () => {
  it('opens a draft with the block, replaces a newer build, piles a second trigger in, keeps human text, repeats nothing', async () => {
    const rig = await setup('pre-merge-first');
    const first = await rig.fire([f.A_OPEN]);
    assert.equal(first.result.ok, true, JSON.stringify(first));
    assert.deepEqual(first.notices, []);
    const pull = await rig.only();
    assert.equal(detailOf(first), pull.url);
    assert.deepEqual(
      [pull.headBranch, pull.baseBranch, pull.state, pull.draft, pull.title],
      [f.PRE_MERGE_BRANCH, 'main', 'open', true, f.TITLE],
    );
    assert.ok(pull.body.startsWith('Pre-merge nudge of PR group `feature-1234`.'), pull.body);
    assert.ok(pull.body.includes(`\n\n${PRE_MERGE_BLOCK_BEGIN}\n`));
    assert.ok(
      pull.body.includes(
        `| operand-a | [#12](${f.pullRequestUrl(f.A_OPEN)}) | open | \`${digestOf('a')}\` | pull-request build \`operand-a-on-pull-request-a\` |`,
      ),
      pull.body,
    );
    assert.ok(pull.body.includes('This PR stays a draft until every one of them is merged'));
    assert.ok(pull.body.includes('- [ ] <!-- rebase-check -->'), 'the rebase box is in the block');
    assert.equal(parsePreMergeStamp(pull.body), f.preMergeRequest(rig.url, [f.A_OPEN]).key);
    const extras = await rig.forge.pullRequestExtras(rig.repo, pull.number);
    assert.deepEqual(extras.labels, ['konflux-nudge', 'team-a']);
    assert.equal(extras.autoMerge, undefined);
    assert.equal(rig.csv().split('\n')[1], pinnedLine('a', 'operand-a', digestOf('a')));
    assert.equal(rig.csv().split('\n')[2], `  aRelated: ${DISTRIBUTED_A}:v1@${digestOf('a')}`);
    assert.equal(rig.csv().split('\n')[3], pinnedLine('b', 'operand-b', OLD_DIGEST));
    assert.equal(
      git(rig.dir, '--git-dir', rig.gitDir, 'log', '-1', '--format=%s|%aI', f.PRE_MERGE_BRANCH).trim(),
      `${f.TITLE}|2026-01-01T10:00:00+00:00`,
      'dated by the build',
    );

    // A human writes around the block; nudger rewrites only the block.
    const edited = `My notes for reviewers.\n\n${pull.body}\n\nTrailing words.`;
    await rig.forge.updatePullRequest(rig.repo, pull.number, { body: edited });
    assert.equal((await rig.fire([f.A_PUSHED])).result.ok, true);
    let now = await rig.only();
    assert.ok(now.body.startsWith('My notes for reviewers.\n\n'), now.body);
    assert.ok(now.body.endsWith('\n\nTrailing words.'), now.body);
    assert.equal(now.body.split('Pre-merge nudge of PR group').length, 2, 'the intro once, as the human kept it');
    assert.ok(now.body.includes(`| open | \`${digestOf('d')}\` |`));
    assert.ok(!now.body.includes(digestOf('a')));
    assert.equal(rig.show(f.PRE_MERGE_BRANCH, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${digestOf('d')}\n`);
    assert.equal(rig.commitsOnBranch(), 1);

    assert.equal((await rig.fire([f.A_PUSHED, f.B_OPEN])).result.ok, true);
    now = await rig.only();
    assert.equal(now.number, pull.number, 'the same pull request');
    assert.ok(now.body.includes(`| operand-b | [#7](${f.pullRequestUrl(f.B_OPEN)}) | open | \`${digestOf('b')}\` |`));
    assert.equal(rig.csv().split('\n')[3], pinnedLine('b', 'operand-b', digestOf('b')));
    assert.equal(rig.show(f.PRE_MERGE_BRANCH, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${digestOf('d')}\n`);
    assert.ok(now.body.startsWith('My notes for reviewers.') && now.body.endsWith('Trailing words.'));
    assert.equal(rig.commitsOnBranch(), 1);

    const pushes = await rig.pushes();
    const again = await rig.fire([f.A_PUSHED, f.B_OPEN], 2);
    assert.equal(detailOf(again), pull.url);
    assert.equal(await rig.pushes(), pushes, 'no second push');
    assert.equal((await rig.only()).body, now.body, 'nothing rewritten');
  });

  it('swaps in push digests as triggers merge and are built, and leaves draft when all are', async () => {
    const rig = await setup('pre-merge-merged');
    await rig.fire([f.A_OPEN, f.B_OPEN]);
    assert.equal((await rig.fire([f.A_MERGED, f.B_OPEN])).result.ok, true);
    let pull = await rig.only();
    assert.ok(pull.draft);
    assert.ok(pull.body.includes(`| operand-a | [#12](${f.pullRequestUrl(f.A_OPEN)}) | merged | \`${digestOf('d')}\``));

    await rig.fire([f.A_MERGED_BUILT, f.B_OPEN]);
    pull = await rig.only();
    assert.ok(pull.draft, 'operand-b is still open');
    assert.ok(pull.body.includes(`| merged | \`${digestOf('e')}\` | push build \`operand-a-on-push-e\` |`));
    assert.equal(rig.show(f.PRE_MERGE_BRANCH, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${digestOf('e')}\n`);

    const outcome = await rig.fire([f.A_MERGED_BUILT, f.B_MERGED_BUILT], 1);
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    pull = await rig.only();
    assert.equal(pull.draft, false, 'ready for review');
    assert.ok(pull.body.includes('ready for review'));
    assert.equal(rig.csv().split('\n')[3], pinnedLine('b', 'operand-b', digestOf('f')));
    assert.equal(
      git(rig.dir, '--git-dir', rig.gitDir, 'log', '-1', '--format=%aI', f.PRE_MERGE_BRANCH).trim(),
      '2026-01-01T12:30:00+00:00',
      'dated by the newest build',
    );

    // The nudge PR merged: the same content again opens nothing; new content opens a new one.
    await rig.forge.merge(rig.repo, pull.number);
    const closedB = { ...f.B_CLOSED };
    const same = await rig.fire([f.A_MERGED_BUILT, closedB]);
    assert.equal(detailOf(same), 'up to date');
    assert.equal((await rig.pulls()).length, 1);
    const more = await rig.fire([f.A_MERGED_BUILT, { component: 'operand-c', number: 3, state: 'open', digest: 'c' }]);
    assert.equal(more.result.ok, true, JSON.stringify(more));
    const all = await rig.pulls();
    assert.deepEqual(
      all.map((p) => [p.state, p.draft]),
      [
        ['merged', false],
        ['open', true],
      ],
    );
  });

  it('puts a closed trigger back at the base value, and closes the PR with the comment when none is left', async () => {
    const rig = await setup('pre-merge-closed');
    await rig.fire([f.A_OPEN, f.B_OPEN]);
    assert.equal(rig.csv().split('\n')[3], pinnedLine('b', 'operand-b', digestOf('b')));
    assert.equal((await rig.fire([f.A_OPEN, f.B_CLOSED])).result.ok, true);
    let pull = await rig.only();
    assert.equal(rig.csv().split('\n')[3], pinnedLine('b', 'operand-b', OLD_DIGEST), 'back at the base value');
    assert.equal(rig.csv().split('\n')[1], pinnedLine('a', 'operand-a', digestOf('a')));
    assert.ok(pull.body.includes(`| operand-b | [#7](${f.pullRequestUrl(f.B_OPEN)}) | closed | the base's |  |`));
    assert.ok(pull.draft);

    const pushes = await rig.pushes();
    const head = pull.headSha;
    const closing = await rig.fire([f.A_CLOSED, f.B_CLOSED]);
    assert.equal(closing.result.ok, true, JSON.stringify(closing));
    pull = await rig.only();
    assert.equal(pull.state, 'closed');
    assert.equal(pull.headSha, head, 'nothing pushed');
    assert.equal(await rig.pushes(), pushes);
    assert.deepEqual((await rig.forge.pullRequestExtras(rig.repo, pull.number)).comments, [f.CLOSE_COMMENT]);
    assert.ok(pull.body.includes(`| operand-a | [#12](${f.pullRequestUrl(f.A_OPEN)}) | closed | the base's |`));

    const again = await rig.fire([f.A_CLOSED, f.B_CLOSED], 2);
    assert.equal(again.result.ok, true);
    assert.deepEqual((await rig.forge.pullRequestExtras(rig.repo, pull.number)).comments, [f.CLOSE_COMMENT], 'once');
  });

  it('leaves a human commit alone until the rebase box is ticked', async () => {
    const rig = await setup('pre-merge-human');
    await rig.fire([f.A_OPEN]);
    const human = foreignPush(rig.dir, rig.url, f.PRE_MERGE_BRANCH, 'NOTES.md', 'mine\n');
    const refused = await rig.fire([f.A_PUSHED]);
    assert.ok(!refused.result.ok);
    assert.deepEqual([refused.result.reason, refused.result.permanent], ['branch-edited', true]);
    assert.equal(await rig.forge.branchHead(rig.repo, f.PRE_MERGE_BRANCH), human);

    const pull = await rig.only();
    await rig.forge.updatePullRequest(rig.repo, pull.number, { body: tickRebase(pull.body) });
    const rebuilt = await rig.fire([f.A_PUSHED]);
    assert.equal(rebuilt.result.ok, true, JSON.stringify(rebuilt));
    assert.equal(rig.commitsOnBranch(), 1, 'the human commit dropped');
    assert.ok((await rig.only()).body.includes('- [ ] <!-- rebase-check -->'), 'the box unticked again');
  });
});
