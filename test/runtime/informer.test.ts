import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { Informer, type InformerHandlers } from '../../src/runtime/informer.ts';
import { CONFIG_MAP_KIND, configMap, running, ScriptedSource, status, waitFor, type ConfigMap } from './fakes.ts';

interface Seen {
  readonly type: 'add' | 'update' | 'delete' | 'resync';
  readonly key: string;
  readonly rv: string | undefined;
  readonly initial?: boolean;
}

function recorder(): { seen: Seen[]; handlers: InformerHandlers<ConfigMap> } {
  const seen: Seen[] = [];
  const key = (o: ConfigMap): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  return {
    seen,
    handlers: {
      add: (o, meta) =>
        seen.push({ type: 'add', key: key(o), rv: o.metadata?.resourceVersion, initial: meta.initialList }),
      update: (_, o) => seen.push({ type: 'update', key: key(o), rv: o.metadata?.resourceVersion }),
      delete: (o) => seen.push({ type: 'delete', key: key(o), rv: o.metadata?.resourceVersion }),
      resync: (o) => seen.push({ type: 'resync', key: key(o), rv: o.metadata?.resourceVersion }),
    },
  };
}

function informer(source: ScriptedSource, extra: Partial<ConstructorParameters<typeof Informer<ConfigMap>>[0]> = {}) {
  return new Informer<ConfigMap>({
    source,
    kind: CONFIG_MAP_KIND,
    pageSize: 2,
    backoff: { initialMs: 1, maxMs: 4 },
    watchTimeoutSeconds: { min: 300, max: 600 },
    resyncPeriodMs: 0,
    ...extra,
  });
}

