import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_DISPATCH_POLICY,
  dispatchPolicyProblem,
  retryDelayMs,
  retryNotBefore,
  stateAfterFailure,
} from '../../../src/domain/nudge/dispatch-policy.ts';

const MINUTE = 60_000;

describe('dispatch retry policy (docs/decisions.md N18)', () => {
  it('by default: 5 attempts, waits of 1, 2, 4 and 8 minutes, the last 15 minutes after the first failure', () => {
    assert.equal(DEFAULT_DISPATCH_POLICY.maxAttempts, 5);
    const waits = [1, 2, 3, 4].map((failures) => retryDelayMs(DEFAULT_DISPATCH_POLICY, failures));
    assert.deepEqual(
      waits,
      [1, 2, 4, 8].map((m) => m * MINUTE),
    );
    assert.equal(
      waits.reduce((a, b) => a + b),
      15 * MINUTE,
    );
  });

  it('caps each wait', () => {
    const policy = { ...DEFAULT_DISPATCH_POLICY, maxAttempts: 20 };
    assert.equal(retryDelayMs(policy, 19), 15 * MINUTE);
  });

  it('rounds the next time up to a whole second (the marker keeps seconds; never retry early)', () => {
    const now = Date.parse('2025-01-15T10:00:00.250Z');
    assert.equal(retryNotBefore(DEFAULT_DISPATCH_POLICY, 1, now), Date.parse('2025-01-15T10:01:01Z'));
  });

  it('ends in failed after the last attempt, or at once when retrying cannot help', () => {
    const now = Date.parse('2025-01-15T10:00:00Z');
    assert.deepEqual(stateAfterFailure(DEFAULT_DISPATCH_POLICY, 1, 'x', now), {
      kind: 'retry',
      failures: 1,
      notBefore: now + MINUTE,
      reason: 'x',
    });
    assert.deepEqual(stateAfterFailure(DEFAULT_DISPATCH_POLICY, 5, 'x', now), { kind: 'failed', reason: 'x' });
    assert.deepEqual(stateAfterFailure(DEFAULT_DISPATCH_POLICY, 1, 'x', now, true), { kind: 'failed', reason: 'x' });
  });

  it('names the field of a policy it cannot use', () => {
    const base = DEFAULT_DISPATCH_POLICY;
    assert.equal(dispatchPolicyProblem(base), undefined);
    assert.match(dispatchPolicyProblem({ ...base, maxAttempts: 0 }) ?? '', /^maxAttempts/);
    assert.match(dispatchPolicyProblem({ ...base, maxAttempts: 1000 }) ?? '', /^maxAttempts/);
    assert.match(dispatchPolicyProblem({ ...base, maxAttempts: 1.5 }) ?? '', /^maxAttempts/);
    assert.match(dispatchPolicyProblem({ ...base, firstRetryDelayMs: -1 }) ?? '', /^firstRetryDelayMs/);
    assert.match(dispatchPolicyProblem({ ...base, backoffFactor: 0.5 }) ?? '', /^backoffFactor/);
    assert.match(dispatchPolicyProblem({ ...base, maxRetryDelayMs: 1 }) ?? '', /^maxRetryDelayMs/);
    assert.match(dispatchPolicyProblem({ ...base, maxRetryDelayMs: Infinity }) ?? '', /^maxRetryDelayMs/);
  });
});
