// The stack-update propagator on the real control plane with Korifi's and kpack's CRDs
// (docs/decisions.md D13, N42). kpack is played here through the API as kpack writes its objects: a
// rebuild creates a Build named, labelled and annotated as kpack does (`image.kpack.io/reason`),
// flips the Image to Ready=Unknown with the new reasons and the old latestImage, then the Build
// succeeds and the Image is Ready with the new latestImage and latestStack. The propagator runs as
// the manager runs it: shared informers, its controller; a "restart" is a fresh set of both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  BUILD_WORKLOADS,
  CF_APPS,
  CF_BUILDS,
  KPACK_BUILDS,
  KPACK_IMAGES,
} from '../../src/adapters/kubernetes/korifi-resources.ts';
import { CORE_EVENTS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { stackUpdateControllerWith } from '../../src/controllers/korifi/stack-update-controller.ts';
import {
  STACK_UPDATE_FROM_ANNOTATION,
  STACK_UPDATE_LABEL,
  type StackUpdateIntent,
} from '../../src/domain/korifi/stack-update.ts';
import { Registry } from 'prom-client';
import { EventRecorder } from '../../src/runtime/events.ts';
import { silentLogger } from '../../src/runtime/runtime-log.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';
import type { CFApp, CFBuild } from '../../src/schema/korifi.ts';
import { installDefaultClusterBuilder, KpackStandIn } from '../../src/sandbox/korifi/kpack.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { startKorifiControlPlane, type KorifiControlPlane } from './korifi-control-plane.ts';
import { startTestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const REPO = 'registry.local/cf/droplets';
const JAMMY = 'io.buildpacks.stacks.jammy';

let cluster: KorifiControlPlane;
let client: KubeClient;
let registry: TestRegistry;

before(async () => {
  [cluster, registry] = await Promise.all([startKorifiControlPlane(), startTestRegistry()]);
  client = cluster.client;
});
after(async () => {
  await Promise.all([cluster.stop(), registry.stop()]);
});

/** A running propagator; `stop` is the manager going away, caches and all. */
interface Propagator {
  stop(): Promise<void>;
}

/** The propagator's module set up as the manager sets it up, on a fresh informer set. */
function startPropagator(beforeIntent?: (intent: StackUpdateIntent) => Promise<void>): Propagator {
  const informers = new SharedInformers({ http: client.http, logger: silentLogger });
  const run = stackUpdateControllerWith(beforeIntent === undefined ? {} : { beforeIntent }).setUp({
    client,
    informers,
    events: new EventRecorder({ client, component: 'nudger-test' }),
    registry: new Registry(),
    logger: silentLogger,
    settings: {},
  });
  const stop = new AbortController();
  const running = Promise.all([informers.run(stop.signal), run(stop.signal)]);
  return {
    async stop() {
      stop.abort();
      await running;
    },
  };
}

function digestRef(seed: string): string {
  return `${REPO}@sha256:${Buffer.from(seed).toString('hex').padEnd(64, '0').slice(0, 64)}`;
}

interface App {
  readonly space: string;
  readonly guid: string;
  /** Build numbers so far. */
  builds: number;
  image: string;
}

/** How the app's kpack Image was made. */
type ImageMaker = 'nudger' | 'korifi';

/**
 * A CFApp on droplet `<guid>-droplet-1` and that CFBuild (owned by the app, as the Korifi API makes
 * it), staged with `droplet` as Korifi's build delegate writes it once its BuildWorkload succeeded.
 */
async function createStagedApp(
  space: string,
  guid: string,
  droplet: { image: string; stack: string; command: string; pullSecret?: string },
): Promise<void> {
  const name = `${guid}-droplet-1`;
  const app = await client.create<KubeObject>(CF_APPS, {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFApp',
    metadata: { name: guid, namespace: space },
    spec: {
      displayName: `app-${guid}`,
      desiredState: 'STARTED',
      lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs3' } },
      currentDropletRef: { name },
    },
  } as KubeObject);
  const appOwner = {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFApp',
    name: guid,
    uid: app.metadata?.uid ?? '',
  };
  await client.create(CF_BUILDS, {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFBuild',
    metadata: {
      name,
      namespace: space,
      labels: { 'korifi.cloudfoundry.org/app-guid': guid },
      ownerReferences: [appOwner],
    },
    spec: {
      packageRef: { name: `${guid}-package-1` },
      appRef: { name: guid },
      stagingMemoryMB: 1024,
      stagingDiskMB: 2048,
      lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs3' } },
    },
  } as KubeObject);
  await client.patchStatus(CF_BUILDS, space, name, 'merge', {
    status: {
      state: 'STAGED',
      observedGeneration: 1,
      conditions: [
        { type: 'Succeeded', status: 'True', reason: 'BuildSucceeded', message: 'ok', lastTransitionTime: now() },
      ],
      droplet: {
        registry: {
          image: droplet.image,
          ...(droplet.pullSecret === undefined ? {} : { imagePullSecrets: [{ name: droplet.pullSecret }] }),
        },
        stack: droplet.stack,
        processTypes: [{ type: 'web', command: droplet.command }],
        ports: [8080],
      },
    },
  });
}

/**
 * A CF app as the Korifi API and a first staging leave it: CFApp on droplet `<guid>-droplet-1`,
 * that CFBuild staged with the image of kpack Build 1 (reason CONFIG), and its kpack Image, made
 * by nudger's build reconciler (app-guid label) or by Korifi's kpack-image-builder (named after the
 * app GUID, `build-workload-name` label, owned by the BuildWorkload, no app label).
 */
async function seedApp(space: string, guid: string, maker: ImageMaker): Promise<App> {
  const droplet = `${guid}-droplet-1`;
  const image = digestRef(`${guid}-1`);
  await createStagedApp(space, guid, {
    image,
    stack: JAMMY,
    command: 'node server.js',
    pullSecret: 'image-registry-credentials',
  });
  let metadata: Record<string, unknown>;
  if (maker === 'nudger') {
    metadata = {
      name: guid,
      namespace: space,
      labels: {
        'korifi.cloudfoundry.org/app-guid': guid,
        'korifi.cloudfoundry.org/build-workload-name': droplet,
      },
    };
  } else {
    const workload = await client.create<KubeObject>(BUILD_WORKLOADS, {
      apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
      kind: 'BuildWorkload',
      metadata: {
        name: droplet,
        namespace: space,
        labels: { 'korifi.cloudfoundry.org/app-guid': guid, 'korifi.cloudfoundry.org/build-guid': droplet },
      },
      spec: { buildRef: { name: droplet }, builderName: 'kpack-image-builder', source: { registry: { image: 'p' } } },
    } as KubeObject);
    metadata = {
      name: guid,
      namespace: space,
      labels: { 'korifi.cloudfoundry.org/build-workload-name': droplet },
      ownerReferences: [
        {
          apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
          kind: 'BuildWorkload',
          name: droplet,
          uid: workload.metadata?.uid ?? '',
        },
      ],
    };
  }
  await client.create(KPACK_IMAGES, {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Image',
    metadata,
    spec: {
      tag: `${REPO}/${guid}-droplets`,
      serviceAccountName: 'kpack-service-account',
      builder: { kind: 'ClusterBuilder', name: 'cf-kpack-cluster-builder', apiVersion: 'kpack.io/v1alpha2' },
      source: { registry: { image: `registry.local/packages/${guid}` } },
    },
  } as KubeObject);
  const seeded: App = { space, guid, builds: 0, image };
  await kpackBuild(seeded, 'CONFIG', { fails: false, image });
  return seeded;
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function imageStatus(app: App, status: Record<string, unknown>): Promise<void> {
  const image = await client.get<KubeObject>(KPACK_IMAGES, app.space, app.guid);
  await client.patchStatus(KPACK_IMAGES, app.space, app.guid, 'merge', {
    status: { observedGeneration: image.metadata?.generation ?? 1, ...status },
  });
}

/** kpack rebuilding the app's Image for `reason`, as kpack writes it (reference §2.2, §2.3). */
async function kpackBuild(
  app: App,
  reason: string,
  { fails = false, image = digestRef(`${app.guid}-${String(app.builds + 1)}`), stack = JAMMY } = {},
): Promise<string> {
  app.builds += 1;
  const name = `${app.guid}-build-${String(app.builds)}`;
  await client.create(KPACK_BUILDS, {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Build',
    metadata: {
      name,
      namespace: app.space,
      labels: {
        'image.kpack.io/image': app.guid,
        'image.kpack.io/buildNumber': String(app.builds),
        'image.kpack.io/imageGeneration': '1',
      },
      annotations: { 'image.kpack.io/reason': reason },
    },
    spec: { tags: [`${REPO}/${app.guid}-droplets`], serviceAccountName: 'kpack-service-account' },
  } as KubeObject);
  const running = {
    type: 'Ready',
    status: 'Unknown',
    reason: 'BuildRunning',
    message: `Build '${name}' is executing`,
    lastTransitionTime: now(),
  };
  await imageStatus(app, {
    conditions: [running],
    latestBuildRef: name,
    latestBuildReason: reason,
    buildCounter: app.builds,
    latestImage: app.image,
  });
  if (fails) {
    await client.patchStatus(KPACK_BUILDS, app.space, name, 'merge', {
      status: { conditions: [{ type: 'Succeeded', status: 'False', lastTransitionTime: now() }] },
    });
    await imageStatus(app, {
      conditions: [{ type: 'Ready', status: 'False', reason: 'BuildFailed', lastTransitionTime: now() }],
    });
    return app.image;
  }
  await client.patchStatus(KPACK_BUILDS, app.space, name, 'merge', {
    status: {
      conditions: [{ type: 'Succeeded', status: 'True', lastTransitionTime: now() }],
      latestImage: image,
      stack: { id: stack, runImage: `registry.local/run@sha256:${'c'.repeat(64)}` },
    },
  });
  app.image = image;
  await imageStatus(app, {
    conditions: [{ type: 'Ready', status: 'True', reason: 'UpToDate', lastTransitionTime: now() }],
    latestImage: image,
    latestStack: stack,
  });
  return image;
}

async function appOf(app: App): Promise<CFApp> {
  return client.get<CFApp & KubeObject>(CF_APPS, app.space, app.guid);
}

async function dropletImage(app: App): Promise<string | undefined> {
  const current = (await appOf(app)).spec?.currentDropletRef?.name;
  if (current === undefined) return undefined;
  const build = await client.get<CFBuild & KubeObject>(CF_BUILDS, app.space, current);
  return build.status?.droplet?.registry.image;
}

async function ourBuilds(app: App): Promise<(CFBuild & KubeObject)[]> {
  const page = await client.list<CFBuild & KubeObject>(CF_BUILDS, {
    namespace: app.space,
    labelSelector: `${STACK_UPDATE_LABEL}=true,korifi.cloudfoundry.org/app-guid=${app.guid}`,
  });
  return [...page.items];
}

/**
 * Writes kube-apiserver counted (its `apiserver_request_total`), by `VERB resource[/subresource]`,
 * for Korifi's kinds: whoever made them, so read them where the test itself writes nothing.
 */
async function korifiWrites(): Promise<Map<string, number>> {
  const stream = await client.http.stream({ method: 'GET', path: '/metrics' }, { verb: 'get', resource: 'metrics' });
  const counts = new Map<string, number>();
  try {
    for await (const line of stream.lines) {
      if (!line.startsWith('apiserver_request_total{') || !line.includes('group="korifi.cloudfoundry.org"')) continue;
      const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';
      if (!['POST', 'PATCH', 'PUT'].includes(label('verb'))) continue;
      const sub = label('subresource');
      const key = `${label('verb')} ${label('resource')}${sub === '' ? '' : `/${sub}`}`;
      counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
  } finally {
    stream.close();
  }
  return counts;
}

function writesSince(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...after].filter(([key, n]) => n > (before.get(key) ?? 0)).map(([key, n]) => [key, n - (before.get(key) ?? 0)]),
  );
}

interface CoreEvent extends KubeObject {
  readonly involvedObject: { readonly name?: string; readonly kind?: string };
  readonly reason: string;
  readonly message: string;
}

async function eventsOn(app: App): Promise<CoreEvent[]> {
  const page = await client.list<CoreEvent>(CORE_EVENTS, { namespace: app.space });
  return page.items.filter((e) => e.involvedObject.name === app.guid && e.involvedObject.kind === 'CFApp');
}

async function waitForDroplet(app: App, image: string): Promise<void> {
  await eventually(`${app.guid} on a droplet with ${image}`, async () =>
    (await dropletImage(app)) === image ? true : undefined,
  );
}

/** A quiet moment in which the propagator would have acted: it has seen `app`'s latest state. */
async function settle(app: App, reason: string): Promise<CoreEvent> {
  return eventually(`an Event on ${app.guid} naming ${reason}`, async () =>
    (await eventsOn(app)).find((e) => e.reason === 'RebuildNotRolledOut' && e.message.includes(reason)),
  );
}

describe('stack updates on the control plane', () => {
  it('a stack update gives every affected app a new droplet and switches currentDropletRef, once', async () => {
    const spaces = [await cluster.createSpace('stack-a'), await cluster.createSpace('stack-b')];
    const apps: App[] = [];
    for (const space of spaces) {
      for (const n of [1, 2, 3]) apps.push(await seedApp(space, `${space}-app-${String(n)}`, 'nudger'));
    }
    const propagator = startPropagator();
    try {
      const before = new Map<string, string>();
      for (const app of apps) before.set(app.guid, (await appOf(app)).spec?.currentDropletRef?.name ?? '');
      const images = new Map<string, string>();
      const writesBefore = await korifiWrites();
      for (const app of apps) images.set(app.guid, await kpackBuild(app, 'STACK', { stack: JAMMY }));
      for (const app of apps) await waitForDroplet(app, images.get(app.guid) ?? '');
      for (const app of apps) {
        const created = await ourBuilds(app);
        assert.equal(created.length, 1, `${app.guid}: one new CFBuild`);
        const [build] = created;
        assert.ok(build);
        const current = (await appOf(app)).spec?.currentDropletRef?.name;
        assert.equal(current, build.metadata?.name);
        assert.notEqual(current, before.get(app.guid));
        assert.equal(build.metadata?.annotations?.[STACK_UPDATE_FROM_ANNOTATION], before.get(app.guid));
        const status = build.status;
        assert.ok(status);
        assert.equal(status.state, 'STAGED');
        const droplet = status.droplet;
        assert.ok(droplet);
        assert.equal(droplet.stack, JAMMY);
        assert.deepEqual(droplet.processTypes, [{ type: 'web', command: 'node server.js' }]);
        assert.equal(
          status.conditions?.find((c) => c.type === 'Succeeded')?.status,
          'True',
          'read by the CF API as a staged droplet',
        );
        assert.deepEqual(build.spec?.appRef, { name: app.guid });
        const told = await eventually(`StackUpdated on ${app.guid}`, async () =>
          (await eventsOn(app)).find((e) => e.reason === 'StackUpdated'),
        );
        assert.match(told.message, new RegExp(build.metadata?.name ?? ''));
      }
      // A resync changes nothing: still one CFBuild each.
      const [first] = apps;
      assert.ok(first);
      await kpackBuild(first, 'BUILDPACK');
      await settle(first, 'BUILDPACK');
      for (const app of apps) assert.equal((await ourBuilds(app)).length, 1);
      // Three writes per app, none repeated: the CFBuild, its status, the app (kpack's writes here
      // are to kpack kinds, the test's reads are not writes).
      assert.deepEqual(writesSince(writesBefore, await korifiWrites()), {
        'POST cfbuilds': apps.length,
        'PATCH cfbuilds/status': apps.length,
        'PATCH cfapps': apps.length,
      });
    } finally {
      await propagator.stop();
    }
  });

  it('a buildpack update changes no droplet and an Event names BUILDPACK; mixed and other reasons do nothing', async () => {
    const space = await cluster.createSpace('buildpack-a');
    const propagator = startPropagator();
    try {
      for (const reason of ['BUILDPACK', 'BUILDPACK,STACK', 'CONFIG', 'COMMIT', 'LIFECYCLE', 'TRIGGER']) {
        const app = await seedApp(space, `bp-${reason.toLowerCase().replace(',', '-')}`, 'nudger');
        const before = await dropletImage(app);
        await kpackBuild(app, reason);
        const event = await settle(app, reason);
        assert.match(event.message, new RegExp(`Build ${app.guid}-build-2`));
        assert.equal(await dropletImage(app), before, `${reason}: droplet unchanged`);
        assert.deepEqual(await ourBuilds(app), [], `${reason}: no CFBuild`);
        assert.equal(
          (await eventsOn(app)).filter((e) => e.reason === 'RebuildNotRolledOut').length,
          1,
          `${reason}: told once`,
        );
      }
    } finally {
      await propagator.stop();
    }
  });

  it('a manager killed mid-propagation (after the create, before the switch) gives exactly one new CFBuild after restart', async () => {
    const space = await cluster.createSpace('crash-a');
    for (const [step, label] of [
      ['writeBuildStatus', 'after the create'],
      ['switchDroplet', 'after the status'],
    ] as const) {
      const app = await seedApp(space, `crash-${step.toLowerCase()}`, 'nudger');
      const atStep = Promise.withResolvers<undefined>();
      const killed = Promise.withResolvers<undefined>();
      // The crash switch: the first time the propagator is about to carry out `step`, it waits for
      // the kill and then fails, so the step is never carried out, as in a process killed there.
      let armed = true;
      const dying = startPropagator(async (intent) => {
        if (!armed || intent.kind !== step) return;
        armed = false;
        atStep.resolve(undefined);
        await killed.promise;
        throw new Error('killed');
      });
      const image = await kpackBuild(app, 'STACK');
      await atStep.promise;
      killed.resolve(undefined);
      await dying.stop();
      assert.equal((await ourBuilds(app)).length, 1, `${label}: the CFBuild exists`);
      assert.notEqual(await dropletImage(app), image, `${label}: not switched yet`);
      const restarted = startPropagator();
      try {
        await waitForDroplet(app, image);
        const created = await ourBuilds(app);
        assert.equal(created.length, 1, `${label}: exactly one new CFBuild`);
        assert.equal((await appOf(app)).spec?.currentDropletRef?.name, created[0]?.metadata?.name);
        assert.equal(created[0]?.status?.state, 'STAGED');
      } finally {
        await restarted.stop();
      }
    }
  });

  it("a droplet Korifi's build cleanup deleted before the switch is not switched to; it is made again and switched to", async () => {
    const space = await cluster.createSpace('cleaned-a');
    const app = await seedApp(space, 'cleaned-before-switch', 'nudger');
    // Korifi's cleanup (maxRetainedBuildsPerApp) deletes our staged CFBuild the moment before the
    // switch, while the propagator's cache still holds it: the app must not name a droplet that is
    // gone (N42; the switch reads its target from the server).
    let armed = true;
    const propagator = startPropagator(async (intent) => {
      if (!armed || intent.kind !== 'switchDroplet') return;
      armed = false;
      await client.delete(CF_BUILDS, app.space, intent.to);
    });
    try {
      const image = await kpackBuild(app, 'STACK');
      await waitForDroplet(app, image);
      assert.equal(armed, false, 'the cleanup ran before the first switch');
      const created = await ourBuilds(app);
      assert.equal(created.length, 1, 'one CFBuild for the image, made again');
      assert.equal((await appOf(app)).spec?.currentDropletRef?.name, created[0]?.metadata?.name);
      assert.equal(created[0]?.status?.state, 'STAGED');
    } finally {
      await propagator.stop();
    }
  });

  it("an app whose Image Korifi's kpack-image-builder made (named after the app, owned by its BuildWorkload) still gets stack updates", async () => {
    const space = await cluster.createSpace('korifi-made');
    const app = await seedApp(space, 'korifi-made-app', 'korifi');
    const image = await client.get<KubeObject>(KPACK_IMAGES, space, app.guid);
    assert.equal(image.metadata?.labels?.['korifi.cloudfoundry.org/app-guid'], undefined);
    const propagator = startPropagator();
    try {
      const updated = await kpackBuild(app, 'STACK');
      await waitForDroplet(app, updated);
      assert.equal((await ourBuilds(app)).length, 1);
    } finally {
      await propagator.stop();
    }
  });
});

/**
 * A CF app staged through kpack: its Image built by the kpack stand-in (N43), then, as Korifi's
 * build delegate does once the BuildWorkload succeeds, a staged CFBuild holding the Image's
 * latestImage and latestStack, and the CFApp on it.
 */
async function stageWithStandIn(kpack: KpackStandIn, space: string, guids: readonly string[]): Promise<App[]> {
  for (const guid of guids) {
    await client.create(KPACK_IMAGES, {
      apiVersion: 'kpack.io/v1alpha2',
      kind: 'Image',
      metadata: {
        name: guid,
        namespace: space,
        labels: {
          'korifi.cloudfoundry.org/app-guid': guid,
          'korifi.cloudfoundry.org/build-workload-name': `${guid}-droplet-1`,
        },
      },
      spec: {
        tag: `${registry.host}/cf/${guid}-droplets`,
        builder: { kind: 'ClusterBuilder', name: 'cf-kpack-cluster-builder', apiVersion: 'kpack.io/v1alpha2' },
        serviceAccountName: 'kpack-service-account',
        source: { registry: { image: `${registry.host}/cf/${guid}-packages@sha256:${'a'.repeat(64)}` } },
      },
    } as KubeObject);
  }
  await kpack.poll();
  const apps: App[] = [];
  for (const guid of guids) {
    const image = await client.get<KubeObject & { status?: { latestImage?: string; latestStack?: string } }>(
      KPACK_IMAGES,
      space,
      guid,
    );
    const latestImage = image.status?.latestImage ?? '';
    assert.match(latestImage, /@sha256:/, `${guid} built`);
    await createStagedApp(space, guid, {
      image: latestImage,
      stack: image.status?.latestStack ?? JAMMY,
      command: './start',
    });
    apps.push({ space, guid, builds: 1, image: latestImage });
  }
  return apps;
}

async function latestImageOf(app: App): Promise<string> {
  const image = await client.get<KubeObject & { status?: { latestImage?: string } }>(KPACK_IMAGES, app.space, app.guid);
  return image.status?.latestImage ?? '';
}

describe('stack updates driven by the kpack stand-in (ClusterStack and ClusterStore updates)', () => {
  it('updateStack rolls out to every app once; updateBuildpack and updateBoth change no droplet and are told', async () => {
    const space = await cluster.createSpace('standin-a');
    await installDefaultClusterBuilder(client, { buildpacks: ['paketo-buildpacks/nodejs'] });
    const kpack = new KpackStandIn({ client, namespace: space });
    const propagator = startPropagator();
    try {
      await kpack.poll();
      const apps = await stageWithStandIn(kpack, space, ['standin-1', 'standin-2', 'standin-3']);
      await kpack.updateStack();
      const ran = await kpack.poll();
      assert.deepEqual(
        ran.map((b) => b.reason),
        apps.map(() => 'STACK'),
      );
      for (const app of apps) {
        const image = await latestImageOf(app);
        assert.notEqual(image, app.image, `${app.guid} rebuilt`);
        await waitForDroplet(app, image);
        assert.equal((await ourBuilds(app)).length, 1, `${app.guid}: one new CFBuild`);
      }
      const onStack = new Map<string, string | undefined>();
      for (const app of apps) onStack.set(app.guid, await dropletImage(app));

      await kpack.updateBuildpack('paketo-buildpacks/nodejs');
      assert.deepEqual(
        (await kpack.poll()).map((b) => b.reason),
        apps.map(() => 'BUILDPACK'),
      );
      for (const app of apps) await settle(app, 'BUILDPACK');

      await kpack.updateBoth({ buildpack: 'paketo-buildpacks/nodejs' });
      assert.deepEqual(
        (await kpack.poll()).map((b) => b.reason),
        apps.map(() => 'BUILDPACK,STACK'),
      );
      for (const app of apps) {
        await settle(app, 'BUILDPACK,STACK');
        assert.equal(await dropletImage(app), onStack.get(app.guid), `${app.guid}: still the stack update's droplet`);
        assert.equal((await ourBuilds(app)).length, 1, `${app.guid}: still one CFBuild of ours`);
      }
    } finally {
      await Promise.all([propagator.stop(), kpack.stop()]);
    }
  });
});

describe('stack updates in nudger manager', () => {
  it('--controllers=korifi runs the propagator: a stack update switches the droplet, and only once', async () => {
    const space = await cluster.createSpace('manager-a');
    const app = await seedApp(space, 'manager-app', 'nudger');
    const manager = await startTestManager(cluster.plane.kubeConfig, {
      overrides: { controllerGroups: ['korifi'], korifi: { repositoryPrefix: `${registry.host}/droplets/` } },
    });
    try {
      const image = await kpackBuild(app, 'STACK');
      await waitForDroplet(app, image);
      await kpackBuild(app, 'BUILDPACK');
      await settle(app, 'BUILDPACK');
      assert.equal((await ourBuilds(app)).length, 1);
    } finally {
      await manager.stop();
    }
  });
});
