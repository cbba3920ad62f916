// Issue 8, items 1, 4, 7 and 8 through the CLI: kustomize tenant trees read as kustomize builds them.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, tempTree } from './run-cli.ts';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'kustomize-tenants');
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

function copyOfFixture(): string {
  const root = mkdtempSync(join(tmpdir(), 'nudger-kustomize-'));
  cpSync(FIXTURE, root, { recursive: true });
  cleanups.push(() => {
    rmSync(root, { recursive: true, force: true });
  });
  return root;
}

function tree(files: Record<string, string>): string {
  const { root, cleanup } = tempTree(files);
  cleanups.push(cleanup);
  return root;
}

interface GraphJson {
  namespaces: { namespace: string; edges: { from: string; to: string }[] }[];
}

const component = (name: string, refs: readonly string[] = [], namespace?: string): string =>
  [
    'apiVersion: appstudio.redhat.com/v1alpha1',
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    ...(namespace === undefined ? [] : [`  namespace: ${namespace}`]),
    'spec:',
    '  application: shop',
    ...(refs.length === 0 ? [] : ['  build-nudges-ref:', ...refs.map((ref) => `    - ${ref}`)]),
    '',
  ].join('\n');

describe('kustomize namespaces in validate, graph and plan', () => {
  it('graphs each tenant apart, the shared base in both, an explicit namespace overridden', async () => {
    const result = await runCli(['graph', FIXTURE, '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const graph = JSON.parse(result.stdout) as GraphJson;
    assert.deepEqual(
      graph.namespaces.map((ns) => [ns.namespace, ns.edges.map((e) => `${e.from}->${e.to}`).sort()]),
      [
        ['team-a-tenant', ['api->operator-bundle', 'sdk->operator-bundle']],
        ['team-b-tenant', ['gateway->operator-bundle', 'sdk->operator-bundle']],
      ],
    );
    const validate = await runCli(['validate', FIXTURE]);
    assert.equal(validate.code, 0, validate.stdout);
    assert.match(validate.stdout, /in 2 namespaces/);
  });

  it('picks the namespace where globs and !exclusions actually select components, else asks for --namespace', async () => {
    const both = await runCli(['plan', FIXTURE, '--changed', 'operator-*']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /several namespaces \(team-a-tenant, team-b-tenant\): pass --namespace/);
    // gate* matches only in team-b-tenant; the exclusion is not a name that must exist.
    const glob = await runCli(['plan', FIXTURE, '--changed', 'gate*,!sdk', '--output', 'json']);
    assert.equal(glob.code, 0, glob.stderr);
    assert.deepEqual((JSON.parse(glob.stdout) as { namespace: string }).namespace, 'team-b-tenant');
    const excluded = await runCli(['plan', FIXTURE, '--changed', 'api,!operator-bundle', '--output', 'json']);
    assert.equal(excluded.code, 0, excluded.stderr);
    assert.deepEqual((JSON.parse(excluded.stdout) as { namespace: string }).namespace, 'team-a-tenant');
    const chosen = await runCli(['plan', FIXTURE, '--changed', 'operator-*', '--namespace', 'team-b-tenant']);
    assert.equal(chosen.code, 0, chosen.stderr);
  });

  it('names both files when a Component and its committed rendered copy declare the same edge', async () => {
    const root = tree({
      'shop/kustomization.yaml': 'namespace: shop-tenant\nresources:\n  - api.yaml\n  - bundle.yaml\n',
      'shop/api.yaml': component('api', ['bundle']),
      'shop/bundle.yaml': component('bundle'),
      'rendered/shop.yaml': component('api', ['bundle'], 'shop-tenant'),
    });
    const result = await runCli(['validate', root, '--output', 'json']);
    assert.equal(result.code, 0, result.stdout);
    const findings = (JSON.parse(result.stdout) as { findings: { rule: string; message: string; file: string }[] })
      .findings;
    const duplicate = findings.find((f) => f.rule === 'duplicate-edge');
    assert.ok(duplicate !== undefined, result.stdout);
    assert.match(`${duplicate.file} ${duplicate.message}`, /shop\/api\.yaml/);
    assert.match(`${duplicate.file} ${duplicate.message}`, /rendered\/shop\.yaml/);
  });

  it('warns about build-nudges-ref set by a kustomize patch, and migrate refuses naming the patch', async () => {
    const root = tree({
      'shop/kustomization.yaml':
        'namespace: shop-tenant\nresources: [api.yaml, bundle.yaml]\npatches:\n  - path: nudges.yaml\n    target:\n      kind: Component\n      name: api\n',
      'shop/api.yaml': component('api'),
      'shop/bundle.yaml': component('bundle'),
      'shop/nudges.yaml': '- op: add\n  path: /spec/build-nudges-ref\n  value:\n    - bundle\n',
    });
    const validate = await runCli(['validate', root, '--output', 'json']);
    const findings = (JSON.parse(validate.stdout) as { findings: { rule: string; severity: string }[] }).findings;
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity]),
      [['patched-nudges-ref', 'warning']],
    );
    const migrate = await runCli(['migrate', root]);
    assert.equal(migrate.code, 1, migrate.stderr);
    assert.match(
      migrate.stderr,
      /kustomization\.yaml: patches\[0\] \(patch file .*shop\/nudges\.yaml\) sets build-nudges-ref \[bundle\] on Component api/,
    );
    assert.doesNotMatch(migrate.stderr, /nothing to migrate/);
  });
});

