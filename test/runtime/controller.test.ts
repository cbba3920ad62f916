import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { CacheSyncTimeoutError, Controller } from '../../src/runtime/controller.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { ItemExponentialRateLimiter } from '../../src/runtime/rate-limiter.ts';
import { silentLogger } from '../../src/runtime/runtime-log.ts';
import { TerminalError, type ObjectKey, type ReconcileResult, type Reconciler } from '../../src/runtime/reconciler.ts';
import { CONFIG_MAP_KIND, configMap, ScriptedSource, waitFor, type ConfigMap } from './fakes.ts';

type Behaviour = (key: ObjectKey, attempt: number, signal: AbortSignal) => Promise<ReconcileResult | undefined>;

class ScriptedReconciler implements Reconciler {
  readonly name = 'test';
  readonly calls: string[] = [];
  readonly attempts = new Map<string, number>();
  active = 0;
  maxActive = 0;
  readonly activeKeys = new Set<string>();
  overlap = false;
  readonly #behaviour: Behaviour;

  constructor(behaviour: Behaviour) {
    this.#behaviour = behaviour;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const id = `${key.namespace}/${key.name}`;
    if (this.activeKeys.has(id)) this.overlap = true;
    this.activeKeys.add(id);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    const attempt = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, attempt);
    this.calls.push(id);
    try {
      return await this.#behaviour(key, attempt, signal);
    } finally {
      this.active -= 1;
      this.activeKeys.delete(id);
    }
  }
}

function controller(
  reconciler: Reconciler,
  extra: Partial<ConstructorParameters<typeof Controller>[0]> = {},
): Controller {
  return new Controller({ reconciler, rateLimiter: new ItemExponentialRateLimiter<string>(1, 8), ...extra });
}

async function started<R>(c: Controller, body: () => Promise<R>): Promise<R> {
  const stop = new AbortController();
  const run = c.start(stop.signal);
  try {
    return await body();
  } finally {
    stop.abort();
    await run;
  }
}

