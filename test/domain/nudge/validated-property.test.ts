// Properties of validated nudges under crashes (docs/decisions.md D10, N18, N19), in the manner of
// the ChangeGroup state machine's (test/domain/changegroup/state-property.test.ts). A model
// controller carries out each decision against a model cluster (the pair's record, serialised and
// parsed at every write; the held-nudge records) and a model forge that is idempotent by batch key,
// as the executors are. It may die after the record write or after the effect, before the write
// that follows. Meanwhile Snapshots pass in any order, carrying newer or older builds, some of
// them unverified (D3), ChangeGroups start and let go of what they hold, and time passes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_DISPATCH_POLICY } from '../../../src/domain/nudge/dispatch-policy.ts';
import type { FireResult } from '../../../src/domain/nudge/dispatch.ts';
import {
  afterFire,
  afterHold,
  decideValidated,
  type BatchEntry,
  type DigestVerification,
  type ValidatedPairInput,
} from '../../../src/domain/nudge/validated-decision.ts';
import {
  emptyValidatedRecord,
  parseValidatedRecord,
  serializeValidatedRecord,
  type ValidatedRecord,
} from '../../../src/domain/nudge/validated-record.ts';
import type { PassingSnapshot } from '../../../src/domain/nudge/validated-snapshot.ts';
import { GROUP, LEASE, MINUTE, NAMESPACE, T0, TARGET, image } from './validated-fixtures.ts';

const COMPONENTS = ['operand-a', 'operand-b', 'operand-c', 'operand-d'] as const;
const BUILDS = 5;
const POLICY = DEFAULT_DISPATCH_POLICY;

/** Build `n` of a component: later builds are newer. */
const seedOf = (component: string, n: number) => `${component.slice(-1)}${String(n)}`;
const createdAtOf = (n: number) => T0 - 100 * MINUTE + n * 10 * MINUTE;

type Crash = 'none' | 'afterWrite' | 'afterEffect';
type Outcome = 'ok' | 'fail' | 'partial' | 'permanent';

type Event =
  | { readonly kind: 'pass'; readonly startTime: number; readonly builds: readonly (number | null)[] }
  | { readonly kind: 'reconcile'; readonly crash: Crash; readonly outcome: Outcome }
  | { readonly kind: 'tick'; readonly ms: number }
  | { readonly kind: 'changeGroup'; readonly component: number }
  | { readonly kind: 'release'; readonly staleCache: boolean };

const EVENT: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('pass' as const),
      startTime: fc.integer({ min: 0, max: 60 }),
      builds: fc.array(fc.option(fc.integer({ min: 0, max: BUILDS - 1 }), { nil: null }), {
        minLength: COMPONENTS.length,
        maxLength: COMPONENTS.length,
      }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('reconcile' as const),
      crash: fc.constantFrom<Crash>('none', 'none', 'afterWrite', 'afterEffect'),
      outcome: fc.constantFrom<Outcome>('ok', 'ok', 'fail', 'partial', 'permanent'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 2 * LEASE }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('changeGroup' as const),
      component: fc.integer({ min: 0, max: COMPONENTS.length - 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), staleCache: fc.boolean() }) },
);

const SCENARIO = fc.record({
  events: fc.array(EVENT, { minLength: 1, maxLength: 80 }),
  /** Images (component, build) no verified build produced. */
  unverified: fc.uniqueArray(
    fc.tuple(fc.integer({ min: 0, max: COMPONENTS.length - 1 }), fc.integer({ min: 0, max: BUILDS - 1 })),
    { maxLength: 2, selector: ([c, n]) => `${String(c)}/${String(n)}` },
  ),
});

interface ChangeGroup {
  readonly name: string;
  readonly component: string;
  released: boolean;
  /** After its release, the cache still shows it holding (N19: a released hold is never held again). */
  staleCache: boolean;
}

interface Forge {
  /** What each key was fired with: one content per key. */
  readonly contentByKey: Map<string, string>;
  readonly keyByContent: Map<string, string>;
  /** Keys whose change reached the repository, once each. */
  readonly applied: Set<string>;
  /** The target's branch: per component, the digest and Snapshot start time last pushed. */
  readonly branch: Map<string, { readonly digest: string; readonly startTime: number }>;
}

interface World {
  recordText: string;
  readonly snapshots: PassingSnapshot[];
  now: number;
  readonly changeGroups: ChangeGroup[];
  /** Held-nudge records by `changeGroup/component/build`: made once, by name. */
  readonly heldRecords: Set<string>;
  readonly forge: Forge;
  /** `component/build` of holds whose ChangeGroup let go. */
  readonly releasedHolds: Set<string>;
  /** Successful fires of a released hold, by `component/changeGroup/build` of the hold. */
  readonly releasedFired: Map<string, number>;
  passes: number;
}

