// Octokit clients for one GitHub (github.com, GHES or the test emulator): where the REST and
// GraphQL endpoints are, how requests are authenticated, timed out and retried. The token is put
// into the Authorization header by a request hook at send time instead of being handed to Octokit
// as `auth`, so no long-lived Octokit object holds it.
import { withCustomRequest } from '@octokit/graphql';
import { Octokit } from '@octokit/rest';
import type { Credentials } from '../../credentials/credentials.ts';

export const GITHUB_API_URL = 'https://api.github.com';

export interface GitHubRetryOptions {
  /** Retries after a rate-limit answer (403/429); default 3. */
  readonly maxRetries?: number;
  /** A rate limit asking for a longer wait fails at once instead; default 60 s. */
  readonly maxDelayMs?: number;
  /** How to wait; tests pass one that records instead of sleeping. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface GitHubClientOptions {
  readonly apiUrl?: string;
  readonly graphqlUrl?: string;
  readonly credentials: Credentials;
  readonly userAgent?: string;
  readonly request?: { readonly timeoutMs?: number };
  readonly retry?: GitHubRetryOptions;
}

export type GraphqlClient = ReturnType<typeof withCustomRequest>;

export interface GitHubClients {
  readonly rest: Octokit;
  readonly graphql: GraphqlClient;
  readonly apiUrl: string;
  readonly graphqlUrl: string;
}

/** An attempt abandoned after `timeoutMs`; errors.ts turns it into a ForgeError. */
export class GitHubTimeoutError extends Error {
  override readonly name = 'GitHubTimeoutError';
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`no answer within ${String(timeoutMs)} ms`);
    this.timeoutMs = timeoutMs;
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_MAX_DELAY_MS = 60_000;
/** GitHub's advice for a secondary rate limit that names no retry-after: wait at least a minute. */
const SECONDARY_LIMIT_DELAY_MS = 60_000;

/** `api.github.com` → `…/graphql`; a GHES `<base>/api/v3` → `<base>/api/graphql`. */
export function deriveGraphqlUrl(apiUrl: string): string {
  const trimmed = apiUrl.replace(/\/+$/, '');
  if (trimmed.endsWith('/api/v3')) return `${trimmed.slice(0, -'/v3'.length)}/graphql`;
  return `${trimmed}/graphql`;
}

export function createGitHubClients(options: GitHubClientOptions): GitHubClients {
  const apiUrl = (options.apiUrl ?? GITHUB_API_URL).replace(/\/+$/, '');
  const graphqlUrl = options.graphqlUrl ?? deriveGraphqlUrl(apiUrl);
  const timeoutMs = options.request?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.retry?.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxDelayMs = options.retry?.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const sleep = options.retry?.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const silent = (): void => undefined;
  const rest = new Octokit({
    baseUrl: apiUrl,
    userAgent: options.userAgent ?? 'nudger',
    // Octokit's request log prints failures with console.error; the provider reports them as
    // ForgeErrors instead.
    log: { debug: silent, info: silent, warn: silent, error: silent },
  });
  rest.hook.wrap('request', async (send, requestOptions) => {
    // Hooks further in receive this very options object, not what is passed to send(): changes
    // must be made on it. Its nested objects may be shared defaults, so they are replaced, never
    // modified.
    requestOptions.headers = {
      ...requestOptions.headers,
      authorization: `token ${options.credentials.revealToken()}`,
    };
    for (let attempt = 0; ; attempt++) {
      const signal = AbortSignal.timeout(timeoutMs);
      requestOptions.request = { ...requestOptions.request, signal };
      try {
        return await send(requestOptions);
      } catch (error) {
        if (signal.aborted) throw new GitHubTimeoutError(timeoutMs);
        const delay = rateLimitDelay(error, Date.now());
        if (delay === undefined || attempt >= maxRetries || delay > maxDelayMs) throw error;
        await sleep(delay);
      }
    }
  });
  // Through rest.request, so GraphQL calls get the same auth, timeout and retry hook. The URL is
  // absolute, which keeps @octokit/graphql from deriving its own from the REST base.
  const graphql = withCustomRequest(rest.request).defaults({ baseUrl: graphqlUrl, url: graphqlUrl });
  return { rest, graphql, apiUrl, graphqlUrl };
}

/**
 * How long GitHub asks us to wait before retrying, or undefined when `error` is no rate limit:
 * `retry-after` (seconds) on 403/429, else the primary limit's `x-ratelimit-reset` when
 * `x-ratelimit-remaining` is 0, else a minute for a 403 that says "secondary rate limit".
 */
export function rateLimitDelay(error: unknown, now: number): number | undefined {
  const status = httpStatus(error);
  if (status !== 403 && status !== 429) return undefined;
  const headers = responseHeaders(error);
  const retryAfter = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000;
  if (headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    if (Number.isFinite(reset)) return Math.max(reset * 1000 - now, 0);
  }
  if (status === 429) return SECONDARY_LIMIT_DELAY_MS;
  const message = error instanceof Error ? error.message : '';
  return /secondary rate limit/i.test(message) ? SECONDARY_LIMIT_DELAY_MS : undefined;
}

export function httpStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}

function responseHeaders(error: unknown): Record<string, string | undefined> {
  if (typeof error !== 'object' || error === null || !('response' in error)) return {};
  const response = error.response;
  if (typeof response !== 'object' || response === null || !('headers' in response)) return {};
  const headers = response.headers;
  if (typeof headers !== 'object' || headers === null) return {};
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' || typeof value === 'number') result[name.toLowerCase()] = String(value);
  }
  return result;
}
