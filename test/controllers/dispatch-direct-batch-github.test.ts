// The `direct` executor's validated batches against the GitHub emulator (docs/decisions.md D7, D10,
// N28): the GitHub provider the manager builds, real git over authenticated smart HTTP, and every
// REST and GraphQL request checked against GitHub's published descriptions. One repository lives
// through the batches of component group `operators`: a first pass with labels and auto-merge, a
// later pass updating the pull request in place, a repeat that does nothing, someone else's
// commit, and a merge after which the next pass opens a new pull request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BatchNudgeRequest, FireOutcome } from '../../src/controllers/dispatch/executor.ts';
import { parseBatchStamp } from '../../src/domain/nudge/validated-pull-request.ts';
import { foreignPush, git } from '../adapters/git/helpers.ts';
import { startGitHubDirectRig, stopGitHubDirectRig, type GitHubDirectRig } from './dispatch-direct-harness.ts';
import * as fixture from './dispatch-direct-batch-fixture.ts';
import { OLD_DIGEST, digestOf } from './dispatch-direct-fixture.ts';

const TOKEN = 'ghs_validatedBatchTokenThatMustNeverLeak0123';
const SETTINGS = { configMap: 'cm', labels: ['team-a'], automerge: true, platformAutomerge: true };

let rig: GitHubDirectRig;
before(async () => {
  rig = await startGitHubDirectRig(TOKEN, fixture.BATCH_FILES, 'batch-github');
});
after(() => stopGitHubDirectRig(rig, TOKEN));

function request(pass: readonly fixture.Validated[]): BatchNudgeRequest {
  return fixture.batchRequest(rig.url, pass, { settings: SETTINGS });
}

async function fire(batch: BatchNudgeRequest): Promise<FireOutcome> {
  const outcome = await rig.executor.fireBatch(batch);
  rig.outcomes.push(outcome);
  return outcome;
}

const pulls = () => rig.emulator.pullRequests('acme', 'bundle');
const gitDir = (): string => `${rig.emulator.projectRoot}/acme/bundle.git`;
const bare = (): string => `file://${gitDir()}`;
const commitsOnBranch = (): number =>
  Number(git(rig.dir, '--git-dir', gitDir(), 'rev-list', '--count', `main..${fixture.VALIDATED_BRANCH}`));
const pushes = (): number =>
  rig.emulator.requests.filter((r) => r.method === 'POST' && r.path.includes('git-receive-pack')).length;
const show = (path: string): string =>
  git(rig.dir, '--git-dir', gitDir(), 'show', `${fixture.VALIDATED_BRANCH}:${path}`);

describe('direct executor: validated batches on GitHub (emulated)', () => {
  it('opens one pull request for the pass, with its table, labels and auto-merge', async () => {
    const first = request(fixture.PASS_1);
    const outcome = await fire(first);
    assert.deepEqual(outcome.notices, []);
    assert.equal(outcome.result.ok && outcome.result.detail, `${rig.emulator.gitBaseUrl}/acme/bundle/pull/1`);
    const [pull, ...rest] = pulls();
    assert.ok(pull !== undefined && rest.length === 0);
    assert.deepEqual(
      [pull.headRef, pull.baseRef, pull.state, pull.draft],
      [fixture.VALIDATED_BRANCH, 'main', 'open', false],
    );
    assert.equal(pull.title, fixture.TITLE);
    assert.ok(pull.body?.includes(`| operand-b | \`${OLD_DIGEST}\` | \`${digestOf('b')}\` | \`operators-snap-1\` |`));
    assert.match(pull.body ?? '', /🚦 \*\*Automerge\*\*: Enabled\./);
    assert.equal(parseBatchStamp(pull.body ?? '')?.key, first.key);
    assert.deepEqual(pull.labels, ['konflux-nudge', 'team-a']);
    assert.deepEqual(pull.autoMerge, { method: 'REBASE', enabledBy: 'nudger-bot' });
    assert.equal(commitsOnBranch(), 1);
  });

  it('updates it in place on a later pass, and does nothing twice for one batch', async () => {
    const pushed = pushes();
    const second = request(fixture.PASS_2);
    assert.equal((await fire(second)).result.ok, true);
    const [pull, ...rest] = pulls();
    assert.ok(pull !== undefined && rest.length === 0, 'the same pull request');
    assert.equal(pull.number, 1);
    assert.ok(pull.body?.includes(`| operand-a | \`${OLD_DIGEST}\` | \`${digestOf('d')}\` | \`operators-snap-2\` |`));
    assert.ok(pull.body?.includes(`| operand-c | \`${OLD_DIGEST}\` | \`${digestOf('c')}\` | \`operators-snap-1\` |`));
    assert.equal(commitsOnBranch(), 1);
    assert.equal(pushes(), pushed + 1, 'force-pushed once');
    assert.equal(show('Dockerfile'), `FROM ${fixture.imageOf('operand-a')}@${digestOf('d')}\n`);

    const writes = rig.emulator.requests.length;
    const again = await fire({ ...second, attempt: 2 });
    assert.equal(again.result.ok && again.result.detail, `${rig.emulator.gitBaseUrl}/acme/bundle/pull/1`);
    assert.equal(pushes(), pushed + 1, 'no second push');
    const since = rig.emulator.requests.slice(writes).map((r) => `${r.method} ${r.operationId ?? ''}`);
    assert.ok(!since.includes('PATCH pulls/update') && !since.includes('POST pulls/create'), since.join(', '));
  });

  it('leaves a human commit alone, and opens a new pull request once the last was merged', async () => {
    const human = foreignPush(rig.dir, bare(), fixture.VALIDATED_BRANCH, 'NOTES.md', 'mine\n');
    const third: fixture.Validated = {
      component: 'operand-b',
      digest: 'e',
      snapshot: 'operators-snap-3',
      createdAt: '2026-01-03T08:00:00Z',
      previousDigest: digestOf('b'),
    };
    const refused = await fire(request([third]));
    assert.ok(!refused.result.ok);
    assert.deepEqual([refused.result.reason, refused.result.permanent], ['branch-edited', true]);
    assert.equal(await rig.emulator.branchHead('acme', 'bundle', fixture.VALIDATED_BRANCH), human);

    await rig.emulator.mergePullRequest('acme', 'bundle', 1);
    const after = await fire(request([third]));
    assert.equal(after.result.ok, true, JSON.stringify(after));
    assert.deepEqual(
      pulls().map((pull) => [pull.number, pull.state, pull.merged]),
      [
        [1, 'closed', true],
        [2, 'open', false],
      ],
    );
    const body = pulls()[1]?.body ?? '';
    assert.ok(body.includes(`| operand-b | \`${digestOf('b')}\` | \`${digestOf('e')}\` | \`operators-snap-3\` |`));
    assert.deepEqual(
      parseBatchStamp(body)?.images.map((image) => image.component),
      ['operand-b'],
    );
    assert.equal(commitsOnBranch(), 1);
  });
});
