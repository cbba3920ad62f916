// The nudge sweeper (docs/decisions.md D2) on a real kube-apiserver with no webhooks registered: the
// mutating webhook "was unavailable", so nudge PipelineRuns are stored uncancelled, and the
// manager's sweeper must cancel the ones a ChangeGroup holds while leaving started runs alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { isNotFound } from '../../src/adapters/kubernetes/errors.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CONFIG_MAPS,
  CORE_EVENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
  SECRETS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { HELD_EVENT_REASON, LEFTOVERS_DELETED_EVENT_REASON } from '../../src/controllers/nudge-sweeper.ts';
import { LEFTOVERS_DELETED_ANNOTATION } from '../../src/domain/changegroup/integration-service-leftovers.ts';
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

/** A ChangeGroup collecting `nudged`'s nudges from `a`. */
const changeGroup = (name: string, namespace: string, nudged: string, nudging = 'a'): KubeObject =>
  ({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name, namespace },
    spec: { nudgedComponent: nudged, nudgingComponents: [{ name: nudging }], timeout: '24h' },
  }) as KubeObject;

type CoreEvent = KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } };

/** The first Event of `reason` about the object `name`, once there is one. */
const eventAbout = (namespace: string, reason: string, name: string): Promise<CoreEvent> =>
  eventually(`the ${reason} event on ${name}`, async () => {
    const events = await client.list<CoreEvent>(CORE_EVENTS, { namespace });
    return events.items.find((e) => e.reason === reason && e.involvedObject?.name === name);
  });

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

    await client.create(CHANGE_GROUPS, changeGroup('bundle-update', NAMESPACE, 'bundle'));
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

    const event = await eventAbout(NAMESPACE, HELD_EVENT_REASON, 'fresh');
    assert.match(event.message ?? '', /bundle-update/);

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
    await client.create(CHANGE_GROUPS, changeGroup('b-update', NAMESPACE, 'bundle-b', 'b'));
    await client.create(PIPELINE_RUNS, nudgeRun('fresh-b', 'b', 'bundle-b'));
    await eventually('the sweeper to cancel the second run', async () => {
      const run = await getRun('fresh-b');
      return run.spec?.status === 'Cancelled' ? true : undefined;
    });
    const afterwards = await getRun('fresh');
    assert.equal(afterwards.metadata?.resourceVersion, before.metadata?.resourceVersion);
  });
});

// docs/decisions.md N21: integration-service creates a Secret (the token) and a ConfigMap named like
// its nudge run, before it and without owner references, and never deletes them.
describe('integration-service leftovers of a held nudge', () => {
  const ns = 'tenant-is';
  const IS_RUN = 'renovate-pipeline-0123456789ab';
  const OTHER_IS_RUN = 'renovate-pipeline-ba9876543210';
  const BS_RUN = 'renovate-pipeline-1736935680-ab12c';

  const inNs = (run: PipelineRunResource): PipelineRunResource => ({
    ...run,
    metadata: { ...run.metadata, namespace: ns },
  });
  const secret = (name: string, owner?: KubeObject): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns, ...(owner === undefined ? {} : { ownerReferences: [ownerOf(owner)] }) },
      stringData: { token_0: 'ghp_not-a-real-token', image_0: 'quay.io/org/a:t1' },
    }) as KubeObject;
  const configMap = (name: string, owner?: KubeObject): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, ...(owner === undefined ? {} : { ownerReferences: [ownerOf(owner)] }) },
      data: { 'bundle-0.json': '{}' },
    }) as KubeObject;
  const ownerOf = (run: KubeObject) => ({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    name: run.metadata?.name ?? '',
    uid: run.metadata?.uid ?? '',
  });
  const exists = (ref: ResourceRef, name: string): Promise<boolean> =>
    client.get(ref, ns, name).then(
      () => true,
      (error: unknown) => {
        if (isNotFound(error)) return false;
        throw error;
      },
    );

  it('deletes the pair of a held run once no ChangeGroup can release it, and nothing else', async () => {
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // As integration-service does: the Secret and the ConfigMap first, then the run.
    for (const name of [IS_RUN, OTHER_IS_RUN]) {
      await client.create(SECRETS, secret(name));
      await client.create(CONFIG_MAPS, configMap(name));
    }
    await client.create(SECRETS, secret('scm-credentials'));
    await client.create(CHANGE_GROUPS, changeGroup('bundle-update', ns, 'bundle'));
    // build-service: the run first, then its Secret and ConfigMap, owned by the run.
    const bsRun = await client.create(PIPELINE_RUNS, inNs(nudgeRun(BS_RUN, 'a', 'bundle')));
    await client.create(SECRETS, secret(BS_RUN, bsRun));
    await client.create(CONFIG_MAPS, configMap(BS_RUN, bsRun));
    await client.create(PIPELINE_RUNS, inNs(nudgeRun(IS_RUN, 'a', 'bundle')));
    // Another build's run of integration-service, which no ChangeGroup holds.
    await client.create(PIPELINE_RUNS, inNs(nudgeRun(OTHER_IS_RUN, 'b', 'docs')));

    const cancelled = (name: string) =>
      eventually(`the sweeper to cancel ${name}`, async () => {
        const run = await client.get<PipelineRunResource>(PIPELINE_RUNS, ns, name);
        return run.spec?.status === 'Cancelled' ? run : undefined;
      });
    await cancelled(IS_RUN);
    await cancelled(BS_RUN);
    // Held by a ChangeGroup that may still release it: its copy would read the pair, which stays.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(await exists(SECRETS, IS_RUN), true, 'kept while the ChangeGroup may release the run');
    assert.equal(await exists(CONFIG_MAPS, IS_RUN), true);

    await client.delete(CHANGE_GROUPS, ns, 'bundle-update');
    await eventually('the Secret and ConfigMap of the held run to go', async () =>
      !(await exists(SECRETS, IS_RUN)) && !(await exists(CONFIG_MAPS, IS_RUN)) ? true : undefined,
    );
    const run = await client.get<PipelineRunResource>(PIPELINE_RUNS, ns, IS_RUN);
    assert.equal(run.metadata?.annotations?.[LEFTOVERS_DELETED_ANNOTATION], `Secret ${IS_RUN}, ConfigMap ${IS_RUN}`);
    const event = await eventAbout(ns, LEFTOVERS_DELETED_EVENT_REASON, IS_RUN);
    assert.match(event.message ?? '', new RegExp(`deleted the Secret ${IS_RUN}, ConfigMap ${IS_RUN}`));
    assert.doesNotMatch(JSON.stringify(event), /ghp_not-a-real-token/);

    // The same prefix of another run, an unrelated Secret, and build-service's owned pair: untouched.
    for (const name of [OTHER_IS_RUN, BS_RUN]) {
      assert.equal(await exists(SECRETS, name), true, `Secret ${name}`);
      assert.equal(await exists(CONFIG_MAPS, name), true, `ConfigMap ${name}`);
    }
    assert.equal(await exists(SECRETS, 'scm-credentials'), true);
    const bs = await client.get<PipelineRunResource>(PIPELINE_RUNS, ns, BS_RUN);
    assert.equal(bs.metadata?.annotations?.[LEFTOVERS_DELETED_ANNOTATION], undefined);
  });
});
