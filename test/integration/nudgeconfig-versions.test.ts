// Issue 8 (D1) on a real kube-apiserver: nudger's NudgeConfig CRD serves v1alpha1 (storage) and
// upstream's konflux-ci.dev/v1beta2 from the same stored objects; the webhook, registered from
// deploy/webhook/ for both versions, judges each request by its client's version; the controllers'
// v1alpha1 informer sees v1beta2-written objects, and the stale-reference controller keeps their
// `Valid` condition.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  NUDGE_CONFIGS_V1BETA2,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { registerWebhooks } from '../../src/sandbox/webhooks.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

/** integration-service users' tenant, written in v1beta2; nudger's own tenant, in v1alpha1. */
const UPSTREAM_TENANT = 'payments';
const NUDGER_TENANT = 'checkout';

let plane: ControlPlane;
let manager: TestManager;
let client: KubeClient;

const component = (namespace: string, name: string): KubeObject =>
  ({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace },
    spec: { componentName: name, application: namespace, source: { git: { url: `https://example.com/${name}` } } },
  }) as KubeObject;

const nudgeConfig = (ref: ResourceRef, namespace: string, nudges: object[]): KubeObject =>
  ({
    apiVersion: `${ref.group}/${ref.version}`,
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace },
    spec: { nudges },
  }) as KubeObject;

/** Validated before Phase 2: upstream reserves gatingGroup and lets the entry in without one. */
const UNGATED = [
  { from: 'payments-api', to: 'payments-bundle', mode: 'validated' },
  { from: 'payments-worker', to: 'payments-bundle' },
];

async function denial(ref: ResourceRef, object: KubeObject): Promise<string> {
  try {
    await client.create(ref, object);
  } catch (error) {
    assert.ok(error instanceof KubeApiError, String(error));
    return error.message;
  }
  assert.fail('the NudgeConfig was admitted');
}

/** A create through the REST API, keeping the `Warning` headers KubeClient does not surface. */
function createWithWarnings(ref: ResourceRef, object: KubeObject): Promise<{ status: number; warnings: string[] }> {
  const namespace = object.metadata?.namespace ?? '';
  const path = `/apis/${ref.group}/${ref.version}/namespaces/${namespace}/${ref.plural}`;
  const token = plane.kubeConfig.getCurrentUser()?.token ?? '';
  const body = JSON.stringify(object);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, plane.server),
      {
        method: 'POST',
        ca: plane.caPem,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const header = res.headers.warning;
          const warnings = header === undefined ? [] : Array.isArray(header) ? header : [header];
          resolve({ status: res.statusCode ?? 0, warnings });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function validCondition(ref: ResourceRef, namespace: string) {
  const current = await client.get<ClusterNudgeConfig>(ref, namespace, 'nudge-config');
  return current.status?.conditions?.find((c) => c.type === 'Valid');
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  // No Tekton CRD here: the PipelineRun informer's retries are expected, so only errors are logged.
  manager = await startTestManager(plane.kubeConfig, { logLevel: 'error' });
  // The registration nudger ships (deploy/webhook/), pointed at this manager.
  await registerWebhooks(client, {
    url: (path) => manager.webhookUrl(path),
    caPem: manager.caPem,
    namePrefix: 'nudger-versions-test',
  });
  for (const namespace of [UPSTREAM_TENANT, NUDGER_TENANT]) {
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  }
  for (const name of ['payments-api', 'payments-worker', 'payments-bundle']) {
    await client.create(COMPONENTS, component(UPSTREAM_TENANT, name));
  }
  for (const name of ['checkout-api', 'checkout-bundle'])
    await client.create(COMPONENTS, component(NUDGER_TENANT, name));
  // The manager's Component cache and the apiserver's webhook registration both settle asynchronously:
  // wait until a v1beta2 self-nudge is refused by the webhook (v1.20 does not run the CEL rules).
  await eventually('the webhook to be called for v1beta2', async () => {
    const message = await denial(
      NUDGE_CONFIGS_V1BETA2,
      nudgeConfig(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT, [{ from: 'payments-api', to: 'payments-api' }]),
    ).catch(() => undefined);
    return message?.includes('self-nudge') === true ? true : undefined;
  });
});

after(async () => {
  await manager.stop();
  await plane.close();
});

