// A shared informer: LIST (paged), then WATCH from the list's resourceVersion, keeping a Store in
// step and telling handlers what changed. The loop never gives up: 410 Gone relists (and the diff
// against the cache yields the deletes that happened while disconnected), every other failure or
// early end reconnects from the last resourceVersion with backoff, and an idle watchdog replaces
// connections that went silent without closing.
// Every object is decoded once, by the kind's decoder (watched-kind.ts), before it enters the
// cache: readers get typed objects. A malformed object never enters the cache. It is reported once
// per resourceVersion (a warning naming each field, a counter) and kept aside in `undecodable()`;
// a good version cached earlier leaves the cache, with a `delete` to handlers, since nudger can no
// longer read it. It never stops the informer or the other objects, unlike a decode failure in
// client-go or kube-rs, which fails the whole list.
import { errorFromStatus, isGone, isTooManyRequests, KubeApiError } from '../adapters/kubernetes/errors.ts';
import type { KubeObject, ListWatchSource, WatchEvent } from '../adapters/kubernetes/types.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import { sleep, systemClock, type Clock } from './clock.ts';
import type { Registry } from 'prom-client';
import { describeError, silentLogger, type RuntimeLogger } from './runtime-log.ts';
import { runtimeMetrics, type RuntimeMetrics } from './runtime-metrics.ts';
import { cacheKeyOf, Store, type IndexFunc } from './store.ts';
import type { DecodeProblem, WatchedKind } from './watched-kind.ts';

export type { KubeObject, ListWatchSource, ResourceRef, WatchEvent } from '../adapters/kubernetes/types.ts';

export interface EventMeta {
  /** True for adds from the informer's first LIST: consumers may treat them as low priority. */
  readonly initialList: boolean;
}

export interface InformerHandlers<T extends KubeObject> {
  add?(object: T, meta: EventMeta): void;
  update?(previous: T, current: T, meta: EventMeta): void;
  /** `object` is the last state the informer knew (from the watch, or the cache on a relist). */
  delete?(object: T, meta: EventMeta): void;
  /** Periodic re-delivery of every cached object, for level-triggered reconcilers. */
  resync?(object: T): void;
}

export interface InformerHealth {
  /** A watch stream is established right now. */
  readonly watching: boolean;
  /** When (epoch ms) the watch last went down; absent while watching. */
  readonly downSinceMs?: number;
  /** When (epoch ms) the last watch event or bookmark arrived. */
  readonly lastEventAt?: number;
  readonly synced: boolean;
  readonly restarts: number;
  readonly relists: number;
}

/** An object the informer saw but could not decode, so did not cache. */
export interface UndecodableObject {
  readonly resourceVersion: string;
  readonly problems: readonly DecodeProblem[];
}

export interface InformerOptions<T extends KubeObject> {
  readonly source: ListWatchSource<KubeObject>;
  /** How raw objects become `T`; an object it refuses is kept out of the cache. */
  readonly kind: WatchedKind<T>;
  /** Label for logs and metrics; defaults to the source's description. */
  readonly resource?: string;
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
  readonly transform?: (object: T) => T;
  /** LIST page size. */
  readonly pageSize?: number;
  /** The watch's `timeoutSeconds` is drawn uniformly from this range, so replicas do not reconnect in step. */
  readonly watchTimeoutSeconds?: { readonly min: number; readonly max: number };
  /** No event or bookmark for this long: the connection is presumed dead and replaced. */
  readonly idleTimeoutMs?: number;
  readonly backoff?: BackoffOptions;
  /** Re-deliver every cached object this often (with 10 % jitter); 0 disables. */
  readonly resyncPeriodMs?: number;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly logger?: RuntimeLogger;
  readonly registry?: Registry;
}

const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_WATCH_TIMEOUT = { min: 300, max: 600 };
/** Longer than the longest server-side watch timeout, so a healthy idle watch always ends first. */
const DEFAULT_IDLE_TIMEOUT_MS = 11 * 60_000;
const DEFAULT_RESYNC_PERIOD_MS = 10 * 60 * 60_000;
/** A watch that ends before this fraction of its timeoutSeconds ended early (a failure). */
const EARLY_END_FRACTION = 0.9;
/** A log line names this many problems of an undecodable object, then counts the rest. */
const LOGGED_PROBLEMS = 10;

type RestartReason = 'error' | 'closed' | 'idle' | 'timeout' | 'gone' | 'throttled';

class IdleWatchError extends Error {
  override readonly name = 'IdleWatchError';
}

