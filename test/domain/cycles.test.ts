import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { findCycles, stronglyConnectedComponents } from '../../src/domain/cycles.ts';
import { arbitraryDag, successorsOf, type RandomGraph } from './fixtures.ts';

function graphOf(edges: readonly (readonly [string, string])[], extraNodes: readonly string[] = []) {
  const names = [...new Set([...extraNodes, ...edges.flat()])].sort();
  const graph: RandomGraph = { names, edges };
  return { names, successors: successorsOf(graph) };
}

function cyclesOf(edges: readonly (readonly [string, string])[], extraNodes: readonly string[] = []): string[][] {
  const { names, successors } = graphOf(edges, extraNodes);
  return findCycles(names, successors);
}

describe('findCycles', () => {
  it('finds nothing in a DAG, including a diamond and isolated nodes', () => {
    const diamond = [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'd'],
      ['c', 'd'],
    ] as const;
    assert.deepEqual(cyclesOf(diamond, ['lonely']), []);
    assert.deepEqual(
      findCycles([], () => []),
      [],
    );
  });

  it('reports a transitive cycle as a path from its smallest node back to it', () => {
    assert.deepEqual(
      cyclesOf([
        ['c', 'a'],
        ['b', 'c'],
        ['a', 'b'],
      ]),
      [['a', 'b', 'c', 'a']],
    );
  });

  it('takes the shortest cycle through the smallest node of a strongly connected component', () => {
    // a -> x -> y -> z -> a is the long way round; a -> z -> a is the shortest.
    const edges = [
      ['a', 'x'],
      ['x', 'y'],
      ['y', 'z'],
      ['z', 'a'],
      ['a', 'z'],
    ] as const;
    assert.deepEqual(cyclesOf(edges), [['a', 'z', 'a']]);
  });

  it('breaks ties between equally short cycles by name', () => {
    const edges = [
      ['a', 'c'],
      ['a', 'b'],
      ['c', 'a'],
      ['b', 'a'],
    ] as const;
    assert.deepEqual(cyclesOf(edges), [['a', 'b', 'a']]);
  });

  it('reports one cycle per strongly connected component, sorted', () => {
    const edges = [
      ['p', 'q'],
      ['q', 'p'],
      ['b', 'c'],
      ['c', 'b'],
      ['c', 'p'],
    ] as const;
    assert.deepEqual(cyclesOf(edges), [
      ['b', 'c', 'b'],
      ['p', 'q', 'p'],
    ]);
  });

  it('reports every self-loop, also inside a larger component, besides that component’s cycle', () => {
    const edges = [
      ['a', 'a'],
      ['a', 'b'],
      ['b', 'a'],
      ['b', 'b'],
      ['s', 's'],
    ] as const;
    assert.deepEqual(cyclesOf(edges), [
      ['a', 'a'],
      ['a', 'b', 'a'],
      ['b', 'b'],
      ['s', 's'],
    ]);
  });

  it('visits successors missing from the node list, so a sloppy list cannot hide a cycle', () => {
    const { successors } = graphOf([
      ['a', 'hidden'],
      ['hidden', 'a'],
    ]);
    assert.deepEqual(findCycles(['a'], successors), [['a', 'hidden', 'a']]);
  });

  it('handles a 100,000-node chain closed into a ring without overflowing the stack', () => {
    const n = 100_000;
    const names = Array.from({ length: n }, (_, i) => `c${String(i).padStart(6, '0')}`);
    const successors = (name: string): readonly string[] => {
      const i = Number(name.slice(1));
      return [names[(i + 1) % n] ?? ''];
    };
    const [cycle, ...rest] = findCycles(names, successors);
    assert.equal(rest.length, 0);
    assert.equal(cycle?.length, n + 1);
    assert.equal(cycle[0], 'c000000');
    assert.equal(cycle[n], 'c000000');
    assert.equal(findCycles(names.slice(0, -1), (name) => (name === names[n - 1] ? [] : successors(name))).length, 0);
  });

  it('returns [] for every random DAG', () => {
    fc.assert(
      fc.property(arbitraryDag(), (graph) => {
        assert.deepEqual(findCycles(graph.names, successorsOf(graph)), []);
      }),
    );
  });

  it('finds a real cycle in every random DAG with one injected back path', () => {
    const withCycle = arbitraryDag(10).chain((dag) =>
      fc.shuffledSubarray([...dag.names], { minLength: 1, maxLength: dag.names.length }).map((ring): RandomGraph => {
        // Closing a ring over any subset of nodes (a single node makes a self-loop) forms a cycle.
        const back = ring.map((name, i): readonly [string, string] => [name, ring[(i + 1) % ring.length] ?? name]);
        return { names: dag.names, edges: [...dag.edges, ...back] };
      }),
    );
    fc.assert(
      fc.property(withCycle, (graph) => {
        const successors = successorsOf(graph);
        const cycles = findCycles(graph.names, successors);
        assert.ok(cycles.length > 0);
        for (const cycle of cycles) {
          assert.ok(cycle.length >= 2);
          assert.equal(cycle[0], cycle[cycle.length - 1]);
          for (let i = 0; i + 1 < cycle.length; i += 1) {
            assert.ok(
              successors(cycle[i] ?? '').includes(cycle[i + 1] ?? ''),
              `${String(cycle[i])} -> ${String(cycle[i + 1])}`,
            );
          }
          // A shortest cycle never passes through the same node twice.
          assert.equal(new Set(cycle.slice(1)).size, cycle.length - 1);
        }
        assert.deepEqual(findCycles([...graph.names].reverse(), successors), cycles, 'independent of node order');
      }),
    );
  });
});

describe('stronglyConnectedComponents', () => {
  it('partitions the nodes into components, each sorted', () => {
    const { names, successors } = graphOf(
      [
        ['a', 'b'],
        ['b', 'a'],
        ['b', 'c'],
      ],
      ['d'],
    );
    const components = stronglyConnectedComponents(names, successors).sort((x, y) =>
      (x[0] ?? '').localeCompare(y[0] ?? ''),
    );
    assert.deepEqual(components, [['a', 'b'], ['c'], ['d']]);
  });

  it('puts every node in exactly one component for random graphs', () => {
    const anyGraph = fc.integer({ min: 1, max: 10 }).chain((n) =>
      fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 30 }).map((pairs): RandomGraph => ({
        names: Array.from({ length: n }, (_, i) => `n${String(i)}`),
        edges: pairs.map(([a, b]) => [`n${String(a)}`, `n${String(b)}`] as const),
      })),
    );
    fc.assert(
      fc.property(anyGraph, (graph) => {
        const flat = stronglyConnectedComponents(graph.names, successorsOf(graph)).flat().sort();
        assert.deepEqual(flat, [...graph.names].sort());
      }),
    );
  });
});
