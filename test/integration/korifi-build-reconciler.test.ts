// The Korifi build reconciler on a real control plane with Korifi's and kpack's CRDs and a real
// local OCI registry (issue 13, docs/decisions.md D13, N41): each row of ADR 6's lifecycle table,
// a builder not ready then ready, and one never ready ending in BuilderNotReady. kpack's part is
// played by the sandbox's kpack stand-in (docs/decisions.md N43) through the same API objects.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  BUILD_WORKLOADS,
  CF_APPS,
  CF_BUILDS,
  KPACK_BUILDERS,
  KPACK_BUILDS,
  KPACK_IMAGES,
} from '../../src/adapters/kubernetes/korifi-resources.ts';
import { CORE_EVENTS, SECRETS, SERVICE_ACCOUNTS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { korifiBuildController } from '../../src/controllers/korifi/build-workload-controller.ts';
import { EventRecorder } from '../../src/runtime/events.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createRegistry } from '../../src/runtime/metrics.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';
import {
  installDefaultClusterBuilder,
  KpackStandIn,
  registryPush,
  type KpackObject,
} from '../../src/sandbox/korifi/kpack.ts';
import {
  startTestRegistry,
  TEST_REGISTRY_PASSWORD,
  TEST_REGISTRY_USER,
  type TestRegistry,
} from '../support/registry.ts';
import { startKorifiControlPlane, type KorifiControlPlane } from './korifi-control-plane.ts';
import { startTestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const CLUSTER_BUILDER = 'cf-kpack-cluster-builder';
const STACK_ID = 'io.buildpacks.stacks.jammy';
const STORE = ['paketo-buildpacks/nodejs', 'paketo-buildpacks/go'];
const APP_LABEL = 'korifi.cloudfoundry.org/app-guid';
const BUILD_LABEL = 'korifi.cloudfoundry.org/build-guid';
/** The second controller's builder name: the same reconciler with a 2 s readiness timeout. */
const SHORT = 'nudger-kpack-short';

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

const conditionOf = (object: Obj | undefined, type: string): Condition | undefined =>
  (object?.status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);

describe('Korifi build reconciler (real control plane, real registry)', () => {
  let plane: KorifiControlPlane;
  let registry: TestRegistry;
  /** A second registry that wants the space's credentials (HTTP Basic). */
  let privateRegistry: TestRegistry;
  let kpack: KpackStandIn;
  const stopping = new AbortController();
  let running: Promise<unknown>;
  let client: KubeClient;
  let spaceCount = 0;

  before(async () => {
    [plane, registry, privateRegistry] = await Promise.all([
      startKorifiControlPlane(),
      startTestRegistry(),
      startTestRegistry({ basicAuth: true }),
    ]);
    client = plane.client;
    const logger = createLogger({ level: 'warn' });
    const metrics = createRegistry();
    const informers = new SharedInformers({ http: client.http, registry: metrics, logger });
    const events = new EventRecorder({ client, component: 'nudger-test', logger });
    const context = { client, informers, events, registry: metrics, logger };
    const korifi = { repositoryPrefix: `${registry.host}/cf/` };
    const runs = [
      korifiBuildController.setUp({ ...context, settings: { korifi } }),
      korifiBuildController.setUp({
        ...context,
        settings: { korifi: { ...korifi, builderName: SHORT, readinessTimeoutMs: 2_000 } },
      }),
    ];
    running = Promise.all([informers.run(stopping.signal), ...runs.map((run) => run(stopping.signal))]);
    await installDefaultClusterBuilder(client, { buildpacks: STORE });
    kpack = new KpackStandIn({
      client,
      // kpack pushes with its own credentials: the private registry's, anonymous elsewhere.
      push: registryPush({ credentials: privateRegistry.credentialsLookup }),
      launch: () => ({ processes: [{ type: 'web', command: 'node', args: ['server.js'] }], ports: [8080] }),
    });
    kpack.start(100, () => undefined);
  });

  after(async () => {
    await kpack.stop();
    stopping.abort();
    await running.catch(() => undefined);
    await Promise.all([plane.stop(), registry.stop(), privateRegistry.stop()]);
  });

  async function space(): Promise<string> {
    spaceCount += 1;
    return plane.createSpace(`space-${String(spaceCount)}`);
  }

  const lifecycle = (buildpacks: string[]) => ({ type: 'buildpack', data: { buildpacks, stack: 'cflinuxfs3' } });

  async function createApp(namespace: string, app: string, buildpacks: string[]): Promise<void> {
    await client.create(CF_APPS, {
      apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
      kind: 'CFApp',
      metadata: { name: app, namespace },
      spec: { displayName: app, desiredState: 'STOPPED', lifecycle: lifecycle(buildpacks) },
    });
  }

  /** A CFBuild and its BuildWorkload, as Korifi's API and build controller make them. */
  async function stage(
    namespace: string,
    app: string,
    build: string,
    buildpacks: string[],
    builderName = 'nudger-kpack',
    pkg = `package-${build}`,
  ): Promise<void> {
    await client.create(CF_BUILDS, {
      apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
      kind: 'CFBuild',
      metadata: { name: build, namespace, labels: { [APP_LABEL]: app } },
      spec: {
        packageRef: { name: pkg },
        appRef: { name: app },
        stagingMemoryMB: 1024,
        stagingDiskMB: 1024,
        lifecycle: lifecycle(buildpacks),
      },
    });
    await client.create(BUILD_WORKLOADS, {
      apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
      kind: 'BuildWorkload',
      metadata: { name: build, namespace, labels: { [APP_LABEL]: app, [BUILD_LABEL]: build } },
      spec: {
        buildRef: { name: build },
        builderName,
        buildpacks,
        source: { registry: { image: `${registry.host}/cf/packages/${pkg}`, imagePullSecrets: [] } },
      },
    });
  }

  async function finished(namespace: string, build: string): Promise<Obj> {
    return eventually(`BuildWorkload ${namespace}/${build} to finish`, async () => {
      const workload = await client.get<Obj>(BUILD_WORKLOADS, namespace, build);
      const succeeded = conditionOf(workload, 'Succeeded');
      return succeeded === undefined || succeeded.status === 'Unknown' ? undefined : workload;
    });
  }

  async function succeededDroplet(namespace: string, build: string): Promise<Record<string, unknown>> {
    const workload = await finished(namespace, build);
    const succeeded = conditionOf(workload, 'Succeeded');
    assert.equal(succeeded?.status, 'True', JSON.stringify(succeeded));
    assert.equal(succeeded.reason, 'BuildSucceeded');
    const droplet = workload.status?.droplet as Record<string, unknown>;
    // The droplet is the image of this workload's kpack Build, read back from the registry.
    const builds = (await client.list<Obj>(KPACK_BUILDS, { namespace })).items.filter(
      (b) =>
        b.metadata?.labels?.['image.kpack.io/imageGeneration'] ===
        workload.metadata?.labels?.['korifi.cloudfoundry.org/kpack-image-generation'],
    );
    assert.equal((droplet.registry as { image: string }).image, builds.at(-1)?.status?.latestImage);
    assert.equal(droplet.stack, STACK_ID);
    assert.deepEqual(droplet.processTypes, [{ type: 'web', command: 'node "server.js"' }]);
    assert.deepEqual(droplet.ports, [8080]);
    return droplet;
  }

  const buildersOf = async (namespace: string) => (await client.list<Obj>(KPACK_BUILDERS, { namespace })).items;
  const imageOf = (namespace: string, app: string) => client.get<Obj>(KPACK_IMAGES, namespace, app);

  it('default: no lifecycle buildpacks, the default ClusterBuilder, no Builder made', async () => {
    const ns = await space();
    await createApp(ns, 'app-default', []);
    await stage(ns, 'app-default', 'build-default-1', []);
    await succeededDroplet(ns, 'build-default-1');
    const image = await imageOf(ns, 'app-default');
    assert.deepEqual(image.spec?.builder, {
      kind: 'ClusterBuilder',
      name: CLUSTER_BUILDER,
      apiVersion: 'kpack.io/v1alpha2',
    });
    assert.equal(image.spec.tag, `${registry.host}/cf/app-default-droplets`);
    assert.equal(image.spec.serviceAccountName, 'kpack-service-account');
    assert.deepEqual(image.spec.source, {
      registry: { image: `${registry.host}/cf/packages/package-build-default-1`, imagePullSecrets: [] },
    });
    assert.deepEqual(await buildersOf(ns), []);
  });

  it('app lifecycle: one Builder labelled with the app, reused across two builds', async () => {
    const ns = await space();
    await createApp(ns, 'app-go', ['paketo-buildpacks/go']);
    await stage(ns, 'app-go', 'build-go-1', ['paketo-buildpacks/go']);
    const first = await succeededDroplet(ns, 'build-go-1');
    await stage(ns, 'app-go', 'build-go-2', ['paketo-buildpacks/go']);
    const second = await succeededDroplet(ns, 'build-go-2');
    assert.notDeepEqual(first.registry, second.registry, 'the second build has its own image');
    const builders = await buildersOf(ns);
    assert.equal(builders.length, 1);
    const [builder] = builders;
    assert.deepEqual(builder?.metadata?.labels, { [APP_LABEL]: 'app-go' });
    assert.deepEqual(builder.spec?.order, [{ group: [{ id: 'paketo-buildpacks/go' }] }]);
    assert.deepEqual(builder.spec.stack, { kind: 'ClusterStack', name: 'cf-default-stack' });
    assert.deepEqual(builder.spec.store, { kind: 'ClusterStore', name: 'cf-default-buildpacks' });
    const image = await imageOf(ns, 'app-go');
    assert.deepEqual(image.spec?.builder, {
      kind: 'Builder',
      name: builder.metadata.name,
      namespace: ns,
      apiVersion: 'kpack.io/v1alpha2',
    });
    // One Image for the app, owned by both workloads.
    const owners = (image.metadata?.ownerReferences as { name: string }[]).map((o) => o.name).sort();
    assert.deepEqual(owners, ['build-go-1', 'build-go-2']);
  });

  it('build lifecycle: a new Builder labelled with the app and the build', async () => {
    const ns = await space();
    await createApp(ns, 'app-mixed', ['paketo-buildpacks/go']);
    await stage(ns, 'app-mixed', 'build-mixed-1', ['paketo-buildpacks/go']);
    await succeededDroplet(ns, 'build-mixed-1');
    await stage(ns, 'app-mixed', 'build-mixed-2', ['paketo-buildpacks/nodejs']);
    await succeededDroplet(ns, 'build-mixed-2');
    const builders = await buildersOf(ns);
    const labels = builders
      .map((b) => b.metadata?.labels)
      .sort((a, b) => Object.keys(a ?? {}).length - Object.keys(b ?? {}).length);
    assert.deepEqual(labels, [
      { [APP_LABEL]: 'app-mixed' },
      { [APP_LABEL]: 'app-mixed', [BUILD_LABEL]: 'build-mixed-2' },
    ]);
    const buildBuilder = builders.find((b) => b.metadata?.labels?.[BUILD_LABEL] === 'build-mixed-2');
    assert.deepEqual(buildBuilder?.spec?.order, [{ group: [{ id: 'paketo-buildpacks/nodejs' }] }]);
    const image = await imageOf(ns, 'app-mixed');
    assert.equal((image.spec?.builder as { name: string }).name, buildBuilder.metadata?.name);
  });

  it('the same package on another builder with the same buildpack: nudger asks kpack for the build', async () => {
    const ns = await space();
    await createApp(ns, 'app-same', []);
    // The default ClusterBuilder; the stand-in detects its first group, nodejs.
    await stage(ns, 'app-same', 'build-same-1', [], 'nudger-kpack', 'package-same');
    await succeededDroplet(ns, 'build-same-1');
    // A restage of the same package with the build's own [nodejs]: only spec.builder changes, and
    // kpack counts no change for that (kpack#1198: same source, same buildpack, same run image).
    await stage(ns, 'app-same', 'build-same-2', ['paketo-buildpacks/nodejs'], 'nudger-kpack', 'package-same');
    await succeededDroplet(ns, 'build-same-2');
    const builds = [...(await client.list<Obj>(KPACK_BUILDS, { namespace: ns })).items].sort(
      (x, y) =>
        Number(x.metadata?.labels?.['image.kpack.io/buildNumber']) -
        Number(y.metadata?.labels?.['image.kpack.io/buildNumber']),
    );
    assert.deepEqual(
      builds.map((build) => build.metadata?.annotations?.['image.kpack.io/reason']),
      ['CONFIG', 'TRIGGER'],
    );
    assert.equal(builds[0]?.metadata?.annotations?.['image.kpack.io/additionalBuildNeeded'], 'true');
  });

  it('a buildpack the store lacks: InvalidBuildpacks naming it, no Builder', async () => {
    const ns = await space();
    await createApp(ns, 'app-cobol', []);
    await stage(ns, 'app-cobol', 'build-cobol-1', ['acme/cobol']);
    const succeeded = conditionOf(await finished(ns, 'build-cobol-1'), 'Succeeded');
    assert.equal(succeeded?.status, 'False');
    assert.equal(succeeded.reason, 'InvalidBuildpacks');
    assert.match(succeeded.message, /"acme\/cobol"/);
    assert.deepEqual(await buildersOf(ns), []);
  });

  it('a builder not ready, then ready: reported on the workload, then built', async () => {
    const ns = await space();
    const release = kpack.holdBuildersWhere((b: KpackObject) => b.metadata?.labels?.[APP_LABEL] === 'app-wait');
    await createApp(ns, 'app-wait', ['paketo-buildpacks/nodejs']);
    await stage(ns, 'app-wait', 'build-wait-1', ['paketo-buildpacks/nodejs']);
    const waiting = await eventually('the Builder reported not ready', async () => {
      const workload = await client.get<Obj>(BUILD_WORKLOADS, ns, 'build-wait-1');
      const ready = conditionOf(workload, 'BuilderReady');
      return ready?.status === 'False' && ready.message.includes('NoLatestImage') ? workload : undefined;
    });
    assert.equal(conditionOf(waiting, 'Succeeded')?.status, 'Unknown');
    assert.match(
      conditionOf(waiting, 'BuilderReady')?.message ?? '',
      new RegExp(`Builder ${ns}/app-app-wait: Ready is False`),
    );
    await assert.rejects(imageOf(ns, 'app-wait'), 'no Image while the builder is not ready');
    release();
    await succeededDroplet(ns, 'build-wait-1');
    const workload = await client.get<Obj>(BUILD_WORKLOADS, ns, 'build-wait-1');
    assert.equal(conditionOf(workload, 'BuilderReady')?.status, 'True');
  });

  it('a builder never ready: BuilderNotReady after the timeout, naming the builder and why', async () => {
    const ns = await space();
    kpack.holdBuildersWhere((b: KpackObject) => b.metadata?.labels?.[APP_LABEL] === 'app-never');
    // Made by hand as nudger would make it, and never ready: found by its label and waited for.
    const builder = await client.create<Obj>(KPACK_BUILDERS, {
      apiVersion: 'kpack.io/v1alpha2',
      kind: 'Builder',
      metadata: { name: 'app-app-never', namespace: ns, labels: { [APP_LABEL]: 'app-never' } },
      spec: {
        tag: `${registry.host}/cf/builders-app-app-never`,
        stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
        store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
        serviceAccountName: 'kpack-service-account',
        order: [{ group: [{ id: 'paketo-buildpacks/go' }] }],
      },
    });
    await client.replaceStatus(KPACK_BUILDERS, {
      ...builder,
      status: {
        observedGeneration: builder.metadata?.generation,
        conditions: [
          { type: 'Ready', status: 'False', reason: 'NoLatestImage', message: 'Builder has no latestImage' },
        ],
      },
    });
    await createApp(ns, 'app-never', ['paketo-buildpacks/go']);
    await stage(ns, 'app-never', 'build-never-1', ['paketo-buildpacks/go'], SHORT);
    const succeeded = conditionOf(await finished(ns, 'build-never-1'), 'Succeeded');
    assert.equal(succeeded?.status, 'False');
    assert.equal(succeeded.reason, 'BuilderNotReady');
    assert.match(
      succeeded.message,
      new RegExp(`^Builder ${ns}/app-app-never not ready within 2s: Ready is False \\(NoLatestImage`),
    );
    await assert.rejects(imageOf(ns, 'app-never'));
    // Told once by a Warning Event on the BuildWorkload.
    const events = await eventually('the BuilderNotReady Event', async () => {
      const found = (
        await client.list<Obj & { reason?: string; type?: string; message?: string }>(CORE_EVENTS, { namespace: ns })
      ).items.filter((e) => e.reason === 'BuilderNotReady');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type, 'Warning');
    assert.equal(events[0].message, succeeded.message);
    // The Builder stays: nudger never deletes Builders.
    assert.equal((await buildersOf(ns)).length, 1);
  });

  it('runs in nudger manager with --controllers=korifi, reading a private registry as the space allows', async () => {
    const manager = await startTestManager(plane.plane.kubeConfig, {
      overrides: {
        controllerGroups: ['korifi'],
        korifi: { builderName: 'nudger-kpack-manager', repositoryPrefix: `${privateRegistry.host}/cf/` },
      },
    });
    try {
      const ns = await space();
      // As Korifi sets a space up: kpack-service-account with the registry's Secret.
      const auth = Buffer.from(`${TEST_REGISTRY_USER}:${TEST_REGISTRY_PASSWORD}`).toString('base64');
      await client.create(SECRETS, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'image-registry-credentials', namespace: ns },
        type: 'kubernetes.io/dockerconfigjson',
        data: {
          '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { [privateRegistry.host]: { auth } } })).toString(
            'base64',
          ),
        },
      });
      await client.create(SERVICE_ACCOUNTS, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'kpack-service-account', namespace: ns },
        secrets: [{ name: 'image-registry-credentials' }],
        imagePullSecrets: [{ name: 'image-registry-credentials' }],
      });
      await createApp(ns, 'app-managed', ['paketo-buildpacks/go']);
      await stage(ns, 'app-managed', 'build-managed-1', ['paketo-buildpacks/go'], 'nudger-kpack-manager');
      const droplet = await succeededDroplet(ns, 'build-managed-1');
      assert.deepEqual(droplet.registry, {
        image: (droplet.registry as { image: string }).image,
        imagePullSecrets: [{ name: 'image-registry-credentials' }],
      });
      assert.ok(
        (droplet.registry as { image: string }).image.startsWith(`${privateRegistry.host}/cf/app-managed-droplets@`),
      );
      assert.deepEqual(
        (await buildersOf(ns)).map((b) => b.metadata?.labels),
        [{ [APP_LABEL]: 'app-managed' }],
      );
    } finally {
      await manager.stop();
    }
  });
});
