// A controller: informer events become keys in a work queue, and N workers hand keys to the
// reconciler. The queue guarantees one worker per key; this file decides what happens after a
// reconcile (forget, retry with backoff, requeue later) and how shutdown drains.
import type { Registry } from 'prom-client';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { sleep, systemClock, timeoutSignal, type Clock } from './clock.ts';
import type { Informer } from './informer.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { objectKeyOf, TerminalError, type ObjectKey, type Reconciler } from './reconciler.ts';
import { describeError, silentLogger, type RuntimeLogger } from './runtime-log.ts';
import { runtimeMetrics, type RuntimeMetrics } from './runtime-metrics.ts';
import { keyOf, parseKey, WorkQueue, type Priority } from './workqueue.ts';

export interface WatchOptions<T extends KubeObject> {
  /** The keys to reconcile when `object` changes; defaults to the object's own key. */
  readonly map?: (object: T) => readonly ObjectKey[];
  /** Return false to ignore an update (e.g. when only status changed). */
  readonly updatePredicate?: (previous: T, current: T) => boolean;
}

export interface ControllerOptions {
  readonly reconciler: Reconciler;
  /** Workers; a key is still never reconciled by two at once. */
  readonly concurrency?: number;
  /** Aborts a reconcile's signal after this long; 0 or absent means no limit. */
  readonly reconcileTimeoutMs?: number;
  readonly cacheSyncTimeoutMs?: number;
  /**
   * What happens when the caches have not synced within `cacheSyncTimeoutMs`: `fail` (the default,
   * as controller-runtime does) rejects `start` with CacheSyncTimeoutError; `keepWaiting` logs that
   * error and goes on waiting, starting the workers once the caches sync (their informers retry on
   * their own). For controllers that must not take the manager down when a kind is missing, and
   * must not stay stopped when it was only slow: at 1,000 namespaces the PipelineRun caches took
   * longer than the timeout, and a controller that gave up left nudging off for the life of the
   * process while the replica reported ready (docs/decisions.md N51).
   */
  readonly onCacheSyncTimeout?: 'fail' | 'keepWaiting';
  /** How long `start` waits for in-flight reconciles after its signal aborts. */
  readonly gracefulShutdownMs?: number;
  readonly rateLimiter?: RateLimiter<string>;
  readonly clock?: Clock;
  readonly logger?: RuntimeLogger;
  readonly registry?: Registry;
}

export class CacheSyncTimeoutError extends Error {
  override readonly name = 'CacheSyncTimeoutError';
  readonly controller: string;
  readonly resources: readonly string[];

  constructor(controller: string, resources: readonly string[], timeoutMs: number) {
    super(
      `controller ${controller}: caches for ${resources.join(', ')} did not sync within ${String(timeoutMs / 1000)} s`,
    );
    this.controller = controller;
    this.resources = resources;
  }
}

type Subscription = (enqueue: (key: ObjectKey, priority: Priority) => void) => () => void;

