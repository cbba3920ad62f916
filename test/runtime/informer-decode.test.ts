// The informer decodes each object once, before it enters the cache (src/runtime/informer.ts): a
// malformed object never enters it, is reported once per resourceVersion, leaves the cache when a
// good version was cached, and never holds up the other objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { CONFIG_MAPS } from '../../src/adapters/kubernetes/resources.ts';
import { Informer, type InformerHandlers } from '../../src/runtime/informer.ts';
import type { RuntimeLogger } from '../../src/runtime/runtime-log.ts';
import type { WatchedKind } from '../../src/runtime/watched-kind.ts';
import { configMap, running, ScriptedSource, status, waitFor, type ConfigMap } from './fakes.ts';

/** ConfigMaps whose `data.port` must be digits, the way a schema would say it. */
const PORT_CONFIG: WatchedKind<ConfigMap> = {
  resource: CONFIG_MAPS,
  decode: (object) => {
    const port = (object as ConfigMap).data?.port;
    return port === undefined || /^[0-9]+$/.test(port)
      ? { ok: true, object }
      : { ok: false, problems: [{ path: 'data.port', message: 'must be digits' }] };
  },
};

const good = (name: string, rv: string): ConfigMap => configMap('ns', name, rv, { port: '80' });
const bad = (name: string, rv: string): ConfigMap => configMap('ns', name, rv, { port: 'http' });

interface Warning {
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function setup(source: ScriptedSource) {
  const warnings: Warning[] = [];
  const ignore = (): void => undefined;
  const logger: RuntimeLogger = {
    debug: ignore,
    info: ignore,
    error: ignore,
    warn: (fields, message) => warnings.push({ fields, message }),
  };
  const registry = new Registry();
  const informer = new Informer<ConfigMap>({
    source,
    kind: PORT_CONFIG,
    resource: 'configmaps',
    logger,
    registry,
    backoff: { initialMs: 1, maxMs: 4 },
    resyncPeriodMs: 0,
  });
  const seen: string[] = [];
  const rv = (o: ConfigMap): string => `${o.metadata?.name ?? ''}@${o.metadata?.resourceVersion ?? ''}`;
  const handlers: InformerHandlers<ConfigMap> = {
    add: (o) => seen.push(`add ${rv(o)}`),
    update: (_, o) => seen.push(`update ${rv(o)}`),
    delete: (o) => seen.push(`delete ${rv(o)}`),
    resync: (o) => seen.push(`resync ${rv(o)}`),
  };
  informer.addHandlers(handlers);
  const metric = async (name: string): Promise<string> => registry.getSingleMetricAsString(name);
  return { informer, warnings, seen, metric };
}

describe('Informer decoding', () => {
  it('keeps a malformed object out of the cache without holding up the others, and says so once', async () => {
    const source = new ScriptedSource();
    source.objects = [good('a', '1'), bad('b', '2'), good('c', '3')];
    source.resourceVersion = '3';
    // A relist (410) brings the same malformed version again; a resync re-delivers the cache.
    source.plans.push({ kind: 'stream', events: [{ type: 'ERROR', status: status(410, 'Expired') }], then: 'end' });
    const { informer, warnings, seen, metric } = setup(source);
    await running(informer, async () => {
      assert.equal(await informer.waitForSync(), true);
      await waitFor(() => source.watchCalls.length === 2, 'the watch after the relist');
      informer.resyncNow();
    });
    assert.deepEqual(informer.store.keys().sort(), ['ns/a', 'ns/c']);
    assert.deepEqual(seen, ['add a@1', 'add c@3', 'resync a@1', 'resync c@3']);
    assert.equal(warnings.length, 1, 'one warning, not one per relist or resync');
    assert.deepEqual(warnings[0]?.fields, {
      resource: 'configmaps',
      namespace: 'ns',
      name: 'b',
      resourceVersion: '2',
      problems: ['data.port: must be digits'],
    });
    assert.ok(!JSON.stringify(warnings).includes('http'), 'the value itself is never logged');
    assert.deepEqual(
      [...informer.undecodable()],
      [['ns/b', { resourceVersion: '2', problems: [{ path: 'data.port', message: 'must be digits' }] }]],
    );
    assert.match(await metric('nudger_informer_decode_failures_total'), /resource="configmaps"\} 1/);
    assert.match(await metric('nudger_informer_undecodable_objects'), /resource="configmaps"\} 1/);
  });

