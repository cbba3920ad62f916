// The `direct` executor's pre-merge nudges against the GitHub emulator (docs/decisions.md D7, D11,
// N34): the GitHub provider the manager builds, real git over authenticated smart HTTP, and every
// REST and GraphQL request checked against GitHub's published descriptions. One repository lives
// through PR group `feature-1234`: a draft with labels and no auto-merge, a second trigger piling
// in, one closed, all closed (the PR closed with the comment through issues.createComment), then a
// merged-and-built group opening a new PR that is ready and asks for auto-merge, back to draft when
// an open trigger joins and ready again (GraphQL convertPullRequestToDraft, markPullRequestReadyForReview).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FireOutcome } from '../../src/controllers/dispatch/executor.ts';
import { parsePreMergeStamp } from '../../src/domain/nudge/pre-merge-pull-request.ts';
import { git } from '../adapters/git/helpers.ts';
import { BATCH_FILES, imageOf } from './dispatch-direct-batch-fixture.ts';
import { OLD_DIGEST, digestOf } from './dispatch-direct-fixture.ts';
import { startGitHubDirectRig, stopGitHubDirectRig, type GitHubDirectRig } from './dispatch-direct-harness.ts';
import * as f from './dispatch-direct-pre-merge-fixture.ts';

const TOKEN = 'ghs_preMergeTokenThatMustNeverLeak0123456789';
const SETTINGS = { configMap: 'cm', labels: ['team-a'], automerge: true, platformAutomerge: true };

let rig: GitHubDirectRig;
before(async () => {
  rig = await startGitHubDirectRig(TOKEN, BATCH_FILES, 'pre-merge-github');
});
after(() => stopGitHubDirectRig(rig, TOKEN));

async function fire(triggers: readonly f.Trigger[]): Promise<FireOutcome> {
  const outcome = await rig.executor.firePreMerge(f.preMergeRequest(rig.url, triggers, { settings: SETTINGS }));
  rig.outcomes.push(outcome);
  return outcome;
}

const pulls = () => rig.emulator.pullRequests('acme', 'bundle');
const gitDir = (): string => `${rig.emulator.projectRoot}/acme/bundle.git`;
const csvLine = (n: number): string =>
  git(rig.dir, '--git-dir', gitDir(), 'show', `${f.PRE_MERGE_BRANCH}:manifests/csv.yaml`).split('\n')[n] ?? '';

describe('direct executor: pre-merge nudges on GitHub (emulated)', () => {
  it('opens a draft with its block and labels, and no auto-merge while a draft', async () => {
    const outcome = await fire([f.A_OPEN]);
    assert.deepEqual(outcome.notices, []);
    assert.equal(outcome.result.ok && outcome.result.detail, `${rig.emulator.gitBaseUrl}/acme/bundle/pull/1`);
    const [pull, ...rest] = pulls();
    assert.ok(pull !== undefined && rest.length === 0);
    assert.deepEqual(
      [pull.headRef, pull.baseRef, pull.state, pull.draft, pull.title],
      [f.PRE_MERGE_BRANCH, 'main', 'open', true, f.TITLE],
    );
    assert.ok(pull.body?.includes(`| operand-a | [#12](${f.pullRequestUrl(f.A_OPEN)}) | open | \`${digestOf('a')}\``));
    assert.deepEqual(pull.labels, ['konflux-nudge', 'team-a']);
    assert.equal(pull.autoMerge, null);
  });

  it('piles a second trigger in, and puts a closed one back at the base value', async () => {
    assert.equal((await fire([f.A_OPEN, f.B_OPEN])).result.ok, true);
    assert.equal(csvLine(3), `  b: ${imageOf('operand-b')}@${digestOf('b')}`);
    assert.equal((await fire([f.A_OPEN, f.B_CLOSED])).result.ok, true);
    const [pull, ...rest] = pulls();
    assert.ok(pull !== undefined && rest.length === 0, 'the same pull request');
    assert.equal(csvLine(3), `  b: ${imageOf('operand-b')}@${OLD_DIGEST}`);
    assert.equal(csvLine(1), `  a: ${imageOf('operand-a')}@${digestOf('a')}`);
  });

  it('closes the PR with the comment once every trigger is closed', async () => {
    const outcome = await fire([f.A_CLOSED, f.B_CLOSED]);
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    const [pull] = pulls();
    assert.deepEqual([pull?.state, pull?.merged, pull?.comments], ['closed', false, [f.CLOSE_COMMENT]]);
    const since = rig.emulator.requests.length;
    assert.equal((await fire([f.A_CLOSED, f.B_CLOSED])).result.ok, true);
    const writes = rig.emulator.requests
      .slice(since)
      .filter((r) => r.method !== 'GET' && !r.path.includes('git-upload-pack'));
    assert.deepEqual(
      writes.map((r) => r.operationId),
      [],
      'a repeat writes nothing',
    );
  });

  it('opens a new PR for a merged and built group, ready for review with auto-merge', async () => {
    const outcome = await fire([f.A_MERGED_BUILT, f.B_MERGED_BUILT]);
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    const pull = pulls()[1];
    assert.ok(pull !== undefined);
    assert.deepEqual([pull.number, pull.state, pull.draft], [2, 'open', false]);
    assert.match(pull.body ?? '', /🚦 \*\*Automerge\*\*: Enabled\./);
    assert.equal(
      parsePreMergeStamp(pull.body ?? ''),
      f.preMergeRequest(rig.url, [f.A_MERGED_BUILT, f.B_MERGED_BUILT]).key,
    );
    assert.deepEqual(pull.autoMerge, { method: 'REBASE', enabledBy: 'nudger-bot' });
    assert.equal(csvLine(3), `  b: ${imageOf('operand-b')}@${digestOf('f')}`);
  });

  it('turns it back into a draft when an open trigger joins, and ready again once it is merged and built', async () => {
    const c: f.Trigger = { component: 'operand-c', number: 3, state: 'open', digest: 'c' };
    assert.equal((await fire([f.A_MERGED_BUILT, f.B_MERGED_BUILT, c])).result.ok, true);
    assert.deepEqual(
      pulls().map((pull) => [pull.number, pull.state, pull.draft]),
      [
        [1, 'closed', true],
        [2, 'open', true],
      ],
    );
    const built: f.Trigger = { ...c, state: 'merged', digest: '9', event: 'push', createdAt: '2026-01-01T13:00:00Z' };
    assert.equal((await fire([f.A_MERGED_BUILT, f.B_MERGED_BUILT, built])).result.ok, true);
    assert.equal(pulls()[1]?.draft, false);
  });
});
