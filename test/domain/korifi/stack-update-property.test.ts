// Properties of the stack-update decision under crashes (docs/decisions.md D13, N42). kpack rebuilds
// an app's Image again and again (STACK, BUILDPACK, mixed, CONFIG, ..., some failing); between its
// changes a simulated controller decides from what it reads (sometimes a stale cache) and carries
// out the intents in order against an API server that refuses a second create of a name and a
// switch whose compare-and-swap fails, and may die after any atomic step. A human may set the old
// droplet again or stage the app anew; Korifi's build cleanup may delete old CFBuilds. The next decision starts from whatever the cluster then holds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  STACK_UPDATE_FROM_ANNOTATION,
  decideStackUpdate,
  isOurBuild,
  type AppView,
  type CFBuildView,
  type ImageView,
  type StackUpdateIntent,
} from '../../../src/domain/korifi/stack-update.ts';
import { NOW, app, asStored, cfBuild, image, imageRef } from './stack-update-fixtures.ts';

const REASONS = [
  'STACK',
  'STACK',
  'STACK',
  'BUILDPACK',
  'BUILDPACK,STACK',
  'CONFIG',
  'COMMIT',
  'LIFECYCLE',
  'TRIGGER',
  'CONFIG,STACK',
] as const;

/** The rule, stated independently of the code under test: every reason is STACK (D13). */
function isStackOnly(reasons: readonly string[]): boolean {
  return reasons.length > 0 && reasons.every((r) => r === 'STACK');
}

interface Rebuild {
  readonly reason: string;
  readonly fails: boolean;
  /** Decisions while the Image is settled on this rebuild, before kpack moves on. */
  readonly passes: number;
}

interface Pass {
  /** Die after this many atomic steps, or run to the end. */
  readonly crashAfter: number | null;
  /** Decide from the cluster as it was before the previous pass (a lagging cache). */
  readonly stale: boolean;
  /** Before deciding, a human sets the droplet the app ran before nudger's switch. */
  readonly revert: boolean;
  /**
   * Before deciding, Korifi's build cleanup deletes every CFBuild but the current droplet and the
   * newest one (its retention at its smallest).
   */
  readonly cleanup: boolean;
  /** Before deciding, a human stages the app again without setting the droplet (`cf stage`). */
  readonly stage: boolean;
}

interface Scenario {
  readonly rebuilds: readonly Rebuild[];
  readonly passes: readonly Pass[];
}

