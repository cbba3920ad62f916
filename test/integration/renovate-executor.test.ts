// The `renovate` executor against a real kube-apiserver with Tekton's CRD (docs/decisions.md D9): the
// token comes from the tenant's SCM Secret through the manager's own resolver, the nudge
// PipelineRun is stored as built, and its ConfigMap and Secret carry owner references to the uid
// the API server gave it. (The test control plane runs no kube-controller-manager, so garbage
// collection itself is not observed: the owner references are what it would act on.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { HostedForgeResolver } from '../../src/adapters/forges/hosted-resolver.ts';
import { publicForgeHosts } from '../../src/adapters/forges/registry.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { CONFIG_MAPS, NAMESPACES, PIPELINE_RUNS, SECRETS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { ForgeResolverAccess } from '../../src/controllers/dispatch/renovate/forge-access.ts';
import { RenovateExecutor } from '../../src/controllers/dispatch/renovate/renovate-executor.ts';
import { RenovateNudgeConfig } from '../../src/schema/renovate-config.ts';
import { KEY, NS, TOKEN, batchRequest, renovateRequest } from '../controllers/renovate-executor-fixtures.ts';
import { UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';

const NAME = `renovate-pipeline-${KEY}`;

interface Stored extends KubeObject {
  data?: Record<string, string>;
  spec?: { taskRunTemplate?: { serviceAccountName?: string } };
}

let plane: ControlPlane;
let client: KubeClient;
let executor: RenovateExecutor;

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.pipelineRuns] });
  client = new KubeClient(plane.kubeConfig);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  // The tenant's SCM Secret, as Konflux labels it; the username is the Renovate user.
  await client.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'github-acme',
      namespace: NS,
      labels: { 'appstudio.redhat.com/credentials': 'scm', 'appstudio.redhat.com/scm.host': 'github.com' },
      annotations: { 'appstudio.redhat.com/scm.repository': 'acme/*' },
    },
    type: 'kubernetes.io/basic-auth',
    stringData: { username: 'acme-bot', password: TOKEN },
  } as KubeObject);
  const hosts = publicForgeHosts();
  executor = new RenovateExecutor({
    client,
    forgeAccess: new ForgeResolverAccess(new HostedForgeResolver(client, hosts), { hosts }),
    fieldManager: 'nudger',
  });
});

after(async () => {
  await plane.close();
});

