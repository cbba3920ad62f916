// Who may see what on the dashboard (docs/decisions.md D14, N46). In a cluster (`kubernetes`) a
// request's bearer token must pass a TokenReview, and its identity a SubjectAccessReview `list` on
// the ChangeGroups of the namespace shown (CFApps for a Korifi space): the dashboard shows exactly
// what `kubectl get changegroups -n <ns>` would let that identity read. The sandbox (`token`) has
// one random token per run, compared in constant time. Every decision is reused ~30 s, keyed by a
// SHA-256 of the token; an API server that cannot answer is a 503, never a silent allow or deny.
// A token never reaches a log, an error or a page.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  ReviewCache,
  ReviewUnavailableError,
  tokenKey,
  type AccessReviewer,
  type ReviewedUser,
} from '../runtime/access-review.ts';
import { systemClock, type Clock } from '../runtime/clock.ts';

/** How the dashboard checks requests: the manager always uses `kubernetes`; the sandbox `token`. */
export type DashboardAuth = { readonly mode: 'kubernetes' } | { readonly mode: 'token'; readonly token: string };

/** What a credential may do here; `unavailable`: the API server did not answer a review. */
export type Access = 'allowed' | 'unauthenticated' | 'forbidden' | 'unavailable';

/** The two things the dashboard shows, by the resource whose `list` guards them. */
export type Guarded = 'changegroups' | 'cfapps';

export const GUARDED_RESOURCES: Readonly<Record<Guarded, { readonly group: string; readonly resource: string }>> = {
  changegroups: { group: 'appstudio.redhat.com', resource: 'changegroups' },
  cfapps: { group: 'korifi.cloudfoundry.org', resource: 'cfapps' },
};

/** The namespaces a credential may see, or why it may see none. */
export type Visible =
  | { readonly access: 'allowed'; readonly namespaces: readonly string[] }
  | { readonly access: Exclude<Access, 'allowed'> };

export interface DashboardAuthorizer {
  readonly mode: DashboardAuth['mode'];
  /** A token offered at /login: may it start a session? `forbidden` is never the answer. */
  login(token: string): Promise<Exclude<Access, 'forbidden'>>;
  /** May it see `namespace` (list `guarded` there)? */
  namespace(token: string, guarded: Guarded, namespace: string): Promise<Access>;
  /** Which of `namespaces` may it see, in their order? */
  visible(token: string, guarded: Guarded, namespaces: readonly string[]): Promise<Visible>;
}

export interface KubernetesAuthorizerOptions {
  readonly reviewer: AccessReviewer;
  /** How long a decision is reused; default 30 s. */
  readonly ttlMs?: number;
  /** Most decisions remembered; default 10,000. */
  readonly maxEntries?: number;
  /** Per-namespace reviews in flight at once for one list; default 8. */
  readonly concurrency?: number;
  readonly clock?: Clock;
}

const DEFAULT_TTL_MS = 30_000;
const DEFAULT_MAX_ENTRIES = 10_000;
const DEFAULT_CONCURRENCY = 8;

/** Thrown inside a cache computation: the API server did not answer, so nothing is remembered. */
class Unanswered extends Error {}

export class KubernetesDashboardAuthorizer implements DashboardAuthorizer {
  readonly mode = 'kubernetes';
  readonly #reviewer: AccessReviewer;
  readonly #concurrency: number;
  readonly #users: ReviewCache<ReviewedUser | undefined>;
  readonly #decisions: ReviewCache<boolean>;

