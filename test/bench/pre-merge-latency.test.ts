// The pure parts of issue 12's pre-merge latency benchmark (bench/pre-merge-latency.ts): which poll
// is t1 once the digest is known, and the digest each executor-level sample pins. A mistake here
// would print a wrong figure (t1 taken from an earlier push, or a sample that changes nothing and
// closes the nudge PR), so each is checked against what it must be.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { digestCharOf, firstSeenWith } from '../../bench/pre-merge-latency.ts';

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

  it('pins a digest other than the base one (0) and other than the previous sample’s', () => {
    const chars = Array.from({ length: 40 }, (_, i) => digestCharOf(i));
    assert.ok(chars.every((c) => /^[1-9a-f]$/.test(c)));
    for (let i = 1; i < chars.length; i += 1) assert.notEqual(chars[i], chars[i - 1], `sample ${String(i)}`);
  });
});
