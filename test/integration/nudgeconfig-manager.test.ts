// NudgeConfig in the cluster (ADR 67), end to end on a real kube-apiserver: the apiserver itself
// calls the manager's validating webhook, and the stale-reference controller keeps `Valid` true to
// the Components that exist.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import { COMPONENTS, NAMESPACES, NUDGE_CONFIGS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { NUDGECONFIG_VALIDATING_PATH } from '../../src/webhooks/paths.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const VALIDATING_WEBHOOKS: ResourceRef = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  plural: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
};
const NAMESPACE = 'tenant';

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

const nudgeConfig = (nudges: object[], name = 'nudge-config'): KubeObject =>
  ({
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name, namespace: NAMESPACE },
    spec: { nudges },
  }) as KubeObject;

async function denial(object: KubeObject): Promise<string> {
  try {
    await client.create(NUDGE_CONFIGS, object);
  } catch (error) {
    assert.ok(error instanceof KubeApiError, String(error));
    return error.message;
  }
  assert.fail('the NudgeConfig was admitted');
}

async function validCondition(): Promise<{ status: string; reason: string; message: string } | undefined> {
  const current = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS, NAMESPACE, 'nudge-config');
  return current.status?.conditions?.find((c) => c.type === 'Valid');
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  manager = await startTestManager(plane.kubeConfig);
  await client.create(VALIDATING_WEBHOOKS, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'nudger-test' },
    webhooks: [
      {
        name: 'vnudgeconfig.konflux-ci.dev',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        clientConfig: {
          url: manager.webhookUrl(NUDGECONFIG_VALIDATING_PATH),
          caBundle: Buffer.from(manager.caPem).toString('base64'),
        },
        rules: [
          {
            apiGroups: ['konflux-ci.dev'],
            apiVersions: ['v1alpha1'],
            resources: ['nudgeconfigs'],
            operations: ['CREATE', 'UPDATE'],
          },
        ],
      },
    ],
  } as KubeObject);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  for (const name of ['a', 'b', 'c']) await client.create(COMPONENTS, component(name));
  // The manager's Component cache and the apiserver's webhook registration both settle asynchronously.
  await eventually('the webhook to be called', async () => {
    const message = await denial(nudgeConfig([{ from: 'a', to: 'a' }])).catch(() => undefined);
    return message?.includes('nudger') === true || message?.includes('self-nudge') === true ? true : undefined;
  });
});

after(async () => {
  await manager.stop();
  await plane.close();
});

describe('the NudgeConfig validating webhook, called by kube-apiserver', () => {
  it('denies a cycle, naming its path', async () => {
    const message = await denial(
      nudgeConfig([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ]),
    );
    assert.match(message, /vnudgeconfig\.konflux-ci\.dev/);
    assert.match(message, /a -> b -> c -> a/);
  });

  it('denies a self-nudge and a wrong name', async () => {
    assert.match(await denial(nudgeConfig([{ from: 'b', to: 'b' }])), /self-nudge/);
    assert.match(await denial(nudgeConfig([{ from: 'a', to: 'b' }], 'my-nudges')), /singleton-name/);
  });

  it('denies an entry naming a component that does not exist', async () => {
    const message = await denial(nudgeConfig([{ from: 'a', to: 'ghost' }]));
    assert.match(message, /component "ghost" does not exist in namespace tenant/);
  });

  it('admits a valid NudgeConfig, and the controller reports it Valid', async () => {
    await client.create(
      NUDGE_CONFIGS,
      nudgeConfig([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c', mode: 'validated', gatingGroup: 'g' },
      ]),
    );
    const condition = await eventually('Valid=True', async () => {
      const c = await validCondition();
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(condition.reason, 'AllComponentsExist');
  });

  it('turns Valid False naming a deleted Component, keeps the entries, and recovers when it is re-created', async () => {
    await client.delete(COMPONENTS, NAMESPACE, 'c');
    const stale = await eventually('Valid=False', async () => {
      const c = await validCondition();
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(stale.reason, 'StaleReferences');
    assert.equal(stale.message, 'Components [c] referenced in nudges no longer exist');
    const kept = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS, NAMESPACE, 'nudge-config');
    assert.equal((kept.spec?.nudges as unknown[]).length, 2);
    assert.ok(kept.status?.lastValidationTime !== undefined);

    // An update that keeps the stale entry is allowed: only new entries must name existing components.
    kept.spec = { nudges: [...(kept.spec?.nudges ?? []), { from: 'a', to: 'c-not-yet' }] };
    await assert.rejects(client.replace(NUDGE_CONFIGS, kept), /c-not-yet/);
    const unchanged = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS, NAMESPACE, 'nudge-config');
    const metadata = unchanged.metadata ?? {};
    unchanged.metadata = { ...metadata, labels: { touched: 'yes' } };
    await client.replace(NUDGE_CONFIGS, unchanged);

    await client.create(COMPONENTS, component('c'));
    const recovered = await eventually('Valid=True again', async () => {
      const c = await validCondition();
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(recovered.reason, 'AllComponentsExist');
  });
});
