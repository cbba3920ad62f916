// Properties of the ChangeGroup state machine, with an in-memory forge and a Pipelines-as-Code
// stand-in that counts builds the way stock PaC would (a push or ready-for-review event whose head
// commit lacks [skip ci]). The executor may "crash" after acting and before status is written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CHANGE_GROUP_PHASES, TERMINAL_PHASES } from '../../../src/domain/changegroup/model.ts';
import {
  reconcileChangeGroup,
  recordDescriptionUpdate,
  recordPullRequestPush,
  recordReadyForReview,
  type ChangeGroupIntent,
  type CollectedBuild,
  type PullRequestObservation,
} from '../../../src/domain/changegroup/state.ts';
import type { ChangeGroupComponentStatus, ChangeGroupStatus } from '../../../src/schema/changegroup.ts';
import { build, input } from './state-fixtures.ts';

interface RemotePr {
  builds: string;
  final: boolean;
  draft: boolean;
  commits: number;
}

interface World {
  status: ChangeGroupStatus | undefined;
  pr: RemotePr | undefined;
  /** Builds PaC started for the nudged component. */
  pacBuilds: number;
  /** Final pushes that changed the branch. */
  finalPushes: number;
}

function observe(world: World): PullRequestObservation {
  if (world.pr === undefined) return { state: 'none' };
  return {
    state: 'open',
    draft: world.pr.draft,
    manualChanges: false,
    rebaseRequested: false,
    buildNowRequested: false,
  };
}

const key = (builds: readonly { name: string; digest: string }[]) =>
  builds.map((b) => `${b.name}=${b.digest}`).join(',');

/** Carries out intents idempotently, as the real executor must; `crash` drops the status writes. */
function execute(world: World, status: ChangeGroupStatus, intents: readonly ChangeGroupIntent[], crash: boolean): void {
  let next = status;
  for (const intent of intents) {
    if (intent.kind === 'ensurePullRequest') {
      const wanted = key(intent.builds);
      if (world.pr === undefined) {
        world.pr = { builds: wanted, final: intent.final, draft: intent.draft, commits: 1 };
        if (intent.final) {
          world.pacBuilds += 1;
          world.finalPushes += 1;
        }
      } else if (world.pr.builds !== wanted || world.pr.final !== intent.final || intent.discardManualChanges) {
        world.pr = { ...world.pr, builds: wanted, final: intent.final, commits: world.pr.commits + 1 };
        if (intent.final) {
          world.pacBuilds += 1;
          world.finalPushes += 1;
        }
      }
      next = recordPullRequestPush(next, intent, {
        number: 1,
        url: 'https://forge/pr/1',
        headBranch: 'konflux/change-groups/bundle-x-update',
        baseBranch: 'main',
        baseCommit: 'c'.repeat(40),
        commit: world.pr.commits.toString(16).padStart(40, '0'),
        draft: world.pr.draft,
      });
    } else if (intent.kind === 'markReadyForReview') {
      if (world.pr?.draft === true) {
        world.pr.draft = false;
        if (world.pr.final) world.pacBuilds += 1;
      }
      next = recordReadyForReview(next);
    } else if (intent.kind === 'updateDescription') {
      next = recordDescriptionUpdate(next, intent.descriptionFingerprint);
    }
  }
  if (!crash) world.status = next;
  else world.status = status;
}

/** Reconciles once; also checks idempotence: the same input again gives the same answer. */
function step(world: World, builds: readonly CollectedBuild[], crash: boolean, minute: number): ChangeGroupIntent[] {
  const i = input({
    now: new Date(Date.parse('2025-01-15T12:00:00Z') + minute * 60_000),
    builds,
    pullRequest: observe(world),
    ...(world.status === undefined ? {} : { status: world.status }),
  });
  const first = reconcileChangeGroup(i);
  const again = reconcileChangeGroup({ ...i, changeGroup: { ...i.changeGroup, status: first.status } });
  assert.deepEqual(again.status, first.status, 'status is a fixpoint');
  assert.deepEqual(again.intents, first.intents, 'reconciling the output again asks for nothing new');
  execute(world, first.status, first.intents, crash);
  return [...first.intents];
}

const COMPONENTS = ['operand-a', 'operand-b', 'operator'];
const HEX = '123456789abcdef';

/** Per early component 1-4 rebuilds at distinct times; `operator` builds once, after all others. */
const scenario = fc
  .record({
    rebuilds: fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 })),
    times: fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { minLength: 8, maxLength: 8 }),
    seed: fc.integer(),
    crashes: fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
    duplicates: fc.array(fc.nat(7), { maxLength: 4 }),
  })
  .map(({ rebuilds, times, seed, crashes, duplicates }) => {
    const early: CollectedBuild[] = [];
    let t = 0;
    rebuilds.forEach((count, c) => {
      for (let n = 0; n < count; n += 1) {
        const name = COMPONENTS[c] ?? '';
        early.push(build(name, HEX[(c * 5 + n) % HEX.length] ?? '1', times[t] ?? 0, `${name}-run-${String(n)}`));
        t += 1;
      }
    });
    const arrival =
      fc.sample(fc.shuffledSubarray(early, { minLength: early.length, maxLength: early.length }), {
        seed,
        numRuns: 1,
      })[0] ?? early;
    for (const d of duplicates) {
      const again = early[d % early.length];
      if (again !== undefined) arrival.splice(d % (arrival.length + 1), 0, again);
    }
    return { early, arrival, crashes };
  });

