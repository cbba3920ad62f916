// Regression test for the crash-safe commit order (issue 8 hardening, defect F): files that both
// gain and lose edges. File `mixed/one.yaml` holds namespace alpha's Component (it loses
// build-nudges-ref) and namespace beta's NudgeConfig (it gains entries); `mixed/two.yaml` holds the
// reverse. Ordering whole files, a crash between their two renames lost an edge that no rerun could
// recover. Here the write is stopped after every one of its renames: no edge is ever declared
// nowhere, and a rerun ends with the files an uninterrupted run writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildNudgeGraphs } from '../../src/domain/graph.ts';
import { commitOrder, planMigration, type SourceFile } from '../../src/domain/migrate.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
import { mixedTenantFiles } from '../support/manifest-text.ts';

const MIXED: SourceFile[] = Object.entries(mixedTenantFiles('mixed/')).map(([path, text]) => ({ path, text }));

function edgesOf(files: readonly SourceFile[]): Set<string> {
  const edges = new Set<string>();
  for (const graph of buildNudgeGraphs(parseManifestSet(files)).values()) {
    for (const edge of graph.edges) edges.add(`${edge.namespace}/${edge.from}->${edge.to}`);
  }
  return edges;
}

function sorted(files: Iterable<SourceFile>): SourceFile[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

describe('commitOrder with files that both gain and lose edges', () => {
  const plan = planMigration(MIXED);
  const steps = commitOrder(plan.changes);

  it('writes each such file twice: its gains first, its losses after every file has gained', () => {
    assert.deepEqual(
      plan.changes.map((change) => [change.path, change.commitPhase]),
      [
        ['mixed/one.yaml', 2],
        ['mixed/two.yaml', 2],
      ],
    );
    assert.deepEqual(
      steps.map((step) => [step.path, step.pass]),
      [
        ['mixed/one.yaml', 1],
        ['mixed/two.yaml', 1],
        ['mixed/one.yaml', 2],
        ['mixed/two.yaml', 2],
      ],
    );
    const [oneGains] = steps;
    assert.match(oneGains?.after ?? '', /build-nudges-ref:\n {4}- alpha-bundle/, 'alpha keeps its edge until pass 2');
    assert.match(
      oneGains?.after ?? '',
      /apiVersion: konflux-ci\.dev\/v1alpha1[\s\S]*- from: beta-api\n +to: beta-bundle/,
    );
  });

  it('loses no edge when stopped after any rename, and a rerun ends where an uninterrupted run does', () => {
    const original = edgesOf(MIXED);
    assert.equal(original.size, 4);
    const uninterrupted = new Map(MIXED.map((file) => [file.path, file.text]));
    for (const change of plan.changes) uninterrupted.set(change.path, change.after);
    for (let k = 1; k <= steps.length; k += 1) {
      const files = new Map(MIXED.map((file) => [file.path, file.text]));
      for (const step of steps.slice(0, k)) files.set(step.path, step.after);
      const state = sorted([...files].map(([path, text]) => ({ path, text })));
      const survived = edgesOf(state);
      for (const edge of original) assert.ok(survived.has(edge), `after rename ${String(k)}: ${edge} lost`);
      const rerun = planMigration(state);
      for (const change of rerun.changes) files.set(change.path, change.after);
      assert.deepEqual(
        sorted([...files].map(([path, text]) => ({ path, text }))),
        sorted([...uninterrupted].map(([path, text]) => ({ path, text }))),
        `after rename ${String(k)}: the rerun ends where an uninterrupted run does`,
      );
    }
  });

  it('would lose an edge with whole files in path order (the defect this guards against)', () => {
    const files = new Map(MIXED.map((file) => [file.path, file.text]));
    const first = plan.changes[0];
    assert.ok(first !== undefined);
    files.set(first.path, first.after);
    const survived = edgesOf([...files].map(([path, text]) => ({ path, text })));
    assert.equal(survived.has('alpha/alpha-api->alpha-bundle'), false);
  });
});
