// Properties of the build reconciler's decisions against a kpack stand-in that schedules Builds the
// way kpack does (a counted spec change makes one; a builder change alone does not, kpack#1198, until
// asked). The reconciler may "crash" after its intents and before its status or label writes
// (docs/decisions.md N41).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  chooseBuilder,
  type CfLifecycle,
  type DesiredBuilder,
  type KpackBuilderView,
} from '../../../src/domain/korifi/builder-choice.ts';
import {
  decideBuildWorkload,
  type BuildWorkloadView,
  type DesiredImage,
  type DropletImageConfig,
  type KpackBuildView,
  type KpackImageView,
} from '../../../src/domain/korifi/build-workload-status.ts';
import { APP, BUILD, CLUSTER_BUILDER, NAMESPACE, PREFIX, clusterBuilder, workload } from './fixtures.ts';

const CREATED = Date.parse('2026-01-01T00:00:00.000Z');
const TIMEOUT = 60_000;
const GEN_LABEL = 'korifi.cloudfoundry.org/kpack-image-generation';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface World {
  now: number;
  workload: BuildWorkloadView;
  builder: (Mutable<KpackBuilderView> & { readyAt: number }) | undefined;
  builderCreates: number;
  image: (Mutable<KpackImageView> & { source: string; builderName: string; counted: string }) | undefined;
  builds: KpackBuildView[];
  /** Build number → ticks until it finishes and whether it fails. */
  running: Map<number, { left: number; fails: boolean }>;
  terminalSeen: string | undefined;
}

interface Scenario {
  lifecycle: 'default' | 'app' | 'build';
  /** When the chosen builder becomes ready, ms after the workload's creation; null: never. */
  readyAfter: number | null;
  previousImage: 'none' | 'sameSource' | 'otherSource';
  failBuild: boolean;
  steps: { advanceMs: number; crash: boolean; kpackTicks: number }[];
}

function lifecycles(kind: Scenario['lifecycle']): { build: CfLifecycle; app: CfLifecycle } {
  const lc = (...buildpacks: string[]) => ({ type: 'buildpack', data: { buildpacks, stack: 'cflinuxfs3' } });
  if (kind === 'default') return { build: lc(), app: lc() };
  if (kind === 'app') return { build: lc('paketo-buildpacks/go'), app: lc('paketo-buildpacks/go') };
  return { build: lc('paketo-buildpacks/nodejs'), app: lc('paketo-buildpacks/go') };
}

function latestImageOf(n: number): string {
  return `${PREFIX}${APP}-droplets@sha256:${String(n).padStart(64, '0')}`;
}

/** kpack: observe the Image, schedule a Build for counted changes or when asked, finish running ones. */
function kpackTick(world: World, scenario: Scenario, readyBuilder: boolean): void {
  for (const [n, run] of world.running) {
    run.left -= 1;
    if (run.left > 0) continue;
    world.running.delete(n);
    const build = world.builds.find((b) => b.metadata?.labels?.['image.kpack.io/buildNumber'] === String(n));
    if (build === undefined) continue;
    const ok = !run.fails;
    Object.assign(build, {
      status: {
        conditions: [
          { type: 'Succeeded', status: ok ? 'True' : 'False', reason: ok ? 'Succeeded' : 'Failed', message: '' },
        ],
        ...(ok ? { latestImage: latestImageOf(n) } : {}),
        stack: { id: 'io.buildpacks.stacks.jammy' },
      },
    });
  }
  const image = world.image;
  if (image === undefined || !readyBuilder) return;
  const generation = image.metadata?.generation ?? 1;
  const last = world.builds.at(-1);
  const asked = last?.metadata?.annotations?.['image.kpack.io/additionalBuildNeeded'] === 'true';
  const counted = image.source;
  const needsBuild = image.counted !== counted || asked;
  if (needsBuild && world.running.size === 0) {
    const n = world.builds.length + 1;
    world.builds.push({
      metadata: {
        name: `${APP}-build-${n}`,
        labels: {
          'image.kpack.io/image': APP,
          'image.kpack.io/imageGeneration': String(generation),
          'image.kpack.io/buildNumber': String(n),
        },
      },
      status: { conditions: [{ type: 'Succeeded', status: 'Unknown' }] },
    });
    world.running.set(n, { left: 2, fails: scenario.failBuild });
    image.counted = counted;
  }
  const building = world.running.size > 0;
  const lastDone = world.builds.at(-1)?.status?.conditions?.[0]?.status;
  image.status = {
    observedGeneration: generation,
    conditions: [{ type: 'Ready', status: building ? 'Unknown' : lastDone === 'True' ? 'True' : 'False' }],
  };
}