describe('nudger migrate in a multi-tenant kustomize tree', () => {
  it('writes one NudgeConfig per tenant beside its own kustomization; a second run changes nothing', async () => {
    const root = copyOfFixture();
    const first = await runCli(['migrate', root, '--write', '--output', 'json']);
    assert.equal(first.code, 0, first.stderr);
    const summary = JSON.parse(first.stdout) as { nudgeConfigs: { namespace: string; file: string; edges: number }[] };
    assert.deepEqual(
      summary.nudgeConfigs.map((c) => [c.namespace, c.file.slice(root.length + 1), c.edges]),
      [
        ['team-a-tenant', 'tenants/team-a/nudge-config.yaml', 2],
        ['team-b-tenant', 'tenants/team-b/nudge-config.yaml', 2],
      ],
    );
    const teamA = readFileSync(join(root, 'tenants/team-a/nudge-config.yaml'), 'utf8');
    assert.doesNotMatch(teamA, /gateway/, 'team-b’s edge is not in team-a’s NudgeConfig');
    assert.match(readFileSync(join(root, 'tenants/team-b/kustomization.yaml'), 'utf8'), /- nudge-config\.yaml\n$/);
    const graph = JSON.parse((await runCli(['graph', root, '--format', 'json'])).stdout) as GraphJson;
    assert.deepEqual(
      graph.namespaces.map((ns) => [ns.namespace, ns.edges.map((e) => `${e.from}->${e.to}`).sort()]),
      [
        ['team-a-tenant', ['api->operator-bundle', 'sdk->operator-bundle']],
        ['team-b-tenant', ['gateway->operator-bundle', 'sdk->operator-bundle']],
      ],
    );
    const second = await runCli(['migrate', root, '--output', 'json']);
    assert.deepEqual((JSON.parse(second.stdout) as { edges: number }).edges, 0);
  });

  it('refuses with exit 1 and writes nothing when the kustomization setting the namespace is not in the input', async () => {
    const root = copyOfFixture();
    const inner = join(root, 'tenants/team-b/components');
    const before = readFileSync(join(inner, 'gateway.yaml'), 'utf8');
    const result = await runCli(['migrate', inner, '--write']);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /gateway\.yaml.*namespace cannot be determined/);
    assert.equal(readFileSync(join(inner, 'gateway.yaml'), 'utf8'), before);
    assert.equal(existsSync(join(inner, 'nudge-config.yaml')), false);
  });
});
