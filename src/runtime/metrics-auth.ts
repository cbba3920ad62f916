// Who may read /metrics, decided as kube-rbac-proxy decides it: the bearer token is authenticated
// by a TokenReview, and its user authorized by a SubjectAccessReview for the non-resource URL
// `/metrics`, verb `get` (access-review.ts asks both). Metrics name namespaces, components and
// failure reasons of every tenant, so they are not for anyone who can reach the pod (issue 8,
// part 2 item 7).
//
// A scrape storm must not become a review storm: answers are cached briefly per token, positive
// and negative, in a bounded LRU keyed by a hash of the token, and concurrent scrapes with one
// token share one review. The token itself is never kept, logged or put in an error.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import {
  KubernetesAccessReviewer,
  ReviewCache,
  ReviewUnavailableError,
  bearerToken,
  tokenKey,
  type AccessReviewer,
} from './access-review.ts';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';

export { SUBJECT_ACCESS_REVIEWS, TOKEN_REVIEWS, bearerToken } from './access-review.ts';

export type MetricsAccess = 'allowed' | 'unauthenticated' | 'forbidden' | 'unavailable';

/** Decides a request for /metrics from its Authorization header. */
export interface MetricsAuthorizer {
  authorize(authorization: string | undefined): Promise<MetricsAccess>;
}

export const METRICS_PATH = '/metrics';

export interface KubernetesMetricsAuthorizerOptions {
  readonly client: ObjectClient;
  readonly logger: Logger;
  /** How long an answer is reused; default 10 s (kube-rbac-proxy's default is 5 min). */
  readonly ttlMs?: number;
  /** Most tokens remembered; default 1,000. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

const DEFAULT_TTL_MS = 10_000;
const DEFAULT_MAX_ENTRIES = 1_000;

/** Thrown inside the cache's computation so that an unanswered review is not remembered. */
class Unavailable extends Error {}

export class KubernetesMetricsAuthorizer implements MetricsAuthorizer {
  readonly #reviewer: AccessReviewer;
  readonly #logger: Logger;
  readonly #cache: ReviewCache<Exclude<MetricsAccess, 'unavailable'>>;

  constructor(options: KubernetesMetricsAuthorizerOptions) {
    this.#reviewer = new KubernetesAccessReviewer(options.client);
    this.#logger = options.logger;
    this.#cache = new ReviewCache({
      ttlMs: options.ttlMs ?? DEFAULT_TTL_MS,
      maxEntries: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  }

  async authorize(authorization: string | undefined): Promise<MetricsAccess> {
    const token = bearerToken(authorization);
    if (token === undefined) return 'unauthenticated';
    try {
      return await this.#cache.get(tokenKey(token), () => this.#review(token));
    } catch (error) {
      if (error instanceof Unavailable) return 'unavailable';
      throw error;
    }
  }

  async #review(token: string): Promise<Exclude<MetricsAccess, 'unavailable'>> {
    try {
      const user = await this.#reviewer.user(token);
      if (user === undefined) return 'unauthenticated';
      if (!(await this.#reviewer.allowed(user, { nonResource: { path: METRICS_PATH, verb: 'get' } }))) {
        this.#logger.debug({ user: user.username }, 'metrics scrape forbidden');
        return 'forbidden';
      }
      return 'allowed';
    } catch (error) {
      if (!(error instanceof ReviewUnavailableError)) throw error;
      // The error names the review resource and the API server's status, never the request body.
      this.#logger.warn(
        { err: error.cause },
        'cannot review a metrics scrape: TokenReview or SubjectAccessReview failed',
      );
      throw new Unavailable();
    }
  }
}
