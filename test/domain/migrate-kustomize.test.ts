// Issue 8, items 1, 7 and 8: migration in kustomize tenant trees. Before the fix every Component
// without metadata.namespace fell into one "unset" namespace, so one tenant's NudgeConfig received
// another tenant's edges (exit 0); patched build-nudges-ref was "nothing to migrate".
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { UnsafeMigrationError, planMigration, type SourceFile } from '../../src/domain/migrate.ts';

const TENANTS = join(import.meta.dirname, '..', 'fixtures', 'kustomize-tenants');

function readTree(dir: string, under = ''): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push({ path: join(under, relative(dir, path)), text: readFileSync(path, 'utf8') });
    }
  };
  walk(dir);
  return files;
}

function apply(files: readonly SourceFile[], changes: readonly { path: string; after: string }[]): SourceFile[] {
  const after = new Map(files.map((file) => [file.path, file.text]));
  for (const change of changes) after.set(change.path, change.after);
  return [...after].map(([path, text]) => ({ path, text }));
}

function nudgesOf(text: string | undefined): string[] {
  const value = parse(text ?? '') as {
    metadata: Record<string, unknown>;
    spec: { nudges: { from: string; to: string }[] };
  };
  return value.spec.nudges.map((entry) => `${entry.from}->${entry.to}`);
}

function refusal(files: readonly SourceFile[]): UnsafeMigrationError {
  try {
    planMigration(files);
  } catch (error) {
    if (error instanceof UnsafeMigrationError) return error;
    throw error;
  }
  assert.fail('expected the migration to be refused');
}

const component = (name: string, extra: string): string =>
  `apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: ${name}\nspec:\n  application: shop\n${extra}`;

