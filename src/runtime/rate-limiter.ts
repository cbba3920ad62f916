// How long a failed key waits before it is retried: the larger of a per-key exponential backoff
// (so one broken object backs off alone) and a shared token bucket (so many failing objects cannot
// flood the API server). Defaults follow client-go's controller rate limiter.
import type { Clock } from './clock.ts';

export interface RateLimiter<K> {
  /** Records a failure of `key` and returns how long to wait before retrying it, in ms. */
  when(key: K): number;
  /** Clears `key`'s failure history (after a success or a terminal failure). */
  forget(key: K): void;
  numRequeues(key: K): number;
}

export const DEFAULT_BACKOFF_BASE_MS = 5;
export const DEFAULT_BACKOFF_MAX_MS = 1_000_000;
export const DEFAULT_BUCKET_QPS = 10;
export const DEFAULT_BUCKET_BURST = 100;

/** base * 2^failures, capped at max. */
export class ItemExponentialRateLimiter<K> implements RateLimiter<K> {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<K, number>();

  constructor(baseMs = DEFAULT_BACKOFF_BASE_MS, maxMs = DEFAULT_BACKOFF_MAX_MS) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(key: K): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // 2 ** 1100 is Infinity, which Math.min handles; no overflow to worry about.
    return Math.min(this.#maxMs, this.#baseMs * 2 ** failures);
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * A token bucket that reserves rather than refuses: each call takes a token, possibly one that
 * only exists in the future, and returns how long until then.
 */
export class TokenBucketRateLimiter<K> implements RateLimiter<K> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #updatedAt: number;

  constructor(clock: Clock, qps = DEFAULT_BUCKET_QPS, burst = DEFAULT_BUCKET_BURST) {
    this.#clock = clock;
    this.#qps = qps;
    this.#burst = burst;
    this.#tokens = burst;
    this.#updatedAt = clock.now();
  }

  when(_key: K): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#updatedAt) / 1000) * this.#qps);
    this.#updatedAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.#qps) * 1000);
  }

  forget(_key: K): void {
    // The bucket is shared: a key's success returns nothing to it.
  }

  numRequeues(_key: K): number {
    return 0;
  }
}

export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  readonly #limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.#limiters = limiters;
  }

  when(key: K): number {
    // Every limiter must record the failure, so no short-circuiting.
    return this.#limiters.reduce((longest, limiter) => Math.max(longest, limiter.when(key)), 0);
  }

  forget(key: K): void {
    for (const limiter of this.#limiters) limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#limiters.reduce((most, limiter) => Math.max(most, limiter.numRequeues(key)), 0);
  }
}

/** 5 ms → 1000 s per key, combined with 10 qps / burst 100 overall. */
export function defaultControllerRateLimiter<K>(clock: Clock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(new ItemExponentialRateLimiter<K>(), new TokenBucketRateLimiter<K>(clock));
}

/**
 * A token bucket that refuses instead of reserving: `tryTake` takes a token if one is there now.
 * For work that may be skipped under load (a live confirmation), where a debt would only grow.
 */
export class TokenBucket {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #updatedAt: number;

  constructor(clock: Clock, perSecond: number, burst: number) {
    if (!(perSecond > 0) || !(burst >= 1)) {
      throw new RangeError(
        `token bucket needs a positive rate and a burst of at least 1 (got ${String(perSecond)}, ${String(burst)})`,
      );
    }
    this.#clock = clock;
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#tokens = burst;
    this.#updatedAt = clock.now();
  }

  tryTake(): boolean {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (Math.max(0, now - this.#updatedAt) / 1000) * this.#perSecond);
    this.#updatedAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
