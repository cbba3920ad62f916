// The controller work queue. A key is in at most one of three places: queued (dirty, waiting for a
// worker), processing (held by exactly one worker), or both (dirty again while being processed:
// it goes back in the queue when that worker calls `done`). That is what makes "never two workers
// on one key" hold without locks. Keys from the initial list or a resync wait behind live events.
import { systemClock, type Clock, type TimerHandle } from './clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

export type Priority = 'normal' | 'low';

export interface AddOptions {
  /** `low` for keys from an initial list or a resync, so fresh changes are not starved. */
  readonly priority?: Priority;
}

/** Hooks for queue metrics; every method is optional so tests can pass `{}`. */
export interface WorkQueueMetricsSink {
  added?(): void;
  depth?(depth: number): void;
  /** Seconds a key waited between becoming dirty and a worker taking it. */
  queued?(seconds: number): void;
  /** Seconds a worker held a key. */
  worked?(seconds: number): void;
  retried?(): void;
}

export interface WorkQueueOptions<K> {
  readonly name: string;
  readonly clock?: Clock;
  readonly rateLimiter?: RateLimiter<K>;
  readonly metrics?: WorkQueueMetricsSink;
}

interface DelayedEntry<K> {
  readonly key: K;
  readonly readyAt: number;
  /** Ties on readyAt come out in the order they were added. */
  readonly seq: number;
  readonly priority: Priority;
}

