// `nudger migrate` on a tree it must not migrate as is (issue 8, part 1 items 2 and 10, part 2
// item 3): exit 1, every offending edge named at its file and line, nothing written; with
// --drop-invalid the edges are dropped and listed (text and JSON `dropped`).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, tempTree } from './run-cli.ts';

const component = (name: string, nudges: readonly string[] = []): string =>
  [
    'apiVersion: appstudio.redhat.com/v1alpha1',
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    '  namespace: billing-tenant',
    'spec:',
    `  componentName: ${name}`,
    ...(nudges.length === 0 ? [] : ['  build-nudges-ref:', ...nudges.map((to) => `    - ${to}`)]),
    '',
  ].join('\n');

const trees: { cleanup: () => void }[] = [];
after(() => {
  for (const t of trees) t.cleanup();
});
function billingTree(): string {
  const t = tempTree({
    'billing/kustomization.yaml': 'resources:\n  - api.yaml\n  - operator.yaml\n  - bundle.yaml\n',
    'billing/api.yaml': component('billing-api', ['billing-bundle']),
    // billing-api-v1 was renamed billing-api; the operator's list was never updated.
    'billing/operator.yaml': component('billing-operator', ['billing-bundle', 'billing-api-v1']),
    'billing/bundle.yaml': component('billing-bundle'),
  });
  trees.push(t);
  return t.root;
}

describe('nudger migrate refuses what nudger would reject', () => {
  it('exits 1, names the edge at its file and line, and writes nothing', async () => {
    const root = billingTree();
    const operator = join(root, 'billing/operator.yaml');
    const before = readFileSync(operator, 'utf8');
    const result = await runCli(['migrate', root, '--write']);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(`${operator.replace(/[/.]/g, '\\$&')}:10: unknown-component: .*billing-operator -> billing-api-v1`),
    );
    assert.match(result.stderr, /--drop-invalid/);
    assert.equal(readFileSync(operator, 'utf8'), before);
    assert.equal(existsSync(join(root, 'billing/nudge-config.yaml')), false);
  });

  it('with --drop-invalid, drops the edge, says so in text and in JSON `dropped`, keeping every field', async () => {
    const root = billingTree();
    const text = await runCli(['migrate', root, '--drop-invalid']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stderr, /would drop \(--drop-invalid\) billing-tenant: billing-operator -> billing-api-v1/);
    const json = await runCli(['migrate', root, '--drop-invalid', '--write', '--output', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const summary = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(summary).sort(), [
      'componentsUpdated',
      'dropped',
      'edges',
      'notes',
      'nudgeConfigs',
      'written',
    ]);
    assert.deepEqual(summary.dropped, [
      {
        rule: 'unknown-component',
        namespace: 'billing-tenant',
        from: 'billing-operator',
        to: 'billing-api-v1',
        reason: 'to: component "billing-api-v1" does not exist in namespace billing-tenant',
        sources: [
          {
            file: join(root, 'billing/operator.yaml'),
            line: 10,
            object: 'Component billing-tenant/billing-operator',
            field: 'spec.build-nudges-ref[1]',
          },
        ],
      },
    ]);
    assert.equal(summary.edges, 2);
    assert.doesNotMatch(readFileSync(join(root, 'billing/nudge-config.yaml'), 'utf8'), /billing-api-v1/);
    assert.equal((await runCli(['validate', root])).code, 0);
  });

  it('prints a/ and b/ diff headers for absolute paths', async () => {
    const root = billingTree();
    const result = await runCli(['migrate', root, '--drop-invalid']);
    const relative = root.replace(/^\/+/, '');
    assert.ok(root.startsWith('/'));
    assert.match(result.stdout, new RegExp(`^--- a/${relative}/billing/api\\.yaml$`, 'm'));
    assert.match(result.stdout, new RegExp(`^\\+\\+\\+ b/${relative}/billing/api\\.yaml$`, 'm'));
    assert.match(result.stdout, new RegExp(`^\\+\\+\\+ b/${relative}/billing/nudge-config\\.yaml$`, 'm'));
    assert.doesNotMatch(result.stdout, /^(---|\+\+\+) [ab]\/\//m);
  });
});

describe('nudger migrate --drop-invalid and a cycle', () => {
  it('refuses (exit 1, nothing written), naming every edge of the cycle as one the user may remove', async () => {
    const t = tempTree({
      'billing/api.yaml': component('billing-api', ['billing-worker']),
      'billing/worker.yaml': component('billing-worker', ['billing-api', 'billing-api-v1']),
    });
    trees.push(t);
    const api = join(t.root, 'billing/api.yaml');
    const before = readFileSync(api, 'utf8');
    const result = await runCli(['migrate', t.root, '--drop-invalid', '--write']);
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.split('\n');
    const cycle = lines.find((line) => line.includes(': cycle: '));
    assert.ok(cycle !== undefined, result.stderr);
    assert.match(cycle, /the edges form a cycle billing-api -> billing-worker -> billing-api/);
    assert.match(
      cycle,
      /not even with --drop-invalid\)\. Remove \(or reverse\) any one of its 2 edges by hand to break it: /,
    );
    assert.ok(cycle.includes(`billing-api -> billing-worker at ${api}:9: Component billing-tenant/billing-api`), cycle);
    assert.ok(cycle.includes(`or billing-worker -> billing-api at ${join(t.root, 'billing/worker.yaml')}:9:`), cycle);
    assert.match(result.stderr, /remove one edge of each cycle \(any edge named breaks it\), then rerun/);
    assert.equal(readFileSync(api, 'utf8'), before);
    assert.equal(existsSync(join(t.root, 'billing/nudge-config.yaml')), false);
  });
});

describe('nudger migrate --drop-invalid usage', () => {
  it('belongs to file migration, not --cluster', async () => {
    const result = await runCli(['migrate', '--cluster', '--drop-invalid']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no --drop-invalid/);
  });
});