function applyBuilder(world: World, desired: DesiredBuilder, readyAt: number): void {
  if (world.builder === undefined) {
    world.builderCreates += 1;
    world.builder = { metadata: { ...desired.metadata, generation: 1 }, spec: desired.spec, readyAt };
  } else {
    const generation = (world.builder.metadata?.generation ?? 1) + 1;
    world.builder = { ...world.builder, metadata: { ...desired.metadata, generation }, spec: desired.spec };
  }
}

function refreshBuilderStatus(world: World): void {
  const builder = world.builder;
  if (builder === undefined) return;
  const ready = world.now >= builder.readyAt;
  builder.status = {
    observedGeneration: builder.metadata?.generation ?? 1,
    conditions: [
      { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? '' : 'NoLatestImage', message: '' },
    ],
  };
}

function applyImage(world: World, desired: DesiredImage): number {
  const source = desired.spec.source.registry.image;
  const builderName = desired.spec.builder.name;
  if (world.image === undefined) {
    world.image = {
      metadata: { name: APP, generation: 1 },
      spec: { tag: desired.spec.tag },
      source,
      builderName,
      counted: '',
    };
    return 1;
  }
  const image = world.image;
  if (image.source !== source || image.builderName !== builderName) {
    image.metadata = { ...image.metadata, generation: (image.metadata?.generation ?? 1) + 1 };
    image.source = source;
    image.builderName = builderName;
  }
  return image.metadata?.generation ?? 1;
}

function run(scenario: Scenario): World {
  const { build, app } = lifecycles(scenario.lifecycle);
  const readyAt = scenario.readyAfter === null ? Number.POSITIVE_INFINITY : CREATED + scenario.readyAfter;
  const cluster = clusterBuilder(['paketo-buildpacks/nodejs', 'paketo-buildpacks/go']);
  const world: World = {
    now: CREATED,
    workload: workload(),
    builder: undefined,
    builderCreates: 0,
    image: undefined,
    builds: [],
    running: new Map(),
    terminalSeen: undefined,
  };
  if (scenario.previousImage !== 'none') {
    const source =
      scenario.previousImage === 'sameSource' ? 'registry.local/cf/packages/pkg-1' : 'registry.local/cf/packages/pkg-0';
    world.image = {
      metadata: { name: APP, generation: 1 },
      spec: { tag: `${PREFIX}${APP}-droplets` },
      source,
      builderName: 'previous',
      counted: source,
    };
    world.builds.push({
      metadata: {
        name: `${APP}-build-1`,
        labels: {
          'image.kpack.io/image': APP,
          'image.kpack.io/imageGeneration': '1',
          'image.kpack.io/buildNumber': '1',
        },
      },
      status: {
        conditions: [{ type: 'Succeeded', status: 'True' }],
        latestImage: latestImageOf(1),
        stack: { id: 'io.buildpacks.stacks.jammy' },
      },
    });
  }
  const clusterReady = () =>
    scenario.lifecycle !== 'default' || world.now >= readyAt
      ? cluster
      : {
          ...cluster,
          status: { ...cluster.status, conditions: [{ type: 'Ready', status: 'False', reason: 'Pending' }] },
        };
  for (const step of scenario.steps) {
    world.now += step.advanceMs;
    refreshBuilderStatus(world);
    const builderReady =
      scenario.lifecycle === 'default' ? world.now >= readyAt : world.builder !== undefined && world.now >= readyAt;
    for (let t = 0; t < step.kpackTicks; t += 1) kpackTick(world, scenario, builderReady);
    // One reconcile, as the controller carries it out.
    const choice = chooseBuilder({
      namespace: NAMESPACE,
      appGuid: APP,
      buildGuid: BUILD,
      buildLifecycle: build,
      appLifecycle: app,
      workloadBuildpacks: build.data?.buildpacks,
      builders: world.builder === undefined ? [] : [world.builder],
      clusterBuilderName: CLUSTER_BUILDER,
      clusterBuilder: cluster,
      repositoryPrefix: PREFIX,
    });
    let dropletConfig: DropletImageConfig | undefined;
    for (let pass = 0; pass < 2; pass += 1) {
      const decision = decideBuildWorkload({
        workload: world.workload,
        now: new Date(world.now),
        readinessTimeoutMs: TIMEOUT,
        appGuid: APP,
        choice,
        builder: choice.kind === 'default' ? clusterReady() : world.builder,
        image: world.image,
        builds: world.builds,
        repositoryPrefix: PREFIX,
        ...(dropletConfig === undefined ? {} : { dropletConfig }),
      });
      let again = false;
      for (const intent of decision.intents) {
        if (intent.kind === 'ensureBuilder') applyBuilder(world, intent.desired, readyAt);
        else if (intent.kind === 'ensureImage') {
          const generation = applyImage(world, intent.desired);
          if (!step.crash) {
            const w = world.workload;
            world.workload = {
              ...w,
              metadata: { ...w.metadata, labels: { ...w.metadata.labels, [GEN_LABEL]: String(generation) } },
            };
          }
        } else if (intent.kind === 'requestAdditionalBuild') {
          const target = world.builds.find((b) => b.metadata?.name === intent.build);
          if (target?.metadata !== undefined) {
            Object.assign(target.metadata, { annotations: { 'image.kpack.io/additionalBuildNeeded': 'true' } });
          }
        } else {
          dropletConfig = { image: intent.image, processTypes: [{ type: 'web', command: 'run' }], ports: [8080] };
          again = true;
        }
      }
      if (decision.status !== undefined && !step.crash) {
        world.workload = { ...world.workload, status: decision.status };
      }
      checkInvariants(world, scenario, readyAt);
      if (!again) break;
    }
  }
  return world;
}

