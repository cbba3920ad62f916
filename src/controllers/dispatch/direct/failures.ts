// A failed `direct` nudge as the dispatcher records it (docs/decisions.md N18, N20): a reason token
// for the marker, a message for the Event, and whether retrying can help. Only fields that are
// already redacted reach the message (ForgeError, ForgeResolutionError and GitCommandError reasons
// are built from redacted text); the forge's credentials redact it once more, and any other error
// is named by its kind, never by its text.
import type { Credentials } from '../../../adapters/credentials/credentials.ts';
import { ForgeError } from '../../../adapters/forges/errors.ts';
import { ForgeResolutionError } from '../../../adapters/forges/resolver.ts';
import { GitCommandError, InvalidChangeError, LeaseRejectedError } from '../../../adapters/git/errors.ts';
import { InvalidDigestUpdateError, InvalidFileMatchError } from '../../../domain/digest-rewrite/index.ts';
import { NudgeInputError } from '../../../domain/nudge/errors.ts';
import type { FireResult } from '../executor.ts';

export type FireFailure = Extract<FireResult, { ok: false }>;

/** Marker reasons of the `direct` executor. */
export const DIRECT_FAILURE_REASONS = {
  /** The forge or git could not be reached, timed out or answered 5xx: retried. */
  forgeUnavailable: 'forge-unavailable',
  /** git failed for another reason: retried. */
  gitFailed: 'git-failed',
  /** The forge refused a request for a reason that may pass (422, 409, a lost race): retried. */
  forgeRejected: 'forge-rejected',
  /** The nudge branch moved under nudger between observation and push: retried, observing again. */
  branchMoved: 'branch-moved',
  /** No credentials for the host, or the forge refused them: permanent. */
  noCredentials: 'no-credentials',
  /** The repository (or the base branch) is gone: permanent. */
  repositoryNotFound: 'repository-not-found',
  /** No forge serves the repository's host, or its URL is unusable: permanent. */
  noForge: 'no-forge',
  /** Someone else pushed to the nudge branch and the rebase box is not ticked: permanent. */
  branchEdited: 'branch-edited',
  /** The nudge itself cannot be written (a name, link or pattern that would break it): permanent. */
  invalidInput: 'invalid-input',
  /** The dispatcher gave up on the attempt (shutdown, leadership lost): retried. */
  aborted: 'aborted',
} as const;

// What git prints when the server refused the credentials, the repository does not exist, or the
// server could not be reached at all.
const GIT_CREDENTIALS_REJECTED =
  /Authentication failed|could not read Username|Invalid username or password|requested URL returned error: 40[13]/i;
const GIT_NOT_FOUND =
  /Repository not found|requested URL returned error: 404|does not appear to be a git repository|couldn't find remote ref/i;
const GIT_UNREACHABLE =
  /Could not resolve host|Connection refused|Failed to connect|Connection timed out|Operation timed out|SSL certificate|server certificate verification failed|gnutls_handshake|Connection reset|requested URL returned error: 5\d\d|timed out|timeout/i;

function failure(reason: string, message: string, permanent: boolean): FireFailure {
  return { ok: false, reason, message, ...(permanent ? { permanent: true } : {}) };
}

function forgeFailure(error: ForgeError): FireFailure {
  const message = `${error.forge} ${error.operation} ${error.repo}: ${error.reason}`;
  const status = error.status;
  if (error.transport !== undefined || status === undefined || status >= 500) {
    return failure(DIRECT_FAILURE_REASONS.forgeUnavailable, message, false);
  }
  if (status === 401) return failure(DIRECT_FAILURE_REASONS.noCredentials, message, true);
  if (status === 404 || status === 410) return failure(DIRECT_FAILURE_REASONS.repositoryNotFound, message, true);
  // 403 without a rate limit the client could wait out (an installation without access, a token
  // without the scope) cannot pass by retrying either.
  if (status === 403) return failure(DIRECT_FAILURE_REASONS.noCredentials, message, true);
  return failure(DIRECT_FAILURE_REASONS.forgeRejected, message, false);
}

function gitFailure(error: GitCommandError): FireFailure {
  const message = `git ${error.command} ${error.repo}: ${error.reason}`;
  if (GIT_CREDENTIALS_REJECTED.test(error.details)) return failure(DIRECT_FAILURE_REASONS.noCredentials, message, true);
  if (GIT_NOT_FOUND.test(error.details)) return failure(DIRECT_FAILURE_REASONS.repositoryNotFound, message, true);
  if (GIT_UNREACHABLE.test(error.details)) return failure(DIRECT_FAILURE_REASONS.forgeUnavailable, message, false);
  return failure(DIRECT_FAILURE_REASONS.gitFailed, message, false);
}

/**
 * The classified result of `error`, thrown while firing. Unknown errors are programming errors and
 * are rethrown (the NudgeExecutor contract: reject only on those).
 */
export function classifyFireError(error: unknown, credentials: Credentials | undefined): FireFailure {
  const result = classify(error);
  return credentials === undefined ? result : { ...result, message: credentials.redact(result.message) };
}

function classify(error: unknown): FireFailure {
  if (error instanceof ForgeResolutionError) {
    const reason =
      error.kind === 'no-credentials' ? DIRECT_FAILURE_REASONS.noCredentials : DIRECT_FAILURE_REASONS.noForge;
    return failure(reason, error.message, true);
  }
  if (error instanceof ForgeError) return forgeFailure(error);
  if (error instanceof LeaseRejectedError) return failure(DIRECT_FAILURE_REASONS.branchMoved, error.message, false);
  if (error instanceof GitCommandError) return gitFailure(error);
  if (
    error instanceof NudgeInputError ||
    error instanceof InvalidChangeError ||
    error instanceof InvalidFileMatchError ||
    error instanceof InvalidDigestUpdateError
  ) {
    return failure(DIRECT_FAILURE_REASONS.invalidInput, error.message, true);
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return failure(DIRECT_FAILURE_REASONS.aborted, 'the attempt was aborted', false);
  }
  throw error;
}