const SCENARIO: fc.Arbitrary<Scenario> = fc.record({
  rebuilds: fc.array(
    fc.record({
      reason: fc.constantFrom(...REASONS),
      fails: fc.constantFrom(false, false, false, false, true),
      passes: fc.integer({ min: 0, max: 4 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  passes: fc.array(
    fc.record({
      crashAfter: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 2 }),
      stale: fc.constantFrom(false, false, false, true),
      revert: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
      cleanup: fc.constantFrom(false, false, false, false, true),
      stage: fc.constantFrom(false, false, false, false, true),
    }),
    { minLength: 40, maxLength: 40 },
  ),
});

interface Cluster {
  app: AppView & { resourceVersion: number };
  builds: Map<string, CFBuildView>;
  image: ImageView;
}

interface World {
  cluster: Cluster;
  /** What the previous pass read: a stale cache serves it. */
  previous: Cluster;
  /**
   * Every successful create, in order: the droplet image each announced. A create again of a
   * CFBuild Korifi's cleanup deleted (it was not switched to yet, and newer builds came) is
   * `again`: the API server holds at most one CFBuild per image at any time.
   */
  readonly creates: { readonly name: string; readonly image: string; readonly again: boolean }[];
  /** Names Korifi's cleanup deleted. */
  readonly cleanedUp: Set<string>;
  /** Images kpack produced by a stack-only rebuild. */
  readonly stackOnlyImages: Set<string>;
  /** Our droplets a human switched away from. */
  readonly reverted: Set<string>;
  /** Pass index of the last human revert. */
  lastRevert: number;
  passIndex: number;
}

function snapshot(c: Cluster): Cluster {
  return { app: { ...c.app }, builds: new Map(c.builds), image: { ...c.image } };
}

function imageOfDroplet(world: World, name: string | undefined): string | undefined {
  return name === undefined ? undefined : world.cluster.builds.get(name)?.droplet?.registry.image;
}

/** The API server applying one intent; false when it refuses (the controller stops and retries). */
function apply(world: World, read: Cluster, intent: StackUpdateIntent): boolean {
  const c = world.cluster;
  switch (intent.kind) {
    case 'createBuild': {
      if (c.builds.has(intent.build.metadata.name)) return false; // AlreadyExists
      c.builds.set(intent.build.metadata.name, asStored(intent.build));
      const announced = JSON.parse(
        intent.build.metadata.annotations['nudger.konflux-ci.dev/stack-update-droplet'] ?? '{}',
      ) as {
        registry: { image: string };
      };
      const again = world.cleanedUp.delete(intent.build.metadata.name);
      world.creates.push({ name: intent.build.metadata.name, image: announced.registry.image, again });
      return true;
    }
    case 'writeBuildStatus': {
      const build = c.builds.get(intent.name);
      if (build === undefined) return false; // NotFound
      assert.ok(isOurBuild(build), `status written to ${intent.name}, not ours`);
      c.builds.set(intent.name, { ...build, state: intent.status.state, droplet: intent.status.droplet });
      return true;
    }
    case 'switchDroplet': {
      // The merge patch carries the resourceVersion the decision read (N22's compare-and-swap).
      if (c.app.resourceVersion !== read.app.resourceVersion) return false; // Conflict
      assert.equal(c.app.currentDropletRef, intent.from);
      const target = c.builds.get(intent.to);
      // Property: the app is only ever switched to a staged droplet of ours.
      assert.ok(target?.droplet !== undefined && target.state === 'STAGED', `switched to ${intent.to} without status`);
      assert.ok(isOurBuild(target));
      // Property: a droplet a human switched away from is never switched to again.
      assert.ok(!world.reverted.has(intent.to), `switched to ${intent.to} again after a human reverted it`);
      c.app = {
        ...c.app,
        currentDropletRef: intent.to,
        lastSwitchedTo: intent.to,
        resourceVersion: c.app.resourceVersion + 1,
      };
      return true;
    }
  }
}

function pass(world: World, p: Pass, crash: boolean): void {
  world.passIndex += 1;
  const current = world.cluster.app.currentDropletRef;
  const currentBuild = current === undefined ? undefined : world.cluster.builds.get(current);
  if (p.revert && currentBuild !== undefined && isOurBuild(currentBuild)) {
    const from = currentBuild.annotations?.[STACK_UPDATE_FROM_ANNOTATION];
    if (from !== undefined) {
      world.reverted.add(currentBuild.name);
      world.lastRevert = world.passIndex;
      const a = world.cluster.app;
      world.cluster.app = { ...a, currentDropletRef: from, resourceVersion: a.resourceVersion + 1 };
    }
  }
  if (p.stage) {
    const staged = cfBuild(`staged-${String(world.passIndex)}`, imageRef(1000 + world.passIndex));
    world.cluster.builds.set(staged.name, staged);
  }
  if (p.cleanup) {
    const names = [...world.cluster.builds.keys()];
    const newest = names.at(-1);
    for (const name of names) {
      if (name === newest || name === world.cluster.app.currentDropletRef) continue;
      world.cluster.builds.delete(name);
      world.cleanedUp.add(name);
    }
  }
  const read = p.stale ? world.previous : world.cluster;
  world.previous = snapshot(world.cluster);
  const decision = decideStackUpdate({
    image: read.image,
    app: read.app,
    builds: [...read.builds.values()],
    now: NOW,
  });
  let steps = 0;
  for (const intent of decision.intents) {
    if (crash && p.crashAfter !== null && steps >= p.crashAfter) return;
    // The controller reads the switch's target from the API server, not the cache, and stops when
    // it is gone or has no status (src/controllers/korifi/stack-update-reconciler.ts, N42): a stale
    // read can still hold our staged CFBuild after Korifi's cleanup deleted it (the app's
    // compare-and-swap covers the app only), and a switch from it left the app on a droplet that is
    // gone. The pure decision cannot tell, its input is the stale read; this is the controller's
    // guard, so the model carries it out as the controller does (a read: not an atomic step).
    if (intent.kind === 'switchDroplet' && world.cluster.builds.get(intent.to)?.droplet === undefined) return;
    if (!apply(world, read, intent)) return;
    steps += 1;
  }
}

function run(s: Scenario): World {
  const droplet1 = cfBuild('droplet-1', imageRef(1));
  const initial: Cluster = {
    app: { ...app('droplet-1'), resourceVersion: 1 },
    builds: new Map([[droplet1.name, droplet1]]),
    image: image({ latestImage: imageRef(1), latestBuildReason: 'CONFIG', build: 1 }),
  };
  const world: World = {
    cluster: initial,
    previous: snapshot(initial),
    creates: [],
    cleanedUp: new Set(),
    stackOnlyImages: new Set(),
    reverted: new Set(),
    lastRevert: -1,
    passIndex: 0,
  };
  let next = 0;
  const nextPass = (): Pass =>
    s.passes[next++ % s.passes.length] ?? {
      crashAfter: null,
      stale: false,
      revert: false,
      cleanup: false,
      stage: false,
    };
  let latest = imageRef(1);
  s.rebuilds.forEach((rebuild, i) => {
    const build = i + 2;
    // kpack schedules the Build: reasons flip at once, latestImage stays the previous one.
    world.cluster.image = image({ latestImage: latest, latestBuildReason: rebuild.reason, build, ready: 'Unknown' });
    pass(world, nextPass(), true);
    if (rebuild.fails) {
      world.cluster.image = image({ latestImage: latest, latestBuildReason: rebuild.reason, build, ready: 'False' });
    } else {
      latest = imageRef(build);
      if (isStackOnly(rebuild.reason.split(','))) world.stackOnlyImages.add(latest);
      world.cluster.image = image({ latestImage: latest, latestBuildReason: rebuild.reason, build });
    }
    for (let k = 0; k < rebuild.passes; k += 1) pass(world, nextPass(), true);
  });
  // Quiet: the caches catch up, nothing crashes, nobody reverts.
  for (let k = 0; k < 3; k += 1)
    pass(world, { crashAfter: null, stale: false, revert: false, cleanup: false, stage: false }, false);
  return world;
}

describe('stack update under crashes, stale caches and human reverts', () => {
  it('one CFBuild per rolled-out image, every one staged, and the app on the last stack-only image', () => {
    fc.assert(
      fc.property(SCENARIO, (s) => {
        const world = run(s);
        // Exactly once: no image rolled out twice (each create also has its own name).
        const images = world.creates.filter((c) => !c.again).map((c) => c.image);
        assert.equal(new Set(images).size, images.length, `an image rolled out twice: ${images.join(' ')}`);
        // Only stack-only rebuilds are rolled out.
        for (const created of images) assert.ok(world.stackOnlyImages.has(created), `${created} was not stack-only`);
        // Every CFBuild of ours ends staged.
        for (const build of world.cluster.builds.values()) {
          if (isOurBuild(build)) assert.equal(build.state, 'STAGED', `${build.name} left without status`);
        }
        const last = s.rebuilds.at(-1);
        assert.ok(last);
        const running = imageOfDroplet(world, world.cluster.app.currentDropletRef);
        const lastImage = world.cluster.image.latestImage ?? '';
        if (!last.fails && isStackOnly(last.reason.split(',')) && world.lastRevert < 0) {
          // The final switch: the app runs the last stack-only image, from exactly one CFBuild.
          assert.equal(running, lastImage);
          assert.equal(images.filter((i) => i === lastImage).length, 1);
        }
        if (!last.fails && !isStackOnly(last.reason.split(','))) {
          assert.notEqual(running, lastImage, `a ${last.reason} rebuild was rolled out`);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a crash at every step of one stack update still ends in one CFBuild and the switch', () => {
    for (let crashAfter = 0; crashAfter <= 3; crashAfter += 1) {
      const world = run({
        rebuilds: [{ reason: 'STACK', fails: false, passes: 1 }],
        passes: [{ crashAfter, stale: false, revert: false, cleanup: false, stage: false }],
      });
      assert.equal(world.creates.length, 1, `crash after ${String(crashAfter)}`);
      assert.equal(world.cluster.app.currentDropletRef, world.creates[0]?.name);
      assert.equal(imageOfDroplet(world, world.cluster.app.currentDropletRef), imageRef(2));
    }
  });
});
