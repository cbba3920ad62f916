// An optional kind (src/runtime/optional-kind.ts, docs/decisions.md N22): asked for before its
// informer runs, said once while it cannot be listed, asked again at the interval (sooner after an
// API server that could not answer), and the informer run only once a list succeeds. ConfigMaps
// stand in for the optional kind; a fake client answers the probe, a scripted source the informer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListQuery } from '../../src/adapters/kubernetes/client.ts';
import { errorFromStatus } from '../../src/adapters/kubernetes/errors.ts';
import { CONFIG_MAPS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, KubeStatus, ListPage, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { ManualClock } from '../../src/runtime/clock.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { OptionalKindCache, TRANSIENT_RETRY_MS } from '../../src/runtime/optional-kind.ts';
import type { InformerRequest, InformerSource } from '../../src/runtime/shared-informers.ts';
import type { WatchedKind } from '../../src/runtime/watched-kind.ts';
import {
  CONFIG_MAP_KIND,
  FakeObjectClient,
  ScriptedSource,
  configMap,
  recordingLogger,
  status,
  waitFor,
  type ConfigMap,
  type LogLine,
} from './fakes.ts';

/** Answers each probe (a list of ConfigMaps) with the next scripted answer; the last one repeats. */
class ProbedClient extends FakeObjectClient {
  readonly answers: (KubeStatus | 'ok')[];
  readonly probes: ListQuery[] = [];

  constructor(answers: (KubeStatus | 'ok')[]) {
    super();
    this.answers = answers;
  }

  override list<T extends KubeObject>(ref: ResourceRef, query: ListQuery = {}): Promise<ListPage<T>> {
    if (ref.plural !== CONFIG_MAPS.plural) return super.list(ref, query);
    const { signal: _signal, ...recorded } = query;
    this.probes.push(recorded);
    const answer = this.answers.length > 1 ? this.answers.shift() : this.answers[0];
    if (answer === undefined || answer === 'ok') return Promise.resolve({ items: [], resourceVersion: '1' });
    const target = { verb: 'list', resource: ref.plural, namespace: query.namespace ?? '', name: '' };
    return Promise.reject(errorFromStatus(target, answer));
  }
}

/** Hands out one informer over a scripted source and remembers how it was asked for. */
class OneInformer implements InformerSource {
  readonly source = new ScriptedSource();
  readonly requests: InformerRequest[] = [];
  readonly made = new Informer<ConfigMap>({ source: this.source, kind: CONFIG_MAP_KIND });

  informer<T extends KubeObject>(kind: WatchedKind<T>, request: InformerRequest = {}): Informer<T> {
    assert.equal(kind, CONFIG_MAP_KIND);
    this.requests.push(request);
    return this.made as unknown as Informer<T>;
  }
}

const UNAVAILABLE = 'ConfigMaps cannot be listed; nothing is read from them. Checking again every few minutes.';
const AVAILABLE = 'ConfigMaps can be listed now';

function setUp(answers: (KubeStatus | 'ok')[]) {
  const clock = new ManualClock();
  const lines: LogLine[] = [];
  const client = new ProbedClient(answers);
  const informers = new OneInformer();
  informers.source.objects = [configMap('tenant', 'present', '1')];
  const cache = new OptionalKindCache({
    kind: CONFIG_MAP_KIND,
    request: { labelSelector: 'app=x' },
    client,
    informers,
    logger: recordingLogger(lines),
    namespace: 'tenant',
    unavailableMessage: UNAVAILABLE,
    availableMessage: AVAILABLE,
    clock,
    probeIntervalMs: 1_000,
    settleTimeoutMs: 60_000,
  });
  return { clock, lines, client, informers, cache };
}

/** Lets the probe's sleep be armed, then moves the clock past it. */
async function nextProbe(clock: ManualClock, client: ProbedClient, delayMs: number): Promise<void> {
  const before = client.probes.length;
  await waitFor(() => clock.nextTimerAt() === clock.now() + delayMs, `a timer in ${String(delayMs)} ms`);
  clock.advance(delayMs);
  await waitFor(() => client.probes.length === before + 1, `probe ${String(before + 1)}`);
}

describe('OptionalKindCache', () => {
  it('asks for its informer as run by the caller, with the selector', () => {
    const { informers } = setUp(['ok']);
    assert.deepEqual(informers.requests, [{ labelSelector: 'app=x', runByCaller: true }]);
  });

  it('404, then listable later: warns once, probes at the interval, then runs the informer and says so', async () => {
    const { clock, lines, client, informers, cache } = setUp([status(404, 'NotFound'), status(404, 'NotFound'), 'ok']);
    const stop = new AbortController();
    let listable: boolean | undefined;
    const waiting = cache.whenListable(stop.signal).then((answer) => {
      listable = answer;
    });
    const running = cache.run(stop.signal);
    // A definite "no" is an answer: settled() does not wait for its 60 s timeout.
    await cache.settled(stop.signal);
    assert.equal(cache.unavailable, true);
    assert.equal(listable, undefined, 'not listable yet');
    assert.equal(informers.source.listCalls, 0, 'the informer does not run unprobed');

    await nextProbe(clock, client, 1_000);
    assert.equal(informers.source.listCalls, 0);
    await nextProbe(clock, client, 1_000);
    await waiting;
    assert.equal(listable, true);
    assert.equal(await cache.whenListable(stop.signal), true, 'asked again after, at once');
    await waitFor(() => cache.informer.hasSynced(), 'the informer synced');
    assert.deepEqual(
      cache.store.list().map((object) => object.metadata?.name),
      ['present'],
    );
    assert.equal(cache.unavailable, false);

    // Each probe: one object, in the informer's namespace, through its selector.
    assert.deepEqual(client.probes, Array(3).fill({ namespace: 'tenant', labelSelector: 'app=x', limit: 1 }));
    assert.deepEqual(
      lines.map((line) => [line.level, line.message]),
      [
        ['warn', UNAVAILABLE],
        ['info', AVAILABLE],
      ],
    );
    assert.equal(lines[0]?.fields.resource, 'configmaps');
    assert.match(String(lines[0].fields.reason), /the ConfigMap CRD is not installed/);
    stop.abort();
    await running;
  });

  it('403: warns once naming RBAC, keeps probing, and whenListable answers false on abort', async () => {
    const { clock, lines, client, informers, cache } = setUp([status(403, 'Forbidden')]);
    const stop = new AbortController();
    const waiting = cache.whenListable(stop.signal);
    const running = cache.run(stop.signal);
    await cache.settled(stop.signal);
    for (let round = 0; round < 3; round++) await nextProbe(clock, client, 1_000);
    assert.equal(client.probes.length, 4);
    assert.equal(lines.length, 1, 'one warning, not one per probe');
    assert.match(String(lines[0]?.fields.reason), /RBAC does not grant list on configmaps \(403\)/);
    stop.abort();
    assert.equal(await waiting, false);
    await running;
    assert.equal(informers.source.listCalls, 0, 'the informer never ran');
  });

  it('a transient failure is retried sooner than the interval, untold, and is not a "no"', async () => {
    const { clock, lines, client, cache } = setUp([
      status(503, 'ServiceUnavailable'),
      status(500, 'InternalError'),
      'ok',
    ]);
    const stop = new AbortController();
    const running = cache.run(stop.signal);
    await waitFor(() => client.probes.length === 1 && clock.pendingTimers() === 1, 'first probe and its retry');
    assert.equal(cache.unavailable, false, 'an unanswered question is not a "no"');
    clock.advance(TRANSIENT_RETRY_MS - 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(client.probes.length, 1);
    clock.advance(1);
    await waitFor(() => client.probes.length === 2, 'retry');
    await nextProbe(clock, client, TRANSIENT_RETRY_MS);
    assert.equal(await cache.whenListable(stop.signal), true);
    // Never told unavailable, so never told available either.
    assert.deepEqual(lines, []);
    stop.abort();
    await running;
  });

  it('abort: whenListable on an aborted signal is false, and run ends without running the informer', async () => {
    const { informers, cache } = setUp(['ok']);
    const stop = new AbortController();
    stop.abort();
    assert.equal(await cache.whenListable(stop.signal), false);
    await cache.run(stop.signal);
    assert.equal(informers.source.listCalls, 0);
  });
});
