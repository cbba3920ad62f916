import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  reconcileChangeGroup,
  recordDescriptionUpdate,
  recordForgeAvailability,
  recordPullRequestPush,
  recordReadyForReview,
  type ChangeGroupIntent,
  type ChangeGroupReconcileInput,
  type EnsurePullRequestIntent,
} from '../../../src/domain/changegroup/state.ts';
import type { ChangeGroupStatus } from '../../../src/schema/changegroup.ts';
import { DIGEST } from './fixtures.ts';
import { at, build, input, iso, OPEN } from './state-fixtures.ts';

const PUSH_RESULT = {
  number: 7,
  url: 'https://github.com/org/bundle/pull/7',
  headBranch: 'konflux/change-groups/bundle-x-update',
  baseBranch: 'main',
  baseCommit: 'c'.repeat(40),
  commit: 'd'.repeat(40),
  draft: true,
};

function kinds(intents: readonly ChangeGroupIntent[]): string[] {
  return intents.map((i) => i.kind);
}

function ensureOf(intents: readonly ChangeGroupIntent[]): EnsurePullRequestIntent {
  const intent = intents.find((i): i is EnsurePullRequestIntent => i.kind === 'ensurePullRequest');
  assert.ok(intent !== undefined, `no ensurePullRequest in ${kinds(intents).join(', ')}`);
  return intent;
}

function condition(status: ChangeGroupStatus, type: string) {
  return status.conditions?.find((c) => c.type === type);
}

/** Reconciles, then records a successful push of whatever was asked. */
function reconcileAndPush(i: ChangeGroupReconcileInput): ChangeGroupStatus {
  const { status, intents } = reconcileChangeGroup(i);
  const ensure = intents.find((x): x is EnsurePullRequestIntent => x.kind === 'ensurePullRequest');
  return ensure === undefined ? status : recordPullRequestPush(status, ensure, { ...PUSH_RESULT, draft: ensure.draft });
}