describe('ChangeGroup state machine properties', () => {
  it('any arrival order, repeats and crashes: newest digests win, and the bundle builds exactly once', () => {
    fc.assert(
      fc.property(scenario, ({ early, arrival, crashes }) => {
        const world: World = { status: undefined, pr: undefined, pacBuilds: 0, finalPushes: 0 };
        const seen: CollectedBuild[] = [];
        let minute = 0;
        for (const b of arrival) {
          seen.push(b);
          step(world, seen, crashes[minute % crashes.length] ?? false, (minute += 1));
          assert.equal(world.pacBuilds, 0, 'no build before every component is ready');
        }
        seen.push(build('operator', 'f', 600, 'operator-run-0'));
        for (let n = 0; n < 4; n += 1) step(world, seen, n < 2 && (crashes[n] ?? false), (minute += 1));
        assert.equal(world.status?.phase, 'Ready');
        for (const name of ['operand-a', 'operand-b']) {
          const newest = early
            .filter((b) => b.component === name)
            .sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''))
            .at(-1);
          const components: readonly ChangeGroupComponentStatus[] = world.status.components ?? [];
          const entry: ChangeGroupComponentStatus | undefined = components.find((c) => c.name === name);
          assert.equal(entry?.newBuild, newest?.digest, name);
          assert.ok(world.pr?.builds.includes(`${name}=${newest?.digest ?? ''}`));
        }
        assert.equal(world.pacBuilds, 1, 'one bundle build');
        assert.equal(world.finalPushes, 1, 'one final push');
        assert.equal(world.pr?.draft, false);
        const settled = step(world, seen, false, minute + 1);
        assert.deepEqual(settled, [], 'nothing left to do');
      }),
      { numRuns: 300 },
    );
  });

  it('terminal phases are absorbing', () => {
    const observation = fc.oneof(
      fc.constant<PullRequestObservation>({ state: 'none' }),
      fc.constant<PullRequestObservation>({ state: 'merged' }),
      fc.constant<PullRequestObservation>({ state: 'closed' }),
      fc.record({
        state: fc.constant('open' as const),
        draft: fc.boolean(),
        manualChanges: fc.boolean(),
        rebaseRequested: fc.boolean(),
        buildNowRequested: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...[...TERMINAL_PHASES]),
        observation,
        fc.array(fc.tuple(fc.constantFrom(...COMPONENTS), fc.constantFrom(...HEX.split('')), fc.nat(1000)), {
          maxLength: 5,
        }),
        fc.nat(100_000),
        (phase, pullRequest, builds, minutes) => {
          const status: ChangeGroupStatus = { phase, startTime: '2025-01-15T10:00:00Z', components: [] };
          const result = reconcileChangeGroup(
            input({
              status,
              spec: { timeout: '1h' },
              now: new Date(Date.parse('2025-01-15T10:00:00Z') + minutes * 60_000),
              pullRequest,
              builds: builds.map(([c, d, t]) => build(c, d, t)),
            }),
          );
          assert.deepEqual(result.status, status);
          assert.ok(result.intents.every((i) => i.kind === 'redispatchNudge' || i.kind === 'updateDescription'));
        },
      ),
    );
  });

  it('every phase it produces is one of the six', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...COMPONENTS), fc.constantFrom(...HEX.split('')), fc.nat(1000))),
        (builds) => {
          const { status } = reconcileChangeGroup(input({ builds: builds.map(([c, d, t]) => build(c, d, t)) }));
          assert.ok(CHANGE_GROUP_PHASES.includes(status.phase ?? 'Initialized'));
        },
      ),
    );
  });

  it('a rebase after the final push is the only way to a second build', () => {
    const world: World = { status: undefined, pr: undefined, pacBuilds: 0, finalPushes: 0 };
    const all = COMPONENTS.map((c, n) => build(c, '1', n));
    step(world, all.slice(0, 1), false, 1);
    step(world, all, false, 2);
    step(world, all, false, 3);
    assert.equal(world.pacBuilds, 1);
    const i = input({
      status: world.status,
      builds: all,
      pullRequest: {
        state: 'open',
        draft: false,
        manualChanges: true,
        rebaseRequested: true,
        buildNowRequested: false,
      },
    });
    const rebase = reconcileChangeGroup(i);
    execute(world, rebase.status, rebase.intents, false);
    assert.equal(world.pacBuilds, 2);
  });
});