export class WorkQueue<K extends string> {
  readonly name: string;
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter<K>;
  readonly #metrics: WorkQueueMetricsSink;
  /** Keys waiting for a worker, by priority; a Set keeps insertion order and O(1) removal. */
  readonly #normal = new Set<K>();
  readonly #low = new Set<K>();
  /** Keys that need processing, with their priority and when they became dirty. */
  readonly #dirty = new Map<K, { priority: Priority; since: number }>();
  /** Keys held by a worker, with when it took them. */
  readonly #processing = new Map<K, number>();
  readonly #waiters: ((key: K | undefined) => void)[] = [];
  /** addAfter: a min-heap by readyAt with lazy deletion against `#delayedAt`. */
  readonly #delayed: DelayedEntry<K>[] = [];
  readonly #delayedAt = new Map<K, number>();
  #delayedSeq = 0;
  #delayTimer: { handle: TimerHandle; at: number } | undefined;
  #shuttingDown = false;
  #drainWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions<K>) {
    this.name = options.name;
    this.#clock = options.clock ?? systemClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.#clock);
    this.#metrics = options.metrics ?? {};
  }

  /** Marks `key` as needing work. A no-op when it is already queued (except raising its priority). */
  add(key: K, options: AddOptions = {}): void {
    if (this.#shuttingDown) return;
    const priority = options.priority ?? 'normal';
    const dirty = this.#dirty.get(key);
    if (dirty !== undefined) {
      if (priority === 'normal' && dirty.priority === 'low') {
        dirty.priority = 'normal';
        if (this.#low.delete(key)) this.#normal.add(key);
      }
      return;
    }
    this.#metrics.added?.();
    this.#dirty.set(key, { priority, since: this.#clock.now() });
    if (this.#processing.has(key)) return;
    this.#enqueue(key, priority);
  }

  /** Adds `key` after `delayMs`. A key already waiting keeps the earlier of the two times. */
  addAfter(key: K, delayMs: number, options: AddOptions = {}): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key, options);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const existing = this.#delayedAt.get(key);
    if (existing !== undefined && existing <= readyAt) return;
    this.#delayedAt.set(key, readyAt);
    heapPush(this.#delayed, { key, readyAt, seq: this.#delayedSeq++, priority: options.priority ?? 'normal' });
    this.#armDelayTimer();
  }

  /** Adds `key` after the rate limiter's delay for it (its failure count grows by one). */
  addRateLimited(key: K): void {
    if (this.#shuttingDown) return;
    this.#metrics.retried?.();
    this.addAfter(key, this.#rateLimiter.when(key));
  }

  /** Resets `key`'s backoff; call after success or a terminal failure. */
  forget(key: K): void {
    this.#rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#rateLimiter.numRequeues(key);
  }

  /** Takes the next key without waiting; undefined when none is ready or the queue is shut down. */
  tryGet(): K | undefined {
    if (this.#shuttingDown) return undefined;
    const key = first(this.#normal) ?? first(this.#low);
    if (key === undefined) return undefined;
    this.#normal.delete(key);
    this.#low.delete(key);
    const dirty = this.#dirty.get(key);
    this.#dirty.delete(key);
    const now = this.#clock.now();
    if (dirty !== undefined) this.#metrics.queued?.((now - dirty.since) / 1000);
    this.#processing.set(key, now);
    this.#reportDepth();
    return key;
  }

  /**
   * Waits for a key. The caller owns it until `done(key)`. Resolves undefined once the queue shuts
   * down: queued keys are then dropped (the next leader or start will list them again).
   */
  get(): Promise<K | undefined> {
    const key = this.tryGet();
    if (key !== undefined || this.#shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Releases `key`; if it was added again meanwhile, it goes back in the queue now. */
  done(key: K): void {
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    this.#metrics.worked?.((this.#clock.now() - startedAt) / 1000);
    const dirty = this.#dirty.get(key);
    if (dirty !== undefined && !this.#shuttingDown) this.#enqueue(key, dirty.priority);
    if (this.#shuttingDown && this.#processing.size === 0) this.#notifyDrained();
  }

  /** Stops handing out keys: waiting and future `get()` calls resolve undefined; adds are ignored. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#delayTimer?.handle.cancel();
    this.#delayTimer = undefined;
    this.#delayed.length = 0;
    this.#delayedAt.clear();
    this.#normal.clear();
    this.#low.clear();
    this.#dirty.clear();
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    this.#reportDepth();
    if (this.#processing.size === 0) this.#notifyDrained();
  }

  /** Resolves once the queue is shut down and no worker holds a key. */
  drained(): Promise<void> {
    if (this.#shuttingDown && this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Keys waiting for a worker (not counting ones being processed or delayed). */
  len(): number {
    return this.#normal.size + this.#low.size;
  }

  /** Keys waiting on `addAfter`. */
  delayedLen(): number {
    return this.#delayedAt.size;
  }

  isProcessing(key: K): boolean {
    return this.#processing.has(key);
  }

  /** Total seconds in-flight work has been running, and the longest single one (client-go metrics). */
  inFlight(): { unfinishedSeconds: number; longestSeconds: number } {
    const now = this.#clock.now();
    let unfinished = 0;
    let longest = 0;
    for (const startedAt of this.#processing.values()) {
      const seconds = (now - startedAt) / 1000;
      unfinished += seconds;
      longest = Math.max(longest, seconds);
    }
    return { unfinishedSeconds: unfinished, longestSeconds: longest };
  }

  #enqueue(key: K, priority: Priority): void {
    (priority === 'low' ? this.#low : this.#normal).add(key);
    this.#reportDepth();
    while (this.#waiters.length > 0) {
      const next = this.tryGet();
      if (next === undefined) break;
      this.#waiters.shift()?.(next);
    }
  }

  #reportDepth(): void {
    this.#metrics.depth?.(this.len());
  }

  #notifyDrained(): void {
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
  }

  #armDelayTimer(): void {
    const top = this.#peekDelayed();
    if (top === undefined) {
      this.#delayTimer?.handle.cancel();
      this.#delayTimer = undefined;
      return;
    }
    if (this.#delayTimer !== undefined && this.#delayTimer.at <= top.readyAt) return;
    this.#delayTimer?.handle.cancel();
    const handle = this.#clock.setTimer(() => {
      this.#delayTimer = undefined;
      this.#releaseDue();
    }, top.readyAt - this.#clock.now());
    this.#delayTimer = { handle, at: top.readyAt };
  }

  /** The earliest live delayed entry, dropping stale heap entries on the way. */
  #peekDelayed(): DelayedEntry<K> | undefined {
    for (let top = this.#delayed[0]; top !== undefined; top = this.#delayed[0]) {
      if (this.#delayedAt.get(top.key) === top.readyAt) return top;
      heapPop(this.#delayed);
    }
    return undefined;
  }

  #releaseDue(): void {
    const now = this.#clock.now();
    for (let top = this.#peekDelayed(); top !== undefined && top.readyAt <= now; top = this.#peekDelayed()) {
      heapPop(this.#delayed);
      this.#delayedAt.delete(top.key);
      this.add(top.key, { priority: top.priority });
    }
    this.#armDelayTimer();
  }
}

/** `namespace/name`, or `/name` for cluster-scoped objects, so the split is always unambiguous. */
export function keyOf(key: { readonly namespace: string; readonly name: string }): string {
  return `${key.namespace}/${key.name}`;
}

export function parseKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function first<K>(set: Set<K>): K | undefined {
  for (const key of set) return key;
  return undefined;
}

function before<K>(a: DelayedEntry<K>, b: DelayedEntry<K>): boolean {
  return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
}

function heapPush<K>(heap: DelayedEntry<K>[], entry: DelayedEntry<K>): void {
  heap.push(entry);
  let index = heap.length - 1;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    const up = heap[parent];
    if (up === undefined || !before(entry, up)) break;
    heap[index] = up;
    index = parent;
  }
  heap[index] = entry;
}

function heapPop<K>(heap: DelayedEntry<K>[]): DelayedEntry<K> | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (top === undefined || last === undefined || heap.length === 0) return top;
  let index = 0;
  for (;;) {
    const left = 2 * index + 1;
    let smallest: DelayedEntry<K> = last;
    let smallestIndex = index;
    for (const child of [left, left + 1]) {
      const entry = heap[child];
      if (entry !== undefined && before(entry, smallest)) {
        smallest = entry;
        smallestIndex = child;
      }
    }
    if (smallestIndex === index) break;
    heap[index] = smallest;
    index = smallestIndex;
  }
  heap[index] = last;
  return top;
}
