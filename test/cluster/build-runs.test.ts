// The dispatcher's build cache keeps what its readers read and drops the Pipelines a Konflux build
// run carries twice (src/cluster/build-runs.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { decodeBuildRun, slimBuildRun } from '../../src/cluster/build-runs.ts';
import { nudgingComponentFacts } from '../../src/cluster/nudged-repository.ts';
import { decodePipelineRun } from '../../src/domain/cluster-objects.ts';
import { buildPipelineRunOf } from '../../src/domain/nudge-pipelinerun.ts';
import { verifyDispatchBuild } from '../../src/domain/nudge/dispatch-verify.ts';
import { buildRun } from '../domain/changegroup/fixtures.ts';

const TASKS = Array.from({ length: 40 }, (_, i) => ({
  name: `task-${String(i)}`,
  params: [{ name: 'x', value: 'y' }],
}));

/** A build run as Pipelines-as-Code and Tekton leave it: the Pipeline inlined and resolved. */
function fullRun(): KubeObject {
  const raw = buildRun() as unknown as KubeObject & { spec: Record<string, unknown>; status: Record<string, unknown> };
  raw.metadata = { ...raw.metadata, uid: 'u-1', finalizers: ['x/y'], resourceVersion: '7' };
  raw.spec = { ...raw.spec, pipelineSpec: { tasks: TASKS }, timeouts: { pipeline: '2h' } };
  raw.status = {
    ...raw.status,
    startTime: '2025-01-15T10:20:05Z',
    completionTime: '2025-01-15T10:30:00Z',
    pipelineSpec: { tasks: TASKS },
    childReferences: TASKS.map((t) => ({ kind: 'TaskRun', name: t.name })),
    provenance: { featureFlags: { enableApiFields: 'beta' } },
  };
  return raw;
}

describe('slimBuildRun', () => {
  it('keeps metadata, spec.status and the status conditions, times and results; drops the rest', () => {
    const decoded = decodeBuildRun(fullRun());
    assert.ok(decoded.ok);
    const slim = decoded.object as KubeObject & { spec?: unknown; status?: Record<string, unknown> };
    assert.deepEqual(Object.keys(slim.status ?? {}).sort(), ['completionTime', 'conditions', 'results', 'startTime']);
    assert.equal(slim.spec, undefined);
    assert.deepEqual(slim.metadata, fullRun().metadata);
    assert.ok(JSON.stringify(slim).length * 5 < JSON.stringify(fullRun()).length);
    const cancelled = decodePipelineRun({ ...fullRun(), spec: { status: 'Cancelled', pipelineSpec: {} } });
    assert.ok(cancelled.ok);
    assert.deepEqual(slimBuildRun(cancelled.object).spec, { status: 'Cancelled' });
  });

  it('reads as the full run reads: the build view and D3', () => {
    const full = decodePipelineRun(fullRun());
    const slim = decodeBuildRun(fullRun());
    assert.ok(full.ok && slim.ok);
    assert.deepEqual(buildPipelineRunOf(slim.object), buildPipelineRunOf(full.object));
    const facts = nudgingComponentFacts({
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Component',
      metadata: { name: 'operand-a', namespace: 'my-tenant' },
      spec: { containerImage: 'quay.io/org/operand-a', source: { git: { revision: 'main' } } },
    });
    const verified = verifyDispatchBuild(slim.object, facts);
    assert.ok(verified.ok);
    assert.deepEqual(verified, verifyDispatchBuild(full.object, facts));
  });

  it('refuses what the PipelineRun decoder refuses', () => {
    assert.equal(decodeBuildRun({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }).ok, false);
  });
});