function newWorld(): World {
  return {
    recordText: serializeValidatedRecord(emptyValidatedRecord(GROUP, TARGET)),
    snapshots: [],
    now: T0,
    changeGroups: [],
    heldRecords: new Set(),
    forge: { contentByKey: new Map(), keyByContent: new Map(), applied: new Set(), branch: new Map() },
    releasedHolds: new Set(),
    releasedFired: new Map(),
    passes: 0,
  };
}

function readRecord(world: World): ValidatedRecord {
  const reading = parseValidatedRecord(world.recordText, GROUP, TARGET);
  assert.ok(reading.ok, reading.ok ? '' : reading.problem);
  return reading.record;
}

/** A record write: serialised and read back, and nothing nudged goes backwards or disappears. */
function write(world: World, next: ValidatedRecord): void {
  const text = serializeValidatedRecord(next);
  const back = parseValidatedRecord(text, GROUP, TARGET);
  assert.ok(back.ok, back.ok ? '' : back.problem);
  assert.deepEqual(back.record, next, 'what is written reads back the same');
  const previous = readRecord(world);
  for (const [component, before] of previous.nudged) {
    const after = next.nudged.get(component);
    assert.ok(after !== undefined, `${component} is no longer recorded as nudged`);
    assert.ok(after.startTime >= before.startTime, `${component} went back to an older Snapshot`);
    assert.ok(after.buildCreatedAt >= before.buildCreatedAt, `${component} went back to an older build`);
  }
  world.recordText = text;
}

function verifier(unverified: ReadonlySet<string>) {
  return (component: string, img: string): DigestVerification => {
    const c = COMPONENTS.indexOf(component as (typeof COMPONENTS)[number]);
    for (let n = 0; n < BUILDS; n += 1) {
      if (image(component, seedOf(component, n)) !== img) continue;
      if (unverified.has(`${String(c)}/${String(n)}`)) return { ok: false, reason: 'not-a-push-build' };
      return { ok: true, build: { name: `${component}-on-push-${String(n)}`, createdAt: createdAtOf(n) } };
    }
    return { ok: false, reason: 'no-build' };
  };
}

function pairInput(world: World, verify: ValidatedPairInput['verify']): ValidatedPairInput {
  const holding = (changeGroup: ChangeGroup) => !changeGroup.released || changeGroup.staleCache;
  return {
    group: GROUP,
    target: TARGET,
    froms: [...COMPONENTS],
    snapshots: [...world.snapshots],
    record: readRecord(world),
    namespace: NAMESPACE,
    verify,
    holder: (component) => world.changeGroups.find((cg) => cg.component === component && holding(cg))?.name,
    released: (_component, heldBy) => world.changeGroups.some((cg) => cg.name === heldBy.changeGroup && cg.released),
    now: world.now,
    fireLeaseMs: LEASE,
    policy: POLICY,
  };
}

const contentOf = (entries: readonly BatchEntry[]) => entries.map((e) => `${e.component}@${e.digest}`).join(',');

/** The executor: idempotent by key, as the direct and renovate executors are. */
function fireAtForge(forge: Forge, key: string, entries: readonly BatchEntry[], outcome: Outcome): FireResult {
  const content = contentOf(entries);
  const known = forge.contentByKey.get(key);
  assert.ok(known === undefined || known === content, `key ${key} fired with other content`);
  forge.contentByKey.set(key, content);
  const keyed = forge.keyByContent.get(content);
  assert.ok(keyed === undefined || keyed === key, `content ${content} fired under two keys`);
  forge.keyByContent.set(content, key);
  if ((outcome === 'ok' || outcome === 'partial') && !forge.applied.has(key)) {
    forge.applied.add(key);
    for (const entry of entries) {
      const before = forge.branch.get(entry.component);
      assert.ok(
        before === undefined || before.startTime <= entry.startTime,
        `${entry.component} pushed from an older Snapshot than the branch has`,
      );
      forge.branch.set(entry.component, { digest: entry.digest, startTime: entry.startTime });
    }
  }
  if (outcome === 'ok') return { ok: true, detail: 'https://forge/pr/1' };
  if (outcome === 'permanent') return { ok: false, reason: 'no-credentials', message: 'no token', permanent: true };
  return { ok: false, reason: 'forge-unavailable', message: '503' };
}

