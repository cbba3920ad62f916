import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildNudgeGraphs, type NamespaceGraph } from '../../src/domain/graph.ts';
import { PlanError, planImpact } from '../../src/domain/plan.ts';
import { arbitraryDag, component, manifestSet, nudgeConfig, type RandomGraph } from './fixtures.ts';

function graphOf(
  edges: readonly (readonly [string, string])[],
  namespace = 'ns',
  isolated: readonly string[] = [],
): NamespaceGraph {
  const set = manifestSet({
    components: isolated.map((name) => component(namespace, name)),
    nudgeConfigs: [nudgeConfig(namespace, edges)],
  });
  const graph = buildNudgeGraphs(set).get(namespace);
  assert.ok(graph !== undefined);
  return graph;
}

function counts(map: ReadonlyMap<string, bigint>): Record<string, number> {
  return Object.fromEntries([...map].map(([name, n]) => [name, Number(n)]));
}

/** ADR 29 build counts by brute force: one build per nudge path from a changed component. */
function countNudgePaths(graph: RandomGraph, changed: readonly string[]): Map<string, bigint> {
  const builds = new Map<string, bigint>();
  const walk = (name: string): void => {
    builds.set(name, (builds.get(name) ?? 0n) + 1n);
    for (const [from, to] of new Map(graph.edges.map((e) => [e.join('\u0000'), e])).values()) {
      if (from === name) walk(to);
    }
  };
  for (const name of new Set(changed)) walk(name);
  return builds;
}

const dagWithChanges = arbitraryDag(8).chain((graph) =>
  fc.subarray([...graph.names], { minLength: 1 }).map((changed) => ({ graph, changed })),
);