  constructor(options: KubernetesAuthorizerOptions) {
    this.#reviewer = options.reviewer;
    this.#concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    const cache = {
      ttlMs: options.ttlMs ?? DEFAULT_TTL_MS,
      maxEntries: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    };
    this.#users = new ReviewCache(cache);
    this.#decisions = new ReviewCache(cache);
  }

  async login(token: string): Promise<Exclude<Access, 'forbidden'>> {
    return answered(async () => ((await this.#user(token)) === undefined ? 'unauthenticated' : 'allowed'));
  }

  async namespace(token: string, guarded: Guarded, namespace: string): Promise<Access> {
    return answered(async () => {
      const user = await this.#user(token);
      if (user === undefined) return 'unauthenticated';
      return (await this.#may(token, user, guarded, namespace)) ? 'allowed' : 'forbidden';
    });
  }

  async visible(token: string, guarded: Guarded, namespaces: readonly string[]): Promise<Visible> {
    const visible = await answered(async (): Promise<Visible> => {
      const user = await this.#user(token);
      if (user === undefined) return { access: 'unauthenticated' };
      // One cluster-wide question answers for every namespace of a cluster reader; only a tenant
      // is asked namespace by namespace, a few at a time.
      if (await this.#may(token, user, guarded, '')) return { access: 'allowed', namespaces };
      const allowed = await mapBounded(namespaces, this.#concurrency, (namespace) =>
        this.#may(token, user, guarded, namespace),
      );
      return { access: 'allowed', namespaces: namespaces.filter((_, index) => allowed[index] === true) };
    });
    return visible === 'unavailable' ? { access: 'unavailable' } : visible;
  }

  #user(token: string): Promise<ReviewedUser | undefined> {
    return this.#users.get(tokenKey(token), () => unanswered(() => this.#reviewer.user(token)));
  }

  #may(token: string, user: ReviewedUser, guarded: Guarded, namespace: string): Promise<boolean> {
    const { group, resource } = GUARDED_RESOURCES[guarded];
    const key = `${tokenKey(token)} ${resource}.${group} ${namespace}`;
    return this.#decisions.get(key, () =>
      unanswered(() =>
        this.#reviewer.allowed(user, {
          resource: { verb: 'list', group, resource, ...(namespace === '' ? {} : { namespace }) },
        }),
      ),
    );
  }
}

/** The review's answer, or `unavailable` when the API server did not give one. */
async function answered<T>(decide: () => Promise<T>): Promise<T | 'unavailable'> {
  try {
    return await decide();
  } catch (error) {
    if (error instanceof Unanswered) return 'unavailable';
    throw error;
  }
}

async function unanswered<T>(review: () => Promise<T>): Promise<T> {
  try {
    return await review();
  } catch (error) {
    if (error instanceof ReviewUnavailableError) throw new Unanswered(error.message, { cause: error });
    throw error;
  }
}

/** `work` on every item, at most `limit` at once; results in the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The sandbox's one token per run: it may see everything; anything else is unauthenticated. */
export class TokenDashboardAuthorizer implements DashboardAuthorizer {
  readonly mode = 'token';
  readonly #digest: Buffer;

  constructor(token: string) {
    if (token.length === 0) throw new TypeError('the dashboard token must not be empty');
    this.#digest = digest(token);
  }

  #matches(token: string): boolean {
    // Digests have one length whatever the input, so the comparison takes the same time too.
    return timingSafeEqual(digest(token), this.#digest);
  }

  login(token: string): Promise<Exclude<Access, 'forbidden'>> {
    return Promise.resolve(this.#matches(token) ? 'allowed' : 'unauthenticated');
  }

  namespace(token: string): Promise<Access> {
    return this.login(token);
  }

  async visible(token: string, _guarded: Guarded, namespaces: readonly string[]): Promise<Visible> {
    return (await this.login(token)) === 'allowed' ? { access: 'allowed', namespaces } : { access: 'unauthenticated' };
  }
}

function digest(token: string): Buffer {
  return Buffer.from(tokenKey(token), 'base64url');
}

export function dashboardAuthorizer(auth: DashboardAuth, reviewer: () => AccessReviewer): DashboardAuthorizer {
  return auth.mode === 'token'
    ? new TokenDashboardAuthorizer(auth.token)
    : new KubernetesDashboardAuthorizer({ reviewer: reviewer() });
}

export interface SessionStoreOptions {
  /** How long a session lasts; default 8 h (the token is still reviewed on every request). */
  readonly ttlMs?: number;
  /** Most sessions held; the oldest leave first. Default 1,000. */
  readonly maxSessions?: number;
  readonly clock?: Clock;
}

/**
 * Browser sessions: a random id (the cookie) → the token it stands for, in memory only, so the
 * token never travels in a cookie and a restart signs everyone out. Bounded in count and age.
 */
export class SessionStore {
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #clock: Clock;
  readonly #sessions = new Map<string, { readonly token: string; readonly expiresAt: number }>();

  constructor(options: SessionStoreOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 8 * 60 * 60_000;
    this.#max = options.maxSessions ?? 1_000;
    this.#clock = options.clock ?? systemClock;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** A new session for `token`; returns its id. */
  create(token: string): string {
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, { token, expiresAt: this.#clock.now() + this.#ttlMs });
    while (this.#sessions.size > this.#max) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done === true) break;
      this.#sessions.delete(oldest.value);
    }
    return id;
  }

  /** The token of a live session, or undefined (unknown or expired: then forgotten). */
  token(id: string): string | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.#clock.now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return session.token;
  }

  delete(id: string): void {
    this.#sessions.delete(id);
  }
}