  it('reports a new malformed version again, takes a fixed one as an ordinary add', async () => {
    const source = new ScriptedSource();
    source.objects = [bad('b', '2')];
    source.resourceVersion = '2';
    source.plans.push({
      kind: 'stream',
      events: [
        { type: 'MODIFIED', object: bad('b', '3') },
        { type: 'MODIFIED', object: good('b', '4') },
      ],
      then: 'hang',
    });
    const { informer, warnings, seen, metric } = setup(source);
    await running(informer, () => waitFor(() => informer.store.has('ns/b'), 'the fixed version'));
    assert.deepEqual(
      warnings.map((w) => w.fields.resourceVersion),
      ['2', '3'],
    );
    assert.deepEqual(seen, ['add b@4']);
    assert.equal(informer.undecodable().size, 0);
    assert.match(await metric('nudger_informer_decode_failures_total'), /resource="configmaps"\} 2/);
    assert.match(await metric('nudger_informer_undecodable_objects'), /resource="configmaps"\} 0/);
  });

  it('drops a cached object that turns malformed, telling handlers with its last good state', async () => {
    const source = new ScriptedSource();
    source.objects = [good('a', '1')];
    source.plans.push({ kind: 'stream', events: [{ type: 'MODIFIED', object: bad('a', '5') }], then: 'hang' });
    const { informer, seen } = setup(source);
    await running(informer, () => waitFor(() => informer.undecodable().has('ns/a'), 'the malformed version'));
    assert.equal(informer.store.has('ns/a'), false);
    assert.deepEqual(seen, ['add a@1', 'delete a@1']);
  });

  it('drops it on a relist too', async () => {
    const source = new ScriptedSource();
    source.objects = [good('a', '1')];
    source.plans.push({ kind: 'stream', events: [{ type: 'ERROR', status: status(410, 'Expired') }], then: 'end' });
    const { informer, seen } = setup(source);
    await running(informer, async () => {
      await informer.waitForSync();
      source.objects = [bad('a', '6')];
      await waitFor(() => source.watchCalls.length === 2, 'the watch after the relist');
    });
    assert.equal(informer.store.has('ns/a'), false);
    assert.deepEqual(seen, ['add a@1', 'delete a@1']);
  });

  it('forgets a malformed object once the watch says it is deleted', async () => {
    const source = new ScriptedSource();
    source.objects = [bad('b', '2')];
    source.resourceVersion = '2';
    source.plans.push({ kind: 'stream', events: [{ type: 'DELETED', object: bad('b', '7') }], then: 'hang' });
    const { informer, seen, metric } = setup(source);
    await running(informer, async () => {
      await informer.waitForSync();
      await waitFor(() => informer.undecodable().size === 0, 'the DELETED event');
    });
    assert.deepEqual(seen, [], 'handlers never saw it, so they hear nothing of its end');
    assert.match(await metric('nudger_informer_undecodable_objects'), /resource="configmaps"\} 0/);
  });

  it('forgets a malformed object deleted while the watch was down', async () => {
    const source = new ScriptedSource();
    source.objects = [bad('c', '3')];
    source.resourceVersion = '3';
    source.plans.push({ kind: 'reject', status: status(410, 'Expired') });
    // Deleted between the first list and the relist.
    const list = source.list.bind(source);
    source.list = (options) => {
      if (source.listCalls === 1) source.objects = [];
      return list(options);
    };
    const { informer, metric } = setup(source);
    await running(informer, () => waitFor(() => source.watchCalls.length === 2, 'the watch after the relist'));
    assert.equal(informer.undecodable().size, 0);
    assert.match(await metric('nudger_informer_undecodable_objects'), /resource="configmaps"\} 0/);
  });

  it('tells handlers of a deletion whose final state is malformed with the last good state', async () => {
    const source = new ScriptedSource();
    source.objects = [good('a', '1')];
    source.plans.push({ kind: 'stream', events: [{ type: 'DELETED', object: bad('a', '8') }], then: 'hang' });
    const { informer, seen } = setup(source);
    await running(informer, () => waitFor(() => seen.length === 2, 'the delete'));
    assert.deepEqual(seen, ['add a@1', 'delete a@1']);
  });
});