describe('planImpact', () => {
  it('30 operands nudging one bundle: the bundle builds 30 times under ADR 29 and once with a ChangeGroup', () => {
    const operands = Array.from({ length: 30 }, (_, i) => `operand-${String(i).padStart(2, '0')}`);
    const plan = planImpact(graphOf(operands.map((o) => [o, 'bundle'] as const)), operands);
    assert.equal(plan.builds.adr29.get('bundle'), 30n);
    assert.equal(plan.builds.changegroup.get('bundle'), 1n);
    assert.equal(plan.totals.adr29, 60n);
    assert.equal(plan.totals.changegroup, 31n);
    assert.deepEqual(plan.waves, [operands, ['bundle']]);
    assert.deepEqual(plan.changed, operands);
  });

  it('a parent nudging 5 children that nudge a bundle, parent and children changed: children 2, bundle 10', () => {
    const children = ['child-1', 'child-2', 'child-3', 'child-4', 'child-5'];
    const graph = graphOf([
      ...children.map((c) => ['parent', c] as const),
      ...children.map((c) => [c, 'bundle'] as const),
    ]);
    const plan = planImpact(graph, ['parent', ...children]);
    assert.deepEqual(counts(plan.builds.adr29), {
      bundle: 10,
      'child-1': 2,
      'child-2': 2,
      'child-3': 2,
      'child-4': 2,
      'child-5': 2,
      parent: 1,
    });
    assert.deepEqual(
      [...plan.builds.changegroup.values()],
      Array.from({ length: 7 }, () => 1n),
    );
    assert.deepEqual(plan.waves, [['parent'], children, ['bundle']]);
    assert.equal(plan.totals.adr29, 21n);
    assert.equal(plan.totals.changegroup, 7n);
  });

  it('only plans what is reachable from the changed components, changed names deduplicated and sorted', () => {
    const graph = graphOf(
      [
        ['a', 'b'],
        ['x', 'b'],
        ['b', 'c'],
        ['y', 'z'],
      ],
      'ns',
      ['lonely'],
    );
    const plan = planImpact(graph, ['b', 'lonely', 'b']);
    assert.equal(plan.namespace, 'ns');
    assert.deepEqual(plan.changed, ['b', 'lonely']);
    assert.deepEqual(plan.waves, [['b', 'lonely'], ['c']]);
    assert.deepEqual([...plan.builds.adr29.keys()], ['b', 'c', 'lonely']);
    assert.deepEqual(counts(plan.builds.adr29), { b: 1, c: 1, lonely: 1 });
  });

  it('places a component one wave after its latest affected nudger', () => {
    const graph = graphOf([
      ['a', 'b'],
      ['b', 'c'],
      ['a', 'c'],
      ['c', 'd'],
    ]);
    assert.deepEqual(planImpact(graph, ['a']).waves, [['a'], ['b'], ['c'], ['d']]);
  });

  it('counts an edge declared twice once', () => {
    const set = manifestSet({
      components: [component('ns', 'a', ['b'])],
      nudgeConfigs: [nudgeConfig('ns', [['a', 'b']])],
    });
    const graph = buildNudgeGraphs(set).get('ns');
    assert.ok(graph !== undefined);
    assert.equal(planImpact(graph, ['a']).builds.adr29.get('b'), 1n);
  });

  it('keeps exact counts past 2^53 on a long diamond chain', () => {
    const edges: [string, string][] = [];
    for (let i = 0; i < 60; i += 1) {
      const [from, to] = [`d${String(i)}`, `d${String(i + 1)}`];
      edges.push([from, `${from}-l`], [from, `${from}-r`], [`${from}-l`, to], [`${from}-r`, to]);
    }
    const plan = planImpact(graphOf(edges), ['d0']);
    assert.equal(plan.builds.adr29.get('d60'), 2n ** 60n);
    assert.equal(plan.totals.changegroup, 181n);
  });

  it('returns an empty plan when nothing changed', () => {
    const plan = planImpact(graphOf([['a', 'b']]), []);
    assert.deepEqual(
      { waves: plan.waves, changed: plan.changed, totals: plan.totals, size: plan.builds.adr29.size },
      { waves: [], changed: [], totals: { adr29: 0n, changegroup: 0n }, size: 0 },
    );
  });

  it('throws a PlanError naming unknown components', () => {
    const graph = graphOf([['a', 'b']]);
    assert.throws(
      () => planImpact(graph, ['zz', 'a', 'nope']),
      (error: unknown) => {
        assert.ok(error instanceof PlanError);
        assert.equal(error.name, 'PlanError');
        assert.equal(error.reason, 'unknown-component');
        assert.equal(error.namespace, 'ns');
        assert.deepEqual(error.names, ['nope', 'zz']);
        assert.equal(error.message, 'cannot plan the impact in namespace ns: unknown component(s) "nope", "zz"');
        return true;
      },
    );
  });

  it('throws a PlanError naming the cycle path when the affected components form a cycle', () => {
    const graph = graphOf(
      [
        ['start', 'b'],
        ['b', 'c'],
        ['c', 'b'],
      ],
      '',
    );
    assert.throws(
      () => planImpact(graph, ['start']),
      (error: unknown) => {
        assert.ok(error instanceof PlanError);
        assert.equal(error.reason, 'cycle');
        assert.deepEqual(error.names, ['b', 'c', 'b']);
        assert.equal(
          error.message,
          'cannot plan the impact in the unset namespace: the affected components form a cycle: b -> c -> b',
        );
        return true;
      },
    );
    assert.throws(() => planImpact(graphOf([['a', 'a']]), ['a']), /cycle: a -> a/);
  });

  it('ignores a cycle outside the affected components', () => {
    const graph = graphOf([
      ['a', 'b'],
      ['x', 'y'],
      ['y', 'x'],
      ['x', 'a'],
    ]);
    assert.deepEqual(planImpact(graph, ['a']).waves, [['a'], ['b']]);
  });

  it('matches a brute-force count of nudge paths, and every plan is consistent, for random DAGs', () => {
    fc.assert(
      fc.property(dagWithChanges, ({ graph, changed }) => {
        const nudgeGraph = graphOf(graph.edges, 'ns', graph.names);
        const plan = planImpact(nudgeGraph, changed);
        const expected = countNudgePaths(graph, changed);

        assert.deepEqual(plan.builds.adr29, new Map([...expected].sort(([a], [b]) => (a < b ? -1 : 1))));
        const affected = [...plan.builds.changegroup.keys()];
        assert.deepEqual(affected, [...expected.keys()].sort());
        assert.equal(plan.totals.changegroup, BigInt(affected.length));
        assert.deepEqual(plan.waves.flat().sort(), affected);
        for (const name of affected) {
          assert.ok((plan.builds.adr29.get(name) ?? 0n) >= (plan.builds.changegroup.get(name) ?? 0n));
        }
        const waveOf = new Map(plan.waves.flatMap((wave, i) => wave.map((name) => [name, i] as const)));
        for (const [from, to] of graph.edges) {
          const a = waveOf.get(from);
          if (a !== undefined) assert.ok(a < (waveOf.get(to) ?? -1), `${from} -> ${to}`);
        }
        for (const wave of plan.waves) assert.deepEqual(wave, [...wave].sort());
      }),
    );
  });
});
