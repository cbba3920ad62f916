// Who may read /metrics, decided as kube-rbac-proxy decides it: the bearer token is authenticated
// by a TokenReview, and its user authorized by a SubjectAccessReview for the non-resource URL
// `/metrics`, verb `get`. Metrics name namespaces, components and failure reasons of every tenant,
// so they are not for anyone who can reach the pod (issue 8, part 2 item 7).
//
// A scrape storm must not become a review storm: answers are cached briefly per token, positive
// and negative, in a bounded LRU keyed by a hash of the token, and concurrent scrapes with one
// token share one review. The token itself is never kept, logged or put in an error.
import { createHash } from 'node:crypto';
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Logger } from './logger.ts';

export type MetricsAccess = 'allowed' | 'unauthenticated' | 'forbidden' | 'unavailable';

/** Decides a request for /metrics from its Authorization header. */
export interface MetricsAuthorizer {
  authorize(authorization: string | undefined): Promise<MetricsAccess>;
}

export const TOKEN_REVIEWS: ResourceRef = {
  group: 'authentication.k8s.io',
  version: 'v1',
  plural: 'tokenreviews',
  kind: 'TokenReview',
  namespaced: false,
};

export const SUBJECT_ACCESS_REVIEWS: ResourceRef = {
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
};

export const METRICS_PATH = '/metrics';

interface TokenReview extends KubeObject {
  spec: { token: string };
  status?: {
    authenticated?: boolean;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  };
}

interface SubjectAccessReview extends KubeObject {
  spec: {
    user: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    nonResourceAttributes: { path: string; verb: string };
  };
  status?: { allowed?: boolean; denied?: boolean };
}

export interface KubernetesMetricsAuthorizerOptions {
  readonly client: ObjectClient;
  readonly logger: Logger;
  /** How long an answer is reused; default 10 s (kube-rbac-proxy's default is 5 min). */
  readonly ttlMs?: number;
  /** Most tokens remembered; default 1,000. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

interface Remembered {
  readonly access: 'allowed' | 'unauthenticated' | 'forbidden';
  readonly expiresAt: number;
}

const DEFAULT_TTL_MS = 10_000;
const DEFAULT_MAX_ENTRIES = 1_000;
const REVIEW_TIMEOUT_MS = 5_000;
/** A token longer than this is no Kubernetes token; it is refused without a review. */
const MAX_TOKEN_LENGTH = 16 * 1024;

export class KubernetesMetricsAuthorizer implements MetricsAuthorizer {
  readonly #client: ObjectClient;
  readonly #logger: Logger;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: Clock;
  /** Token hash → answer; Map order is insertion order, re-inserted on use: an LRU. */
  readonly #cache = new Map<string, Remembered>();
  readonly #inFlight = new Map<string, Promise<MetricsAccess>>();

  constructor(options: KubernetesMetricsAuthorizerOptions) {
    this.#client = options.client;
    this.#logger = options.logger;
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#clock = options.clock ?? systemClock;
  }

  async authorize(authorization: string | undefined): Promise<MetricsAccess> {
    const token = bearerToken(authorization);
    if (token === undefined) return 'unauthenticated';
    const key = createHash('sha256').update(token).digest('base64url');
    const remembered = this.#cache.get(key);
    if (remembered !== undefined) {
      this.#cache.delete(key);
      if (remembered.expiresAt > this.#clock.now()) {
        this.#cache.set(key, remembered);
        return remembered.access;
      }
    }
    const joined = this.#inFlight.get(key);
    if (joined !== undefined) return joined;
    const review = this.#review(token).then((access) => {
      // An API server that could not answer is asked again next time, not remembered.
      if (access !== 'unavailable') this.#remember(key, access);
      return access;
    });
    this.#inFlight.set(key, review);
    try {
      return await review;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  #remember(key: string, access: Remembered['access']): void {
    this.#cache.set(key, { access, expiresAt: this.#clock.now() + this.#ttlMs });
    while (this.#cache.size > this.#maxEntries) {
      const oldest = this.#cache.keys().next();
      if (oldest.done === true) break;
      this.#cache.delete(oldest.value);
    }
  }

  async #review(token: string): Promise<MetricsAccess> {
    try {
      const reviewed = await this.#client.create<TokenReview>(
        TOKEN_REVIEWS,
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token } },
        { signal: AbortSignal.timeout(REVIEW_TIMEOUT_MS) },
      );
      const user = reviewed.status?.user;
      if (reviewed.status?.authenticated !== true || user?.username === undefined) return 'unauthenticated';
      const access = await this.#client.create<SubjectAccessReview>(
        SUBJECT_ACCESS_REVIEWS,
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          metadata: {},
          spec: {
            user: user.username,
            ...(user.uid === undefined ? {} : { uid: user.uid }),
            ...(user.groups === undefined ? {} : { groups: user.groups }),
            ...(user.extra === undefined ? {} : { extra: user.extra }),
            nonResourceAttributes: { path: METRICS_PATH, verb: 'get' },
          },
        },
        { signal: AbortSignal.timeout(REVIEW_TIMEOUT_MS) },
      );
      if (access.status?.allowed !== true) {
        this.#logger.debug({ user: user.username }, 'metrics scrape forbidden');
        return 'forbidden';
      }
      return 'allowed';
    } catch (error) {
      // The error names the review resource and the API server's status, never the request body.
      this.#logger.warn({ err: error }, 'cannot review a metrics scrape: TokenReview or SubjectAccessReview failed');
      return 'unavailable';
    }
  }
}

/** `Bearer <token>` (scheme case-insensitive, RFC 7235); anything else is no token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^bearer +(\S+) *$/i.exec(authorization);
  const token = match?.[1];
  return token === undefined || token.length > MAX_TOKEN_LENGTH ? undefined : token;
}