export class Informer<T extends KubeObject> {
  readonly store: Store<T>;
  readonly resource: string;
  readonly #source: ListWatchSource<KubeObject>;
  readonly #kind: WatchedKind<T>;
  /** By cache key: objects seen but not decodable, with the resourceVersion last reported. */
  readonly #undecodable = new Map<string, UndecodableObject>();
  readonly #handlers = new Set<InformerHandlers<T>>();
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: RuntimeLogger;
  readonly #metrics: RuntimeMetrics | undefined;
  readonly #backoff: Backoff;
  readonly #pageSize: number;
  readonly #watchTimeout: { readonly min: number; readonly max: number };
  readonly #idleTimeoutMs: number;
  readonly #resyncPeriodMs: number;
  #resourceVersion = '';
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #watching = false;
  #downSinceMs: number;
  #lastEventAt: number | undefined;
  #restarts = 0;
  #relists = 0;
  #running = false;

  constructor(options: InformerOptions<T>) {
    this.#source = options.source;
    this.#kind = options.kind;
    this.resource = options.resource ?? options.source.description;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? silentLogger;
    this.#metrics = options.registry === undefined ? undefined : runtimeMetrics(options.registry);
    this.#backoff = new Backoff(this.#clock, options.backoff, this.#random);
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.#watchTimeout = options.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#resyncPeriodMs = options.resyncPeriodMs ?? DEFAULT_RESYNC_PERIOD_MS;
    this.#downSinceMs = this.#clock.now();
    this.store = new Store<T>({
      ...(options.indexers === undefined ? {} : { indexers: options.indexers }),
      ...(options.transform === undefined ? {} : { transform: options.transform }),
    });
  }

  /**
   * Registers handlers. When the cache is already filled, the handler first gets an `add` for
   * every cached object, so a late subscriber starts from the same state as an early one.
   * Returns a function that unregisters them.
   */
  addHandlers(handlers: InformerHandlers<T>): () => void {
    this.#handlers.add(handlers);
    if (this.#synced && handlers.add !== undefined) {
      for (const object of this.store.list())
        this.#call(handlers, 'add', () => handlers.add?.(object, { initialList: true }));
    }
    return () => this.#handlers.delete(handlers);
  }

