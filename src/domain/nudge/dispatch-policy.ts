// How often, and how soon, a failed nudge is tried again (docs/decisions.md N18). build-service
// tries 3 times, 5 minutes × the failure count apart (15 minutes from the first failure to the
// last attempt). nudger's direct executor answers in about a second, so most failures are brief
// (a rate-limit window, a forge or API-server restart) and deserve a quick second try; the doubling
// reaches build-service's 5-minute scale for real outages, and the last attempt comes, as with
// build-service, 15 minutes after the first failure.
import { MAX_MARKER_ATTEMPTS, type TargetState } from './dispatch-marker.ts';

export interface DispatchPolicy {
  /** Attempts per (build, target), the first included; then the outcome is `failed`. */
  readonly maxAttempts: number;
  /** Wait after the first failure. */
  readonly firstRetryDelayMs: number;
  /** Each further failure multiplies the wait by this. */
  readonly backoffFactor: number;
  /** No wait is longer than this. */
  readonly maxRetryDelayMs: number;
}

/** 5 attempts; waits of 1, 2, 4 and 8 minutes: the last attempt 15 minutes after the first failure. */
export const DEFAULT_DISPATCH_POLICY: DispatchPolicy = Object.freeze({
  maxAttempts: 5,
  firstRetryDelayMs: 60_000,
  backoffFactor: 2,
  maxRetryDelayMs: 15 * 60_000,
});

/** Why `policy` cannot be used, naming the field, or undefined. */
export function dispatchPolicyProblem(policy: DispatchPolicy): string | undefined {
  const { maxAttempts, firstRetryDelayMs, backoffFactor, maxRetryDelayMs } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_MARKER_ATTEMPTS) {
    return `maxAttempts must be a whole number from 1 to ${String(MAX_MARKER_ATTEMPTS)}`;
  }
  if (!Number.isFinite(firstRetryDelayMs) || firstRetryDelayMs < 0) {
    return 'firstRetryDelayMs must be a finite number of milliseconds, 0 or more';
  }
  if (!Number.isFinite(backoffFactor) || backoffFactor < 1) return 'backoffFactor must be a finite number, 1 or more';
  if (!Number.isFinite(maxRetryDelayMs) || maxRetryDelayMs < firstRetryDelayMs) {
    return 'maxRetryDelayMs must be a finite number of milliseconds, at least firstRetryDelayMs';
  }
  return undefined;
}

/** The wait after the `failures`-th failure (1 for the first). */
export function retryDelayMs(policy: DispatchPolicy, failures: number): number {
  const delay = policy.firstRetryDelayMs * policy.backoffFactor ** Math.max(0, failures - 1);
  return Math.min(delay, policy.maxRetryDelayMs);
}

/**
 * When the next attempt may start: `now` plus the wait, rounded up to a whole second because the
 * marker stores whole seconds, and rounding down would retry early.
 */
export function retryNotBefore(policy: DispatchPolicy, failures: number, now: number): number {
  return Math.ceil((now + retryDelayMs(policy, failures)) / 1000) * 1000;
}

/**
 * The marker state after failure number `failures` (1 for the first) of a target: another attempt
 * after the wait, or `failed` when that was the last attempt or retrying cannot help.
 */
export function stateAfterFailure(
  policy: DispatchPolicy,
  failures: number,
  reason: string,
  now: number,
  permanent = false,
): Extract<TargetState, { kind: 'retry' | 'failed' }> {
  if (permanent || failures >= policy.maxAttempts) return { kind: 'failed', reason };
  return { kind: 'retry', failures, notBefore: retryNotBefore(policy, failures, now), reason };
}