describe('planMigration in a multi-tenant kustomize tree', () => {
  it('writes one NudgeConfig per tenant beside its kustomization, never mixing tenants', () => {
    const files = readTree(TENANTS);
    const result = planMigration(files);
    assert.deepEqual(result.nudgeConfigs, [
      { namespace: 'team-a-tenant', file: 'tenants/team-a/nudge-config.yaml', edges: 2 },
      { namespace: 'team-b-tenant', file: 'tenants/team-b/nudge-config.yaml', edges: 2 },
    ]);
    const byPath = new Map(result.changes.map((change) => [change.path, change.after]));
    // The shared base's sdk nudges the bundle of each tenant; gateway is team-b's alone.
    assert.deepEqual(nudgesOf(byPath.get('tenants/team-a/nudge-config.yaml')), [
      'api->operator-bundle',
      'sdk->operator-bundle',
    ]);
    assert.deepEqual(nudgesOf(byPath.get('tenants/team-b/nudge-config.yaml')), [
      'gateway->operator-bundle',
      'sdk->operator-bundle',
    ]);
    // kustomize gives the new file its tenant's namespace, like the Components beside it.
    assert.doesNotMatch(byPath.get('tenants/team-a/nudge-config.yaml') ?? '', /namespace:/);
    assert.match(
      byPath.get('tenants/team-a/kustomization.yaml') ?? '',
      / {2}- operator-bundle.yaml\n {2}- nudge-config.yaml\n$/,
    );
    assert.match(byPath.get('tenants/team-b/kustomization.yaml') ?? '', / {2}- components\n {2}- nudge-config.yaml\n$/);
    assert.doesNotMatch(byPath.get('base/sdk/sdk.yaml') ?? '', /build-nudges-ref/);
    assert.deepEqual(result.componentsUpdated, [
      'team-a-tenant/api',
      'team-a-tenant/sdk',
      'team-b-tenant/gateway',
      'team-b-tenant/sdk',
    ]);
    const again = planMigration(apply(files, result.changes));
    assert.deepEqual(again.changes, []);
  });

  it('refuses, naming the files, when a Component’s namespace cannot be determined', () => {
    // Only team-b's inner directory: the kustomization that sets team-b-tenant is not in the input.
    const files = readTree(join(TENANTS, 'tenants', 'team-b', 'components'), 'components');
    const error = refusal(files);
    assert.deepEqual(
      error.problems.map((problem) => problem.file),
      ['components/gateway.yaml'],
    );
    assert.match(error.problems.at(0)?.message ?? '', /namespace cannot be determined/);
  });

  it('refuses build-nudges-ref added by a JSON6902 or strategic-merge patch, naming the patch', () => {
    const tree = (kustomization: string, patch: SourceFile): SourceFile[] => [
      { path: 'shop/kustomization.yaml', text: kustomization },
      { path: 'shop/api.yaml', text: component('api', '') },
      { path: 'shop/bundle.yaml', text: component('bundle', '') },
      patch,
    ];
    const json6902 = refusal(
      tree(
        'namespace: shop-tenant\nresources: [api.yaml, bundle.yaml]\npatches:\n  - path: nudges.yaml\n    target: {kind: Component, name: api}\n',
        { path: 'shop/nudges.yaml', text: '- op: add\n  path: /spec/build-nudges-ref\n  value: [bundle]\n' },
      ),
    );
    assert.deepEqual(json6902.problems.length, 1);
    assert.equal(json6902.problems.at(0)?.file, 'shop/kustomization.yaml');
    assert.match(
      json6902.problems.at(0)?.message ?? '',
      /patches\[0\] \(patch file shop\/nudges\.yaml\) sets build-nudges-ref \[bundle\] on Component api/,
    );

    const smp = refusal(
      tree(
        'namespace: shop-tenant\nresources: [api.yaml, bundle.yaml]\npatchesStrategicMerge:\n  - api-nudges.yaml\n',
        {
          path: 'shop/api-nudges.yaml',
          text: component('api', '  build-nudges-ref:\n    - bundle\n'),
        },
      ),
    );
    assert.deepEqual(
      smp.problems.map((problem) => problem.file),
      ['shop/kustomization.yaml'],
      'reported as a patch, not as a disagreeing copy of api',
    );
    assert.match(smp.problems.at(0)?.message ?? '', /patchesStrategicMerge\[0\] \(patch file shop\/api-nudges\.yaml\)/);
  });

  it('updates every copy of a Component (source and rendered) the same way, or refuses when they disagree', () => {
    const source = component('api', '  build-nudges-ref:\n    - bundle\n');
    const rendered = (refs: string): string =>
      `apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: api\n  namespace: shop-tenant\nspec:\n  application: shop\n  build-nudges-ref: [${refs}]\n`;
    const files = (refs: string): SourceFile[] => [
      { path: 'shop/kustomization.yaml', text: 'namespace: shop-tenant\nresources:\n  - api.yaml\n  - bundle.yaml\n' },
      { path: 'shop/api.yaml', text: source },
      { path: 'shop/bundle.yaml', text: component('bundle', '') },
      { path: 'rendered/shop.yaml', text: rendered(refs) },
    ];
    const result = planMigration(files('bundle'));
    assert.deepEqual(
      result.changes.map((change) => change.path),
      ['rendered/shop.yaml', 'shop/api.yaml', 'shop/kustomization.yaml', 'shop/nudge-config.yaml'],
    );
    for (const path of ['rendered/shop.yaml', 'shop/api.yaml']) {
      assert.doesNotMatch(result.changes.find((change) => change.path === path)?.after ?? '', /build-nudges-ref/);
    }
    const error = refusal(files('bundle, docs'));
    assert.deepEqual(
      error.problems.map((problem) => problem.file),
      ['rendered/shop.yaml', 'shop/api.yaml'],
    );
    assert.match(
      error.problems.at(0)?.message ?? '',
      /rendered\/shop\.yaml \[bundle, docs\], shop\/api\.yaml \[bundle\]/,
    );
  });

  it('refuses to append different tenants’ edges to one NudgeConfig of a shared base', () => {
    const nudgeConfig =
      'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\nspec:\n  nudges: []\n';
    const files: SourceFile[] = [
      { path: 'base/kustomization.yaml', text: 'resources: [nudge-config.yaml, bundle.yaml]\n' },
      { path: 'base/nudge-config.yaml', text: nudgeConfig },
      { path: 'base/bundle.yaml', text: component('bundle', '') },
      { path: 'a/kustomization.yaml', text: 'namespace: a\nresources: [../base, api.yaml]\n' },
      { path: 'a/api.yaml', text: component('api', '  build-nudges-ref: [bundle]\n') },
      { path: 'b/kustomization.yaml', text: 'namespace: b\nresources: [../base]\n' },
    ];
    const error = refusal(files);
    assert.equal(error.problems.at(0)?.file, 'base/nudge-config.yaml');
    assert.match(error.problems.at(0)?.message ?? '', /built into namespaces a and b/);
  });
});
