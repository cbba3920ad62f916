// ChangeGroup admission and the nudge hold (ADR 59, docs/decisions.md D2), end to end on a real
// kube-apiserver: the apiserver itself calls the manager's ChangeGroup validating webhook and its
// PipelineRun mutating webhook, and stores what the latter patched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { HELD_BY_ANNOTATION, HOLD_REASON_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { CHANGEGROUP_VALIDATING_PATH, PIPELINERUN_MUTATING_PATH } from '../../src/webhooks/paths.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const admissionRegistration = (plural: string, kind: string): ResourceRef => ({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  plural,
  kind,
  namespaced: false,
});
const VALIDATING_WEBHOOKS = admissionRegistration('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration');
const MUTATING_WEBHOOKS = admissionRegistration('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration');
const NAMESPACE = 'tenant';

interface PipelineRunResource extends KubeObject {
  spec?: { status?: string };
}

let plane: ControlPlane;
let manager: TestManager;
let client: KubeClient;

const component = (name: string, nudges: string[] = []): KubeObject =>
  ({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      componentName: name,
      application: 'app',
      source: { git: { url: `https://example.com/${name}` } },
      ...(nudges.length === 0 ? {} : { 'build-nudges-ref': nudges }),
    },
  }) as KubeObject;

const changeGroup = (name: string, nudged: string, nudging: string[]): KubeObject =>
  ({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name, namespace: NAMESPACE },
    spec: { nudgedComponent: nudged, nudgingComponents: nudging.map((n) => ({ name: n })), timeout: '24h' },
  }) as KubeObject;

const nudgeRun = (from: string, to: string): PipelineRunResource =>
  ({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      generateName: `nudge-${from}-`,
      namespace: NAMESPACE,
      labels: { 'build.appstudio.redhat.com/type': 'nudge' },
      annotations: {
        'build.appstudio.redhat.com/nudging-component': from,
        'build.appstudio.redhat.com/nudged-components': to,
      },
    },
    spec: { pipelineRef: { name: 'x' } },
  }) as PipelineRunResource;

async function denial(object: KubeObject): Promise<string> {
  try {
    await client.create(CHANGE_GROUPS, object);
  } catch (error) {
    assert.ok(error instanceof KubeApiError, String(error));
    return error.message;
  }
  assert.fail(`ChangeGroup ${object.metadata?.name ?? ''} was admitted`);
}

function webhook(name: string, path: string, caPem: string, failurePolicy: string, rules: object[], extra = {}) {
  return {
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy,
    matchPolicy: 'Equivalent',
    timeoutSeconds: 10,
    clientConfig: {
      url: manager.webhookUrl(path),
      caBundle: Buffer.from(caPem).toString('base64'),
    },
    rules,
    ...extra,
  };
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  manager = await startTestManager(plane.kubeConfig);
  await client.create(VALIDATING_WEBHOOKS, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'nudger-test' },
    webhooks: [
      webhook('vchangegroup.appstudio.redhat.com', CHANGEGROUP_VALIDATING_PATH, manager.caPem, 'Fail', [
        {
          apiGroups: ['appstudio.redhat.com'],
          apiVersions: ['v1alpha1'],
          resources: ['changegroups'],
          operations: ['CREATE', 'UPDATE'],
        },
      ]),
    ],
  } as KubeObject);
  await client.create(MUTATING_WEBHOOKS, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'nudger-test' },
    webhooks: [
      webhook(
        'mpipelinerun.tekton.dev.nudger.konflux-ci.dev',
        PIPELINERUN_MUTATING_PATH,
        manager.caPem,
        'Ignore',
        [{ apiGroups: ['tekton.dev'], apiVersions: ['v1'], resources: ['pipelineruns'], operations: ['CREATE'] }],
        { objectSelector: { matchLabels: { 'build.appstudio.redhat.com/type': 'nudge' } } },
      ),
    ],
  } as KubeObject);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  // `a` nudges the bundle through the NudgeConfig, `b` through build-nudges-ref, `lonely` not at all.
  for (const c of [component('bundle'), component('a'), component('b', ['bundle']), component('lonely')]) {
    await client.create(COMPONENTS, c);
  }
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: NAMESPACE },
    spec: { nudges: [{ from: 'a', to: 'bundle' }] },
  } as KubeObject);
  // The apiserver's webhook registration settles asynchronously.
  await eventually('the ChangeGroup webhook to be called', async () => {
    const message = await denial(changeGroup('probe', 'ghost', ['a'])).catch(() => undefined);
    return message?.includes('does not exist') === true ? true : undefined;
  });
});

