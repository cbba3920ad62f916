// The nudge sweeper (docs/decisions.md D2) on a real kube-apiserver with no webhooks registered: the
// mutating webhook "was unavailable", so nudge PipelineRuns are stored uncancelled, and the
// manager's sweeper must cancel the ones a ChangeGroup holds while leaving started runs alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CORE_EVENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { HELD_EVENT_REASON } from '../../src/controllers/nudge-sweeper.ts';
import {
  HELD_BY_ANNOTATION,
  HELD_TARGETS_ANNOTATION,
  HOLD_REASON_ANNOTATION,
} from '../../src/domain/changegroup/hold-decision.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const NAMESPACE = 'tenant';

interface PipelineRunResource extends KubeObject {
  spec?: { status?: string; pipelineRef?: { name: string } };
  status?: { startTime?: string };
}

let plane: ControlPlane;
let manager: TestManager;
let client: KubeClient;

const component = (name: string): KubeObject =>
  ({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: NAMESPACE },
    spec: { componentName: name, application: 'app', source: { git: { url: `https://example.com/${name}` } } },
  }) as KubeObject;

const nudgeRun = (name: string, from: string, to: string): PipelineRunResource => ({
  apiVersion: 'tekton.dev/v1',
  kind: 'PipelineRun',
  metadata: {
    name,
    namespace: NAMESPACE,
    labels: { 'build.appstudio.redhat.com/type': 'nudge' },
    annotations: {
      'build.appstudio.redhat.com/nudging-component': from,
      'build.appstudio.redhat.com/nudged-components': to,
    },
  },
  spec: { pipelineRef: { name: 'x' } },
});

const getRun = (name: string): Promise<PipelineRunResource> =>
  client.get<PipelineRunResource>(PIPELINE_RUNS, NAMESPACE, name);

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  manager = await startTestManager(plane.kubeConfig);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  for (const name of ['a', 'b', 'bundle']) await client.create(COMPONENTS, component(name));
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: NAMESPACE },
    spec: { nudges: [{ from: 'a', to: 'bundle' }] },
  } as KubeObject);
});

after(async () => {
  await manager.stop();
  await plane.close();
});

describe('the nudge sweeper, with the mutating webhook unavailable', () => {
  it('cancels a held nudge run that has not started, and never touches one that has', async () => {
    // The started run exists, with Tekton's startTime, before any ChangeGroup could hold it.
    await client.create(PIPELINE_RUNS, nudgeRun('started', 'a', 'bundle'));
    const created = await getRun('started');
    const started = await client.replaceStatus<PipelineRunResource>(PIPELINE_RUNS, {
      ...created,
      status: { startTime: '2024-01-01T00:00:00Z' },
    });
    assert.equal(started.status?.startTime, '2024-01-01T00:00:00Z');

    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'bundle-update', namespace: NAMESPACE },
      spec: { nudgedComponent: 'bundle', nudgingComponents: [{ name: 'a' }], timeout: '24h' },
    } as KubeObject);
    await client.create(PIPELINE_RUNS, nudgeRun('unlisted', 'b', 'bundle'));
    const stored = await client.create(PIPELINE_RUNS, nudgeRun('fresh', 'a', 'bundle'));
    assert.equal(stored.spec?.status, undefined, 'no webhook: the run is stored uncancelled');

    const cancelled = await eventually('the sweeper to cancel the not-started run', async () => {
      const run = await getRun('fresh');
      return run.spec?.status === 'Cancelled' ? run : undefined;
    });
    const annotations = cancelled.metadata?.annotations ?? {};
    assert.equal(annotations[HELD_BY_ANNOTATION], 'bundle-update');
    assert.equal(annotations[HELD_TARGETS_ANNOTATION], 'bundle=bundle-update');
    assert.match(annotations[HOLD_REASON_ANNOTATION] ?? '', /cancelled by ChangeGroup bundle-update/);

    const event = await eventually('the HeldByChangeGroup event', async () => {
      const events = await client.list<KubeObject & { reason?: string; involvedObject?: { name?: string } }>(
        CORE_EVENTS,
        { namespace: NAMESPACE },
      );
      return events.items.find((e) => e.reason === HELD_EVENT_REASON && e.involvedObject?.name === 'fresh');
    });
    assert.match((event as { message?: string }).message ?? '', /bundle-update/);

    const untouched = await getRun('started');
    assert.equal(untouched.metadata?.resourceVersion, started.metadata?.resourceVersion);
    assert.equal(untouched.spec?.status, undefined);
    assert.equal(untouched.metadata?.annotations?.[HELD_BY_ANNOTATION], undefined);
    const unlisted = await getRun('unlisted');
    assert.equal(unlisted.spec?.status, undefined);
    assert.deepEqual(unlisted.spec, { pipelineRef: { name: 'x' } });
  });

  it('leaves the cancelled run alone afterwards (idempotent)', async () => {
    const before = await getRun('fresh');
    // A new ChangeGroup wakes the namespace's not-started runs; the cancelled one is not among them.
    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'b-update', namespace: NAMESPACE },
      spec: { nudgedComponent: 'bundle-b', nudgingComponents: [{ name: 'b' }], timeout: '24h' },
    } as KubeObject);
    await client.create(PIPELINE_RUNS, nudgeRun('fresh-b', 'b', 'bundle-b'));
    await eventually('the sweeper to cancel the second run', async () => {
      const run = await getRun('fresh-b');
      return run.spec?.status === 'Cancelled' ? true : undefined;
    });
    const afterwards = await getRun('fresh');
    assert.equal(afterwards.metadata?.resourceVersion, before.metadata?.resourceVersion);
  });
});
