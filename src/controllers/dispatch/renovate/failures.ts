// How the `renovate` executor classifies what can go wrong (docs/decisions.md N18): a failure that
// another attempt may cure is retried with backoff, one that it cannot (no credentials, a forbidden
// write, an input nudger refuses) ends the target at once. Every message passes through the
// token's redaction, whatever produced it.
import { ForgeError } from '../../../adapters/forges/errors.ts';
import { ForgeResolutionError } from '../../../adapters/forges/resolver.ts';
import { KubeApiError } from '../../../adapters/kubernetes/errors.ts';
import { NudgeInputError } from '../../../domain/nudge/errors.ts';
import type { FireResult } from '../executor.ts';

export type RenovateFailureReason =
  | 'api-unavailable'
  | 'api-error'
  | 'forbidden'
  | 'invalid-object'
  | 'no-credentials'
  | 'forge-unavailable'
  | 'no-forge'
  | 'invalid-repository'
  | 'invalid-nudge-input'
  | 'name-taken';

/** The PipelineRun of that name exists but is not this nudge's (another build, not a nudge). */
export class NameTakenError extends Error {
  override readonly name = 'NameTakenError';
}

type Failure = Extract<FireResult, { ok: false }>;

function failure(reason: RenovateFailureReason, message: string, permanent: boolean): Failure {
  return { ok: false, reason, message, ...(permanent ? { permanent: true } : {}) };
}

function classifyApiError(error: KubeApiError, message: string): Failure {
  const code = error.statusCode;
  // No answer, the server's own trouble, or throttling: the next attempt may well get through.
  if (code === 0 || code >= 500 || code === 429) return failure('api-unavailable', message, false);
  // RBAC will not change by itself between two attempts a few minutes apart.
  if (code === 403) return failure('forbidden', message, true);
  // The API server refuses the object as built: the same object would be refused again.
  if (code === 400 || code === 422) return failure('invalid-object', message, true);
  return failure('api-error', message, false);
}

/** A classified failure for anything fire() caught; `redact` removes the token from the text. */
export function classifyFailure(error: unknown, redact: (text: string) => string): Failure {
  const message = redact(error instanceof Error ? error.message : String(error));
  if (error instanceof KubeApiError) return classifyApiError(error, message);
  if (error instanceof ForgeResolutionError) {
    if (error.kind === 'no-forge') return failure('no-forge', message, true);
    if (error.kind === 'invalid-url') return failure('invalid-repository', message, true);
    return failure('no-credentials', message, true);
  }
  // The forge itself is asked only for credentials (a GitHub App installation token).
  if (error instanceof ForgeError) {
    const status = error.status;
    if (status === undefined || status >= 500 || status === 429) return failure('forge-unavailable', message, false);
    return failure('no-credentials', message, status === 401 || status === 403 || status === 404);
  }
  if (error instanceof NudgeInputError) return failure('invalid-nudge-input', message, true);
  if (error instanceof NameTakenError) return failure('name-taken', message, true);
  // Anything else is not a cluster or forge answer: a programming error, which fire() rethrows.
  throw error;
}