function checkInvariants(world: World, scenario: Scenario, readyAt: number): void {
  const succeeded = world.workload.status?.conditions?.find((c) => c.type === 'Succeeded');
  if (world.terminalSeen !== undefined) {
    assert.equal(JSON.stringify(succeeded), world.terminalSeen, 'a finished workload never changes');
    return;
  }
  if (succeeded === undefined || succeeded.status === 'Unknown') return;
  world.terminalSeen = JSON.stringify(succeeded);
  if (succeeded.reason === 'BuilderNotReady') {
    assert.ok(world.now - CREATED >= TIMEOUT, 'BuilderNotReady only after the readiness timeout');
    assert.ok(world.now < readyAt, 'never while the builder is ready');
  }
  if (succeeded.reason === 'BuildSucceeded') {
    const generation = world.workload.metadata.labels?.[GEN_LABEL];
    const image = world.workload.status?.droplet?.registry.image;
    const build = world.builds.find((b) => b.status?.latestImage === image);
    assert.ok(build !== undefined, "the droplet is a Build's image");
    assert.equal(
      build.metadata?.labels?.['image.kpack.io/imageGeneration'],
      generation,
      "of the workload's Image generation",
    );
    assert.deepEqual(world.workload.status?.droplet?.processTypes, [{ type: 'web', command: 'run' }]);
  }
  assert.ok(world.builderCreates <= 1, 'one Builder at most, found again by its labels');
  if (scenario.lifecycle === 'default') assert.equal(world.builder, undefined, 'the default needs no Builder');
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  lifecycle: fc.constantFrom('default' as const, 'app' as const, 'build' as const),
  readyAfter: fc.option(fc.integer({ min: 0, max: 2 * TIMEOUT }), { nil: null }),
  previousImage: fc.constantFrom('none' as const, 'sameSource' as const, 'otherSource' as const),
  failBuild: fc.boolean(),
  steps: fc.array(
    fc.record({
      advanceMs: fc.integer({ min: 0, max: 20_000 }),
      crash: fc.boolean(),
      kpackTicks: fc.integer({ min: 0, max: 2 }),
    }),
    { maxLength: 40 },
  ),
});

/** After the random steps, enough calm ones to let everything settle. */
function settled(scenario: Scenario): Scenario {
  const calm = Array.from({ length: 30 }, () => ({ advanceMs: 5_000, crash: false, kpackTicks: 1 }));
  return { ...scenario, steps: [...scenario.steps, ...calm] };
}

describe('build workload decisions against a kpack stand-in, with crashes', () => {
  it('hold the invariants at every step and converge', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const world = run(settled(scenario));
        const succeeded = world.workload.status?.conditions?.find((c) => c.type === 'Succeeded');
        assert.notEqual(succeeded?.status, 'Unknown', 'it ends');
        if (scenario.readyAfter === null) assert.equal(succeeded?.reason, 'BuilderNotReady');
        // Ready from the start: it builds; only kpack's own failure fails it.
        if (scenario.readyAfter === 0) {
          assert.equal(succeeded?.reason, scenario.failBuild ? 'BuildFailed' : 'BuildSucceeded');
        }
        // One workload alone never sees its Image moved by another.
        assert.notEqual(succeeded?.reason, 'KpackMissedBuild');
        if (succeeded?.reason === 'BuildFailed') assert.ok(scenario.failBuild);
      }),
      { numRuns: 300 },
    );
  });
});
