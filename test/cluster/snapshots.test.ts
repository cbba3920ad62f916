// The Snapshot cache keeps only what readSnapshot reads (src/cluster/snapshots.ts): the verdict is
// the same before and after slimming, and what integration-service adds for others is gone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCachedSnapshot } from '../../src/cluster/snapshots.ts';
import { readSnapshot } from '../../src/domain/nudge/validated-snapshot.ts';
import type { ClusterSnapshot } from '../../src/schema/snapshot.ts';

const IMAGE = `quay.io/org/op-a@sha256:${'a'.repeat(64)}`;

function snapshot(conditionStatus: 'True' | 'False'): Record<string, unknown> {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Snapshot',
    metadata: {
      name: 'operands-abc12',
      namespace: 'tenant',
      uid: 'u-1',
      resourceVersion: '42',
      labels: {
        'test.appstudio.openshift.io/type': 'component',
        'appstudio.openshift.io/component': 'op-a',
        'appstudio.openshift.io/component-group': 'operands',
      },
      annotations: {
        'test.appstudio.openshift.io/pipelinerunstarttime': '1764150000',
        'test.appstudio.openshift.io/integration-workflow': 'push',
        'test.appstudio.openshift.io/status': JSON.stringify([
          { scenario: 'e2e', status: 'TestPassed', details: 'x'.repeat(4000) },
        ]),
        'pac.test.appstudio.openshift.io/sha': 'abc',
      },
      managedFields: [{ manager: 'integration-service' }],
    },
    spec: {
      application: 'app',
      componentGroup: 'operands',
      components: [
        {
          name: 'op-a',
          containerImage: IMAGE,
          source: { git: { url: 'https://github.com/org/op-a', revision: 'abc' } },
        },
      ],
    },
    status: {
      conditions: [{ type: 'AppStudioTestSucceeded', status: conditionStatus, reason: 'Passed', message: 'ok' }],
    },
  };
}

function decoded(raw: Record<string, unknown>): ClusterSnapshot {
  const result = decodeCachedSnapshot(raw);
  assert.ok(result.ok);
  return result.object;
}

describe('the Snapshot cache', () => {
  it('reads the same verdict after slimming, for a pass and a failure', () => {
    for (const status of ['True', 'False'] as const) {
      const raw = snapshot(status);
      const full = readSnapshot(raw);
      assert.deepEqual(readSnapshot(decoded(raw)), full);
    }
    const passing = readSnapshot(decoded(snapshot('True')));
    assert.equal(passing.kind, 'passing');
  });

  it('drops what nudger never reads: sources, the test status annotation, managed fields', () => {
    const slim = decoded(snapshot('True'));
    assert.deepEqual(Object.keys(slim.metadata?.annotations ?? {}).sort(), [
      'test.appstudio.openshift.io/integration-workflow',
      'test.appstudio.openshift.io/pipelinerunstarttime',
    ]);
    assert.deepEqual(slim.spec?.components, [{ name: 'op-a', containerImage: IMAGE }]);
    assert.equal((slim.metadata as Record<string, unknown> | undefined)?.managedFields, undefined);
    assert.ok(JSON.stringify(slim).length < 1000);
  });
});
