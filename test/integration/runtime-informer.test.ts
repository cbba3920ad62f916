// The informer against a real kube-apiserver: a writer churns ConfigMaps while kube-apiserver is
// restarted mid-stream; afterwards the cache must equal the server exactly and the handlers must
// have seen every object's final state (an "auditor" comparison, not a timing one).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { isAlreadyExists, isNotFound } from '../../src/adapters/kubernetes/errors.ts';
import { KubeListWatchSource } from '../../src/adapters/kubernetes/list-watch.ts';
import { CONFIG_MAPS, NAMESPACES } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { CONFIG_MAP_KIND } from '../runtime/fakes.ts';
import { startControlPlane, type ControlPlane } from './harness/control-plane.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const NS = 'churn';
const NAMES = Array.from({ length: 30 }, (_, i) => `cm-${String(i)}`);
const OPERATIONS = 400;

/** A small deterministic PRNG so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

async function untilSuccess<R>(operation: () => Promise<R>): Promise<R> {
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (isAlreadyExists(error) || isNotFound(error)) throw error;
      // The API server is restarting: try again shortly.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`gave up waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('informer against a real kube-apiserver', () => {
  let cp: ControlPlane;
  let client: KubeClient;

  before(async () => {
    cp = await startControlPlane();
    client = new KubeClient(cp.kubeConfig);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });

  after(async () => {
    client.close();
    await cp.close();
  });

  it('misses no change while kube-apiserver restarts in the middle of a stream of writes', async () => {
    const informerHttp = new KubeClient(cp.kubeConfig).http;
    const informer = new Informer<ConfigMap>({
      source: new KubeListWatchSource<ConfigMap>(informerHttp, CONFIG_MAPS, { namespace: NS }),
      kind: CONFIG_MAP_KIND,
      pageSize: 7,
      backoff: { initialMs: 100, maxMs: 1000 },
    });
    /** What the handlers last saw per name: a resourceVersion, or 'deleted'. */
    const seen = new Map<string, string>();
    const record = (object: ConfigMap, state?: string): void => {
      seen.set(object.metadata?.name ?? '', state ?? object.metadata?.resourceVersion ?? '');
    };
    informer.addHandlers({
      add: (o) => {
        record(o);
      },
      update: (_, o) => {
        record(o);
      },
      delete: (o) => {
        record(o, 'deleted');
      },
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    assert.equal(await informer.waitForSync(), true);

    const next = random(20_250_101);
    let restarted: Promise<void> | undefined;
    for (let op = 0; op < OPERATIONS; op += 1) {
      if (op === OPERATIONS / 4) restarted = cp.restartApiServer();
      const name = NAMES[Math.floor(next() * NAMES.length)] ?? 'cm-0';
      const value = String(op);
      if (next() < 0.25) {
        await untilSuccess(() => client.delete(CONFIG_MAPS, NS, name)).catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
      } else {
        const object: ConfigMap = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: NS, name },
          data: { op: value },
        };
        await untilSuccess(() => client.create(CONFIG_MAPS, object)).catch(async (error: unknown) => {
          if (!isAlreadyExists(error)) throw error;
          await untilSuccess(() => client.replace(CONFIG_MAPS, object));
        });
      }
    }
    await restarted;

    const server = async (): Promise<Map<string, string>> => {
      const page = await untilSuccess(() => client.list<ConfigMap>(CONFIG_MAPS, { namespace: NS }));
      return new Map(page.items.map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']));
    };
    const cached = (): Map<string, string> =>
      new Map(informer.store.list(NS).map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']));
    const truth = await server();
    await waitFor(
      () => JSON.stringify([...cached()].sort()) === JSON.stringify([...truth].sort()),
      'the cache to catch up',
    );
    stop.abort();
    await running;
    informerHttp.close();

    assert.deepEqual([...cached()].sort(), [...truth].sort(), 'the cache equals the server');
    for (const name of NAMES) {
      const expected = truth.get(name) ?? 'deleted';
      const observed = seen.get(name) ?? 'deleted';
      assert.equal(observed, expected, `handlers saw the final state of ${name}`);
    }
    assert.ok(truth.size > 0 && truth.size < NAMES.length, 'the churn left a mix of live and deleted objects');
    assert.ok(informer.health().restarts >= 1, 'the restart broke the watch at least once');
  });
});