describe('Informer', () => {
  it('lists in pages, syncs, and reports initial adds', async () => {
    const source = new ScriptedSource();
    source.objects = ['a', 'b', 'c', 'd', 'e'].map((name, i) => configMap('ns', name, String(i + 1)));
    source.resourceVersion = '5';
    const inf = informer(source);
    const { seen, handlers } = recorder();
    inf.addHandlers(handlers);
    await running(inf, async () => {
      assert.equal(await inf.waitForSync(), true);
      await waitFor(() => source.watchCalls.length === 1, 'the watch to start');
    });
    assert.equal(source.listCalls, 3, 'five objects in pages of two');
    assert.deepEqual(inf.store.keys().sort(), ['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e']);
    assert.ok(seen.every((s) => s.type === 'add' && s.initial === true));
    const first = source.watchCalls[0];
    assert.ok(first !== undefined);
    const { timeoutSeconds, ...rest } = first;
    assert.deepEqual(rest, { resourceVersion: '5', allowWatchBookmarks: true });
    assert.ok(
      timeoutSeconds >= 300 && timeoutSeconds <= 600,
      `timeoutSeconds ${String(timeoutSeconds)} is in 5–10 min`,
    );
  });

  it('applies watch events, tracks bookmarks, and resumes from the last resourceVersion', async () => {
    const source = new ScriptedSource();
    source.objects = [configMap('ns', 'a', '1')];
    source.resourceVersion = '1';
    source.plans.push({
      kind: 'stream',
      events: [
        { type: 'ADDED', object: configMap('ns', 'b', '2') },
        { type: 'MODIFIED', object: configMap('ns', 'a', '3', { k: 'v' }) },
        { type: 'DELETED', object: configMap('ns', 'b', '4') },
        { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } },
      ],
      then: 'end',
    });
    const inf = informer(source);
    const { seen, handlers } = recorder();
    inf.addHandlers(handlers);
    await running(inf, () => waitFor(() => source.watchCalls.length === 2, 'a second watch'));
    assert.deepEqual(
      seen.filter((s) => !s.initial),
      [
        { type: 'add', key: 'ns/b', rv: '2', initial: false },
        { type: 'update', key: 'ns/a', rv: '3' },
        { type: 'delete', key: 'ns/b', rv: '4' },
      ],
    );
    assert.equal(source.watchCalls[1]?.resourceVersion, '9', 'resumed from the bookmark');
    assert.equal(source.listCalls, 1, 'a closed stream does not relist');
    assert.deepEqual(inf.store.get('ns', 'a')?.data, { k: 'v' });
    assert.equal(inf.health().restarts, 1);
  });

  it('relists on 410 Gone mid-stream and emits the deletes and updates it missed', async () => {
    const source = new ScriptedSource();
    source.objects = [configMap('ns', 'keep', '1'), configMap('ns', 'gone', '2'), configMap('ns', 'changed', '3')];
    source.resourceVersion = '3';
    source.plans.push({
      kind: 'stream',
      events: [{ type: 'ERROR', status: status(410, 'Expired', 'too old resource version: 3 (50)') }],
      then: 'hang',
    });
    const inf = informer(source);
    const { seen, handlers } = recorder();
    inf.addHandlers(handlers);
    await running(inf, async () => {
      await inf.waitForSync();
      // While disconnected: one object deleted, one changed, one created.
      source.objects = [configMap('ns', 'keep', '1'), configMap('ns', 'changed', '40'), configMap('ns', 'new', '41')];
      source.resourceVersion = '50';
      await waitFor(() => source.watchCalls.length === 2, 'the watch after the relist');
    });
    assert.deepEqual(
      seen.filter((s) => !s.initial),
      [
        { type: 'update', key: 'ns/changed', rv: '40' },
        { type: 'add', key: 'ns/new', rv: '41', initial: false },
        { type: 'delete', key: 'ns/gone', rv: '2' },
      ],
    );
    assert.deepEqual(inf.store.keys().sort(), ['ns/changed', 'ns/keep', 'ns/new']);
    assert.equal(source.watchCalls[1]?.resourceVersion, '50');
    assert.equal(inf.health().relists, 1);
  });

  it('relists when the watch request itself is refused with 410', async () => {
    const source = new ScriptedSource();
    source.plans.push({ kind: 'reject', status: status(410, 'Expired') });
    const inf = informer(source);
    await running(inf, () => waitFor(() => source.watchCalls.length === 2, 'the watch after the relist'));
    assert.equal(source.listCalls, 2);
  });

  it('retries after HTTP 500 on watch and a broken stream, from the same resourceVersion, without relisting', async () => {
    const source = new ScriptedSource();
    source.objects = [configMap('ns', 'a', '7')];
    source.resourceVersion = '7';
    source.plans.push(
      { kind: 'reject', status: status(500, 'InternalError', 'etcdserver: request timed out') },
      { kind: 'stream', events: [{ type: 'MODIFIED', object: configMap('ns', 'a', '8') }], then: 'break' },
      { kind: 'reject', status: status(429, 'TooManyRequests') },
    );
    const registry = new Registry();
    const inf = informer(source, { registry });
    await running(inf, () => waitFor(() => source.watchCalls.length === 4, 'four watch attempts'));
    assert.deepEqual(
      source.watchCalls.map((c) => c.resourceVersion),
      ['7', '7', '8', '8'],
    );
    assert.equal(source.listCalls, 1);
    assert.equal(inf.health().restarts, 3);
    const metrics = await registry.getSingleMetricAsString('nudger_informer_watch_restarts_total');
    assert.match(metrics, /reason="error"\} 2/);
    assert.match(metrics, /reason="throttled"\} 1/);
  });

  it('keeps retrying a failing initial list instead of giving up', async () => {
    const source = new ScriptedSource();
    source.listFailure = status(503, 'ServiceUnavailable');
    source.objects = [configMap('ns', 'a', '1')];
    const inf = informer(source);
    await running(inf, () => inf.waitForSync());
    assert.equal(source.listCalls, 2);
    assert.equal(inf.hasSynced(), true);
  });

  it('replaces a watch that goes silent (idle watchdog)', async () => {
    const source = new ScriptedSource();
    source.plans.push({ kind: 'stream', events: [], then: 'hang' });
    const inf = informer(source, { idleTimeoutMs: 20 });
    await running(inf, () => waitFor(() => source.watchCalls.length >= 2, 'a reconnect after silence'));
    assert.ok(inf.health().restarts >= 1);
  });

  it('reports health: watching while connected, down since when it dropped', async () => {
    const source = new ScriptedSource();
    const inf = informer(source);
    assert.equal(inf.health().watching, false);
    assert.equal(typeof inf.health().downSinceMs, 'number');
    await running(inf, async () => {
      await waitFor(() => inf.health().watching, 'the watch to be up');
      assert.equal(inf.health().downSinceMs, undefined);
    });
    assert.equal(inf.health().watching, false);
    assert.equal(typeof inf.health().downSinceMs, 'number');
  });

  it('re-delivers cached objects on resync, strips managedFields, and survives a throwing handler', async () => {
    const source = new ScriptedSource();
    const withNoise = configMap('ns', 'a', '1');
    withNoise.metadata = {
      ...withNoise.metadata,
      managedFields: [{ manager: 'kubectl' }],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'yes' },
    };
    source.objects = [withNoise];
    const inf = informer(source, { resyncPeriodMs: 5 });
    inf.addHandlers({
      add: () => {
        throw new Error('handler bug');
      },
    });
    const { seen, handlers } = recorder();
    inf.addHandlers(handlers);
    await running(inf, () => waitFor(() => seen.filter((s) => s.type === 'resync').length >= 2, 'two resyncs'));
    const cached = inf.store.get('ns', 'a');
    assert.equal(cached?.metadata?.managedFields, undefined);
    assert.deepEqual(cached?.metadata?.annotations, { keep: 'yes' });
    assert.ok(
      seen.some((s) => s.type === 'add'),
      'the second handler still got the add',
    );
  });

  it('replays the cache to a handler added after sync', async () => {
    const source = new ScriptedSource();
    source.objects = [configMap('ns', 'a', '1'), configMap('ns', 'b', '2')];
    const inf = informer(source);
    await running(inf, async () => {
      await inf.waitForSync();
      const { seen, handlers } = recorder();
      inf.addHandlers(handlers);
      assert.deepEqual(seen.map((s) => s.key).sort(), ['ns/a', 'ns/b']);
    });
  });

  it('keeps indexes in step with adds, updates and deletes', async () => {
    const source = new ScriptedSource();
    source.objects = [configMap('ns', 'a', '1', { target: 'x' }), configMap('ns', 'b', '2', { target: 'x' })];
    source.plans.push({
      kind: 'stream',
      events: [
        { type: 'MODIFIED', object: configMap('ns', 'a', '3', { target: 'y' }) },
        { type: 'DELETED', object: configMap('ns', 'b', '4', { target: 'x' }) },
      ],
      then: 'hang',
    });
    const inf = informer(source, {
      indexers: { byTarget: (o) => (o.data?.target === undefined ? [] : [o.data.target]) },
    });
    await running(inf, async () => {
      await inf.waitForSync();
      assert.deepEqual(
        inf.store
          .byIndex('byTarget', 'x')
          .map((o) => o.metadata?.name)
          .sort(),
        ['a', 'b'],
      );
      await waitFor(() => inf.lastResourceVersion() === '4', 'both events');
    });
    assert.deepEqual(inf.store.byIndex('byTarget', 'x'), []);
    assert.deepEqual(
      inf.store.byIndex('byTarget', 'y').map((o) => o.metadata?.name),
      ['a'],
    );
    assert.deepEqual(inf.store.indexValues('byTarget'), ['y']);
  });
});
