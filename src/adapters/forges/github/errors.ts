// Octokit and GraphQL failures as ForgeErrors. Octokit's errors carry the request (headers
// included) and the response; none of that may leave this module, so a fresh ForgeError is built
// from the status and GitHub's message alone, without `cause`, and the text goes through
// Credentials.redact() in case an echoed value holds the token. The GitHub App's own requests carry
// its JWT, which @octokit/auth-app signs out of nudger's sight: their text is redacted by shape
// (src/domain/secret-shapes.ts), since a proxy or a GitHub Enterprise front that quotes the
// Authorization header in its error would otherwise put a credential able to mint installation
// tokens into an Event or a status (docs/decisions.md D9).
import { GraphqlResponseError } from '@octokit/graphql';
import type { Credentials } from '../../credentials/credentials.ts';
import { redactSecretShapes } from '../../../domain/secret-shapes.ts';
import { ForgeError } from '../errors.ts';
import { GitHubTimeoutError, httpStatus } from './client.ts';

export const FORGE = 'github';
const MAX_REASON_LENGTH = 300;

export interface FailureContext {
  readonly operation: string;
  /** `owner/name`. */
  readonly repo: string;
  /** Whose token the request carried; absent for the GitHub App's own requests (JWT: redacted by shape). */
  readonly credentials?: Credentials;
  /** `host:port` of the API, named when the connection itself fails. */
  readonly endpoint: string;
}

/** `https://api.github.com` → `api.github.com:443`: where a refused connection was going. */
export function endpointOf(apiUrl: string): string {
  try {
    const url = new URL(apiUrl);
    const port = url.port !== '' ? url.port : url.protocol === 'http:' ? '80' : '443';
    return `${url.hostname}:${port}`;
  } catch {
    return apiUrl;
  }
}

/** The `code` of the first error in a cause chain that has one: undici wraps the socket's error. */
export function transportCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_)/;

/** What happened, in words, for a request that got no HTTP answer (shared with gitlab/). */
export function transportReason(code: string | undefined, endpoint: string): string {
  const host = endpoint.replace(/:\d+$/, '');
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused to ${endpoint}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${host} could not be resolved (DNS ${code})`;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return `connection to ${endpoint} was reset (${code})`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connection to ${endpoint} timed out (${code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${endpoint} is unreachable (${code})`;
    case undefined:
      return `no answer from ${endpoint}`;
    default:
      return TLS_CODE.test(code)
        ? `TLS failure talking to ${endpoint} (${code})`
        : `request to ${endpoint} failed (${code})`;
  }
}

/** Octokit reports a request that never got an answer as status 500 without a response. */
function isTransportFailure(error: unknown, status: number | undefined): boolean {
  return (
    status === 500 &&
    typeof error === 'object' &&
    error !== null &&
    (error as { response?: unknown }).response === undefined
  );
}

/** How a provider's ForgeErrors are made: every reason redacted and on one line (shared with gitlab/). */
export interface ForgeErrorMakers {
  /** An HTTP answer (status) or a failure without one that is no transport problem. */
  readonly build: (status: number | undefined, reason: string) => ForgeError;
  /** No HTTP answer came back: `code` says what went wrong on the way to the endpoint. */
  readonly unanswered: (code: string, reason: string) => ForgeError;
}

export function forgeErrorMakers(
  forge: string,
  context: { readonly operation: string; readonly repo: string; readonly endpoint: string },
  redact: (text: string) => string,
): ForgeErrorMakers {
  const base = { forge, operation: context.operation, repo: context.repo };
  return {
    build: (status, reason) =>
      new ForgeError({ ...base, ...(status === undefined ? {} : { status }), reason: oneLine(redact(reason)) }),
    unanswered: (code, reason) =>
      new ForgeError({ ...base, reason: oneLine(redact(reason)), transport: { code, host: context.endpoint } }),
  };
}

export function toForgeError(error: unknown, context: FailureContext): ForgeError {
  if (error instanceof ForgeError) return error;
  const { build, unanswered } = forgeErrorMakers(FORGE, context, (text) => redactWith(context, text));
  if (error instanceof GitHubTimeoutError) {
    return unanswered('timeout', `${context.endpoint} did not answer: ${error.message}`);
  }
  if (error instanceof GraphqlResponseError) return build(graphqlStatus(error.errors), graphqlReason(error.errors));
  const status = httpStatus(error);
  if (isTransportFailure(error, status)) {
    const code = transportCode(error);
    return unanswered(code ?? 'unknown', transportReason(code, context.endpoint));
  }
  if (status !== undefined) return build(status, restReason(error, status));
  const message = error instanceof Error ? error.message : String(error);
  return build(undefined, `request failed: ${message}`);
}

/** An answer that does not have the fields the provider reads: GitHub (or a proxy) misbehaved. */
export function malformedResponse(context: FailureContext, what: string, problem: string): ForgeError {
  return forgeErrorMakers(FORGE, context, (text) => redactWith(context, text)).build(
    502,
    `unexpected ${what} from GitHub: ${problem}`,
  );
}

/** GitHub's `message`, plus the first validation error's details: "Validation Failed: …". */
function restReason(error: unknown, status: number): string {
  const data = responseData(error);
  const message = typeof data.message === 'string' ? data.message : `HTTP ${String(status)}`;
  const first = Array.isArray(data.errors) ? (data.errors as unknown[])[0] : undefined;
  if (typeof first === 'string') return `${message}: ${first}`;
  if (typeof first === 'object' && first !== null) {
    const detail = first as Record<string, unknown>;
    if (typeof detail.message === 'string') return `${message}: ${detail.message}`;
    const parts = [detail.field, detail.code].filter((part): part is string => typeof part === 'string');
    if (parts.length > 0) return `${message}: ${parts.join(' ')}`;
  }
  return message;
}

function responseData(error: unknown): Record<string, unknown> {
  if (typeof error !== 'object' || error === null || !('response' in error)) return {};
  const response = error.response;
  if (typeof response !== 'object' || response === null || !('data' in response)) return {};
  const data = response.data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
}

interface GraphqlErrorLike {
  readonly type?: unknown;
  readonly message?: unknown;
}

/** GraphQL errors arrive with HTTP 200; their `type` says what REST would have said. */
function graphqlStatus(errors: readonly GraphqlErrorLike[] | undefined): number {
  switch (errors?.[0]?.type) {
    case 'NOT_FOUND':
      return 404;
    case 'FORBIDDEN':
      return 403;
    case 'RATE_LIMITED':
      return 429;
    default:
      return 422;
  }
}

function graphqlReason(errors: readonly GraphqlErrorLike[] | undefined): string {
  const message = errors?.[0]?.message;
  return typeof message === 'string' ? message : 'GraphQL request failed';
}

function redactWith(context: FailureContext, text: string): string {
  return context.credentials === undefined ? redactSecretShapes(text) : context.credentials.redact(text);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_REASON_LENGTH ? `${flat.slice(0, MAX_REASON_LENGTH - 1)}…` : flat;
}
