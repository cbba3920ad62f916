// GitHub App installation tokens, one per repository (docs/decisions.md D9), as build-service gets
// them: the App's JWT finds the repository's installation (GET /repos/{owner}/{repo}/installation)
// and mints a token limited to that one repository (POST /app/installations/{id}/access_tokens with
// `repositories`). @octokit/auth-app signs the JWT and sends the token request; its own token cache
// is switched off, because it keeps a token 59 minutes after minting whatever `expires_at` says,
// on a clock a test cannot move. Tokens are kept here instead, in memory only, per (API, App,
// installation, repository), until TOKEN_REFRESH_MARGIN_MS before they expire: a pull request
// update that starts with a token has that long to finish with it. Concurrent requests for one
// repository share one lookup and one mint. Nothing here logs; errors carry GitHub's message and
// status only (errors.ts), never a token, a JWT or the key.
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { Credentials } from '../../credentials/credentials.ts';
import type { RepositoryRef } from '../repository-url.ts';
import type { GitHubAppIdentity } from '../resolver.ts';
import type { GitHubAppKey } from './app-secret.ts';
import { createGitHubClients, httpStatus } from './client.ts';
import { endpointOf, malformedResponse, toForgeError, type FailureContext } from './errors.ts';

/** A token is renewed this long before its `expires_at`. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;
/** A repository the App is not installed on is asked about again after this long. */
export const NOT_INSTALLED_RECHECK_MS = 5 * 60 * 1000;
/** Past this many entries, expired ones are dropped on the next request. */
const SWEEP_ABOVE = 1000;
const REQUEST_TIMEOUT_MS = 30_000;

/** The installation token for one repository and whose it is. */
export interface AppInstallationToken {
  readonly credentials: Credentials;
  readonly identity: GitHubAppIdentity;
}

/** The three GitHub calls the App path makes; a seam for unit tests. */
export interface GitHubAppApi {
  /** The repository's installation of the App; undefined when GitHub answers 404 (not installed). */
  findInstallation(
    repo: RepositoryRef,
  ): Promise<{ readonly installationId: number; readonly appSlug: string } | undefined>;
  /** A token for `repo` only, and when it expires (`expires_at`, ISO 8601). */
  createToken(
    installationId: number,
    repo: RepositoryRef,
  ): Promise<{ readonly token: string; readonly expiresAt: string }>;
  /** The id of the App's bot user, `<slug>[bot]`, asked with an installation token. */
  botId(appSlug: string, repo: RepositoryRef, credentials: Credentials): Promise<number>;
}

export type GitHubAppApiFactory = (apiUrl: string, key: GitHubAppKey) => GitHubAppApi;

export interface GitHubAppTokensOptions {
  /** Milliseconds since the epoch; default Date.now. */
  readonly clock?: () => number;
  /** Default: the GitHub REST API at the forge's apiUrl through @octokit/auth-app. */
  readonly api?: GitHubAppApiFactory;
}

type Entry =
  | { readonly kind: 'token'; readonly token: AppInstallationToken; readonly expiresAtMs: number }
  | { readonly kind: 'not-installed'; readonly until: number };

export class GitHubAppTokens {
  readonly #clock: () => number;
  readonly #api: GitHubAppApiFactory;
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<AppInstallationToken | undefined>>();
  /** Bot user ids by API and App: they never change, and cost a request each. */
  readonly #botIds = new Map<string, number>();

  constructor(options: GitHubAppTokensOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#api = options.api ?? octokitAppApi;
  }

  /**
   * A token for `repo` from the App of `key` on the GitHub at `apiUrl`, valid for at least
   * TOKEN_REFRESH_MARGIN_MS or `minValidityMs` if longer (a fresh one is minted when the kept one
   * has less left); undefined when the App is not installed on the repository. Throws a
   * ForgeError when GitHub refuses the JWT or cannot be reached.
   */
  tokenFor(
    apiUrl: string,
    key: GitHubAppKey,
    repo: RepositoryRef,
    options: { readonly minValidityMs?: number } = {},
  ): Promise<AppInstallationToken | undefined> {
    const cacheKey = [apiUrl, String(key.appId), `${repo.owner}/${repo.name}`.toLowerCase()].join('|');
    const cached = this.#fresh(cacheKey, Math.max(options.minValidityMs ?? 0, TOKEN_REFRESH_MARGIN_MS));
    if (cached !== undefined) return Promise.resolve(cached.kind === 'token' ? cached.token : undefined);
    const pending = this.#pending.get(cacheKey);
    if (pending !== undefined) return pending;
    const work = this.#mint(cacheKey, apiUrl, key, repo).finally(() => this.#pending.delete(cacheKey));
    this.#pending.set(cacheKey, work);
    return work;
  }

  /** How many repositories have a token or a not-installed answer kept; for tests. */
  get size(): number {
    return this.#entries.size;
  }

