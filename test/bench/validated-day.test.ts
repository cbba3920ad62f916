// The pure parts of issue 11's benchmarks (bench/validated-day.ts): the day every policy plays, the
// scenario of each policy, which pushes count as push builds, and which status write is t0. A
// mistake here would print a wrong figure (a policy that plays another day, a merge not counted, a
// latency measured from the wrong write), so each is checked against what it must be.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZERO_SHA, type ForgeEvent } from '../../src/adapters/forges/local/event-log.ts';
import { checkScenarioDocument } from '../../src/sandbox/scenario/parse.ts';
import { immediateNudges } from '../../src/sandbox/scenario/schema.ts';
import {
  DAY_CHANGE_GROUP,
  DAY_GROUP,
  DAY_TARGET,
  dayBuildOrder,
  daySteps,
  passPoints,
  policyDocument,
  POLICIES,
  pushesOnto,
  writesTestsPassed,
} from '../../bench/validated-day.ts';

const DAY = { operands: 30, rebuilds: 3, passes: 4, seed: 11 };

describe('the day of builds', () => {
  it('builds every operand once per round, each round shuffled, reproducibly', () => {
    const names = Array.from({ length: 30 }, (_, i) => `op-${String(i)}`);
    const order = dayBuildOrder(names, 3, 11);
    assert.equal(order.length, 90);
    for (let round = 0; round < 3; round += 1) {
      assert.deepEqual([...order.slice(round * 30, round * 30 + 30)].sort(), [...names].sort());
    }
    assert.notDeepEqual(order.slice(0, 30), names, 'a round is shuffled');
    assert.notDeepEqual(order.slice(0, 30), order.slice(30, 60), 'each round has its own order');
    assert.deepEqual(dayBuildOrder(names, 3, 11), order);
    assert.notDeepEqual(dayBuildOrder(names, 3, 12), order);
  });

  it('spreads the passes evenly, the last after the last build', () => {
    assert.deepEqual(passPoints(90, 4), [23, 45, 68, 90]);
    assert.deepEqual(passPoints(30, 4), [8, 15, 23, 30]);
    assert.deepEqual(passPoints(5, 5), [1, 2, 3, 4, 5]);
    assert.throws(() => passPoints(3, 4), RangeError);
    assert.throws(() => passPoints(3, 0), RangeError);
  });

  it('puts a passing Snapshot of the group after each pass point and gives every build its own digest', () => {
    const steps = daySteps(['a', 'b', 'a', 'b'], 2, 1);
    assert.deepEqual(
      steps.map((s) => ('build' in s ? s.build : 'snapshot' in s ? `pass ${s.snapshot.group}` : '?')),
      ['a', 'b', `pass ${DAY_GROUP}`, 'a', 'b', `pass ${DAY_GROUP}`],
    );
    const digests = steps.flatMap((s) => ('build' in s ? [s.digest] : []));
    assert.equal(new Set(digests).size, 4);
  });
});

describe('policyDocument', () => {
  const scenarios = POLICIES.map((policy) => ({
    policy,
    scenario: checkScenarioDocument(policyDocument(policy, `ns-${String(POLICIES.indexOf(policy))}`, DAY), policy),
  }));

  it('plays the same builds and Snapshots in every namespace', () => {
    const [first, ...rest] = scenarios;
    assert.ok(first !== undefined);
    assert.equal(first.scenario.steps.filter((s) => 'build' in s).length, 90);
    assert.equal(first.scenario.steps.filter((s) => 'snapshot' in s).length, 4);
    for (const { scenario } of rest) assert.deepEqual(scenario.steps, first.scenario.steps);
  });

  it('declares immediate or validated entries and the ChangeGroup as the policy says', () => {
    for (const { policy, scenario } of scenarios) {
      const operands = scenario.components.filter((c) => c.name !== DAY_TARGET);
      assert.equal(operands.length, 30);
      const validated = policy.startsWith('validated');
      for (const operand of operands) {
        assert.deepEqual(operand.nudges, [DAY_TARGET]);
        assert.deepEqual(immediateNudges(operand), validated ? [] : [DAY_TARGET], `${policy} ${operand.name}`);
        if (validated) assert.equal(operand.validated?.[DAY_TARGET], DAY_GROUP);
      }
      assert.deepEqual(
        scenario.changeGroups.map((cg) => [cg.name, cg.nudgedComponent]),
        policy.endsWith('changegroup') ? [[DAY_CHANGE_GROUP, DAY_TARGET]] : [],
        policy,
      );
      assert.deepEqual(
        scenario.componentGroups[0]?.components,
        operands.map((c) => c.name),
      );
    }
  });
});

describe('pushesOnto', () => {
  const push = (ref: string, before: string, after: string): ForgeEvent => ({
    type: 'push',
    ref,
    before,
    after,
    at: '2026-11-26T10:00:00Z',
  });

  it('counts moves of the branch, not its creation, deletion, other branches or PR events', () => {
    const events: ForgeEvent[] = [
      push('refs/heads/main', ZERO_SHA, 'a'.repeat(40)),
      push('refs/heads/konflux/component-updates/x', ZERO_SHA, 'b'.repeat(40)),
      {
        type: 'merged',
        number: 1,
        headBranch: 'konflux/component-updates/x',
        baseBranch: 'main',
        headSha: 'b'.repeat(40),
        draft: false,
        at: '2026-11-26T10:00:01Z',
      },
      push('refs/heads/main', 'a'.repeat(40), 'b'.repeat(40)),
      push('refs/heads/main', 'b'.repeat(40), 'c'.repeat(40)),
      push('refs/heads/mainline', 'c'.repeat(40), 'd'.repeat(40)),
      push('refs/heads/main', 'c'.repeat(40), ZERO_SHA),
    ];
    assert.deepEqual(pushesOnto(events, 'main'), ['b'.repeat(40), 'c'.repeat(40)]);
  });
});

describe('writesTestsPassed', () => {
  const status = (type: string, value: string): unknown => ({ status: { conditions: [{ type, status: value }] } });

  it('is true only for AppStudioTestSucceeded=True', () => {
    assert.equal(writesTestsPassed(status('AppStudioTestSucceeded', 'True')), true);
    assert.equal(writesTestsPassed(status('AppStudioTestSucceeded', 'False')), false);
    assert.equal(writesTestsPassed(status('Succeeded', 'True')), false);
    assert.equal(writesTestsPassed({ status: {} }), false);
    assert.equal(writesTestsPassed(undefined), false);
  });
});
