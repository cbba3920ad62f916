import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  escapeJsonPointerToken,
  HELD_BY_ANNOTATION,
  HOLD_REASON_ANNOTATION,
  type ChangeGroupView,
} from '../../src/domain/changegroup/hold-decision.ts';
import type { AdmissionRequest } from '../../src/webhooks/admission.ts';
import { pipelineRunHoldMutator } from '../../src/webhooks/pipelinerun.ts';

const NS = 'tenant';
const signal = new AbortController().signal;
const holder: ChangeGroupView = {
  name: 'bundle-update',
  namespace: NS,
  nudgedComponent: 'bundle',
  nudgingComponents: ['a'],
};

const nudgeRun = (from: string, to: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'tekton.dev/v1',
  kind: 'PipelineRun',
  metadata: {
    generateName: 'nudge-',
    labels: { 'build.appstudio.redhat.com/type': 'nudge' },
    annotations: {
      'build.appstudio.redhat.com/nudging-component': from,
      'build.appstudio.redhat.com/nudged-components': to,
    },
  },
  spec: { pipelineRef: { name: 'x' }, ...extra },
});

const request = (object: unknown, operation: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionRequest => ({
  uid: 'u1',
  kind: { group: 'tekton.dev', version: 'v1', kind: 'PipelineRun' },
  resource: { group: 'tekton.dev', version: 'v1', resource: 'pipelineruns' },
  namespace: NS,
  operation,
  userInfo: {},
  object,
});

async function decide(object: unknown, changeGroups: ChangeGroupView[], operation?: 'CREATE' | 'UPDATE') {
  const handler = pipelineRunHoldMutator({ inNamespace: (ns) => changeGroups.filter((cg) => cg.namespace === ns) });
  return await handler(request(object, operation), signal);
}

describe('pipelineRunHoldMutator', () => {
  it('cancels a nudge from a listed component, annotating the ChangeGroup', async () => {
    const decision = await decide(nudgeRun('a', 'bundle'), [holder]);
    assert.ok(decision.allowed);
    assert.deepEqual(decision.patch?.[0], { op: 'add', path: '/spec/status', value: 'Cancelled' });
    const valueAt = (key: string): unknown => {
      const op = decision.patch?.find((o) => o.path === `/metadata/annotations/${escapeJsonPointerToken(key)}`);
      return op !== undefined && 'value' in op ? op.value : undefined;
    };
    assert.equal(valueAt(HELD_BY_ANNOTATION), 'bundle-update');
    assert.match(String(valueAt(HOLD_REASON_ANNOTATION)), /ChangeGroup bundle-update/);
  });

  it('leaves untouched: an unlisted source, another target, a terminal ChangeGroup, another namespace', async () => {
    const cases: [unknown, ChangeGroupView[]][] = [
      [nudgeRun('z', 'bundle'), [holder]],
      [nudgeRun('a', 'other'), [holder]],
      [nudgeRun('a', 'bundle'), [{ ...holder, phase: 'Completed' }]],
      [nudgeRun('a', 'bundle'), [{ ...holder, namespace: 'elsewhere' }]],
    ];
    for (const [object, changeGroups] of cases) {
      assert.deepEqual(await decide(object, changeGroups), { allowed: true });
    }
  });

  it('never denies and never patches what is not a nudge PipelineRun create', async () => {
    const build = nudgeRun('a', 'bundle');
    build.metadata.labels = { 'build.appstudio.redhat.com/type': 'build' };
    const others: unknown[] = [build, { kind: 'ConfigMap' }, null, nudgeRun('a', '')];
    for (const object of others) assert.deepEqual(await decide(object, [holder]), { allowed: true });
    assert.deepEqual(await decide(nudgeRun('a', 'bundle'), [holder], 'UPDATE'), { allowed: true });
    assert.deepEqual(await decide(nudgeRun('a', 'bundle', { status: 'Cancelled' }), [holder]), { allowed: true });
  });

  it('answers a namespace without ChangeGroups without reading the object (docs/decisions.md N49)', async () => {
    // Any read of the object would throw, and the handler with it.
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('object read');
        },
        has: () => {
          throw new Error('object read');
        },
        ownKeys: () => {
          throw new Error('object read');
        },
      },
    );
    assert.deepEqual(await decide(untouchable, []), { allowed: true });
    assert.deepEqual(await decide(untouchable, [{ ...holder, namespace: 'elsewhere' }]), { allowed: true });
    // With a ChangeGroup in the namespace the object is read (and here it cannot be).
    await assert.rejects(async () => decide(untouchable, [holder]), /object read/);
  });

  it('cancels a partly covered nudge and names the targets to re-dispatch', async () => {
    const decision = await decide(nudgeRun('a', 'bundle other'), [holder]);
    assert.ok(decision.allowed);
    assert.ok(
      decision.patch?.some((op) => op.path.endsWith('redispatch-targets') && 'value' in op && op.value === 'other'),
    );
  });
});