  #fresh(cacheKey: string, minValidityMs: number): Entry | undefined {
    const entry = this.#entries.get(cacheKey);
    if (entry === undefined) return undefined;
    const now = this.#clock();
    const fresh = entry.kind === 'token' ? now < entry.expiresAtMs - minValidityMs : now < entry.until;
    return fresh ? entry : undefined;
  }

  async #mint(
    cacheKey: string,
    apiUrl: string,
    key: GitHubAppKey,
    repo: RepositoryRef,
  ): Promise<AppInstallationToken | undefined> {
    this.#sweep();
    const api = this.#api(apiUrl, key);
    const installation = await api.findInstallation(repo);
    if (installation === undefined) {
      this.#entries.set(cacheKey, { kind: 'not-installed', until: this.#clock() + NOT_INSTALLED_RECHECK_MS });
      return undefined;
    }
    const minted = await api.createToken(installation.installationId, repo);
    const expiresAtMs = Date.parse(minted.expiresAt);
    const credentials = new Credentials({ token: minted.token });
    const botKey = `${apiUrl}|${String(key.appId)}`;
    let botId = this.#botIds.get(botKey);
    if (botId === undefined) {
      botId = await api.botId(installation.appSlug, repo, credentials);
      this.#botIds.set(botKey, botId);
    }
    const token: AppInstallationToken = {
      credentials,
      identity: { appId: key.appId, installationId: installation.installationId, appSlug: installation.appSlug, botId },
    };
    // An unreadable expiry is used once and not kept.
    if (Number.isFinite(expiresAtMs)) this.#entries.set(cacheKey, { kind: 'token', token, expiresAtMs });
    return token;
  }

  #sweep(): void {
    if (this.#entries.size <= SWEEP_ABOVE) return;
    for (const [cacheKey] of this.#entries) {
      if (this.#fresh(cacheKey, TOKEN_REFRESH_MARGIN_MS) === undefined) this.#entries.delete(cacheKey);
    }
  }
}

const silent = (): void => undefined;
/** @octokit/auth-app's cache, switched off: GitHubAppTokens keeps the tokens. */
const NO_CACHE = { get: (): string => '', set: silent };

/** The App's requests through @octokit/auth-app, authenticated by its JWT. */
export function octokitAppApi(apiUrl: string, key: GitHubAppKey): GitHubAppApi {
  const octokit = new Octokit({
    baseUrl: apiUrl.replace(/\/+$/, ''),
    userAgent: 'nudger',
    authStrategy: createAppAuth,
    auth: { appId: key.appId, privateKey: key.revealPrivateKey(), cache: NO_CACHE },
    // auth-app warns about clock skew through this log (and retries with the skew accounted for);
    // Octokit's own request log would print failures with console.error. The errors are reported
    // as ForgeErrors instead.
    log: { debug: silent, info: silent, warn: silent, error: silent },
  });
  octokit.hook.wrap('request', (send, options) => {
    options.request = { ...options.request, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
    return send(options);
  });
  const context = (operation: string, repo: RepositoryRef): FailureContext => ({
    operation,
    repo: `${repo.owner}/${repo.name}`,
    endpoint: endpointOf(apiUrl),
  });
  return {
    async findInstallation(repo) {
      try {
        const { data } = await octokit.rest.apps.getRepoInstallation({ owner: repo.owner, repo: repo.name });
        if (typeof data.app_slug !== 'string' || !Number.isSafeInteger(data.id)) {
          throw malformedResponse(context('findAppInstallation', repo), 'installation', 'no id or app_slug');
        }
        return { installationId: data.id, appSlug: data.app_slug };
      } catch (error) {
        if (httpStatus(error) === 404) return undefined;
        throw toForgeError(error, context('findAppInstallation', repo));
      }
    },
    async createToken(installationId, repo) {
      try {
        const auth = (await octokit.auth({ type: 'installation', installationId, repositoryNames: [repo.name] })) as {
          token?: unknown;
          expiresAt?: unknown;
        };
        if (typeof auth.token !== 'string' || auth.token === '' || typeof auth.expiresAt !== 'string') {
          throw malformedResponse(
            context('createInstallationToken', repo),
            'installation token',
            'no token or expires_at',
          );
        }
        return { token: auth.token, expiresAt: auth.expiresAt };
      } catch (error) {
        throw toForgeError(error, context('createInstallationToken', repo));
      }
    },
    async botId(appSlug, repo, credentials) {
      const operation = { ...context('getAppBotUser', repo), credentials };
      try {
        const { rest } = createGitHubClients({ apiUrl, credentials });
        const { data } = await rest.users.getByUsername({ username: `${appSlug}[bot]` });
        return data.id;
      } catch (error) {
        throw toForgeError(error, operation);
      }
    },
  };
}