/** Some libraries throw strings; the controller must still retry them. */
function notAnError(): Error {
  return 'a string, not an Error' as unknown as Error;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Controller', () => {
  it('retries a failing key with growing backoff and forgets it after success', async () => {
    const reconciler = new ScriptedReconciler((_, attempt) => {
      if (attempt < 4) return Promise.reject(new Error(`boom ${String(attempt)}`));
      return Promise.resolve(undefined);
    });
    const c = controller(reconciler);
    await started(c, async () => {
      c.enqueue({ namespace: 'ns', name: 'a' });
      await waitFor(() => reconciler.calls.length === 4, 'four attempts');
      await waitFor(() => !c.queue.isProcessing('ns/a'), 'the last attempt to finish');
      assert.equal(c.queue.numRequeues('ns/a'), 0, 'success resets the backoff');
    });
  });

  it('does not retry a TerminalError', async () => {
    const reconciler = new ScriptedReconciler(() => Promise.reject(new TerminalError('invalid spec')));
    const registry = new Registry();
    const c = controller(reconciler, { registry });
    await started(c, async () => {
      c.enqueue({ namespace: 'ns', name: 'bad' });
      await waitFor(() => reconciler.calls.length === 1 && !c.queue.isProcessing('ns/bad'), 'the attempt');
      await tick();
      assert.equal(c.queue.delayedLen(), 0);
      assert.equal(c.queue.numRequeues('ns/bad'), 0);
    });
    assert.deepEqual(reconciler.calls, ['ns/bad']);
    assert.match(
      await registry.getSingleMetricAsString('controller_runtime_terminal_reconcile_errors_total'),
      /controller="test"\} 1/,
    );
    assert.match(await registry.getSingleMetricAsString('controller_runtime_reconcile_total'), /result="error"\} 1/);
  });

  it('retries when a reconciler throws something that is not an Error', async () => {
    const reconciler = new ScriptedReconciler((_, attempt) =>
      attempt === 1 ? Promise.reject(notAnError()) : Promise.resolve(undefined),
    );
    const c = controller(reconciler);
    await started(c, async () => {
      c.enqueue({ namespace: 'ns', name: 'p' });
      await waitFor(() => reconciler.calls.length === 2, 'the retry');
    });
  });

  it('requeues after requeueAfterMs', async () => {
    const reconciler = new ScriptedReconciler((_, attempt) =>
      Promise.resolve(attempt < 3 ? { requeueAfterMs: 5 } : undefined),
    );
    const c = controller(reconciler);
    await started(c, async () => {
      c.enqueue({ namespace: 'ns', name: 'poll' });
      await waitFor(() => reconciler.calls.length === 3, 'two requeues');
    });
  });

  it('runs up to `concurrency` workers and never two on one key', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reconciler = new ScriptedReconciler(async () => {
      await gate;
      return undefined;
    });
    const c = controller(reconciler, { concurrency: 3 });
    await started(c, async () => {
      for (const name of ['a', 'b', 'c', 'd', 'e']) c.enqueue({ namespace: 'ns', name });
      await waitFor(() => reconciler.active === 3, 'three workers busy');
      c.enqueue({ namespace: 'ns', name: 'a' });
      await tick();
      assert.equal(reconciler.active, 3);
      release();
      await waitFor(
        () => reconciler.calls.length === 6 && reconciler.active === 0,
        'all work, including the re-added key',
      );
    });
    assert.equal(reconciler.maxActive, 3);
    assert.equal(reconciler.overlap, false);
  });

  it('aborts a reconcile that exceeds the reconcile timeout and retries it', async () => {
    const reconciler = new ScriptedReconciler(
      (_, attempt, signal) =>
        new Promise((resolve, reject) => {
          if (attempt > 1) {
            resolve(undefined);
            return;
          }
          signal.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
    );
    const c = controller(reconciler, { reconcileTimeoutMs: 10 });
    await started(c, async () => {
      c.enqueue({ namespace: 'ns', name: 'slow' });
      await waitFor(() => reconciler.calls.length === 2, 'the retry after the timeout');
    });
  });

  it('maps informer events to keys (old and new state of an update) after the caches sync', async () => {
    const source = new ScriptedSource();
    source.objects = [configMap('ns', 'a', '1', { owner: 'x' }), configMap('ns', 'b', '2', { owner: 'y' })];
    source.plans.push({
      kind: 'stream',
      events: [{ type: 'MODIFIED', object: configMap('ns', 'a', '3', { owner: 'z' }) }],
      then: 'hang',
    });
    const informer = new Informer<ConfigMap>({ source, kind: CONFIG_MAP_KIND, resyncPeriodMs: 0 });
    const reconciler = new ScriptedReconciler(() => Promise.resolve(undefined));
    const c = controller(reconciler).watch(informer, {
      map: (cm) => [{ namespace: 'owners', name: cm.data?.owner ?? '' }],
    });
    const stop = new AbortController();
    const informerRun = informer.run(stop.signal);
    await started(c, () => waitFor(() => new Set(reconciler.calls).size === 3, 'x, y and z'));
    stop.abort();
    await informerRun;
    assert.deepEqual([...new Set(reconciler.calls)].sort(), ['owners/x', 'owners/y', 'owners/z']);
  });

  it('on shutdown aborts in-flight reconciles, waits for them, and resolves', async () => {
    let sawAbort = false;
    const reconciler = new ScriptedReconciler(
      (_, __, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            setImmediate(() => {
              resolve(undefined);
            });
          });
        }),
    );
    const c = controller(reconciler);
    const stop = new AbortController();
    const run = c.start(stop.signal);
    c.enqueue({ namespace: 'ns', name: 'long' });
    await waitFor(() => reconciler.active === 1, 'the reconcile to start');
    stop.abort();
    await run;
    assert.equal(sawAbort, true);
    assert.equal(reconciler.active, 0, 'start() resolved only after the reconcile finished');
    assert.equal(c.queue.shuttingDown, true);
  });

  describe('a cache that has not synced in time (docs/decisions.md N51)', () => {
    function unsyncedInformer(): { informer: Informer<ConfigMap>; source: ScriptedSource } {
      const source = new ScriptedSource();
      source.objects = [configMap('ns', 'a', '1')];
      return { source, informer: new Informer<ConfigMap>({ source, kind: CONFIG_MAP_KIND, resyncPeriodMs: 0 }) };
    }

    it('fails start by default, as controller-runtime does', async () => {
      const { informer } = unsyncedInformer();
      const c = controller(new ScriptedReconciler(() => Promise.resolve(undefined)), { cacheSyncTimeoutMs: 10 });
      c.watch(informer);
      await assert.rejects(c.start(new AbortController().signal), CacheSyncTimeoutError);
    });

    it('keepWaiting: goes on waiting past the timeout and reconciles what was queued once the cache syncs', async () => {
      const { informer } = unsyncedInformer();
      const errors: string[] = [];
      const reconciler = new ScriptedReconciler(() => Promise.resolve(undefined));
      const c = controller(reconciler, {
        cacheSyncTimeoutMs: 10,
        onCacheSyncTimeout: 'keepWaiting',
        logger: {
          ...silentLogger,
          error: (_fields: unknown, message: string) => {
            errors.push(message);
          },
        },
      });
      c.watch(informer);
      const stop = new AbortController();
      let ended = false;
      const run = c.start(stop.signal).finally(() => {
        ended = true;
      });
      c.enqueue({ namespace: 'ns', name: 'queued-while-syncing' });
      await waitFor(() => errors.length === 1, 'the timeout to be logged');
      assert.match(errors[0] ?? '', /still waiting/);
      assert.equal(ended, false, 'start did not give up');
      assert.deepEqual(reconciler.calls, [], 'no worker before the cache syncs');
      // The list arrives late (as 20,000 PipelineRuns did at 1,000 namespaces): the workers start.
      const informerRun = informer.run(stop.signal);
      await waitFor(() => reconciler.calls.includes('ns/queued-while-syncing'), 'the queued key');
      await waitFor(() => reconciler.calls.includes('ns/a'), 'the listed object');
      stop.abort();
      await run;
      await informerRun;
    });
  });
});
