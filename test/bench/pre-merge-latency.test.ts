// The pure part of issue 12's pre-merge latency benchmark (bench/pre-merge-latency.ts): which poll
// is t1 once the digest is known. A mistake here would print a wrong figure (t1 taken from an
// earlier push), so it is checked against what it must be.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstSeenWith } from '../../bench/pre-merge-latency.ts';

describe('pre-merge latency benchmark helpers', () => {
  it('takes t1 from the first observation holding the digest, none before it', () => {
    const observations = [
      { at: 10, text: 'FROM quay.io/b/operand@sha256:old AS operand' },
      { at: 20, text: 'FROM quay.io/b/operand@sha256:new AS operand' },
      { at: 30, text: 'FROM quay.io/b/operand@sha256:new AS operand' },
    ];
    assert.equal(firstSeenWith(observations, 'sha256:new'), 20);
    assert.equal(firstSeenWith(observations, 'sha256:other'), undefined);
    assert.equal(firstSeenWith([], 'sha256:new'), undefined);
  });
});
