// What the dispatcher reads from its caches: the executor a NudgeConfig chooses, the newer build
// that supersedes one, and which builds a namespace's change wakes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { PIPELINE_RUNS_KIND } from '../../src/cluster/watched-kinds.ts';
import {
  EXECUTOR_ANNOTATION,
  executorChoice,
  supersedingBuild,
  unsettledBuildsOf,
} from '../../src/controllers/dispatch/inputs.ts';
import { DISPATCH_FINALIZER, DISPATCH_MARKER_ANNOTATION } from '../../src/domain/nudge/dispatch-marker.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';
import { buildRun, DIGEST } from '../domain/changegroup/fixtures.ts';
import { decoded } from '../support/decoded.ts';
import { NS, nudgeConfig, operandA } from './dispatch-env.ts';

function run(
  name: string,
  options: Parameters<typeof buildRun>[0] & { marker?: string; finalizer?: boolean } = {},
): PipelineRun {
  const { marker, finalizer, ...rest } = options;
  const raw = buildRun({ name, namespace: NS, ...rest }) as KubeObject;
  raw.metadata = {
    ...raw.metadata,
    ...(finalizer === true ? { finalizers: [DISPATCH_FINALIZER] } : {}),
    annotations: {
      ...raw.metadata?.annotations,
      ...(marker === undefined ? {} : { [DISPATCH_MARKER_ANNOTATION]: marker }),
    },
  };
  return decoded(PIPELINE_RUNS_KIND, raw);
}

function storeOf(...runs: PipelineRun[]): Store<PipelineRun> {
  const store = new Store<PipelineRun>();
  for (const r of runs) store.upsert(r);
  return store;
}

describe('executorChoice', () => {
  it('takes the NudgeConfig annotation, else the default; an unknown value falls back and is named', () => {
    assert.deepEqual(executorChoice(undefined, 'direct'), { executor: 'direct' });
    assert.deepEqual(executorChoice(nudgeConfig({ [EXECUTOR_ANNOTATION]: ' renovate ' }), 'direct'), {
      executor: 'renovate',
    });
    assert.deepEqual(executorChoice(nudgeConfig({ [EXECUTOR_ANNOTATION]: '' }), 'renovate'), { executor: 'renovate' });
    assert.deepEqual(executorChoice(nudgeConfig({ [EXECUTOR_ANNOTATION]: 'tekton' }), 'direct'), {
      executor: 'direct',
      unknown: 'tekton',
    });
  });
});

describe('supersedingBuild', () => {
  const old = run('a-old', { createdAt: '2025-01-15T10:00:00Z' });
  it('names the newest later build of the component that succeeded and passes D3', () => {
    const builds = storeOf(
      old,
      run('a-newer', { createdAt: '2025-01-15T11:00:00Z', digest: DIGEST('2') }),
      run('a-newest', { createdAt: '2025-01-15T12:00:00Z', digest: DIGEST('3') }),
      run('a-failed', { createdAt: '2025-01-15T13:00:00Z', succeeded: 'False' }),
      run('a-forged', { createdAt: '2025-01-15T14:00:00Z', url: 'quay.io/evil/a:1' }),
      run('b-later', { createdAt: '2025-01-15T15:00:00Z', component: 'operand-b' }),
      run('a-release', { createdAt: '2025-01-15T16:00:00Z', targetBranch: 'release-1' }),
    );
    assert.equal(supersedingBuild(builds, old, operandA()), 'a-newest');
  });

  it('orders builds of the same second by name, and knows no superseder of the newest', () => {
    const twin = run('a-twin', { createdAt: '2025-01-15T10:00:00Z' });
    const builds = storeOf(old, twin);
    assert.equal(supersedingBuild(builds, old, operandA()), 'a-twin');
    assert.equal(supersedingBuild(builds, twin, operandA()), undefined);
  });
});

describe('unsettledBuildsOf', () => {
  const builds = storeOf(
    run('untouched'),
    run('settled', { marker: 'v1 bundle-x=pullRequest' }),
    run('pending', { marker: 'v1 bundle-x=retry:1:20250115T103100Z:forge-unavailable' }),
    run('finalized', { marker: 'v1 bundle-x=pullRequest', finalizer: true }),
    run('unreadable', { marker: 'v2' }),
  );
  const names = (configs: Store<ClusterNudgeConfig>) =>
    unsettledBuildsOf(builds, configs, NS)
      .map((k) => k.name)
      .sort();

  it('wakes every build not settled for good where the namespace has a NudgeConfig', () => {
    const configs = new Store<ClusterNudgeConfig>();
    configs.upsert(nudgeConfig());
    assert.deepEqual(names(configs), ['finalized', 'pending', 'unreadable', 'untouched']);
  });

  it('wakes only the builds nudger touched where it has none (build-service keeps the others)', () => {
    assert.deepEqual(names(new Store<ClusterNudgeConfig>()), ['finalized', 'pending', 'unreadable']);
  });
});
