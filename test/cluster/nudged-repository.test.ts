import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gitSourceOf, nudgingComponentFacts } from '../../src/cluster/nudged-repository.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';

const component = (git: { url?: string; revision?: string } | undefined): ClusterComponent => ({
  apiVersion: 'appstudio.redhat.com/v1alpha1',
  kind: 'Component',
  metadata: { name: 'operand-a', namespace: 'tenant' },
  spec: {
    containerImage: 'quay.io/org/operand-a',
    ...(git === undefined ? {} : { source: { git } }),
  },
});

describe('the nudging Component facts D3 checks builds against', () => {
  it('binds builds to the revision the Component names', () => {
    assert.deepEqual(nudgingComponentFacts(component({ url: 'https://example.test/a.git', revision: 'release-1' })), {
      containerImage: 'quay.io/org/operand-a',
      branch: 'release-1',
    });
  });

  it('names no branch when the Component names no revision: its default branch is not known here', () => {
    for (const git of [undefined, { url: 'https://example.test/a.git' }, { revision: '' }]) {
      assert.deepEqual(nudgingComponentFacts(component(git)), { containerImage: 'quay.io/org/operand-a' });
    }
  });

  it('still opens pull requests against main when no revision is named', () => {
    assert.equal(gitSourceOf(component({ url: 'https://example.test/a.git' })).revision, 'main');
  });
});
