// @gitbeaker failures as ForgeErrors, as github/errors.ts does for Octokit. A GitbeakerRequestError
// carries the fetch Request (its PRIVATE-TOKEN header included) as `cause`: nothing of it leaves
// this module. A fresh ForgeError is built from the status and GitLab's message alone, and the
// text goes through Credentials.redact() in case an echoed value holds the token (docs/decisions.md
// D12, N32).
import { GitbeakerRequestError, GitbeakerRetryError, GitbeakerTimeoutError } from '@gitbeaker/rest';
import type { Credentials } from '../../credentials/credentials.ts';
import { ForgeError } from '../errors.ts';
import { forgeErrorMakers, transportCode, transportReason, type ForgeErrorMakers } from '../github/errors.ts';

export const FORGE = 'gitlab';

export interface FailureContext {
  readonly operation: string;
  /** `owner/name` (the project's full path). */
  readonly repo: string;
  readonly credentials: Credentials;
  /** `host:port` of the API, named when the connection itself fails. */
  readonly endpoint: string;
}

function statusOf(error: GitbeakerRequestError): number | undefined {
  const status = error.cause?.response.status;
  return typeof status === 'number' ? status : undefined;
}

export function toForgeError(error: unknown, context: FailureContext): ForgeError {
  if (error instanceof ForgeError) return error;
  const { build, unanswered } = makers(context);
  if (error instanceof GitbeakerTimeoutError)
    return unanswered('timeout', `${context.endpoint} did not answer in time`);
  if (error instanceof GitbeakerRetryError) {
    // gitbeaker retries 429 and 502 itself and then gives up naming the last status.
    const last = /last status code: (\d{3})/.exec(error.message)?.[1];
    return build(last === undefined ? undefined : Number(last), 'still refused after gitbeaker’s retries');
  }
  if (error instanceof GitbeakerRequestError) {
    const status = statusOf(error);
    return build(status, error.message === '' ? `HTTP ${String(status ?? 'error')}` : error.message);
  }
  const code = transportCode(error);
  if (code !== undefined) return unanswered(code, transportReason(code, context.endpoint));
  const message = error instanceof Error ? error.message : String(error);
  return build(undefined, `request failed: ${message}`);
}

/** An answer that does not have the fields the provider reads: GitLab (or a proxy) misbehaved. */
export function malformedResponse(context: FailureContext, what: string, problem: string): ForgeError {
  return makers(context).build(502, `unexpected ${what} from GitLab: ${problem}`);
}

function makers(context: FailureContext): ForgeErrorMakers {
  return forgeErrorMakers(FORGE, context, (text) => context.credentials.redact(text));
}