/** One reconcile: decide, then carry out the step until `crash`. */
function reconcile(world: World, verify: ValidatedPairInput['verify'], crash: Crash, outcome: Outcome) {
  const input = pairInput(world, verify);
  const decision = decideValidated(input);
  assert.deepEqual(decideValidated(input), decision, 'the decision is a function of its input');
  const { step } = decision;
  if (step.kind === 'idle') {
    if (step.record !== undefined) write(world, step.record);
    return step;
  }
  if (step.kind === 'hold') {
    for (const entry of step.entries) {
      assert.notEqual(entry.released, true, 'a released hold is not held again');
      assert.ok(
        !world.releasedHolds.has(`${entry.component}/${entry.build}`),
        `${entry.component} ${entry.build} held again after its ChangeGroup let go`,
      );
    }
    write(world, step.record);
    if (crash === 'afterWrite') return step;
    for (const entry of step.entries) world.heldRecords.add(`${step.changeGroup}/${entry.component}/${entry.build}`);
    if (crash === 'afterEffect') return step;
    const holds = step.entries.map((entry) => ({
      entry,
      heldBy: { changeGroup: step.changeGroup, build: entry.build },
    }));
    write(world, afterHold(step.record, holds).record);
    return step;
  }
  for (const entry of step.entries) {
    // D2: what a ChangeGroup was handed (a held-nudge record exists) is fired only once it let go.
    const heldBy = [...world.heldRecords].filter((held) => held.endsWith(`/${entry.component}/${entry.build}`));
    if (heldBy.length > 0) assert.equal(entry.released, true, `${entry.component} ${entry.build} both held and fired`);
  }
  write(world, step.record);
  if (crash === 'afterWrite') return step;
  const result = fireAtForge(world.forge, step.key, step.entries, outcome);
  if (crash === 'afterEffect') return step;
  if (result.ok) {
    for (const entry of step.entries.filter((e) => e.released === true)) {
      const heldBy = step.record.nudged.get(entry.component)?.heldBy;
      assert.ok(heldBy !== undefined, `${entry.component} fired as released but was not held`);
      const hold = `${entry.component}/${heldBy.changeGroup}/${heldBy.build}`;
      world.releasedFired.set(hold, (world.releasedFired.get(hold) ?? 0) + 1);
      assert.ok((world.releasedFired.get(hold) ?? 0) <= 1, `released hold ${hold} fired twice`);
    }
  }
  write(world, afterFire(step.record, step, result, world.now, POLICY).record);
  return step;
}

function apply(world: World, event: Event, verify: ValidatedPairInput['verify']): void {
  switch (event.kind) {
    case 'pass': {
      world.passes += 1;
      const images = new Map<string, string>();
      event.builds.forEach((n, c) => {
        const component = COMPONENTS[c];
        if (n !== null && component !== undefined) images.set(component, image(component, seedOf(component, n)));
      });
      world.snapshots.push({
        name: `operands-${String(event.startTime).padStart(3, '0')}-${String(world.passes).padStart(3, '0')}`,
        group: GROUP,
        startTime: event.startTime,
        images,
      });
      return;
    }
    case 'reconcile':
      reconcile(world, verify, event.crash, event.outcome);
      return;
    case 'tick':
      world.now += event.ms;
      return;
    case 'changeGroup': {
      const component = COMPONENTS[event.component] ?? 'operand-a';
      world.changeGroups.push({
        name: `cg-${String(world.changeGroups.length)}`,
        component,
        released: false,
        staleCache: false,
      });
      return;
    }
    case 'release': {
      const changeGroup = world.changeGroups.find((cg) => !cg.released);
      if (changeGroup === undefined) return;
      changeGroup.released = true;
      changeGroup.staleCache = event.staleCache;
      // N19: what it held is released; those (component, build) are never held again.
      for (const [component, nudged] of readRecord(world).nudged) {
        if (nudged.heldBy?.changeGroup === changeGroup.name)
          world.releasedHolds.add(`${component}/${nudged.heldBy.build}`);
      }
      return;
    }
  }
}

/** Newest first by start time, then name: the newest passing Snapshot that carries `component`. */
function newestCarrying(snapshots: readonly PassingSnapshot[], component: string): PassingSnapshot | undefined {
  return snapshots
    .filter((s) => s.images.has(component))
    .sort((a, b) => (a.startTime !== b.startTime ? b.startTime - a.startTime : a.name < b.name ? 1 : -1))[0];
}

/**
 * D10, a pass fires its digest: no passing Snapshot newer than the one `component` was last nudged
 * from carries a newer verified build of it (one in between whose digest is unverified is told
 * instead, and stops the search).
 */
