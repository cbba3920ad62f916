// Properties of the dispatcher under crashes (docs/decisions.md N18). A simulated controller carries
// out each decision's intents in order against a world (the build PipelineRun, the held-nudge
// records, the repositories an executor writes to) and may die after any atomic step: the next
// decision starts from whatever the world then holds. Meanwhile the world moves on: the build
// finishes, ChangeGroups come and go and release what they held (docs/decisions.md N19), entries
// and Components are removed, the build is deleted.
// The executor is idempotent by the fire intent's key, as the real ones are (the direct executor
// finds its PR by branch, the renovate executor names its PipelineRun by the key).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ChangeGroupView } from '../../../src/domain/changegroup/hold-decision.ts';
import type { NamespaceGraph } from '../../../src/domain/graph.ts';
import { isEffect, type DispatchIntent } from '../../../src/domain/nudge/dispatch-intents.ts';
import {
  DISPATCH_FINALIZER,
  isFinal,
  isSettled,
  stateOf,
  type DispatchMarker,
} from '../../../src/domain/nudge/dispatch-marker.ts';
import { decideDispatch, settleFire, type DispatchInput, type FireResult } from '../../../src/domain/nudge/dispatch.ts';
import { DEFAULT_DISPATCH_POLICY } from '../../../src/domain/nudge/dispatch-policy.ts';
import { hasReleasedHold } from '../../../src/domain/nudge/dispatch-release.ts';
import { verifyDispatchBuild } from '../../../src/domain/nudge/dispatch-verify.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';
import { OPERAND_A, SOURCE, T0, applyToBuild, build, changeGroup, graph, markerOf } from './dispatch-fixtures.ts';

const TARGETS = ['t1', 't2', 't3', 't4'] as const;
type Target = (typeof TARGETS)[number];
/** `partial`: the change was made, then a later call failed (say, setting labels after the push). */
type Outcome = 'ok' | 'fail' | 'partial' | 'permanent';

interface Scenario {
  readonly startsRunning: boolean;
  readonly fails: boolean;
  readonly finishAtPass: number;
  readonly entries: readonly Target[];
  readonly missing: readonly Target[];
  /** A ChangeGroup on the target that is collecting from `from` until `until` (pass numbers). */
  readonly holds: readonly { readonly target: Target; readonly from: number; readonly until: number }[];
  /** From this pass on, the ChangeGroup holding `target` (if any) has released its record. */
  readonly releases: readonly { readonly target: Target; readonly atPass: number }[];
  readonly entryRemoved?: { readonly target: Target; readonly atPass: number };
  readonly componentDeleted?: { readonly target: Target; readonly atPass: number };
  readonly deleteAtPass?: number;
  readonly nudgeConfigRemovedAtPass?: number;
  /** Per target, what successive executor calls answer; `ok` once the list is used up. */
  readonly executor: Readonly<Record<Target, readonly Outcome[]>>;
  /** Per pass: crash after this many atomic steps, or run to the end. */
  readonly crashes: readonly (number | null)[];
}

const PASS_NUMBER = fc.integer({ min: 0, max: 12 });

const SCENARIO: fc.Arbitrary<Scenario> = fc
  .record({
    startsRunning: fc.boolean(),
    fails: fc.constantFrom(false, false, false, true),
    finishAtPass: fc.integer({ min: 0, max: 3 }),
    entries: fc.subarray([...TARGETS], { minLength: 1 }),
    missing: fc.subarray([...TARGETS], { maxLength: 1 }),
    holds: fc.array(
      fc.record({
        target: fc.constantFrom(...TARGETS),
        from: fc.integer({ min: 0, max: 8 }),
        until: fc.integer({ min: 0, max: 40 }),
      }),
      { maxLength: 2 },
    ),
    releases: fc.array(fc.record({ target: fc.constantFrom(...TARGETS), atPass: fc.integer({ min: 0, max: 30 }) }), {
      maxLength: 2,
    }),
    entryRemoved: fc.option(fc.record({ target: fc.constantFrom(...TARGETS), atPass: PASS_NUMBER }), {
      nil: undefined,
    }),
    componentDeleted: fc.option(fc.record({ target: fc.constantFrom(...TARGETS), atPass: PASS_NUMBER }), {
      nil: undefined,
    }),
    deleteAtPass: fc.option(PASS_NUMBER, { nil: undefined, freq: 2 }),
    nudgeConfigRemovedAtPass: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
    executor: fc.record({
      t1: fc.array(fc.constantFrom<Outcome>('ok', 'fail', 'fail', 'permanent'), { maxLength: 7 }),
      t2: fc.array(fc.constantFrom<Outcome>('ok', 'fail', 'partial'), { maxLength: 7 }),
      t3: fc.array(fc.constantFrom<Outcome>('fail'), { maxLength: 7 }),
      t4: fc.constant([]),
    }),
    crashes: fc.array(fc.option(fc.integer({ min: 0, max: 12 }), { nil: null, freq: 2 }), {
      minLength: 60,
      maxLength: 60,
    }),
  })
  .map((s) => ({ ...s, fails: s.fails && !s.startsRunning ? false : s.fails }));

