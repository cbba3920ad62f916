// Which Components exist, for admission. The informer cache answers; a name the cache lacks is
// confirmed by one live GET before it can cause a denial, because the cache may trail a Component
// created a moment ago. Never a LIST: a flood of forged reviews naming many unknown Components
// once made the manager LIST a namespace per request (issue 8, part 2 item 7), so live checks are
// single-flight per (namespace, name) and share one token bucket. Past it, a name the cache lacks
// is reported unconfirmed and the NudgeConfig is denied with a retry message: a NudgeConfig whose
// Component was just created is refused once, transiently, rather than any NudgeConfig naming
// Components that do not exist being let in whenever the webhook is busy (docs/decisions.md D2: the
// NudgeConfig webhook fails closed).
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isNotFound } from '../adapters/kubernetes/errors.ts';
import { COMPONENTS } from '../adapters/kubernetes/resources.ts';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { TokenBucket } from '../runtime/rate-limiter.ts';
import type { Store } from '../runtime/store.ts';
import type { ClusterComponent } from '../schema/component.ts';
import { ComponentCheckUnavailableError, type ComponentLookup } from './nudgeconfig.ts';

/** Live GETs per second across all admission requests, and the burst allowed above it. */
export const DEFAULT_LIVE_CHECKS_PER_SECOND = 5;
export const DEFAULT_LIVE_CHECK_BURST = 20;
/** Under the webhook handler's 9 s, so a slow API server ends in a denial, not a 504. */
const LIVE_CHECK_TIMEOUT_MS = 5_000;

export interface CachedComponentLookupOptions {
  readonly liveChecksPerSecond?: number;
  readonly liveCheckBurst?: number;
  readonly clock?: Clock;
}

export class CachedComponentLookup implements ComponentLookup {
  readonly #store: Store<ClusterComponent>;
  readonly #client: ObjectClient;
  readonly #bucket: TokenBucket;
  /** One live GET per (namespace, name) at a time; later askers share its answer. */
  readonly #inFlight = new Map<string, Promise<boolean>>();

  constructor(store: Store<ClusterComponent>, client: ObjectClient, options: CachedComponentLookupOptions = {}) {
    this.#store = store;
    this.#client = client;
    this.#bucket = new TokenBucket(
      options.clock ?? systemClock,
      options.liveChecksPerSecond ?? DEFAULT_LIVE_CHECKS_PER_SECOND,
      options.liveCheckBurst ?? DEFAULT_LIVE_CHECK_BURST,
    );
  }

  /**
   * The names among `names` with no Component in `namespace`. Throws
   * ComponentCheckUnavailableError when a name the cache lacks could not be checked live.
   */
  async missing(namespace: string, names: readonly string[]): Promise<ReadonlySet<string>> {
    const uncached = [...new Set(names)].filter((name) => this.#store.get(namespace, name) === undefined);
    if (uncached.length === 0) return new Set();
    const unchecked: string[] = [];
    const checks: Promise<{ name: string; exists: boolean }>[] = [];
    for (const name of uncached) {
      const check = this.#exists(namespace, name);
      if (check === undefined) unchecked.push(name);
      else checks.push(check.then((exists) => ({ name, exists })));
    }
    const answers = await Promise.all(checks);
    if (unchecked.length > 0) throw new ComponentCheckUnavailableError(namespace, unchecked);
    return new Set(answers.filter((answer) => !answer.exists).map((answer) => answer.name));
  }

  /** undefined when no live check may start now. */
  #exists(namespace: string, name: string): Promise<boolean> | undefined {
    const key = `${namespace}/${name}`;
    const joined = this.#inFlight.get(key);
    if (joined !== undefined) return joined;
    if (!this.#bucket.tryTake()) return undefined;
    // Not the first asker's signal: its client going away must not cancel the answer others share.
    const check = this.#client.get(COMPONENTS, namespace, name, AbortSignal.timeout(LIVE_CHECK_TIMEOUT_MS)).then(
      () => true,
      (error: unknown) => {
        if (isNotFound(error)) return false;
        throw error;
      },
    );
    this.#inFlight.set(key, check);
    const forget = (): void => {
      this.#inFlight.delete(key);
    };
    check.then(forget, forget);
    return check;
  }
}
