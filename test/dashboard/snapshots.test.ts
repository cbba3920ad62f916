// The dashboard's reading of the caches (docs/decisions.md N46): namespaces with any Component,
// NudgeConfig or ChangeGroup, each namespace's snapshot with its graph from namespaceNudgeGraph,
// kept until an object of that namespace changes (and only that namespace's).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { CacheData, type Cache, type KonfluxCaches } from '../../src/dashboard/snapshots.ts';
import type { InformerHandlers } from '../../src/runtime/informer.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';

/** A store the test fills, telling its handlers as an informer would. */
class TestCache<T extends KubeObject> implements Cache<T> {
  readonly store = new Store<T>();
  readonly #handlers = new Set<InformerHandlers<KubeObject>>();
  addHandlers(handlers: InformerHandlers<KubeObject>): () => void {
    this.#handlers.add(handlers);
    return () => this.#handlers.delete(handlers);
  }
  put(object: T): void {
    const { previous, current } = this.store.upsert(object);
    for (const handlers of this.#handlers) {
      if (previous === undefined) handlers.add?.(current, { initialList: false });
      else handlers.update?.(previous, current, { initialList: false });
    }
  }
}

function component(namespace: string, name: string, nudges: string[] = []): ClusterComponent {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { namespace, name },
    spec: { componentName: name, application: 'app', 'build-nudges-ref': nudges },
  } as unknown as ClusterComponent;
}

function caches() {
  const konflux = {
    components: new TestCache<ClusterComponent>(),
    nudgeConfigs: new TestCache<ClusterNudgeConfig>(),
    changeGroups: new TestCache(),
    buildRuns: new TestCache(),
    nudgeRuns: new TestCache(),
  };
  return { konflux, data: new CacheData({ konflux: konflux as unknown as KonfluxCaches }) };
}

describe('CacheData', () => {
  it('lists the namespaces holding Konflux objects, sorted, and follows new ones', () => {
    const { konflux, data } = caches();
    assert.deepEqual(data.namespaces(), []);
    konflux.components.put(component('team-b', 'api'));
    konflux.components.put(component('team-a', 'web'));
    assert.deepEqual(data.namespaces(), ['team-a', 'team-b']);
    konflux.buildRuns.put({ metadata: { namespace: 'builds-only', name: 'run-1' } });
    assert.deepEqual(data.namespaces(), ['team-a', 'team-b'], 'a PipelineRun alone does not list a namespace');
    assert.equal(data.korifi, false);
    assert.deepEqual(data.korifiSpaces(), []);
  });

  it("builds a namespace's snapshot with its graph, and keeps it until that namespace changes", () => {
    const { konflux, data } = caches();
    konflux.components.put(component('team-a', 'web', ['api']));
    konflux.components.put(component('team-a', 'api'));
    konflux.components.put(component('team-b', 'other'));
    const first = data.namespace('team-a');
    assert.deepEqual(first.components.map((c) => c.metadata?.name).sort(), ['api', 'web']);
    assert.deepEqual(
      first.graph.edges.map((e) => `${e.from}->${e.to}`),
      ['web->api'],
    );
    const other = data.namespace('team-b');
    assert.equal(data.namespace('team-a'), first, 'unchanged: the same snapshot');
    konflux.components.put(component('team-a', 'db'));
    const second = data.namespace('team-a');
    assert.notEqual(second, first);
    assert.equal(second.components.length, 3);
    assert.equal(data.namespace('team-b'), other, 'another namespace keeps its snapshot');
    assert.equal(data.sources.length, 5);
  });
});