after(async () => {
  await manager.stop();
  await plane.close();
});

describe('the ChangeGroup validating webhook, called by kube-apiserver', () => {
  it('denies a ChangeGroup whose nudged component does not exist', async () => {
    const message = await denial(changeGroup('ghostly', 'ghost', ['a']));
    assert.match(message, /vchangegroup\.appstudio\.redhat\.com/);
    assert.match(message, /spec\.nudgedComponent: component "ghost" does not exist in namespace tenant/);
  });

  it('denies a nudging component without an edge to the target, naming it', async () => {
    const message = await denial(changeGroup('partial', 'bundle', ['a', 'lonely']));
    assert.match(message, /spec\.nudgingComponents\[1\]\.name: component "lonely" does not nudge "bundle"/);
    assert.doesNotMatch(message, /component "a"/);
  });

  it('admits a valid ChangeGroup (edges from the NudgeConfig and from build-nudges-ref)', async () => {
    const created = await client.create(CHANGE_GROUPS, changeGroup('bundle-update', 'bundle', ['a', 'b']));
    assert.equal(created.metadata?.name, 'bundle-update');
  });

  it('denies a second active ChangeGroup holding the same pair, naming the first', async () => {
    // The manager's ChangeGroup cache settles asynchronously; a dry run is admitted without storing.
    await eventually('the manager to cache bundle-update', () =>
      client.create(CHANGE_GROUPS, changeGroup('second', 'bundle', ['b']), { dryRun: true }).then(
        () => undefined,
        () => true,
      ),
    );
    const message = await denial(changeGroup('second', 'bundle', ['b']));
    assert.match(message, /active ChangeGroup "bundle-update" already holds the nudges of "bundle" from b/);
  });
});

describe('the nudge PipelineRun mutating webhook, called by kube-apiserver', () => {
  it('stores a nudge from a listed component cancelled, annotated with the ChangeGroup', async () => {
    // The manager's ChangeGroup cache settles asynchronously; a dry run shows what it would do.
    await eventually('the hold to apply', async () => {
      const dry = await client.create(PIPELINE_RUNS, nudgeRun('a', 'bundle'), { dryRun: true });
      return dry.spec?.status === 'Cancelled' ? true : undefined;
    });
    const stored = await client.create(PIPELINE_RUNS, nudgeRun('a', 'bundle'));
    const fetched = await client.get<PipelineRunResource>(PIPELINE_RUNS, NAMESPACE, stored.metadata?.name ?? '');
    const annotations: Record<string, string> = fetched.metadata?.annotations ?? {};
    assert.equal(fetched.spec?.status, 'Cancelled');
    assert.equal(annotations[HELD_BY_ANNOTATION], 'bundle-update');
    assert.match(annotations[HOLD_REASON_ANNOTATION] ?? '', /ChangeGroup bundle-update/);
  });

  it('stores a nudge from an unlisted component untouched', async () => {
    const stored = await client.create(PIPELINE_RUNS, nudgeRun('lonely', 'bundle'));
    const fetched = await client.get<PipelineRunResource>(PIPELINE_RUNS, NAMESPACE, stored.metadata?.name ?? '');
    assert.equal(fetched.spec?.status, undefined);
    assert.equal(fetched.metadata?.annotations?.[HELD_BY_ANNOTATION], undefined);
    assert.deepEqual(fetched.spec, { pipelineRef: { name: 'x' } });
  });
});
