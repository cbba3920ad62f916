import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildNudgeGraphs, type NamespaceGraph } from '../../src/domain/graph.ts';
import { PlanError, planImpact } from '../../src/domain/plan.ts';
import { arbitraryDag, component, type EntrySpec, manifestSet, nudgeConfig, type RandomGraph } from './fixtures.ts';

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
      { waves: [], changed: [], totals: { adr29: 0n, changegroup: 0n, validated: 0n }, size: 0 },
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

/** A graph from NudgeConfig entries with modes: `[from, to]` is immediate, `[from, to, G]` validated by G. */
function modalGraph(entries: readonly (readonly [string, string, string?])[], legacy: readonly ComponentSpec[] = []) {
  const specs = entries.map(([from, to, group]): EntrySpec =>
    group === undefined ? { from, to } : { from, to, mode: 'validated', gatingGroup: group },
  );
  const set = manifestSet({
    components: legacy.map(([name, nudges]) => component('ns', name, nudges)),
    nudgeConfigs: [nudgeConfig('ns', specs)],
  });
  const graph = buildNudgeGraphs(set).get('ns');
  assert.ok(graph !== undefined);
  return graph;
}
type ComponentSpec = readonly [string, readonly string[]];

describe('planImpact, validated (ADR 67, D10, N31)', () => {
  const operands = ['op-1', 'op-2', 'op-3', 'op-4', 'op-5'];

  it('five operands validated by one group into a bundle: the bundle builds once, not 5 times', () => {
    const plan = planImpact(modalGraph(operands.map((o) => [o, 'bundle', 'operands'] as const)), operands);
    assert.equal(plan.builds.validated.get('bundle'), 1n);
    assert.equal(plan.builds.adr29.get('bundle'), 5n);
    assert.equal(plan.builds.changegroup.get('bundle'), 1n);
    assert.deepEqual(plan.totals, { adr29: 10n, changegroup: 6n, validated: 6n });
    assert.deepEqual([...plan.passes], [['operands', [0]]]);
    assert.equal(plan.hasValidatedEdges, true);
    // The same operands nudging immediately: no group to wait for, one build per nudge as ADR 29.
    const immediate = planImpact(modalGraph(operands.map((o) => [o, 'bundle'] as const)), operands);
    assert.equal(immediate.builds.validated.get('bundle'), 5n);
    assert.equal(immediate.hasValidatedEdges, false);
    assert.equal(immediate.passes.size, 0);
  });

  it('a target nudged immediately by two and validated by two groups builds 2 + one per group', () => {
    const graph = modalGraph([
      ['a', 'x'],
      ['b', 'x'],
      ['c', 'x', 'g1'],
      ['d', 'x', 'g1'],
      ['e', 'x', 'g2'],
    ]);
    const plan = planImpact(graph, ['a', 'b', 'c', 'd', 'e']);
    // a and b nudge per build; c and d go out in one g1 batch; e in its own g2 pull request.
    assert.equal(plan.builds.validated.get('x'), 4n);
    assert.equal(plan.builds.adr29.get('x'), 5n);
    assert.deepEqual(
      [...plan.passes],
      [
        ['g1', [0]],
        ['g2', [0]],
      ],
    );
    // Only c changed: one g1 pass, and no immediate nudge.
    assert.equal(planImpact(graph, ['c']).builds.validated.get('x'), 1n);
    assert.deepEqual([...planImpact(graph, ['c']).passes], [['g1', [0]]]);
  });

  it('a chain: immediate fan-out, validated into a bundle, validated into an index', () => {
    const graph = modalGraph([
      ['parent', 'child-1'],
      ['parent', 'child-2'],
      ['child-1', 'bundle', 'children'],
      ['child-2', 'bundle', 'children'],
      ['bundle', 'index', 'bundles'],
    ]);
    const plan = planImpact(graph, ['parent']);
    assert.deepEqual(plan.waves, [['parent'], ['child-1', 'child-2'], ['bundle'], ['index']]);
    assert.deepEqual(counts(plan.builds.adr29), { bundle: 2, 'child-1': 1, 'child-2': 1, index: 2, parent: 1 });
    assert.deepEqual(counts(plan.builds.validated), { bundle: 1, 'child-1': 1, 'child-2': 1, index: 1, parent: 1 });
    assert.deepEqual(
      [...plan.passes],
      [
        ['bundles', [2]],
        ['children', [1]],
      ],
    );
    assert.deepEqual(plan.totals, { adr29: 7n, changegroup: 5n, validated: 5n });
  });

  it('a validated chain within one group passes after each wave a member builds in', () => {
    const plan = planImpact(
      modalGraph([
        ['a', 'b', 'g'],
        ['b', 'c', 'g'],
      ]),
      ['a'],
    );
    assert.deepEqual(counts(plan.builds.validated), { a: 1, b: 1, c: 1 });
    assert.deepEqual([...plan.passes], [['g', [0, 1]]]);
  });

  it('one pass carries every build of a wave: a component built twice feeds one validated build', () => {
    const graph = modalGraph([
      ['p', 'l'],
      ['p', 'r'],
      ['l', 'j'],
      ['r', 'j'],
      ['j', 't', 'g'],
    ]);
    const plan = planImpact(graph, ['p']);
    assert.equal(plan.builds.validated.get('j'), 2n);
    assert.equal(plan.builds.validated.get('t'), 1n);
    assert.equal(plan.builds.adr29.get('t'), 2n);
  });

  it('sources of one group in different waves: the target builds once per wave with a new digest', () => {
    const graph = modalGraph([
      ['a', 'm'],
      ['a', 'x', 'g'],
      ['m', 'x', 'g'],
    ]);
    const plan = planImpact(graph, ['a']);
    assert.equal(plan.builds.validated.get('x'), 2n);
    assert.deepEqual([...plan.passes], [['g', [0, 1]]]);
  });

  it('a validated entry without a gating group never fires: its target is affected but builds 0 times', () => {
    const set = manifestSet({
      nudgeConfigs: [
        nudgeConfig(
          'ns',
          [
            { from: 'a', to: 'b', mode: 'validated' },
            { from: 'b', to: 'c' },
          ],
          {
            flavour: 'upstream-konflux-v1beta2',
          },
        ),
      ],
    });
    const graph = buildNudgeGraphs(set).get('ns');
    assert.ok(graph !== undefined);
    const plan = planImpact(graph, ['a']);
    assert.deepEqual(counts(plan.builds.validated), { a: 1, b: 0, c: 0 });
    assert.deepEqual(counts(plan.builds.adr29), { a: 1, b: 1, c: 1 });
    assert.equal(plan.passes.size, 0);
    assert.equal(plan.hasValidatedEdges, true);
  });

  it('a pair declared validated in the NudgeConfig and in build-nudges-ref fires both ways', () => {
    // build-nudges-ref nudges on every build (duplicate-edge warns of it), the entry once per pass.
    const plan = planImpact(modalGraph([['a', 'b', 'g']], [['a', ['b']]]), ['a']);
    assert.equal(plan.builds.validated.get('b'), 2n);
    assert.equal(plan.builds.adr29.get('b'), 1n);
  });

  it('for random DAGs and modes: validated never exceeds adr29 and reaches every affected component', () => {
    const withModes = dagWithChanges.chain(({ graph, changed }) =>
      fc
        .array(fc.constantFrom(undefined, 'g1', 'g2'), {
          minLength: graph.edges.length,
          maxLength: graph.edges.length,
        })
        .map((groups) => ({ graph, changed, groups })),
    );
    fc.assert(
      fc.property(withModes, ({ graph, changed, groups }) => {
        // One mode per pair: a pair repeated in the NudgeConfig is an error, never planned.
        const byPair = new Map<string, readonly [string, string, string?]>();
        graph.edges.forEach(([from, to], i) => {
          const group = groups[i];
          byPair.set(`${from}>${to}`, group === undefined ? [from, to] : [from, to, group]);
        });
        const entries = [...byPair.values()];
        const isolated = graph.names.map((name): ComponentSpec => [name, []]);
        const plan = planImpact(modalGraph(entries, isolated), changed);
        for (const [name, adr29] of plan.builds.adr29) {
          const validated = plan.builds.validated.get(name) ?? 0n;
          assert.ok(validated >= 1n && validated <= adr29, `${name}: ${String(validated)} vs ${String(adr29)}`);
        }
        assert.ok(plan.totals.changegroup <= plan.totals.validated);
        assert.ok(plan.totals.validated <= plan.totals.adr29);
        if (entries.every((e) => e[2] === undefined)) assert.deepEqual(plan.builds.validated, plan.builds.adr29);
        const waveOf = new Map(plan.waves.flatMap((wave, i) => wave.map((name) => [name, i] as const)));
        for (const [group, waves] of plan.passes) {
          for (const w of waves) {
            const sources = entries.filter(([from, , g]) => g === group && waveOf.get(from) === w);
            assert.ok(sources.length > 0, `${group} passes after wave ${String(w)} with no source built in it`);
          }
        }
      }),
    );
  });
});
