// D10's predicate on a Snapshot (src/domain/nudge/validated-snapshot.ts): which Snapshots may
// validate a digest, and the order between them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isNewerSnapshot,
  readSnapshot,
  type PassingSnapshot,
  type SnapshotReading,
} from '../../../src/domain/nudge/validated-snapshot.ts';
import { GROUP, OPERANDS, clusterSnapshot, image } from './validated-fixtures.ts';

function passingOf(reading: SnapshotReading): PassingSnapshot {
  if (reading.kind !== 'passing') assert.fail(`expected passing, got ${reading.reason}`);
  return reading.snapshot;
}

function ignoredBecause(reading: SnapshotReading): string {
  if (reading.kind !== 'ignored') assert.fail(`expected ignored, got ${reading.snapshot.name} passing`);
  return reading.reason;
}

const PASSED = { type: 'AppStudioTestSucceeded', status: 'True', reason: 'Passed' };

describe('readSnapshot (docs/decisions.md D10)', () => {
  it('a passing component push Snapshot of a group: name, group, start time, images, build', () => {
    const snapshot = passingOf(readSnapshot(clusterSnapshot({ startTime: '1736937000' })));
    assert.equal(snapshot.name, 'operands-20250115-abcde');
    assert.equal(snapshot.group, GROUP);
    assert.equal(snapshot.startTime, 1736937000);
    assert.equal(snapshot.component, 'operand-a');
    assert.equal(snapshot.buildPipelineRun, 'operand-a-on-push-x7k2p');
    assert.deepEqual(
      [...snapshot.images],
      OPERANDS.map((name, i) => [name, image(name, i + 1)]),
    );
  });

  it('an explicit push workflow annotation is a push Snapshot', () => {
    assert.equal(readSnapshot(clusterSnapshot({ workflow: 'push' })).kind, 'passing');
  });

  it('takes the group from the label when spec.componentGroup is absent (older integration-service)', () => {
    const snapshot = passingOf(readSnapshot(clusterSnapshot({ group: null, groupLabel: 'from-label' })));
    assert.equal(snapshot.group, 'from-label');
  });

  it('prefers spec.componentGroup over the label', () => {
    const snapshot = passingOf(readSnapshot(clusterSnapshot({ group: GROUP, groupLabel: 'from-label' })));
    assert.equal(snapshot.group, GROUP);
  });

  it('no group at all, or an empty one: no-group', () => {
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ group: null }))), 'no-group');
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ group: '' }))), 'no-group');
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ group: null, groupLabel: '' }))), 'no-group');
  });

  it('failed tests (False): failed', () => {
    const conditions = [{ type: 'AppStudioTestSucceeded', status: 'False', reason: 'Failed' }];
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ conditions }))), 'failed');
  });

  it('not finished: no test condition, or Unknown', () => {
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ conditions: [] }))), 'not-finished');
    const unknown = [{ type: 'AppStudioTestSucceeded', status: 'Unknown', reason: 'InProgress' }];
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ conditions: unknown }))), 'not-finished');
    const noStatus = { ...clusterSnapshot() };
    delete noStatus.status;
    assert.equal(ignoredBecause(readSnapshot(noStatus)), 'not-finished');
  });

  it('legacy HACBSStudioTestSucceeded counts when the current condition is absent', () => {
    const legacyTrue = [{ type: 'HACBSStudioTestSucceeded', status: 'True' }];
    assert.equal(readSnapshot(clusterSnapshot({ conditions: legacyTrue })).kind, 'passing');
    const legacyFalse = [{ type: 'HACBSStudioTestSucceeded', status: 'False' }];
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ conditions: legacyFalse }))), 'failed');
  });

  it('the current condition wins over the legacy one, whichever order they come in', () => {
    const conditions = [
      { type: 'HACBSStudioTestSucceeded', status: 'True' },
      { type: 'AppStudioTestSucceeded', status: 'False' },
    ];
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ conditions }))), 'failed');
    const reversed = [
      { type: 'HACBSStudioTestSucceeded', status: 'False' },
      { type: 'AppStudioTestSucceeded', status: 'True' },
    ];
    assert.equal(readSnapshot(clusterSnapshot({ conditions: reversed })).kind, 'passing');
  });

  for (const reason of ['Canceled', 'Invalid']) {
    it(`AppStudioIntegrationStatus ${reason} voids a Snapshot whose tests passed`, () => {
      const conditions = [PASSED, { type: 'AppStudioIntegrationStatus', status: 'False', reason }];
      assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ conditions }))), 'voided');
    });
  }

  it('other AppStudioIntegrationStatus reasons do not void it', () => {
    const conditions = [PASSED, { type: 'AppStudioIntegrationStatus', status: 'True', reason: 'Finished' }];
    assert.equal(readSnapshot(clusterSnapshot({ conditions })).kind, 'passing');
  });

  it('a pull-request Snapshot (integration-workflow annotation) is ignored', () => {
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ workflow: 'pull-request' }))), 'pull-request');
  });

  it('a pull-request label without the workflow annotation is a pull-request Snapshot', () => {
    const labels = { 'pac.test.appstudio.openshift.io/pull-request': '42' };
    assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ labels }))), 'pull-request');
  });

  it('a pull_request / Merge_Request event type without the annotation is a pull-request Snapshot', () => {
    for (const eventType of ['pull_request', 'Merge_Request']) {
      const labels = { 'pac.test.appstudio.openshift.io/event-type': eventType };
      assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ labels }))), 'pull-request', eventType);
    }
    const push = { 'pac.test.appstudio.openshift.io/event-type': 'push' };
    assert.equal(readSnapshot(clusterSnapshot({ labels: push })).kind, 'passing');
  });

  it('the workflow annotation decides over the labels', () => {
    const labels = { 'pac.test.appstudio.openshift.io/pull-request': '42' };
    assert.equal(readSnapshot(clusterSnapshot({ labels, workflow: 'push' })).kind, 'passing');
  });

  it('override and group Snapshots, or no type: not a component Snapshot', () => {
    for (const type of ['override', 'group', null]) {
      assert.equal(ignoredBecause(readSnapshot(clusterSnapshot({ type }))), 'not-a-component-snapshot', String(type));
    }
  });

  it('no start time, or one that is not a whole number: no-start-time', () => {
    for (const startTime of [null, '', '1736937000.5', '-1736937000', '1e9', 'yesterday', ' 1736937000']) {
      assert.equal(
        ignoredBecause(readSnapshot(clusterSnapshot({ startTime }))),
        'no-start-time',
        JSON.stringify(startTime),
      );
    }
  });

  it('a failed pull-request Snapshot is ignored as a pull request before anything else', () => {
    const conditions = [{ type: 'AppStudioTestSucceeded', status: 'False' }];
    assert.equal(
      ignoredBecause(readSnapshot(clusterSnapshot({ workflow: 'pull-request', conditions }))),
      'pull-request',
    );
  });

  it('skips images not pinned by digest, and keeps the first of a duplicated name', () => {
    const components = [
      { name: 'operand-a', containerImage: 'quay.io/org/operand-a:latest' },
      { name: 'operand-b', containerImage: 'quay.io/org/operand-b@sha256:abc' },
      { name: 'operand-c', containerImage: `quay.io/org/operand-c:v1@sha256:${'A'.repeat(64)}` },
      { name: 'operand-d', containerImage: image('operand-d', 4) },
      { name: 'operand-d', containerImage: image('operand-d', 9) },
      { name: 'operand-e', containerImage: `${image('operand-e', 5)} ` },
    ];
    const snapshot = passingOf(readSnapshot(clusterSnapshot({ components })));
    assert.deepEqual([...snapshot.images], [['operand-d', image('operand-d', 4)]]);
  });

  it('a Snapshot without components passes with no images', () => {
    const raw = clusterSnapshot();
    const { components: _components, ...spec } = raw.spec ?? {};
    const snapshot = passingOf(readSnapshot({ ...raw, spec }));
    assert.equal(snapshot.images.size, 0);
  });
});

describe('isNewerSnapshot', () => {
  it('orders by start time, then by name, one way', () => {
    const a = { name: 'a', startTime: 100 };
    const b = { name: 'b', startTime: 99 };
    assert.equal(isNewerSnapshot(a, b), true);
    assert.equal(isNewerSnapshot(b, a), false);
    const c = { name: 'c', startTime: 100 };
    assert.equal(isNewerSnapshot(c, a), true);
    assert.equal(isNewerSnapshot(a, c), false);
    assert.equal(isNewerSnapshot(a, a), false, 'not newer than itself');
  });
});