function assertNoNewerPass(
  snapshots: readonly PassingSnapshot[],
  component: string,
  nudged: {
    readonly digest: string;
    readonly snapshot: string;
    readonly startTime: number;
    readonly buildCreatedAt: number;
  },
  verify: ValidatedPairInput['verify'],
): void {
  const newer = snapshots.filter(
    (s) =>
      s.images.has(component) &&
      (s.startTime !== nudged.startTime ? s.startTime > nudged.startTime : s.name > nudged.snapshot),
  );
  const verified = newer.map((s) => ({ s, verification: verify(component, s.images.get(component) ?? '') }));
  if (verified.some(({ verification }) => !verification.ok)) return;
  for (const { s, verification } of verified) {
    const img = s.images.get(component) ?? '';
    assert.ok(
      img.endsWith(`@${nudged.digest}`) || (verification.ok && verification.build.createdAt < nudged.buildCreatedAt),
      `${component}: ${s.name} passed with ${img}, newer than ${nudged.digest} of ${nudged.snapshot}, not nudged`,
    );
  }
}

/** With a working executor, no crash and time moving to each wake-up: settles in a few steps. */
function settle(world: World, verify: ValidatedPairInput['verify']): void {
  for (let n = 0; n < 40; n += 1) {
    const before = world.recordText;
    const step = reconcile(world, verify, 'none', 'ok');
    if (step.kind === 'idle') {
      if (step.wakeAt !== undefined) world.now = Math.max(world.now, step.wakeAt);
      else if (world.recordText === before) return;
    }
  }
  assert.fail(`not settled after 40 quiet steps: ${world.recordText}`);
}

describe('validated nudges under crashes (D10, N18, N19)', () => {
  it('one effect per content, nothing backwards, released holds fired once, and it converges', () => {
    fc.assert(
      fc.property(SCENARIO, ({ events, unverified }) => {
        const world = newWorld();
        const verify = verifier(new Set(unverified.map(([c, n]) => `${String(c)}/${String(n)}`)));
        for (const event of events) apply(world, event, verify);
        settle(world, verify);

        const record = readRecord(world);
        // A failed batch waits for a newer pass (N18): what it holds counts as the pair's intent.
        const failed = record.batch?.state === 'failed' ? record.batch.entries : {};
        assert.ok(
          record.batch === undefined || record.batch.state === 'failed',
          `settled with ${record.batch?.state ?? ''}`,
        );
        for (const component of COMPONENTS) {
          const newest = newestCarrying(world.snapshots, component);
          const nudged = failed[component] ?? record.nudged.get(component);
          if (nudged !== undefined) assertNoNewerPass(world.snapshots, component, nudged, verify);
          if (newest === undefined) {
            assert.equal(nudged, undefined, `${component}: nudged with no pass`);
            continue;
          }
          const img = newest.images.get(component) ?? '';
          const verification = verify(component, img);
          if (!verification.ok) continue;
          const newestDigest = img.slice(img.lastIndexOf('@') + 1);
          assert.ok(nudged !== undefined, `${component}: ${newestDigest} of ${newest.name} never nudged`);
          assert.ok(
            nudged.digest === newestDigest || nudged.buildCreatedAt > verification.build.createdAt,
            `${component}: nudged ${nudged.digest}, newest verified pass ${newest.name} has ${newestDigest}`,
          );
        }
        // What the branch carries for each component is what the record says was nudged.
        for (const [component, nudged] of record.nudged) {
          if (nudged.heldBy !== undefined || failed[component] !== undefined) continue;
          assert.equal(world.forge.branch.get(component)?.digest, nudged.digest, `${component} on the branch`);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('with a working executor and no ChangeGroups, every key reaches the forge once and crashes cost nothing', () => {
    const events = fc.array(
      fc.oneof(
        EVENT.filter((e) => e.kind === 'pass' || e.kind === 'tick'),
        fc.record({
          kind: fc.constant('reconcile' as const),
          crash: fc.constantFrom<Crash>('none', 'afterWrite', 'afterEffect'),
          outcome: fc.constant<Outcome>('ok'),
        }),
      ),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(events, (list) => {
        const world = newWorld();
        const verify = verifier(new Set());
        for (const event of list) apply(world, event, verify);
        settle(world, verify);
        const record = readRecord(world);
        assert.equal(record.batch, undefined);
        for (const component of COMPONENTS) {
          const newest = newestCarrying(world.snapshots, component);
          const nudged = record.nudged.get(component);
          if (newest === undefined) continue;
          assert.ok(nudged !== undefined);
          assert.ok(nudged.startTime <= newest.startTime);
          assert.equal(world.forge.branch.get(component)?.digest, nudged.digest);
        }
        assert.equal(world.forge.applied.size, world.forge.contentByKey.size, 'every key fired reached the forge once');
      }),
      { numRuns: 300 },
    );
  });
});
