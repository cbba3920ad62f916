// What a failure to use the forge says about the forge, for the ChangeGroup's ForgeAvailable
// condition: unreachable, not configured, credentials missing or rejected, or some other failure.
// Only error fields that are already redacted (ForgeError, ForgeResolutionError, GitCommandError
// reasons) reach the message; anything else is named by its kind, never by its text.
import { ForgeError } from '../../adapters/forges/errors.ts';
import { parseRepositoryUrl } from '../../adapters/forges/repository-url.ts';
import { ForgeResolutionError } from '../../adapters/forges/resolver.ts';
import { GitCommandError } from '../../adapters/git/errors.ts';
import { FORGE_AVAILABLE_REASONS } from '../../domain/changegroup/model.ts';
import type { ForgeAvailability } from '../../domain/changegroup/state.ts';

/**
 * The host of a repository URL, for condition messages. A URL nudger refuses to use (one with a
 * token in it, or no owner/name) still names its host, which is what an operator looks for; its
 * user info never reaches the message.
 */
export function forgeHostOf(gitUrl: string | undefined): string {
  if (gitUrl === undefined) return 'unknown host';
  try {
    const host = parseRepositoryUrl(gitUrl).host;
    return host === '' ? 'local forge' : host;
  } catch {
    const host = URL.parse(gitUrl)?.hostname;
    return host === undefined || host === '' ? 'unknown host' : host;
  }
}

// What git prints when the server refused the credentials, or could not be reached at all.
const GIT_CREDENTIALS_REJECTED =
  /Authentication failed|could not read Username|Invalid username or password|requested URL returned error: 40[13]/i;
const GIT_UNREACHABLE =
  /Could not resolve host|Connection refused|Failed to connect|Connection timed out|Operation timed out|SSL certificate|server certificate verification failed|gnutls_handshake|Connection reset/i;

/** The condition for `error`, or undefined when it is not about the forge (then nothing is said). */
export function forgeFailureOf(error: unknown, host: string): ForgeAvailability | undefined {
  if (error instanceof ForgeResolutionError) {
    return {
      ok: false,
      host,
      reason:
        error.kind === 'no-credentials'
          ? FORGE_AVAILABLE_REASONS.credentialsMissing
          : FORGE_AVAILABLE_REASONS.notConfigured,
      message: `namespace ${error.namespace}: ${error.reason}`,
    };
  }
  if (error instanceof ForgeError) {
    const reason =
      error.transport !== undefined
        ? FORGE_AVAILABLE_REASONS.unreachable
        : error.status === 401 || error.status === 403
          ? FORGE_AVAILABLE_REASONS.credentialsRejected
          : FORGE_AVAILABLE_REASONS.failed;
    return { ok: false, host, reason, message: `${error.operation} ${error.repo}: ${error.reason}` };
  }
  if (error instanceof GitCommandError) {
    const reason = GIT_CREDENTIALS_REJECTED.test(error.details)
      ? FORGE_AVAILABLE_REASONS.credentialsRejected
      : GIT_UNREACHABLE.test(error.details)
        ? FORGE_AVAILABLE_REASONS.unreachable
        : FORGE_AVAILABLE_REASONS.failed;
    return { ok: false, host, reason, message: `git ${error.command}: ${error.reason}` };
  }
  return undefined;
}
