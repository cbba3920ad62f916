// The sandbox's kpack stand-in (docs/decisions.md N43) on a real control plane with kpack's CRDs and
// a real local OCI registry: it drives the default ClusterBuilder (as Korifi's Helm chart makes it)
// and a namespaced Builder to Ready, keeps a held builder not ready, builds each Image into the
// registry with a buildpacks build's config labels and kpack's Build and Image fields, and turns a
// stack update, a buildpack update and both into STACK, BUILDPACK and BUILDPACK,STACK rebuilds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  KPACK_BUILDERS,
  KPACK_BUILDS,
  KPACK_CLUSTER_BUILDERS,
  KPACK_CLUSTER_STACKS,
  KPACK_CLUSTER_STORES,
  KPACK_IMAGES,
} from '../../src/adapters/kubernetes/korifi-resources.ts';
import type { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { readImageConfig } from '../../src/adapters/registry/client.ts';
import {
  installDefaultClusterBuilder,
  KpackStandIn,
  type KpackObject,
  type RanBuild,
} from '../../src/sandbox/korifi/kpack.ts';
import { startKorifiControlPlane, type KorifiControlPlane } from '../integration/korifi-control-plane.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

const SPACE = 'space-a';
const JAMMY = 'io.buildpacks.stacks.jammy';
const NODEJS = 'paketo-buildpacks/nodejs';
const JAVA = 'paketo-buildpacks/java';
/** The annotation this test uses to tell the stand-in which order group "detects" for an Image. */
const DETECT_ANNOTATION = 'test.nudger.dev/detects';

let cluster: KorifiControlPlane;
let client: KubeClient;
let registry: TestRegistry;
let kpack: KpackStandIn;

before(async () => {
  [cluster, registry] = await Promise.all([startKorifiControlPlane(), startTestRegistry()]);
  client = cluster.client;
  await cluster.createSpace(SPACE);
  await installDefaultClusterBuilder(client, { buildpacks: [NODEJS, JAVA, 'paketo-buildpacks/go'] });
  kpack = new KpackStandIn({
    client,
    held: [{ kind: 'Builder', namespace: SPACE, name: 'held' }],
    detect: (image, order) =>
      order.findIndex((group) => group[0]?.id === (image.metadata?.annotations?.[DETECT_ANNOTATION] ?? NODEJS)),
  });
});
after(async () => {
  await kpack.stop();
  await Promise.all([cluster.stop(), registry.stop()]);
});

const get = (ref: typeof KPACK_IMAGES, name: string, namespace = SPACE): Promise<KpackObject> =>
  client.get<KpackObject>(ref, ref.namespaced ? namespace : '', name);

function condition(object: KpackObject, type: string): Record<string, unknown> | undefined {
  const conditions = object.status?.conditions;
  return Array.isArray(conditions)
    ? (conditions as Record<string, unknown>[]).find((entry) => entry.type === type)
    : undefined;
}

async function buildsOf(image: string): Promise<KpackObject[]> {
  const page = await client.list<KpackObject>(KPACK_BUILDS, {
    namespace: SPACE,
    labelSelector: `image.kpack.io/image=${image}`,
  });
  return [...page.items].sort(
    (a, b) =>
      Number(a.metadata?.labels?.['image.kpack.io/buildNumber']) -
      Number(b.metadata?.labels?.['image.kpack.io/buildNumber']),
  );
}

async function createImage(name: string, options: { builder?: Record<string, string>; detects?: string } = {}) {
  await client.create(KPACK_IMAGES, {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Image',
    metadata: {
      name,
      namespace: SPACE,
      labels: { 'korifi.cloudfoundry.org/build-workload-name': `${name}-bw` },
      ...(options.detects === undefined ? {} : { annotations: { [DETECT_ANNOTATION]: options.detects } }),
    },
    spec: {
      tag: `${registry.host}/cf/${name}-droplets`,
      builder: options.builder ?? { kind: 'ClusterBuilder', name: 'cf-kpack-cluster-builder' },
      serviceAccountName: 'kpack-service-account',
      source: { registry: { image: `${registry.host}/cf/${name}-packages@sha256:${'a'.repeat(64)}` } },
    },
  });
}

/** The lifecycle metadata label's app layer and run image of an image in the registry. */
async function layersOf(reference: string): Promise<{ app: string; runImage: string; stackId: string }> {
  const config = await readImageConfig(reference);
  const lifecycle = JSON.parse(config.labels['io.buildpacks.lifecycle.metadata'] ?? '{}') as {
    app: { sha: string }[];
    runImage: { reference: string };
  };
  return {
    app: lifecycle.app[0]?.sha ?? '',
    runImage: lifecycle.runImage.reference,
    stackId: config.labels['io.buildpacks.stack.id'] ?? '',
  };
}

const reasonsBy = (ran: readonly RanBuild[]): Record<string, string> =>
  Object.fromEntries(ran.map((build) => [build.image, build.reason]));

describe('kpack stand-in on a real control plane and registry', () => {
  it('drives the default ClusterBuilder, its ClusterStack and ClusterStore to Ready with kpack fields', async () => {
    // Installing again leaves the existing objects as they are.
    await installDefaultClusterBuilder(client, { buildpacks: [NODEJS] });
    await kpack.poll();
    const builder = await get(KPACK_CLUSTER_BUILDERS, 'cf-kpack-cluster-builder');
    assert.equal(condition(builder, 'Ready')?.status, 'True');
    assert.equal(condition(builder, 'UpToDate')?.status, 'True');
    assert.equal(builder.status?.observedGeneration, builder.metadata?.generation);
    assert.match(String(builder.status?.latestImage), /@sha256:[0-9a-f]{64}$/);
    const stack = builder.status?.stack as { id: string; runImage: string };
    assert.equal(stack.id, JAMMY);
    assert.match(stack.runImage, /^paketobuildpacks\/run-jammy-full@sha256:[0-9a-f]{64}$/);
    assert.deepEqual(builder.status?.order, [
      { group: [{ id: NODEJS, version: '1.0.0' }] },
      { group: [{ id: JAVA, version: '1.0.0' }] },
      { group: [{ id: 'paketo-buildpacks/go', version: '1.0.0' }] },
    ]);
    assert.equal((builder.status.builderMetadata as unknown[]).length, 3);
    const clusterStack = await get(KPACK_CLUSTER_STACKS, 'cf-default-stack');
    assert.equal(condition(clusterStack, 'Ready')?.status, 'True');
    assert.equal((clusterStack.status?.runImage as { latestImage: string }).latestImage, stack.runImage);
    const store = await get(KPACK_CLUSTER_STORES, 'cf-default-buildpacks');
    assert.equal(condition(store, 'Ready')?.status, 'True');
    assert.equal((store.status?.buildpacks as unknown[]).length, 3);
  });

  it('builds an Image into the registry: a CONFIG Build as kpack names and labels it, and a Ready Image', async () => {
    await createImage('app-1');
    const ran = await kpack.poll();
    assert.deepEqual(reasonsBy(ran), { 'app-1': 'CONFIG' });
    const image = await get(KPACK_IMAGES, 'app-1');
    const [build, ...more] = await buildsOf('app-1');
    assert.ok(build !== undefined);
    assert.equal(more.length, 0);
    assert.match(build.metadata?.name ?? '', /^app-1-build-1-[a-z0-9]{5}$/);
    assert.deepEqual(build.metadata?.labels, {
      'korifi.cloudfoundry.org/build-workload-name': 'app-1-bw',
      'image.kpack.io/buildNumber': '1',
      'image.kpack.io/image': 'app-1',
      'image.kpack.io/imageGeneration': String(image.metadata?.generation),
    });
    const annotations = build.metadata.annotations ?? {};
    assert.equal(annotations['image.kpack.io/reason'], 'CONFIG');
    assert.equal(annotations['image.kpack.io/builderName'], 'cf-kpack-cluster-builder');
    assert.equal(annotations['image.kpack.io/builderKind'], 'ClusterBuilder');
    assert.equal(
      (JSON.parse(annotations['image.kpack.io/buildChanges'] ?? '[]') as { reason: string }[])[0]?.reason,
      'CONFIG',
    );
    assert.deepEqual(build.metadata.ownerReferences, [
      {
        apiVersion: 'kpack.io/v1alpha2',
        kind: 'Image',
        name: 'app-1',
        uid: image.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const tags = build.spec?.tags as string[];
    assert.equal(tags[0], `${registry.host}/cf/app-1-droplets`);
    assert.match(tags[1] ?? '', new RegExp(`^${registry.host}/cf/app-1-droplets:b1\\.\\d{8}\\.\\d{6}$`));
    assert.equal(condition(build, 'Succeeded')?.status, 'True');
    assert.deepEqual(build.status?.buildMetadata, [{ id: NODEJS, version: '1.0.0', homepage: `https://${NODEJS}` }]);
    assert.equal((build.status.stack as { id: string }).id, JAMMY);

    const latestImage = String(build.status.latestImage);
    assert.match(latestImage, new RegExp(`^${registry.host}/cf/app-1-droplets@sha256:[0-9a-f]{64}$`));
    assert.equal(condition(image, 'Ready')?.status, 'True');
    assert.equal(condition(image, 'BuilderReady')?.status, 'True');
    assert.equal(image.status?.latestImage, latestImage);
    assert.equal(image.status.latestBuildRef, build.metadata.name);
    assert.equal(image.status.latestBuildReason, 'CONFIG');
    assert.equal(image.status.latestStack, JAMMY);
    assert.equal(image.status.buildCounter, 1);
    assert.equal(image.status.observedGeneration, image.metadata?.generation);
    assert.equal(image.status.latestBuildImageGeneration, image.metadata?.generation);

    // Pullable, with what a buildpacks build writes in its config.
    const config = await readImageConfig(latestImage);
    const metadata = JSON.parse(config.labels['io.buildpacks.build.metadata'] ?? '{}') as {
      processes: { type: string; command: string }[];
      buildpacks: { id: string }[];
    };
    assert.deepEqual(
      metadata.processes.map((process) => process.type),
      ['web'],
    );
    assert.equal(metadata.buildpacks[0]?.id, NODEJS);
    assert.equal(config.labels['io.buildpacks.stack.id'], JAMMY);
    assert.deepEqual(config.ports, [8080]);
    assert.equal((await readImageConfig(tags[0])).digest, latestImage.split('@')[1]);
    // Nothing changed: another round builds nothing and writes the same status.
    assert.deepEqual(await kpack.poll(), []);
  });

  it('drives a namespaced Builder to Ready; a held one stays not ready, its Image BuilderNotReady, until released', async () => {
    const builderSpec = {
      tag: `${registry.host}/builders/custom`,
      serviceAccountName: 'kpack-service-account',
      stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
      store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
      order: [{ group: [{ id: JAVA }] }],
    };
    for (const name of ['custom', 'held']) {
      await client.create(KPACK_BUILDERS, {
        apiVersion: 'kpack.io/v1alpha2',
        kind: 'Builder',
        metadata: { name, namespace: SPACE },
        spec: builderSpec,
      });
    }
    await createImage('app-held', { builder: { kind: 'Builder', name: 'held' } });
    assert.deepEqual(await kpack.poll(), []);
    const custom = await get(KPACK_BUILDERS, 'custom');
    assert.equal(condition(custom, 'Ready')?.status, 'True');
    assert.equal(custom.status?.observedGeneration, custom.metadata?.generation);
    assert.deepEqual(custom.status?.order, [{ group: [{ id: JAVA, version: '1.0.0' }] }]);
    const held = await get(KPACK_BUILDERS, 'held');
    assert.equal(condition(held, 'Ready')?.status, 'False');
    assert.equal(condition(held, 'Ready')?.reason, 'NoLatestImage');
    assert.equal(held.status?.latestImage, undefined);
    const waiting = await get(KPACK_IMAGES, 'app-held');
    assert.equal(condition(waiting, 'Ready')?.reason, 'BuilderNotReady');
    assert.equal(condition(waiting, 'BuilderReady')?.status, 'False');
    assert.deepEqual(await buildsOf('app-held'), []);

    kpack.releaseBuilder({ kind: 'Builder', namespace: SPACE, name: 'held' });
    assert.deepEqual(reasonsBy(await kpack.poll()), { 'app-held': 'CONFIG' });
    assert.equal(condition(await get(KPACK_BUILDERS, 'held'), 'Ready')?.status, 'True');
    const built = await get(KPACK_IMAGES, 'app-held');
    assert.equal(condition(built, 'Ready')?.status, 'True');
    const [build] = await buildsOf('app-held');
    assert.equal(build?.metadata?.annotations?.['image.kpack.io/builderKind'], 'Builder');
    assert.deepEqual(build.status?.buildMetadata, [{ id: JAVA, version: '1.0.0', homepage: `https://${JAVA}` }]);
  });

  it('holds the builders a predicate picks (an app-labelled Builder of unknown name) until released', async () => {
    const release = kpack.holdBuildersWhere(
      (builder) => builder.metadata?.labels?.['korifi.cloudfoundry.org/app-guid'] === 'app-x',
    );
    await client.create(KPACK_BUILDERS, {
      apiVersion: 'kpack.io/v1alpha2',
      kind: 'Builder',
      metadata: { name: 'for-app-x', namespace: SPACE, labels: { 'korifi.cloudfoundry.org/app-guid': 'app-x' } },
      spec: {
        tag: `${registry.host}/builders/for-app-x`,
        stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
        store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
        order: [{ group: [{ id: NODEJS }] }],
      },
    });
    await kpack.poll();
    assert.equal(condition(await get(KPACK_BUILDERS, 'for-app-x'), 'Ready')?.status, 'False');
    release();
    await kpack.poll();
    assert.equal(condition(await get(KPACK_BUILDERS, 'for-app-x'), 'Ready')?.status, 'True');
  });

  it('updateStack: every Image on the stack rebuilds with reason STACK, a new digest over the same app layer', async () => {
    await createImage('app-2', { detects: JAVA });
    assert.deepEqual(reasonsBy(await kpack.poll()), { 'app-2': 'CONFIG' });
    const before = await get(KPACK_IMAGES, 'app-1');
    const beforeLayers = await layersOf(String(before.status?.latestImage));

    const update = await kpack.updateStack();
    assert.equal(update.id, JAMMY);
    const ran = await kpack.poll();
    assert.deepEqual(reasonsBy(ran), { 'app-1': 'STACK', 'app-2': 'STACK', 'app-held': 'STACK' });
    assert.ok(ran.every((build) => build.rebase));
    const after = await get(KPACK_IMAGES, 'app-1');
    assert.equal(condition(after, 'Ready')?.status, 'True');
    assert.equal(after.status?.latestBuildReason, 'STACK');
    assert.equal(after.status.buildCounter, 2);
    assert.notEqual(after.status.latestImage, before.status?.latestImage);
    const afterLayers = await layersOf(String(after.status.latestImage));
    assert.equal(afterLayers.app, beforeLayers.app);
    assert.equal(afterLayers.runImage, update.runImage);
    const [, second] = await buildsOf('app-1');
    assert.equal(second?.metadata?.annotations?.['image.kpack.io/reason'], 'STACK');
    assert.deepEqual(second.spec?.lastBuild, {
      image: before.status?.latestImage,
      cache: {},
      stackId: JAMMY,
    });

    // A new stack id: still STACK, but a full rebuild, and the Image's latestStack follows.
    const noble = await kpack.updateStack({ id: 'io.buildpacks.stacks.noble' });
    const rebuilt = await kpack.poll();
    assert.deepEqual(reasonsBy(rebuilt), { 'app-1': 'STACK', 'app-2': 'STACK', 'app-held': 'STACK' });
    assert.ok(rebuilt.every((build) => !build.rebase && build.stackId === noble.id));
    const onNoble = await get(KPACK_IMAGES, 'app-1');
    assert.equal(onNoble.status?.latestStack, noble.id);
    assert.equal((await layersOf(String(onNoble.status.latestImage))).stackId, noble.id);
  });

  it('updateBuildpack: only Images whose last Build used it rebuild, with reason BUILDPACK', async () => {
    const update = await kpack.updateBuildpack(JAVA);
    assert.deepEqual(update, { clusterStore: 'cf-default-buildpacks', id: JAVA, from: '1.0.0', to: '1.0.1' });
    const ran = await kpack.poll();
    assert.deepEqual(reasonsBy(ran), { 'app-2': 'BUILDPACK', 'app-held': 'BUILDPACK' });
    const image = await get(KPACK_IMAGES, 'app-2');
    assert.equal(image.status?.latestBuildReason, 'BUILDPACK');
    const build = (await buildsOf('app-2')).at(-1);
    assert.deepEqual(build?.status?.buildMetadata, [{ id: JAVA, version: '1.0.1', homepage: `https://${JAVA}` }]);
    assert.equal(condition(await get(KPACK_IMAGES, 'app-1'), 'Ready')?.status, 'True');
  });

  it('updateBoth: BUILDPACK,STACK for Images using the buildpack, STACK for the others', async () => {
    await kpack.updateBoth({ buildpack: NODEJS });
    const ran = await kpack.poll();
    assert.deepEqual(reasonsBy(ran), { 'app-1': 'BUILDPACK,STACK', 'app-2': 'STACK', 'app-held': 'STACK' });
    assert.equal((await get(KPACK_IMAGES, 'app-1')).status?.latestBuildReason, 'BUILDPACK,STACK');
  });

  it('rebuilds for CONFIG when the Image source changes, and for TRIGGER on additionalBuildNeeded', async () => {
    await client.patch(KPACK_IMAGES, SPACE, 'app-1', 'merge', {
      spec: { source: { registry: { image: `${registry.host}/cf/app-1-packages@sha256:${'b'.repeat(64)}` } } },
    });
    assert.deepEqual(reasonsBy(await kpack.poll()), { 'app-1': 'CONFIG' });
    const last = (await buildsOf('app-1')).at(-1);
    await client.patch(KPACK_BUILDS, SPACE, last?.metadata?.name ?? '', 'merge', {
      metadata: { annotations: { 'image.kpack.io/additionalBuildNeeded': 'true' } },
    });
    assert.deepEqual(reasonsBy(await kpack.poll()), { 'app-1': 'TRIGGER' });
    const image = await get(KPACK_IMAGES, 'app-1');
    assert.equal(image.status?.latestBuildImageGeneration, image.metadata?.generation);
    assert.equal(image.status?.buildCounter, (await buildsOf('app-1')).length);
  });

  it('fails the Builds it is told to: nothing pushed, the Image BuildFailed, no retry until the config changes', async () => {
    const release = kpack.failBuildsWhere((image) => image.metadata?.name === 'app-fail');
    await createImage('app-fail');
    const [failed, ...others] = await kpack.poll();
    assert.deepEqual(others, []);
    assert.equal(failed?.succeeded, false);
    assert.equal(failed.latestImage, undefined);
    const [build] = await buildsOf('app-fail');
    assert.equal(condition(build ?? {}, 'Succeeded')?.status, 'False');
    const image = await get(KPACK_IMAGES, 'app-fail');
    assert.equal(condition(image, 'Ready')?.reason, 'BuildFailed');
    assert.equal(image.status?.latestImage, undefined);
    assert.deepEqual(await kpack.poll(), []);
    release();
    assert.deepEqual(await kpack.poll(), []);
    await client.patch(KPACK_IMAGES, SPACE, 'app-fail', 'merge', {
      spec: { source: { registry: { image: `${registry.host}/cf/app-fail-packages@sha256:${'c'.repeat(64)}` } } },
    });
    assert.deepEqual(reasonsBy(await kpack.poll()), { 'app-fail': 'CONFIG' });
    assert.equal(condition(await get(KPACK_IMAGES, 'app-fail'), 'Ready')?.status, 'True');
  });

  it('finishes a Build it made but never ran (a stop mid-way) instead of making another', async () => {
    const image = await get(KPACK_IMAGES, 'app-2');
    const number = Number(image.status?.buildCounter) + 1;
    await client.create(KPACK_BUILDS, {
      apiVersion: 'kpack.io/v1alpha2',
      kind: 'Build',
      metadata: {
        name: `app-2-build-${String(number)}-abcde`,
        namespace: SPACE,
        labels: {
          'image.kpack.io/image': 'app-2',
          'image.kpack.io/buildNumber': String(number),
          'image.kpack.io/imageGeneration': String(image.metadata?.generation),
        },
        annotations: { 'image.kpack.io/reason': 'TRIGGER' },
      },
      spec: { tags: [`${registry.host}/cf/app-2-droplets`], source: image.spec?.source },
    });
    const ran = await kpack.poll();
    assert.deepEqual(
      ran.map((build) => [build.build, build.succeeded]),
      [[`app-2-build-${String(number)}-abcde`, true]],
    );
    const after = await get(KPACK_IMAGES, 'app-2');
    assert.equal(after.status?.buildCounter, number);
    assert.equal(after.status.latestBuildReason, 'TRIGGER');
    assert.equal(condition(after, 'Ready')?.status, 'True');
    assert.deepEqual(await kpack.poll(), []);
    assert.deepEqual(kpack.rejected, []);
  });
});
