import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveKustomizeLayout, type KustomizationInput } from '../../src/domain/kustomize-namespaces.ts';
import { findNudgesRefPatches } from '../../src/domain/kustomize-patches.ts';

const k = (path: string, value: Record<string, unknown>): KustomizationInput => ({ path, value });

describe('resolveKustomizeLayout: namespaces as kustomize sets them', () => {
  it('gives a base shared by two tenant overlays both tenants, each set by its own overlay', () => {
    const layout = resolveKustomizeLayout([
      k('base/kustomization.yaml', { resources: ['sdk.yaml'] }),
      k('overlays/team-a/kustomization.yaml', { namespace: 'team-a-tenant', resources: ['../../base', 'api.yaml'] }),
      k('overlays/team-b/Kustomization', { namespace: 'team-b-tenant', resources: ['../../base/'] }),
    ]);
    assert.deepEqual(layout.namespacesOf('base/sdk.yaml', ''), [
      { namespace: 'team-a-tenant', setBy: 'overlays/team-a/kustomization.yaml' },
      { namespace: 'team-b-tenant', setBy: 'overlays/team-b/Kustomization' },
    ]);
    assert.deepEqual(layout.namespacesOf('./overlays/team-a/api.yaml', ''), [
      { namespace: 'team-a-tenant', setBy: 'overlays/team-a/kustomization.yaml' },
    ]);
  });

  it('lets the outermost namespace win and overrides an explicit metadata.namespace', () => {
    const layout = resolveKustomizeLayout([
      k('app/kustomization.yml', { namespace: 'inner', resources: ['c.yaml'] }),
      k('prod/kustomization.yaml', { namespace: 'outer', bases: ['../app'] }),
    ]);
    assert.deepEqual(layout.namespacesOf('app/c.yaml', 'written'), [
      { namespace: 'outer', setBy: 'prod/kustomization.yaml' },
    ]);
  });

  it('keeps the written namespace (or none) where no kustomization on the way sets one', () => {
    const layout = resolveKustomizeLayout([
      k('kustomization.yaml', { resources: ['a.yaml', 'https://github.com/org/repo//x?ref=v1', 'github.com/o/r'] }),
    ]);
    assert.equal(layout.hasKustomizations, true);
    assert.deepEqual(layout.namespacesOf('a.yaml', 'ns'), [{ namespace: 'ns' }]);
    assert.deepEqual(layout.namespacesOf('a.yaml', ''), [{ namespace: '' }]);
    assert.deepEqual(layout.namespacesOf('elsewhere/b.yaml', ''), [{ namespace: '' }]);
  });

  it('applies a kustomize Component’s namespace to what its parent accumulated, then the parent’s own', () => {
    const layout = resolveKustomizeLayout([
      k('components/ns/kustomization.yaml', { kind: 'Component', namespace: 'from-component', resources: ['x.yaml'] }),
      k('app/kustomization.yaml', { resources: ['a.yaml'], components: ['../components/ns'] }),
      k('other/kustomization.yaml', { namespace: 'parent', resources: ['b.yaml'], components: ['../components/ns'] }),
    ]);
    assert.deepEqual(layout.namespacesOf('app/a.yaml', ''), [
      { namespace: 'from-component', setBy: 'components/ns/kustomization.yaml' },
    ]);
    assert.deepEqual(layout.namespacesOf('components/ns/x.yaml', ''), [
      { namespace: 'from-component', setBy: 'components/ns/kustomization.yaml' },
      { namespace: 'parent', setBy: 'other/kustomization.yaml' },
    ]);
  });

  it('ends on a cycle of kustomizations and places patch files in the patching kustomization', () => {
    const layout = resolveKustomizeLayout([
      k('a/kustomization.yaml', { namespace: 'a', resources: ['../b'] }),
      k('b/kustomization.yaml', { resources: ['../a', 'c.yaml'] }),
      k('t/kustomization.yaml', { namespace: 't', resources: [], patches: [{ path: 'nudges.yaml' }] }),
    ]);
    // Every kustomization of the cycle is referenced, so none is a root: nothing is placed.
    assert.deepEqual(layout.namespacesOf('b/c.yaml', ''), [{ namespace: '' }]);
    assert.deepEqual(layout.namespacesOf('t/nudges.yaml', ''), [{ namespace: 't', setBy: 't/kustomization.yaml' }]);
  });
});

describe('findNudgesRefPatches', () => {
  it('finds JSON6902 and strategic-merge patches that set build-nudges-ref, inline or in a file', () => {
    const files = new Map([
      [
        'tenant/add-nudges.yaml',
        {
          path: 'tenant/add-nudges.yaml',
          text: '- op: add\n  path: /spec/build-nudges-ref\n  value: [operator-bundle]\n',
        },
      ],
      [
        'tenant/smp.yaml',
        {
          path: 'tenant/smp.yaml',
          text: 'apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: gateway\nspec:\n  build-nudges-ref:\n  - operator-bundle\n',
        },
      ],
    ]);
    const found = findNudgesRefPatches(
      [
        k('tenant/kustomization.yaml', {
          patches: [
            { path: 'add-nudges.yaml', target: { kind: 'Component', name: 'api' } },
            { patch: '- op: add\n  path: /spec/build-nudges-ref/-\n  value: docs\n', target: { name: 'cli' } },
            { patch: '- op: replace\n  path: /spec/application\n  value: x\n', target: { name: 'cli' } },
          ],
          patchesStrategicMerge: ['smp.yaml'],
        }),
      ],
      (path) => files.get(path),
    );
    assert.deepEqual(found, [
      {
        kustomization: 'tenant/kustomization.yaml',
        at: ['patches', 0],
        file: 'tenant/add-nudges.yaml',
        target: 'api',
        names: ['operator-bundle'],
      },
      { kustomization: 'tenant/kustomization.yaml', at: ['patches', 1], target: 'cli', names: ['docs'] },
      {
        kustomization: 'tenant/kustomization.yaml',
        at: ['patchesStrategicMerge', 0],
        file: 'tenant/smp.yaml',
        target: 'gateway',
        names: ['operator-bundle'],
      },
    ]);
  });
});