interface World {
  run: PipelineRun | undefined;
  /** Marker when the build left the cluster. */
  lastMarker: DispatchMarker | undefined;
  now: number;
  deletionRequested: boolean;
  finished: boolean;
  /** Distinct changes each target's repository saw, by idempotency key. */
  readonly effects: Map<string, Set<string>>;
  readonly calls: Map<string, number>;
  /** Held-nudge records by name: target and ChangeGroup. */
  readonly records: Map<string, { readonly target: string; readonly changeGroup: string }>;
  /** Names of the records whose ChangeGroup released them (the released-targets annotation). */
  readonly released: Set<string>;
  /** The targets the first marker listed (the build's plan). */
  planned: readonly string[] | undefined;
}

function scenarioGraph(s: Scenario, pass: number): NamespaceGraph {
  if (s.nudgeConfigRemovedAtPass !== undefined && pass >= s.nudgeConfigRemovedAtPass) return graph([]);
  const removed = s.entryRemoved !== undefined && pass >= s.entryRemoved.atPass ? s.entryRemoved.target : undefined;
  return graph(s.entries.filter((t) => t !== removed).map((t) => [SOURCE, t] as const));
}

function scenarioInput(s: Scenario, world: World, run: PipelineRun, pass: number): DispatchInput {
  const deleted =
    s.componentDeleted !== undefined && pass >= s.componentDeleted.atPass ? s.componentDeleted.target : '';
  const components = new Set([SOURCE, ...TARGETS.filter((t) => !s.missing.includes(t) && t !== deleted)]);
  const changeGroups: ChangeGroupView[] = s.holds.map((h, i) =>
    changeGroup({
      name: `cg-${String(i)}-${h.target}`,
      nudgedComponent: h.target,
      phase: pass >= h.from && pass < h.until ? 'Waiting' : 'Completed',
    }),
  );
  return {
    build: run,
    verification: verifyDispatchBuild(run, OPERAND_A),
    hasNudgeConfig: s.nudgeConfigRemovedAtPass === undefined || pass < s.nudgeConfigRemovedAtPass,
    graph: scenarioGraph(s, pass),
    executor: 'direct',
    components,
    changeGroups,
    releasedHolds: releasedHoldsOf(world),
    now: world.now,
  };
}

/** What the controller reads from the records (releasedHolds over the namespace's nudge runs). */
function releasedHoldsOf(world: World): Map<string, string> {
  return new Map(
    [...world.records].filter(([name]) => world.released.has(name)).map(([, r]) => [r.target, r.changeGroup]),
  );
}

function releaseRecords(world: World, s: Scenario, pass: number): void {
  for (const release of s.releases) {
    if (pass < release.atPass) continue;
    for (const [name, record] of world.records) if (record.target === release.target) world.released.add(name);
  }
}

/** The same observed state as another replica's caches would list it: other orders, same content. */
function asOtherReplicaSeesIt(input: DispatchInput): DispatchInput {
  return {
    ...input,
    components: new Set([...input.components].reverse()),
    changeGroups: [...input.changeGroups].reverse(),
  };
}

function hasOurFinalizer(run: PipelineRun): boolean {
  return (run.metadata?.finalizers ?? []).includes(DISPATCH_FINALIZER);
}

function statusUpdate(world: World, s: Scenario): void {
  const run = world.run;
  if (run === undefined || world.finished) return;
  world.finished = true;
  const finished = build({ succeeded: s.fails ? 'False' : 'True' });
  world.run = { ...run, status: finished.status };
}

function requestDeletion(world: World): void {
  const run = world.run;
  if (run === undefined || world.deletionRequested) return;
  world.deletionRequested = true;
  if ((run.metadata?.finalizers ?? []).length === 0) {
    world.lastMarker = markerOf(run);
    world.run = undefined;
    return;
  }
  world.run = { ...run, metadata: { ...run.metadata, deletionTimestamp: new Date(world.now).toISOString() } };
}

/** The API server applying one write to the build, with the checks that are the properties. */
function write(world: World, intent: DispatchIntent): void {
  const run = world.run;
  assert.ok(run, 'a write to a build that is gone');
  if (intent.kind === 'addFinalizer') assert.ok(!world.deletionRequested, 'no finalizer is added during deletion');
  if (intent.kind === 'removeFinalizer') {
    const marker = markerOf(run);
    // Property 2: the finalizer goes only once every target has a final outcome.
    assert.ok(marker !== undefined && isSettled(marker), `finalizer removed with ${JSON.stringify(marker)}`);
  }
  let next = applyToBuild(run, intent);
  world.planned ??= markerOf(next)?.entries.map((e) => e.name);
  if (world.deletionRequested && (next.metadata?.finalizers ?? []).length === 0) {
    world.lastMarker = markerOf(next);
    world.run = undefined;
    return;
  }
  if (intent.kind === 'addFinalizer' && next.metadata?.finalizers === undefined) next = run;
  world.run = next;
}