describe('one NudgeConfig CRD serving v1alpha1 and v1beta2 (D1)', () => {
  it('denies an ungated validated entry written as v1alpha1', async () => {
    const message = await denial(
      NUDGE_CONFIGS,
      nudgeConfig(NUDGE_CONFIGS, NUDGER_TENANT, [{ from: 'checkout-api', to: 'checkout-bundle', mode: 'validated' }]),
    );
    assert.match(message, /vnudgeconfig\.konflux-ci\.dev/);
    assert.match(message, /missing-gating-group/);
  });

  it('refuses more than 360 entries in v1beta2 by the schema itself', async () => {
    const many = Array.from({ length: 361 }, (_, i) => ({ from: `payments-lib-${String(i)}`, to: 'payments-api' }));
    const message = await denial(NUDGE_CONFIGS_V1BETA2, nudgeConfig(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT, many));
    assert.match(message, /spec\.nudges.*360/);
  });

  it('admits the same entry written as v1beta2, with the webhook’s warning', async () => {
    const created = await createWithWarnings(
      NUDGE_CONFIGS_V1BETA2,
      nudgeConfig(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT, UNGATED),
    );
    assert.equal(created.status, 201);
    assert.equal(created.warnings.length, 1, created.warnings.join('\n'));
    assert.match(created.warnings[0] ?? '', /spec\.nudges\[0\].*nudger does not fire this entry/);
  });

  it('serves the one stored object in both versions, with the same fields', async () => {
    const asBeta = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT, 'nudge-config');
    const asAlpha = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS, UPSTREAM_TENANT, 'nudge-config');
    assert.equal(asBeta.apiVersion, 'konflux-ci.dev/v1beta2');
    assert.equal(asAlpha.apiVersion, 'konflux-ci.dev/v1alpha1');
    assert.deepEqual(asAlpha.spec, asBeta.spec);
    assert.deepEqual(asBeta.spec?.nudges, [
      { from: 'payments-api', to: 'payments-bundle', mode: 'validated' },
      { from: 'payments-worker', to: 'payments-bundle', mode: 'immediate' },
    ]);
  });

  it('admits a v1alpha1 object beside it: one of each version, both listed through v1alpha1', async () => {
    await client.create(
      NUDGE_CONFIGS,
      nudgeConfig(NUDGE_CONFIGS, NUDGER_TENANT, [{ from: 'checkout-api', to: 'checkout-bundle' }]),
    );
    const listed = await client.list<ClusterNudgeConfig>(NUDGE_CONFIGS);
    assert.deepEqual(
      listed.items.map((o) => [o.metadata?.namespace, o.apiVersion ?? 'konflux-ci.dev/v1alpha1']).sort(),
      [
        [NUDGER_TENANT, 'konflux-ci.dev/v1alpha1'],
        [UPSTREAM_TENANT, 'konflux-ci.dev/v1alpha1'],
      ],
    );
  });

  it('keeps Valid on the v1beta2 object: True, False naming a deleted Component, True again', async () => {
    const valid = await eventually('Valid=True on the v1beta2 object', async () => {
      const c = await validCondition(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT);
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(valid.reason, 'AllComponentsExist');

    await client.delete(COMPONENTS, UPSTREAM_TENANT, 'payments-worker');
    const stale = await eventually('Valid=False on the v1beta2 object', async () => {
      const c = await validCondition(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT);
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(stale.reason, 'StaleReferences');
    assert.equal(stale.message, 'Components [payments-worker] referenced in nudges no longer exist');
    const kept = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT, 'nudge-config');
    assert.equal((kept.spec?.nudges as unknown[]).length, 2, 'the controller never edits spec');

    await client.create(COMPONENTS, component(UPSTREAM_TENANT, 'payments-worker'));
    await eventually('Valid=True again', async () => {
      const c = await validCondition(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT);
      return c?.status === 'True' ? c : undefined;
    });
  });

  it('judges a v1beta2 update by v1beta2 rules: new entries must name existing Components', async () => {
    const current = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS_V1BETA2, UPSTREAM_TENANT, 'nudge-config');
    current.spec = { nudges: [...(current.spec?.nudges ?? []), { from: 'payments-api', to: 'payments-pdf' }] };
    await assert.rejects(client.replace(NUDGE_CONFIGS_V1BETA2, current), /component "payments-pdf" does not exist/);
  });

  it('lets ChangeGroup admission find the edges of a v1beta2-written NudgeConfig', async () => {
    const changeGroup = (nudging: string[]): KubeObject =>
      ({
        apiVersion: 'appstudio.redhat.com/v1alpha1',
        kind: 'ChangeGroup',
        metadata: { name: 'payments-release', namespace: UPSTREAM_TENANT },
        spec: { nudgedComponent: 'payments-bundle', nudgingComponents: nudging.map((name) => ({ name })) },
      }) as KubeObject;
    // Dry runs: admitted or denied, nothing is stored for the ChangeGroup controller to act on.
    await client.create(CHANGE_GROUPS, changeGroup(['payments-api', 'payments-worker']), { dryRun: true });
    await client.create(COMPONENTS, component(UPSTREAM_TENANT, 'payments-docs'));
    await assert.rejects(
      client.create(CHANGE_GROUPS, changeGroup(['payments-api', 'payments-docs']), { dryRun: true }),
      /component "payments-docs" does not nudge "payments-bundle"/,
    );
  });
});
