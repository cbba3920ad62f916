import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectClient } from '../../src/adapters/kubernetes/client.ts';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import {
  gitSourceOf,
  nudgingComponentFacts,
  renovateConfigMapSources,
  type NamespaceWideConfigMaps,
} from '../../src/cluster/nudged-repository.ts';
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

describe('the Renovate ConfigMaps in force (D6), with the namespace-wide ones cached (N49)', () => {
  /** A client that answers GETs of ConfigMaps from `stored` and records each one asked. */
  function client(stored: Record<string, Record<string, string>>): { client: ObjectClient; gets: string[] } {
    const gets: string[] = [];
    const get = (_ref: unknown, namespace: string, name: string) => {
      gets.push(`${namespace}/${name}`);
      const data = stored[`${namespace}/${name}`];
      if (data === undefined) {
        return Promise.reject(
          new KubeApiError({ verb: 'get', resource: 'configmaps', namespace, name }, 404, 'NotFound', 'not found'),
        );
      }
      return Promise.resolve({ metadata: { namespace, name }, data });
    };
    return { client: { get } as unknown as ObjectClient, gets };
  }
  const cache = (stored: Record<string, Record<string, string>>): NamespaceWideConfigMaps => ({
    get: (namespace, name) => {
      const data = stored[`${namespace}/${name}`];
      return data === undefined ? undefined : { data };
    },
  });
  const nudged = (annotations: Record<string, string> = {}) => ({ metadata: { name: 'bundle', annotations } });
  const WIDE = 'tenant/namespace-wide-nudging-renovate-config';

  it('reads the namespace-wide ConfigMap from the cache, without a request', async () => {
    const api = client({});
    const sources = await renovateConfigMapSources(
      api.client,
      'tenant',
      nudged(),
      undefined,
      cache({ [WIDE]: { labels: 'wide' } }),
    );
    assert.deepEqual(sources, { renovateConfigMap: { labels: 'wide' } });
    assert.deepEqual(api.gets, []);
  });

  it('takes absent from the cache as absent, without a request', async () => {
    const api = client({ [WIDE]: { labels: 'only-in-the-api' } });
    assert.deepEqual(await renovateConfigMapSources(api.client, 'tenant', nudged(), undefined, cache({})), {});
    assert.deepEqual(api.gets, []);
  });

  it('hands out a copy, never the cached object', async () => {
    const stored = { [WIDE]: { labels: 'wide' } };
    const sources = await renovateConfigMapSources(client({}).client, 'tenant', nudged(), undefined, cache(stored));
    assert.notEqual(sources.renovateConfigMap, stored[WIDE]);
  });

  it("still reads a Component's own ConfigMap by name, and it replaces the namespace-wide one", async () => {
    const api = client({ 'tenant/mine': { labels: 'mine' } });
    const annotated = nudged({ 'build.appstudio.openshift.io/nudge_renovate_config_map': 'mine' });
    const sources = await renovateConfigMapSources(api.client, 'tenant', annotated, undefined, cache({ [WIDE]: {} }));
    assert.deepEqual(sources, { perComponentConfigMap: { labels: 'mine' } });
    assert.deepEqual(api.gets, ['tenant/mine']);
  });

  it('without a cache, reads the namespace-wide ConfigMap by name', async () => {
    const api = client({ [WIDE]: { labels: 'wide' } });
    assert.deepEqual(await renovateConfigMapSources(api.client, 'tenant', nudged()), {
      renovateConfigMap: { labels: 'wide' },
    });
    assert.deepEqual(api.gets, [WIDE]);
  });
});