describe('reconcileChangeGroup', () => {
  it('initializes: every listed component Waiting with its original build, start time, 0/3', () => {
    const { status, intents } = reconcileChangeGroup(input());
    assert.equal(status.phase, 'Initialized');
    assert.equal(status.startTime, '2025-01-15T10:00:00Z');
    assert.equal(status.summary, '0/3');
    assert.deepEqual(status.components, [
      { name: 'operand-a', state: 'Waiting', originalBuild: DIGEST('0') },
      { name: 'operand-b', state: 'Waiting', originalBuild: DIGEST('0') },
      { name: 'operator', state: 'Waiting' },
    ]);
    const ready = condition(status, 'AllComponentsReady');
    assert.equal(ready?.reason, 'WaitingForComponents');
    assert.equal(ready.message, 'Waiting for 3 components: operand-a, operand-b, operator');
    assert.deepEqual(intents, []);
  });

  it('fills an empty nudgingComponents from the graph, without the target itself', () => {
    const { status, intents } = reconcileChangeGroup(
      input({ spec: { nudgingComponents: [] }, graphNudgingComponents: ['z', 'bundle-x', 'a', 'z'] }),
    );
    assert.deepEqual(intents, [{ kind: 'fillNudgingComponents', names: ['a', 'z'] }]);
    assert.deepEqual(
      status.components?.map((c) => c.name),
      ['a', 'z'],
    );
  });

  it('opens a draft PR with [skip ci] on the first ready component, then Waiting', () => {
    const { status, intents } = reconcileChangeGroup(input({ builds: [build('operand-a', '1', 1)] }));
    assert.equal(status.phase, 'Waiting');
    assert.equal(status.summary, '1/3');
    const a = status.components?.[0];
    assert.equal(a?.state, 'Ready');
    assert.equal(a.newBuild, DIGEST('1'));
    assert.equal(a.buildPipelineRun, 'operand-a-on-push-1');
    assert.equal(a.newBuildTime, iso(1));
    const ensure = ensureOf(intents);
    assert.deepEqual(ensure.builds, [
      { name: 'operand-a', digest: DIGEST('1'), pullSpec: `quay.io/org/operand-a@${DIGEST('1')}` },
    ]);
    assert.equal(ensure.final, false);
    assert.equal(ensure.draft, true);
    assert.equal(ensure.skipCi, 'commitMessage');
  });

  it('keeps the newest build: a newer one replaces, an older one arriving late never overwrites', () => {
    const first = reconcileAndPush(input({ builds: [build('operand-a', '2', 5)] }));
    const late = reconcileChangeGroup(
      input({ status: first, builds: [build('operand-a', '1', 1)], pullRequest: OPEN }),
    );
    assert.equal(late.status.components?.[0]?.newBuild, DIGEST('2'));
    assert.deepEqual(kinds(late.intents), []);
    const newer = reconcileChangeGroup(
      input({ status: first, builds: [build('operand-a', '3', 9)], pullRequest: OPEN }),
    );
    assert.equal(newer.status.components?.[0]?.newBuild, DIGEST('3'));
    assert.deepEqual(
      ensureOf(newer.intents).builds.map((b) => b.digest),
      [DIGEST('3')],
    );
  });

  it('goes Ready when all are ready: marks ready for review first, then the final push', () => {
    let status = reconcileAndPush(input({ builds: [build('operand-a', '1', 1), build('operand-b', '1', 2)] }));
    const { status: ready, intents } = reconcileChangeGroup(
      input({ status, now: at(30), builds: [build('operator', '1', 3)], pullRequest: OPEN }),
    );
    assert.equal(ready.phase, 'Ready');
    assert.equal(ready.readyTime, iso(30));
    assert.equal(condition(ready, 'AllComponentsReady')?.status, 'True');
    assert.deepEqual(kinds(intents), ['markReadyForReview', 'ensurePullRequest']);
    const ensure = ensureOf(intents);
    assert.equal(ensure.final, true);
    assert.equal(ensure.builds.length, 3);
    status = recordPullRequestPush(recordReadyForReview(ready), ensure, { ...PUSH_RESULT, draft: false });
    const after = reconcileChangeGroup(
      input({ status, now: at(31), builds: [build('operator', '1', 3)], pullRequest: { ...OPEN, draft: false } }),
    );
    assert.deepEqual(after.intents, []);
    assert.deepEqual(after.status, status);
  });

  it('a collected build no file references is NotReferenced, not Ready; it waits for nothing and is not pushed again', () => {
    const first = reconcileChangeGroup(input({ builds: [build('operand-a', '1', 1), build('operand-b', '2', 2)] }));
    const ensure = ensureOf(first.intents);
    let status = recordPullRequestPush(first.status, ensure, { ...PUSH_RESULT, unreferenced: ['operand-b'] });
    assert.deepEqual(
      status.components?.map((c) => [c.name, c.state]),
      [
        ['operand-a', 'Ready'],
        ['operand-b', 'NotReferenced'],
        ['operator', 'Waiting'],
      ],
    );
    const waiting = reconcileChangeGroup(input({ status, now: at(5), pullRequest: OPEN }));
    assert.equal(waiting.status.phase, 'Waiting');
    assert.equal(condition(waiting.status, 'AllComponentsReady')?.message, 'Waiting for 1 component: operator');
    assert.deepEqual(kinds(waiting.intents), ['updateDescription'], 'no push: the same builds are on the branch');

    const last = reconcileChangeGroup(
      input({ status, now: at(6), builds: [build('operator', '3', 6)], pullRequest: OPEN }),
    );
    assert.equal(last.status.phase, 'Ready', 'a NotReferenced component is not waited for');
    const ready = condition(last.status, 'AllComponentsReady');
    assert.deepEqual([ready?.status, ready?.reason], ['True', 'ComponentsNotReferenced']);
    assert.match(ready?.message ?? '', /references no digest of operand-b$/);
    assert.equal(last.status.summary, '2/3', 'the summary counts only what the PR changes');
    const final = ensureOf(last.intents);
    assert.deepEqual(
      final.builds.map((b) => b.name),
      ['operand-a', 'operand-b', 'operator'],
      'its digest stays in the pushed set, so the PR does not flap',
    );
    status = recordPullRequestPush(last.status, final, { ...PUSH_RESULT, unreferenced: [] });
    assert.equal(
      status.components?.find((c) => c.name === 'operand-b')?.state,
      'Ready',
      'referenced once a file has it',
    );
  });

  it('records ForgeAvailable apart from the state machine, keeping the other conditions', () => {
    const { status } = reconcileChangeGroup(input());
    const down = recordForgeAvailability(
      status,
      {
        ok: false,
        host: 'github.example',
        reason: 'ForgeUnreachable',
        message: 'connection refused to github.example:443',
      },
      at(1),
      1,
    );
    const forge = condition(down, 'ForgeAvailable');
    assert.deepEqual(
      [forge?.status, forge?.reason, forge?.message, forge?.lastTransitionTime],
      ['False', 'ForgeUnreachable', 'github.example: connection refused to github.example:443', iso(1)],
    );
    assert.deepEqual(condition(down, 'AllComponentsReady'), condition(status, 'AllComponentsReady'));
    const up = recordForgeAvailability(down, { ok: true, host: 'github.example' }, at(2), 1);
    assert.deepEqual(
      [condition(up, 'ForgeAvailable')?.status, condition(up, 'ForgeAvailable')?.lastTransitionTime],
      ['True', iso(2)],
    );
  });

  it('honours removing a nudging component at once: gone from status and from the PR', () => {
    const status = reconcileAndPush(input({ builds: [build('operand-a', '1', 1), build('operand-b', '1', 2)] }));
    const { status: next, intents } = reconcileChangeGroup(
      input({
        status,
        spec: { nudgingComponents: [{ name: 'operand-a' }, { name: 'operand-b' }] },
        builds: [build('operand-a', '1', 1), build('operand-b', '1', 2)],
        pullRequest: OPEN,
      }),
    );
    assert.deepEqual(
      next.components?.map((c) => c.name),
      ['operand-a', 'operand-b'],
    );
    assert.equal(next.phase, 'Ready');
    assert.equal(ensureOf(intents).final, true);
    const dropped = reconcileChangeGroup(
      input({ status, spec: { nudgingComponents: [{ name: 'operand-b' }, { name: 'operator' }] }, pullRequest: OPEN }),
    );
    assert.deepEqual(
      ensureOf(dropped.intents).builds.map((b) => b.name),
      ['operand-b'],
    );
  });

  it('re-dispatches held nudges it cannot use: removed components, builds after Ready', () => {
    const removed = reconcileChangeGroup(
      input({ spec: { nudgingComponents: [{ name: 'operand-b' }] }, builds: [build('operand-a', '1', 1)] }),
    );
    assert.deepEqual(
      removed.intents.filter((i) => i.kind === 'redispatchNudge'),
      [{ kind: 'redispatchNudge', component: 'operand-a', pipelineRun: 'operand-a-on-push-1' }],
    );
    const all = [build('operand-a', '1', 1), build('operand-b', '1', 2), build('operator', '1', 3)];
    const ready = reconcileAndPush(input({ builds: all }));
    assert.equal(ready.phase, 'Ready');
    const late = reconcileChangeGroup(
      input({ status: ready, builds: [...all, build('operand-a', '2', 9)], pullRequest: OPEN }),
    );
    assert.equal(late.status.components?.[0]?.newBuild, DIGEST('1'));
    assert.deepEqual(late.intents, [
      { kind: 'redispatchNudge', component: 'operand-a', pipelineRun: 'operand-a-on-push-2' },
    ]);
  });

  it('build now: Ready with the components ready so far', () => {
    const status = reconcileAndPush(input({ builds: [build('operand-a', '1', 1)] }));
    const { status: next, intents } = reconcileChangeGroup(
      input({
        status,
        now: at(10),
        builds: [build('operand-a', '1', 1)],
        pullRequest: { ...OPEN, buildNowRequested: true },
      }),
    );
    assert.equal(next.phase, 'Ready');
    const ready = condition(next, 'AllComponentsReady');
    assert.equal(ready?.reason, 'BuildRequestedEarly');
    assert.match(ready.message, /1 of 3 components ready; not included: operand-b, operator/);
    assert.deepEqual(kinds(intents), ['markReadyForReview', 'ensurePullRequest']);
    assert.equal(ensureOf(intents).final, true);
  });

  it('manual changes stop pushes (condition True) but keep the table current; rebase resumes', () => {
    const status = reconcileAndPush(input({ builds: [build('operand-a', '1', 1)] }));
    const manual = { ...OPEN, manualChanges: true };
    const blocked = reconcileChangeGroup(
      input({ status, builds: [build('operand-a', '1', 1), build('operand-b', '1', 2)], pullRequest: manual }),
    );
    assert.equal(condition(blocked.status, 'ManualChangesDetected')?.status, 'True');
    assert.deepEqual(kinds(blocked.intents), ['updateDescription']);
    const described = recordDescriptionUpdate(
      blocked.status,
      (blocked.intents[0] as { descriptionFingerprint: string }).descriptionFingerprint,
    );
    const again = reconcileChangeGroup(
      input({
        status: described,
        builds: [build('operand-a', '1', 1), build('operand-b', '1', 2)],
        pullRequest: manual,
      }),
    );
    assert.deepEqual(again.intents, []);
    const rebase = reconcileChangeGroup(
      input({
        status: described,
        builds: [build('operand-a', '1', 1), build('operand-b', '1', 2)],
        pullRequest: { ...manual, rebaseRequested: true },
      }),
    );
    assert.equal(condition(rebase.status, 'ManualChangesDetected')?.status, 'False');
    const ensure = ensureOf(rebase.intents);
    assert.equal(ensure.discardManualChanges, true);
    assert.equal(ensure.builds.length, 2);
  });

  it('PR merged: Completed; closed unmerged: Cancelled; both with completionTime and no intents', () => {
    const status = reconcileAndPush(input({ builds: [build('operand-a', '1', 1)] }));
    for (const [state, phase] of [
      ['merged', 'Completed'],
      ['closed', 'Cancelled'],
    ] as const) {
      const { status: next, intents } = reconcileChangeGroup(input({ status, now: at(60), pullRequest: { state } }));
      assert.equal(next.phase, phase);
      assert.equal(next.completionTime, iso(60));
      assert.deepEqual(intents, []);
    }
  });

  it('a closed PR that was never recorded does not end the ChangeGroup', () => {
    const { status } = reconcileChangeGroup(input({ pullRequest: { state: 'closed' } }));
    assert.equal(status.phase, 'Initialized');
  });

  it('times out while waiting: Failed, the PR description says so, no more pushes', () => {
    const status = reconcileAndPush(input({ spec: { timeout: '1h' }, builds: [build('operand-a', '1', 1)] }));
    const before = reconcileChangeGroup(input({ status, spec: { timeout: '1h' }, now: at(59), pullRequest: OPEN }));
    assert.equal(before.status.phase, 'Waiting');
    const { status: failed, intents } = reconcileChangeGroup(
      input({ status, spec: { timeout: '1h' }, now: at(60), builds: [build('operand-b', '1', 2)], pullRequest: OPEN }),
    );
    assert.equal(failed.phase, 'Failed');
    assert.equal(failed.completionTime, iso(60));
    assert.equal(condition(failed, 'AllComponentsReady')?.reason, 'TimedOut');
    // The build that arrived with the timeout never reaches the PR, so its nudge is handed back.
    assert.deepEqual(kinds(intents), ['updateDescription', 'redispatchNudge']);
    assert.equal(failed.components?.find((c) => c.name === 'operand-b')?.state, 'Waiting');
  });

  it('reports unverifiable builds in BuildsVerified', () => {
    const { status } = reconcileChangeGroup(
      input({
        rejectedBuilds: [
          { component: 'operand-a', pipelineRun: 'renovate-1', reason: 'namespace-mismatch', message: 'x' },
        ],
      }),
    );
    const verified = condition(status, 'BuildsVerified');
    assert.equal(verified?.status, 'False');
    assert.equal(verified.reason, 'UnverifiedBuild');
    assert.equal(verified.message, 'renovate-1 (operand-a): namespace-mismatch');
  });

  it('keeps lastTransitionTime while a condition keeps its status', () => {
    const first = reconcileChangeGroup(input()).status;
    const later = reconcileChangeGroup(
      input({ status: first, now: at(5), builds: [build('operand-a', '1', 1)] }),
    ).status;
    assert.equal(condition(later, 'AllComponentsReady')?.lastTransitionTime, iso(0));
    assert.equal(condition(later, 'AllComponentsReady')?.message, 'Waiting for 2 components: operand-b, operator');
  });
});