function effectsOf(world: World, target: string): Set<string> {
  let set = world.effects.get(target);
  if (set === undefined) {
    set = new Set();
    world.effects.set(target, set);
  }
  return set;
}

/**
 * One controller pass: decide, then carry out the intents; stop after `crashAfter` atomic steps.
 * Returns the decision's intents and whether it ran to the end.
 */
function controllerPass(
  s: Scenario,
  world: World,
  pass: number,
  crashAfter: number | null,
): { intents: readonly DispatchIntent[]; completed: boolean } {
  const run = world.run;
  if (run === undefined) return { intents: [], completed: true };
  const input = scenarioInput(s, world, run, pass);
  const decision = decideDispatch(input);
  // Property 4: two replicas deciding on the same observed state decide the same.
  assert.deepEqual(decideDispatch(asOtherReplicaSeesIt(input)), decision);
  let steps = 0;
  const step = (): boolean => {
    if (crashAfter !== null && steps >= crashAfter) return false;
    steps += 1;
    return true;
  };
  for (const intent of decision.intents) {
    if (!isEffect(intent)) continue;
    if (world.run === undefined) return { intents: decision.intents, completed: false };
    const before = world.run;
    if (intent.kind === 'hold' || intent.kind === 'fire') {
      // The finalizer protects every effect, unless deletion began before nudger could add it.
      assert.ok(hasOurFinalizer(before) || world.deletionRequested, `${intent.kind} without the finalizer`);
      const state = stateOf(markerOf(before), intent.target);
      assert.ok(state !== undefined && !isFinal(state), `${intent.kind} of ${intent.target} after its outcome`);
    }
    if (intent.kind === 'hold') {
      if (!step()) return { intents: decision.intents, completed: false };
      // Property 3: a held target never gets a fire (nor a fired one a hold).
      assert.equal(effectsOf(world, intent.target).size, 0, `${intent.target} held after it was fired`);
      world.records.set(intent.record.name, { target: intent.target, changeGroup: intent.changeGroup });
      continue;
    }
    if (intent.kind === 'fire') {
      // Write-ahead: the marker says this attempt is under way before it starts.
      assert.deepEqual(stateOf(markerOf(before), intent.target), {
        kind: 'firing',
        attempt: intent.attempt,
        startedAt: Math.floor(world.now / 1000) * 1000,
      });
      assert.ok(
        ![...world.records].some(([name, r]) => r.target === intent.target && !world.released.has(name)),
        `${intent.target} fired while a held-nudge record exists that its ChangeGroup has not released`,
      );
      if (!step()) return { intents: decision.intents, completed: false };
      const calls = (world.calls.get(intent.target) ?? 0) + 1;
      world.calls.set(intent.target, calls);
      const outcome = s.executor[intent.target as Target][calls - 1] ?? 'ok';
      if (outcome === 'ok' || outcome === 'partial') effectsOf(world, intent.target).add(intent.key);
      const result: FireResult =
        outcome === 'ok'
          ? { ok: true }
          : { ok: false, reason: 'forge-unavailable', message: 'HTTP 503', permanent: outcome === 'permanent' };
      for (const settled of settleFire(intent, result, world.now)) {
        if (!isEffect(settled)) continue;
        if (!step()) return { intents: decision.intents, completed: false };
        write(world, settled);
      }
      continue;
    }
    if (!step()) return { intents: decision.intents, completed: false };
    write(world, intent);
  }
  return { intents: decision.intents, completed: true };
}

function simulate(s: Scenario): World {
  const world: World = {
    run: build(s.startsRunning ? { running: true } : {}),
    lastMarker: undefined,
    now: T0,
    deletionRequested: false,
    finished: !s.startsRunning,
    effects: new Map(),
    calls: new Map(),
    records: new Map(),
    released: new Set(),
    planned: undefined,
  };
  let quiet = 0;
  for (let pass = 0; pass < 400; pass += 1) {
    if (s.startsRunning && pass >= s.finishAtPass) statusUpdate(world, s);
    if (s.deleteAtPass !== undefined && pass >= s.deleteAtPass) requestDeletion(world);
    releaseRecords(world, s, pass);
    const crashAfter = s.crashes[pass] ?? null;
    const { intents, completed } = controllerPass(s, world, pass, crashAfter);
    world.now += 1000;
    const effects = intents.filter(isEffect);
    if (completed && effects.length === 0) {
      const retry = intents.find((i) => i.kind === 'scheduleRetry');
      if (retry?.kind === 'scheduleRetry') world.now += retry.afterMs;
      // Quiet for long enough that every scheduled world change has happened: done.
      else if (pass > 45 && (quiet += 1) > 2) return world;
    }
  }
  assert.fail('the dispatcher did not settle within 400 passes');
}