describe('the renovate executor on a real API server', () => {
  it('stores the run, its ConfigMap and its Secret, owned by the run; a repeat changes nothing', async () => {
    assert.deepEqual((await executor.fire(renovateRequest())).result, { ok: true, detail: NAME });
    const run = await client.get<Stored>(PIPELINE_RUNS, NS, NAME);
    const uid = run.metadata?.uid ?? '';
    assert.notEqual(uid, '');
    assert.equal(run.metadata?.labels?.['build.appstudio.redhat.com/type'], 'nudge');
    assert.equal(run.spec?.taskRunTemplate?.serviceAccountName, 'appstudio-pipeline');
    const owner = [{ apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: NAME, uid, controller: false }];
    const configMap = await client.get<Stored>(CONFIG_MAPS, NS, NAME);
    const secret = await client.get<Stored>(SECRETS, NS, NAME);
    assert.deepEqual(configMap.metadata?.ownerReferences, owner);
    assert.deepEqual(secret.metadata?.ownerReferences, owner);

    // The config is what the closed schema allows, for the SCM Secret's user.
    const config = JSON.parse(configMap.data?.['operator-bundle-0.json'] ?? '') as Record<string, unknown>;
    assert.equal(new Ajv({ strict: false }).validate(RenovateNudgeConfig, config), true);
    assert.equal(config.username, 'acme-bot');
    assert.equal(config.gitAuthor, 'acme-bot <123456+acme-bot[bot]@users.noreply.github.com>');
    assert.equal(config.endpoint, 'https://api.github.com/');

    // The token: in the Secret, and in nothing else the executor wrote.
    assert.equal(Buffer.from(secret.data?.token_0 ?? '', 'base64').toString('utf8'), TOKEN);
    const elsewhere = JSON.stringify([run, configMap]);
    assert.equal(elsewhere.includes(TOKEN) || elsewhere.includes(Buffer.from(TOKEN).toString('base64')), false);

    const before = [run, configMap, secret].map((object) => object.metadata?.resourceVersion);
    assert.deepEqual((await executor.fire(renovateRequest({ attempt: 2 }))).result, { ok: true, detail: NAME });
    const again = await Promise.all([
      client.get<Stored>(PIPELINE_RUNS, NS, NAME),
      client.get<Stored>(CONFIG_MAPS, NS, NAME),
      client.get<Stored>(SECRETS, NS, NAME),
    ]);
    assert.deepEqual(
      again.map((object) => object.metadata?.resourceVersion),
      before,
    );
    const runs = await client.list(PIPELINE_RUNS, { namespace: NS });
    assert.deepEqual(
      runs.items.map((item) => item.metadata?.name),
      [NAME],
    );
  });

  it('a repository the SCM Secret is not for gets no-credentials, permanently, and nothing is created', async () => {
    const request = renovateRequest({
      key: 'ffffffffffffffff',
      nudged: {
        ...renovateRequest().nudged,
        spec: { ...renovateRequest().nudged.spec, source: { git: { url: 'https://github.com/other/repo' } } },
      },
    });
    const { result } = await executor.fire(request);
    assert.deepEqual(result.ok ? undefined : [result.reason, result.permanent], ['no-credentials', true]);
    await assert.rejects(client.get(PIPELINE_RUNS, NS, 'renovate-pipeline-ffffffffffffffff'));
  });

  it('a validated batch: one run named from its key, one config covering every component; a repeat changes nothing', async () => {
    const request = batchRequest();
    const name = `renovate-pipeline-${request.key}`;
    assert.deepEqual((await executor.fireBatch(request)).result, { ok: true, detail: name });
    const run = await client.get<Stored>(PIPELINE_RUNS, NS, name);
    const annotations = run.metadata?.annotations ?? {};
    assert.equal(annotations['nudger.konflux-ci.dev/gating-group'], 'operators');
    assert.equal(annotations['nudger.konflux-ci.dev/nudging-components'], 'operand-a operand-b');
    const configMap = await client.get<Stored>(CONFIG_MAPS, NS, name);
    const secret = await client.get<Stored>(SECRETS, NS, name);
    const owner = [
      { apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name, uid: run.metadata?.uid, controller: false },
    ];
    assert.deepEqual([configMap.metadata?.ownerReferences, secret.metadata?.ownerReferences], [owner, owner]);
    const config = JSON.parse(configMap.data?.['operator-bundle-0.json'] ?? '') as RenovateNudgeConfig;
    assert.equal(new Ajv({ strict: false }).validate(RenovateNudgeConfig, config), true);
    assert.deepEqual(
      config.customManagers.map((m) => m.depNameTemplate),
      ['quay.io/acme/operand-a', 'quay.io/acme/operand-b'],
    );
    assert.equal(config.packageRules[1].groupSlug, 'operator-bundle-validated-operators');
    assert.equal(Buffer.from(secret.data?.token_0 ?? '', 'base64').toString('utf8'), TOKEN);
    assert.equal(JSON.stringify([run, configMap]).includes(TOKEN), false);

    const versions = [run, configMap, secret].map((object) => object.metadata?.resourceVersion);
    assert.deepEqual((await executor.fireBatch({ ...request, attempt: 2 })).result, { ok: true, detail: name });
    const again = await Promise.all(
      [PIPELINE_RUNS, CONFIG_MAPS, SECRETS].map((ref) => client.get<Stored>(ref, NS, name)),
    );
    assert.deepEqual(
      again.map((object) => object.metadata?.resourceVersion),
      versions,
    );
  });
});
