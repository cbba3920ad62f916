// The ReleasePlanAdmission cache behind D6's distribution repositories. Release-service is optional
// for nudger: where its CRD is not installed (or RBAC does not allow a cluster-wide list, as in the
// namespaced deployment), distribution names are simply not rewritten. So the cache first asks
// once whether RPAs can be listed; if not, it says so in one log line and asks again now and then,
// silently, never failing or blocking the ChangeGroup controller. Once they can, the shared
// informer of the kind (asked for as run by its caller, so the set does not start it unprobed) keeps
// the store current.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { KubeApiError } from '../../adapters/kubernetes/errors.ts';
import { RELEASE_PLAN_ADMISSIONS } from '../../adapters/kubernetes/resources.ts';
import { RELEASE_PLAN_ADMISSIONS_KIND } from '../../cluster/watched-kinds.ts';
import { sleep, systemClock, type Clock } from '../../runtime/clock.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { RuntimeLogger } from '../../runtime/runtime-log.ts';
import type { InformerSource } from '../../runtime/shared-informers.ts';
import type { Store } from '../../runtime/store.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';

const DEFAULT_PROBE_INTERVAL_MS = 5 * 60_000;
/** After a failure of the API server itself rather than a definite "no". */
const TRANSIENT_RETRY_MS = 10_000;
/** How long the ChangeGroup controller waits for a first list before starting without RPAs. */
const DEFAULT_SETTLE_TIMEOUT_MS = 30_000;

export interface ReleasePlanAdmissionCacheOptions {
  /** Asked whether RPAs can be listed. */
  readonly client: ObjectClient;
  /** Where the informer comes from; it watches the namespace the set watches. */
  readonly informers: InformerSource;
  readonly logger: RuntimeLogger;
  /**
   * With `--namespace`, only the RPAs of that namespace (its Role grants nothing wider); else
   * every namespace, as build-service reads them. The probe asks in the same scope.
   */
  readonly namespace?: string;
  /** How often to ask again while RPAs cannot be listed. */
  readonly probeIntervalMs?: number;
  readonly settleTimeoutMs?: number;
  readonly clock?: Clock;
}

export class ReleasePlanAdmissionCache {
  readonly #options: ReleasePlanAdmissionCacheOptions;
  readonly #informer: Informer<ReleasePlanAdmission>;
  readonly #clock: Clock;
  #unavailable = false;
  #settle: (() => void) | undefined;
  readonly #settled: Promise<void>;

  constructor(options: ReleasePlanAdmissionCacheOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#informer = options.informers.informer(RELEASE_PLAN_ADMISSIONS_KIND, { runByCaller: true });
    this.#settled = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Every ReleasePlanAdmission of the cluster; empty while they cannot be listed. */
  get store(): Store<ReleasePlanAdmission> {
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