/** The properties, checked on the world a scenario leaves behind. */
function assertOutcomes(s: Scenario): void {
  const world = simulate(s);
  const marker = world.run === undefined ? world.lastMarker : markerOf(world.run);
  if (world.run !== undefined) {
    assert.ok(marker === undefined || isSettled(marker), `unsettled: ${JSON.stringify(marker)}`);
    // A released hold is fired or finalised with a reason while the build is there.
    assert.ok(
      marker === undefined || !hasReleasedHold(marker, releasedHoldsOf(world)),
      `a released hold left: ${JSON.stringify(marker)}`,
    );
    assert.equal(hasOurFinalizer(world.run), false, 'finalizer left behind');
  }
  for (const target of TARGETS) {
    const effects = world.effects.get(target)?.size ?? 0;
    // Property 1: at most once; the key is the same on every attempt and after every crash.
    assert.ok(effects <= 1, `${target} nudged ${String(effects)} times`);
    const state = stateOf(marker, target);
    if (state?.kind === 'pullRequest') assert.equal(effects, 1, `${target} recorded but not nudged`);
    if (state?.kind === 'held') {
      assert.equal(effects, 0, `${target} both held and nudged`);
      assert.ok([...world.records.values()].some((r) => r.target === target && r.changeGroup === state.changeGroup));
    }
    if (effects === 1) assert.notEqual(state?.kind, 'held');
  }
  // Every target of the plan has a final outcome (a build deleted before it could be planned
  // has none: nothing protected it, as with build-service).
  for (const target of world.planned ?? []) {
    const state = stateOf(marker, target);
    assert.ok(state !== undefined && isFinal(state), `${target}: ${JSON.stringify(state)}`);
  }
  // No calls beyond the attempts the policy allows, crashes included.
  for (const [target, calls] of world.calls) {
    assert.ok(calls <= DEFAULT_DISPATCH_POLICY.maxAttempts, `${target} called ${String(calls)} times`);
  }
}

describe('dispatcher properties under crashes', () => {
  it('every (build, target) is nudged at most once, and ends nudged, held or finalised with a reason', () => {
    fc.assert(
      fc.property(SCENARIO, (s) => {
        assertOutcomes(s);
      }),
      { numRuns: 300 },
    );
  });

  it('a hold its ChangeGroup releases is fired at most once, never while still held, or finalised', () => {
    const released = SCENARIO.chain((s) =>
      fc
        .record({ from: fc.integer({ min: 0, max: 3 }), atPass: fc.integer({ min: 0, max: 30 }) })
        .map(({ from, atPass }): Scenario => ({
          ...s,
          entries: [...new Set([...s.entries, 't2' as const])],
          missing: s.missing.filter((t) => t !== 't2'),
          holds: [{ target: 't2', from, until: 40 }],
          releases: [{ target: 't2', atPass }],
          deleteAtPass: undefined,
        })),
    );
    let fired = 0;
    fc.assert(
      fc.property(released, (s) => {
        assertOutcomes(s);
      }),
      { numRuns: 200 },
    );
    // The scenarios do reach the release (8 of these 50: the others fail, lose the entry, the
    // Component or the NudgeConfig first, and are finalised with a reason).
    fc.assert(
      fc.property(released, (s) => {
        const world = simulate(s);
        const held = [...world.records.values()].some((r) => r.target === 't2');
        if (held && (world.effects.get('t2')?.size ?? 0) === 1) fired += 1;
      }),
      { numRuns: 50, seed: 1 },
    );
    assert.ok(fired >= 5, `only ${String(fired)} of 50 held t2 and then fired it after its release`);
  });

  it('without crashes or changes, a succeeded build nudges each existing target exactly once', () => {
    fc.assert(
      fc.property(fc.subarray([...TARGETS], { minLength: 1 }), (entries) => {
        const world = simulate({
          startsRunning: true,
          fails: false,
          finishAtPass: 1,
          entries,
          missing: [],
          holds: [],
          releases: [],
          executor: { t1: [], t2: [], t3: [], t4: [] },
          crashes: [],
        });
        for (const target of TARGETS) {
          assert.equal(world.effects.get(target)?.size ?? 0, entries.includes(target) ? 1 : 0, target);
          assert.equal(world.calls.get(target) ?? 0, entries.includes(target) ? 1 : 0, target);
        }
      }),
      { numRuns: 30 },
    );
  });
});
