// The validated reconciler (src/controllers/dispatch/validated-reconciler.ts) over in-memory caches
// and a fake API client: what it writes before an effect, and what it refuses. Its behaviour on a
// real API server is test/integration/validated-controller.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { CONFIG_MAPS, CORE_EVENTS } from '../../src/adapters/kubernetes/resources.ts';
import { StoreChangeGroupSource } from '../../src/cluster/changegroups.ts';
import {
  BUILD_RUNS_KIND,
  COMPONENTS_KIND,
  CONFIG_MAPS_KIND,
  NUDGE_CONFIGS_KIND,
  SNAPSHOTS_KIND,
} from '../../src/cluster/watched-kinds.ts';
import { ValidatedReconciler, validatedKeyOf } from '../../src/controllers/dispatch/validated-reconciler.ts';
import { validatedRecordName } from '../../src/domain/nudge/validated-record.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterChangeGroup } from '../../src/schema/changegroup.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { ClusterConfigMap } from '../../src/schema/config-map.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';
import type { ClusterSnapshot } from '../../src/schema/snapshot.ts';
import { decoded } from '../support/decoded.ts';
import { buildRun } from '../domain/changegroup/fixtures.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';
import { RecordingExecutor } from './dispatch-env.ts';

const NS = 'tenant';
const GROUP = 'operands';
const digestOf = (i: number): string => `sha256:${i.toString(16).padStart(64, '0')}`;
const name = (i: number): string => `operand-with-a-name-as-long-as-some-real-ones-${String(i).padStart(4, '0')}`;

/** `count` operands validated by one group into `bundle`, each built once, one passing Snapshot. */
function namespace(count: number) {
  const client = new FakeObjectClient();
  const builds = new Store<PipelineRun>();
  const components = new Store<ClusterComponent>();
  const nudgeConfigs = new Store<ClusterNudgeConfig>();
  const snapshots = new Store<ClusterSnapshot>();
  const records = new Store<ClusterConfigMap>();
  const operands = Array.from({ length: count }, (_, i) => name(i));
  for (const component of [...operands, 'bundle']) {
    components.upsert(
      decoded(COMPONENTS_KIND, {
        apiVersion: 'appstudio.redhat.com/v1alpha1',
        kind: 'Component',
        metadata: { name: component, namespace: NS, uid: `uid-${component}` },
        spec: {
          containerImage: `quay.io/org/${component}`,
          source: { git: { url: `https://forge.example/acme/${component}`, revision: 'main' } },
        },
      } as KubeObject),
    );
  }
  operands.forEach((component, i) => {
    const run = buildRun({
      name: `${component}-on-push-1`,
      namespace: NS,
      component,
      digest: digestOf(i + 1),
      url: `quay.io/org/${component}:abc`,
    });
    builds.upsert(
      decoded(BUILD_RUNS_KIND, {
        ...run,
        metadata: { ...(run.metadata as object), uid: `uid-b${String(i)}` },
      }),
    );
  });
  nudgeConfigs.upsert(
    decoded(NUDGE_CONFIGS_KIND, {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: NS, uid: 'uid-nc' },
      spec: { nudges: operands.map((from) => ({ from, to: 'bundle', mode: 'validated', gatingGroup: GROUP })) },
    } as KubeObject),
  );
  snapshots.upsert(
    decoded(SNAPSHOTS_KIND, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Snapshot',
      metadata: {
        name: 'operands-pass',
        namespace: NS,
        labels: { 'test.appstudio.openshift.io/type': 'component', 'appstudio.openshift.io/component-group': GROUP },
        annotations: {
          'test.appstudio.openshift.io/pipelinerunstarttime': '1764150000',
          'test.appstudio.openshift.io/integration-workflow': 'push',
        },
      },
      spec: {
        componentGroup: GROUP,
        components: operands.map((component, i) => ({
          name: component,
          containerImage: `quay.io/org/${component}@${digestOf(i + 1)}`,
        })),
      },
      status: { conditions: [{ type: 'AppStudioTestSucceeded', status: 'True', reason: 'Passed', message: '' }] },
    } as KubeObject),
  );
  const executor = new RecordingExecutor('direct');
  const reconciler = new ValidatedReconciler({
    client,
    builds,
    components,
    nudgeConfigs,
    changeGroups: new StoreChangeGroupSource(new Store<ClusterChangeGroup>()),
    snapshots,
    records,
    executors: { direct: executor },
    defaultExecutor: 'direct',
    now: () => Date.parse('2026-11-26T10:00:00Z'),
  });
  const sync = (): void => {
    const stored = client.objects.get(`${CONFIG_MAPS.plural}/${NS}/${validatedRecordName(GROUP, 'bundle')}`);
    if (stored !== undefined) records.upsert(decoded(CONFIG_MAPS_KIND, stored));
  };
  return { client, executor, reconciler, sync };
}

function eventsOf(client: FakeObjectClient): string[] {
  return [...client.objects.entries()]
    .filter(([key]) => key.startsWith(`${CORE_EVENTS.plural}/`))
    .map(([, event]) => String((event as { reason?: string }).reason));
}

describe('the validated reconciler', () => {
  it('writes the record (firing) before it fires, then the result, and fires once', async () => {
    const { client, executor, reconciler, sync } = namespace(3);
    await reconciler.reconcile(validatedKeyOf(NS), AbortSignal.timeout(10_000));
    assert.equal(executor.batches.length, 1);
    assert.equal(executor.batches[0]?.entries.length, 3);
    const stored = client.objects.get(`${CONFIG_MAPS.plural}/${NS}/${validatedRecordName(GROUP, 'bundle')}`);
    const text = stored === undefined ? undefined : decoded(CONFIG_MAPS_KIND, stored).data?.record;
    assert.ok(text !== undefined);
    assert.ok(text.includes('"nudged"'));
    assert.ok(!text.includes('"batch"'), 'the batch is over');
    sync();
    await reconciler.reconcile(validatedKeyOf(NS), AbortSignal.timeout(10_000));
    assert.equal(executor.batches.length, 1, 'nothing new is due');
    assert.ok(eventsOf(client).includes('ValidatedNudgeFired'));
  });

  it('refuses, before any effect, a batch whose record would not fit a ConfigMap, and says so', async () => {
    const { client, executor, reconciler } = namespace(5000);
    await reconciler.reconcile(validatedKeyOf(NS), AbortSignal.timeout(60_000));
    assert.equal(executor.batches.length, 0);
    assert.equal(client.objects.get(`${CONFIG_MAPS.plural}/${NS}/${validatedRecordName(GROUP, 'bundle')}`), undefined);
    assert.ok(eventsOf(client).includes('ValidatedRecordTooLarge'));
  });
});
