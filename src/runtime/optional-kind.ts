// A cache of a kind nudger can do without: another service's CRD that may not be installed, or that
// RBAC may not let nudger list (the namespaced deployment). Run unprobed, its informer would warn on
// every list/watch backoff forever, and a controller waiting for its sync would give up and never
// start, even once the CRD appears. So the kind is first asked for once (a list with limit 1, in
// the informer's scope and selector); a definite "no" (404, 403) is said in one log line and asked
// again every few minutes, silently; an API server that could not answer is asked again soon. Once
// the kind can be listed, the informer (asked for as run by its caller, so the shared set does not
// start it unprobed) keeps the store current. Used for release-service's ReleasePlanAdmissions (D6)
// and integration-service's Snapshots (D10); docs/decisions.md N22.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { KubeApiError } from '../adapters/kubernetes/errors.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { sleep, systemClock, type Clock } from './clock.ts';
import type { Informer } from './informer.ts';
import type { RuntimeLogger } from './runtime-log.ts';
import type { InformerRequest, InformerSource } from './shared-informers.ts';
import type { Store } from './store.ts';
import type { WatchedKind } from './watched-kind.ts';

const DEFAULT_PROBE_INTERVAL_MS = 5 * 60_000;
/** After a failure of the API server itself rather than a definite "no". */
export const TRANSIENT_RETRY_MS = 10_000;
/** How long `settled` waits for a first list before its caller goes on without the kind. */
const DEFAULT_SETTLE_TIMEOUT_MS = 30_000;

export interface OptionalKindCacheOptions<T extends KubeObject> {
  readonly kind: WatchedKind<T>;
  /** The informer's label selector, if any; the probe lists through the same one. */
  readonly request?: Omit<InformerRequest, 'runByCaller'>;
  /** Asked whether the kind can be listed. */
  readonly client: ObjectClient;
  /** Where the informer comes from; it watches the namespace the set watches. */
  readonly informers: InformerSource;
  readonly logger: RuntimeLogger;
  /** With `--namespace`, the namespace the set watches: the probe asks in the same scope. */
  readonly namespace?: string;
  /**
   * Logged once (warn) when the kind is found not to be listable, with the reason as a field: what
   * its absence costs, e.g. "ReleasePlanAdmissions cannot be listed; distribution repositories are
   * not rewritten (D6). Checking again every few minutes."
   */
  readonly unavailableMessage: string;
  /** Logged once (info) when the kind can be listed after having been told unavailable. */
  readonly availableMessage: string;
  /** How often to ask again while the kind cannot be listed; default 5 minutes. */
  readonly probeIntervalMs?: number;
  /** How long `settled` waits at most; default 30 s. */
  readonly settleTimeoutMs?: number;
  readonly clock?: Clock;
}

export class OptionalKindCache<T extends KubeObject> {
  readonly #options: OptionalKindCacheOptions<T>;
  readonly #informer: Informer<T>;
  readonly #clock: Clock;
  #unavailable = false;
  #listable = false;
  /** Resolved once the kind is found not to be listable: an answer `settled` need not wait past. */
  #toldUnavailable: (() => void) | undefined;
  readonly #unavailableAnswer: Promise<void>;
  #becameListable: (() => void) | undefined;
  readonly #listablePromise: Promise<void>;

  constructor(options: OptionalKindCacheOptions<T>) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#informer = options.informers.informer(options.kind, { ...options.request, runByCaller: true });
    this.#unavailableAnswer = new Promise((resolve) => {
      this.#toldUnavailable = resolve;
    });
    this.#listablePromise = new Promise((resolve) => {
      this.#becameListable = resolve;
    });
  }

  /** The informer, for a controller's watches; its store stays empty while the kind cannot be listed. */
  get informer(): Informer<T> {
    return this.#informer;
  }

  get store(): Store<T> {
    return this.#informer.store;
  }

  /** True while the kind is known not to be listable (CRD absent, forbidden). */
  get unavailable(): boolean {
    return this.#unavailable;
  }

  /**
   * Resolves once the store holds a first list, once the kind is known not to be listable, after
   * the settle timeout, or when `signal` aborts: whichever comes first. Never rejects.
   */
  async settled(signal: AbortSignal): Promise<void> {
    const timeout = sleep(this.#clock, this.#options.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS, signal);
    await Promise.race([this.#unavailableAnswer, this.#informer.waitForSync(signal), timeout]);
  }

  /**
   * Resolves true once the kind can be listed (the informer then starts), false if `signal` aborts
   * first: a controller that cannot do without the kind starts after it. Never rejects.
   */
  whenListable(signal: AbortSignal): Promise<boolean> {
    if (this.#listable) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void this.#listablePromise.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** Probes until the kind can be listed, then runs the informer until `signal` aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const interval = this.#options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
    let told = false;
    while (!signal.aborted) {
      const problem = await this.#probe(signal);
      if (problem === undefined) break;
      if (problem === 'transient') {
        await sleep(this.#clock, TRANSIENT_RETRY_MS, signal);
        continue;
      }
      this.#unavailable = true;
      this.#toldUnavailable?.();
      if (!told) {
        told = true;
        this.#options.logger.warn(
          { resource: this.#resourceName(), reason: problem },
          this.#options.unavailableMessage,
        );
      }
      await sleep(this.#clock, interval, signal);
    }
    if (signal.aborted) return;
    if (told) this.#options.logger.info({ resource: this.#resourceName() }, this.#options.availableMessage);
    this.#unavailable = false;
    this.#listable = true;
    this.#becameListable?.();
    await this.#informer.run(signal);
  }

  #resourceName(): string {
    const { plural, group } = this.#options.kind.resource;
    return group === '' ? plural : `${plural}.${group}`;
  }

  /** Why the kind cannot be listed, `transient` when the API server could not say, or undefined when it can. */
  async #probe(signal: AbortSignal): Promise<string | undefined> {
    const { client, kind, namespace, request } = this.#options;
    try {
      await client.list(kind.resource, {
        ...(namespace === undefined ? {} : { namespace }),
        ...(request?.labelSelector === undefined ? {} : { labelSelector: request.labelSelector }),
        limit: 1,
        signal,
      });
      return undefined;
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404)
        return `the ${kind.resource.kind} CRD is not installed`;
      if (error instanceof KubeApiError && error.statusCode === 403)
        return `RBAC does not grant list on ${this.#resourceName()} (403)`;
      return 'transient';
    }
  }
}
