import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planNamespaceMigration } from '../../src/domain/cluster-migration.ts';
import { buildNamespaceGraph, type NamespaceGraph } from '../../src/domain/graph.ts';

/** The namespace graph of Components given as (name, build-nudges-ref), as the one derivation builds it. */
function graphOf(components: readonly { name: string; buildNudgesRef: readonly string[] }[]): NamespaceGraph {
  const location = { file: 'cluster ns' };
  return buildNamespaceGraph('ns', {
    components: components.map(({ name, buildNudgesRef }) => ({
      ref: { kind: 'Component', namespace: 'ns', name },
      location,
      buildNudgesRef: buildNudgesRef.map((target) => ({ name: target, location })),
    })),
    nudgeConfigs: [],
  });
}

describe('cluster migration plan', () => {
  it('turns build-nudges-ref into immediate entries, sorted, without duplicates', () => {
    const plan = planNamespaceMigration(
      graphOf([
        { name: 'op-b', buildNudgesRef: ['bundle', 'bundle'] },
        { name: 'op-a', buildNudgesRef: ['bundle'] },
      ]),
    );
    assert.deepEqual(plan.added, [
      { from: 'op-a', to: 'bundle', mode: 'immediate' },
      { from: 'op-b', to: 'bundle', mode: 'immediate' },
    ]);
  });

  it('keeps existing entries untouched and first, and a second run adds nothing', () => {
    const existing = [{ from: 'op-a', to: 'bundle', mode: 'validated', gatingGroup: 'g' }];
    const components = [
      { name: 'op-a', buildNudgesRef: ['bundle'] },
      { name: 'op-b', buildNudgesRef: ['bundle'] },
    ];
    const plan = planNamespaceMigration(graphOf(components), existing);
    assert.deepEqual(plan.entries[0], existing[0]);
    assert.deepEqual(plan.added, [{ from: 'op-b', to: 'bundle', mode: 'immediate' }]);
    assert.deepEqual(planNamespaceMigration(graphOf(components), plan.entries).added, []);
  });

  it('skips self-nudges, reporting them', () => {
    const plan = planNamespaceMigration(graphOf([{ name: 'a', buildNudgesRef: ['a', 'b'] }]));
    assert.deepEqual(plan.skippedSelfNudges, ['a']);
    assert.deepEqual(
      plan.entries.map((e) => e.to),
      ['b'],
    );
  });

  it('never loses an edge: entries after = existing ∪ build-nudges-ref (minus self-nudges), and is idempotent', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    fc.assert(
      fc.property(
        fc.array(fc.record({ name, buildNudgesRef: fc.array(name, { maxLength: 4 }) }), { maxLength: 6 }),
        fc.uniqueArray(fc.record({ from: name, to: name }), { selector: (e) => `${e.from}>${e.to}`, maxLength: 6 }),
        (components, existing) => {
          const plan = planNamespaceMigration(graphOf(components), existing);
          const after = new Set(plan.entries.map((e) => `${e.from}>${e.to}`));
          const expected = new Set([
            ...existing.map((e) => `${e.from}>${e.to}`),
            ...components.flatMap((c) => c.buildNudgesRef.filter((t) => t !== c.name).map((t) => `${c.name}>${t}`)),
          ]);
          assert.deepEqual(after, expected);
          assert.equal(after.size, plan.entries.length);
          assert.deepEqual(planNamespaceMigration(graphOf(components), plan.entries).added, []);
        },
      ),
    );
  });
});