  /** The objects left out of the cache because they do not decode, by `namespace/name`. */
  undecodable(): ReadonlyMap<string, UndecodableObject> {
    return this.#undecodable;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves true once the first LIST is in the cache, or false if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    if (signal?.aborted === true) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        resolve(false);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  health(): InformerHealth {
    return {
      watching: this.#watching,
      ...(this.#watching ? {} : { downSinceMs: this.#downSinceMs }),
      ...(this.#lastEventAt === undefined ? {} : { lastEventAt: this.#lastEventAt }),
      synced: this.#synced,
      restarts: this.#restarts,
      relists: this.#relists,
    };
  }

  /** The resourceVersion the next watch would resume from. */
  lastResourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Lists and watches until `signal` aborts. Never rejects because of the API server. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`informer for ${this.resource} is already running`);
    this.#running = true;
    const stopResync = this.#startResync(signal);
    // A function, because TypeScript would otherwise narrow `signal.aborted` to false for good.
    const stopped = (): boolean => signal.aborted;
    let needList = true;
    try {
      while (!stopped()) {
        try {
          if (needList) {
            await this.#list(signal);
            needList = false;
          }
          const reason = await this.#watch(signal);
          if (stopped()) break;
          this.#countRestart(reason);
          if (reason === 'closed') await sleep(this.#clock, this.#backoff.next(), signal);
        } catch (error) {
          if (stopped()) break;
          await this.#recover(error, signal, (relist) => {
            if (relist) needList = true;
          });
        }
      }
    } finally {
      stopResync();
      this.#setWatching(false);
      this.#running = false;
    }
  }

  async #recover(error: unknown, signal: AbortSignal, relist: (yes: boolean) => void): Promise<void> {
    const fields = { resource: this.resource, resourceVersion: this.#resourceVersion, error: describeError(error) };
    if (isGone(error)) {
      // Our resourceVersion was compacted away: only a full LIST can tell what we missed.
      this.#logger.info(fields, 'watch resourceVersion expired; listing again');
      relist(true);
      this.#countRestart('gone');
      return;
    }
    if (error instanceof IdleWatchError) {
      this.#logger.warn(fields, 'watch went silent; reconnecting');
      this.#countRestart('idle');
      return;
    }
    const throttled = isTooManyRequests(error);
    this.#countRestart(throttled ? 'throttled' : 'error');
    const retryAfterMs =
      error instanceof KubeApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
    const delayMs = Math.max(this.#backoff.next(), retryAfterMs);
    this.#logger.warn({ ...fields, retryInMs: delayMs }, 'list/watch failed; retrying');
    await sleep(this.#clock, delayMs, signal);
  }

  #countRestart(reason: RestartReason): void {
    this.#restarts += 1;
    this.#metrics?.watchRestarts.inc({ resource: this.resource, reason });
  }

  async #list(signal: AbortSignal): Promise<void> {
    const items: KubeObject[] = [];
    let resourceVersion: string;
    let next: string | undefined;
    do {
      const page = await this.#source.list({
        limit: this.#pageSize,
        signal,
        ...(next === undefined ? {} : { continue: next }),
      });
      items.push(...page.items);
      resourceVersion = page.resourceVersion;
      next = page.continue;
    } while (next !== undefined && !signal.aborted);
    if (signal.aborted) return;

    const initialList = !this.#synced;
    const meta: EventMeta = { initialList };
    const seen = new Set<string>();
    for (const item of items) {
      seen.add(cacheKeyOf(item));
      const object = this.#decode(item, meta);
      if (object === undefined) continue;
      const { previous, current } = this.store.upsert(object);
      if (previous === undefined) this.#emit('add', (h) => h.add?.(current, meta));
      else if (previous.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
        this.#emit('update', (h) => h.update?.(previous, current, meta));
      }
    }
    for (const key of this.store.keys()) {
      if (seen.has(key)) continue;
      const removed = this.store.remove(key);
      if (removed !== undefined) this.#emit('delete', (h) => h.delete?.(removed, meta));
    }
    // Deleted while the watch was down: nothing left to fix.
    for (const key of [...this.#undecodable.keys()]) if (!seen.has(key)) this.#forget(key);
    this.#resourceVersion = resourceVersion;
    if (!initialList) {
      this.#relists += 1;
      this.#metrics?.relists.inc({ resource: this.resource, reason: 'gone' });
    }
    this.#logger.debug({ resource: this.resource, objects: items.length, resourceVersion }, 'listed');
    if (initialList) {
      this.#synced = true;
      for (const resolve of this.#syncWaiters.splice(0)) resolve();
    }
  }

  /** One watch connection. Returns why it ended normally; throws on failures. */
  async #watch(signal: AbortSignal): Promise<RestartReason> {
    const { min, max } = this.#watchTimeout;
    const timeoutSeconds = Math.floor(min + this.#random() * (max - min));
    const connection = new AbortController();
    const onAbort = (): void => {
      connection.abort();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // A handler may have stopped us during the LIST, before the listener existed.
    if (signal.aborted) connection.abort();
    const state = { idle: false };
    let watchdog = this.#clock.setTimer(() => undefined, 0);
    const armWatchdog = (): void => {
      watchdog.cancel();
      watchdog = this.#clock.setTimer(() => {
        state.idle = true;
        connection.abort();
      }, this.#idleTimeoutMs);
    };
    const startedAt = this.#clock.now();
    try {
      armWatchdog();
      const events = await this.#source.watch({
        resourceVersion: this.#resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        signal: connection.signal,
      });
      this.#setWatching(true);
      for await (const event of events) {
        armWatchdog();
        this.#apply(event);
        if (connection.signal.aborted) break;
      }
    } catch (error) {
      if (state.idle) throw new IdleWatchError(`no watch event for ${String(this.#idleTimeoutMs)} ms`);
      if (signal.aborted) return 'closed';
      throw error;
    } finally {
      watchdog.cancel();
      signal.removeEventListener('abort', onAbort);
      this.#setWatching(false);
    }
    if (state.idle) throw new IdleWatchError(`no watch event for ${String(this.#idleTimeoutMs)} ms`);
    const lastedMs = this.#clock.now() - startedAt;
    return lastedMs >= timeoutSeconds * 1000 * EARLY_END_FRACTION ? 'timeout' : 'closed';
  }

  #apply(event: WatchEvent<KubeObject>): void {
    this.#lastEventAt = this.#clock.now();
    this.#metrics?.lastEvent.set({ resource: this.resource }, this.#lastEventAt / 1000);
    if (event.type === 'ERROR') throw errorFromStatus({ verb: 'watch', resource: this.resource }, event.status);
    const resourceVersion = event.object.metadata?.resourceVersion;
    const meta: EventMeta = { initialList: false };
    switch (event.type) {
      case 'BOOKMARK':
        break;
      case 'ADDED':
      case 'MODIFIED': {
        const object = this.#decode(event.object, meta);
        if (object === undefined) break;
        const { previous, current } = this.store.upsert(object);
        if (previous === undefined) this.#emit('add', (h) => h.add?.(current, meta));
        else this.#emit('update', (h) => h.update?.(previous, current, meta));
        break;
      }
      case 'DELETED': {
        const key = cacheKeyOf(event.object);
        this.#forget(key);
        const cached = this.store.remove(key);
        // The watch's copy is the final state, newer than the cache's; the cache's last good one
        // when the final state does not decode. An object never cached and never decodable was
        // never seen by handlers, so they hear nothing of its end either.
        const final = this.#kind.decode(event.object);
        const last = final.ok ? this.store.prepare(final.object) : cached;
        if (last !== undefined) this.#emit('delete', (h) => h.delete?.(last, meta));
        break;
      }
    }
    if (resourceVersion !== undefined && resourceVersion !== '') this.#resourceVersion = resourceVersion;
  }

  /**
   * The typed object, or undefined when `raw` does not decode: then it is recorded (and reported
   * once per resourceVersion), and a good version cached earlier leaves the cache with a `delete`.
   */
  #decode(raw: KubeObject, meta: EventMeta): T | undefined {
    const key = cacheKeyOf(raw);
    const decoded = this.#kind.decode(raw);
    if (decoded.ok) {
      this.#forget(key);
      return decoded.object;
    }
    this.#refuse(key, raw, decoded.problems);
    const removed = this.store.remove(key);
    if (removed !== undefined) this.#emit('delete', (h) => h.delete?.(removed, meta));
    return undefined;
  }

  #refuse(key: string, raw: KubeObject, problems: readonly DecodeProblem[]): void {
    const resourceVersion = raw.metadata?.resourceVersion ?? '';
    const reported = this.#undecodable.get(key)?.resourceVersion === resourceVersion;
    this.#undecodable.set(key, { resourceVersion, problems });
    this.#metrics?.undecodableObjects.set({ resource: this.resource }, this.#undecodable.size);
    // A resync or relist brings the same version again: it was said already.
    if (reported) return;
    this.#metrics?.decodeFailures.inc({ resource: this.resource });
    const shown = problems.slice(0, LOGGED_PROBLEMS).map((problem) => `${problem.path}: ${problem.message}`);
    const more = problems.length - shown.length;
    this.#logger.warn(
      {
        resource: this.resource,
        namespace: raw.metadata?.namespace ?? '',
        name: raw.metadata?.name ?? '',
        resourceVersion,
        problems: more > 0 ? [...shown, `and ${String(more)} more`] : shown,
      },
      'object does not match its schema; nudger ignores it until it is fixed',
    );
  }

  #forget(key: string): void {
    if (this.#undecodable.delete(key))
      this.#metrics?.undecodableObjects.set({ resource: this.resource }, this.#undecodable.size);
  }

  #setWatching(watching: boolean): void {
    if (this.#watching === watching) return;
    this.#watching = watching;
    if (!watching) this.#downSinceMs = this.#clock.now();
    this.#metrics?.watching.set({ resource: this.resource }, watching ? 1 : 0);
  }

  #startResync(signal: AbortSignal): () => void {
    if (this.#resyncPeriodMs <= 0) return () => undefined;
    let timer = this.#clock.setTimer(() => undefined, 0);
    const schedule = (): void => {
      const delay = this.#resyncPeriodMs * (1 + 0.1 * this.#random());
      timer = this.#clock.setTimer(() => {
        if (signal.aborted) return;
        if (this.#synced) this.resyncNow();
        schedule();
      }, delay);
    };
    schedule();
    return () => {
      timer.cancel();
    };
  }

  /** Delivers every cached object to `resync` handlers now. */
  resyncNow(): void {
    for (const object of this.store.list()) this.#emit('resync', (h) => h.resync?.(object));
  }

  #emit(kind: string, call: (handlers: InformerHandlers<T>) => void): void {
    for (const handlers of this.#handlers)
      this.#call(handlers, kind, () => {
        call(handlers);
      });
  }

  #call(_handlers: InformerHandlers<T>, kind: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      // A throwing handler must not stop the informer or starve the other handlers.
      this.#logger.error(
        { resource: this.resource, event: kind, error: describeError(error) },
        'informer handler failed',
      );
    }
  }
}
