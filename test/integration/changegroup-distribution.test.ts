// docs/decisions.md D6 on a real kube-apiserver: an operator bundle pins its operand by the name it is
// released under (`registry.redhat.io/<a>/<b>@sha256:…`), not by its build repository. The
// ReleasePlanAdmission that maps the build to that name lives in a managed namespace; the manager
// caches it, and the ChangeGroup pull request rewrites that digest, and only that one (a longer
// name beside it stays). Before, the PR changed nothing and the component was listed as
// unreferenced.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../../src/adapters/forges/local/local-resolver.ts';
import type { RepositoryRef } from '../../src/adapters/forges/repository-url.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  RELEASE_PLAN_ADMISSIONS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { KonfluxStandIn } from '../../src/sandbox/konflux.ts';
import { NAMESPACE_NAME_LABEL, registerWebhooks } from '../../src/sandbox/webhooks.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { git, removeTempDirs, tempDir } from '../adapters/git/helpers.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const TENANT = 'netobserv-tenant';
const MANAGED = 'rhtap-releng-tenant';
const OLD = `sha256:${'0'.repeat(64)}`;
const OTHER = `sha256:${'7'.repeat(64)}`;
const RELEASED = 'registry.redhat.io/network-observability/network-observability-rhel9-operator';
/** A bundle CSV as operator bundles pin their operands: by the released name, once with a tag. */
const CSV = [
  'apiVersion: operators.coreos.com/v1alpha1',
  'kind: ClusterServiceVersion',
  'metadata:',
  '  name: netobserv-operator.v1.9.0',
  '  annotations:',
  `    containerImage: ${RELEASED}:v1.9@${OLD}`,
  'spec:',
  '  relatedImages:',
  `    - image: ${RELEASED}@${OLD}`,
  '      name: operator',
  `    - image: ${RELEASED}-console-plugin@${OTHER}`,
  '      name: console-plugin',
  '',
].join('\n');
const CSV_PATH = 'bundle/manifests/netobserv-operator.clusterserviceversion.yaml';

let plane: ControlPlane;
let client: KubeClient;
let manager: TestManager;
let forge: LocalForge;
let dir: string;
let bundle: RepositoryRef;

function component(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: TENANT },
    spec: { componentName: name, application: 'netobserv', ...spec },
  } as KubeObject;
}

before(async () => {
  dir = tempDir('changegroup-distribution');
  forge = new LocalForge({ root: join(dir, 'forge') });
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  for (const name of [TENANT, MANAGED]) {
    await client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { [NAMESPACE_NAME_LABEL]: name } },
    });
  }
  // release-service's object, in the managed namespace, naming the tenant as its origin.
  await client.create(RELEASE_PLAN_ADMISSIONS, {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ReleasePlanAdmission',
    metadata: { name: 'netobserv-prod', namespace: MANAGED },
    spec: {
      origin: TENANT,
      applications: ['netobserv'],
      policy: 'registry-standard',
      pipeline: {
        pipelineRef: {
          resolver: 'git',
          params: [
            { name: 'url', value: 'https://git.example/release-pipelines.git' },
            { name: 'revision', value: 'main' },
            { name: 'pathInRepo', value: 'pipelines/rh-push-to-registry-redhat-io.yaml' },
          ],
        },
      },
      data: {
        mapping: {
          defaults: { tags: ['{{ git_sha }}'] },
          components: [
            {
              name: 'netobserv-operator',
              repositories: [
                {
                  url: 'quay.io/redhat-prod/network-observability----network-observability-rhel9-operator',
                  tags: ['v1.9'],
                },
              ],
            },
          ],
        },
      },
    },
  } as KubeObject);
  manager = await startTestManager(plane.kubeConfig, {
    changeGroups: {
      forgeResolver: new LocalForgeResolver(forge),
      gitCacheDir: join(dir, 'git-cache'),
      pollIntervalMs: 300,
    },
  });
  await registerWebhooks(client, { url: (path) => manager.webhookUrl(path), caPem: manager.caPem, namespace: TENANT });
  bundle = await forge.createRepository('acme', 'netobserv-bundle', { [CSV_PATH]: CSV });
  await client.create(
    COMPONENTS,
    component('netobserv-operator', {
      containerImage: `quay.io/redhat-user-workloads/${TENANT}/netobserv-operator`,
      source: { git: { url: 'https://github.example/netobserv/network-observability-operator', revision: 'main' } },
    }),
  );
  await client.create(
    COMPONENTS,
    component('netobserv-bundle', {
      containerImage: `quay.io/redhat-user-workloads/${TENANT}/netobserv-bundle`,
      source: { git: { url: bundle.url, revision: 'main' } },
    }),
  );
  await eventually('the NudgeConfig to be admitted', () =>
    client.create(NUDGE_CONFIGS, {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: TENANT },
      spec: { nudges: [{ from: 'netobserv-operator', to: 'netobserv-bundle' }] },
    } as KubeObject),
  );
});

after(async () => {
  await manager.stop();
  client.close();
  await plane.close();
  removeTempDirs();
});

describe('ChangeGroup pull request and distribution repositories (D6)', () => {
  it('rewrites the registry.redhat.io name a ReleasePlanAdmission releases the component under', async () => {
    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'netobserv-bundle-update', namespace: TENANT },
      spec: { nudgedComponent: 'netobserv-bundle', nudgingComponents: [{ name: 'netobserv-operator' }] },
    } as KubeObject);
    const build = await new KonfluxStandIn(client).recordBuild({ namespace: TENANT, component: 'netobserv-operator' });
    assert.equal(build.nudge?.specStatus, 'Cancelled', 'the webhook holds the nudge');

    const status = await eventually('the build to reach the pull request', async () => {
      const cg = await client.get<KubeObject & { status?: ChangeGroupStatus }>(
        CHANGE_GROUPS,
        TENANT,
        'netobserv-bundle-update',
      );
      assert.equal(cg.status?.pullRequest?.pushedBuilds[0]?.digest, build.digest);
      return cg.status;
    });
    assert.deepEqual(
      status.components?.map((c) => [c.name, c.state]),
      [['netobserv-operator', 'Ready']],
      'referenced through its distribution name, so not NotReferenced',
    );
    const head = await forge.branchHead(bundle, 'konflux/change-groups/netobserv-bundle-update');
    assert.ok(head !== undefined);
    const csv = git(dir, '--git-dir', forge.gitDirectory(bundle), 'show', `${head}:${CSV_PATH}`);
    assert.equal(
      csv,
      CSV.replace(`${RELEASED}:v1.9@${OLD}`, `${RELEASED}:v1.9@${build.digest}`).replace(
        `${RELEASED}@${OLD}`,
        `${RELEASED}@${build.digest}`,
      ),
      'both references to the released name get the digest, the tag is kept, the longer name is untouched',
    );
  });
});