/** The standard predicate: reconcile only when `metadata.generation` moved (spec changes). */
export function generationChanged(previous: KubeObject, current: KubeObject): boolean {
  return previous.metadata?.generation !== current.metadata?.generation;
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  readonly #reconciler: Reconciler;
  readonly #concurrency: number;
  readonly #reconcileTimeoutMs: number;
  readonly #cacheSyncTimeoutMs: number;
  readonly #onCacheSyncTimeout: 'fail' | 'keepWaiting';
  readonly #gracefulShutdownMs: number;
  readonly #clock: Clock;
  readonly #logger: RuntimeLogger;
  readonly #metrics: RuntimeMetrics | undefined;
  readonly #subscriptions: Subscription[] = [];
  readonly #informers: Informer<KubeObject>[] = [];
  #started = false;

  constructor(options: ControllerOptions) {
    this.#reconciler = options.reconciler;
    this.name = options.reconciler.name;
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#reconcileTimeoutMs = options.reconcileTimeoutMs ?? 0;
    this.#cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? 120_000;
    this.#onCacheSyncTimeout = options.onCacheSyncTimeout ?? 'fail';
    this.#gracefulShutdownMs = options.gracefulShutdownMs ?? 30_000;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#metrics = options.registry === undefined ? undefined : runtimeMetrics(options.registry);
    this.queue = new WorkQueue<string>({
      name: this.name,
      clock: this.#clock,
      ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
      ...(this.#metrics === undefined ? {} : { metrics: this.#metrics.queueSink(this.name) }),
    });
  }

  /** Reconciles the keys `options.map` derives from every change to `informer`'s objects. */
  watch<T extends KubeObject>(informer: Informer<T>, options: WatchOptions<T> = {}): this {
    if (this.#started) throw new Error(`controller ${this.name}: watch() after start()`);
    const map = options.map ?? ((object: T) => [objectKeyOf(object)]);
    const predicate = options.updatePredicate;
    this.#informers.push(informer as unknown as Informer<KubeObject>);
    this.#subscriptions.push((enqueue) => {
      const mapped = (object: T, priority: Priority): void => {
        for (const key of map(object)) enqueue(key, priority);
      };
      return informer.addHandlers({
        add: (object, meta) => {
          mapped(object, meta.initialList ? 'low' : 'normal');
        },
        update: (previous, current) => {
          if (predicate !== undefined && !predicate(previous, current)) return;
          // The old state matters too: an object that stops pointing at a key must wake that key.
          mapped(previous, 'normal');
          mapped(current, 'normal');
        },
        delete: (object) => {
          mapped(object, 'normal');
        },
        resync: (object) => {
          mapped(object, 'low');
        },
      });
    });
    return this;
  }

  /** Queues a key directly (for triggers that are not informer events). */
  enqueue(key: ObjectKey, priority: Priority = 'normal'): void {
    this.queue.add(keyOf(key), { priority });
  }

  /**
   * Runs until `signal` aborts, then stops taking keys, lets in-flight reconciles finish (their
   * signal is aborted too) for up to the graceful-shutdown period, and resolves. Rejects with
   * `CacheSyncTimeoutError` when the informers do not sync in time, unless told to keep waiting
   * (`onCacheSyncTimeout`). Does not start informers:
   * they are shared, and whoever owns them runs them.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`controller ${this.name} was already started`);
    this.#started = true;
    const unsubscribe = this.#subscriptions.map((subscribe) =>
      subscribe((key, priority) => {
        this.queue.add(keyOf(key), { priority });
      }),
    );
    const untrack = this.#metrics?.trackQueue(this.queue);
    this.#metrics?.maxConcurrentReconciles.set({ controller: this.name }, this.#concurrency);
    try {
      await this.#waitForCaches(signal);
      if (signal.aborted) return;
      this.#logger.info({ controller: this.name, workers: this.#concurrency }, 'starting workers');
      const workers = Array.from({ length: this.#concurrency }, () => this.#work(signal));
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else
          signal.addEventListener(
            'abort',
            () => {
              resolve();
            },
            { once: true },
          );
      });
      this.queue.shutDown();
      const grace = new AbortController();
      const drained = await Promise.race([
        Promise.all(workers).then(() => true),
        sleep(this.#clock, this.#gracefulShutdownMs, grace.signal).then(() => false),
      ]);
      grace.abort();
      if (!drained) {
        this.#logger.warn(
          { controller: this.name, gracefulShutdownMs: this.#gracefulShutdownMs },
          'reconciles still running after the graceful shutdown period',
        );
      }
    } finally {
      this.queue.shutDown();
      for (const stop of unsubscribe) stop();
      untrack?.();
    }
  }

  async #waitForCaches(signal: AbortSignal): Promise<void> {
    if (this.#informers.length === 0) return;
    const deadline = timeoutSignal(this.#clock, this.#cacheSyncTimeoutMs, signal);
    try {
      const synced = await Promise.all(this.#informers.map((informer) => informer.waitForSync(deadline.signal)));
      if (synced.every(Boolean) || signal.aborted) return;
      const pending = this.#informers.filter((informer) => !informer.hasSynced()).map((informer) => informer.resource);
      const error = new CacheSyncTimeoutError(this.name, pending, this.#cacheSyncTimeoutMs);
      if (this.#onCacheSyncTimeout === 'fail') throw error;
      this.#logger.error({ err: error, controller: this.name }, 'caches not synced in time; still waiting for them');
    } finally {
      deadline.cancel();
    }
    // keepWaiting: keys queued meanwhile are kept (the queue is not shut down), so nothing that
    // happened while the caches were syncing is lost.
    const late = await Promise.all(this.#informers.map((informer) => informer.waitForSync(signal)));
    if (late.every(Boolean)) this.#logger.info({ controller: this.name }, 'caches synced late; starting workers');
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      try {
        await this.#reconcileOne(key, signal);
      } finally {
        this.queue.done(key);
      }
    }
  }

  async #reconcileOne(key: string, stop: AbortSignal): Promise<void> {
    const controller = this.name;
    const started = this.#clock.now();
    const limit = this.#reconcileTimeoutMs > 0 ? timeoutSignal(this.#clock, this.#reconcileTimeoutMs, stop) : undefined;
    this.#metrics?.activeWorkers.inc({ controller });
    let result: string;
    try {
      const outcome = await this.#reconciler.reconcile(parseKey(key), limit?.signal ?? stop);
      const requeueAfterMs = outcome?.requeueAfterMs ?? 0;
      this.queue.forget(key);
      if (requeueAfterMs > 0) {
        this.queue.addAfter(key, requeueAfterMs);
        result = 'requeue_after';
      } else {
        result = 'success';
      }
    } catch (error) {
      result = 'error';
      this.#metrics?.reconcileErrors.inc({ controller });
      const fields = { controller, key, error: describeError(error) };
      if (stop.aborted) {
        this.#logger.info(fields, 'reconcile interrupted by shutdown');
      } else if (error instanceof TerminalError) {
        this.queue.forget(key);
        this.#metrics?.terminalReconcileErrors.inc({ controller });
        this.#logger.error(fields, 'reconcile failed terminally; not retrying');
      } else {
        if (!(error instanceof Error)) this.#metrics?.reconcilePanics.inc({ controller });
        this.queue.addRateLimited(key);
        this.#logger.error(
          { ...fields, retries: this.queue.numRequeues(key) },
          'reconcile failed; retrying with backoff',
        );
      }
    } finally {
      limit?.cancel();
      this.#metrics?.activeWorkers.dec({ controller });
    }
    this.#metrics?.reconcileTotal.inc({ controller, result });
    this.#metrics?.reconcileTime.observe({ controller }, (this.#clock.now() - started) / 1000);
  }
}
