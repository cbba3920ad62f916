// The ReleasePlanAdmission cache behind D6's distribution repositories. Release-service is optional
// for nudger: where its CRD is not installed (or RBAC does not allow a cluster-wide list, as in the
// namespaced deployment), distribution names are simply not rewritten. So the cache first asks
// once whether RPAs can be listed; if not, it says so in one log line and asks again now and then,
// silently, never failing or blocking the ChangeGroup controller. Once they can, an ordinary
// informer keeps the store current.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { KubeApiError } from '../../adapters/kubernetes/errors.ts';
import type { KubeHttp } from '../../adapters/kubernetes/http.ts';
import { KubeListWatchSource } from '../../adapters/kubernetes/list-watch.ts';
import { RELEASE_PLAN_ADMISSIONS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { sleep, systemClock, type Clock } from '../../runtime/clock.ts';
import { Informer } from '../../runtime/informer.ts';
import type { RuntimeLogger } from '../../runtime/runtime-log.ts';
import type { Store } from '../../runtime/store.ts';
import type { Registry } from 'prom-client';

const DEFAULT_PROBE_INTERVAL_MS = 5 * 60_000;
/** After a failure of the API server itself rather than a definite "no". */
const TRANSIENT_RETRY_MS = 10_000;
/** How long the ChangeGroup controller waits for a first list before starting without RPAs. */
const DEFAULT_SETTLE_TIMEOUT_MS = 30_000;

export interface ReleasePlanAdmissionCacheOptions {
  readonly client: ObjectClient & { readonly http: KubeHttp };
  readonly logger: RuntimeLogger;
  readonly registry?: Registry;
  /**
   * With `--namespace`, only the RPAs of that namespace (its Role grants nothing wider); else
   * every namespace, as build-service reads them.
   */
  readonly namespace?: string;
  /** How often to ask again while RPAs cannot be listed. */
  readonly probeIntervalMs?: number;
  readonly settleTimeoutMs?: number;
  readonly clock?: Clock;
}

export class ReleasePlanAdmissionCache {
  readonly #options: ReleasePlanAdmissionCacheOptions;
  readonly #informer: Informer<KubeObject>;
  readonly #clock: Clock;
  #unavailable = false;
  #settle: (() => void) | undefined;
  readonly #settled: Promise<void>;

  constructor(options: ReleasePlanAdmissionCacheOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#informer = new Informer<KubeObject>({
      source: new KubeListWatchSource(
        options.client.http,
        RELEASE_PLAN_ADMISSIONS,
        options.namespace === undefined ? {} : { namespace: options.namespace },
      ),
      logger: options.logger,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
    });
    this.#settled = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Every ReleasePlanAdmission of the cluster; empty while they cannot be listed. */
  get store(): Store<KubeObject> {
    return this.#informer.store;
  }

  /** True once RPAs were found not to be listable (CRD absent, forbidden). */
  get unavailable(): boolean {
    return this.#unavailable;
  }

  /**
   * Resolves once the store holds a first list, once RPAs are known not to be listable, after the
   * settle timeout, or when `signal` aborts: whichever comes first. Never rejects.
   */
  async settled(signal: AbortSignal): Promise<void> {
    const timeout = sleep(this.#clock, this.#options.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS, signal);
    await Promise.race([this.#settled, this.#informer.waitForSync(signal), timeout]);
  }

  /** Probes until RPAs can be listed, then runs the informer until `signal` aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const interval = this.#options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
    let logged = false;
    while (!signal.aborted) {
      const problem = await this.#probe(signal);
      if (problem === undefined) break;
      if (problem === 'transient') {
        await sleep(this.#clock, TRANSIENT_RETRY_MS, signal);
        continue;
      }
      this.#unavailable = true;
      this.#settle?.();
      if (!logged) {
        logged = true;
        this.#options.logger.warn(
          { resource: 'releaseplanadmissions.appstudio.redhat.com', reason: problem },
          'ReleasePlanAdmissions cannot be listed; ChangeGroup pull requests rewrite build repositories only, not distribution repositories (D6). Checking again every few minutes.',
        );
      }
      await sleep(this.#clock, interval, signal);
    }
    if (signal.aborted) return;
    if (logged)
      this.#options.logger.info({}, 'ReleasePlanAdmissions can be listed now; distribution repositories are rewritten');
    this.#unavailable = false;
    await this.#informer.run(signal);
  }

  /** Why RPAs cannot be listed, `transient` when the API server could not say, or undefined when they can. */
  async #probe(signal: AbortSignal): Promise<string | undefined> {
    try {
      const scope = this.#options.namespace === undefined ? {} : { namespace: this.#options.namespace };
      await this.#options.client.list(RELEASE_PLAN_ADMISSIONS, { ...scope, limit: 1, signal });
      return undefined;
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404)
        return 'the ReleasePlanAdmission CRD is not installed';
      if (error instanceof KubeApiError && error.statusCode === 403) {
        return 'RBAC does not grant list on releaseplanadmissions (403)';
      }
      return 'transient';
    }
  }
}
