import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeCondition } from '../../src/domain/conditions.ts';
import { MAX_NAMED_MISSING, staleReferences } from '../../src/domain/stale-references.ts';

describe('stale references', () => {
  it('is Valid when every referenced component exists', () => {
    const report = staleReferences([{ from: 'a', to: 'b' }], new Set(['a', 'b', 'c']));
    assert.deepEqual(report.missing, []);
    assert.deepEqual(report.condition, {
      type: 'Valid',
      status: 'True',
      reason: 'AllComponentsExist',
      message: 'All referenced components exist in namespace',
    });
  });

  it('lists every missing name once, sorted', () => {
    const report = staleReferences(
      [
        { from: 'z', to: 'b' },
        { from: 'a', to: 'z' },
      ],
      new Set(['b']),
    );
    assert.deepEqual(report.missing, ['a', 'z']);
    assert.equal(report.condition.status, 'False');
    assert.equal(report.condition.reason, 'StaleReferences');
    assert.equal(report.condition.message, 'Components [a, z] referenced in nudges no longer exist');
  });

  it('moves lastTransitionTime only when the status changes', () => {
    const valid = staleReferences([], new Set()).condition;
    const first = mergeCondition(undefined, valid, 't1', 1);
    assert.equal(first[0]?.lastTransitionTime, 't1');
    const same = mergeCondition(first, { ...valid, message: 'other words' }, 't2', 2);
    const [sameValid] = same;
    assert.ok(sameValid);
    assert.equal(sameValid.lastTransitionTime, 't1');
    assert.equal(sameValid.observedGeneration, 2);
    const flipped = mergeCondition(same, staleReferences([{ from: 'a', to: 'b' }], new Set()).condition, 't3', 2);
    assert.equal(flipped[0]?.lastTransitionTime, 't3');
    assert.equal(flipped.length, 1);
    const withOther = mergeCondition(
      [{ type: 'Other', status: 'True', reason: 'R', message: '' }],
      valid,
      't4',
      undefined,
    );
    assert.deepEqual(
      withOther.map((c) => c.type),
      ['Other', 'Valid'],
    );
  });

  it('names at most MAX_NAMED_MISSING missing Components, so 5,000 entries still fit a condition message', () => {
    // 5,000 entries between 10,000 distinct 63-character names, none of which exists.
    const name = (i: number): string => `c${String(i).padStart(62, '0')}`;
    const entries = Array.from({ length: 5000 }, (_, i) => ({ from: name(2 * i), to: name(2 * i + 1) }));
    const report = staleReferences(entries, new Set());
    assert.equal(report.missing.length, 10_000);
    const { message } = report.condition;
    assert.ok(message.length <= 32_768, `${String(message.length)} characters`);
    assert.ok(message.includes(name(0)));
    assert.ok(!message.includes(name(MAX_NAMED_MISSING)));
    assert.ok(
      message.endsWith(`, and ${String(10_000 - MAX_NAMED_MISSING)} more] referenced in nudges no longer exist`),
    );
  });
});
