// Who a bearer token belongs to and what that identity may do, asked of the API server as
// kube-rbac-proxy asks it: a TokenReview, then SubjectAccessReviews. Shared by the /metrics guard
// (metrics-auth.ts) and the dashboard (docs/decisions.md D14, N46), so both ask the same two
// questions the same way.
//
// Answers are reused briefly, positive and negative, in a bounded LRU keyed by a SHA-256 of the
// token (never the token), and concurrent askers of one key share one review. An API server that
// could not answer is never remembered. The token itself is never kept, logged or put in an error.
import { createHash } from 'node:crypto';
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import { systemClock, type Clock } from './clock.ts';

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

/** The identity a TokenReview found. */
export interface ReviewedUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a SubjectAccessReview asks: a non-resource URL, or a resource (namespace '' or absent: all). */
export type AccessAttributes =
  | { readonly nonResource: { readonly path: string; readonly verb: string } }
  | {
      readonly resource: {
        readonly verb: string;
        readonly group: string;
        readonly resource: string;
        readonly namespace?: string;
      };
    };

/** The API server did not answer a review (down, timed out, refused the reviewer itself). */
export class ReviewUnavailableError extends Error {
  override readonly name = 'ReviewUnavailableError';
  constructor(review: 'TokenReview' | 'SubjectAccessReview', cause: unknown) {
    // The cause names the review resource and the API server's status, never the request body.
    super(`the API server did not answer a ${review}`, { cause });
  }
}

/** The two questions; both throw ReviewUnavailableError when the API server cannot answer. */
export interface AccessReviewer {
  /** The token's identity, or undefined when the API server does not authenticate it. */
  user(token: string): Promise<ReviewedUser | undefined>;
  allowed(user: ReviewedUser, attributes: AccessAttributes): Promise<boolean>;
}

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
    groups?: readonly string[];
    extra?: Readonly<Record<string, readonly string[]>>;
    nonResourceAttributes?: { path: string; verb: string };
    resourceAttributes?: { verb: string; group: string; resource: string; namespace?: string };
  };
  status?: { allowed?: boolean; denied?: boolean };
}

const REVIEW_TIMEOUT_MS = 5_000;

export class KubernetesAccessReviewer implements AccessReviewer {
  readonly #client: ObjectClient;

  constructor(client: ObjectClient) {
    this.#client = client;
  }

  async user(token: string): Promise<ReviewedUser | undefined> {
    let reviewed: TokenReview;
    try {
      reviewed = await this.#client.create<TokenReview>(
        TOKEN_REVIEWS,
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token } },
        { signal: AbortSignal.timeout(REVIEW_TIMEOUT_MS) },
      );
    } catch (error) {
      throw new ReviewUnavailableError('TokenReview', error);
    }
    const user = reviewed.status?.user;
    if (reviewed.status?.authenticated !== true || user?.username === undefined) return undefined;
    return {
      username: user.username,
      ...(user.uid === undefined ? {} : { uid: user.uid }),
      ...(user.groups === undefined ? {} : { groups: user.groups }),
      ...(user.extra === undefined ? {} : { extra: user.extra }),
    };
  }

  async allowed(user: ReviewedUser, attributes: AccessAttributes): Promise<boolean> {
    const spec: SubjectAccessReview['spec'] = {
      user: user.username,
      ...(user.uid === undefined ? {} : { uid: user.uid }),
      ...(user.groups === undefined ? {} : { groups: user.groups }),
      ...(user.extra === undefined ? {} : { extra: user.extra }),
      ...('nonResource' in attributes
        ? { nonResourceAttributes: { ...attributes.nonResource } }
        : { resourceAttributes: { ...attributes.resource } }),
    };
    try {
      const access = await this.#client.create<SubjectAccessReview>(
        SUBJECT_ACCESS_REVIEWS,
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec },
        { signal: AbortSignal.timeout(REVIEW_TIMEOUT_MS) },
      );
      return access.status?.allowed === true;
    } catch (error) {
      throw new ReviewUnavailableError('SubjectAccessReview', error);
    }
  }
}

/** A token longer than this is no Kubernetes token; it is refused without a review. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** `Bearer <token>` (scheme case-insensitive, RFC 7235); anything else is no token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^bearer +(\S+) *$/i.exec(authorization);
  const token = match?.[1];
  return token === undefined || token.length > MAX_TOKEN_LENGTH ? undefined : token;
}

/** What a token is remembered under: its SHA-256, never the token. */
export function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export interface ReviewCacheOptions {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly clock?: Clock;
}

/**
 * Answers by key for `ttlMs`, at most `maxEntries` (least recently used leave first); concurrent
 * `get`s of one key share one computation. A computation that throws is not remembered.
 */
export class ReviewCache<V> {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: Clock;
  /** Map order is insertion order, re-inserted on use: an LRU. */
  readonly #entries = new Map<string, { readonly value: V; readonly expiresAt: number }>();
  readonly #inFlight = new Map<string, Promise<V>>();

  constructor(options: ReviewCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#clock = options.clock ?? systemClock;
  }

  async get(key: string, compute: () => Promise<V>): Promise<V> {
    const remembered = this.#entries.get(key);
    if (remembered !== undefined) {
      this.#entries.delete(key);
      if (remembered.expiresAt > this.#clock.now()) {
        this.#entries.set(key, remembered);
        return remembered.value;
      }
    }
    const joined = this.#inFlight.get(key);
    if (joined !== undefined) return joined;
    const computing = compute().then((value) => {
      this.#remember(key, value);
      return value;
    });
    this.#inFlight.set(key, computing);
    try {
      return await computing;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  #remember(key: string, value: V): void {
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + this.#ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }
}
